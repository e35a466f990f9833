// A fresh SQLite file starts from a snapshot of the migrated schema (src/db/sqlite-schema.generated.json,
// written by `npm run generate`) instead of running every migration: knex rebuilds SQLite tables to
// alter them, which cost about 200 ms of CPU at a first start. The snapshot is what the migrations
// leave in a fresh file: its sqlite_master entries in creation order, the rows they insert
// (knex_migrations and its lock among them) and sqlite_sequence. It is applied in one transaction,
// only to a file with no table yet; migrations newer than the snapshot then run as usual, and MySQL
// always runs the migrations themselves. test/integration/sqlite-snapshot.test.ts checks it for drift.

import fs from 'node:fs';
import type { Knex } from 'knex';
import { projectPath } from '../paths.js';

export const SQLITE_SNAPSHOT_FILE = projectPath('src', 'db', 'sqlite-schema.generated.json');

/** A value the migrations set to the time they ran: written so, and given the time of applying. */
export const MIGRATION_TIME = { time: 'of the migration' } as const;

type Value = string | number | null | typeof MIGRATION_TIME;

export interface SqliteSnapshot {
  /** CREATE statements of sqlite_master, tables first, each kind in creation order. */
  schema: Array<{ type: string; name: string; sql: string }>;
  /** The rows of every table that has some, sqlite_sequence last. */
  rows: Record<string, Array<Record<string, Value>>>;
}

/** The migrations the snapshot holds, in order. */
export function snapshotMigrations(snapshot: SqliteSnapshot): string[] {
  return (snapshot.rows.knex_migrations ?? []).map((r) => String(r.name));
}

export function readSqliteSnapshot(): SqliteSnapshot {
  return JSON.parse(fs.readFileSync(SQLITE_SNAPSHOT_FILE, 'utf8')) as SqliteSnapshot;
}

/** True when the file has no table yet (nothing to keep, nothing migrated). */
export async function isEmptySqlite(knex: Knex): Promise<boolean> {
  const row = await knex('sqlite_master').where('type', 'table').count({ n: '*' }).first();
  return Number(row?.n ?? 0) === 0;
}

/** Creates the snapshot's schema and rows in an empty file, in one transaction. */
export async function applySqliteSnapshot(knex: Knex, snapshot: SqliteSnapshot, now: number): Promise<void> {
  await knex.transaction(async (trx) => {
    for (const entry of snapshot.schema) await trx.raw(entry.sql);
    for (const [table, rows] of Object.entries(snapshot.rows)) {
      // Inserting into an AUTOINCREMENT table writes its sqlite_sequence row: the snapshot's replace them.
      if (table === 'sqlite_sequence') await trx('sqlite_sequence').del();
      const values = rows.map((row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, typeof v === 'object' && v !== null ? now : v])));
      for (let i = 0; i < values.length; i += 100) await trx(table).insert(values.slice(i, i + 100));
    }
  });
}
