import { signal } from "@preact/signals";
import { channelDirectory, type Channel } from "../channels.js";
import { encodeHashComponent } from "../hash.js";
import { subscriptions } from "../state.js";

/** What the parts of the channels overlay share: the notice of the last change, and channels by id. */

/** What the last change said: shown in the header. */
export const channelNotice = signal<{ text: string; error: boolean } | null>(null);

export async function attempt(action: () => Promise<unknown>, done = "Saved"): Promise<boolean> {
  channelNotice.value = { text: "Saving…", error: false };
  try {
    await action();
    const notice = { text: done, error: false };
    channelNotice.value = notice;
    // A success fades after a while (as Zulip's "Saved"); an error stays until the next change.
    setTimeout(() => channelNotice.value === notice && (channelNotice.value = null), 4000);
    return true;
  } catch (error) {
    channelNotice.value = { text: (error as Error).message, error: true };
    return false;
  }
}

/** A channel as known: the directory's entry and, when subscribed, the subscription's (fresher for the user's own settings). */
export function channelById(id: number): Channel | undefined {
  const sub = subscriptions.value.get(id) as Channel | undefined;
  const known = channelDirectory.value?.get(id);
  return sub || known ? ({ ...known, ...sub } as Channel) : undefined;
}

export function channelHash(channel: Pick<Channel, "stream_id" | "name">, tab = "general"): string {
  return `#channels/${channel.stream_id}/${encodeHashComponent(channel.name)}/${tab}`;
}
