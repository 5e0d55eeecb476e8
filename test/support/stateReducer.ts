/**
 * A client's view of the server: POST /register's initial state with events applied, as Zulip's
 * apply_event (zerver/lib/events.py) and the official clients do. The state-consistency tests
 * (test/events/stateConsistency.test.ts) check that such a state equals a fresh registration.
 *
 * The reducer works for a client registered with the modern capabilities (MODERN_CAPABILITIES).
 * Values it cannot know without asking the server (the newest message after a deletion) become
 * UNKNOWN, which the comparison accepts for any value.
 */
export type State = Record<string, any>;
type Event = Record<string, any>;

export const UNKNOWN = Symbol("unknown");

export const MODERN_CAPABILITIES = {
  notification_settings_null: true,
  bulk_message_deletion: true,
  user_avatar_url_field_optional: false,
  stream_typing_notifications: true,
  user_settings_object: true,
  linkifier_url_template: true,
  user_list_incomplete: false,
  include_deactivated_groups: true,
  archived_channels: true,
  empty_topic_name: true,
  simplified_presence_events: true,
};

/** One unread message as Zulip keeps it before aggregating (raw_unread_msgs). */
interface RawUnread {
  kind: "pm" | "stream" | "huddle";
  otherUserId?: number;
  userIdsString?: string;
  streamId?: number;
  topic?: string;
  mentioned: boolean;
}

export class ClientState {
  readonly state: State;
  private readonly unread = new Map<number, RawUnread>();
  /** Set when the server's unread state can change in ways no event describes (resubscribing). */
  private unreadUnknown = false;

  constructor(
    initial: State,
    private readonly userId: number,
    private readonly options: { includeSubscribers: boolean },
  ) {
    this.state = structuredClone(initial);
    if (this.state.unread_msgs) this.readUnread(this.state.unread_msgs);
  }

  apply(events: Event[]): State {
    for (const event of events) this.applyOne(event);
    if (this.state.unread_msgs) this.state.unread_msgs = this.unreadUnknown ? UNKNOWN : this.aggregateUnread(this.state.unread_msgs.old_unreads_missing);
    return this.state;
  }

  private applyOne(event: Event): void {
    const s = this.state;
    switch (event.type) {
      case "heartbeat":
      case "typing":
      case "typing_edit_message":
      case "restart":
      case "reaction":
      case "submessage":
      case "attachment": // Uploads are not part of POST /register; applyAttachmentEvents keeps GET /attachments.
        return;
      case "message":
        return this.applyMessage(event);
      case "update_message":
        return this.applyUpdateMessage(event);
      case "delete_message":
        return this.applyDeleteMessage(event);
      case "update_message_flags":
        return this.applyFlags(event);
      case "subscription":
        return this.applySubscription(event);
      case "stream":
        return this.applyStream(event);
      case "default_streams":
        if ("realm_default_streams" in s) s.realm_default_streams = event.default_streams;
        return;
      case "realm_user":
        return this.applyRealmUser(event);
      case "realm_bot":
        return this.applyRealmBot(event);
      case "user_settings":
        if (s.user_settings && event.op === "update") s.user_settings[event.property] = event.value;
        return;
      case "user_status":
        return this.applyUserStatus(event);
      case "user_topic":
        return this.applyUserTopic(event);
      case "muted_topics":
        if ("muted_topics" in s) s.muted_topics = event.muted_topics;
        return;
      case "realm_emoji":
        if ("realm_emoji" in s) s.realm_emoji = event.realm_emoji;
        return;
      case "realm_user_settings_defaults":
        if ("realm_user_settings_defaults" in s) s.realm_user_settings_defaults[event.property] = event.value;
        return;
      case "realm_linkifiers":
        if ("realm_linkifiers" in s) s.realm_linkifiers = event.realm_linkifiers;
        return;
      case "realm_playgrounds":
        if ("realm_playgrounds" in s) s.realm_playgrounds = event.realm_playgrounds;
        return;
      case "custom_profile_fields":
        if ("custom_profile_fields" in s) s.custom_profile_fields = event.fields;
        return;
      case "user_group":
        return this.applyUserGroup(event);
      case "realm":
        return this.applyRealm(event);
      case "presence":
        return this.applyPresence(event);
      case "muted_users":
        if ("muted_users" in s) s.muted_users = event.muted_users;
        return;
      case "alert_words":
        if ("alert_words" in s) s.alert_words = event.alert_words;
        return;
      case "scheduled_messages":
        return this.applyScheduledMessages(event);
      case "drafts":
        return this.applyDrafts(event);
      case "saved_snippets":
        return this.applySavedSnippets(event);
      case "realm_export_consent":
        // Updates what GET /export/realm/consents lists; /register has no such state.
        return;
      case "realm_export":
        // The list GET /export/realm returns; /register has no such state.
        return;
      default:
        throw new Error(`stateReducer: no rule for event type ${event.type}`);
    }
  }

  // ---- messages and unread state ----

  private applyMessage(event: Event): void {
    const s = this.state;
    const message = event.message;
    if ("max_message_id" in s && s.max_message_id !== UNKNOWN) s.max_message_id = Math.max(s.max_message_id, message.id);
    const flags: string[] = event.flags;
    if (s.unread_msgs && !flags.includes("read")) {
      if (message.type === "stream") {
        const muted = this.isTopicMuted(message.stream_id, message.subject);
        const wildcard = flags.includes("stream_wildcard_mentioned") || flags.includes("topic_wildcard_mentioned");
        this.unread.set(message.id, {
          kind: "stream",
          streamId: message.stream_id,
          topic: message.subject,
          mentioned: flags.includes("mentioned") || (wildcard && !muted),
        });
      } else {
        this.addPrivateUnread(
          message.id,
          this.otherUserIds(message.display_recipient.map((r: any) => r.id)),
          flags.some((f) => MENTION_FLAGS.has(f)),
          message.sender_id,
        );
      }
    }
    if (s.recent_private_conversations && message.type === "private") {
      const userIds = this.otherUserIds(message.display_recipient.map((r: any) => r.id));
      const key = JSON.stringify(userIds);
      const existing = s.recent_private_conversations.find((c: any) => JSON.stringify(c.user_ids) === key);
      if (existing) existing.max_message_id = Math.max(existing.max_message_id, message.id);
      else s.recent_private_conversations.push({ max_message_id: message.id, user_ids: userIds });
      s.recent_private_conversations.sort((a: any, b: any) => b.max_message_id - a.max_message_id);
    }
    if (s.starred_messages && flags.includes("starred")) s.starred_messages.push(message.id);
  }

  private applyUpdateMessage(event: Event): void {
    const newStreamId = event.new_stream_id ?? event.stream_id;
    const newTopic = event.topic ?? event.subject ?? event.orig_subject;
    if (newStreamId === undefined && event.topic === undefined) return;
    for (const id of event.message_ids ?? []) {
      const raw = this.unread.get(id);
      if (raw?.kind === "stream") {
        raw.streamId = newStreamId ?? raw.streamId;
        raw.topic = newTopic ?? raw.topic;
      }
    }
  }

  private applyDeleteMessage(event: Event): void {
    const s = this.state;
    const ids: number[] = event.message_ids ?? [event.message_id];
    for (const id of ids) this.unread.delete(id);
    // Zulip's apply_event asks the database for the newest remaining message and conversation.
    if ("max_message_id" in s && ids.includes(s.max_message_id)) s.max_message_id = UNKNOWN;
    if (s.recent_private_conversations && event.message_type === "private") {
      for (const c of s.recent_private_conversations) if (ids.includes(c.max_message_id)) c.max_message_id = UNKNOWN;
    }
    if (s.starred_messages) s.starred_messages = s.starred_messages.filter((id: number) => !ids.includes(id));
  }

  private applyFlags(event: Event): void {
    const s = this.state;
    const ids: number[] = event.messages;
    if (event.flag === "read" && s.unread_msgs) {
      if (event.op === "add") {
        if (event.all) this.unread.clear();
        for (const id of ids) this.unread.delete(id);
      } else {
        for (const id of ids) {
          const d = event.message_details[String(id)];
          if (d.type === "stream") {
            this.unread.set(id, { kind: "stream", streamId: d.stream_id, topic: d.topic, mentioned: d.mentioned === true });
          } else {
            this.addPrivateUnread(id, d.user_ids, d.mentioned === true, undefined);
          }
        }
      }
    }
    if (event.flag === "starred" && s.starred_messages) {
      s.starred_messages = event.op === "add" ? [...new Set([...s.starred_messages, ...ids])] : s.starred_messages.filter((id: number) => !ids.includes(id));
    }
  }

  private addPrivateUnread(id: number, others: number[], mentioned: boolean, senderId: number | undefined): void {
    if (others.length <= 1) {
      this.unread.set(id, { kind: "pm", otherUserId: others[0] ?? this.userId, mentioned });
    } else {
      this.unread.set(id, { kind: "huddle", userIdsString: [...others, this.userId].sort((a, b) => a - b).join(","), mentioned });
    }
    void senderId;
  }

  private otherUserIds(ids: number[]): number[] {
    return [...new Set(ids)].filter((id) => id !== this.userId).sort((a, b) => a - b);
  }

  private readUnread(unread: State): void {
    const mentions = new Set<number>(unread.mentions);
    for (const pm of unread.pms)
      for (const id of pm.unread_message_ids) this.unread.set(id, { kind: "pm", otherUserId: pm.other_user_id, mentioned: mentions.has(id) });
    for (const h of unread.huddles)
      for (const id of h.unread_message_ids) this.unread.set(id, { kind: "huddle", userIdsString: h.user_ids_string, mentioned: mentions.has(id) });
    for (const st of unread.streams)
      for (const id of st.unread_message_ids) this.unread.set(id, { kind: "stream", streamId: st.stream_id, topic: st.topic, mentioned: mentions.has(id) });
  }

  /** Zulip's aggregate_unread_data, with muting read from the current state. */
  private aggregateUnread(oldUnreadsMissing: boolean): State {
    const pms = new Map<number, number[]>();
    const huddles = new Map<string, number[]>();
    const streams = new Map<string, { stream_id: number; topic: string; unread_message_ids: number[] }>();
    let count = 0;
    const ids = [...this.unread.keys()].sort((a, b) => a - b);
    for (const id of ids) {
      const raw = this.unread.get(id)!;
      if (raw.kind === "pm") {
        pms.set(raw.otherUserId!, [...(pms.get(raw.otherUserId!) ?? []), id]);
        count += 1;
      } else if (raw.kind === "huddle") {
        huddles.set(raw.userIdsString!, [...(huddles.get(raw.userIdsString!) ?? []), id]);
        count += 1;
      } else {
        const key = JSON.stringify([raw.streamId, raw.topic]);
        if (!streams.has(key)) streams.set(key, { stream_id: raw.streamId!, topic: raw.topic!, unread_message_ids: [] });
        streams.get(key)!.unread_message_ids.push(id);
        if (!this.isTopicMuted(raw.streamId!, raw.topic!)) count += 1;
      }
    }
    return {
      pms: [...pms].map(([other, list]) => ({ other_user_id: other, sender_id: other, unread_message_ids: list })),
      streams: [...streams.values()],
      huddles: [...huddles].map(([key, list]) => ({ user_ids_string: key, unread_message_ids: list })),
      mentions: ids.filter((id) => this.unread.get(id)!.mentioned),
      count,
      old_unreads_missing: oldUnreadsMissing,
    };
  }

  private isTopicMuted(streamId: number, topic: string): boolean {
    const s = this.state;
    const policy = (s.user_topics ?? []).find((t: any) => t.stream_id === streamId && t.topic_name === topic)?.visibility_policy ?? 0;
    if (policy === 1) return true;
    const sub = (s.subscriptions ?? []).find((x: any) => x.stream_id === streamId);
    return sub !== undefined && sub.is_muted === true && policy !== 2 && policy !== 3;
  }

  // ---- channels and subscriptions ----

  private applySubscription(event: Event): void {
    const s = this.state;
    if (!s.subscriptions) return;
    const without = (list: any[] | undefined, ids: Set<number>) => (list ?? []).filter((x) => !ids.has(x.stream_id));
    switch (event.op) {
      case "add": {
        const ids = new Set<number>(event.subscriptions.map((x: any) => x.stream_id));
        s.unsubscribed = without(s.unsubscribed, ids);
        s.never_subscribed = without(s.never_subscribed, ids);
        const added = structuredClone(event.subscriptions).map((sub: any) => {
          if (!this.options.includeSubscribers) delete sub.subscribers;
          return sub;
        });
        s.subscriptions = [...without(s.subscriptions, ids), ...added];
        // Unread messages of a channel count again once subscribed; no event lists them.
        this.unreadUnknown = true;
        return;
      }
      case "remove": {
        const ids = new Set<number>(event.subscriptions.map((x: any) => x.stream_id));
        const removed = s.subscriptions.filter((x: any) => ids.has(x.stream_id));
        for (const sub of removed) if (sub.subscribers) sub.subscribers = sub.subscribers.filter((id: number) => id !== this.userId);
        for (const [id, raw] of this.unread) if (raw.kind === "stream" && ids.has(raw.streamId!)) this.unread.delete(id);
        s.subscriptions = without(s.subscriptions, ids);
        // Zulip keeps the channel's data, subscribers included, in unsubscribed.
        s.unsubscribed = [...without(s.unsubscribed, ids), ...removed.filter((x: any) => this.canSeeStream(x.stream_id))];
        return;
      }
      case "update": {
        const sub = s.subscriptions.find((x: any) => x.stream_id === event.stream_id);
        if (sub) sub[event.property] = event.value;
        return;
      }
      case "peer_add":
      case "peer_remove": {
        for (const list of [s.subscriptions, s.unsubscribed, s.never_subscribed]) {
          for (const sub of list ?? []) {
            if (!event.stream_ids.includes(sub.stream_id) || !sub.subscribers) continue;
            const set = new Set<number>(sub.subscribers);
            for (const id of event.user_ids) event.op === "peer_add" ? set.add(id) : set.delete(id);
            sub.subscribers = [...set].sort((a, b) => a - b);
            if ("subscriber_count" in sub) sub.subscriber_count = set.size;
          }
          if (event.op === "peer_add" || event.op === "peer_remove") {
            for (const sub of list ?? []) {
              if (event.stream_ids.includes(sub.stream_id) && !sub.subscribers && "subscriber_count" in sub) {
                sub.subscriber_count += event.op === "peer_add" ? event.user_ids.length : -event.user_ids.length;
              }
            }
          }
        }
        for (const stream of s.streams ?? []) {
          if (event.stream_ids.includes(stream.stream_id) && "subscriber_count" in stream) {
            stream.subscriber_count += event.op === "peer_add" ? event.user_ids.length : -event.user_ids.length;
          }
        }
        return;
      }
      default:
        throw new Error(`stateReducer: subscription op ${event.op}`);
    }
  }

  private canSeeStream(streamId: number): boolean {
    return (this.state.streams ?? []).some((x: any) => x.stream_id === streamId);
  }

  private applyStream(event: Event): void {
    const s = this.state;
    switch (event.op) {
      case "create": {
        for (const stream of event.streams) {
          if (s.streams && !s.streams.some((x: any) => x.stream_id === stream.stream_id)) s.streams.push(structuredClone(stream));
          if (s.never_subscribed) {
            const known = [...s.subscriptions, ...s.unsubscribed, ...s.never_subscribed].some((x: any) => x.stream_id === stream.stream_id);
            if (!known && !stream.invite_only)
              s.never_subscribed.push({ ...structuredClone(stream), ...(this.options.includeSubscribers ? { subscribers: [] } : {}) });
          }
        }
        return;
      }
      case "delete": {
        const ids = new Set<number>(event.stream_ids ?? event.streams.map((x: any) => x.stream_id));
        if (s.streams) s.streams = s.streams.filter((x: any) => !ids.has(x.stream_id));
        if (s.never_subscribed) s.never_subscribed = s.never_subscribed.filter((x: any) => !ids.has(x.stream_id));
        if (s.unsubscribed) s.unsubscribed = s.unsubscribed.filter((x: any) => !ids.has(x.stream_id));
        return;
      }
      case "update": {
        for (const list of [s.streams, s.subscriptions, s.unsubscribed, s.never_subscribed]) {
          for (const x of list ?? []) {
            if (x.stream_id !== event.stream_id) continue;
            x[event.property] = event.value;
            if (event.property === "description" && "rendered_description" in event) x.rendered_description = event.rendered_description;
            if (event.property === "invite_only" && "history_public_to_subscribers" in event)
              x.history_public_to_subscribers = event.history_public_to_subscribers;
            if ("is_web_public" in event && event.property === "invite_only") x.is_web_public = event.is_web_public;
          }
        }
        return;
      }
      default:
        throw new Error(`stateReducer: stream op ${event.op}`);
    }
  }

  // ---- users ----

  private applyRealmUser(event: Event): void {
    const s = this.state;
    if (!s.realm_users) return;
    const person = event.person;
    switch (event.op) {
      case "add":
        s.realm_users = [...s.realm_users.filter((u: any) => u.user_id !== person.user_id), structuredClone(person)];
        return;
      case "remove":
        s.realm_users = s.realm_users.filter((u: any) => u.user_id !== person.user_id);
        if (s.realm_non_active_users) s.realm_non_active_users = s.realm_non_active_users.filter((u: any) => u.user_id !== person.user_id);
        return;
      case "update": {
        const lists = [s.realm_users, s.realm_non_active_users ?? [], s.cross_realm_bots ?? []];
        const user = lists.flat().find((u: any) => u.user_id === person.user_id);
        if (!user) return;
        for (const [key, value] of Object.entries(person)) {
          if (key === "user_id") continue;
          // Zulip's apply_event updates only fields a user entry has: an avatar change's
          // avatar_source and avatar_url_medium are for the top-level state (applyOwnUserUpdate).
          if ((key === "avatar_source" || key === "avatar_url_medium") && !(key in user)) continue;
          if (key === "new_email") user.email = value;
          else if (key === "custom_profile_field") {
            const field = value as { id: number; value: string | null; rendered_value?: string };
            user.profile_data ??= {};
            if (field.value === null) delete user.profile_data[String(field.id)];
            else
              user.profile_data[String(field.id)] =
                "rendered_value" in field ? { value: field.value, rendered_value: field.rendered_value } : { value: field.value };
          } else if (key === "role") {
            user.role = value;
            user.is_owner = value === 100;
            user.is_admin = value === 100 || value === 200;
            if ("is_moderator" in user) user.is_moderator = value === 300;
            user.is_guest = value === 600;
          } else user[key] = value;
        }
        if ("is_active" in person) {
          s.realm_users = s.realm_users.filter((u: any) => u.user_id !== person.user_id);
          if (s.realm_non_active_users) s.realm_non_active_users = s.realm_non_active_users.filter((u: any) => u.user_id !== person.user_id);
          (person.is_active ? s.realm_users : (s.realm_non_active_users ??= [])).push(user);
        }
        if (person.user_id === this.userId) this.applyOwnUserUpdate(person);
        return;
      }
      default:
        throw new Error(`stateReducer: realm_user op ${event.op}`);
    }
  }

  /** Zulip mirrors the user's own fields at the top level of the state. */
  private applyOwnUserUpdate(person: Record<string, any>): void {
    const s = this.state;
    const copy = (from: string, to: string) => {
      if (from in person && to in s) s[to] = person[from];
    };
    copy("full_name", "full_name");
    copy("delivery_email", "delivery_email");
    copy("new_email", "email");
    copy("avatar_url", "avatar_url");
    copy("avatar_url_medium", "avatar_url_medium");
    copy("avatar_source", "avatar_source");
    copy("role", "role");
    if ("role" in person) {
      const role = person.role;
      if ("is_owner" in s) s.is_owner = role === 100;
      if ("is_admin" in s) s.is_admin = role === 100 || role === 200;
      if ("is_moderator" in s) s.is_moderator = role === 300;
      if ("is_guest" in s) s.is_guest = role === 600;
    }
  }

  private applyRealmBot(event: Event): void {
    const s = this.state;
    if (!s.realm_bots) return;
    const bot = event.bot;
    if (event.op === "add") s.realm_bots.push(structuredClone(bot));
    else if (event.op === "remove" || event.op === "delete") s.realm_bots = s.realm_bots.filter((b: any) => b.user_id !== bot.user_id);
    else if (event.op === "update") Object.assign(s.realm_bots.find((b: any) => b.user_id === bot.user_id) ?? {}, bot);
  }

  private applyUserStatus(event: Event): void {
    const s = this.state;
    if (!s.user_status) return;
    const key = String(event.user_id);
    const status = { ...(s.user_status[key] ?? {}) };
    if ("away" in event) {
      if (event.away) status.away = true;
      else delete status.away;
    }
    if ("status_text" in event) {
      if (event.status_text) status.status_text = event.status_text;
      else delete status.status_text;
    }
    if ("emoji_name" in event) {
      if (event.emoji_name) Object.assign(status, { emoji_name: event.emoji_name, emoji_code: event.emoji_code, reaction_type: event.reaction_type });
      else for (const k of ["emoji_name", "emoji_code", "reaction_type"]) delete status[k];
    }
    if (Object.keys(status).length === 0) delete s.user_status[key];
    else s.user_status[key] = status;
  }

  private applyUserTopic(event: Event): void {
    const s = this.state;
    if (!s.user_topics) return;
    const rest = s.user_topics.filter((t: any) => !(t.stream_id === event.stream_id && t.topic_name === event.topic_name));
    const { type: _type, id: _id, ...topic } = event;
    s.user_topics = event.visibility_policy === 0 ? rest : [...rest, topic];
  }

  private applyUserGroup(event: Event): void {
    const s = this.state;
    if (!s.realm_user_groups) return;
    const group = s.realm_user_groups.find((g: any) => g.id === event.group_id);
    const sorted = (ids: Iterable<number>) => [...new Set(ids)].sort((a, b) => a - b);
    switch (event.op) {
      case "add":
        s.realm_user_groups.push(structuredClone(event.group));
        return;
      case "remove":
        s.realm_user_groups = s.realm_user_groups.filter((g: any) => g.id !== event.group_id);
        return;
      case "update":
        Object.assign(group, event.data);
        return;
      case "add_members":
        group.members = sorted([...group.members, ...event.user_ids]);
        return;
      case "remove_members":
        group.members = group.members.filter((id: number) => !event.user_ids.includes(id));
        return;
      case "add_subgroups":
        group.direct_subgroup_ids = sorted([...group.direct_subgroup_ids, ...event.direct_subgroup_ids]);
        return;
      case "remove_subgroups":
        group.direct_subgroup_ids = group.direct_subgroup_ids.filter((id: number) => !event.direct_subgroup_ids.includes(id));
        return;
      default:
        throw new Error(`stateReducer: user_group op ${event.op}`);
    }
  }

  private applyRealm(event: Event): void {
    const s = this.state;
    if (event.op === "update") {
      if (`realm_${event.property}` in s) s[`realm_${event.property}`] = event.value;
    } else if (event.op === "update_dict") {
      for (const [key, value] of Object.entries(event.data)) if (`realm_${key}` in s) s[`realm_${key}`] = value;
      // Zulip's apply_event: the two flags follow the methods.
      const methods = (event.data as { authentication_methods?: Record<string, { enabled: boolean }> }).authentication_methods;
      if (methods && "realm_password_auth_enabled" in s) {
        s.realm_password_auth_enabled = methods.Email?.enabled === true || methods.LDAP?.enabled === true;
        s.realm_email_auth_enabled = methods.Email?.enabled === true;
      }
    } else {
      throw new Error(`stateReducer: realm op ${event.op}`);
    }
  }

  private applyPresence(event: Event): void {
    const s = this.state;
    if (!s.presences) return;
    if (event.presences) {
      // simplified_presence_events: the modern format, keyed by user id.
      for (const [userId, presence] of Object.entries(event.presences)) s.presences[userId] = presence;
      if ("presence_last_update_id" in s && "presence_last_update_id" in event) s.presence_last_update_id = event.presence_last_update_id;
    } else {
      throw new Error("stateReducer: legacy presence events are not reduced (register with simplified_presence_events)");
    }
  }

  /** Zulip's web app keeps drafts ordered by their edit time. */
  private applyDrafts(event: Event): void {
    const s = this.state;
    if (!s.drafts) return;
    if (event.op === "add") s.drafts.push(...structuredClone(event.drafts));
    else if (event.op === "update") s.drafts = s.drafts.map((d: any) => (d.id === event.draft.id ? structuredClone(event.draft) : d));
    else if (event.op === "remove") s.drafts = s.drafts.filter((d: any) => d.id !== event.draft_id);
    s.drafts.sort((a: any, b: any) => a.timestamp - b.timestamp || a.id - b.id);
  }

  private applySavedSnippets(event: Event): void {
    const s = this.state;
    if (!s.saved_snippets) return;
    if (event.op === "add") s.saved_snippets.push(structuredClone(event.saved_snippet));
    else if (event.op === "update")
      s.saved_snippets = s.saved_snippets.map((x: any) => (x.id === event.saved_snippet.id ? structuredClone(event.saved_snippet) : x));
    else if (event.op === "remove") s.saved_snippets = s.saved_snippets.filter((x: any) => x.id !== event.saved_snippet_id);
  }

  private applyScheduledMessages(event: Event): void {
    const s = this.state;
    if (!s.scheduled_messages) return;
    if (event.op === "add") s.scheduled_messages.push(...structuredClone(event.scheduled_messages));
    else if (event.op === "remove") s.scheduled_messages = s.scheduled_messages.filter((m: any) => m.scheduled_message_id !== event.scheduled_message_id);
    else if (event.op === "update") {
      const i = s.scheduled_messages.findIndex((m: any) => m.scheduled_message_id === event.scheduled_message.scheduled_message_id);
      s.scheduled_messages[i] = structuredClone(event.scheduled_message);
    }
    s.scheduled_messages.sort((a: any, b: any) => a.scheduled_delivery_timestamp - b.scheduled_delivery_timestamp);
  }
}

const MENTION_FLAGS = new Set(["mentioned", "stream_wildcard_mentioned", "topic_wildcard_mentioned"]);

/**
 * The differences between two states, as "path: expected … got …" lines, after putting lists
 * whose order carries no meaning into a canonical order. UNKNOWN in `applied` matches anything.
 */
export function stateDifferences(fresh: State, applied: State): string[] {
  const out: string[] = [];
  // Per-registration values: each POST /register has its own queue and time; and
  // presence_last_update_id is a polling cursor for POST /users/me/presence, which no event moves (Zulip's apply_event).
  const skip = new Set(["queue_id", "last_event_id", "server_timestamp", "presence_last_update_id"]);
  const keys = new Set([...Object.keys(fresh), ...Object.keys(applied)].filter((k) => !skip.has(k)));
  for (const key of keys) compare(canonical(key, fresh[key]), canonical(key, applied[key]), key, out);
  return out;
}

const ID_KEYS = ["stream_id", "user_id", "id", "scheduled_message_id", "max_message_id"];

function canonical(path: string, value: any): any {
  if (Array.isArray(value)) {
    const items = value.map((v) => canonical(path, v));
    if (items.every((v) => typeof v === "number")) return path.endsWith("recent_private_conversations") ? items : [...items].sort((a, b) => a - b);
    if (items.every((v) => v && typeof v === "object" && !Array.isArray(v))) {
      const key = ID_KEYS.find((k) => items.every((v) => k in v));
      const sortKey = (v: any) => (key ? JSON.stringify([v[key], v.topic ?? v.topic_name ?? "", v.user_ids_string ?? ""]) : JSON.stringify(v));
      if (path === "recent_private_conversations") return items;
      return [...items].sort((a, b) => (sortKey(a) < sortKey(b) ? -1 : sortKey(a) > sortKey(b) ? 1 : 0));
    }
    return items;
  }
  if (value && typeof value === "object" && value !== UNKNOWN) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, canonical(k, v)]));
  }
  return value;
}

function compare(expected: any, got: any, path: string, out: string[]): void {
  if (got === UNKNOWN) return;
  if (expected && got && typeof expected === "object" && typeof got === "object") {
    if (Array.isArray(expected) !== Array.isArray(got)) {
      out.push(`${path}: expected ${JSON.stringify(expected)} got ${JSON.stringify(got)}`);
      return;
    }
    const keys = new Set([...Object.keys(expected), ...Object.keys(got)]);
    if (Array.isArray(expected) && expected.length !== got.length) {
      const ids = (list: any[]) =>
        JSON.stringify(list.map((x) => (x && typeof x === "object" ? (ID_KEYS.map((k) => x[k]).find((v) => v !== undefined) ?? x) : x)));
      out.push(`${path}: expected ${expected.length} items ${ids(expected).slice(0, 300)} got ${got.length} ${ids(got).slice(0, 300)}`);
      return;
    }
    for (const key of keys) compare(expected[key], got[key], `${path}.${key}`, out);
    return;
  }
  if (expected !== got) out.push(`${path}: expected ${JSON.stringify(expected)} got ${JSON.stringify(got)}`);
}

/** A client's copy of GET /attachments kept current by attachment events. */
export function applyAttachmentEvents(listing: { attachments: any[]; upload_space_used: number }, events: readonly Event[]) {
  const attachments = listing.attachments.map((a) => structuredClone(a));
  let space = listing.upload_space_used;
  for (const event of events) {
    if (event.type !== "attachment") continue;
    space = event.upload_space_used;
    const index = attachments.findIndex((a) => a.id === event.attachment.id);
    if (event.op === "add") attachments.push(event.attachment);
    else if (event.op === "update" && index >= 0) attachments[index] = event.attachment;
    else if (event.op === "remove" && index >= 0) attachments.splice(index, 1);
  }
  attachments.sort((a, b) => a.id - b.id);
  return { attachments, upload_space_used: space };
}
