// The activity log: every mutating operation records who changed which campaign, ad set or ad.

import type { Knex } from 'knex';
import type { Principal } from '../auth/principal.js';
import { insertActivityEntries, insertActivityEntry, type ActivityEntryRow } from './store.js';

export type EntityType = 'campaign' | 'adset' | 'ad' | 'unknown';

export interface ActivityInput {
  brandId: number;
  accountId?: string | null;
  entityType: EntityType;
  entityId: string;
  entityName?: string | null;
  action: string;
  /** A change that moves money: the amount in the ad account's currency, and what it counted against the ceiling (US cents). */
  money?: { amountMinorUnits: number; currency: string; countedUsdCents?: number | null };
}

/** Who a change of a batch is attributed to, when not the calling credential itself (an automation of the account's batch). */
export interface ActivityActor {
  userId: number;
  label: string;
}

export interface ActivityRecorder {
  /** Records one change attributed to the calling credential, through `db` when given (a transaction of the handler's own). */
  record(entry: ActivityInput, db?: Knex | Knex.Transaction): Promise<void>;
  /** Records many changes in a few statements, each attributed to its `actor` or else to the calling credential. */
  recordMany(entries: Array<ActivityInput & { actor?: ActivityActor }>, db?: Knex | Knex.Transaction): Promise<void>;
}

/** A recorder writing through `db` (the operation's transaction) as `principal`. */
export function activityRecorder(db: Knex | Knex.Transaction, principal: Principal, now: () => number): ActivityRecorder {
  const rowOf = (entry: ActivityInput, actor: ActivityActor | undefined, at: number): ActivityEntryRow => ({
    organizationId: principal.organizationId,
    brandId: entry.brandId,
    accountId: entry.accountId ?? null,
    userId: actor?.userId ?? principal.userId,
    userName: (actor?.label ?? principal.actorLabel).slice(0, 255),
    apiKeyId: principal.apiKeyId,
    entityType: entry.entityType,
    entityId: entry.entityId,
    entityName: entry.entityName?.slice(0, 255) ?? null,
    action: entry.action,
    amountMinorUnits: entry.money?.amountMinorUnits ?? null,
    currency: entry.money?.currency ?? null,
    countedUsdCents: entry.money?.countedUsdCents ?? null,
    createdAt: at,
  });
  return {
    async record(entry, through = db) {
      await insertActivityEntry(through, rowOf(entry, undefined, now()));
    },
    async recordMany(entries, through = db) {
      const at = now();
      await insertActivityEntries(
        through,
        entries.map((e) => rowOf(e, e.actor, at)),
      );
    },
  };
}
