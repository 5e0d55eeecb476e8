import { badgeText } from "./unreadBadge.js";

/**
 * The tab's icon, drawn on a canvas: Parley's mark, with a red badge holding the unread count
 * (Zulip's favicon.ts) and a dot when direct messages are unread.
 */
let drawn = "";

export function drawFavicon(count: number, directMessages: boolean): void {
  const text = badgeText(count);
  const key = `${text}|${directMessages}`;
  if (key === drawn) return;
  drawn = key;
  const size = 64;
  const canvas = document.createElement("canvas");
  canvas.width = canvas.height = size;
  const g = canvas.getContext("2d");
  if (!g) return;
  g.fillStyle = "#3d6a9e";
  g.beginPath();
  g.roundRect(4, 4, 56, 56, 14);
  g.fill();
  g.fillStyle = "#fff";
  g.font = "bold 40px system-ui, sans-serif";
  g.textAlign = "center";
  g.textBaseline = "middle";
  g.fillText("P", 32, 35);
  if (text) {
    g.font = `bold ${text.length > 2 ? 24 : 30}px system-ui, sans-serif`;
    const width = Math.max(34, g.measureText(text).width + 12);
    g.fillStyle = "#e0312b";
    g.beginPath();
    g.roundRect(size - width, 0, width, 34, 17);
    g.fill();
    g.fillStyle = "#fff";
    g.fillText(text, size - width / 2, 18);
  }
  if (directMessages) {
    g.fillStyle = "#f5a623";
    g.beginPath();
    g.arc(12, 52, 10, 0, 2 * Math.PI);
    g.fill();
  }
  let link = document.querySelector<HTMLLinkElement>('link[rel="icon"]');
  if (!link) {
    link = document.createElement("link");
    link.rel = "icon";
    document.head.append(link);
  }
  link.href = canvas.toDataURL("image/png");
  link.dataset.count = String(count);
}
