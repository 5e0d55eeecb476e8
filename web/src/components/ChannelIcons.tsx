import type { Channel } from "../channels.js";

/** Small line icons (currentColor) for the channels overlay: no emoji font needed. */
const svg = (path: string, label: string) => (
  <svg class="icon" viewBox="0 0 16 16" width="14" height="14" role="img" aria-label={label}>
    <path d={path} fill="none" stroke="currentColor" stroke-width="1.6" stroke-linecap="round" stroke-linejoin="round" />
  </svg>
);

const LOCK = "M4 7h8v7H4zM5.5 7V5a2.5 2.5 0 0 1 5 0v2";
const GLOBE = "M8 1.5a6.5 6.5 0 1 0 0 13 6.5 6.5 0 0 0 0-13zM1.5 8h13M8 1.5c2 2 2 11 0 13M8 1.5c-2 2-2 11 0 13";
const HASH = "M6 2L4.5 14M11.5 2L10 14M2.5 5.5h11M2 10.5h11";
const PERSON = "M8 8a3 3 0 1 0 0-6 3 3 0 0 0 0 6zM2.5 14.5c0-3 2.5-4.5 5.5-4.5s5.5 1.5 5.5 4.5";

/** The channel's privacy: # public, a globe for web-public, a lock for private. */
export function PrivacyIcon({ channel }: { channel: Pick<Channel, "invite_only" | "is_web_public"> }) {
  if (channel.is_web_public) return svg(GLOBE, "Web-public");
  return channel.invite_only ? svg(LOCK, "Private") : svg(HASH, "Public");
}

export const PersonIcon = () => svg(PERSON, "Subscribers");
