import { users } from "../state.js";
import "./avatar.css";

/**
 * A person's avatar: the uploaded image when there is one (a URL on this server, with its version
 * so that a new image replaces the old one at once), else the first letter of the name on a
 * coloured square (gravatars are on another site, which the page's policy does not load).
 */
export function uploadedAvatarUrl(userId: number, medium = false): string | null {
  const url = users.value.get(userId)?.avatar_url;
  if (typeof url !== "string" || !url.startsWith("/user_avatars/")) return null;
  return medium ? url.replace(/\.png\?/, "-medium.png?") : url;
}

interface AvatarProps {
  userId: number;
  name: string;
  big?: boolean;
  onClick?: (e: MouseEvent & { currentTarget: HTMLSpanElement }) => void;
}

export function Avatar({ userId, name, big = false, onClick }: AvatarProps) {
  const src = uploadedAvatarUrl(userId, big);
  return (
    <span class={`avatar ${big ? "big" : ""} ${src ? "has-image" : ""}`} aria-hidden="true" data-user-id={userId} onClick={onClick}>
      {src ? <img src={src} alt="" loading="lazy" /> : name.slice(0, 1)}
    </span>
  );
}
