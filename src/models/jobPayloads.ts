import * as z from "zod";

/**
 * The payload of every kind of durable job (the `jobs` table's `payload` JSON), one schema per
 * kind. Tx.enqueueJob takes only a known kind with its payload type and checks the payload before
 * writing it; the job runner parses each payload with its schema before the handler sees it, so a
 * row written by another version fails with a clear error instead of running on wrong data.
 */
const id = z.number().int().positive();
const seconds = z.number().int().nonnegative();

export const JOB_PAYLOADS = {
  email: z.object({ to: z.string(), subject: z.string(), text: z.string(), html: z.string().optional(), template: z.string() }),
  scheduled_message: z.object({ scheduled_message_id: id }),
  delete_upload_blobs: z.object({ keys: z.array(z.string()) }),
  unclaimed_upload_check: z.object({ attachmentId: id, since: seconds }),
  upload_thumbnail: z.object({ pathId: z.string().min(1) }),
  message_retention: z.object({}),
  outgoing_webhook: z.object({ botId: id, messageId: id, trigger: z.enum(["mention", "direct_message"]) }),
  push_notification: z.object({
    userId: id,
    messageId: id,
    trigger: z.enum(["direct_message", "mentioned", "stream_wildcard_mentioned", "topic_wildcard_mentioned", "followed_topic"]),
    /** Queued when the receiver went idle (receiverIdle.ts): pushed without asking again. */
    idle: z.boolean().optional(),
  }),
  push_notification_remove: z.object({ userId: id, messageIds: z.array(id) }),
  push_bouncer_device: z.object({
    op: z.enum(["register", "unregister"]),
    userId: id,
    kind: z.number().int(),
    token: z.string(),
    appId: z.string().nullable(),
  }),
  missed_message_email: z.object({ userId: id }),
  receiver_went_idle: z.object({ userId: id, messageIds: z.array(id) }),
  realm_export: z.object({ exportId: id }),
  render_profile_field_values: z.object({}),
  url_preview: z.object({ realmId: id, messageId: id, content: z.string(), urls: z.array(z.string()).max(24) }),
} as const;

export type JobKind = keyof typeof JOB_PAYLOADS;
export type JobPayload<K extends JobKind> = z.infer<(typeof JOB_PAYLOADS)[K]>;

export function isJobKind(kind: string): kind is JobKind {
  return Object.hasOwn(JOB_PAYLOADS, kind);
}

/** The payload of a stored job of `kind`, checked; throws (naming the kind) when it does not match. */
export function parseJobPayload<K extends JobKind>(kind: K, payload: unknown): JobPayload<K> {
  const result = JOB_PAYLOADS[kind].safeParse(payload);
  if (!result.success) throw new Error(`invalid ${kind} job payload: ${z.prettifyError(result.error)}`);
  return result.data as JobPayload<K>;
}
