// Webhook delivery with a fixed clock, on every storage dialect: the retry schedule, giving up after
// three days, disabling an endpoint that fails for five, order per endpoint, and a receiver that
// verifies every message with standardwebhooks. The worker is driven with `drain()`.

import { expect } from 'chai';
import { pino } from 'pino';
import { dialects, createMigratedTestDatabase, type TestDatabase } from '../helpers/databases.js';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/connection.js';
import { migrateLatest } from '../../src/db/migrate.js';
import { applyBootstrap } from '../../src/bootstrap.js';
import { SchemaRegistry, loadSchemaFiles } from '../../src/schemas/registry.js';
import { Service } from '../../src/service.js';
import { standardWorld } from '../helpers/fixture.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';
import { RETRY_DELAYS_MS } from '../../src/webhooks/deliver.js';
import { newWebhookSecret } from '../../src/webhooks/signing.js';
import { EventOutbox } from '../../src/events/outbox.js';
import { insertEndpoint, updateEndpoint } from '../../src/webhooks/store.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

for (const dialect of dialects()) {
  describe(`webhook delivery with a fixed clock (${dialect})`, function () {
    this.timeout(60_000);
    let db: TestDatabase;
    let service: Service;
    let clock = 0;
    let orgId: number;
    let shoes: number;
    const receivers: WebhookReceiver[] = [];

    before(async () => {
      // Near the real time when the tests run: standardwebhooks refuses a webhook-timestamp more than 5 minutes off.
      clock = Math.floor(Date.now() / 1000) * 1000;
      db = await createMigratedTestDatabase(dialect);
      const setup = openDatabase(db.url);
      await migrateLatest(setup.knex);
      const seed = await applyBootstrap(setup.knex, new SchemaRegistry(loadSchemaFiles()), standardWorld);
      await setup.knex.destroy();
      orgId = seed.organizations.acme.id;
      shoes = seed.organizations.acme.brands.shoes.id;
      service = await Service.open({
        config: loadConfig({ DATABASE_URL: db.url, WEBHOOK_ALLOW_PRIVATE: 'true', LOG_LEVEL: 'silent', SVC_STRICT_OUTPUT: 'true', WEBHOOK_INFLIGHT: '1' }),
        log: pino({ level: 'silent' }),
        now: () => clock,
      });
    });
    after(async () => {
      for (const r of receivers) await r.close();
      await service?.close();
      await db?.drop();
    });

    /** An endpoint row made the way create-webhook-endpoint makes one, pointing at a new receiver. */
    async function endpointFor(receiver: WebhookReceiver, events: string[] = ['tracker.push.failed']): Promise<number> {
      receivers.push(receiver);
      const secret = newWebhookSecret();
      receiver.secrets = [secret];
      // Through the store, as the operation does: the insert moves the organization's endpoint version on.
      const { id } = await insertEndpoint(service.knex, {
        organizationId: orgId,
        url: receiver.url,
        description: null,
        events,
        brandIds: null,
        enabled: true,
        secretSealed: service.secrets.seal(secret),
        now: clock,
      });
      return Number(id);
    }

    const emit = (n: number) =>
      service.knex.transaction((trx) =>
        service.events.emit(trx, { organizationId: orgId, brandId: shoes, type: 'tracker.push.failed', data: { brandId: shoes, error: `failure ${n}` } }),
      );

    const delivery = async (endpointId: number) => service.knex('webhook_deliveries').where({ endpoint_id: endpointId }).orderBy('id', 'desc').first();
    /** When the delivery's job is due next: null once it has none (finished) or it is parked. */
    const nextAttemptAt = async (d: { id: number }) => {
      const job = await service
        .knex('jobs')
        .where({ kind: 'deliver-webhook', job_key: String(d.id) })
        .first();
      return job?.run_at === null || job?.run_at === undefined ? null : Number(job.run_at);
    };
    const endpoint = (id: number) => service.knex('webhook_endpoints').where({ id }).first();

    it('retries at 5 s, 5 min, 30 min, 2 h, 5 h, then every 10 h, and succeeds on the attempt that gets a 2xx', async () => {
      let answers = 0;
      const r = await new WebhookReceiver({ status: () => (++answers < 4 ? 503 : 200) }).start();
      const id = await endpointFor(r);
      await emit(1);
      await service.jobs.drain();
      let d = await delivery(id);
      expect(d).to.deep.include({ status: 'pending', attempt_count: 1 });
      expect((await nextAttemptAt(d))! - clock).to.equal(RETRY_DELAYS_MS[0]);
      expect(RETRY_DELAYS_MS).to.deep.equal([5_000, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR]);

      // Not due yet: nothing is sent.
      clock += RETRY_DELAYS_MS[0] - 1;
      await service.jobs.drain();
      expect(r.received).to.have.length(1);

      for (let attempt = 2; attempt <= 4; attempt++) {
        clock = (await nextAttemptAt(await delivery(id)))!;
        await service.jobs.drain();
        d = await delivery(id);
        expect(d.attempt_count, `attempt ${attempt}`).to.equal(attempt);
        if (attempt < 4) expect((await nextAttemptAt(d))! - clock, `after attempt ${attempt}`).to.equal(RETRY_DELAYS_MS[attempt - 1]);
      }
      expect(d).to.deep.include({ status: 'succeeded' });
      expect(await nextAttemptAt(d)).to.equal(null);
      expect(r.received.map((x) => x.id)).to.deep.equal(Array(4).fill(r.received[0].id));
      expect(r.received[0].verifiedWith).to.deep.equal([0]);
      const attempts = await service.knex('webhook_attempts').where({ delivery_id: d.id }).orderBy('id');
      expect(attempts.map((a) => a.status_code)).to.deep.equal([503, 503, 503, 200]);
      expect(attempts[0].response_excerpt).to.equal('status 503');
      expect((await endpoint(id)).failing_since).to.equal(null);
    });

    it('gives a delivery up after three days of failures; disables the endpoint (failing) after five', async () => {
      const start = clock;
      const r = await new WebhookReceiver({ status: () => 500 }).start();
      const id = await endpointFor(r);
      await emit(2);
      await service.jobs.drain();
      const first = await delivery(id);
      // Walk the clock through every retry of the first delivery.
      while ((await delivery(id)).status === 'pending') {
        clock = (await nextAttemptAt(await delivery(id)))!;
        await service.jobs.drain();
      }
      const given = await service.knex('webhook_deliveries').where({ id: first.id }).first();
      expect(given.status).to.equal('failed');
      const attempts = await service.knex('webhook_attempts').where({ delivery_id: first.id }).orderBy('id');
      expect(Number(attempts[attempts.length - 1].at) - start).to.be.at.most(3 * DAY);
      // The first attempt, five short waits (5 s to 5 h, 7 h 35 min in all), then 10 h waits up to
      // 67 h 35 min: 12 attempts; the next would come after the three days.
      expect(attempts).to.have.length(12);
      expect((await endpoint(id)).enabled).to.be.oneOf([true, 1]);

      // Still failing five days after its first failure: the next failed attempt disables it.
      clock = start + 5 * DAY;
      await emit(3);
      await service.jobs.drain();
      const e = await endpoint(id);
      expect(Boolean(e.enabled)).to.equal(false);
      expect(e.disabled_reason).to.equal('failing');
      // Disabled: later events wait, nothing is sent.
      const before = r.received.length;
      await emit(4);
      clock += HOUR;
      await service.jobs.drain();
      expect(r.received.length).to.equal(before);
    });

    it('delivers the events of one endpoint in the order they happened, and lets later ones pass a failing one', async () => {
      let n = 0;
      // The third message fails once: it is retried while the ones after it go on.
      const r = await new WebhookReceiver({ status: () => (++n === 3 ? 500 : 200) }).start();
      const id = await endpointFor(r);
      for (let i = 0; i < 8; i++) await emit(100 + i);
      await service.jobs.drain();
      expect(r.received.map((x) => x.body.data.error)).to.deep.equal([100, 101, 102, 103, 104, 105, 106, 107].map((i) => `failure ${i}`));
      clock += RETRY_DELAYS_MS[0];
      await service.jobs.drain();
      expect(r.received.map((x) => x.body.data.error).slice(-1)).to.deep.equal(['failure 102']);
      const statuses = await service.knex('webhook_deliveries').where({ endpoint_id: id }).pluck('status');
      expect(new Set(statuses)).to.deep.equal(new Set(['succeeded']));
    });

    it('delivers once a worker starts when the process died between the commit and the wake', async () => {
      const r = await new WebhookReceiver().start();
      const id = await endpointFor(r, ['tracker.push.disabled']);
      await service.jobs.drain();
      // The commit happened; the wake that follows it never did (the process that emitted died).
      const dying = new EventOutbox(
        service.knex,
        new SchemaRegistry(loadSchemaFiles()),
        () => clock,
        true,
        () => {},
      );
      await service.knex.transaction((trx) =>
        dying.emit(trx, { organizationId: orgId, brandId: shoes, type: 'tracker.push.disabled', data: { brandId: shoes, reason: 'refused' } }),
      );
      clock += 60_000;
      await service.jobs.drain();
      expect(r.received).to.have.length(0);
      // A process starting its worker wakes every subscriber.
      const restarted = await Service.open({
        config: loadConfig({ DATABASE_URL: db.url, WEBHOOK_ALLOW_PRIVATE: 'true', LOG_LEVEL: 'silent', SVC_STRICT_OUTPUT: 'true' }),
        log: pino({ level: 'silent' }),
        now: () => clock,
      });
      try {
        await restarted.jobs.drain();
      } finally {
        await restarted.close();
      }
      expect(r.received.map((x) => x.body.data.reason)).to.deep.equal(['refused']);
      await updateEndpoint(service.knex, id, { enabled: false });
    });

    it('keeps events and the delivery log for 30 days', async () => {
      const r = await new WebhookReceiver({ status: () => 500 }).start();
      const id = await endpointFor(r, ['tracker.push.disabled']);
      const emitDisabled = () =>
        service.knex.transaction((trx) =>
          service.events.emit(trx, { organizationId: orgId, brandId: shoes, type: 'tracker.push.disabled', data: { brandId: shoes, reason: 'unauthorized' } }),
        );
      const old = await emitDisabled();
      // An event no endpoint receives.
      const lonely = await service.knex.transaction((trx) =>
        service.events.emit(trx, {
          organizationId: orgId,
          brandId: shoes,
          type: 'launch.publish_failed',
          data: { brandId: shoes, launchId: '1', reason: 'x', actor: 'y' },
        }),
      );
      await service.jobs.drain();
      const saved = clock;
      clock += 31 * DAY;
      const fresh = await emitDisabled();
      const purge = async () => {
        await service.knex('jobs').where({ kind: 'purge-events' }).update({ run_at: clock });
        await service.jobs.drain();
      };
      await purge();
      await purge();
      expect(await service.knex('events').whereIn('id', [old.id, lonely.id]).pluck('id')).to.deep.equal([]);
      expect(await service.knex('webhook_deliveries').where({ event_id: old.id }).first()).to.equal(undefined);
      expect(await service.knex('events').where({ id: fresh.id }).first()).to.not.equal(undefined);
      expect((await service.knex('webhook_deliveries').where({ event_id: fresh.id }).first()).endpoint_id).to.equal(id);
      clock = saved;
      await updateEndpoint(service.knex, id, { enabled: false });
    });

    it('sends the event body {type, timestamp, data} with webhook-timestamp from the clock', async () => {
      const r = await new WebhookReceiver().start();
      await endpointFor(r);
      clock = Math.floor(Date.now() / 1000) * 1000;
      await emit(200);
      await service.jobs.drain();
      const got = r.received[0];
      expect(got.verifiedWith).to.deep.equal([0]);
      expect(got.timestamp).to.equal(String(clock / 1000));
      expect(got.body).to.deep.equal({ type: 'tracker.push.failed', timestamp: new Date(clock).toISOString(), data: { brandId: shoes, error: 'failure 200' } });
    });
  });
}
