// Publish ceilings: every publish and live budget edit reserves its amount against the calling
// key's ceiling in one conditional UPDATE, so concurrent calls can never commit past it. Ceilings
// and committed totals are US cents; amounts in other currencies are converted before (money/).

import type { Knex } from 'knex';
import type { Principal } from '../auth/principal.js';
import type { ServiceContext } from '../catalogue/define.js';
import { inTransaction } from '../db/connection.js';
import { ServiceError } from '../errors.js';
import { readLedger, releaseOnLedger, reserveOnLedger, type Ledger } from '../keys/store.js';
import { formatUsdCents, type Counted, type CountedAmount } from '../money/convert.js';
import type { Commitment } from './store.js';

type Db = Knex | Knex.Transaction;

/** A credential's ceiling, in US cents (the field names predate other currencies). */
export interface CeilingView {
  limitMinorUnits: number | null;
  committedMinorUnits: number;
  remainingMinorUnits: number | null;
}

function unavailable(err: unknown): ServiceError {
  return new ServiceError('unavailable', 'The spend ceiling could not be checked; nothing was published. Retry shortly.', {
    cause: (err as Error)?.message ? 'storage' : 'unknown',
  });
}

/** Where a credential's ceiling and committed total live: its API key, its OAuth grant, or a person's membership. */
function ledgerOf(principal: Pick<Principal, 'apiKeyId' | 'grantId'> & { membershipId?: number | null }): Ledger | null {
  if (principal.apiKeyId !== null) return { kind: 'apiKey', id: principal.apiKeyId };
  if (principal.grantId !== null) return { kind: 'grant', id: principal.grantId };
  if (principal.membershipId !== undefined && principal.membershipId !== null) return { kind: 'membership', id: principal.membershipId };
  return null;
}

/** Refuses credentials that may not publish at all: a key (or approved app) without a ceiling. */
export function requireCeiling(principal: Principal): number {
  if (principal.membershipId !== undefined && principal.publishCeilingCents === null) {
    throw new ServiceError(
      'spend_ceiling_required',
      'You have no ceiling of your own for live budget changes: people get one from the bootstrap file (users[].publishCeilingDollars). Until then, pause and resume here, and let a key with a ceiling change the budget.',
      null,
    );
  }
  if (ledgerOf(principal) === null || principal.publishCeilingCents === null) {
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
    const ledger = ledgerOf(principal);
    const row = ledger ? await readLedger(db, ledger) : undefined;
    const limit = row?.ceilingCents ?? null;
    const committed = row?.committedCents ?? 0;
    return { limitMinorUnits: limit, committedMinorUnits: committed, remainingMinorUnits: limit === null ? null : Math.max(0, limit - committed) };
  } catch (err) {
    throw unavailable(err);
  }
}

/**
 * Adds `counted.totalUsdCents` to the key's committed total if that stays within its ceiling, in
 * one statement; otherwise 403 spend_ceiling_exceeded naming the ceiling, the committed amount and
 * this amount, in US dollars.
 */
export async function reserveSpend(db: Db, principal: Principal, counted: Counted): Promise<void> {
  requireCeiling(principal);
  const amount = counted.totalUsdCents;
  const ledger = ledgerOf(principal)!;
  let updated: number;
  try {
    // A key or approval revoked a moment ago may still be cached upstream: money checks the row itself.
    updated = await reserveOnLedger(db, ledger, amount);
  } catch (err) {
    throw unavailable(err);
  }
  if (updated === 1) return;
  let revoked: number | null | undefined;
  try {
    revoked = (await readLedger(db, ledger))?.revokedAt;
  } catch (err) {
    throw unavailable(err);
  }
  if (revoked !== null && revoked !== undefined) {
    throw new ServiceError('unauthenticated', 'This credential has been revoked. Nothing was published.');
  }
  const view = await ceilingOf(db, principal);
  if (view.limitMinorUnits === null) requireCeiling({ ...principal, publishCeilingCents: null });
  throw new ServiceError(
    'spend_ceiling_exceeded',
    `This call would commit ${formatUsdCents(amount)}, but the key's publish ceiling is ${formatUsdCents(view.limitMinorUnits!)} and ${formatUsdCents(view.committedMinorUnits)} is already committed. Nothing was published.`,
    { ceilingMinorUnits: view.limitMinorUnits, committedMinorUnits: view.committedMinorUnits, amountMinorUnits: amount, accounts: counted.accounts },
  );
}

/**
 * Runs a reservation transaction; a storage failure means the ceiling could not be checked (503).
 * A refusal for passing the ceiling is reported as a `spend_ceiling.exceeded` event when `report`
 * names the call (its own transaction: the reservation's rolled back).
 */
export async function reserving<T>(
  work: () => Promise<T>,
  report?: { ctx: ServiceContext<'events'> & { db: Knex }; brandId: number; operation: string },
): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (!(err instanceof ServiceError)) throw unavailable(err);
    if (report && err.code === 'spend_ceiling_exceeded') await reportCeilingRefusal(report.ctx, report.brandId, report.operation, err);
    throw err;
  }
}

async function reportCeilingRefusal(ctx: ServiceContext<'events'> & { db: Knex }, brandId: number, operation: string, err: ServiceError): Promise<void> {
  const d = err.details as { ceilingMinorUnits: number; committedMinorUnits: number; amountMinorUnits: number; accounts: CountedAmount[] };
  try {
    await inTransaction(ctx.db, (trx) =>
      ctx.events.emit(trx, {
        organizationId: ctx.principal.organizationId,
        brandId,
        type: 'spend_ceiling.exceeded',
        data: {
          brandId,
          operation,
          ceilingMinorUnits: d.ceilingMinorUnits,
          committedMinorUnits: d.committedMinorUnits,
          amountMinorUnits: d.amountMinorUnits,
          accounts: d.accounts,
          actor: ctx.principal.actorLabel.slice(0, 255),
        },
      }),
    );
  } catch (e) {
    // The refusal stands whether or not it could be reported.
    ctx.log.error({ requestId: ctx.requestId, err: e }, 'could not record the spend_ceiling.exceeded event');
  }
}

/** Who a commitment of `principal` is counted for: its API key, its OAuth grant or the person's membership. */
export function commitmentOwner(principal: Principal): Pick<Commitment, 'apiKeyId' | 'grantId' | 'membershipId'> {
  return { apiKeyId: principal.apiKeyId, grantId: principal.grantId, membershipId: principal.membershipId ?? null };
}

/** The amount of a commitment for one ad account's part: US cents counted, and the amount in the account's currency. */
export function commitmentAmount(part: CountedAmount): Pick<Commitment, 'countedUsdCents' | 'accountId' | 'currency' | 'amountMinorUnits'> {
  return { countedUsdCents: part.countedUsdCents, accountId: part.accountId, currency: part.currency, amountMinorUnits: part.amountMinorUnits };
}

/** Gives back the amount of a reserved commitment whose publish or budget edit failed. */
export async function releaseSpend(
  db: Db,
  commitment: Pick<Commitment, 'apiKeyId' | 'grantId' | 'countedUsdCents'> & { membershipId?: number | null },
): Promise<void> {
  const ledger = ledgerOf(commitment);
  if (ledger) await releaseOnLedger(db, ledger, commitment.countedUsdCents);
}
