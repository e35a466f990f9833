// The schema snapshot a fresh SQLite file starts from (src/db/sqlite-schema.generated.json, see
// src/db/sqlite-snapshot.ts): a fresh file migrated by the migrations themselves, dumped.
// test/integration/sqlite-snapshot.test.ts checks it for drift.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Knex } from 'knex';
import { openDatabase } from '../src/db/connection.js';
import { runMigrations } from '../src/db/migrate.js';
import { MIGRATION_TIME, type SqliteSnapshot } from '../src/db/sqlite-snapshot.js';

export { SQLITE_SNAPSHOT_FILE } from '../src/db/sqlite-snapshot.js';

const KIND_ORDER = ['table', 'index', 'view', 'trigger'];

/** Everything a file holds: its sqlite_master entries (by creation), and every table's rows, values set between `from` and `to` (ms) written as the migration's time. */
export async function sqliteContents(
  knex: Knex,
  from: number,
  to: number,
): Promise<{ master: Array<Record<string, string | null>>; rows: SqliteSnapshot['rows'] }> {
  const master = (await knex('sqlite_master').select('type', 'name', 'tbl_name', 'sql').orderBy('rowid')) as Array<Record<string, string | null>>;
  const rows: SqliteSnapshot['rows'] = {};
  const tables = master.filter((m) => m.type === 'table').map((m) => m.name!);
  // sqlite_sequence last: inserting the other rows writes it.
  for (const table of [...tables.filter((t) => t !== 'sqlite_sequence'), ...tables.filter((t) => t === 'sqlite_sequence')]) {
    const found = (await knex(table).select('*').orderBy('rowid')) as Array<Record<string, string | number | null>>;
    if (found.length)
      rows[table] = found.map((row) =>
        Object.fromEntries(Object.entries(row).map(([k, v]) => [k, typeof v === 'number' && v >= from && v <= to ? MIGRATION_TIME : v])),
      );
  }
  return { master, rows };
}

/** A fresh SQLite file migrated by the migrations themselves; `look` reads it (with the time window of the run) before it is deleted. */
export async function migratedSqlite<T>(
  look: (knex: Knex, from: number, to: number) => Promise<T>,
  migrate: (knex: Knex) => Promise<unknown> = runMigrations,
): Promise<T> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-snapshot-'));
  const { knex } = openDatabase(`sqlite:${path.join(dir, 'svc.sqlite')}`);
  try {
    const from = Date.now();
    await migrate(knex);
    const to = Date.now();
    return await look(knex, from, to);
  } finally {
    await knex.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The file's text: the schema's CREATE statements (tables first) and the rows, as JSON. */
export async function renderSqliteSnapshot(): Promise<string> {
  const { master, rows } = await migratedSqlite(sqliteContents);
  const schema = master
    // sqlite_sequence comes with the first AUTOINCREMENT table, and indexes of constraints with their table.
    .filter((m) => m.sql !== null && m.name !== 'sqlite_sequence')
    .map((m) => ({ type: m.type!, name: m.name!, sql: m.sql! }))
    .sort((a, b) => KIND_ORDER.indexOf(a.type) - KIND_ORDER.indexOf(b.type));
  const snapshot: SqliteSnapshot = { schema, rows };
  return JSON.stringify(snapshot, null, 1) + '\n';
}
