import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { parsePathId } from "../uploadFiles.js";
import { JsonRowsError, type Row, tableBatches, tableChunks } from "./jsonRows.js";
import { lazy } from "../../util/lazy.js";
import { defined } from "../../util/defined.js";

/** Loaded when an archive is extracted. */
const loadTar = lazy(() => import("tar"));

/**
 * Reading an export in the layout of Zulip's `manage.py export` (what `parley export` writes,
 * lib/export/): a .tar.gz (extracted into a work directory first) or a directory. Everything is
 * checked before anything is imported: the archive extracts completely, realm.json has the
 * organization's tables, the message files are numbered 1…n and each parses, and every upload
 * and emoji record has its file. Message files, reactions and attachments are not held: they are
 * read again by batches while importing (./jsonRows.ts streams the large files).
 */
export class ImportArchiveError extends Error {}

export type { Row };
/** realm.json's tables by name; the required ones are always there (an empty list if the export has none). */
export type Tables = Record<string, Row[]> & Record<(typeof REQUIRED_TABLES)[number], Row[]>;

export interface ZulipArchive {
  root: string;
  /** realm.json's tables but the large ones below, which are counted here and streamed when imported. */
  realm: Tables;
  /** Rows per table of realm.json, the streamed ones included. */
  tableCounts: Record<string, number>;
  messageFiles: string[];
  messageCount: number;
  /** The highest id of each of Zulip's tables (messages as "zerver_message"). */
  maxIds: Record<string, number>;
  /** attachment.json (zerver_attachment, streamed when imported), or null when the export has none. */
  attachmentFile: string | null;
  attachmentCount: number;
  /** Attachments' path_ids of a form this server does not make: they get new ones, links rewritten. */
  legacyUploadPaths: string[];
  uploadRecords: Row[];
  emojiRecords: Row[];
  avatarRecords: Row[];
  realmIconRecords: Row[];
}

/** Tables of realm.json that can be large: not held in memory (reactions are imported by batches). */
const STREAMED_TABLES = new Set(["zerver_reaction", "zerver_realmauditlog", "zerver_useractivity", "zerver_useractivityinterval", "zerver_userpresence"]);

const REQUIRED_TABLES = ["zerver_realm", "zerver_userprofile", "zerver_stream", "zerver_recipient", "zerver_subscription", "zerver_usergroup"] as const;
const MESSAGE_TABLES = new Set(["zerver_message", "zerver_usermessage"]);

function readJson(file: string, what: string): any {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    throw new ImportArchiveError(`the export has no ${what} (${path.basename(file)})`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ImportArchiveError(`${what} (${path.basename(file)}) is not valid JSON — is the export truncated? (${(error as Error).message})`);
  }
}

/** The rows of a JSON file of tables by chunks ([table, rows]), errors as ImportArchiveError. */
async function* chunksOf(file: string, tables: ReadonlySet<string> | null = null): AsyncGenerator<[string, Row[]]> {
  try {
    yield* tableChunks(file, tables);
  } catch (error) {
    if (error instanceof JsonRowsError) throw new ImportArchiveError(error.message);
    throw error;
  }
}

/** Extracts a .tar.gz into `workDir`; a truncated or damaged archive is an ImportArchiveError. */
export async function extractArchive(file: string, workDir: string): Promise<void> {
  try {
    await (await loadTar()).extract({ file, cwd: workDir, strict: true });
  } catch (error) {
    throw new ImportArchiveError(`${file} is not a complete .tar.gz archive: ${(error as Error).message}`);
  }
}

/** The export's directory: `dir` itself, or its one subdirectory (a tarball's top directory). */
export function exportRoot(dir: string): string {
  if (existsSync(path.join(dir, "realm.json"))) return dir;
  const entries = readdirSync(dir).filter((name) => !name.startsWith("."));
  const [only] = entries;
  if (entries.length === 1 && only !== undefined && statSync(path.join(dir, only)).isDirectory() && existsSync(path.join(dir, only, "realm.json"))) {
    return path.join(dir, only);
  }
  throw new ImportArchiveError("the export has no realm.json: this is not a Zulip export (manage.py export / parley export)");
}

function maxId(rows: readonly Row[]): number {
  let max = 0;
  for (const row of rows) {
    const id = Number(row?.id) || 0;
    if (id > max) max = id;
  }
  return max;
}

/**
 * Reads and checks the whole export (every file parses completely) without holding its messages,
 * reactions or attachments: those are counted here and read again by batches when imported.
 */
export async function readZulipArchive(root: string, progress: (line: string) => void = () => {}): Promise<ZulipArchive> {
  const realmFile = path.join(root, "realm.json");
  if (!existsSync(realmFile)) throw new ImportArchiveError("the export has no realm.json (realm.json)");
  const realm: Record<string, Row[]> = {};
  const tableCounts: Record<string, number> = {};
  const maxIds: Record<string, number> = {};
  for await (const [table, rows] of chunksOf(realmFile)) {
    tableCounts[table] = (tableCounts[table] ?? 0) + rows.length;
    maxIds[table] = Math.max(maxIds[table] ?? 0, maxId(rows));
    if (!STREAMED_TABLES.has(table)) realm[table] = realm[table] ? realm[table].concat(rows) : rows;
  }
  for (const table of REQUIRED_TABLES) {
    if (tableCounts[table] === undefined && !(table in realm)) realm[table] = [];
  }
  for (const table of ["zerver_realm", "zerver_userprofile", "zerver_recipient"]) {
    if (!tableCounts[table]) throw new ImportArchiveError(`realm.json has no ${table} table`);
  }
  const realmRows = realm.zerver_realm?.length ?? 0;
  if (realmRows !== 1) throw new ImportArchiveError(`realm.json must hold exactly one organization (zerver_realm has ${realmRows} rows)`);
  maxIds.zerver_userprofile = Math.max(maxIds.zerver_userprofile ?? 0, maxIds.zerver_userprofile_mirrordummy ?? 0);

  const messageFiles = readdirSync(root)
    .filter((name) => /^messages-\d{6}\.json$/.test(name))
    .sort();
  messageFiles.forEach((name, i) => {
    if (name !== `messages-${String(i + 1).padStart(6, "0")}.json`)
      throw new ImportArchiveError(`message file ${i + 1} is missing (found ${name}): the export is incomplete`);
  });
  let messageCount = 0;
  let maxMessageId = 0;
  let maxUserMessageId = 0;
  for (const [i, name] of messageFiles.entries()) {
    for await (const [table, rows] of chunksOf(path.join(root, name), MESSAGE_TABLES)) {
      if (table === "zerver_message") {
        messageCount += rows.length;
        maxMessageId = Math.max(maxMessageId, maxId(rows));
      } else maxUserMessageId = Math.max(maxUserMessageId, maxId(rows));
    }
    if ((i + 1) % 100 === 0) progress(`checked ${i + 1}/${messageFiles.length} message files (${messageCount} messages)`);
  }
  maxIds.zerver_message = maxMessageId;
  maxIds.zerver_usermessage = maxUserMessageId;

  const attachmentPath = path.join(root, "attachment.json");
  const attachmentFile = existsSync(attachmentPath) ? attachmentPath : null;
  let attachmentCount = 0;
  const legacyUploadPaths: string[] = [];
  if (attachmentFile) {
    for await (const [, rows] of chunksOf(attachmentFile, new Set(["zerver_attachment"]))) {
      attachmentCount += rows.length;
      for (const row of rows) if (typeof row.path_id === "string" && !parsePathId(row.path_id)) legacyUploadPaths.push(row.path_id);
      maxIds.zerver_attachment = Math.max(maxIds.zerver_attachment ?? 0, maxId(rows));
    }
  }

  const records = (folder: string): Row[] => {
    const file = path.join(root, folder, "records.json");
    if (!existsSync(file)) return [];
    const list = readJson(file, `${folder}/records.json`);
    if (!Array.isArray(list)) throw new ImportArchiveError(`${folder}/records.json is not a list`);
    for (const r of list) {
      if (typeof r.path !== "string" || r.path.includes("..") || !existsSync(path.join(root, folder, r.path))) {
        throw new ImportArchiveError(`${folder}/records.json lists ${String(r.path)}, which the export lacks: the export is incomplete`);
      }
    }
    return list;
  };
  return {
    root,
    realm: realm as Tables, // the required tables were added above
    tableCounts,
    messageFiles,
    messageCount,
    maxIds,
    attachmentFile,
    attachmentCount,
    legacyUploadPaths,
    uploadRecords: records("uploads"),
    emojiRecords: records("emoji"),
    avatarRecords: records("avatars"),
    realmIconRecords: records("realm_icons"),
  };
}

export const messageFilePath = (archive: ZulipArchive, index: number) => path.join(archive.root, defined(archive.messageFiles[index], `message file ${index}`));

/** Rows of a table of a file of the export, `size` at a time, after its first `skip` rows. */
export async function* archiveBatches(file: string, table: string, size: number, skip = 0): AsyncGenerator<Row[]> {
  try {
    yield* tableBatches(file, table, size, skip);
  } catch (error) {
    if (error instanceof JsonRowsError) throw new ImportArchiveError(error.message);
    throw error;
  }
}
