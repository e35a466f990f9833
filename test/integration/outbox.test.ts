// The transactional outbox with a running worker: an event emitted in a transaction that rolls back
// leaves no event, delivery or wake behind and never reaches a receiver, even when the worker
// claims while that transaction is still open; a committed event after it is delivered.

import { expect } from 'chai';
import { observePrepared } from '../../src/db/prepared.js';
import { pino } from 'pino';
import { applyBootstrap } from '../../src/bootstrap.js';
import { loadConfig } from '../../src/config.js';
import type { EmittedEvent } from '../../src/events/outbox.js';
import { SchemaRegistry } from '../../src/schemas/registry.js';
import { Service } from '../../src/service.js';
import { rejectionOf } from '../helpers/assert.js';
import { dialects, migratedDatabase, type MigratedDatabase } from '../helpers/databases.js';
import { producedData } from '../helpers/event-producer.js';
import { waitUntil } from '../helpers/launches.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';
import { tenantDocument, tenantOf, type Tenant } from '../helpers/webhook-servers.js';

const ROLLED_BACK = 666;
const COMMITTED = 777;

for (const dialect of dialects()) {
  describe(`event outbox with a running worker (${dialect})`, function () {
    this.timeout(30_000);
    let db: MigratedDatabase;
    let service: Service;
    let receiver: WebhookReceiver;
    let tenant: Tenant;
    let endpointId: number;

    before(async () => {
      db = await migratedDatabase(dialect);
      tenant = tenantOf(await applyBootstrap(db.knex, new SchemaRegistry(), tenantDocument));
      service = await Service.open({
        config: loadConfig({ DATABASE_URL: db.url, LOG_LEVEL: 'silent', WEBHOOK_ALLOW_PRIVATE: 'true' }),
        log: pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }),
      });
      receiver = await new WebhookReceiver().start();
      const principal = await service.authenticate(`Bearer ${tenant.key}`, 'api');
      const created = await service.invoke(
        'create-webhook-endpoint',
        principal,
        { url: receiver.url, events: ['budget.changed'], brandIds: null, enabled: true },
        { requestId: 'req_outbox_test' },
      );
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      const body = created.body as { endpointId: number; secret: string };
      endpointId = body.endpointId;
      receiver.secrets = [body.secret];
      await service.startJobs();
    });
    after(async () => {
      await service?.close();
      await receiver?.close();
      await db?.close();
    });

    const count = async (table: string, where: Record<string, unknown> = {}) => Number((await db.knex(table).where(where).count({ n: '*' }).first())?.n);

    /** Resolves once the worker has run a claim on the jobs table that was sent after this call (the claim's statements are prepared ones, src/db/prepared.ts). */
    function claimFinished(): Promise<void> {
      return new Promise((resolve) => {
        const claims = (sql: string) => /^select .*from [`"]?jobs[`"]? /i.test(sql) && sql.includes('locked_until');
        const stop = observePrepared({
          after(sql) {
            if (!claims(sql)) return;
            stop();
            resolve();
          },
        });
      });
    }

    it('never delivers an event whose transaction rolled back, though the worker claimed while it was open; the next committed event is delivered', async () => {
      const event = (n: number) => ({
        organizationId: tenant.organizationId,
        brandId: tenant.brandId,
        type: 'budget.changed',
        data: producedData(tenant.brandId, n),
      });
      // A separate connection from the service's, as another request's transaction would be.
      let rolledBack: EmittedEvent | undefined;
      const failure = await rejectionOf(
        db.knex.transaction(async (trx) => {
          rolledBack = await service.events.emit(trx, event(ROLLED_BACK));
          await claimFinished();
          throw new Error('the handler failed after emitting');
        }),
      );
      expect(failure.message).to.equal('the handler failed after emitting');
      // Nothing of it is left: no event, no delivery, and not even the wake of the job.
      expect(await count('events', { public_id: rolledBack!.publicId })).to.equal(0);
      expect(await count('webhook_deliveries')).to.equal(0);
      expect(await db.knex('jobs').where({ kind: 'deliver-webhook' }).select('job_key')).to.deep.equal([]);

      const committed = await db.knex.transaction((trx) => service.events.emit(trx, event(COMMITTED)));
      await receiver.waitFor(1);
      // One more claim after the delivery: a rolled-back event would have been due by now.
      await claimFinished();
      expect(receiver.received.map((r) => r.id)).to.deep.equal([committed.publicId]);
      expect(receiver.received[0].verifiedWith).to.deep.equal([0]);
      const amounts = [...receiver.received, ...receiver.dropped].map((r) => r.body.data.budget.amountMinorUnits);
      expect(amounts).to.deep.equal([COMMITTED]);
      await waitUntil(async () => (await count('webhook_deliveries', { status: 'succeeded' })) === 1, 'the delivery to be recorded');
      const rows = await db.knex('webhook_deliveries as d').join('events as e', 'e.id', 'd.event_id').select('e.public_id', 'd.endpoint_id', 'd.status');
      expect(rows.map((r) => ({ ...r, endpoint_id: Number(r.endpoint_id) }))).to.deep.equal([
        { public_id: committed.publicId, endpoint_id: endpointId, status: 'succeeded' },
      ]);
      expect(await count('events')).to.equal(1);
    });
  });
}
