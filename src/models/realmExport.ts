/** Zulip's RealmExport constants: the export types and the status of an export. */
export const ExportType = {
  /** Public data: everything but private channels and direct messages. */
  PUBLIC: 1,
  /** Public data, plus the private data of the users who allow it (allow_private_data_export). */
  FULL_WITH_CONSENT: 2,
  /** Everything (Zulip's manage.py export default): only from the command line, `parley export`. */
  FULL_WITHOUT_CONSENT: 3,
} as const;
export type ExportTypeCode = (typeof ExportType)[keyof typeof ExportType];

export const ExportStatus = {
  REQUESTED: 0,
  STARTED: 1,
  SUCCEEDED: 2,
  FAILED: 3,
  DELETED: 4,
} as const;

/** Exports an organization may start in EXPORT_LIMIT_WINDOW_SECONDS (Zulip: 5 a week). */
export const EXPORT_LIMIT = 5;
export const EXPORT_LIMIT_WINDOW_SECONDS = 7 * 86400;

/** Larger organizations are exported with `parley export` (Zulip's MAX_MESSAGE_HISTORY and upload quota). */
export const MAX_MESSAGE_HISTORY = 250_000;
export const MAX_UPLOAD_BYTES = 20 * 1024 * 1024 * 1024;
