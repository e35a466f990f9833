// Webhook deliveries on several delivery threads (DELIVERY_THREADS=3), on every storage dialect: a
// real Service started as `svc-server serve` starts it (its worker threads open the service again on
// the same database), real receivers on loopback. Every event reaches every endpoint exactly once and
// in order, each endpoint's lane held only by the thread of its shard; a thread killed in the middle
// of deliveries is started again, and its endpoints get everything in order, the held message and
// the window's unrecorded answers sent again with their webhook-id, while the other threads' endpoints
// see nothing twice.

import { expect } from 'chai';
import { dialects, type TestDatabase } from '../helpers/databases.js';
import { inTransaction } from '../../src/db/connection.js';
import type { Service } from '../../src/service.js';
import type { Principal } from '../../src/auth/principal.js';
import { producedData } from '../helpers/event-producer.js';
import { waitUntil } from '../helpers/launches.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';
import { deliveryLogOf, threadedService, type Tenant } from '../helpers/webhook-servers.js';

const THREADS = 3;
const ENDPOINTS = 6;
/** WEBHOOK_WINDOW: messages of one endpoint sent and not yet recorded, which a dead thread's successor sends again. */
const WINDOW = 8;

for (const dialect of dialects()) {
  describe(`webhook deliveries on ${THREADS} delivery threads (${dialect})`, function () {
    this.timeout(180_000);
    let db: TestDatabase;
    let tenant: Tenant;
    let service: Service;
    let principal: Principal;
    let emitted = 0;
    const receivers: WebhookReceiver[] = [];
    const endpoints: number[] = [];

    before(async () => {
      // The threads build their configuration from this environment, as under `svc-server serve`; a
      // short lease lets a restarted thread take a dead one's lanes over within seconds.
      ({ db, tenant, service, principal } = await threadedService(dialect, {
        JOB_LEASE_MS: '2000',
        WEBHOOK_WINDOW: String(WINDOW),
        // One request at a time per endpoint: the setting under which arrival order is the events' order.
        WEBHOOK_INFLIGHT: '1',
        DELIVERY_THREADS: String(THREADS),
      }));
      for (let i = 0; i < ENDPOINTS; i++) {
        const r = await new WebhookReceiver().start(`/hooks/${i}`);
        receivers.push(r);
        const created: { body: any } = await service.invoke(
          'create-webhook-endpoint',
          principal,
          { url: r.url, events: ['budget.changed'], brandIds: null },
          { requestId: `endpoint-${i}` },
        );
        r.secrets = [created.body.secret];
        endpoints.push(created.body.endpointId);
      }
      await service.startJobs();
    });
    after(async () => {
      await service?.close(1_000);
      for (const r of receivers) await r.close();
      await db?.drop();
    });

    const shardOf = (endpointId: number) => endpointId % THREADS;

    /** Emits `count` events through the service's outbox (which nudges the threads), `batch` per transaction; answers their webhook-ids in order. */
    async function produce(count: number, batch = 10, pauseMs = 0): Promise<string[]> {
      const ids: string[] = [];
      for (let done = 0; done < count; done += batch) {
        ids.push(
          ...(await inTransaction(service.knex, async (trx) => {
            const out: string[] = [];
            for (let i = 0; i < Math.min(batch, count - done); i++) {
              const n = emitted++;
              out.push(
                (
                  await service.events.emit(trx, {
                    organizationId: tenant.organizationId,
                    brandId: tenant.brandId,
                    type: 'budget.changed',
                    data: producedData(tenant.brandId, n),
                  })
                ).publicId,
              );
            }
            return out;
          })),
        );
        if (pauseMs) await new Promise((r) => setTimeout(r, pauseMs));
      }
      return ids;
    }

    const deliveryLog = (endpointId: number) => deliveryLogOf(service.knex, endpointId);

    async function noPendingLeft(): Promise<void> {
      await waitUntil(
        async () => Number((await service.knex('webhook_deliveries').where({ status: 'pending' }).count({ n: '*' }).first())?.n) === 0,
        'no pending delivery left',
        30_000,
        100,
      );
    }

    it('delivers every event to every endpoint exactly once and in order, each endpoint lane claimed only by the thread of its shard', async () => {
      expect(service.deliveryThreads?.threads).to.have.length(THREADS);
      expect(await service.notReady()).to.deep.equal([]);
      // Which worker holds each lane while the deliveries go on (a worker id names one thread's worker; `.n` is its claim).
      const holders = new Map<string, Set<string>>();
      let watching = true;
      const watch = (async () => {
        while (watching) {
          for (const r of await service.knex('job_lanes').whereNotNull('locked_by').where('lane', 'like', 'webhooks:%').select('lane', 'locked_by')) {
            const worker = String(r.locked_by).split('.')[0];
            holders.set(r.lane, (holders.get(r.lane) ?? new Set()).add(worker));
          }
          await new Promise((r) => setTimeout(r, 10));
        }
      })();
      const ids = await produce(300, 20, 20);
      await Promise.all(receivers.map((r) => r.waitFor(ids.length, 60_000)));
      await noPendingLeft();
      watching = false;
      await watch;

      for (const [i, r] of receivers.entries()) {
        const what = `endpoint ${endpoints[i]}`;
        expect(
          r.received.map((x) => x.id),
          `${what}: arrivals`,
        ).to.deep.equal(ids);
        expect(
          r.received.filter((x) => x.verifiedWith.join() !== '0').map((x) => x.id),
          `${what}: unverified signatures`,
        ).to.deep.equal([]);
        const log = await deliveryLog(endpoints[i]);
        expect(log.map((d) => d.eventId).sort(), what).to.deep.equal([...ids].sort());
        expect(
          log.filter((d) => d.status !== 'succeeded' || d.attempts.join() !== '200'),
          `${what}: deliveries not succeeded at one attempt`,
        ).to.deep.equal([]);
      }
      // Each lane seen held was held by one worker only, and each worker held the lanes of one shard.
      const lanesOf = new Map<string, number[]>();
      for (const [lane, workers] of holders) {
        expect([...workers], `${lane} held by`).to.have.length(1);
        const worker = [...workers][0];
        lanesOf.set(worker, [...(lanesOf.get(worker) ?? []), Number(lane.slice('webhooks:'.length))]);
      }
      expect(holders.size, 'lanes seen held').to.be.at.least(THREADS);
      const shards = [...lanesOf.values()].map((ids) => [...new Set(ids.map(shardOf))]);
      for (const s of shards) expect(s, 'the shards of the lanes one worker held').to.have.length(1);
      expect(new Set(shards.map((s) => s[0])).size, 'workers of distinct shards').to.equal(lanesOf.size);
    });

    it('starts a thread killed in the middle of deliveries again: its endpoints get everything in order, only the window resent; the other endpoints nothing twice', async () => {
      const threads = service.deliveryThreads!;
      const victim = shardOf(endpoints[0]);
      const held = receivers.filter((_, i) => shardOf(endpoints[i]) === victim);
      const spared = receivers.filter((_, i) => shardOf(endpoints[i]) !== victim);
      const before = receivers.map((r) => r.received.length);
      const startedBefore = threads.threads[victim].started;

      // Production goes on while the thread is killed and while it is down.
      const producing = produce(300, 10, 20);
      await Promise.all(held.map((r) => r.waitFor(before[receivers.indexOf(r)] + 60, 60_000)));
      for (const r of held) r.hold();
      await waitUntil(() => held.every((r) => r.waiting === 1), 'the victim thread to have one request held at each of its endpoints', 10_000, 5);
      await threads.threads[victim].kill();

      // Its requests are cut off: never answered, so not delivered.
      await waitUntil(() => held.every((r) => r.dropped.length === 1), 'the held requests to be dropped', 10_000);
      const heldIds = held.map((r) => r.dropped[0].id);
      // Until the thread is back and claiming, the process is not ready.
      expect((await service.notReady()).map((n) => n.component)).to.deep.equal(['worker']);
      for (const r of held) r.release();
      const ids = await producing;

      await waitUntil(
        () => threads.threads[victim].started === startedBefore + 1 && threads.claiming(),
        'the killed thread to be started again and claim',
        30_000,
        50,
      );
      expect(await service.notReady()).to.deep.equal([]);
      await Promise.all(receivers.map((r, i) => r.waitFor(before[i] + ids.length, 60_000)));
      await noPendingLeft();

      const position = new Map(ids.map((id, n) => [id, n]));
      for (const [k, r] of held.entries()) {
        const what = `endpoint of the killed thread ${endpoints[receivers.indexOf(r)]}`;
        const mine = r.received.slice(before[receivers.indexOf(r)]);
        // Nothing lost, and each event's first arrival in the order of emission.
        expect([...new Set(mine.map((x) => x.id))], what).to.deep.equal(ids);
        // The held message went out again from the new thread; what arrived twice was answered just before it, within the window.
        const heldAt = position.get(heldIds[k])!;
        const twice = r.duplicates().map((id) => position.get(id)!);
        expect(twice.length, `${what}: resent ${twice.join()}`).to.be.below(WINDOW);
        for (const n of twice) expect(n, `${what}: event ${n} resent, held ${heldAt}`).to.be.within(heldAt - (WINDOW - 1), heldAt - 1);
        expect(mine.length - ids.length, `${what}: messages answered more than twice`).to.equal(twice.length);
        expect(
          mine.filter((x) => x.verifiedWith.join() !== '0').map((x) => x.id),
          `${what}: unverified signatures`,
        ).to.deep.equal([]);
      }
      for (const r of spared) {
        const what = `endpoint of another thread ${endpoints[receivers.indexOf(r)]}`;
        expect(
          r.received.slice(before[receivers.indexOf(r)]).map((x) => x.id),
          what,
        ).to.deep.equal(ids);
        expect(r.dropped, what).to.deep.equal([]);
      }
      // The log holds each delivery once, succeeded at its one recorded attempt: nothing recorded twice.
      for (const endpointId of endpoints) {
        const log = (await deliveryLog(endpointId)).filter((d) => position.has(d.eventId));
        expect(log.map((d) => d.eventId).sort(), `endpoint ${endpointId}`).to.deep.equal([...ids].sort());
        expect(
          log.filter((d) => d.status !== 'succeeded' || d.attempts.join() !== '200'),
          `endpoint ${endpointId}: deliveries not succeeded at one attempt`,
        ).to.deep.equal([]);
      }
    });
  });
}
