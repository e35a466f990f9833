// The webhooks outbox subscriber: for each event, one pending delivery per enabled endpoint of its
// organization that subscribes to its type and covers its brand, each with its delivery job in the
// endpoint's lane, written in the transaction that advances the subscriber's position (so each
// event fans out exactly once). Test sends (`webhook.test`) are delivered by the operation itself.

import { EVENT_TYPES } from '../events/catalogue.js';
import type { EventSubscriber } from '../events/subscribers.js';
import { insertJobs } from '../jobs/queue/schedule.js';
import { endpointCovers } from './endpoints.js';
import { DELIVERY_JOB, endpointLane } from './lanes.js';
import { enabledEndpointsOf, insertFanOut } from './store.js';

export const webhooksSubscriber: EventSubscriber = {
  name: 'webhooks',
  types: EVENT_TYPES.map((t) => t.type).filter((t) => t !== 'webhook.test'),
  async handle(ctx, trx, events) {
    if (!ctx.config.webhooksEnabled) return;
    const now = ctx.now();
    const fanOut: Array<{ endpointId: number; eventId: number }> = [];
    const endpointsByOrg = new Map<number, Awaited<ReturnType<typeof enabledEndpointsOf>>>();
    for (const event of events) {
      let endpoints = endpointsByOrg.get(event.organizationId);
      if (!endpoints) endpointsByOrg.set(event.organizationId, (endpoints = await enabledEndpointsOf(trx, event.organizationId)));
      const targets = endpoints.filter(
        (e) => (JSON.parse(e.events) as string[]).includes(event.type) && endpointCovers(e.brand_ids ? JSON.parse(e.brand_ids) : null, event.brandId),
      );
      for (const t of targets) fanOut.push({ endpointId: Number(t.id), eventId: event.id });
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
