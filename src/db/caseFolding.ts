import type SqliteDatabase from "better-sqlite3";
import { foldCase } from "../util/foldCase.js";

/**
 * Replaces SQLite's lower(), which folds the 26 ASCII letters only, with foldCase(), so that every
 * case-insensitive comparison (`lower(column) = lower(?)`: channel names, emails, topics, alert
 * words) and every index on lower(…) — unique ones included — fold alike on both engines.
 *
 * Every connection to a Parley database must register it before touching those tables: a
 * connection that does not would compute index keys with the ASCII-only lower() (connect.ts's
 * openDb is the one place Parley opens SQLite; migrations, backup's VACUUM INTO and the test
 * template all use it). Migration 2026-11-28T2100 rebuilt the indexes made with the old lower().
 */
export function registerCaseFolding(sqlite: SqliteDatabase.Database): void {
  sqlite.function("lower", { deterministic: true }, (value: unknown) => {
    if (value === null || value === undefined) return null;
    return foldCase(typeof value === "string" ? value : Buffer.isBuffer(value) ? value.toString("utf8") : String(value));
  });
}
