// Prepared-statement reuse on SQLite. Knex's better-sqlite3 dialect prepares every statement afresh
// (`connection.prepare(sql)` per query); preparing is a parse and plan of the SQL text each time. The
// connection's `prepare` is wrapped with a small LRU keyed by the SQL text, so a statement run again
// (the same shape with other bindings) reuses its prepared form. Knex runs a statement to completion
// (`all` or `run`) before the next one starts on the connection, so a cached statement is never busy
// when it is handed out again; nothing Knex sets on a statement (safeIntegers only when a query asks)
// outlives the query it was set for.

/** Statements kept per connection (the most recently used). */
export const DEFAULT_STATEMENT_CACHE_SIZE = 512;

let size = DEFAULT_STATEMENT_CACHE_SIZE;

/** How many statements a new SQLite connection keeps prepared; 0 turns reuse off (measurements compare both). */
export function setStatementCacheSize(n: number): void {
  size = Math.max(0, Math.floor(n));
}

interface Preparing {
  prepare(sql: string): unknown;
}

/** Wraps `conn.prepare` with the LRU (called once per new connection). */
export function reusePreparedStatements(conn: Preparing): void {
  if (size === 0) return;
  const limit = size;
  const prepare = conn.prepare.bind(conn);
  const cache = new Map<string, unknown>();
  conn.prepare = (sql: string) => {
    let statement = cache.get(sql);
    if (statement !== undefined) {
      // Most recently used last: the Map's first key is the one to drop.
      cache.delete(sql);
    } else {
      statement = prepare(sql);
      if (cache.size >= limit) cache.delete(cache.keys().next().value as string);
    }
    cache.set(sql, statement);
    return statement;
  };
}
