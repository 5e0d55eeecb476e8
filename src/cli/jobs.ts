import { jobStore } from "../store/jobs.js";
import { nowSeconds } from "../util/time.js";
import { type Command, print, stringOption, usageError } from "./command.js";
import { withContext } from "./context.js";

/**
 * `parley jobs` lists the background jobs not done (pending, running, failed);
 * `--retry ID,...|failed` makes failed jobs due again with fresh attempts;
 * `--drop ID,...|failed` deletes pending or failed jobs.
 */
export const jobsCommand: Command = {
  name: "jobs",
  summary: "List pending, running and failed background jobs; retry or drop failed ones.",
  options: {
    retry: { type: "string", value: "ID,...|failed", help: "run these failed jobs (or every failed job) again, with a fresh set of attempts" },
    drop: { type: "string", value: "ID,...|failed", help: "delete these pending or failed jobs (or every failed job)" },
    limit: { type: "string", value: "N", help: "list at most N jobs (default 100)" },
  },
  async run(config, args) {
    const retry = stringOption(args, "retry");
    const drop = stringOption(args, "drop");
    if (retry !== undefined && drop !== undefined) throw usageError("use --retry or --drop, not both");
    const limitText = stringOption(args, "limit") ?? "100";
    if (!/^\d+$/.test(limitText) || Number(limitText) < 1) throw usageError(`invalid --limit "${limitText}": use a positive whole number`);
    const retryIds = retry === undefined ? undefined : jobIds("--retry", retry);
    const dropIds = drop === undefined ? undefined : jobIds("--drop", drop);
    return withContext(config, async (ctx) => {
      const q = ctx.db.kysely;
      if (retryIds !== undefined) {
        print(`Retrying ${await jobStore.retryFailed(q, retryIds, nowSeconds())} failed job(s); a running server takes them within a second.`);
        return 0;
      }
      if (dropIds !== undefined) {
        print(`Dropped ${await jobStore.drop(q, dropIds)} job(s).`);
        return 0;
      }
      const jobs = await jobStore.listUnfinished(q, Number(limitText));
      if (jobs.length === 0) {
        print("No pending, running or failed jobs.");
        return 0;
      }
      const time = (seconds: number) => new Date(seconds * 1000).toISOString().replace(/\.\d+Z$/, "Z");
      const header = ["ID", "KIND", "STATUS", "ATTEMPTS", "RUN AT", "LAST ERROR"];
      const rows = [
        header,
        ...jobs.map((j) => [
          String(j.id),
          j.kind,
          j.status,
          `${j.attempts}/${j.max_attempts}`,
          time(j.run_at),
          (j.last_error ?? "").replace(/\s+/g, " ").slice(0, 80),
        ]),
      ];
      const widths = header.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length)));
      for (const row of rows)
        print(
          row
            .map((cell, i) => (i < row.length - 1 ? cell.padEnd(widths[i] ?? 0) : cell))
            .join("  ")
            .trimEnd(),
        );
      return 0;
    });
  },
};

/** `1,2,3` or `failed` (null: every failed job). */
function jobIds(option: string, value: string): number[] | null {
  if (value === "failed") return null;
  const parts = value.split(",").map((p) => p.trim());
  if (parts.length === 0 || !parts.every((p) => /^\d+$/.test(p))) throw usageError(`invalid ${option} "${value}": use job ids (1,2,3) or "failed"`);
  return parts.map(Number);
}
