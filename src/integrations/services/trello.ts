import type { Payload } from "../payload.js";
import { pyStr, pyTruthy } from "../python.js";
import { globalTime, optString } from "../trackerText.js";
import { defineIntegration, type WebhookInput, type WebhookMessage } from "../types.js";

/**
 * Zulip's "trello" integration (zerver/webhooks/trello): card actions (created, moved, renamed,
 * description, due date, archived/reopened, labels, members, attachments, checklists, comments)
 * and board actions (members, new lists, renamed), each in the board's topic.
 */

const data = (payload: Payload) => payload.at("action.data");
const cardLink = (payload: Payload) => `[${data(payload).at("card.name").str()}](https://trello.com/c/${data(payload).at("card.shortLink").str()})`;
const boardLink = (payload: Payload) => `[${data(payload).at("board.name").str()}](https://trello.com/b/${data(payload).at("board.shortLink").str()})`;
const memberName = (payload: Payload) => payload.at("action.member.fullName").str();

type Body = (payload: Payload) => string;

const CARD_BODIES: Record<string, Body> = {
  createCard: (p) => `created ${cardLink(p)}.`,
  changeList: (p) => {
    const from = data(p).at("listBefore.name").str();
    const to = data(p).at("listAfter.name").str();
    return `moved ${cardLink(p)} from ${from} to ${to}.`;
  },
  changeName: (p) => `renamed the card from "${data(p).at("old.name").str()}" to ${cardLink(p)}.`,
  setDesc: (p) => `set description for ${cardLink(p)} to:\n~~~ quote\n${data(p).at("card.desc").str()}\n~~~\n`,
  changeDesc: (p) => {
    const desc = data(p).at("card.desc").str();
    const old = data(p).at("old.desc").str();
    return `changed description for ${cardLink(p)} from\n~~~ quote\n${old}\n~~~\nto\n~~~ quote\n${desc}\n~~~\n`;
  },
  removeDesc: (p) => `removed description from ${cardLink(p)}.`,
  archiveCard: (p) => `archived ${cardLink(p)}.`,
  reopenCard: (p) => `reopened ${cardLink(p)}.`,
  setDueDate: (p) => `set due date for ${cardLink(p)} to ${globalTime(data(p).at("card.due").str())}.`,
  changeDueDate: (p) => {
    const due = globalTime(data(p).at("card.due").str());
    const old = globalTime(data(p).at("old.due").str());
    return `changed due date for ${cardLink(p)} from ${old} to ${due}.`;
  },
  removeDueDate: (p) => `removed the due date from ${cardLink(p)}.`,
  addLabelToCard: (p) => `added a ${data(p).get("value").str()} label with "${data(p).get("text").str()}" to ${cardLink(p)}.`,
  removeLabelFromCard: (p) => `removed a ${data(p).get("value").str()} label with "${data(p).get("text").str()}" from ${cardLink(p)}.`,
  addMemberToCard: (p) => `added ${memberName(p)} to ${cardLink(p)}.`,
  removeMemberFromCard: (p) => `removed ${memberName(p)} from ${cardLink(p)}.`,
  addAttachmentToCard: (p) => {
    const url = data(p).at("attachment.url").str();
    const name = data(p).at("attachment.name").str();
    return `added [${name}](${url}) to ${cardLink(p)}.`;
  },
  addChecklistToCard: (p) => `added the ${data(p).at("checklist.name").str()} checklist to ${cardLink(p)}.`,
  commentCard: (p) => `commented on ${cardLink(p)}:\n~~~ quote\n${data(p).get("text").str()}\n~~~\n`,
  updateCheckItemStateOnCard: (p) => {
    const d = data(p);
    const action = d.at("checkItem.state").str() === "complete" ? "checked" : "unchecked";
    return `${action} **${d.at("checkItem.name").str()}** in **${d.at("checklist.name").str()}** (${cardLink(p)}).`;
  },
};

const SUPPORTED_CARD_ACTIONS = new Set([
  "updateCard",
  "createCard",
  "addLabelToCard",
  "removeLabelFromCard",
  "addMemberToCard",
  "removeMemberFromCard",
  "addAttachmentToCard",
  "addChecklistToCard",
  "commentCard",
  "updateCheckItemStateOnCard",
]);
const IGNORED_CARD_ACTIONS = new Set(["copyCard", "createCheckItem", "updateCheckItem", "updateList"]);
/** updateCard fields Zulip does not post about: moves within a list, covers, due-complete marks. */
const IGNORED_CARD_FIELDS = ["cover", "dueComplete", "idAttachmentCover", "pos"];

/** What an updateCard did, as Zulip reads `old` against the card; null: nothing Zulip posts. */
function cardUpdate(hook: WebhookInput, payload: Payload): string | null {
  const d = data(payload);
  const old = d.get("old");
  const card = d.get("card");
  if (!d.has("old")) old.str();
  if (!d.has("card")) card.str();
  if (pyTruthy(d.get("listBefore").value)) return "changeList";
  if (optString(old.get("name"))) return "changeName";
  const oldDesc = optString(old.get("desc"));
  if (oldDesc === "") return "setDesc";
  if (oldDesc) return optString(card.get("desc")) === "" ? "removeDesc" : "changeDesc";
  if (old.has("due") && old.get("due").value === null) return "setDueDate";
  if (optString(old.get("due"))) return card.has("due") && card.get("due").value === null ? "removeDueDate" : "changeDueDate";
  const oldClosed = old.get("closed").value === undefined ? undefined : old.get("closed").optBool();
  const cardClosed = card.get("closed");
  if (oldClosed === false && (cardClosed.value === undefined ? false : cardClosed.bool())) return "archiveCard";
  if (oldClosed && cardClosed.value !== undefined && cardClosed.optBool() === false) return "reopenCard";
  if (IGNORED_CARD_FIELDS.some((field) => old.has(field))) return null;
  throw hook.unsupported("updateCard");
}

const BOARD_BODIES: Record<string, Body> = {
  removeMemberFromBoard: (p) => `removed ${memberName(p)} from ${boardLink(p)}.`,
  addMemberToBoard: (p) => `added ${memberName(p)} to ${boardLink(p)}.`,
  createList: (p) => `added ${data(p).at("list.name").str()} list to ${boardLink(p)}.`,
  changeName: (p) => `renamed the board from ${data(p).at("old.name").str()} to ${boardLink(p)}.`,
};

function boardUpdate(hook: WebhookInput, payload: Payload): string | null {
  const old = data(payload).get("old");
  const prefs = old.get("prefs");
  if (prefs.exists() && prefs.dict().has("background")) return null;
  if (old.get("name").str()) return "changeName";
  throw hook.unsupported("updateBoard");
}

function handle(hook: WebhookInput): WebhookMessage | null {
  const { payload } = hook;
  const actionType = payload.at("action.type").str();
  if (SUPPORTED_CARD_ACTIONS.has(actionType)) {
    const action = actionType === "updateCard" ? cardUpdate(hook, payload) : actionType;
    if (action === null) return null;
    const topic = data(payload).at("board.name").str();
    const body = (CARD_BODIES[action] as Body)(payload);
    return { topic, content: `${pyStr(optString(payload.at("action.memberCreator").dict().get("fullName")) ?? null)} ${body}` };
  }
  if (IGNORED_CARD_ACTIONS.has(actionType)) return null;
  if (actionType in BOARD_BODIES || actionType === "updateBoard") {
    if (actionType === "changeName") throw hook.unsupported(actionType);
    const action = actionType === "updateBoard" ? boardUpdate(hook, payload) : actionType;
    if (action === null) return null;
    const topic = data(payload).at("board.name").str();
    const body = (BOARD_BODIES[action] as Body)(payload);
    return { topic, content: `${payload.at("action.memberCreator.fullName").str()} ${body}` };
  }
  throw hook.unsupported(actionType);
}

export default defineIntegration({
  answersHeadRequests: true,
  name: "trello",
  displayName: "Trello",
  categories: ["project-management"],
  setup:
    "Trello webhooks are created through Trello's API: with your Trello API key and token, find the ID of the board " +
    "(`https://api.trello.com/1/members/me/boards`) and `POST https://api.trello.com/1/webhooks` with `idModel` set to the board's ID " +
    "and `callbackURL` set to the URL generated here.",
  handle,
});
