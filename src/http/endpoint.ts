import type { FastifyReply, FastifyRequest } from "fastify";
import type { AppContext } from "../appContext.js";
import type { Realm, User } from "../db/schema.js";
import type { ClientDialect } from "../lib/clientDialect.js";
import type { UploadedFile } from "./mount.js";
import { ConfusingArgumentsError, MissingArgumentError } from "../lib/errors.js";
import type { ParamSpec, ParamValues } from "./params.js";

/**
 * One declaration per endpoint: who may call it, its parameters, and the handler. The route
 * table (routes.ts) mounts it; this module turns the request into typed values with Zulip's
 * error texts and the response into Zulip's success envelope.
 */
/**
 * "user": credentials required. "visitor": credentials as for "user" when sent; without any, a
 * visitor without an account (Zulip's spectator, allow_anonymous_user_web) of the request's
 * organization, when it allows spectators (the handler gets user null). "none": no credentials.
 */
export type AuthMode = "user" | "visitor" | "none";

export interface RequestInfo {
  ip: string;
  userAgent: string;
  /** Zulip's `client` name: the User-Agent's product token ("ZulipMobile", "python-zulip-api"...). */
  clientName: string;
  /** Which names the client understands where our spec and Zulip differ (lib/clientDialect.ts). */
  dialect: ClientDialect;
  /** File parts of a multipart body. */
  files: UploadedFile[];
}

export interface HandlerArgs<P, A extends AuthMode> {
  ctx: AppContext;
  params: P;
  path: Record<string, string>;
  user: A extends "user" ? User : User | null;
  realm: A extends "user" ? Realm : A extends "visitor" ? Realm : Realm | null;
  request: RequestInfo;
  raw: { request: FastifyRequest; reply: FastifyReply };
}

export type HandlerResult = Record<string, unknown> | void;

/**
 * A response field's value already serialized as JSON (GET /events: an event is serialized once
 * for every queue that gets it). mount.ts writes it into the response as it is.
 */
export class JsonText {
  /** The JSON as text, or as byte chunks already encoded (shared between responses). */
  constructor(readonly parts: string | readonly Buffer[]) {}
}

export interface Endpoint<S extends ParamSpec = ParamSpec, A extends AuthMode = AuthMode> {
  auth: A;
  params: S;
  handler: (args: HandlerArgs<ParamValues<S>, A>) => Promise<HandlerResult> | HandlerResult;
  /** Raw handlers write the reply themselves (file downloads, redirects). */
  raw?: boolean;
  /** Incoming-webhook bots may call it (Zulip allows them POST /messages only). */
  allowIncomingWebhookBots?: boolean;
  /** Multipart files go to temporary files on disk (UploadedFile.spool), not into memory. */
  spoolFiles?: boolean;
  /**
   * Counted in this process's memory (AppContext.pollRateLimiter), in buckets of their own, never
   * in the shared database: Zulip's Tornado endpoints (GET/DELETE /events) use its in-memory
   * backend (RATE_LIMITING_DOMAINS_FOR_TORNADO), so a poll writes nothing.
   */
  inProcessRateLimit?: boolean;
}

export function endpoint<S extends ParamSpec, A extends AuthMode>(def: Endpoint<S, A>): Endpoint<S, A> {
  return def;
}

/**
 * Reads every declared parameter from `input` (body fields win over the query string, as in
 * Zulip) and lists, sorted as Zulip does, the names that were sent but are not declared.
 */
export function parseParams<S extends ParamSpec>(spec: S, input: Record<string, string>): { values: ParamValues<S>; ignored: string[] } {
  const values: Record<string, unknown> = {};
  const used = new Set<string>();
  for (const [name, param] of Object.entries(spec)) {
    const present = [name, ...param.aliases].filter((n) => input[n] !== undefined);
    const [sentAs, alsoSent] = present;
    if (sentAs !== undefined && alsoSent !== undefined) throw new ConfusingArgumentsError(sentAs, alsoSent);
    const text = sentAs === undefined ? undefined : input[sentAs];
    if (sentAs === undefined || text === undefined) {
      if (!param.isOptional) throw new MissingArgumentError(name);
      values[name] = param.defaultValue;
      continue;
    }
    used.add(sentAs);
    values[name] = param.parseText(text, sentAs);
  }
  const ignored = Object.keys(input)
    .filter((key) => !used.has(key))
    .sort();
  return { values: values as ParamValues<S>, ignored };
}
