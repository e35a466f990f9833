// Statements of the hot paths (the queue's claim and finish, the webhook attempts' record) sent as
// fixed SQL text without Knex's builder: on SQLite through the connection's prepared statement
// (statement-cache.ts keeps it by its text), on MySQL as a server-side prepared statement (mysql2's
// `execute`, cached per connection). Building a statement with Knex cost more CPU than running it;
// here a statement is parsed and planned once per connection and then only run. Lists are padded to
// a power of two (`inList`, `chunksOfPowersOfTwo`) so a statement has a handful of texts, not one per
// length: MySQL caps prepared statements per server (max_prepared_stmt_count).

import type { Knex } from 'knex';

type Db = Knex | Knex.Transaction;

export interface PreparedResult {
  /** The rows a SELECT answered (empty for a write). */
  rows: Array<Record<string, any>>;
  /** Rows a write changed (0 for a SELECT). */
  changes: number;
}

interface SqliteStatement {
  reader: boolean;
  all(...params: unknown[]): Array<Record<string, any>>;
  run(...params: unknown[]): { changes: number };
}

interface MysqlConnection {
  execute(sql: string, params: unknown[], callback: (err: Error | null, result: unknown) => void): void;
}

/** What a listener hears of each prepared statement: its text and Knex's id of the transaction it runs in (if any), before and after it runs. */
export interface PreparedListener {
  before?(sql: string, txId: string | undefined): void;
  after?(sql: string, ms: number, txId: string | undefined): void;
}

/** Hear every prepared statement run (the benchmarks' probes count them by stage); usually none. */
const listeners = new Set<PreparedListener>();

/** Tells `listener` of each prepared statement from now on; answers the function that stops it. */
export function observePrepared(listener: PreparedListener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/**
 * Runs `sql` (placeholders `?`, no other literal that varies) with `params` on `db`'s connection:
 * the transaction's when `db` is one, else one from the pool for this statement alone.
 */
export async function prepared(db: Db, sql: string, params: unknown[]): Promise<PreparedResult> {
  const client = db.client as { dialect: string; acquireConnection(): Promise<unknown>; releaseConnection(conn: unknown): Promise<void> };
  const conn = await client.acquireConnection();
  const heard = listeners.size > 0;
  const at = heard ? performance.now() : 0;
  const txId = (conn as { __knexTxId?: string }).__knexTxId;
  if (heard) for (const l of listeners) l.before?.(sql, txId);
  try {
    if (client.dialect === 'mysql') return await execute(conn as MysqlConnection, sql, params);
    // better-sqlite3 runs the statement to its end before answering; nothing else uses the connection meanwhile.
    const statement = (conn as { prepare(sql: string): SqliteStatement }).prepare(sql);
    return statement.reader ? { rows: statement.all(...params), changes: 0 } : { rows: [], changes: statement.run(...params).changes };
  } finally {
    if (heard) for (const l of listeners) l.after?.(sql, performance.now() - at, txId);
    await client.releaseConnection(conn);
  }
}

function execute(conn: MysqlConnection, sql: string, params: unknown[]): Promise<PreparedResult> {
  return new Promise((resolve, reject) =>
    conn.execute(sql, params, (err, result) => {
      if (err) return reject(err);
      if (Array.isArray(result)) resolve({ rows: result as Array<Record<string, any>>, changes: 0 });
      else resolve({ rows: [], changes: Number((result as { affectedRows?: number }).affectedRows ?? 0) });
    }),
  );
}

/** The smallest power of two at least `n` (1 for 0). */
function bucket(n: number): number {
  let size = 1;
  while (size < n) size *= 2;
  return size;
}

/**
 * `values` padded to a power of two by repeating the last one, with its placeholders: for `x in (...)`,
 * where a repeat changes nothing. `values` must not be empty.
 */
export function inList<T>(values: T[]): { marks: string; params: T[] } {
  const size = bucket(values.length);
  const params = values.slice();
  while (params.length < size) params.push(values[values.length - 1]);
  return { marks: params.map(() => '?').join(', '), params };
}

/** `rows` cut into parts whose sizes are powers of two, largest first, none above `max` (a power of two). */
export function chunksOfPowersOfTwo<T>(rows: T[], max: number): T[][] {
  const out: T[][] = [];
  let at = 0;
  while (at < rows.length) {
    let size = max;
    while (size > rows.length - at) size /= 2;
    out.push(rows.slice(at, at + size));
    at += size;
  }
  return out;
}
