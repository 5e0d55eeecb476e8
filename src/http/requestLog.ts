import type { FastifyInstance, FastifyRequest } from "fastify";

/**
 * One log line per answered request, at info level: method, route pattern (never the URL, whose
 * query may carry an API key), status, time in milliseconds and the authenticated user's id.
 * No headers, parameters or bodies, so no secrets.
 */
const requestUsers = new WeakMap<FastifyRequest, number>();

/** Records who made `request` (after authentication), for its log line. */
export function noteRequestUser(request: FastifyRequest, userId: number): void {
  requestUsers.set(request, userId);
}

export function logRequests(app: FastifyInstance): void {
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
          user: requestUsers.get(request) ?? null,
        },
        "request",
      );
    }
    done();
  });
}
