import type { ResolvedReferences } from "../../src/lib/markdown/index.js";

/** Zulip's test realm as the Markdown cases see it (hamlet 10, iago 11, othello 12, Verona 1...). */
const users = [
  { id: 7, full_name: "Zoe", email: "ZOE@zulip.com" },
  { id: 8, full_name: "Cordelia, Lear's daughter", email: "cordelia@zulip.com" },
  { id: 10, full_name: "King Hamlet", email: "hamlet@zulip.com" },
  { id: 11, full_name: "Iago", email: "iago@zulip.com" },
  { id: 12, full_name: "Othello, the Moor of Venice", email: "othello@zulip.com" },
];
const streams = [
  { id: 1, name: "Verona" },
  { id: 2, name: "Denmark" },
  { id: 13, name: "social" },
];
export const testRealmRefs: ResolvedReferences = {
  usersByName: new Map(users.map((u) => [u.full_name.toLowerCase(), u])),
  usersById: new Map(users.map((u) => [u.id, u])),
  groupsByName: new Map([["hamletcharacters", { id: 20, name: "hamletcharacters" }]]),
  streamsByName: new Map(streams.map((s) => [s.name.toLowerCase(), s])),
  realmEmoji: new Map([["green_tick", { id: 1, name: "green_tick", source_url: "/user_avatars/2/emoji/images/1.png", deactivated: false }]]),
};
