import { describe, expect, it } from "vitest";
import { expectError, expectSuccess, useTestServer } from "../support/testApp.js";
import { at } from "../support/at.js";

/** Zulip's widgets: /poll and /todo messages carry a widget submessage; POST /submessage changes it. */
const t = useTestServer({ eventHeartbeatSeconds: 1 });

async function send(who: string, content: string, to: string | number[] = "Denmark"): Promise<number> {
  const params = Array.isArray(to) ? { type: "private", to: JSON.stringify(to), content } : { type: "stream", to, topic: "widgets", content };
  return expectSuccess(await t.post(who, "/api/v1/messages", params)).id;
}

async function submessagesOf(id: number, who = "hamlet") {
  return expectSuccess(await t.get(who, `/api/v1/messages/${id}`)).message.submessages;
}

const submit = (who: string, messageId: number, content: unknown, msgType = "widget") =>
  t.post(who, "/api/v1/submessage", {
    message_id: String(messageId),
    msg_type: msgType,
    content: typeof content === "string" ? content : JSON.stringify(content),
  });

describe("/poll messages", () => {
  it("carry the poll as a widget submessage, in the message event and in fetches", async () => {
    const reg = expectSuccess(await t.post("othello", "/api/v1/register", { event_types: JSON.stringify(["message"]) }));
    const id = await send("hamlet", "/poll Where do we eat?\nPizza\n- Tacos\n\n* Sushi bar");
    const hamlet = (await t.user("hamlet")).id;
    const widget = { widget_type: "poll", extra_data: { question: "Where do we eat?", options: ["Pizza", "Tacos", "Sushi bar"] } };
    const [submessage] = await submessagesOf(id);
    expect(submessage).toMatchObject({ message_id: id, sender_id: hamlet, msg_type: "widget" });
    expect(JSON.parse(submessage.content)).toEqual(widget);

    const { events } = expectSuccess(await t.get("othello", "/api/v1/events", { queue_id: reg.queue_id, last_event_id: "-1", dont_block: "true" }));
    const event = events.find((e: any) => e.message.id === id);
    expect(event.message.submessages).toEqual([submessage]);
  });

  it("take votes and new options from readers, sent as submessage events to the message's receivers", async () => {
    const id = await send("hamlet", "/poll Tea or coffee?\nTea\nCoffee");
    const othello = (await t.user("othello")).id;
    const vote = { type: "vote", key: "canned,1", vote: 1 };
    const { result, events } = await t.captureEvents(() => submit("othello", id, vote));
    expectSuccess(result);
    const submessages = await submessagesOf(id);
    expect(submessages).toHaveLength(2);
    expect(submessages[1]).toMatchObject({ sender_id: othello, msg_type: "widget", content: JSON.stringify(vote) });
    expect(events).toHaveLength(1);
    expect(at(events, 0).event).toEqual({
      type: "submessage",
      msg_type: "widget",
      message_id: id,
      submessage_id: submessages[1].id,
      sender_id: othello,
      content: JSON.stringify(vote),
    });
    // Denmark's subscribers received the message: they get the event.
    expect(at(events, 0).users).toEqual(expect.arrayContaining([othello, (await t.user("hamlet")).id]));

    expectSuccess(await submit("iago", id, { type: "new_option", option: "Water", idx: 1 }));
    expectSuccess(await submit("hamlet", id, { type: "question", question: "Tea, coffee or water?" }));
    expect(await submessagesOf(id)).toHaveLength(4);
  });

  it("refuses malformed and unauthorised changes, and stores nothing for them", async () => {
    const id = await send("hamlet", "/poll Yes?\nYes\nNo");
    const cases: Array<[unknown, string]> = [
      ["{not json", "Invalid json for submessage"],
      [{ type: "vote", key: "canned,0", vote: 2 }, 'Invalid poll data["vote"]'],
      [{ type: "vote", key: 3, vote: 1 }, 'poll data["key"] is not a string'],
      [{ type: "vote", vote: 1 }, "key key is missing from poll data"],
      [{ type: "vote", key: "canned,0", vote: 1, extra: true }, "Unexpected arguments: extra"],
      [{ type: "new_option", option: "Maybe", idx: 1001 }, 'poll data["idx"] is not in the range 0..1000'],
      [{ type: "question", question: "Hijacked?" }, "You can't edit a question unless you are the author."],
      [{ type: "teleport" }, "Unknown type for poll data: teleport"],
      [[1, 2], "poll data is not a dict"],
    ];
    for (const [content, msg] of cases) expectError(await submit("othello", id, content), 400, msg);
    expect(await submessagesOf(id)).toHaveLength(1);
    expectError(
      await t.post("othello", "/api/v1/submessage", { message_id: String(id), msg_type: "widget" }),
      400,
      "Missing 'content' argument",
      "REQUEST_VARIABLE_MISSING",
    );
    expectError(await t.post("othello", "/api/v1/submessage", { message_id: "x", msg_type: "widget", content: "{}" }), 400, "message_id is not valid JSON");
  });

  it("cannot be changed by a user who may not read the message", async () => {
    const id = await send("iago", "/poll Release date?\nMonday", "core team");
    expectError(await submit("othello", id, { type: "vote", key: "canned,0", vote: 1 }), 400, "Invalid message(s)");
    expectError(await submit("hamlet", 99_999_999, { type: "vote", key: "canned,0", vote: 1 }), 400, "Invalid message(s)");
    expectSuccess(await submit("desdemona", id, { type: "vote", key: "canned,0", vote: 1 }));
  });

  it("work in direct messages too", async () => {
    const othello = (await t.user("othello")).id;
    const id = await send("hamlet", "/poll Meet at noon?\nYes\nNo", [othello]);
    expectSuccess(await submit("othello", id, { type: "vote", key: "canned,0", vote: 1 }));
    expect((await submessagesOf(id, "othello")).map((s: any) => s.sender_id)).toEqual([(await t.user("hamlet")).id, othello]);
    expectError(await submit("iago", id, { type: "vote", key: "canned,0", vote: 1 }), 400, "Invalid message(s)");
  });

  it("keep their content: a widget cannot be edited, though its topic can", async () => {
    const id = await send("hamlet", "/poll Edit me?\nNo");
    expectError(await t.patch("hamlet", `/api/v1/messages/${id}`, { content: "/poll Edited?\nYes" }), 400, "Widgets cannot be edited.");
    expectSuccess(await t.patch("hamlet", `/api/v1/messages/${id}`, { topic: "widgets moved" }));
  });
});

describe("/todo messages", () => {
  it("carry the task list; readers add and strike tasks; only the author renames it", async () => {
    const id = await send("hamlet", "/todo Groceries\nMilk: two litres\n* Bread");
    const [widget] = await submessagesOf(id);
    expect(JSON.parse(widget.content)).toEqual({
      widget_type: "todo",
      extra_data: {
        task_list_title: "Groceries",
        tasks: [
          { task: "Milk", desc: "two litres" },
          { task: "Bread", desc: "" },
        ],
      },
    });
    expectSuccess(await submit("othello", id, { type: "new_task", key: 2, task: "Eggs", desc: "", completed: false }));
    expectSuccess(await submit("othello", id, { type: "strike", key: "0,canned" }));
    expectError(
      await submit("othello", id, { type: "new_task_list_title", title: "Mine" }),
      400,
      "You can't edit the task list title unless you are the author.",
    );
    expectError(await submit("othello", id, { type: "new_task", key: 2, task: "Eggs", desc: "" }), 400, "completed key is missing from todo data");
    expectSuccess(await submit("hamlet", id, { type: "new_task_list_title", title: "Shopping" }));
    expect(await submessagesOf(id)).toHaveLength(4);
  });
});

describe("submessages on ordinary messages", () => {
  it("are attached first by the message's sender; then anyone who may read it may add more", async () => {
    const id = await send("hamlet", "no widget here");
    expectError(await submit("othello", id, { anything: true }, "custom"), 400, "You cannot attach a submessage to this message.");
    expectSuccess(await submit("hamlet", id, { anything: true }, "custom"));
    expectSuccess(await submit("othello", id, { more: 1 }, "custom"));
    expect((await submessagesOf(id)).map((s: any) => s.msg_type)).toEqual(["custom", "custom"]);
  });

  it("are not made from content that merely mentions a command", async () => {
    for (const content of [" /poll Indented?", "/polls are fun", "Let's /poll this"]) {
      expect(await submessagesOf(await send("hamlet", content))).toEqual([]);
    }
  });
});
