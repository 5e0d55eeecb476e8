/**
 * Unread bookkeeping, as Zulip's web app keeps it (unread.ts): every unread message id with its
 * conversation, loaded from /register's `unread_msgs` and kept current by message and flag
 * events, so counts never need the messages themselves.
 */
import type { UnreadMsgs } from "../../src/contract/register.js";
import { signal } from "@preact/signals";
export type Conversation = { kind: "channel"; channelId: number; topic: string } | { kind: "dm"; userIds: number[] };

export type { UnreadMsgs };

/** The key of a conversation: topics compare case-insensitively; a DM by its people other than me. */
export function conversationKey(c: Conversation): string {
  return c.kind === "channel" ? `c:${c.channelId}:${c.topic.toLowerCase()}` : `dm:${[...c.userIds].sort((a, b) => a - b).join(",")}`;
}

/** The people of a DM other than me (just me for a DM with oneself). */
export function dmPeople(userIds: readonly number[], myId: number): number[] {
  const others = userIds.filter((id) => id !== myId);
  return (others.length > 0 ? others : [myId]).sort((a, b) => a - b);
}

/**
 * The unread messages, reactive: every change bumps a private version signal that every read
 * subscribes to, so `computed` signals and components that read the index follow it (several
 * changes in a row: wrap them in `batch`).
 */
export class UnreadIndex {
  private byId = new Map<number, Conversation>();
  private mentioned = new Set<number>();
  private readonly version = signal(0);

  /** After a change (effects run at once, outside `batch`, and must see it). */
  private changed(): void {
    this.version.value++;
  }

  private read(): void {
    void this.version.value;
  }

  load(unread: UnreadMsgs, myId: number): void {
    this.byId.clear();
    this.mentioned = new Set(unread.mentions);
    for (const s of unread.streams) for (const id of s.unread_message_ids) this.byId.set(id, { kind: "channel", channelId: s.stream_id, topic: s.topic });
    for (const p of unread.pms) for (const id of p.unread_message_ids) this.byId.set(id, { kind: "dm", userIds: dmPeople([p.other_user_id], myId) });
    for (const h of unread.huddles) {
      const ids = h.user_ids_string.split(",").map(Number);
      for (const id of h.unread_message_ids) this.byId.set(id, { kind: "dm", userIds: dmPeople(ids, myId) });
    }
    this.changed();
  }

  add(id: number, conversation: Conversation, mentioned = false): void {
    this.byId.set(id, conversation);
    if (mentioned) this.mentioned.add(id);
    this.changed();
  }

  remove(ids: Iterable<number>): void {
    for (const id of ids) {
      this.byId.delete(id);
      this.mentioned.delete(id);
    }
    this.changed();
  }

  /** A topic moved (update_message with propagation): its unread ids follow. */
  move(ids: Iterable<number>, to: Conversation): void {
    for (const id of ids) if (this.byId.has(id)) this.byId.set(id, to);
    this.changed();
  }

  isUnread(id: number): boolean {
    this.read();
    return this.byId.has(id);
  }

  ids(): number[] {
    this.read();
    return [...this.byId.keys()];
  }

  count(filter: (c: Conversation) => boolean = () => true): number {
    this.read();
    let n = 0;
    for (const c of this.byId.values()) if (filter(c)) n++;
    return n;
  }

  /** Unread messages that pass `filter`, which also learns whether the message mentions the user. */
  countWith(filter: (c: Conversation, mentioned: boolean) => boolean): number {
    this.read();
    let n = 0;
    for (const [id, c] of this.byId) if (filter(c, this.mentioned.has(id))) n++;
    return n;
  }

  countChannel(channelId: number): number {
    return this.count((c) => c.kind === "channel" && c.channelId === channelId);
  }

  countTopic(channelId: number, topic: string): number {
    const lower = topic.toLowerCase();
    return this.count((c) => c.kind === "channel" && c.channelId === channelId && c.topic.toLowerCase() === lower);
  }

  countDm(userIds: readonly number[]): number {
    const key = conversationKey({ kind: "dm", userIds: [...userIds] });
    return this.count((c) => c.kind === "dm" && conversationKey(c) === key);
  }

  countMentions(): number {
    this.read();
    let n = 0;
    for (const id of this.mentioned) if (this.byId.has(id)) n++;
    return n;
  }

  /** Unread counts per conversation key, with a sample conversation each (for lists). */
  conversations(): Map<string, { conversation: Conversation; count: number; maxId: number }> {
    this.read();
    const out = new Map<string, { conversation: Conversation; count: number; maxId: number }>();
    for (const [id, c] of this.byId) {
      const key = conversationKey(c);
      const entry = out.get(key);
      if (entry) {
        entry.count++;
        entry.maxId = Math.max(entry.maxId, id);
      } else out.set(key, { conversation: c, count: 1, maxId: id });
    }
    return out;
  }
}
