import { checkReportMessage, REPORT_REASONS, type ReportType } from "../actions/messageReports.js";
import { transaction } from "../appContext.js";
import { endpoint } from "../http/endpoint.js";
import { p, pathParam } from "../http/params.js";
import { MAX_REPORT_EXPLANATION_LENGTH } from "../models/limits.js";
import { realmUrl } from "../lib/realms.js";

/** POST /messages/{message_id}/report: tells the organization's moderators about a message. */
export const reportMessage = endpoint({
  auth: "user",
  params: {
    report_type: p.enum(Object.keys(REPORT_REASONS) as ReportType[]),
    description: p.string({ maxLength: MAX_REPORT_EXPLANATION_LENGTH }).default(""),
  },
  handler: async ({ ctx, user, realm, params, path }) => {
    const messageId = pathParam.int(path.message_id, "message_id");
    await transaction(ctx, (tx) =>
      checkReportMessage(tx, user, realm, realmUrl(ctx.config, realm), { messageId, reportType: params.report_type, description: params.description }),
    );
  },
});
