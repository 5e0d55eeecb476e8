import { describe, expect, it } from "vitest";
import { fixture, itPosts, useWebhookHarness } from "./support.js";

const wk = (name: string) => fixture("wekan", name);
const BOARD = "http://wekan.example.org/b/Jinj4Xj7qnHLRmrTY/roadmap";
const CARD = `${BOARD}/pMtu7kPZvMuhhC4hL`;
const TOPIC = "Wekan Notification";

describe("Wekan webhook", () => {
  const h = useWebhookHarness();

  itPosts(h, "wekan", [
    {
      name: "card created",
      payload: wk("create_card"),
      topic: TOPIC,
      content: `JohnFish created card "Read receipts" to list "Backlog" at swimlane "Default" at board "Roadmap".\n\n[See in Wekan](${CARD})`,
    },
    {
      name: "comment added",
      payload: wk("add_comment"),
      topic: TOPIC,
      content: `JohnFish commented on card "Read receipts": "This feature is important" at list "Design" at swimlane "Default" at board "Roadmap".\n\n[See in Wekan](${CARD})`,
    },
    {
      name: "list created (a board link)",
      payload: wk("create_list"),
      topic: TOPIC,
      content: `JohnFish added list "Testing & Maintenance" to board "Roadmap".\n\n[See in Wekan](${BOARD})`,
    },
    {
      name: "an activity Wekan leaves untranslated",
      payload: wk("remove_list"),
      topic: TOPIC,
      content: `JohnFish act-removeList.\n\n[See in Wekan](${BOARD})`,
    },
  ]);

  it("a payload without text is a 400 and posts nothing", async () => {
    const before = (await h.newest())?.id ?? 0;
    const res = await h.post("wekan", { description: "act-createCard", user: "JohnFish" });
    expect(res.status).toBe(400);
    expect(res.body.msg).toBe("payload['text'] is missing");
    expect(await h.since(before)).toEqual([]);
  });
});
