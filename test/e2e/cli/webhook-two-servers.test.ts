// Two `svc-server serve` processes on one MariaDB database share the delivery jobs: 2,000 events
// to 3 endpoints arrive once per endpoint, signed and in order, and both processes held jobs.
// MariaDB only (SQLite is one file on one host); registered only when TEST_MYSQL_URL is set.

import { expect } from 'chai';
import { createMigratedTestDatabase, type TestDatabase } from '../../helpers/databases.js';
import { EventProducer } from '../../helpers/event-producer.js';
import { requestJson } from '../../helpers/http.js';
import { runningChildren, startSvcServer, stopAllServers } from '../../helpers/processes.js';
import { DELIVERY_JOB } from '../../../src/webhooks/lanes.js';
import { WebhookReceiver } from '../../helpers/webhook-receiver.js';
import { seedTenant, type Tenant } from '../../helpers/webhook-servers.js';

const EVENTS = 2_000;
const ENDPOINTS = 3;

if (process.env.TEST_MYSQL_URL) {
  describe('webhook deliveries from two svc-server processes (mysql)', function () {
    this.timeout(180_000);
    let db: TestDatabase;
    let tenant: Tenant;
    let producer: EventProducer | undefined;
    const receivers: WebhookReceiver[] = [];
    // JOB_CONCURRENCY=2 with 3 endpoints: one process can never hold every delivery job, so the
    // other one must take one whatever the timing of their claims on a 2-core machine. One delivery
    // thread each (DELIVERY_THREADS=1), so a worker id holding delivery jobs names a process
    // (test/integration/delivery-threads.test.ts splits one process's deliveries between threads).
    const env = () => ({
      DATABASE_URL: db.url,
      WEBHOOK_ALLOW_PRIVATE: 'true',
      JOB_CONCURRENCY: '2',
      DELIVERY_THREADS: '1',
      WEBHOOK_INFLIGHT: '1',
      LOG_LEVEL: 'info',
    });

    before(async () => {
      db = await createMigratedTestDatabase('mysql');
      tenant = await seedTenant(db.url);
    });
    after(async () => {
      await stopAllServers();
      await producer?.close();
      for (const r of receivers) await r.close();
      await db?.drop();
      expect(runningChildren()).to.equal(0);
    });

    it('delivers 2,000 events to 3 endpoints once each, in order, with both processes holding delivery jobs', async () => {
      const servers = [await startSvcServer(['serve'], { env: env() }), await startSvcServer(['serve'], { env: env() })];
      for (let i = 0; i < ENDPOINTS; i++) {
        const r = await new WebhookReceiver().start(`/hooks/${i}`);
        receivers.push(r);
        const created = await requestJson(servers[i % 2].url, 'POST', '/v1/webhook-endpoints', {
          key: tenant.key,
          body: { url: r.url, events: ['budget.changed'], brandIds: null },
        });
        expect(created.status, JSON.stringify(created.body)).to.equal(201);
        r.secrets = [created.body.secret];
      }

      producer = new EventProducer(db.url, tenant.organizationId, [tenant.brandId]);
      const knex = producer.knex;
      // Who holds the delivery jobs, sampled while they run: a lease reads `<worker id>.<claim>`,
      // and each process has one worker id.
      const holders = new Set<string>();
      let sampling = true;
      const sampler = (async () => {
        while (sampling) {
          const rows: Array<{ locked_by: string }> = await knex('jobs').where({ kind: DELIVERY_JOB }).whereNotNull('locked_by').select('locked_by');
          for (const row of rows) holders.add(row.locked_by.split('.')[0]);
          await new Promise((r) => setTimeout(r, 10));
        }
      })();
      try {
        // From a process with no worker of its own (like JOBS=off API servers): its emits wake the
        // outbox subscribers' job rows after each commit, which the servers' workers find on their
        // 1 s poll (nothing crosses processes sooner), then fan the events out and deliver them in
        // batches. 200 batches of 10 with a 20 ms pause after each make production last over 4 s, several
        // polls, so deliveries must arrive while it goes on unless emitting holds something back.
        await producer.produce(EVENTS, { batch: 10, pauseMs: 20 });
        const duringProduction = receivers.reduce((n, r) => n + r.received.length, 0);
        expect(duringProduction, 'deliveries made while the producer was still emitting').to.be.above(0);
        await Promise.all(receivers.map((r) => r.waitFor(EVENTS, 120_000)));
      } finally {
        sampling = false;
        await sampler;
      }

      for (const [i, r] of receivers.entries()) {
        const what = `endpoint ${i}`;
        expect(r.duplicates(), what).to.deep.equal([]);
        expect(
          r.received.map((x) => x.id),
          what,
        ).to.deep.equal(producer.emitted);
        expect(
          r.received.filter((x) => x.verifiedWith.join() !== '0').map((x) => x.id),
          `${what}: unverified signatures`,
        ).to.deep.equal([]);
        expect(r.dropped, what).to.deep.equal([]);
      }
      expect([...holders], 'worker ids seen holding delivery jobs').to.have.length(2);

      // Every delivery succeeded at its one and only attempt (the last records may trail the answers).
      const tally = async () => ({
        deliveries: (await knex('webhook_deliveries').select('status').count({ n: '*' }).groupBy('status')).map((r: any) => ({
          status: r.status,
          n: Number(r.n),
        })),
        attempts: (await knex('webhook_attempts').select('status_code').count({ n: '*' }).groupBy('status_code')).map((r: any) => ({
          status_code: r.status_code,
          n: Number(r.n),
        })),
      });
      const expected = { deliveries: [{ status: 'succeeded', n: EVENTS * ENDPOINTS }], attempts: [{ status_code: 200, n: EVENTS * ENDPOINTS }] };
      let seen = await tally();
      for (let tries = 0; tries < 100 && JSON.stringify(seen) !== JSON.stringify(expected); tries++) {
        await new Promise((r) => setTimeout(r, 50));
        seen = await tally();
      }
      expect(seen).to.deep.equal(expected);
      for (const s of servers) expect(await s.stop()).to.equal(0);
    });
  });
}
