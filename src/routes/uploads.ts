import { checkDeleteAttachment, createUpload } from "../actions/attachments.js";
import { transaction } from "../appContext.js";
import { endpoint } from "../http/endpoint.js";
import { badRequest } from "../lib/errors.js";
import { pathParam } from "../http/params.js";
import { temporaryFileUrl } from "../http/userUploads.js";
import { contentTypeFor, displayFileName } from "../lib/uploadFiles.js";
import { getUserAttachments } from "../lib/attachmentPayload.js";

/** POST /user_uploads: one file in a multipart body (Zulip's upload_file_backend). */
export const uploadFile = endpoint({
  auth: "user",
  params: {},
  spoolFiles: true,
  handler: async ({ ctx, user, request }) => {
    const files = request.files;
    const [file] = files;
    if (file === undefined) throw badRequest("You must specify a file to upload");
    if (files.length !== 1) throw badRequest("You may only upload one file at a time");
    const maxMib = ctx.config.uploads.maxFileSizeMib;
    if (!file.spool || file.spool.truncated || file.spool.size > maxMib * 1024 * 1024) {
      throw badRequest(`Uploaded file is larger than the allowed limit of ${maxMib} MiB`);
    }
    const name = displayFileName(file.filename);
    const { url } = await createUpload(ctx, user, {
      localPath: file.spool.path,
      name,
      size: file.spool.size,
      contentType: contentTypeFor(file.mimetype, name),
    });
    return { uri: url, url, filename: name };
  },
});

/** GET /attachments */
export const listAttachments = endpoint({
  auth: "user",
  params: {},
  handler: async ({ ctx, user }) => getUserAttachments(ctx.db.kysely, user),
});

/** DELETE /attachments/{attachment_id} */
export const deleteAttachment = endpoint({
  auth: "user",
  params: {},
  handler: async ({ ctx, user, path }) => {
    const attachmentId = pathParam.int(path.attachment_id, "attachment_id");
    await transaction(ctx, (tx) => checkDeleteAttachment(tx, user, attachmentId));
  },
});

/** GET /user_uploads/{realm_id_str}/{filename}: a short-lived URL that needs no credentials. */
export const getFileTemporaryUrl = endpoint({
  auth: "user",
  params: {},
  handler: async ({ ctx, user, path }) => ({ url: await temporaryFileUrl(ctx, user, `${path.realm_id_str}/${path["*"] ?? ""}`) }),
});
