import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import * as tar from "tar";

/**
 * Reading an export in the layout of Zulip's `manage.py export` (what `parley export` writes,
 * lib/export/): a .tar.gz (extracted into a work directory first) or a directory. Everything is
 * checked before anything is imported: the archive extracts completely, realm.json has the
 * organization's tables, the message files are numbered 1…n and each parses, and every upload
 * and emoji record has its file. Message files are read again one at a time while importing.
 */
export class ImportArchiveError extends Error {}

export type Row = Record<string, any>;
export type Tables = Record<string, Row[]>;

export interface ZulipArchive {
  root: string;
  realm: Tables;
  messageFiles: string[];
  messageCount: number;
  /** The highest id of each of Zulip's tables (messages as "zerver_message"). */
  maxIds: Record<string, number>;
  attachments: Row[];
  uploadRecords: Row[];
  emojiRecords: Row[];
}

const REQUIRED_TABLES = ["zerver_realm", "zerver_userprofile", "zerver_stream", "zerver_recipient", "zerver_subscription", "zerver_usergroup"];

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

/** Extracts a .tar.gz into `workDir`; a truncated or damaged archive is an ImportArchiveError. */
export async function extractArchive(file: string, workDir: string): Promise<void> {
  try {
    await tar.extract({ file, cwd: workDir, strict: true });
  } catch (error) {
    throw new ImportArchiveError(`${file} is not a complete .tar.gz archive: ${(error as Error).message}`);
  }
}

/** The export's directory: `dir` itself, or its one subdirectory (a tarball's top directory). */
export function exportRoot(dir: string): string {
  if (existsSync(path.join(dir, "realm.json"))) return dir;
  const entries = readdirSync(dir).filter((name) => !name.startsWith("."));
  if (entries.length === 1 && statSync(path.join(dir, entries[0])).isDirectory() && existsSync(path.join(dir, entries[0], "realm.json"))) {
    return path.join(dir, entries[0]);
  }
  throw new ImportArchiveError("the export has no realm.json: this is not a Zulip export (manage.py export / parley export)");
}

const maxId = (rows: Row[], key = "id") => rows.reduce((max, r) => Math.max(max, Number(r[key]) || 0), 0);

export function readZulipArchive(root: string): ZulipArchive {
  const realm = readJson(path.join(root, "realm.json"), "realm.json") as Tables;
  if (realm === null || typeof realm !== "object") throw new ImportArchiveError("realm.json is not an object of tables");
  for (const table of REQUIRED_TABLES) {
    if (!Array.isArray(realm[table])) throw new ImportArchiveError(`realm.json has no ${table} table`);
  }
  if (realm.zerver_realm.length !== 1)
    throw new ImportArchiveError(`realm.json must hold exactly one organization (zerver_realm has ${realm.zerver_realm.length} rows)`);

  const maxIds: Record<string, number> = {};
  for (const [table, rows] of Object.entries(realm)) if (Array.isArray(rows)) maxIds[table] = maxId(rows);
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
  for (const name of messageFiles) {
    const data = readJson(path.join(root, name), name);
    if (!Array.isArray(data?.zerver_message) || !Array.isArray(data?.zerver_usermessage))
      throw new ImportArchiveError(`${name} lacks zerver_message or zerver_usermessage`);
    messageCount += data.zerver_message.length;
    maxMessageId = Math.max(maxMessageId, maxId(data.zerver_message));
  }
  maxIds.zerver_message = maxMessageId;

  const attachmentFile = path.join(root, "attachment.json");
  const attachments: Row[] = existsSync(attachmentFile) ? (readJson(attachmentFile, "attachment.json").zerver_attachment ?? []) : [];
  if (!Array.isArray(attachments)) throw new ImportArchiveError("attachment.json has no zerver_attachment table");
  maxIds.zerver_attachment = maxId(attachments);

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
  return { root, realm, messageFiles, messageCount, maxIds, attachments, uploadRecords: records("uploads"), emojiRecords: records("emoji") };
}

export function readMessageFile(archive: ZulipArchive, index: number): { zerver_message: Row[]; zerver_usermessage: Row[] } {
  return readJson(path.join(archive.root, archive.messageFiles[index]), archive.messageFiles[index]);
}
