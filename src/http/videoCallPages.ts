import type { FastifyInstance, FastifyReply } from "fastify";
import type { AppContext } from "../appContext.js";
import { apiUrl, meetingKey, verifyMeeting, xmlField } from "../lib/bigBlueButton.js";
import { OutgoingHttpError, requestOutgoing } from "../lib/outgoingHttp.js";
import { authenticateApiKeyOrSession } from "./auth.js";
import { SESSION_COOKIE } from "./sessions.js";

/**
 * GET /calls/bigbluebutton/join?bigbluebutton=<signed meeting> (Zulip's join_bigbluebutton):
 * for a signed-in user, creates the meeting on the BigBlueButton server and redirects to it.
 */
export async function videoCallPages(app: FastifyInstance, opts: { ctx: AppContext }): Promise<void> {
  const { ctx } = opts;
  app.get<{ Querystring: { bigbluebutton?: string } }>("/calls/bigbluebutton/join", async (request, reply) => {
    let user;
    try {
      ({ user } = await authenticateApiKeyOrSession(ctx, request.headers.authorization, request.cookies[SESSION_COOKIE], request.host));
    } catch {
      return reply.redirect(`/login/?next=${encodeURIComponent(request.url)}`);
    }
    reply.header("Cache-Control", "no-cache, no-store, must-revalidate, private");
    const bbb = ctx.config.bigBlueButton;
    if (!bbb) return fail(reply, "BigBlueButton is not configured.");
    const meeting = verifyMeeting(meetingKey(ctx.config.dataDir), String(request.query.bigbluebutton ?? ""));
    if (!meeting) return fail(reply, "Invalid signature.");
    let answer: string;
    try {
      const response = await requestOutgoing({
        method: "GET",
        url: apiUrl(bbb.url, bbb.secret, "create", {
          meetingID: meeting.meeting_id,
          name: meeting.name,
          moderatorPW: meeting.moderator,
          lockSettingsDisableCam: String(meeting.lock_settings_disable_cam),
        }),
        timeoutMs: 15_000,
        allowHosts: ctx.config.outgoing.allowHosts,
        maxBytes: 64 * 1024,
      });
      if (response.status < 200 || response.status >= 300) throw new OutgoingHttpError("connection", `HTTP ${response.status}`);
      answer = response.body.toString("utf8");
    } catch (error) {
      if (error instanceof OutgoingHttpError || error instanceof TypeError) return fail(reply, "Error connecting to the BigBlueButton server.");
      throw error;
    }
    if (xmlField(answer, "messageKey") === "checksumError") return fail(reply, "Error authenticating to the BigBlueButton server.");
    if (xmlField(answer, "returncode") !== "SUCCESS") return fail(reply, "BigBlueButton server returned an unexpected error.");
    const join: Record<string, string> = { meetingID: meeting.meeting_id, password: meeting.moderator, fullName: user.full_name };
    const createTime = xmlField(answer, "createTime");
    if (createTime) join.createTime = createTime;
    return reply.redirect(apiUrl(bbb.url, bbb.secret, "join", join));
  });
}

function fail(reply: FastifyReply, msg: string): FastifyReply {
  return reply.code(400).send({ result: "error", msg, code: "BAD_REQUEST" });
}
