// Which failures mean "a dependency does not answer" (the database, the creatives storage, Redis)
// rather than a bug of ours: those answer 503 `unavailable` with Retry-After on every surface, and
// jobs meeting them try again soon. Everything else stays what it was (a bug answers 500).

import { ServiceError } from '../errors.js';

/** Seconds a caller is told to wait after a dependency failed: the pool reconnects on the next request. */
export const DEPENDENCY_RETRY_AFTER_S = 5;

export type Dependency = 'database' | 'storage' | 'redis';

// Socket-level failures of mysql2 and ioredis, and the server's own "going away" answers.
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'PROTOCOL_CONNECTION_LOST',
  'PROTOCOL_SEQUENCE_TIMEOUT',
  'ER_SERVER_SHUTDOWN',
  'ER_CON_COUNT_ERROR',
  'ER_SERVER_GONE_ERROR',
  'CR_SERVER_GONE_ERROR',
  'CR_SERVER_LOST',
]);
// MariaDB/MySQL error numbers: too many connections, shutdown in progress, server gone away, lost connection, read-only (failover).
const NETWORK_ERRNOS = new Set([1040, 1053, 1290, 2002, 2003, 2006, 2013, 1927]);
// SQLite: still locked after busy_timeout, or the file cannot be read or written (disk full, I/O error, gone).
const SQLITE = /^SQLITE_(BUSY|LOCKED|IOERR|FULL|CANTOPEN|PROTOCOL|NOMEM)/;
// Filesystem failures of the creatives folder: not a bug of ours, an operator's disk.
const STORAGE_CODES = new Set(['EACCES', 'EPERM', 'EROFS', 'ENOSPC', 'EDQUOT', 'EIO', 'EMFILE', 'ENFILE', 'ENOENT', 'ENOTDIR', 'EBUSY']);

/** A failure of the creatives folder (storage.ts wraps filesystem errors in it). */
export class StorageFault extends Error {
  constructor(
    readonly operation: string,
    override readonly cause: unknown,
  ) {
    super(`creatives storage could not ${operation}: ${(cause as Error)?.message ?? String(cause)}`);
    this.name = 'StorageFault';
  }
}

/** Wraps a filesystem failure of the creatives folder so it is told apart from a bug; other errors pass as they are. */
export function storageFault(operation: string, err: unknown): unknown {
  const code = (err as { code?: string })?.code;
  return code && STORAGE_CODES.has(code) ? new StorageFault(operation, err) : err;
}

/** Which dependency `err` says does not answer, or null when it is not such a failure. */
export function failedDependency(err: unknown): Dependency | null {
  if (err instanceof StorageFault) return 'storage';
  if (!err || typeof err !== 'object') return null;
  const e = err as { name?: string; code?: unknown; errno?: unknown; fatal?: unknown; message?: unknown; command?: unknown };
  const code = typeof e.code === 'string' ? e.code : '';
  if (e.name === 'KnexTimeoutError') return 'database';
  if (SQLITE.test(code)) return 'database';
  // ioredis: the connection is closed or its retries ran out.
  if (e.name === 'MaxRetriesPerRequestError' || (typeof e.message === 'string' && /^Connection is closed\.?$/.test(e.message))) return 'redis';
  if (typeof e.command === 'string' && NETWORK_CODES.has(code)) return 'redis';
  if (NETWORK_CODES.has(code) || (typeof e.errno === 'number' && NETWORK_ERRNOS.has(e.errno) && code.startsWith('ER_'))) return 'database';
  // mysql2 marks a failure that killed the connection as fatal ("Can't add new command when connection is in closed state").
  if (e.fatal === true) return 'database';
  return null;
}

const WHAT: Record<Dependency, string> = {
  database: 'The database does not answer',
  storage: 'The creatives storage (CREATIVES_DIR) cannot be read or written',
  redis: 'Redis (REDIS_URL) does not answer',
};

/**
 * The answer for a thrown value: a dependency failure becomes 503 `unavailable` with Retry-After;
 * anything else is returned unchanged (a ServiceError as it is, a bug to be answered 500).
 */
export function classifyFault(err: unknown): unknown {
  if (err instanceof ServiceError) return err;
  const dependency = failedDependency(err);
  if (!dependency) return err;
  return new ServiceError(
    'unavailable',
    `${WHAT[dependency]}; the request could not be carried out. Retry after ${DEPENDENCY_RETRY_AFTER_S} seconds.`,
    { dependency },
    DEPENDENCY_RETRY_AFTER_S,
  );
}
