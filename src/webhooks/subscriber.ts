// The webhooks outbox subscriber: for each event, one pending delivery per enabled endpoint of its
// organization that subscribes to its type and covers its brand, each with its delivery job in the
// endpoint's lane, written in the transaction that advances the subscriber's position (so each
// event fans out exactly once). Test sends (`webhook.test`) are delivered by the operation itself.

import { EVENT_TYPES } from '../events/catalogue.js';
import type { EventSubscriber } from '../events/subscribers.js';
import { insertJobs } from '../jobs/queue/schedule.js';
import { endpointCovers } from './endpoints.js';
import { DELIVERY_JOB, endpointLane } from './lanes.js';
import type { Knex } from 'knex';
import { enabledEndpointsOf, endpointVersions, insertFanOut } from './store.js';

interface CachedEndpoints {
  /** The organization's endpoint version the list was read at. */
  version: number;
  endpoints: Array<{ id: number; events: Set<string>; brandIds: number[] | null }>;
}

/** The enabled endpoints of each organization, per database handle (one per process and database). */
const caches = new WeakMap<Knex, Map<number, CachedEndpoints>>();

function cacheOf(knex: Knex): Map<number, CachedEndpoints> {
  let cache = caches.get(knex);
  if (!cache) caches.set(knex, (cache = new Map()));
  return cache;
}

/** The cache brought up to date for `orgs`: one cheap read; endpoints are read again only when their version moved. */
async function refreshed(knex: Knex, trx: Knex.Transaction, orgs: number[]): Promise<Map<number, CachedEndpoints>> {
  const cache = cacheOf(knex);
  for (const [org, version] of await endpointVersions(trx, orgs)) {
    if (cache.get(org)?.version === version) continue;
    const endpoints = (await enabledEndpointsOf(trx, org)).map((e) => ({
      id: Number(e.id),
      events: new Set(JSON.parse(e.events) as string[]),
      brandIds: e.brand_ids ? (JSON.parse(e.brand_ids) as number[]) : null,
    }));
    cache.set(org, { version, endpoints });
  }
  return cache;
}

export const webhooksSubscriber: EventSubscriber = {
  name: 'webhooks',
  types: EVENT_TYPES.map((t) => t.type).filter((t) => t !== 'webhook.test'),
  // Only events some enabled endpoint of their organization subscribes to are read in full.
  async wants(ctx, trx, heads) {
    if (!ctx.config.webhooksEnabled) return [];
    const cache = await refreshed(ctx.knex, trx, [...new Set(heads.map((e) => e.organizationId))]);
    return heads.filter((e) => cache.get(e.organizationId)!.endpoints.some((t) => t.events.has(e.type)));
  },
  async handle(ctx, trx, events) {
    if (!ctx.config.webhooksEnabled) return;
    const now = ctx.now();
    const fanOut: Array<{ endpointId: number; eventId: number }> = [];
    const cache = await refreshed(ctx.knex, trx, [...new Set(events.map((e) => e.organizationId))]);
    for (const event of events) {
      const targets = cache.get(event.organizationId)!.endpoints.filter((e) => e.events.has(event.type) && endpointCovers(e.brandIds, event.brandId));
      for (const t of targets) fanOut.push({ endpointId: t.id, eventId: event.id });
    }
    // One statement for the deliveries, one for their jobs, whatever the batch of events.
    const ids = await insertFanOut(trx, fanOut, now);
    await insertJobs(
      trx,
      fanOut.map((f, i) => ({ kind: DELIVERY_JOB, key: String(ids[i]), lane: endpointLane(f.endpointId) })),
      now,
      now,
    );
  },
};
