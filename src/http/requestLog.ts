import type { FastifyInstance, FastifyRequest } from "fastify";

/**
 * One log line per answered request, at info level: method, route pattern (never the URL, whose
 * query may carry an API key), status, time in milliseconds and the authenticated user's id.
 * No headers, parameters or bodies, so no secrets.
 */
declare module "fastify" {
  interface FastifyRequest {
    /** Who made the request, once authenticated (for its log line). */
    parleyUserId: number | null;
  }
}

/** Records who made `request` (after authentication), for its log line. */
export function noteRequestUser(request: FastifyRequest, userId: number): void {
  request.parleyUserId = userId;
}

export function logRequests(app: FastifyInstance): void {
  // A property every request has from the start (Fastify's decorator): cheaper than a WeakMap entry
  // per request, which showed in the CPU profile of answering polls.
  app.decorateRequest("parleyUserId", null);
  // A callback hook, not an async one: no promise per request (this runs for every poll).
  app.addHook("onResponse", (request, reply, done) => {
    // pino's check (not in Fastify's logger type): skips building the line when info is off.
    if ((request.log as { isLevelEnabled?: (level: string) => boolean }).isLevelEnabled?.("info") !== false) {
      request.log.info(
        {
          method: request.method,
          route: request.routeOptions.url ?? null,
          status: reply.statusCode,
          ms: Math.round(reply.elapsedTime * 10) / 10,
          user: request.parleyUserId,
        },
        "request",
      );
    }
    done();
  });
}
