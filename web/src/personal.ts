import { VisibilityPolicy } from "../../src/contract/constants.js";
import type { ClientEvent } from "../../src/contract/events.js";
import type { RegisterState } from "../../src/contract/register.js";
import { signal } from "@preact/signals";
import { myUserId } from "./api.js";
import { users } from "./state.js";

/**
 * What the settings and user cards show besides users and channels, from /register and kept by
 * events: muted users, alert words, everyone's status, and the organization's custom profile fields.
 */
export interface UserStatus {
  status_text?: string;
  emoji_name?: string;
  emoji_code?: string;
  reaction_type?: string;
  away?: boolean;
}

export interface ProfileField {
  id: number;
  name: string;
  type: number;
  hint: string;
  field_data: string;
  order: number;
  required?: boolean;
  display_in_profile_summary?: boolean;
}

export const mutedUsers = signal<number[]>([]);
export const alertWords = signal<string[]>([]);
export const userStatuses = signal(new Map<number, UserStatus>());
export const profileFields = signal<ProfileField[]>([]);
/** The user's own login email (delivery_email). */
export const ownEmail = signal("");
/** Topics with a visibility policy (muted, unmuted, followed), names as written: for the settings. */
export const topicPolicies = signal<Array<{ stream_id: number; topic_name: string; visibility_policy: number; last_updated: number }>>([]);

function setTopicPolicy(t: { stream_id: number; topic_name: string; visibility_policy: number; last_updated: number }): void {
  const same = (u: typeof t) => u.stream_id === t.stream_id && u.topic_name.toLowerCase() === t.topic_name.toLowerCase();
  const rest = topicPolicies.value.filter((u) => !same(u));
  topicPolicies.value = t.visibility_policy === VisibilityPolicy.INHERIT ? rest : [t, ...rest];
}

/** What /register says of these (fields of RegisterState that only this module reads). */
interface PersonalState {
  muted_users?: Array<{ id: number }>;
  alert_words?: string[];
  user_status?: Record<string, UserStatus>;
  custom_profile_fields?: ProfileField[];
  delivery_email?: string;
  user_topics?: Array<{ stream_id: number; topic_name: string; visibility_policy: number; last_updated: number }>;
}

export function loadPersonal(registered: RegisterState): void {
  const state = registered as PersonalState;
  mutedUsers.value = (state.muted_users ?? []).map((m) => m.id);
  alertWords.value = state.alert_words ?? [];
  userStatuses.value = new Map(Object.entries(state.user_status ?? {}).map(([id, s]) => [Number(id), s]));
  profileFields.value = [...(state.custom_profile_fields ?? [])].sort((a, b) => a.order - b.order);
  ownEmail.value = state.delivery_email ?? "";
  topicPolicies.value = (state.user_topics ?? []).filter((t) => t.visibility_policy !== VisibilityPolicy.INHERIT);
}

/** Applies an event about these; false for any other event. */
export function applyPersonalEvent(event: ClientEvent): boolean {
  switch (event.type) {
    case "user_topic":
      setTopicPolicy(event);
      return false; // state.ts keeps its own index of these too
    case "muted_users":
      mutedUsers.value = event.muted_users.map((m) => m.id);
      return true;
    case "alert_words":
      alertWords.value = event.alert_words;
      return true;
    case "user_status": {
      const map = new Map(userStatuses.value);
      // The queue's event id travels with the event: not a status field.
      const { type: _type, id: _id, user_id, ...change } = event as typeof event & { id?: number };
      const next: UserStatus = { ...map.get(user_id), ...change };
      if (!next.status_text && !next.emoji_name && !next.away) map.delete(user_id);
      else map.set(user_id, next);
      userStatuses.value = map;
      return true;
    }
    case "custom_profile_fields":
      profileFields.value = [...(event.fields as ProfileField[])].sort((a, b) => a.order - b.order);
      return true;
    case "realm_user": {
      // A custom profile field's new value: into the person's profile_data.
      if (event.op !== "update") return false;
      const person = event.person;
      if (typeof person.delivery_email === "string" && users.value.get(person.user_id) && person.user_id === myUserId) ownEmail.value = person.delivery_email;
      const field = person.custom_profile_field as { id: number; value: string | null; rendered_value?: string } | undefined;
      if (!field) return false;
      const map = new Map(users.value);
      const user = map.get(person.user_id);
      if (!user) return true;
      const data = { ...user.profile_data };
      if (field.value === null) delete data[field.id];
      else data[field.id] = { value: field.value, rendered_value: field.rendered_value };
      map.set(user.user_id, { ...user, profile_data: data });
      users.value = map;
      return true;
    }
    default:
      return false;
  }
}
