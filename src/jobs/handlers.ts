import { deliverScheduledMessage, SCHEDULED_MESSAGE_JOB } from "../actions/scheduledMessages.js";
import { deliverEmail } from "../email/deliver.js";
import type { JobRunner } from "./runner.js";

/** Registers every kind of durable job this process can run. */
export function registerJobHandlers(runner: JobRunner): void {
  runner.register("email", deliverEmail);
  runner.register(SCHEDULED_MESSAGE_JOB, deliverScheduledMessage);
}
