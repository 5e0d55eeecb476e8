import { signal } from "@preact/signals";

/**
 * The web app's outgoing state changes (read marking and other flags, reactions, subscriptions,
 * settings, topic and user muting…; message sends have their own outbox, outbox.ts): sent one at
 * a time, in the order they were made, so that a star and its undo, or a subscription and its
 * colour, reach the server in that order. A change the server did not answer (no connection; a
 * restarting server's or a proxy's 502, 503, 504; 429 after its Retry-After) is sent again with
 * backoff until the server answers, so nothing is lost while it restarts; the server's answer, a
 * success or a refusal (4xx), settles it and the next change goes.
 */

/** Changes made and not yet settled (sent, or waiting to be). */
export const waitingChanges = signal(0);
/** Whether the change at the head of the queue is waiting to be sent again (the server did not answer). */
export const changesStalled = signal(false);

let tail: Promise<unknown> = Promise.resolve();
let wake: (() => void) | null = null;

/**
 * Runs `attempt` after every change made before it has settled, again after `retryDelay(error,
 * failures)` milliseconds while that says the failure is worth retrying (null: it is final).
 * `attempt` gets the number of failed attempts so far.
 */
export function inOrder<T>(attempt: (failures: number) => Promise<T>, retryDelay: (error: unknown, failures: number) => number | null): Promise<T> {
  waitingChanges.value += 1;
  const settled = tail.then(async () => {
    try {
      for (let failures = 0; ;) {
        try {
          return await attempt(failures);
        } catch (error) {
          failures += 1;
          const delay = retryDelay(error, failures);
          if (delay === null) throw error;
          changesStalled.value = true;
          await pause(delay);
        }
      }
    } finally {
      changesStalled.value = false;
      waitingChanges.value -= 1;
    }
  });
  tail = settled.catch(() => {});
  return settled;
}

/** Ends the current wait before a retry (the event loop reached the server again). */
export function retryChangesNow(): void {
  wake?.();
}

// The browser says the network is back: no need to wait out the backoff.
if (typeof window !== "undefined") window.addEventListener("online", retryChangesNow);

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      if (wake === done) wake = null;
      resolve();
    };
    const timer = setTimeout(done, ms);
    wake = done;
  });
}
