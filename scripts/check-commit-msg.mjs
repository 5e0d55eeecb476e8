#!/usr/bin/env node
// Commit subjects read `area: summary` and fit in 72 characters (docs/contributing.md): the area
// says where to look in `git log --oneline`, the summary what changed, and the body why.
//
// Usage:
//   node scripts/check-commit-msg.mjs FILE      as git's commit-msg hook (.githooks/commit-msg);
//                                               install it once per clone with
//                                               `git config core.hooksPath .githooks`
//   node scripts/check-commit-msg.mjs --since REF
//                                               checks the subjects of REF..HEAD (merges aside)
//   node scripts/check-commit-msg.mjs --branch  what `npm run check` runs: the commits of this
//                                               branch since it left main (git merge-base HEAD
//                                               main); says it skipped outside a git clone, without
//                                               a main branch, or on main itself
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const MAX_SUBJECT_LENGTH = 72;

/**
 * `area: summary`: the area is one to three words (`send`, `web app`, `docs/security.md`,
 * `store, events`), the summary starts right after one space. Subjects git writes itself (merges,
 * reverts) and the fixup!/squash! ones `git rebase --autosquash` folds away are let through.
 */
const AREA_SUMMARY = /^[A-Za-z0-9][\w./@-]*(?:,? [\w./@-]+){0,2}: \S/;
const GIT_WRITTEN = /^(?:Merge (?:branch|remote-tracking branch|pull request|tag|commit) |Revert "|fixup! |squash! |amend! )/;

/** The message as git will store it: comment lines and everything under the scissors line dropped. */
export function cleanMessage(text) {
  const lines = [];
  for (const line of text.split("\n")) {
    if (/^# -+ >8 -+$/.test(line)) break;
    if (!line.startsWith("#")) lines.push(line);
  }
  return lines.join("\n").trim();
}

/** The problems of one commit message (empty when it is fine). */
export function checkCommitMessage(text) {
  const message = cleanMessage(text);
  if (message === "") return []; // git itself refuses an empty message
  const [subject, second] = message.split("\n");
  if (GIT_WRITTEN.test(subject)) return [];
  const problems = [];
  if ([...subject].length > MAX_SUBJECT_LENGTH) {
    problems.push(`the subject has ${[...subject].length} characters, more than ${MAX_SUBJECT_LENGTH}: move the detail to the body`);
  }
  if (!AREA_SUMMARY.test(subject)) problems.push('the subject is not "area: summary" (e.g. "store: one builder for the daily-count upsert")');
  if (/\s$/.test(subject)) problems.push("the subject ends with white space");
  if (second !== undefined && second.trim() !== "") problems.push("the subject is not followed by an empty line");
  return problems;
}

function git(...args) {
  return execFileSync("git", args, { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
}

/** [{ commit, problems }] for the non-merge commits of base..HEAD. */
function checkRange(base) {
  const out = git("log", "--no-merges", "--format=%H%x00%B%x01", `${base}..HEAD`);
  return out
    .split("\x01")
    .map((entry) => entry.replace(/^\n/, ""))
    .filter((entry) => entry !== "")
    .map((entry) => {
      const [commit, body] = entry.split("\x00");
      return { commit: commit.slice(0, 12), subject: body.split("\n")[0], problems: checkCommitMessage(body) };
    })
    .filter((result) => result.problems.length > 0);
}

function report(results) {
  for (const { commit, subject, problems } of results) console.error(`${commit} ${subject}\n  ${problems.join("\n  ")}`);
}

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  if (args[0] === "--since" || args[0] === "--branch") {
    let base = args[1];
    if (args[0] === "--branch") {
      try {
        git("rev-parse", "--verify", "--quiet", "main^{commit}");
        base = git("merge-base", "HEAD", "main");
      } catch {
        console.log("commit messages: skipped (not a git clone, or no main branch)");
        process.exit(0);
      }
      if (base === git("rev-parse", "HEAD")) {
        console.log("commit messages: skipped (no commits since main)");
        process.exit(0);
      }
    }
    if (!base) {
      console.error("usage: node scripts/check-commit-msg.mjs --since REF");
      process.exit(2);
    }
    const results = checkRange(base);
    if (results.length > 0) {
      console.error(`commit messages since ${base.slice(0, 12)} (git commit --amend or git rebase -i to reword):`);
      report(results);
      process.exit(1);
    }
    console.log(`commit messages: ok since ${base.slice(0, 12)}`);
  } else if (args.length === 1) {
    const problems = checkCommitMessage(fs.readFileSync(args[0], "utf8"));
    if (problems.length > 0) {
      console.error(`commit message refused (scripts/check-commit-msg.mjs):\n  ${problems.join("\n  ")}`);
      console.error(`your message is kept in ${args[0]}`);
      process.exit(1);
    }
  } else {
    console.error("usage: node scripts/check-commit-msg.mjs FILE | --since REF | --branch");
    process.exit(2);
  }
}
