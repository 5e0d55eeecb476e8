import { execFile, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { databaseFiles, databaseIsEmpty, dumpDatabase, loadDatabase } from "../db/backup.js";
import { checkReachable, openDb } from "../db/connect.js";
import { appliedMigrations } from "../db/migrate.js";
import { FIRST_START_PASSWORD_FILE } from "../server.js";
import { type Command, CliError, print, usageError } from "./command.js";
import { attachmentStore } from "../store/attachments.js";

/**
 * `parley backup FILE` and `parley restore FILE`. A backup is a .tar.gz of: manifest.json (format,
 * engine, migrations), a consistent copy of the database (see src/db/backup.ts), and `data/`, the
 * data directory's files (uploads, custom emoji, the server secret, the email outbox) without the
 * database's own files and temporary uploads. With uploads in a bucket, `uploads-in-bucket.txt`
 * lists their keys instead (the bucket is backed up with the bucket's own tools). Made while the
 * server runs: the database copy first, then the files, so every attachment in the copy has its
 * file. Restored only into an empty data directory and database.
 */
const run = promisify(execFile);
const FORMAT = "parley-backup";

/** Data directory entries never copied: temporary and half-received uploads, one-time files. */
const SKIPPED = ["uploads/tmp", "uploads/tus", FIRST_START_PASSWORD_FILE];

export const backupCommand: Command = {
  name: "backup",
  summary: "Back up the database and the data directory into FILE (.tar.gz), also while the server runs.",
  positionals: "FILE",
  options: {},
  async run(config, args) {
    const file = path.resolve(onlyFile(args.positionals, "backup"));
    if (fs.existsSync(file)) throw new CliError(`${file} exists already: choose a new file name`);
    const staging = fs.mkdtempSync(path.join(os.tmpdir(), "parley-backup-"));
    const db = openDb(config.database, { connectTimeoutSeconds: config.databaseTimeoutSeconds });
    try {
      await checkReachable(db, config.database, config.databaseTimeoutSeconds);
      const migrations = await appliedMigrations(db.kysely);
      if (migrations.length === 0) throw new CliError("the database is empty: there is nothing to back up");
      const databaseFile = await dumpDatabase(config.database, db, staging);
      const skip = new Set([...databaseFiles(config.database), ...SKIPPED.map((p) => path.join(config.dataDir, p))]);
      const dataDir = path.join(staging, "data");
      let files = 0;
      if (fs.existsSync(config.dataDir)) {
        fs.cpSync(config.dataDir, dataDir, {
          recursive: true,
          filter: (source) => {
            if (skip.has(source) || path.basename(source).startsWith(".write-test-")) return false;
            if (fs.statSync(source).isFile()) files += 1;
            return true;
          },
        });
      }
      if (config.uploads.s3) {
        const keys = await attachmentStore.listPathIds(db.kysely);
        fs.writeFileSync(path.join(staging, "uploads-in-bucket.txt"), keys.join("\n") + "\n");
      }
      const manifest = {
        format: FORMAT,
        version: 1,
        engine: db.dialect.name,
        databaseFile,
        migrations,
        createdAt: new Date().toISOString(),
        uploadsBucket: config.uploads.s3?.bucket ?? null,
      };
      fs.writeFileSync(path.join(staging, "manifest.json"), JSON.stringify(manifest, null, 2) + "\n");
      await writeArchive(`${file}.partial`, staging);
      fs.renameSync(`${file}.partial`, file);
      print(`Backed up the ${manifest.engine} database (${migrations.length} migrations) and ${files} files of ${config.dataDir} to ${file}`);
      if (config.uploads.s3)
        print(`Uploads are in the bucket ${config.uploads.s3.bucket}: back it up with the bucket's tools (their keys are in uploads-in-bucket.txt).`);
      return 0;
    } finally {
      await db.close();
      fs.rmSync(staging, { recursive: true, force: true });
      fs.rmSync(`${file}.partial`, { force: true });
    }
  },
};

export const restoreCommand: Command = {
  name: "restore",
  summary: "Restore a backup made by `parley backup` into an empty data directory and database.",
  positionals: "FILE",
  options: {},
  async run(config, args) {
    const file = path.resolve(onlyFile(args.positionals, "restore"));
    if (!fs.existsSync(file)) throw new CliError(`no such file: ${file}`);
    const leftovers = fs.existsSync(config.dataDir) ? fs.readdirSync(config.dataDir).filter((name) => !name.startsWith(".write-test-")) : [];
    if (leftovers.length > 0)
      throw new CliError(`the data directory ${config.dataDir} is not empty (${leftovers.slice(0, 5).join(", ")}): restore into a new, empty one`);
    const open = () => openDb(config.database, { connectTimeoutSeconds: config.databaseTimeoutSeconds });
    if (!(await databaseIsEmpty(config.database, open, config.databaseTimeoutSeconds)))
      throw new CliError("the configured database is not empty: restore into a new, empty database");

    const staging = fs.mkdtempSync(path.join(os.tmpdir(), "parley-restore-"));
    try {
      await runTar(["-xzf", file, "-C", staging]);
      let manifest: { format?: string; engine?: string; migrations?: string[]; createdAt?: string };
      try {
        manifest = JSON.parse(fs.readFileSync(path.join(staging, "manifest.json"), "utf8"));
      } catch {
        manifest = {};
      }
      if (manifest.format !== FORMAT) throw new CliError(`${file} is not a backup made by \`parley backup\``);
      await loadDatabase(config.database, staging).catch((error: Error) => {
        throw new CliError(error.message);
      });
      fs.mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
      if (fs.existsSync(path.join(staging, "data")))
        fs.cpSync(path.join(staging, "data"), config.dataDir, { recursive: true, force: false, errorOnExist: false });
      print(
        `Restored the backup of ${manifest.createdAt} (${manifest.engine} database, ${manifest.migrations?.length ?? 0} migrations) into ${config.dataDir}.`,
      );
      print("Start the server: it applies the migrations of this version if the backup is from an older one.");
      return 0;
    } finally {
      fs.rmSync(staging, { recursive: true, force: true });
    }
  },
};

function onlyFile(positionals: string[], command: string): string {
  const [file] = positionals;
  if (positionals.length !== 1 || file === undefined) throw usageError(`usage: parley ${command} FILE`);
  return file;
}

/**
 * The archive holds password hashes, API keys and every private message: created readable by
 * this user only (tar writes it to a descriptor opened with mode 0600, never a file of its own).
 */
async function writeArchive(file: string, dir: string): Promise<void> {
  fs.rmSync(file, { force: true }); // left by a backup that was killed
  const fd = fs.openSync(file, "wx", 0o600);
  try {
    const tar = spawn("tar", ["-czf", "-", "-C", dir, "."], { stdio: ["ignore", fd, "pipe"] });
    let stderr = "";
    tar.stderr!.on("data", (chunk) => (stderr += chunk));
    const code = await new Promise<number | null>((resolve, reject) => {
      tar.once("error", reject);
      tar.once("close", resolve);
    }).catch((error: NodeJS.ErrnoException) => {
      throw new CliError(error.code === "ENOENT" ? "tar is not installed: it is needed for backups" : `tar failed: ${error.message}`);
    });
    if (code !== 0) throw new CliError(`tar failed: ${stderr.trim() || `exit code ${code}`}`);
  } finally {
    fs.closeSync(fd);
  }
}

async function runTar(args: string[]): Promise<void> {
  try {
    await run("tar", args, { maxBuffer: 16 * 1024 * 1024 });
  } catch (error) {
    const e = error as NodeJS.ErrnoException & { stderr?: string };
    throw new CliError(e.code === "ENOENT" ? "tar is not installed: it is needed for backups" : `tar failed: ${(e.stderr ?? e.message).trim()}`);
  }
}
