// The activity log: every mutating operation records who changed which campaign, ad set or ad.

import type { Knex } from 'knex';
import type { Principal } from '../auth/principal.js';
import type { ActivityActor, ActivityInput, ActivityRecorder } from '../catalogue/services.js';
import { insertActivityEntries, insertActivityEntry, type ActivityEntryRow } from './store.js';

export type { ActivityRecorder } from '../catalogue/services.js';

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
