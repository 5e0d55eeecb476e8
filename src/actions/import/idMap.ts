import { importedPathId } from "../../lib/uploadFiles.js";
import type { ImportTable } from "../../store/imports.js";

/**
 * How the ids of an export become this server's: each table's rows move up by the table's offset
 * (its highest id when the import began; the range above is reserved for the import), so the
 * mapping needs no lookup table and is the same when an interrupted import continues. The
 * cross-realm system bots are the exception: they map by email onto this server's own.
 */
export const OFFSET_TABLES = {
  users: "zerver_userprofile",
  recipients: "zerver_recipient",
  streams: "zerver_stream",
  user_groups: "zerver_usergroup",
  direct_message_groups: "zerver_huddle",
  subscriptions: "zerver_subscription",
  messages: "zerver_message",
  reactions: "zerver_reaction",
  attachments: "zerver_attachment",
  realm_emoji: "zerver_realmemoji",
  custom_profile_fields: "zerver_customprofilefield",
  custom_profile_field_values: "zerver_customprofilefieldvalue",
  user_topics: "zerver_usertopic",
  alert_words: "zerver_alertword",
  scheduled_messages: "zerver_scheduledmessage",
} as const satisfies Partial<Record<ImportTable, string>>;

export type OffsetTable = keyof typeof OFFSET_TABLES;

export interface IdMapState {
  offsets: Record<OffsetTable, number>;
  oldRealmId: number;
  realmId: number;
  crossUsers: Array<[number, number]>;
  crossRecipients: Array<[number, number]>;
}

export class IdMap {
  private readonly crossUsers: Map<number, number>;
  private readonly crossRecipients: Map<number, number>;

  constructor(readonly state: IdMapState) {
    this.crossUsers = new Map(state.crossUsers);
    this.crossRecipients = new Map(state.crossRecipients);
  }

  get realmId(): number {
    return this.state.realmId;
  }

  id(table: OffsetTable, old: unknown): number;
  id(table: OffsetTable, old: unknown, nullable: true): number | null;
  id(table: OffsetTable, old: unknown, nullable = false): number | null {
    if (old === null || old === undefined) {
      if (nullable) return null;
      throw new Error(`a row of ${OFFSET_TABLES[table]} lacks a required id`);
    }
    const n = Number(old);
    if (table === "users" && this.crossUsers.has(n)) return this.crossUsers.get(n)!;
    if (table === "recipients" && this.crossRecipients.has(n)) return this.crossRecipients.get(n)!;
    return n + this.state.offsets[table];
  }

  user = (old: unknown) => this.id("users", old);
  userOrNull = (old: unknown) => this.id("users", old, true);
  stream = (old: unknown) => this.id("streams", old);
  streamOrNull = (old: unknown) => this.id("streams", old, true);
  group = (old: unknown) => this.id("user_groups", old);
  groupOrNull = (old: unknown) => this.id("user_groups", old, true);
  recipient = (old: unknown) => this.id("recipients", old);
  message = (old: unknown) => this.id("messages", old);
  messageOrNull = (old: unknown) => this.id("messages", old, true);

  /**
   * An upload's path: `<realm id>/…` moves to the new organization's id; a path_id of a form this
   * server does not make (listed in `legacyPaths`) gets a new one (lib/uploadFiles.ts).
   */
  uploadPath(pathId: string): string {
    if (this.legacyPaths.has(pathId)) return importedPathId(this.state.realmId, pathId);
    const prefix = `${this.state.oldRealmId}/`;
    return pathId.startsWith(prefix) ? `${this.state.realmId}/${pathId.slice(prefix.length)}` : pathId;
  }

  /** The export's upload path_ids that get new ones: links to them are rewritten. */
  private legacyPaths = new Set<string>();

  setLegacyUploadPaths(paths: Iterable<string>): void {
    this.legacyPaths = new Set(paths);
  }

  private rewriteUploadLinks(text: string): string {
    if (this.legacyPaths.size === 0) return text;
    return text.replace(/\/user_uploads\/(\d+\/[^\s"'<>)\]?#]+)/g, (whole, linked: string) => {
      let pathId = linked;
      if (!this.legacyPaths.has(pathId)) {
        try {
          pathId = decodeURIComponent(linked);
        } catch {
          return whole;
        }
      }
      if (!this.legacyPaths.has(pathId)) return whole;
      return `/user_uploads/${this.uploadPath(pathId).split("/").map(encodeURIComponent).join("/")}`;
    });
  }

  /**
   * A message's Markdown or HTML with the ids it names remapped: upload and emoji links
   * (/user_uploads/<realm>/, /user_avatars/<realm>/), mentions (data-user-id, data-user-group-id),
   * channel links (data-stream-id, #narrow/channel/<id>-).
   */
  content(text: string | null): string | null {
    if (text === null) return null;
    const { oldRealmId, realmId } = this.state;
    let out = this.rewriteUploadLinks(text);
    if (oldRealmId !== realmId) {
      out = out.replaceAll(`/user_uploads/${oldRealmId}/`, `/user_uploads/${realmId}/`).replaceAll(`/user_avatars/${oldRealmId}/`, `/user_avatars/${realmId}/`);
    }
    return out
      .replace(/data-user-id="(\d+)"/g, (_, id) => `data-user-id="${this.user(id)}"`)
      .replace(/data-user-group-id="(\d+)"/g, (_, id) => `data-user-group-id="${this.group(id)}"`)
      .replace(/data-stream-id="(\d+)"/g, (_, id) => `data-stream-id="${this.stream(id)}"`)
      .replace(/#narrow\/(channel|stream)\/(\d+)-/g, (_, word, id) => `#narrow/${word}/${this.stream(id)}-`);
  }

  /** A message's edit history (JSON): its editors, channels and earlier renderings remapped. */
  editHistory(json: string | null): string | null {
    if (json === null) return null;
    const entries = JSON.parse(json) as Array<Record<string, unknown>>;
    for (const e of entries) {
      if (typeof e.user_id === "number") e.user_id = this.user(e.user_id);
      if (typeof e.prev_stream === "number") e.prev_stream = this.stream(e.prev_stream);
      if (typeof e.stream === "number") e.stream = this.stream(e.stream);
      if (typeof e.prev_rendered_content === "string") e.prev_rendered_content = this.content(e.prev_rendered_content);
    }
    return JSON.stringify(entries);
  }
}
