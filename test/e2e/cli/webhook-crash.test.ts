// Webhook delivery survives a crash: a real `svc-server serve` child with a window of 8 is
// SIGKILLed in the middle of deliveries, a new one is started on the same database, and every
// event reaches every endpoint, signed, first attempts in the order the events were emitted; only
// messages of the window (sent, answer not yet recorded) arrive twice, each with its webhook-id.

import { expect } from 'chai';
import { createMigratedTestDatabase, dialects, type TestDatabase } from '../../helpers/databases.js';
import { EventProducer } from '../../helpers/event-producer.js';
import { requestJson } from '../../helpers/http.js';
import { waitUntil } from '../../helpers/launches.js';
import { runningChildren, startSvcServer, stopAllServers, type ServerProcess } from '../../helpers/processes.js';
import { WebhookReceiver } from '../../helpers/webhook-receiver.js';
import { allDeliveries, seedTenant, type Tenant } from '../../helpers/webhook-servers.js';

const EVENTS = 300;
/** Answered deliveries per endpoint before the receivers stop answering and the server is killed. */
const BEFORE_KILL = 100;
/** WEBHOOK_WINDOW: messages of one endpoint sent and not yet recorded, which a crash may resend. */
const WINDOW = 8;

for (const dialect of dialects()) {
  describe(`webhook deliveries across a server crash (${dialect})`, function () {
    this.timeout(120_000);
    let db: TestDatabase;
    let tenant: Tenant;
    let producer: EventProducer | undefined;
    const receivers: WebhookReceiver[] = [];
    // A short lease, so the new process takes the dead one's jobs over within seconds. LOG_LEVEL
    // stays at info: the helper waits for the `listening on` log line.
    const env = () => ({
      DATABASE_URL: db.url,
      WEBHOOK_ALLOW_PRIVATE: 'true',
      JOB_LEASE_MS: '2000',
      WEBHOOK_WINDOW: String(WINDOW),
      WEBHOOK_INFLIGHT: '1',
      LOG_LEVEL: 'info',
    });

    before(async () => {
      db = await createMigratedTestDatabase(dialect);
      tenant = await seedTenant(db.url);
    });
    after(async () => {
      await stopAllServers();
      await producer?.close();
      for (const r of receivers) await r.close();
      await db?.drop();
      expect(runningChildren()).to.equal(0);
    });

    it('a server SIGKILLed mid-delivery is restarted: nothing lost, first attempts in order, only the window resent with its webhook-id', async () => {
      const first: ServerProcess = await startSvcServer(['serve'], { env: env() });
      const endpoints: number[] = [];
      for (let i = 0; i < 3; i++) {
        const r = await new WebhookReceiver().start(`/hooks/${i}`);
        receivers.push(r);
        const created = await requestJson(first.url, 'POST', '/v1/webhook-endpoints', {
          key: tenant.key,
          body: { url: r.url, events: ['budget.changed'], brandIds: null },
        });
        expect(created.status, JSON.stringify(created.body)).to.equal(201);
        r.secrets = [created.body.secret];
        endpoints.push(created.body.endpointId);
      }

      producer = new EventProducer(db.url, tenant.organizationId, [tenant.brandId]);
      // Production goes on while the server is killed and while no server runs.
      const producing = producer.produce(EVENTS, { batch: 10, pauseMs: 20 });

      // Each endpoint's job sends one request at a time and may go on while up to WINDOW answers
      // are being recorded: with one request held, at most WINDOW - 1 answered ones are unrecorded.
      await Promise.all(
        receivers.map(async (r) => {
          await r.waitFor(BEFORE_KILL, 60_000);
          r.hold();
        }),
      );
      await waitUntil(() => receivers.every((r) => r.waiting === 1), 'every receiver to hold one request', 8_000, 5);
      const answeredAtKill = receivers.map((r) => r.received.length);
      expect(await first.stop('SIGKILL')).to.equal(null);
      for (const [i, endpointId] of endpoints.entries()) {
        const recorded = Number(
          (
            await producer
              .knex('webhook_attempts as a')
              .join('webhook_deliveries as d', 'd.id', 'a.delivery_id')
              .where({ 'd.endpoint_id': endpointId })
              .count({ n: '*' })
              .first()
          )?.n,
        );
        expect(recorded, `endpoint ${endpointId}: attempts recorded at the kill`).to.be.within(answeredAtKill[i] - (WINDOW - 1), answeredAtKill[i]);
      }

      // The killed sender's sockets close: its held requests were never answered, so not delivered.
      await waitUntil(() => receivers.every((r) => r.dropped.length === 1), 'the held requests to be dropped', 10_000);
      const heldIds = receivers.map((r) => r.dropped[0].id);
      for (const [i, endpointId] of endpoints.entries()) {
        const held = await producer
          .knex('webhook_deliveries as d')
          .join('events as e', 'e.id', 'd.event_id')
          .where({ 'd.endpoint_id': endpointId, 'e.public_id': heldIds[i] })
          .first('d.status', 'd.attempt_count');
        expect({ status: held.status, attempts: Number(held.attempt_count) }, `endpoint ${endpointId}`).to.deep.equal({ status: 'pending', attempts: 0 });
      }
      for (const r of receivers) r.release();

      const second = await startSvcServer(['serve'], { env: env() });
      await producing;
      expect(producer.emitted).to.have.length(EVENTS);
      await Promise.all(receivers.map((r) => r.waitFor(EVENTS, 60_000)));
      await waitUntil(
        async () => {
          for (const id of endpoints) {
            const pending = await requestJson(second.url, 'GET', `/v1/webhook-endpoints/${id}/deliveries?status=pending`, { key: tenant.key });
            if (pending.status !== 200 || pending.body.deliveries.length) return false;
          }
          return true;
        },
        'no pending delivery left',
        20_000,
        100,
      );

      for (const [i, r] of receivers.entries()) {
        const what = `endpoint ${endpoints[i]}`;
        const position = new Map(producer.emitted.map((id, n) => [id, n]));
        // Nothing lost, and each event's first arrival in the order of emission.
        const firsts = [...new Set(r.received.map((x) => x.id))];
        expect(firsts, what).to.deep.equal(producer.emitted);
        // A resend carries its event's webhook-id: every message's id names the event of its body.
        expect(
          r.received.filter((x) => position.get(x.id) !== x.body.data.budget.amountMinorUnits).map((x) => x.id),
          `${what}: messages whose webhook-id is not their event's`,
        ).to.deep.equal([]);
        expect(
          r.received.filter((x) => x.verifiedWith.join() !== '0').map((x) => x.id),
          `${what}: unverified signatures`,
        ).to.deep.equal([]);
        // The held request went out again from the new process; what arrived twice was answered
        // just before it, within the window, and arrived twice at most.
        expect(
          r.dropped.map((x) => x.id),
          what,
        ).to.deep.equal([heldIds[i]]);
        const held = position.get(heldIds[i])!;
        expect(held, what).to.be.at.least(BEFORE_KILL);
        const twice = r.duplicates().map((id) => position.get(id)!);
        expect(twice.length, `${what}: resent ${twice.join()}`).to.be.below(WINDOW);
        for (const n of twice) expect(n, `${what}: event ${n} resent, held ${held}`).to.be.within(held - (WINDOW - 1), held - 1);
        expect(r.received.length - firsts.length, `${what}: messages answered more than twice`).to.equal(twice.length);

        const log = await allDeliveries(second.url, tenant.key, endpoints[i]);
        expect(log.map((d) => d.eventId).sort(), what).to.deep.equal([...producer.emitted].sort());
        const off = log.filter((d) => d.status !== 'succeeded' || d.attempts.length !== 1 || d.attempts[0].statusCode !== 200);
        expect(off, `${what}: deliveries not succeeded at the first recorded attempt`).to.deep.equal([]);
      }
      await second.stop();
    });
  });
}
