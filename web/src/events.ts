import type {
  ClientEvent,
  EventsResponse,
  UpdateMessageEvent,
  UserGroupEvent,
  RealmBotEvent,
  SubscriptionEvent,
  UpdateMessageFlagsEvent,
} from "../../src/contract/events.js";
import { VisibilityPolicy } from "../../src/contract/constants.js";
import type { BotPayload } from "../../src/contract/payloads.js";
import { REGISTER_PARAMS, VISITOR_REGISTER_PARAMS, type RealmEmojiPayload, type RegisterState, type UserGroupPayload } from "../../src/contract/register.js";
import { batch } from "@preact/signals";
import type { UserResponse } from "../../src/contract/responses.js";
import { ApiError, api, myUserId } from "./api.js";
import { isVisitor } from "./visitor.js";
import { currentQueueId, setQueueId } from "./eventQueue.js";
import { onTypingEvent } from "./typing.js";
import { catchUp, matchesView, receiveNewMessage, updateMessages, view } from "./messages.js";
import {
  connection,
  conversationOf,
  forgetTopics,
  type Message,
  noteDm,
  noteTopic,
  realm,
  realmEmoji,
  realmName,
  type RealmEmoji,
  type Reaction,
  setUserTopic,
  settings,
  subscriptions,
  unread,
  userGroups,
  users,
  userTopics,
  topicKey,
  type User,
} from "./state.js";
import { noteRecentDms, noteRecentMessage, noteRecentMove, noteRecentDelete } from "./recent.js";
import { dmPeople } from "./unread.js";
import { ackLocalEcho } from "./outbox.js";
import { retryChangesNow } from "./changeQueue.js";
import { loadPresences, mergePresences, type Presence } from "./presence.js";
import { uploadLimitMib } from "./upload/uploads.js";
import { applyPersonalEvent, loadPersonal } from "./personal.js";
import { applyStreamEvent, applySubscriberEvent } from "./channels.js";
import { applyComposeEvent, loadComposeData } from "./composeData.js";
import { localDrafts } from "./composeDrafts.js";
import { notifyNewMessage } from "./notifications.js";
import { announceMessage } from "./announce.js";
import { applyStarredEvent, loadStarred } from "./starred.js";

/**
 * The real-time loop: POST /register, then long-poll GET /events. A lost queue (server restart
 * without saved queues, expiry after sleep) means a new registration and a catch-up fetch of the
 * open view: never a page reload, so the compose box and scroll position survive.
 */
let lastEventId = -1;

/** POST /register and the state it answers: again after a lost queue. */
export async function register(): Promise<void> {
  applyState(await api.once.post<RegisterState>("/register", isVisitor ? VISITOR_REGISTER_PARAMS : REGISTER_PARAMS));
}

/**
 * The first state: the /register answer that `/` embeds in the page (no round trip), else
 * POST /register. The script runs before the page has arrived in full (it is async), so the
 * element is read once the document is parsed. True when the state came with the page.
 */
export async function registerAtStart(): Promise<boolean> {
  if (document.readyState === "loading") await new Promise((resolve) => document.addEventListener("DOMContentLoaded", resolve, { once: true }));
  const element = document.getElementById("parley-state");
  let state: Partial<RegisterState> | null = null;
  try {
    state = element?.textContent ? (JSON.parse(element.textContent) as Partial<RegisterState>) : null;
  } catch {
    // a page cut short: register as after a lost queue
  }
  element?.remove();
  if (state?.result === "success") {
    applyState(state as RegisterState);
    return true;
  }
  await register();
  return false;
}

/** The /register answer, read once into the app's state (events keep it current from there). */
export function applyState(state: RegisterState): void {
  // A visitor may have no event queue (queue_id null): nothing to set, and no event loop (main.tsx).
  if (state.queue_id !== null) {
    setQueueId(state.queue_id);
    lastEventId = state.last_event_id;
    document.getElementById("app")?.setAttribute("data-queue-id", currentQueueId());
  }
  realmName.value = state.realm_name ?? "";
  uploadLimitMib.value = state.max_file_upload_size_mib ?? null;
  users.value = new Map(state.realm_users.map((u) => [u.user_id, u]));
  subscriptions.value = new Map(state.subscriptions.map((s) => [s.stream_id, s]));
  const s = state.user_settings ?? {};
  settings.value = {
    ...s,
    color_scheme: typeof s.color_scheme === "number" ? s.color_scheme : 1,
    enter_sends: typeof s.enter_sends === "boolean" ? s.enter_sends : true,
    web_home_view: typeof s.web_home_view === "string" ? s.web_home_view : "inbox",
  };
  loadPersonal(state);
  loadComposeData(state, localDrafts);
  loadStarred(state);
  unread.load(state.unread_msgs, myUserId);
  loadPresences(state.presences, state.server_timestamp);
  for (const p of state.recent_private_conversations ?? []) noteDmOnce(dmPeople(p.user_ids, myUserId));
  noteRecentDms(state.recent_private_conversations ?? []);
  realm.value = Object.fromEntries(
    Object.entries(state).filter(([key]) => key.startsWith("realm_") && key !== "realm_users" && key !== "realm_user_groups" && key !== "realm_emoji"),
  );
  userGroups.value = new Map((state.realm_user_groups ?? []).map((g) => [g.id, withLists(g)]));
  userTopics.value = new Map(
    (state.user_topics ?? [])
      .filter((t) => t.visibility_policy !== VisibilityPolicy.INHERIT)
      .map((t) => [topicKey(t.stream_id, t.topic_name), t.visibility_policy]),
  );
  loadRealmEmoji(state.realm_emoji ?? {});
}

/** A group as the app keeps it: its member and subgroup lists always present. */
function withLists(g: UserGroupPayload): UserGroupPayload {
  return { ...g, members: g.members ?? [], direct_subgroup_ids: g.direct_subgroup_ids ?? [] };
}

function loadRealmEmoji(dict: Record<string, RealmEmojiPayload | RealmEmoji>): void {
  realmEmoji.value = new Map(Object.entries(dict).map(([id, e]) => [id, { id, name: e.name, source_url: e.source_url, deactivated: e.deactivated }]));
}

function noteDmOnce(ids: number[]): void {
  noteDm(ids);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function runEventLoop(): Promise<void> {
  let failures = 0;
  for (;;) {
    try {
      const result = await api.get<EventsResponse>("/events", { queue_id: currentQueueId(), last_event_id: lastEventId });
      connection.value = "connected";
      // The server answers again: changes waiting to be sent again go now.
      if (failures > 0) retryChangesNow();
      failures = 0;
      for (const event of result.events) {
        lastEventId = Math.max(lastEventId, event.id);
        try {
          applyEvent(event);
        } catch (error) {
          console.error("could not apply event", event, error);
        }
      }
    } catch (error) {
      // A visitor refused (the organization stopped letting visitors in): the page stays as it is.
      if (isVisitor && error instanceof ApiError && error.status === 401) return;
      connection.value = "reconnecting";
      if (error instanceof ApiError && error.code === "BAD_EVENT_QUEUE_ID") {
        await reconnect();
        continue;
      }
      failures++;
      const retryAfter = error instanceof ApiError && error.retryAfter ? error.retryAfter * 1000 : 0;
      // Jittered backoff: 0.5 s, 1 s, 2 s ... up to 30 s.
      await sleep(Math.max(retryAfter, Math.min(30_000, 500 * 2 ** Math.min(failures - 1, 6)) * (0.5 + Math.random() / 2)));
    }
  }
}

async function reconnect(): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await register();
      retryChangesNow();
      await catchUp();
      connection.value = "connected";
      return;
    } catch {
      await sleep(Math.min(30_000, 1000 * 2 ** Math.min(attempt, 5)));
    }
  }
}

/** Event types the app received but does not know, each reported once. */
const reportedUnknown = new Set<string>();

/**
 * The reducer: one event of GET /events into the app's state. Every type of the API contract has
 * its case (the switch is exhaustive: a new type in src/contract/events.ts must be handled or
 * listed as ignored); a type outside it is reported once on the console and skipped.
 */
export function applyEvent(event: ClientEvent): void {
  if (applyPersonalEvent(event)) return;
  if (applyComposeEvent(event)) return;
  applyStarredEvent(event);
  switch (event.type) {
    case "message":
      return onMessage(event.message as Message, event.flags ?? [], event.local_message_id);
    case "update_message_flags":
      return onFlags(event);
    case "delete_message": {
      const ids: number[] = "message_ids" in event ? event.message_ids : [event.message_id];
      unread.remove(ids);
      updateMessages((m) => (ids.includes(m.id) ? null : m));
      noteRecentDelete(ids);
      return;
    }
    case "update_message":
      return onUpdateMessage(event);
    case "reaction": {
      const same = (r: Reaction) => r.user_id === event.user_id && r.emoji_code === event.emoji_code && r.reaction_type === event.reaction_type;
      const added: Reaction = { emoji_name: event.emoji_name, emoji_code: event.emoji_code, reaction_type: event.reaction_type, user_id: event.user_id };
      updateMessages((m) => {
        if (m.id !== event.message_id) return m;
        const reactions = event.op === "add" ? [...m.reactions.filter((r) => !same(r)), added] : m.reactions.filter((r) => !same(r));
        return { ...m, reactions };
      });
      return;
    }
    case "submessage":
      updateMessages((m) =>
        m.id !== event.message_id || (m.submessages ?? []).some((s) => s.id === event.submessage_id)
          ? m
          : {
              ...m,
              submessages: [
                ...(m.submessages ?? []),
                { id: event.submessage_id, sender_id: event.sender_id, msg_type: event.msg_type, content: event.content },
              ],
            },
      );
      return;
    case "subscription":
      applySubscriberEvent(event);
      return onSubscription(event);
    case "stream":
      // A channel a visitor can no longer read takes its messages with it (the server's visitor queues send it as deleted).
      if (isVisitor && event.op === "delete") {
        const gone = new Set(event.stream_ids ?? event.streams.map((s) => s.stream_id));
        updateMessages((m) => (m.type === "stream" && gone.has(m.stream_id!) ? null : m));
      }
      return applyStreamEvent(event);
    case "realm_user":
      if (event.op === "add" || event.op === "update") {
        const id = event.person.user_id;
        const known = users.value.get(id);
        if (event.op === "update" && !known) {
          // Someone not in the list (e.g. deactivated when the page loaded, now reactivated): an
          // update carries only what changed, so the whole account is fetched once.
          void api.get<UserResponse>(`/users/${id}`).then(
            (body) => (users.value = new Map(users.value).set(id, { ...body.user, ...(users.value.get(id) ?? {}) })),
            () => {},
          );
          return;
        }
        users.value = new Map(users.value).set(id, { ...(known ?? ({} as User)), ...event.person });
      }
      return;
    case "user_settings":
      if (event.op === "update" && event.property in settings.value) settings.value = { ...settings.value, [event.property]: event.value };
      return;
    case "typing":
      return onTypingEvent(event);
    case "presence":
      if ("presences" in event) mergePresences(event.presences as Record<string, Presence>);
      return;
    case "user_topic":
      setUserTopic(event.stream_id, event.topic_name, event.visibility_policy);
      return;
    case "realm_emoji":
      if (event.op === "update") loadRealmEmoji(event.realm_emoji as Record<string, RealmEmojiPayload>);
      return;
    case "realm":
      if (event.op === "update") {
        realm.value = { ...realm.value, [`realm_${event.property}`]: event.value };
        if (event.property === "name") realmName.value = String(event.value);
      } else if (event.op === "update_dict") {
        const data = event.data as Record<string, unknown>;
        realm.value = { ...realm.value, ...Object.fromEntries(Object.entries(data).map(([k, v]) => [`realm_${k}`, v])) };
        if (typeof data.name === "string") realmName.value = data.name;
      }
      return;
    case "user_group":
      return onUserGroup(event);
    case "realm_linkifiers":
      realm.value = { ...realm.value, realm_linkifiers: event.realm_linkifiers };
      return;
    case "realm_user_settings_defaults":
      if (event.op === "update")
        realm.value = {
          ...realm.value,
          realm_user_settings_defaults: { ...(realm.value.realm_user_settings_defaults as Record<string, unknown>), [event.property]: event.value },
        };
      return;
    case "realm_bot":
      return onRealmBot(event);
    // Kept by the modules above (applyPersonalEvent, applyComposeEvent), or not shown by the app.
    case "muted_users":
    case "alert_words":
    case "user_status":
    case "custom_profile_fields":
    case "drafts":
    case "scheduled_messages":
    case "saved_snippets":
    case "heartbeat":
    case "default_streams":
    case "update_display_settings":
    case "update_global_notifications":
    case "muted_topics":
    case "attachment":
    case "typing_edit_message":
    case "realm_export":
    case "realm_export_consent":
    case "realm_playgrounds":
    case "invites_changed":
      return;
    default:
      reportUnknown(event);
  }
}

function reportUnknown(event: never): void {
  const type = String((event as { type?: unknown }).type);
  if (reportedUnknown.has(type)) return;
  reportedUnknown.add(type);
  console.warn(`Parley: an event of unknown type "${type}" was ignored`, event);
}

function onMessage(message: Message, flags: string[], localId: string | undefined): void {
  message.flags = flags;
  const conversation = conversationOf(message);
  if (!flags.includes("read")) {
    unread.add(message.id, conversation, flags.includes("mentioned") || flags.includes("wildcard_mentioned"));
  }
  if (conversation.kind === "dm") noteDm(conversation.userIds);
  else noteTopic(conversation.channelId, conversation.topic, message.id);
  noteRecentMessage(message);
  notifyNewMessage(message);
  if (localId && ackLocalEcho(localId, message)) return;
  if (receiveNewMessage(message)) announceMessage(message);
}

function onFlags(event: UpdateMessageFlagsEvent): void {
  const ids: number[] = event.all ? unread.ids() : event.messages;
  if (event.flag === "read") {
    if (event.op === "add") unread.remove(ids);
    else {
      // One change for the views, not one per message.
      batch(() => {
        for (const id of ids) {
          const d = event.message_details?.[id] as
            | { type: "stream"; stream_id: number; topic: string; mentioned?: boolean }
            | { type: "private"; user_ids?: number[]; mentioned?: boolean }
            | undefined;
          if (!d) continue;
          const conversation =
            d.type === "stream"
              ? { kind: "channel" as const, channelId: d.stream_id, topic: d.topic }
              : { kind: "dm" as const, userIds: dmPeople(d.user_ids ?? [], myUserId) };
          unread.add(id, conversation, !!d.mentioned);
        }
      });
    }
  }
  const set = new Set(ids);
  updateMessages((m) => {
    if (!set.has(m.id) && !event.all) return m;
    const flags = event.op === "add" ? [...new Set([...m.flags, event.flag])] : m.flags.filter((f) => f !== event.flag);
    return { ...m, flags };
  });
}

function onUpdateMessage(event: UpdateMessageEvent): void {
  const ids: number[] = event.message_ids ?? (event.message_id !== undefined ? [event.message_id] : []);
  const set = new Set(ids);
  const newTopic: string | undefined = event.subject ?? event.topic;
  const newChannel: number | undefined = event.new_stream_id;
  updateMessages((m) => {
    if (!set.has(m.id)) return m;
    const next = { ...m };
    if (m.id === event.message_id && event.rendered_content !== undefined) {
      next.content = event.rendered_content;
      next.last_edit_timestamp = event.edit_timestamp;
    }
    if (newTopic !== undefined) next.subject = newTopic;
    if (newChannel !== undefined) next.stream_id = newChannel;
    // Moved out of the open view (a topic or channel narrow): it leaves the list, as in Zulip.
    if ((newTopic !== undefined || newChannel !== undefined) && decidedLocally(view.value.terms) && !matchesView(next, view.value.terms, true)) return null;
    return next;
  });
  // A move names the channel and topic it left (stream_id, orig_subject).
  if ((newTopic !== undefined || newChannel !== undefined) && event.stream_id !== undefined && event.orig_subject !== undefined) {
    const to = { kind: "channel" as const, channelId: newChannel ?? event.stream_id, topic: newTopic ?? event.orig_subject };
    unread.move(ids, to);
    // The topic lists of both channels may have changed: fetched again when shown.
    forgetTopics(event.stream_id);
    if (newChannel !== undefined) forgetTopics(newChannel);
    noteRecentMove(ids, event.stream_id, event.orig_subject, to.channelId, to.topic);
  }
}

/** Whether the app itself can tell which messages belong in a view (no search: the server decides that). */
function decidedLocally(terms: ReadonlyArray<{ operator: string; operand: string }>): boolean {
  return terms.every(
    (t) =>
      ["channel", "topic", "dm", "sender", "near", "with"].includes(t.operator) || (t.operator === "is" && ["dm", "starred", "mentioned"].includes(t.operand)),
  );
}

function onUserGroup(event: UserGroupEvent): void {
  const map = new Map(userGroups.value);
  if (event.op === "add") {
    const group = withLists(event.group as UserGroupPayload);
    map.set(group.id, group);
  } else if (event.op === "remove") map.delete(event.group_id);
  else {
    const g = map.get(event.group_id);
    if (!g) return;
    const next = { ...g };
    if (event.op === "update") Object.assign(next, event.data);
    if (event.op === "add_members") next.members = [...new Set([...g.members, ...event.user_ids])];
    if (event.op === "remove_members") next.members = g.members.filter((id) => !event.user_ids.includes(id));
    if (event.op === "add_subgroups") next.direct_subgroup_ids = [...new Set([...g.direct_subgroup_ids, ...event.direct_subgroup_ids])];
    if (event.op === "remove_subgroups") next.direct_subgroup_ids = g.direct_subgroup_ids.filter((id) => !event.direct_subgroup_ids.includes(id));
    map.set(event.group_id, next);
  }
  userGroups.value = map;
}

/** Bots I own, or all bots for administrators (realm_bots): added, changed, deactivated (remove), gone (delete). */
function onRealmBot(event: RealmBotEvent): void {
  const bots = (realm.value.realm_bots ?? []) as BotPayload[];
  const id = event.bot.user_id;
  const next =
    event.op === "add"
      ? [...bots.filter((b) => b.user_id !== id), event.bot]
      : event.op === "update" || event.op === "remove"
        ? bots.map((b) => (b.user_id === id ? { ...b, ...event.bot, ...(event.op === "remove" ? { is_active: false } : {}) } : b))
        : bots.filter((b) => b.user_id !== id);
  realm.value = { ...realm.value, realm_bots: next };
}

function onSubscription(event: SubscriptionEvent): void {
  const map = new Map(subscriptions.value);
  if (event.op === "add") for (const sub of event.subscriptions) map.set(sub.stream_id, sub);
  else if (event.op === "remove") for (const sub of event.subscriptions) map.delete(sub.stream_id);
  else if (event.op === "update") {
    const sub = map.get(event.stream_id);
    if (sub)
      map.set(event.stream_id, {
        ...sub,
        [event.property === "in_home_view" ? "is_muted" : event.property]: event.property === "in_home_view" ? !event.value : event.value,
      });
  } else return;
  subscriptions.value = map;
}
