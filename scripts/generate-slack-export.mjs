// `node scripts/generate-slack-export.mjs --messages N [--users N] [--channels N] OUT.zip`: a
// synthetic export in Slack's layout (users.json, channels.json, <channel>/<YYYY-MM-DD>.json)
// for measuring `parley import slack`: 500 messages a channel a day, one in ten a thread reply,
// one in five with a mention, one in four with a reaction.
import fs from "node:fs";
import { parseArgs } from "node:util";
import yazl from "yazl";

const { values, positionals } = parseArgs({
  options: { messages: { type: "string", default: "10000" }, users: { type: "string", default: "50" }, channels: { type: "string", default: "10" } },
  allowPositionals: true,
});
const out = positionals[0];
if (!out) throw new Error("usage: generate-slack-export.mjs --messages N OUT.zip");
const total = Number(values.messages);
const userCount = Number(values.users);
const channelCount = Number(values.channels);
const PER_FILE = 500;

const users = Array.from({ length: userCount }, (_, i) => ({
  id: `U${i}`,
  name: `user${i}`,
  real_name: `User ${i}`,
  is_admin: i === 0,
  is_owner: i === 0,
  profile: { email: `user${i}@example.com`, real_name: `User ${i}` },
}));
const channels = Array.from({ length: channelCount }, (_, i) => ({
  id: `C${i}`,
  name: `channel-${i}`,
  is_general: i === 0,
  created: 1600000000,
  members: users.map((u) => u.id),
  purpose: { value: `Channel ${i}` },
}));

const zip = new yazl.ZipFile();
zip.addBuffer(Buffer.from(JSON.stringify(users)), "users.json");
zip.addBuffer(Buffer.from(JSON.stringify(channels)), "channels.json");
let made = 0;
let day = 0;
while (made < total) {
  const date = new Date(Date.UTC(2020, 0, 1) + day * 86400_000).toISOString().slice(0, 10);
  const start = Date.UTC(2020, 0, 1) / 1000 + day * 86400;
  for (let c = 0; c < channelCount && made < total; c++) {
    const messages = [];
    let root;
    for (let i = 0; i < PER_FILE && made < total; i++, made++) {
      const ts = `${start + c * 600 + i}.${String(i).padStart(6, "0")}`;
      const user = `U${made % userCount}`;
      const m = { type: "message", user, ts, text: `Message ${made} with *bold* and _italic_ text` };
      if (made % 5 === 0) m.text += ` for <@U${(made + 1) % userCount}>`;
      if (made % 4 === 0) m.reactions = [{ name: "thumbsup", users: [`U${(made + 2) % userCount}`], count: 1 }];
      if (i % 10 === 0) root = ts;
      else if (i % 10 === 9) m.thread_ts = root;
      if (i % 10 === 0) m.thread_ts = ts;
      messages.push(m);
    }
    zip.addBuffer(Buffer.from(JSON.stringify(messages)), `channel-${c}/${date}.json`);
  }
  day += 1;
}
zip.outputStream.pipe(fs.createWriteStream(out)).on("close", () => console.log(`${out}: ${made} messages, ${day} days`));
zip.end();
