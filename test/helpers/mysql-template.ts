// A migrated MySQL/MariaDB schema made once per test run: the run's global setup migrates one
// database, keeps its tables' CREATE statements and the rows the migrations wrote in a file, and
// drops it; every world after that creates its database from the file in one multi-statement query
// (MariaDB's DDL makes a full migration take seconds; the statements take a fraction of that).

import crypto from 'node:crypto';
import fs from 'node:fs';
import knexFactory, { type Knex } from 'knex';
import { openDatabase } from '../../src/db/connection.js';
import { migrateLatest } from '../../src/db/migrate.js';

/** Where the run's template is kept (set by the global setup, read by every worker). */
export const TEMPLATE_ENV = 'SVC_TEST_MYSQL_TEMPLATE';

/** The statements that make a migrated database: one CREATE TABLE per table, then the rows, foreign key checks off. */
export async function writeMysqlTemplate(serverUrl: string, file: string, admin: Knex): Promise<void> {
  const name = `svc_test_tpl_${crypto.randomBytes(5).toString('hex')}`;
  await admin.raw(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const { knex } = openDatabase(url.href);
  try {
    await migrateLatest(knex);
    const [tables] = (await knex.raw('SHOW FULL TABLES WHERE Table_type = ?', ['BASE TABLE'])) as [Array<Record<string, string>>];
    const statements = ['SET FOREIGN_KEY_CHECKS = 0'];
    for (const row of tables) {
      const table = Object.values(row)[0];
      const [[created]] = (await knex.raw(`SHOW CREATE TABLE \`${table}\``)) as [Array<Record<string, string>>];
      statements.push(created['Create Table']);
      const rows = await knex(table).select('*');
      if (rows.length) statements.push(knex(table).insert(rows).toString());
    }
    statements.push('SET FOREIGN_KEY_CHECKS = 1');
    fs.writeFileSync(file, JSON.stringify(statements));
  } finally {
    await knex.destroy();
    await admin.raw(`DROP DATABASE IF EXISTS \`${name}\``);
  }
}

let statements: string[] | null | undefined;

/** The run's template statements, or null when the run made none (a file run without the global setup). */
function templateStatements(): string[] | null {
  if (statements === undefined) {
    const file = process.env[TEMPLATE_ENV];
    statements = file && fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as string[]) : null;
  }
  return statements;
}

/** Fills the empty database `url` with the migrated schema; false when there is no template (migrate instead). */
export async function fillFromTemplate(url: string): Promise<boolean> {
  const all = templateStatements();
  if (!all) return false;
  const u = new URL(url);
  const knex = knexFactory({
    client: 'mysql2',
    connection: {
      host: u.hostname,
      port: Number(u.port || 3306),
      user: decodeURIComponent(u.username),
      password: decodeURIComponent(u.password),
      database: u.pathname.slice(1),
      multipleStatements: true,
    },
    pool: { min: 0, max: 1 },
  });
  try {
    await knex.raw(all.join(';\n'));
  } finally {
    await knex.destroy();
  }
  return true;
}
