// Opens the Knex connection named by DATABASE_URL: `sqlite:PATH` (embedded) or `mysql://...`.

import fs from 'node:fs';
import path from 'node:path';
import knexFactory, { type Knex } from 'knex';
import { SqliteClient } from './sqlite-client.js';
import { reusePreparedStatements } from './statement-cache.js';
import { inSpan } from '../observability/tracing.js';

export type Dialect = 'sqlite' | 'mysql';

export interface Database {
  knex: Knex;
  dialect: Dialect;
}

/**
 * Knex's log: a failed connection is the caller's error to report (svc-server says it in one
 * sentence, requests answer 503), so knex's own copy of it, stack and all, is left out.
 */
const knexLog = {
  warn(message: unknown): void {
    if (typeof message === 'string' && message.startsWith('Acquire connection error')) return;
    console.warn(message);
  },
};

/** Parses a DATABASE_URL into Knex settings; throws a message naming the accepted forms otherwise. */
export function knexConfigFor(url: string): { config: Knex.Config; dialect: Dialect } {
  if (url.startsWith('sqlite:')) {
    const file = url.slice('sqlite:'.length);
    if (!file) throw new Error('DATABASE_URL sqlite:PATH needs a file path, e.g. sqlite:./data/svc.sqlite');
    return {
      dialect: 'sqlite',
      config: {
        // Knex's better-sqlite3 client, multi-row inserts compiled as one VALUES list (src/db/sqlite-client.ts).
        client: SqliteClient as unknown as typeof Knex.Client,
        connection: { filename: file },
        useNullAsDefault: true,
        log: knexLog,
        pool: {
          min: 1,
          max: 1,
          afterCreate(conn: { pragma(s: string): unknown; prepare(sql: string): unknown }, done: (err: Error | null, conn: unknown) => void) {
            // WAL lets several processes read while one writes; busy_timeout waits instead of failing.
            conn.pragma('journal_mode = WAL');
            conn.pragma('busy_timeout = 5000');
            conn.pragma('foreign_keys = ON');
            reusePreparedStatements(conn);
            done(null, conn);
          },
        },
      },
    };
  }
  if (url.startsWith('mysql://') || url.startsWith('mariadb://')) {
    const u = new URL(url.replace(/^mariadb:/, 'mysql:'));
    return {
      dialect: 'mysql',
      config: {
        client: 'mysql2',
        connection: {
          host: u.hostname,
          port: u.port ? Number(u.port) : 3306,
          user: decodeURIComponent(u.username),
          password: decodeURIComponent(u.password),
          database: u.pathname.replace(/^\//, ''),
          supportBigNumbers: true,
          decimalNumbers: true,
          charset: 'utf8mb4',
          timezone: 'Z',
          // Prepared statements (src/db/prepared.ts) kept per connection; the server caps them all together (max_prepared_stmt_count).
          maxPreparedStatements: 128,
        },
        pool: { min: 0, max: 10 },
        log: knexLog,
      },
    };
  }
  throw new Error(`DATABASE_URL must be sqlite:PATH or mysql://user:pass@host:port/db; got "${url}"`);
}

/** The folder the default DATABASE_URL (sqlite:./data/svc.sqlite) keeps its file in: the one folder made when missing. */
const defaultFolder = () => path.resolve('data');

/**
 * What is wrong with a SQLite DATABASE_URL whose folder does not exist, in one sentence, or null.
 * Only the default ./data folder is made; any other missing folder is a mistyped path, refused
 * rather than created wherever it points.
 */
export function sqliteFolderProblem(url: string): string | null {
  if (!url.startsWith('sqlite:')) return null;
  const file = url.slice('sqlite:'.length);
  if (!file || file === ':memory:') return null;
  const folder = path.dirname(path.resolve(file));
  if (folder === defaultFolder() || fs.existsSync(folder)) return null;
  return `DATABASE_URL names the SQLite file ${file}, whose folder ${folder} does not exist: create it (mkdir -p ${folder}) or point DATABASE_URL at a file in an existing folder`;
}

/**
 * Opens the database; the default ./data folder is made when missing (any other folder must exist).
 * A new SQLite file is made readable by this user alone (0600; SQLite gives its -wal and -shm files
 * the same mode): it holds the deployment's secrets (the secret box and cursor keys, the OAuth
 * signing keys, sealed tokens).
 */
export function openDatabase(url: string): Database {
  const { config, dialect } = knexConfigFor(url);
  if (dialect === 'sqlite') {
    const file = (config.connection as { filename: string }).filename;
    if (file !== ':memory:') {
      if (path.dirname(path.resolve(file)) === defaultFolder()) fs.mkdirSync(defaultFolder(), { recursive: true, mode: 0o700 });
      createPrivately(file);
    }
  }
  return { knex: knexFactory(config), dialect };
}

/** Creates an empty file with mode 0600 unless it exists (an empty file is an empty SQLite database). */
function createPrivately(file: string): void {
  try {
    fs.closeSync(fs.openSync(file, 'wx', 0o600));
  } catch (err) {
    // EEXIST: the file is there (its mode is the operator's); anything else is for SQLite to report when it opens it.
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return;
  }
}

const RETRYABLE_MYSQL = new Set([1213, 1205]);

function isRetryable(err: unknown): boolean {
  const e = err as { errno?: number; code?: string };
  // SQLITE_BUSY_SNAPSHOT: a transaction that read before another process wrote cannot write (busy_timeout does not wait for it); a repeat reads afresh.
  return (e?.errno !== undefined && RETRYABLE_MYSQL.has(e.errno)) || e?.code === 'SQLITE_BUSY' || e?.code === 'SQLITE_BUSY_SNAPSHOT';
}

/**
 * Runs `work` again when the database gave up on it for a reason that passes: deadlock (1213),
 * lock-wait timeout (1205) or a busy SQLite file. `work` is one statement or a whole transaction,
 * so a repeat starts from nothing: the database already rolled the failed try back.
 */
export async function retrying<T>(work: () => Promise<T>, attempts = 4): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (err) {
      if (attempt >= attempts || !isRetryable(err)) throw err;
      await new Promise((r) => setTimeout(r, 10 * attempt + Math.random() * 20));
    }
  }
}

/**
 * Runs `work` in one transaction, retrying the whole transaction on deadlock (1213),
 * lock-wait timeout (1205) or a busy SQLite file.
 */
export function inTransaction<T>(db: Knex, work: (trx: Knex.Transaction) => Promise<T>, attempts = 4): Promise<T> {
  return inSpan('db transaction', {}, () => retrying(() => db.transaction(work), attempts));
}

/** True when a write failed on a unique index, on either dialect. */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; errno?: number };
  return e?.code === 'ER_DUP_ENTRY' || e?.errno === 1062 || e?.code === 'SQLITE_CONSTRAINT_UNIQUE' || e?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/** Resolves when the database answers a `select 1` (the health check); rejects with its error otherwise. */
export async function pingDatabase(knex: Knex): Promise<void> {
  await knex.raw('select 1');
}
