// The keys area's tables (API keys, and the OAuth grants that act as keys for approved apps). This
// phase holds only the spend ledger every publish reserves on: a credential's publish ceiling and
// committed total (US cents). The rest of the area's queries are still in src/account/ and src/auth/.

import type { Knex } from 'knex';

type Db = Knex | Knex.Transaction;

/** Where a credential's ceiling and committed total live: its API key, or its OAuth grant. */
export interface Ledger {
  kind: 'apiKey' | 'grant';
  id: number;
}

const TABLE = { apiKey: 'api_keys', grant: 'oauth_grants' } as const;

/** The ledger's ceiling (null: none set) and committed total, or undefined when the row is gone. */
export async function readLedger(
  db: Db,
  ledger: Ledger,
): Promise<{ ceilingCents: number | null; committedCents: number; revokedAt: number | null } | undefined> {
  const row = await db(TABLE[ledger.kind]).where({ id: ledger.id }).first('publish_ceiling_cents', 'committed_cents', 'revoked_at');
  if (!row) return undefined;
  return {
    ceilingCents: row.publish_ceiling_cents === null ? null : Number(row.publish_ceiling_cents),
    committedCents: Number(row.committed_cents ?? 0),
    revokedAt: row.revoked_at === null || row.revoked_at === undefined ? null : Number(row.revoked_at),
  };
}

/**
 * Adds `cents` to the committed total if that stays within the ceiling of a credential that is not
 * revoked, in one statement: 1 when it did, 0 when it did not.
 */
export async function reserveOnLedger(db: Db, ledger: Ledger, cents: number): Promise<number> {
  return db(TABLE[ledger.kind])
    .where('id', ledger.id)
    .whereNull('revoked_at')
    .whereNotNull('publish_ceiling_cents')
    .whereRaw('committed_cents + ? <= publish_ceiling_cents', [cents])
    .increment('committed_cents', cents);
}

/** Gives `cents` back to the committed total (a reserved amount whose publish or budget edit failed). */
export async function releaseOnLedger(db: Db, ledger: Ledger, cents: number): Promise<void> {
  await db(TABLE[ledger.kind]).where('id', ledger.id).decrement('committed_cents', cents);
}

/** The user who created API key `id` (null: none recorded, or the key is gone). */
export async function apiKeyCreator(db: Db, id: number): Promise<number | null> {
  const row = await db('api_keys').where({ id }).first('created_by_user_id');
  return row?.created_by_user_id ? Number(row.created_by_user_id) : null;
}
