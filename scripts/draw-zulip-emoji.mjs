#!/usr/bin/env node
// Draws the image of the `:zulip:` emoji (Zulip's one emoji outside Unicode, reaction_type
// zulip_extra_emoji), which Zulip's apps and our rendered messages load from
// /static/generated/emoji/images/emoji/unicode/zulip.png. Our own artwork: Parley's accent blue
// speech bubble with a "P". Writes src/http/assets/zulip-emoji.png (64×64, committed; the server
// serves the file as it is, src/http/emojiFiles.ts).
// Usage: node scripts/draw-zulip-emoji.mjs [output.png]
import fs from "node:fs";
import path from "node:path";
import sharp from "sharp";

export const SIZE = 64;
const output = process.argv[2] ?? path.join(import.meta.dirname, "../src/http/assets/zulip-emoji.png");

// A rounded bubble with a tail at its lower left, and a "P" cut from paths (no font needed).
export const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${SIZE}" height="${SIZE}" viewBox="0 0 64 64">
  <defs>
    <linearGradient id="fill" x1="0" y1="0" x2="0" y2="1">
      <stop offset="0" stop-color="#4f8df0"/>
      <stop offset="1" stop-color="#2f6fde"/>
    </linearGradient>
  </defs>
  <path fill="url(#fill)" d="M18 4 H46 A14 14 0 0 1 60 18 V36 A14 14 0 0 1 46 50 H28 L13 60 L16 49.5 A14 14 0 0 1 4 36 V18 A14 14 0 0 1 18 4 Z"/>
  <path fill="#ffffff" fill-rule="evenodd" d="M23 13 H34.5 A9.75 9.75 0 0 1 34.5 32.5 H30 V41 H23 Z M30 19 V26.5 H34 A3.75 3.75 0 0 0 34 19 Z"/>
</svg>`;

if (import.meta.filename === path.resolve(process.argv[1] ?? "")) {
  const png = await sharp(Buffer.from(svg)).png({ compressionLevel: 9, palette: true, colours: 64 }).toBuffer();
  fs.writeFileSync(output, png);
  console.log(`wrote ${output} (${png.length} bytes)`);
}
