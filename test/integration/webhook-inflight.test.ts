// Overlapping webhook deliveries per endpoint (WEBHOOK_INFLIGHT=8, the default), on every storage
// dialect: a real Service started as `svc-server serve` starts it (one delivery thread of its own),
// real receivers on loopback that answer after a delay. Several messages to one endpoint are in
// flight at once; every event reaches its receiver at least once and is recorded exactly once, and
// its `webhook-sequence` header restores the order the events happened in; a slow endpoint does
// not hold up another's deliveries; a delivery thread killed with requests in flight is started
// again and sends those requests again, with their webhook-id.

import { expect } from 'chai';
import { dialects, type TestDatabase } from '../helpers/databases.js';
import { inTransaction } from '../../src/db/connection.js';
import type { Service } from '../../src/service.js';
import type { Principal } from '../../src/auth/principal.js';
import { producedData } from '../helpers/event-producer.js';
import { waitUntil } from '../helpers/launches.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';
import { deliveryLogOf, threadedService, type Tenant } from '../helpers/webhook-servers.js';

const INFLIGHT = 8;

for (const dialect of dialects()) {
  describe(`webhook deliveries with ${INFLIGHT} in flight per endpoint (${dialect})`, function () {
    this.timeout(120_000);
    let db: TestDatabase;
    let tenant: Tenant;
    let service: Service;
    let principal: Principal;
    let emitted = 0;
    const receivers: WebhookReceiver[] = [];

    before(async () => {
      ({ db, tenant, service, principal } = await threadedService(dialect, {
        JOB_LEASE_MS: '2000',
        WEBHOOK_INFLIGHT: String(INFLIGHT),
        DELIVERY_THREADS: '1',
      }));
      await service.startJobs();
    });
    after(async () => {
      await service?.close(1_000);
      for (const r of receivers) await r.close();
      await db?.drop();
    });

    /** A receiver answering after `delayMs`, and an endpoint of budget.changed events sending to it. */
    async function endpoint(delayMs: number): Promise<{ receiver: WebhookReceiver; endpointId: number }> {
      const receiver = await new WebhookReceiver({ delayMs }).start(`/hooks/${receivers.length}`);
      receivers.push(receiver);
      const created: { body: any } = await service.invoke(
        'create-webhook-endpoint',
        principal,
        { url: receiver.url, events: ['budget.changed'], brandIds: null },
        { requestId: `endpoint-${receivers.length}` },
      );
      receiver.secrets = [created.body.secret];
      return { receiver, endpointId: created.body.endpointId };
    }

    /** Emits `count` events, ten per transaction; answers their webhook-ids in the order they happened. */
    async function produce(count: number): Promise<string[]> {
      const ids: string[] = [];
      for (let done = 0; done < count; done += 10) {
        ids.push(
          ...(await inTransaction(service.knex, async (trx) => {
            const out: string[] = [];
            for (let i = 0; i < Math.min(10, count - done); i++) {
              const e = await service.events.emit(trx, {
                organizationId: tenant.organizationId,
                brandId: tenant.brandId,
                type: 'budget.changed',
                data: producedData(tenant.brandId, emitted++),
              });
              out.push(e.publicId);
            }
            return out;
          })),
        );
      }
      return ids;
    }

    const deliveryLog = (endpointId: number) => deliveryLogOf(service.knex, endpointId);

    const noPendingLeft = () =>
      waitUntil(
        async () => Number((await service.knex('webhook_deliveries').where({ status: 'pending' }).count({ n: '*' }).first())?.n) === 0,
        'no pending delivery left',
        30_000,
        100,
      );

    it('sends several messages to one endpoint at once: every event arrives at least once, is recorded exactly once, and webhook-sequence restores the order', async () => {
      const { receiver, endpointId } = await endpoint(40);
      const ids = await produce(120);
      await receiver.waitFor(ids.length, 60_000);
      await noPendingLeft();
      expect(receiver.maxInflight, 'requests in flight at once').to.be.within(4, INFLIGHT);
      expect(new Set(receiver.received.map((r) => r.id))).to.deep.equal(new Set(ids));
      // Arrival order is not promised; the sequence (and the signed timestamp) restore the events' order.
      const bySequence = [...receiver.received].sort((a, b) => a.sequence! - b.sequence!).map((r) => r.id);
      expect([...new Set(bySequence)]).to.deep.equal(ids);
      expect(receiver.received.every((r) => r.verifiedWith.join() === '0')).to.equal(true);
      const log = await deliveryLog(endpointId);
      expect(log.map((d) => d.eventId).sort()).to.deep.equal([...ids].sort());
      expect(log.filter((d) => d.status !== 'succeeded' || d.attempts.join() !== '200')).to.deep.equal([]);
    });

    it("a slow endpoint does not hold up another endpoint's deliveries", async () => {
      const slow = await endpoint(1_500);
      const fast = await endpoint(0);
      const ids = await produce(40);
      const started = Date.now();
      await fast.receiver.waitFor(ids.length, 20_000);
      const fastDone = Date.now() - started;
      // The slow receiver needs about 40 × 1.5 s / 8 = 7.5 s; the fast one had everything long before.
      expect(slow.receiver.received.length, `slow endpoint after ${fastDone} ms`).to.be.below(ids.length / 2);
      await slow.receiver.waitFor(ids.length, 60_000);
      await noPendingLeft();
      for (const e of [slow, fast]) {
        const log = await deliveryLog(e.endpointId);
        expect(log.filter((d) => ids.includes(d.eventId) && (d.status !== 'succeeded' || d.attempts.join() !== '200'))).to.deep.equal([]);
      }
    });

    it('a delivery thread killed with requests in flight is started again and sends them again, with their webhook-id', async () => {
      const { receiver, endpointId } = await endpoint(0);
      receiver.hold();
      const ids = await produce(30);
      // The window fills: eight requests held unanswered at the receiver.
      await waitUntil(() => receiver.waiting === INFLIGHT, 'the window of requests to be held', 20_000, 5);
      const thread = service.deliveryThreads!.threads[0];
      const startedBefore = thread.started;
      await thread.kill();
      await waitUntil(() => receiver.dropped.length === INFLIGHT, 'the held requests to be cut off', 10_000);
      const cutOff = receiver.dropped.map((r) => r.id);
      receiver.release();
      await waitUntil(() => thread.started === startedBefore + 1 && service.deliveryThreads!.claiming(), 'the thread to be started again', 30_000, 50);
      await receiver.waitFor(ids.length, 60_000);
      await noPendingLeft();
      // Nothing lost: the cut-off requests went out again, with the same webhook-id.
      const answered = new Set(receiver.received.map((r) => r.id));
      for (const id of [...ids, ...cutOff]) expect(answered.has(id), id).to.equal(true);
      const log = (await deliveryLog(endpointId)).filter((d) => ids.includes(d.eventId));
      expect(log).to.have.length(ids.length);
      expect(log.filter((d) => d.status !== 'succeeded' || d.attempts.join() !== '200')).to.deep.equal([]);
    });
  });
}
