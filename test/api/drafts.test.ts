import { describe, expect, it } from "vitest";
import { queuedEvents, registerQueue } from "../support/factories.js";
import { expectError, expectSuccess, useTestServer } from "../support/testApp.js";

/** Drafts, saved snippets and bot storage: per-user state with events to the user's own clients. */
const t = useTestServer({ eventHeartbeatSeconds: 1 });

const queueOf = async (who: string, types: string[]) => (await registerQueue(t, who, { event_types: types })).queue_id as string;

describe("drafts", () => {
  it("are created, listed, edited and deleted, with events, and come in /register", async () => {
    const denmark = expectSuccess(await t.get("hamlet", "/api/v1/get_stream_id", { stream: "Denmark" })).stream_id;
    const othello = (await t.user("othello")).id;
    const queue = await queueOf("hamlet", ["drafts"]);
    const drafts = [
      { type: "stream", to: [denmark], topic: "plans", content: "Half-written", timestamp: 1_700_000_000 },
      { type: "private", to: [othello], topic: "", content: "Psst", timestamp: 1_700_000_100 },
      { type: "", to: [], topic: "", content: "No recipient yet" },
    ];
    const { ids } = expectSuccess(await t.post("hamlet", "/api/v1/drafts", { drafts: JSON.stringify(drafts) }));
    expect(ids).toHaveLength(3);
    const listed = expectSuccess(await t.get("hamlet", "/api/v1/drafts"));
    expect(listed.count).toBe(3);
    expect(listed.drafts.slice(0, 2)).toEqual([
      { id: ids[0], type: "stream", to: [denmark], topic: "plans", content: "Half-written", timestamp: 1_700_000_000 },
      { id: ids[1], type: "private", to: [othello], topic: "", content: "Psst", timestamp: 1_700_000_100 },
    ]);
    expect(expectSuccess(await t.get("othello", "/api/v1/drafts")).drafts).toEqual([]);

    expectSuccess(
      await t.patch("hamlet", `/api/v1/drafts/${ids[0]}`, { draft: JSON.stringify({ ...drafts[0], content: "Finished", timestamp: 1_700_000_200 }) }),
    );
    expectSuccess(await t.delete("hamlet", `/api/v1/drafts/${ids[1]}`));
    const state = expectSuccess(
      await t.post("hamlet", "/api/v1/register", { fetch_event_types: JSON.stringify(["drafts"]), event_types: JSON.stringify(["message"]) }),
    );
    expect(state.drafts.map((d: any) => [d.id, d.content])).toEqual([
      [ids[0], "Finished"],
      [ids[2], "No recipient yet"],
    ]);
    const events = await queuedEvents(t, "hamlet", queue);
    expect(events.map((e: any) => e.op)).toEqual(["add", "update", "remove"]);
    expect(events[0].drafts).toHaveLength(3);
    expect(events[1].draft).toEqual({ id: ids[0], type: "stream", to: [denmark], topic: "plans", content: "Finished", timestamp: 1_700_000_200 });
    expect(events[2]).toMatchObject({ type: "drafts", op: "remove", draft_id: ids[1] });
  });

  it("refuse drafts that are invalid or not the user's, and save nothing then", async () => {
    const before = expectSuccess(await t.get("iago", "/api/v1/drafts")).count;
    const coreTeam = expectSuccess(await t.get("iago", "/api/v1/get_stream_id", { stream: "core team" })).stream_id;
    const bad = (draft: object) =>
      t.post("othello", "/api/v1/drafts", { drafts: JSON.stringify([{ type: "stream", to: [], topic: "t", content: "x", ...draft }]) });
    expectError(await bad({}), 400, "Must specify exactly 1 channel ID for channel messages");
    expectError(await bad({ to: [coreTeam] }), 400, "Invalid channel ID");
    expectError(await bad({ type: "private", to: [99_999] }), 400, "Invalid user ID 99999");
    expectError(await bad({ to: [1], timestamp: -5 }), 400, "Timestamp must not be negative.");
    expect((await bad({ extra: 1 })).status).toBe(400);
    expect((await bad({ content: "" })).status).toBe(400);
    const { ids } = expectSuccess(await t.post("iago", "/api/v1/drafts", { drafts: JSON.stringify([{ type: "", to: [], topic: "", content: "mine" }]) }));
    expectError(
      await t.patch("othello", `/api/v1/drafts/${ids[0]}`, { draft: JSON.stringify({ type: "", to: [], topic: "", content: "yours" }) }),
      404,
      "Draft does not exist",
    );
    expectError(await t.delete("othello", `/api/v1/drafts/${ids[0]}`), 404, "Draft does not exist");
    expect(expectSuccess(await t.get("iago", "/api/v1/drafts")).count).toBe(before + 1);
  });

  it("are refused, and not in /register, for users who turned synchronization off", async () => {
    expectSuccess(await t.patch("cordelia", "/api/v1/settings", { enable_drafts_synchronization: "false" }));
    expectError(await t.get("cordelia", "/api/v1/drafts"), 400, "User has disabled synchronizing drafts.");
    expectError(
      await t.post("cordelia", "/api/v1/drafts", { drafts: JSON.stringify([{ type: "", to: [], topic: "", content: "x" }]) }),
      400,
      "User has disabled synchronizing drafts.",
    );
    const state = expectSuccess(
      await t.post("cordelia", "/api/v1/register", { fetch_event_types: JSON.stringify(["drafts"]), event_types: JSON.stringify(["message"]) }),
    );
    expect(state.drafts).toEqual([]);
  });
});

describe("saved snippets", () => {
  it("are created, edited and deleted with events, and come in /register", async () => {
    const queue = await queueOf("hamlet", ["saved_snippets"]);
    const id = expectSuccess(await t.post("hamlet", "/api/v1/saved_snippets", { title: "  Greeting ", content: "Welcome aboard!" })).saved_snippet_id;
    expectSuccess(await t.patch("hamlet", `/api/v1/saved_snippets/${id}`, { content: "Welcome to the team!" }));
    const listed = expectSuccess(await t.get("hamlet", "/api/v1/saved_snippets")).saved_snippets;
    expect(listed).toEqual([{ id, title: "Greeting", content: "Welcome to the team!", date_created: expect.any(Number) }]);
    const state = expectSuccess(
      await t.post("hamlet", "/api/v1/register", { fetch_event_types: JSON.stringify(["saved_snippets"]), event_types: JSON.stringify(["message"]) }),
    );
    expect(state.saved_snippets).toEqual(listed);
    expect(expectSuccess(await t.get("othello", "/api/v1/saved_snippets")).saved_snippets).toEqual([]);
    expectError(await t.delete("othello", `/api/v1/saved_snippets/${id}`), 404, "Saved snippet does not exist.");
    expectSuccess(await t.delete("hamlet", `/api/v1/saved_snippets/${id}`));
    const events = await queuedEvents(t, "hamlet", queue);
    expect(events.map((e: any) => [e.type, e.op])).toEqual([
      ["saved_snippets", "add"],
      ["saved_snippets", "update"],
      ["saved_snippets", "remove"],
    ]);
    expect(events[1].saved_snippet).toEqual(listed[0]);
    expect(events[2].saved_snippet_id).toBe(id);
  });

  it("need a title and content within their limits", async () => {
    expectError(await t.post("hamlet", "/api/v1/saved_snippets", { title: "  ", content: "x" }), 400, "Title cannot be empty.");
    expectError(await t.post("hamlet", "/api/v1/saved_snippets", { title: "x", content: "" }), 400, "Content cannot be empty.");
    expectError(await t.post("hamlet", "/api/v1/saved_snippets", { title: "x".repeat(61), content: "x" }), 400, "title is too long (limit: 60 characters)");
    expect(expectSuccess(await t.get("hamlet", "/api/v1/saved_snippets")).saved_snippets).toEqual([]);
  });
});

describe("bot storage", () => {
  it("stores, reads and removes string values per user, as Zulip's bots library expects", async () => {
    expectSuccess(await t.put("hamlet", "/api/v1/bot_storage", { storage: JSON.stringify({ counter: "1", board: "rnbqkbnr" }) }));
    expectSuccess(await t.put("hamlet", "/api/v1/bot_storage", { storage: JSON.stringify({ counter: "2" }) }));
    expect(expectSuccess(await t.get("hamlet", "/api/v1/bot_storage")).storage).toEqual({ board: "rnbqkbnr", counter: "2" });
    expect(expectSuccess(await t.get("hamlet", "/api/v1/bot_storage", { keys: JSON.stringify(["counter"]) })).storage).toEqual({ counter: "2" });
    expect(expectSuccess(await t.get("othello", "/api/v1/bot_storage")).storage).toEqual({});
    expectError(await t.get("hamlet", "/api/v1/bot_storage", { keys: JSON.stringify(["missing"]) }), 400, "Key does not exist.");
    expectError(await t.delete("hamlet", "/api/v1/bot_storage", { keys: JSON.stringify(["counter", "missing"]) }), 400, "Key does not exist.");
    expect((await t.put("hamlet", "/api/v1/bot_storage", { storage: JSON.stringify({ n: 1 }) })).status).toBe(400);
    expectSuccess(await t.delete("hamlet", "/api/v1/bot_storage", { keys: JSON.stringify([]) }));
    expectSuccess(await t.delete("hamlet", "/api/v1/bot_storage", { keys: JSON.stringify(["counter"]) }));
    expect(expectSuccess(await t.get("hamlet", "/api/v1/bot_storage")).storage).toEqual({ board: "rnbqkbnr" });
    expectSuccess(await t.delete("hamlet", "/api/v1/bot_storage"));
    expect(expectSuccess(await t.get("hamlet", "/api/v1/bot_storage")).storage).toEqual({});
  });
});
