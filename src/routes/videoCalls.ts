import { badRequest } from "../lib/errors.js";
import { endpoint } from "../http/endpoint.js";
import { p } from "../http/params.js";
import { meetingKey, newMeeting, signMeeting } from "../lib/bigBlueButton.js";

/** GET /calls/bigbluebutton/create: a join link for a new meeting (Zulip's get_bigbluebutton_url). */
export const createBigBlueButtonCall = endpoint({
  auth: "user",
  params: { meeting_name: p.string({ maxLength: 200 }), voice_only: p.bool().default(false) },
  handler: async ({ ctx, params }) => {
    if (!ctx.config.bigBlueButton) throw badRequest("BigBlueButton is not configured.");
    const token = signMeeting(meetingKey(ctx.config.dataDir), newMeeting(params.meeting_name, params.voice_only));
    return { url: `/calls/bigbluebutton/join?bigbluebutton=${encodeURIComponent(token)}` };
  },
});
