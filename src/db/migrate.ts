// Runs the knex migrations compiled from `migrations/`, in the order of their full file names.
// A landed migration is never edited or renamed; two that share a timestamp (20261124210000_*)
// keep their order because the whole name decides it, byte by byte, on every machine.

import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Knex } from 'knex';
import { projectPath } from '../paths.js';
import { applySqliteSnapshot, isEmptySqlite, readSqliteSnapshot, snapshotMigrations } from './sqlite-snapshot.js';

interface MigrationModule {
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
}

/** A knex migration source over the compiled `dist/migrations` folder (ES modules). */
class CompiledMigrations implements Knex.MigrationSource<string> {
  constructor(private readonly dir: string) {}

  async getMigrations(): Promise<string[]> {
    return migrationFiles(this.dir);
  }

  getMigrationName(file: string): string {
    return file.replace(/\.js$/, '.ts');
  }

  async getMigration(file: string): Promise<MigrationModule> {
    return import(pathToFileURL(path.join(this.dir, file)).href) as Promise<MigrationModule>;
  }
}

/** The compiled migration files of `dir` in the order they run: by full file name, compared by code unit (no locale). */
export function migrationFiles(dir: string): string[] {
  return fs
    .readdirSync(dir)
    .filter((f) => /^\d{14}_.+\.js$/.test(f))
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * Applies pending migrations; returns the names applied. A database that has them all is told by
 * one query (a restart's case); an empty SQLite file starts from the schema snapshot (sqlite-snapshot.ts).
 */
export async function migrateLatest(knex: Knex): Promise<string[]> {
  const shipped = migrationFiles(projectPath('dist', 'migrations')).map((f) => f.replace(/\.js$/, '.ts'));
  // A fresh database has no knex_migrations table yet: knex's own path creates it.
  const done: string[] | null = await knex('knex_migrations')
    .pluck('name')
    .catch(() => null);
  if (done) {
    const recorded = new Set(done);
    if (shipped.every((name) => recorded.has(name))) return [];
  }
  const fromSnapshot = done === null && knex.client.config.client !== 'mysql2' ? await startFromSnapshot(knex, shipped) : [];
  const [, applied] = await runMigrations(knex);
  return [...fromSnapshot, ...(applied as string[])];
}

/** Knex's own migration run over the compiled migrations (every pending one, in order). */
export function runMigrations(knex: Knex): Promise<[number, string[]]> {
  return knex.migrate.latest({ migrationSource: new CompiledMigrations(projectPath('dist', 'migrations')) });
}

/**
 * Creates an empty SQLite file's schema from the snapshot when the snapshot's migrations are this
 * build's first ones; answers their names (none when it did not apply, and the migrations run instead).
 */
async function startFromSnapshot(knex: Knex, shipped: string[]): Promise<string[]> {
  if (!(await isEmptySqlite(knex))) return [];
  const snapshot = readSqliteSnapshot();
  const names = snapshotMigrations(snapshot);
  if (!names.length || names.some((name, i) => shipped[i] !== name)) return [];
  try {
    await applySqliteSnapshot(knex, snapshot, Date.now());
    return names;
  } catch (err) {
    // Another process created the schema first (its transaction held the file): the migrations see what it did.
    if (await isEmptySqlite(knex)) throw err;
    return [];
  }
}

/** The names of the migrations this build has that the database has not run yet (readiness). */
export async function pendingMigrations(knex: Knex): Promise<string[]> {
  const [, pending] = (await knex.migrate.list({
    migrationSource: new CompiledMigrations(projectPath('dist', 'migrations')),
  })) as [unknown[], Array<string | { file: string }>];
  return pending.map((p) => (typeof p === 'string' ? p : p.file));
}
