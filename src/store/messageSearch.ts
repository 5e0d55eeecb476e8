import { dialectOf } from "../db/dialect.js";
import { type Executor } from "../db/tx.js";
import { type Message } from "./messages.js";

/** The engine's full-text index of messages (db/dialect.ts): callers report new and edited messages. */
export const messageSearchStore = {
  async index(q: Executor, messages: readonly Pick<Message, "id" | "subject" | "rendered_content">[]): Promise<void> {
    await dialectOf(q).indexMessagesForSearch(q, messages);
  },

  /** Messages inserted by this transaction, never indexed before. */
  async indexNew(q: Executor, messages: readonly Pick<Message, "id" | "subject" | "rendered_content">[]): Promise<void> {
    await dialectOf(q).indexMessagesForSearch(q, messages, { fresh: true });
  },

  async unindex(q: Executor, ids: readonly number[]): Promise<void> {
    await dialectOf(q).unindexMessagesForSearch(q, ids);
  },
};
