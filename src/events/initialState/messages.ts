import type { Executor } from "../../db/tx.js";
import { type StateRequest, wants } from "./index.js";

/** Initial-state sections about messages: message (max_message_id), … */
export async function fetchMessageState(q: Executor, req: StateRequest): Promise<Record<string, unknown>> {
  const state: Record<string, unknown> = {};
  if (wants(req, "message")) {
    const row = await q.selectFrom("user_messages").select((eb) => eb.fn.max("message_id").as("max")).where("user_id", "=", req.user.id).executeTakeFirst();
    state.max_message_id = row?.max ?? -1;
  }
  return state;
}
