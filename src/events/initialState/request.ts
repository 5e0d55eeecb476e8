import type { Config } from "../../config.js";
import type { Realm, Stream, User } from "../../db/schema.js";
import type { Executor } from "../../db/tx.js";
import { systemGroupIds } from "../../lib/groupSettings.js";
import { AccessSubject } from "../../lib/streamAccess.js";
import { initialStateStore } from "../../store/initialState.js";
import { streamStore } from "../../store/streams.js";
import { type Subscription, subscriptionStore } from "../../store/subscriptions.js";
import { userStore } from "../../store/users.js";
import type { ClientDescriptor } from "../clientEvents.js";

/** What POST /register asked for, as the initial-state sections need it. */
export interface StateRequest {
  /** The user; for a visitor, the settings-only anonymous user (visitor.ts, never stored). */
  user: User;
  /**
   * A visitor without an account (Zulip's fetch_initial_state_data with user_profile None): the
   * sections give what Zulip gives spectators, and read nothing of `user` but its settings.
   */
  visitor: boolean;
  realm: Realm;
  config: Config;
  client: ClientDescriptor;
  /** Sections to include (Zulip's fetch_event_types); null = every section. */
  fetchEventTypes: ReadonlySet<string> | null;
  includeSubscribers: boolean | "partial";
  presenceHistoryLimitDays: number | null;
}

/**
 * Reads that several sections need, each done at most once per register (in the caller's
 * snapshot), and the user's AccessSubject shared by every channel-access question.
 */
export class SharedReads {
  readonly subject: AccessSubject;
  private readonly memo = new Map<string, Promise<unknown>>();

  constructor(
    private readonly q: Executor,
    private readonly user: User,
  ) {
    this.subject = new AccessSubject(user);
  }

  private once<T>(key: string, load: () => Promise<T>): Promise<T> {
    let value = this.memo.get(key) as Promise<T> | undefined;
    if (!value) this.memo.set(key, (value = load()));
    return value;
  }

  /** System group name → id. */
  systemGroups(): Promise<Map<string, number>> {
    return this.once("systemGroups", () => systemGroupIds(this.q, this.user.realm_id));
  }

  /** Every user of the realm, deactivated ones too, ascending ids. */
  realmUsers(): Promise<User[]> {
    return this.once("realmUsers", () => userStore.listInRealm(this.q, this.user.realm_id));
  }

  /** Whether the sections will read every user of the realm anyway (realm_user, realm_bot). */
  readsRealmUsers(req: StateRequest): boolean {
    return wants(req, "realm_user") || wants(req, "realm_bot");
  }

  /** Every channel of the realm, archived ones too, ascending ids. */
  realmStreams(): Promise<Stream[]> {
    return this.once("realmStreams", () => streamStore.listInRealm(this.q, this.user.realm_id, { excludeArchived: false }));
  }

  /** The user's subscription rows (active or not) to the realm's channels. */
  channelSubscriptions(): Promise<Subscription[]> {
    return this.once("channelSubscriptions", async () => {
      const streams = await this.realmStreams();
      return subscriptionStore.listForUsers(
        this.q,
        [this.user.id],
        streams.map((s) => s.recipient_id),
      );
    });
  }

  /** The user's topic visibility policies (user_topics rows other than INHERIT). */
  userTopics(): ReturnType<typeof initialStateStore.userTopics> {
    return this.once("userTopics", () => initialStateStore.userTopics(this.q, this.user.id));
  }
}

/** What the sections get: the request and the reads they share. */
export interface SectionRequest extends StateRequest {
  reads: SharedReads;
}

/** Whether the client asked for the section named after an event type (Zulip's `want`). */
export function wants(req: StateRequest, section: string): boolean {
  return req.fetchEventTypes === null || req.fetchEventTypes.has(section);
}
