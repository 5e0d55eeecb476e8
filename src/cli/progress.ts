import type cliProgress from "cli-progress";
import type { ImportProgress } from "../actions/import/progress.js";
import { lazyRequire } from "../util/lazy.js";
import { print } from "./command.js";

/** Loaded when a bar is first drawn: the server, which imports the CLI's modules, never needs it. */
const loadCliProgress = lazyRequire<typeof cliProgress>("cli-progress");

/**
 * An import's progress for the person at the terminal: one bar per stage with the count, the
 * percentage, the rate over this run and the time left (cli-progress, drawn on stderr when it is a
 * terminal). Without a terminal (a log, a pipe, the tests) a line per count instead, with the same
 * figures.
 */
export function importProgress(terminal: NodeJS.WriteStream = process.stderr): ImportProgress & { stop(): void } {
  let current: { stage: string; bar: cliProgress.SingleBar | null; startedAt: number; startDone: number } | null = null;

  const stop = () => {
    current?.bar?.stop();
    current = null;
  };

  return {
    note(line) {
      stop();
      print(line);
    },
    advance(stage, done, total) {
      const now = Date.now();
      if (current?.stage !== stage) {
        stop();
        const bar = terminal.isTTY
          ? new (loadCliProgress().SingleBar)(
              {
                stream: terminal,
                format: `${stage.padEnd(9)} [{bar}] {percentage}% | {value}/{total} | {rate}/s | {eta_formatted} left`,
                hideCursor: true,
                etaBuffer: 20,
              },
              loadCliProgress().Presets.shades_classic,
            )
          : null;
        bar?.start(total, done, { rate: 0 });
        current = { stage, bar, startedAt: now, startDone: done };
      }
      const rate = Math.round((done - current.startDone) / Math.max((now - current.startedAt) / 1000, 0.001));
      if (current.bar) {
        current.bar.setTotal(total);
        current.bar.update(done, { rate });
      } else {
        print(`${stage}: ${done}/${total} (${rate} ${stage}/s)`);
      }
    },
    stop,
  };
}
