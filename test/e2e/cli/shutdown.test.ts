// A stopping `svc-server serve` (SIGTERM) with a job running: the job is a webhook delivery held
// open by its receiver. Within SHUTDOWN_GRACE_MS the job finishes and is recorded; past it, the job
// is released (its lease ended at once, not left to run out) and a second process picks it up and
// delivers it. Either way the process exits 0.

import { expect } from 'chai';
import { createMigratedTestDatabase, dialects, type TestDatabase } from '../../helpers/databases.js';
import { EventProducer } from '../../helpers/event-producer.js';
import { requestJson } from '../../helpers/http.js';
import { waitUntil } from '../../helpers/launches.js';
import { runningChildren, startSvcServer, stopAllServers } from '../../helpers/processes.js';
import { WebhookReceiver } from '../../helpers/webhook-receiver.js';
import { allDeliveries, seedTenant, type Tenant } from '../../helpers/webhook-servers.js';

for (const dialect of dialects()) {
  describe(`svc-server stopping with a running job (${dialect})`, function () {
    this.timeout(90_000);
    let db: TestDatabase;
    let tenant: Tenant;
    let producer: EventProducer | undefined;
    let receiver: WebhookReceiver | undefined;
    // The default 30 s lease: a second process gets the job at once only if the first released it.
    const env = (graceMs: number) => ({ DATABASE_URL: db.url, WEBHOOK_ALLOW_PRIVATE: 'true', SHUTDOWN_GRACE_MS: String(graceMs), LOG_LEVEL: 'info' });

    beforeEach(async () => {
      db = await createMigratedTestDatabase(dialect);
      tenant = await seedTenant(db.url);
      receiver = await new WebhookReceiver().start();
      producer = new EventProducer(db.url, tenant.organizationId, [tenant.brandId]);
    });
    afterEach(async () => {
      await stopAllServers();
      await producer?.close();
      await receiver?.close();
      await db?.drop();
    });
    after(() => {
      expect(runningChildren()).to.equal(0);
    });

    /** Starts a server, points an endpoint at the receiver, holds it, and emits one event: its delivery job is then running. */
    async function serverWithRunningJob(graceMs: number) {
      const server = await startSvcServer(['serve'], { env: env(graceMs) });
      const created = await requestJson(server.url, 'POST', '/v1/webhook-endpoints', {
        key: tenant.key,
        body: { url: receiver!.url, events: ['budget.changed'], brandIds: null },
      });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      receiver!.secrets = [created.body.secret];
      receiver!.hold();
      await producer!.produce(1);
      await waitUntil(() => receiver!.waiting === 1, 'the delivery to be in flight', 15_000);
      return { server, endpointId: created.body.endpointId as number };
    }

    const deliveryJobs = () => producer!.knex('jobs').where({ kind: 'deliver-webhook' }).select('locked_by', 'locked_until');

    it('past the grace: releases the running job, exits 0, and a second process delivers it', async () => {
      const { server: first, endpointId } = await serverWithRunningJob(300);
      expect(await first.stop('SIGTERM')).to.equal(0);
      expect(first.stdout).to.contain('running jobs released to other processes');
      // Released: nobody holds the job, though its 30 s lease would still run.
      const jobs = await deliveryJobs();
      expect(jobs).to.have.length(1);
      expect(jobs[0]).to.deep.equal({ locked_by: null, locked_until: null });
      // The stopped process's request never got its answer: not delivered.
      await waitUntil(() => receiver!.dropped.length === 1, 'the held request to be dropped', 10_000);
      receiver!.release();

      const second = await startSvcServer(['serve'], { env: env(10_000) });
      await receiver!.waitFor(1, 30_000);
      expect(receiver!.received.map((r) => r.id)).to.deep.equal(producer!.emitted);
      expect(receiver!.dropped.map((r) => r.id)).to.deep.equal(producer!.emitted);
      await waitUntil(
        async () => (await allDeliveries(second.url, tenant.key, endpointId)).every((d) => d.status === 'succeeded'),
        'the delivery to be recorded',
        10_000,
        50,
      );
      // The released run's request may be recorded as an attempt without an answer (its connection
      // closed as the process stopped); the delivery succeeds at the second process's send.
      const [delivery, ...others] = await allDeliveries(second.url, tenant.key, endpointId);
      expect(others).to.deep.equal([]);
      expect(delivery.status).to.equal('succeeded');
      expect(delivery.attempts.map((a) => a.statusCode).filter((c) => c !== null)).to.deep.equal([200]);
      expect(await second.stop('SIGTERM')).to.equal(0);
    });

    it('within the grace: lets the running job finish and record its delivery, then exits 0', async () => {
      const { server: first, endpointId } = await serverWithRunningJob(30_000);
      const stopping = first.stop('SIGTERM', 40_000);
      await waitUntil(() => first.stdout.includes('shutting down'), 'the server to begin stopping', 10_000);
      // New requests are no longer taken once it stops listening; the running job still finishes.
      receiver!.release();
      expect(await stopping).to.equal(0);
      expect(first.stdout).to.not.contain('released to other processes');
      expect(receiver!.received.map((r) => r.id)).to.deep.equal(producer!.emitted);
      expect(await deliveryJobs()).to.deep.equal([]);
      const second = await startSvcServer(['serve'], { env: env(10_000) });
      const log = await allDeliveries(second.url, tenant.key, endpointId);
      expect(log.map((d) => ({ status: d.status, attempts: d.attempts.map((a) => a.statusCode) }))).to.deep.equal([{ status: 'succeeded', attempts: [200] }]);
      expect(receiver!.received).to.have.length(1);
      expect(await second.stop('SIGTERM')).to.equal(0);
    });
  });
}
