import { describe, expect, it } from "vitest";
import { fixture, itPosts, useWebhookHarness, type WebhookCase } from "./support.js";

const t = (name: string) => fixture("trello", name);
const CARD = "[Ship read receipts](https://trello.com/c/R2thJK3P)";
const BOARD = "[Parley roadmap](https://trello.com/b/l9NqJcCd)";
const TOPIC = "Parley roadmap";

const posts = (name: string, fixtureName: string, content: string): WebhookCase => ({ name, payload: t(fixtureName), topic: TOPIC, content });

describe("Trello webhook", () => {
  const h = useWebhookHarness();

  itPosts(h, "trello", [
    posts("card created", "create_card", `Eeshan Garg created ${CARD}.`),
    posts("card moved to another list", "change_list", `Eeshan Garg moved ${CARD} from Backlog to In progress.`),
    posts("card renamed", "rename_card", `Eeshan Garg renamed the card from "Read receipts" to ${CARD}.`),
    posts("description set", "set_desc", `Eeshan Garg set description for ${CARD} to:\n~~~ quote\nShow who read a message.\n~~~`),
    posts(
      "description changed",
      "change_desc",
      `Eeshan Garg changed description for ${CARD} from\n~~~ quote\nShow who read a message.\n~~~\nto\n~~~ quote\nShow who read each message.\n~~~`,
    ),
    posts("description removed", "remove_desc", `Eeshan Garg removed description from ${CARD}.`),
    posts("due date set", "set_due", `Eeshan Garg set due date for ${CARD} to <time:2026-05-11T10:00:00+00:00>.`),
    posts(
      "due date changed",
      "change_due",
      `Eeshan Garg changed due date for ${CARD} from <time:2026-05-11T10:00:00+00:00> to <time:2026-05-24T10:00:00+00:00>.`,
    ),
    posts("due date removed", "remove_due", `Eeshan Garg removed the due date from ${CARD}.`),
    posts("card archived", "archive_card", `Eeshan Garg archived ${CARD}.`),
    posts("card reopened", "reopen_card", `Eeshan Garg reopened ${CARD}.`),
    posts("label added", "add_label", `Eeshan Garg added a red label with "Urgent" to ${CARD}.`),
    posts("label removed", "remove_label", `Eeshan Garg removed a red label with "Urgent" from ${CARD}.`),
    posts("member added to card", "add_member_to_card", `Eeshan Garg added Tim Abbott to ${CARD}.`),
    posts("member removed from card", "remove_member_from_card", `Eeshan Garg removed Tim Abbott from ${CARD}.`),
    posts("attachment added", "add_attachment", `Eeshan Garg added [mockup.png](https://trello-attachments.s3.amazonaws.com/5abd/mockup.png) to ${CARD}.`),
    posts("checklist added", "add_checklist", `Eeshan Garg added the Launch checklist to ${CARD}.`),
    posts("comment", "comment", `Eeshan Garg commented on ${CARD}:\n~~~ quote\nLet's ship this on Friday.\n~~~`),
    posts("checklist item checked", "check_item", `Eeshan Garg checked **Tests** in **Launch** (${CARD}).`),
    posts("checklist item unchecked", "uncheck_item", `Eeshan Garg unchecked **Docs** in **Launch** (${CARD}).`),
    posts("member added to board", "add_member_to_board", `Eeshan Garg added Tim Abbott to ${BOARD}.`),
    posts("member removed from board", "remove_member_from_board", `Eeshan Garg removed Tim Abbott from ${BOARD}.`),
    posts("list created", "create_list", `Eeshan Garg added Done list to ${BOARD}.`),
    posts("board renamed", "rename_board", `Eeshan Garg renamed the board from Roadmap to ${BOARD}.`),
    { name: "a card moved within its list is ignored", payload: t("move_within_list"), ignored: true },
    { name: "a board background change is ignored", payload: t("change_background"), ignored: true },
    { name: "copyCard is ignored", payload: t("copy_card"), ignored: true },
    { name: "an updateCard Zulip cannot read is unsupported", payload: t("unknown_card_update"), ignored: { unsupportedEvent: "updateCard" } },
    { name: "an unknown action is unsupported", payload: t("unknown_action"), ignored: { unsupportedEvent: "createLabel" } },
  ]);

  it("a card action without the board is a 400 and posts nothing", async () => {
    const before = (await h.newest())?.id ?? 0;
    const payload = structuredClone(t("comment")) as { action: { data: Record<string, unknown> } };
    delete payload.action.data.board;
    const res = await h.post("trello", payload);
    expect(res.status).toBe(400);
    expect(res.body.msg).toContain("payload['action']['data']['board']");
    expect(await h.since(before)).toEqual([]);
  });
});
