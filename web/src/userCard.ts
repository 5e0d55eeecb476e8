import { Role } from "../../src/contract/constants.js";
import { signal } from "@preact/signals";

/** The open user card (a click on a sender or a person in the user list): whose, and where. */
export const userCard = signal<{ userId: number; top: number; left: number; maxHeight: number } | null>(null);

export function openUserCard(userId: number, anchor: HTMLElement): void {
  if (window.innerWidth <= 480) {
    // A phone: the card takes the top of the screen (below the header), whole, wherever the anchor is.
    userCard.value = { userId, top: 56, left: 8, maxHeight: window.innerHeight - 64 };
    return;
  }
  const rect = anchor.getBoundingClientRect();
  const width = Math.min(300, window.innerWidth - 16);
  const left = Math.max(8, Math.min(rect.left, window.innerWidth - width - 8));
  // Below the anchor when there is room for most cards, else higher; long cards scroll.
  const top = Math.max(8, Math.min(rect.bottom + 4, window.innerHeight - 480));
  userCard.value = { userId, top, left, maxHeight: window.innerHeight - top - 8 };
}

export function closeUserCard(): void {
  userCard.value = null;
}

/** Zulip's role values. */
export function roleName(role: number | undefined, isBot: boolean): string {
  if (isBot) return "Bot";
  return role === Role.OWNER
    ? "Owner"
    : role === Role.ADMINISTRATOR
      ? "Administrator"
      : role === Role.MODERATOR
        ? "Moderator"
        : role === Role.GUEST
          ? "Guest"
          : "Member";
}

/** The time now in a person's time zone, in the viewer's 12/24-hour style; "" when the zone is unknown. */
export function localTime(timezone: string | undefined, twentyFourHour: boolean, now = new Date()): string {
  if (!timezone) return "";
  try {
    return new Intl.DateTimeFormat(undefined, { hour: "numeric", minute: "2-digit", hour12: !twentyFourHour, timeZone: timezone }).format(now);
  } catch {
    return "";
  }
}
