import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";

/** scripts/check-commit-msg.mjs as git runs it from .githooks/commit-msg: one message file. */
const script = path.resolve(import.meta.dirname, "../scripts/check-commit-msg.mjs");
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "parley-commit-msg-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function check(message: string): { status: number | null; stderr: string } {
  const file = path.join(dir, "COMMIT_EDITMSG");
  fs.writeFileSync(file, message);
  const result = spawnSync(process.execPath, [script, file], { encoding: "utf8" });
  return { status: result.status, stderr: result.stderr };
}

describe("the commit-msg check", () => {
  it.each([
    "store: one builder for the daily-count upsert\n\nThe reason, at any length.\n",
    "web app: the compose box closed by default\n",
    "docs/security.md: the rules point at Zulip's security model",
    "store, events: one thing for two areas",
    "send: " + "x".repeat(72 - "send: ".length),
    // Git's own comment lines and what lies under the scissors line are not part of the message.
    "db: a short subject\n\n# Please enter the commit message for your changes.\n# " + "x".repeat(100) + "\n",
    "db: a short subject\n# ------------------------ >8 ------------------------\n" + "diff ".repeat(40) + "\n",
    // Subjects git writes itself.
    "Merge branch 'wt/habits'\n",
    'Revert "memory: V8 semi-spaces of 1 MiB"\n\nThis reverts commit 0123456789abcdef.\n',
    "fixup! store: one builder for the daily-count upsert\n",
  ])("accepts %j", (message) => {
    expect(check(message)).toEqual({ status: 0, stderr: "" });
  });

  it.each([
    ["a subject over 72 characters", "send: " + "x".repeat(73 - "send: ".length), "more than 72"],
    ["a subject without an area", "Fix the daily-count upsert\n", '"area: summary"'],
    ["an area of more than three words", "the whole send path here: faster\n", '"area: summary"'],
    ["no space after the colon", "store:one builder\n", '"area: summary"'],
    ["an empty summary", "store: \n", '"area: summary"'],
    ["a body glued to the subject", "store: one builder\nthe reason\n", "empty line"],
  ])("refuses %s", (_name, message, problem) => {
    const result = check(message);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(problem);
  });

  it("counts characters, not bytes", () => {
    expect(check("docs: " + "é".repeat(72 - "docs: ".length)).status).toBe(0);
  });
});
