// Test databases: a fresh SQLite file, and when TEST_MYSQL_URL is set a fresh MySQL/MariaDB
// database per world, created and dropped by the tests.

import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import knexFactory from 'knex';
import type { Dialect } from '../../src/db/connection.js';

export const dialectsRun = new Set<Dialect>();

/** The dialects this run covers: SQLite always, MySQL when TEST_MYSQL_URL is set. */
export function dialects(): Dialect[] {
  return process.env.TEST_MYSQL_URL ? ['sqlite', 'mysql'] : ['sqlite'];
}

export interface TestDatabase {
  url: string;
  dialect: Dialect;
  drop(): Promise<void>;
}

/** A one-connection Knex on the server of TEST_MYSQL_URL, with no database chosen (to create and drop them). */
export function mysqlAdmin(): ReturnType<typeof knexFactory> {
  const server = new URL(process.env.TEST_MYSQL_URL!);
  return knexFactory({
    client: 'mysql2',
    connection: {
      host: server.hostname,
      port: Number(server.port || 3306),
      user: decodeURIComponent(server.username),
      password: decodeURIComponent(server.password),
    },
    pool: { min: 0, max: 1 },
  });
}

export async function createTestDatabase(dialect: Dialect): Promise<TestDatabase> {
  dialectsRun.add(dialect);
  const suffix = crypto.randomBytes(5).toString('hex');
  if (dialect === 'sqlite') {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-test-'));
    return { url: `sqlite:${path.join(dir, 'svc.sqlite')}`, dialect, drop: async () => fs.rmSync(dir, { recursive: true, force: true }) };
  }
  const server = new URL(process.env.TEST_MYSQL_URL!);
  const name = `svc_test_${suffix}`;
  const admin = mysqlAdmin();
  await admin.raw(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
  await admin.destroy();
  const url = new URL(server.href);
  url.pathname = `/${name}`;
  return {
    url: url.href,
    dialect,
    drop: async () => {
      const a = mysqlAdmin();
      await a.raw(`DROP DATABASE IF EXISTS \`${name}\``);
      await a.destroy();
    },
  };
}

/**
 * A fresh database on `dialect` that holds every migration: SQLite starts from the generated
 * snapshot on its own; MySQL from the run's template (mysql-template.ts) when there is one. Callers
 * still run migrateLatest, which then finds nothing to do.
 */
export async function createMigratedTestDatabase(dialect: Dialect): Promise<TestDatabase> {
  const db = await createTestDatabase(dialect);
  if (dialect === 'mysql') {
    const { fillFromTemplate } = await import('./mysql-template.js');
    await fillFromTemplate(db.url);
  }
  return db;
}

export interface MigratedDatabase {
  /** DATABASE_URL of it, so a Service (or a child process) can open it too. */
  url: string;
  knex: import('knex').Knex;
  close(): Promise<void>;
}

/** A fresh database on `dialect`, migrated, with a Knex handle; `close` destroys the pool and drops it. */
export async function migratedDatabase(dialect: Dialect): Promise<MigratedDatabase> {
  const { openDatabase } = await import('../../src/db/connection.js');
  const { migrateLatest } = await import('../../src/db/migrate.js');
  const db = await createMigratedTestDatabase(dialect);
  const { knex } = openDatabase(db.url);
  await migrateLatest(knex);
  return {
    url: db.url,
    knex,
    close: async () => {
      await knex.destroy();
      await db.drop();
    },
  };
}
