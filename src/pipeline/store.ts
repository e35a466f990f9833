// The pipeline's table, `idempotency_records`: one row per Idempotency-Key of a credential and
// operation (scope hash), running under a lease or done with its stored answer. The only file that
// queries it; idempotency.ts holds the rules.

import type { Knex } from 'knex';

type Db = Knex | Knex.Transaction;

export interface IdempotencyRecord {
  id: number;
  fingerprint: string;
  state: 'running' | 'done';
  leaseExpiresAt: number;
  expiresAt: number;
  statusCode: number | null;
  responseBody: string | null;
}

/** Inserts a running record; answers its id. Throws a unique violation when the scope hash is taken. */
export async function insertRecord(
  db: Db,
  r: { organizationId: number; scopeHash: string; fingerprint: string; leaseExpiresAt: number; createdAt: number; expiresAt: number },
): Promise<number> {
  const [id] = await db('idempotency_records').insert({
    organization_id: r.organizationId,
    scope_hash: r.scopeHash,
    fingerprint: r.fingerprint,
    state: 'running',
    lease_expires_at: r.leaseExpiresAt,
    created_at: r.createdAt,
    expires_at: r.expiresAt,
  });
  return Number(id);
}

/** The organization's record of `scopeHash`, or undefined. */
export async function findRecord(db: Db, organizationId: number, scopeHash: string): Promise<IdempotencyRecord | undefined> {
  const row = await db('idempotency_records').where({ organization_id: organizationId, scope_hash: scopeHash }).first();
  if (!row) return undefined;
  return {
    id: Number(row.id),
    fingerprint: row.fingerprint,
    state: row.state,
    leaseExpiresAt: Number(row.lease_expires_at),
    expiresAt: Number(row.expires_at),
    statusCode: row.status_code === null || row.status_code === undefined ? null : Number(row.status_code),
    responseBody: row.response_body ?? null,
  };
}

/** Deletes record `id` if it still expires at `expiresAt` (the one seen expired). */
export async function deleteExpiredRecord(db: Db, id: number, expiresAt: number): Promise<void> {
  await db('idempotency_records').where({ id, expires_at: expiresAt }).delete();
}

/** Moves a running record's lease from `from` to `to` in one statement; answers whether it did (1) or another holder moved it first (0). */
export async function moveLease(db: Db, id: number, from: number, to: number): Promise<number> {
  return db('idempotency_records').where({ id, state: 'running', lease_expires_at: from }).update({ lease_expires_at: to });
}

/** Marks the record done with its answer. */
export async function completeRecord(db: Db, id: number, status: number, body: string): Promise<void> {
  await db('idempotency_records').where({ id }).update({ state: 'done', status_code: status, response_body: body });
}

/** Deletes a running record still under the lease ending at `leaseExpiresAt`. */
export async function deleteRunningRecord(db: Db, id: number, leaseExpiresAt: number): Promise<void> {
  await db('idempotency_records').where({ id, state: 'running', lease_expires_at: leaseExpiresAt }).delete();
}

/** Deletes up to `batch` records expired by `now`; answers how many went. */
export async function deleteExpiredRecords(db: Db, now: number, batch: number): Promise<number> {
  const ids = await db('idempotency_records').where('expires_at', '<=', now).limit(batch).pluck('id');
  if (ids.length === 0) return 0;
  return db('idempotency_records').whereIn('id', ids).delete();
}
