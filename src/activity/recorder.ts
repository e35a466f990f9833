// The activity log: every mutating operation records who changed which campaign, ad set or ad.

import type { Knex } from 'knex';
import type { Principal } from '../auth/principal.js';
import { insertActivityEntry } from './store.js';

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

export interface ActivityRecorder {
  /** Records one change attributed to the calling credential, through `db` when given (a transaction of the handler's own). */
  record(entry: ActivityInput, db?: Knex | Knex.Transaction): Promise<void>;
}

/** A recorder writing through `db` (the operation's transaction) as `principal`. */
export function activityRecorder(db: Knex | Knex.Transaction, principal: Principal, now: () => number): ActivityRecorder {
  return {
    async record(entry, through = db) {
      await insertActivityEntry(through, {
        organizationId: principal.organizationId,
        brandId: entry.brandId,
        accountId: entry.accountId ?? null,
        userId: principal.userId,
        userName: principal.actorLabel.slice(0, 255),
        apiKeyId: principal.apiKeyId,
        entityType: entry.entityType,
        entityId: entry.entityId,
        entityName: entry.entityName?.slice(0, 255) ?? null,
        action: entry.action,
        amountMinorUnits: entry.money?.amountMinorUnits ?? null,
        currency: entry.money?.currency ?? null,
        countedUsdCents: entry.money?.countedUsdCents ?? null,
        createdAt: now(),
      });
    },
  };
}
