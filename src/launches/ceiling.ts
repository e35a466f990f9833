// Publish ceilings: every publish and live budget edit reserves its amount against the calling
// key's ceiling in one conditional UPDATE, so concurrent calls can never commit past it.

import type { Knex } from 'knex';
import type { Principal } from '../auth/principal.js';
import { ServiceError } from '../errors.js';

type Db = Knex | Knex.Transaction;

export interface CeilingView {
  limitMinorUnits: number | null;
  committedMinorUnits: number;
  remainingMinorUnits: number | null;
}

const dollars = (cents: number) => `$${(cents / 100).toFixed(2)}`;

function unavailable(err: unknown): ServiceError {
  return new ServiceError('unavailable', 'The spend ceiling could not be checked; nothing was published. Retry shortly.', { cause: (err as Error)?.message ? 'storage' : 'unknown' });
}

/** Refuses credentials that may not publish at all: no key (yet), or a key without a ceiling. */
export function requireCeiling(principal: Principal): number {
  if (principal.apiKeyId === null || principal.publishCeilingCents === null) {
    throw new ServiceError(
      'spend_ceiling_required',
      'This credential has no publish ceiling. An organization owner or admin must set one (the most it may ever put live, in dollars) before it can publish.',
      null,
    );
  }
  return principal.publishCeilingCents;
}

/** The ceiling and what the key has committed, read fresh. */
export async function ceilingOf(db: Db, principal: Principal): Promise<CeilingView> {
  try {
    const row = await db('api_keys').where({ id: principal.apiKeyId }).first('publish_ceiling_cents', 'committed_cents');
    const limit = row?.publish_ceiling_cents === null || row === undefined ? null : Number(row.publish_ceiling_cents);
    const committed = Number(row?.committed_cents ?? 0);
    return { limitMinorUnits: limit, committedMinorUnits: committed, remainingMinorUnits: limit === null ? null : Math.max(0, limit - committed) };
  } catch (err) {
    throw unavailable(err);
  }
}

/**
 * Adds `amount` to the key's committed total if that stays within its ceiling, in one statement;
 * otherwise 403 spend_ceiling_exceeded naming the ceiling, the committed amount and this amount.
 */
export async function reserveSpend(db: Db, principal: Principal, amount: number): Promise<void> {
  requireCeiling(principal);
  let updated: number;
  try {
    updated = await db('api_keys')
      .where('id', principal.apiKeyId!)
      .whereNotNull('publish_ceiling_cents')
      .whereRaw('committed_cents + ? <= publish_ceiling_cents', [amount])
      .increment('committed_cents', amount);
  } catch (err) {
    throw unavailable(err);
  }
  if (updated === 1) return;
  const view = await ceilingOf(db, principal);
  if (view.limitMinorUnits === null) requireCeiling({ ...principal, publishCeilingCents: null });
  throw new ServiceError(
    'spend_ceiling_exceeded',
    `This call would commit ${dollars(amount)}, but the key's publish ceiling is ${dollars(view.limitMinorUnits!)} and ${dollars(view.committedMinorUnits)} is already committed. Nothing was published.`,
    { ceilingMinorUnits: view.limitMinorUnits, committedMinorUnits: view.committedMinorUnits, amountMinorUnits: amount },
  );
}

/** Gives back a reservation whose publish failed. */
export async function releaseSpend(db: Db, apiKeyId: number, amount: number): Promise<void> {
  await db('api_keys').where('id', apiKeyId).decrement('committed_cents', amount);
}
