// Outbox subscribers on every storage dialect, with a fixed clock: each committed event of a
// subscriber's types is handed to it exactly once, also when two worker processes (each with its
// own connections) consume at once and when two consumers race on one position; an event whose id
// is smaller than one already read but which commits later is still handed over (its id is kept as
// a gap until it shows up, and given up only after the settle time); an emit whose wake was lost
// (the process died after the commit) is picked up when a worker starts.

import { expect } from 'chai';
import { pino } from 'pino';
import type { Knex } from 'knex';
import { applyBootstrap } from '../../src/bootstrap.js';
import { loadConfig } from '../../src/config.js';
import { openDatabase, type Dialect } from '../../src/db/connection.js';
import { EventOutbox } from '../../src/events/outbox.js';
import { positions } from '../../src/events/store.js';
import { SETTLE_MS, consumeBatch, subscriberJobKind, type EventSubscriber } from '../../src/events/subscribers.js';
import type { JobContext } from '../../src/jobs/kind.js';
import { JobWorker } from '../../src/jobs/worker.js';
import { SecretBox } from '../../src/auth/encryption.js';
import { SchemaRegistry } from '../../src/schemas/registry.js';
import { WebhookSender } from '../../src/webhooks/sender.js';
import { Platforms } from '../../src/platforms/registry.js';
import { liveAdapters } from '../../src/platforms/live.js';
import { Directory } from '../../src/brands/directory.js';
import { Trackers } from '../../src/trackers/registry.js';
import { dialects, migratedDatabase, type MigratedDatabase } from '../helpers/databases.js';
import { producedData } from '../helpers/event-producer.js';
import { testOutbound } from '../helpers/outbound.js';
import { tenantDocument, tenantOf, type Tenant } from '../helpers/webhook-servers.js';
import { adAccountReader } from '../../src/wiring/platforms.js';

for (const dialect of dialects()) {
  describe(`outbox subscribers (${dialect})`, function () {
    this.timeout(60_000);
    let db: MigratedDatabase;
    let tenant: Tenant;
    let clock = Date.UTC(2030, 0, 1, 0, 0, 0);
    const now = () => clock;
    const outbound = testOutbound();
    const schemas = new SchemaRegistry();
    const config = loadConfig({ DATABASE_URL: 'sqlite:unused' });
    const others: Knex[] = [];

    before(async () => {
      db = await migratedDatabase(dialect);
      tenant = tenantOf(await applyBootstrap(db.knex, new SchemaRegistry(), tenantDocument));
      await db.knex.schema.createTable('test_seen', (t) => {
        t.string('subscriber', 64).notNullable();
        t.bigInteger('event_id').notNullable();
      });
    });
    after(async () => {
      for (const k of others) await k.destroy();
      await outbound.close();
      await db?.close();
    });

    /** A second process's own connections to the same database. */
    function connection(): Knex {
      const k = openDatabase(db.url).knex;
      others.push(k);
      return k;
    }

    /** A subscriber that writes what it was handed in the transaction that advances its position. */
    function recorder(name: string, types = ['budget.changed']): EventSubscriber {
      return {
        name,
        types,
        async handle(_ctx, trx, events) {
          await trx('test_seen').insert(events.map((e) => ({ subscriber: name, event_id: e.id })));
        },
      };
    }
    const seen = async (name: string) => (await db.knex('test_seen').where({ subscriber: name }).orderBy('event_id').pluck('event_id')).map(Number);

    function services(knex: Knex, subscribers: EventSubscriber[] = []) {
      return {
        dialect: dialect as Dialect,
        events: new EventOutbox(knex, schemas, now, false, () => {}, subscribers),
        secrets: new SecretBox(Buffer.alloc(32, 1)),
        webhooks: new WebhookSender(outbound),
        outbound,
        invoke: () => Promise.reject(new Error('the subscriber tests run no operation')),
        platforms: new Platforms('sandbox', knex, now, liveAdapters(config, outbound), 0, adAccountReader),
        directory: new Directory(knex, 0, now),
        schemas,
        trackers: new Trackers(knex, now, outbound),
      };
    }

    function worker(knex: Knex, subscribers: EventSubscriber[]): JobWorker {
      return new JobWorker({
        knex,
        config,
        log: pino({ level: 'silent' }),
        now,
        kinds: [subscriberJobKind(subscribers)],
        services: services(knex, subscribers),
        leaseMs: 10_000,
        concurrency: 4,
      });
    }

    function context(knex: Knex): JobContext {
      return { ...services(knex), knex, config, log: pino({ level: 'silent' }), now, stillOwned: () => true };
    }

    let n = 0;
    async function emit(outbox: EventOutbox, knex: Knex = db.knex, type = 'budget.changed'): Promise<number> {
      const data = type === 'budget.changed' ? producedData(tenant.brandId, ++n) : { brandId: tenant.brandId, error: 'x' };
      return knex.transaction(async (trx) => (await outbox.emit(trx, { organizationId: tenant.organizationId, brandId: tenant.brandId, type, data })).id);
    }

    it('hands every committed event of its types over exactly once while two worker processes consume', async () => {
      const sub = recorder('twice');
      const a = worker(connection(), [sub]);
      const b = worker(connection(), [sub]);
      // The subscriber starts reading after the events already there.
      await Promise.all([a.drain(), b.drain()]);
      const outbox = new EventOutbox(db.knex, schemas, now, false, () => {}, [sub]);
      const ids: number[] = [];
      for (let round = 0; round < 5; round++) {
        ids.push(...(await Promise.all(Array.from({ length: 30 }, () => emit(outbox)))));
        await emit(outbox, db.knex, 'tracker.push.failed'); // not of its types
        await Promise.all([a.drain(), b.drain()]);
      }
      expect(await seen('twice')).to.deep.equal(ids.sort((x, y) => x - y));
      const [position] = (await positions(db.knex)).filter((p) => p.name === 'twice');
      expect(position.gaps).to.deep.equal([]);
    });

    it('hands over only the events it wants, read in full, at most 500 per transaction and in order', async () => {
      const handed: number[][] = [];
      const asked = new Set<number>();
      const sub: EventSubscriber = {
        ...recorder('choosy'),
        // Wants every third event of its types; the heads come with their organization.
        async wants(_ctx, _trx, heads) {
          for (const h of heads) expect([h.type, h.organizationId]).to.deep.equal(['budget.changed', tenant.organizationId]);
          for (const h of heads) asked.add(h.id);
          return heads.filter((h) => h.id % 3 === 0);
        },
        async handle(_ctx, trx, events) {
          handed.push(events.map((e) => e.id));
          await trx('test_seen').insert(events.map((e) => ({ subscriber: 'choosy', event_id: e.id })));
        },
      };
      const ctx = context(db.knex);
      await consumeBatch(ctx, sub);
      asked.clear();
      const before = Number((await db.knex('events').max({ id: 'id' }).first())?.id ?? 0);
      const outbox = new EventOutbox(db.knex, schemas, now, false, () => {});
      const emitted = (count: number, type: string) =>
        Array.from({ length: count }, () => ({
          organizationId: tenant.organizationId,
          brandId: tenant.brandId,
          type,
          data: type === 'budget.changed' ? producedData(tenant.brandId, ++n) : { brandId: tenant.brandId, error: 'x' },
        }));
      await db.knex.transaction((trx) => outbox.emitMany(trx, [...emitted(1800, 'budget.changed'), ...emitted(200, 'tracker.push.failed')]));
      const ofType = (await db.knex('events').where('id', '>', before).where({ type: 'budget.changed' }).orderBy('id').pluck('id')).map(Number);
      const wanted = ofType.filter((id) => id % 3 === 0);
      expect(await consumeBatch(ctx, sub)).to.equal(true);
      while (await consumeBatch(ctx, sub));
      // Every head of its types was offered; only the wanted ones were handed over, at most 500 at a time.
      expect([...asked].sort((x, y) => x - y)).to.deep.equal(ofType);
      expect(handed.map((batch) => batch.length)).to.deep.equal([500, wanted.length - 500]);
      expect(handed.flat()).to.deep.equal(wanted);
      expect(await seen('choosy')).to.deep.equal(wanted);
      expect((await positions(db.knex)).find((p) => p.name === 'choosy')!.position).to.equal(Math.max(...ofType, before + 2000));
    });

    it('advances a position once when two consumers race on it (a lost lease), handing each event over once', async () => {
      const sub = recorder('raced');
      const ctxA = context(connection());
      const ctxB = context(connection());
      await consumeBatch(ctxA, sub);
      const outbox = new EventOutbox(db.knex, schemas, now, false, () => {});
      const ids: number[] = [];
      for (let round = 0; round < 4; round++) {
        ids.push(...(await Promise.all(Array.from({ length: 10 }, () => emit(outbox)))));
        // Both run a whole batch at the same moment; one of them may be refused and tries again.
        const race = (ctx: JobContext) => consumeBatch(ctx, sub).catch(() => consumeBatch(ctx, sub));
        await Promise.all([race(ctxA), race(ctxB)]);
      }
      await consumeBatch(ctxA, sub);
      expect(await seen('raced')).to.deep.equal(ids.sort((x, y) => x - y));
    });

    it('hands over an event committed after one with a larger id, and gives an id up only after the settle time', async () => {
      const sub = recorder('late');
      const ctx = context(db.knex);
      await consumeBatch(ctx, sub);
      const outbox = new EventOutbox(db.knex, schemas, now, false, () => {});
      let lateId: number;
      let laterId: number;
      if (dialect === 'mysql') {
        // A real transaction holds the smaller id open while a larger one commits.
        const open = await connection().transaction();
        lateId = (
          await outbox.emit(open, {
            organizationId: tenant.organizationId,
            brandId: tenant.brandId,
            type: 'budget.changed',
            data: producedData(tenant.brandId, ++n),
          })
        ).id;
        laterId = await emit(outbox);
        await consumeBatch(ctx, sub);
        expect(await seen('late')).to.deep.equal([laterId]);
        await open.commit();
      } else {
        // SQLite has one writer, so ids commit in order; the late commit is played by taking the
        // row out while the larger one is read and putting it back with its id.
        lateId = await emit(outbox);
        laterId = await emit(outbox);
        const row = await db.knex('events').where({ id: lateId }).first();
        await db.knex('events').where({ id: lateId }).delete();
        await consumeBatch(ctx, sub);
        expect(await seen('late')).to.deep.equal([laterId]);
        await db.knex('events').insert(row);
      }
      expect(lateId).to.be.lessThan(laterId);
      clock += SETTLE_MS - 1;
      await consumeBatch(ctx, sub);
      expect(await seen('late')).to.deep.equal([lateId, laterId]);
      expect((await positions(db.knex)).find((p) => p.name === 'late')!.gaps).to.deep.equal([]);

      // An id that never commits (its transaction rolled back) is looked for until the settle time.
      const ghost = 0;
      await db
        .knex('event_positions')
        .where({ name: 'late' })
        .update({ gaps: JSON.stringify([[ghost, ghost, clock]]) });
      clock += SETTLE_MS - 1;
      await consumeBatch(ctx, sub);
      expect((await positions(db.knex)).find((p) => p.name === 'late')!.gaps).to.deep.equal([[ghost, ghost, clock - SETTLE_MS + 1]]);
      clock += 1;
      await consumeBatch(ctx, sub);
      expect((await positions(db.knex)).find((p) => p.name === 'late')!.gaps).to.deep.equal([]);
    });

    it('wakes its subscribers after the commit, and a starting worker picks up an event whose wake was lost', async () => {
      const sub = recorder('restart');
      const first = worker(db.knex, [sub]);
      await first.drain();
      let committed!: () => void;
      const wakeDone = new Promise<void>((r) => (committed = r));
      const waking = new EventOutbox(db.knex, schemas, now, false, () => committed(), [sub]);
      const woken = await emit(waking);
      // The wake runs after the commit, then tells the local worker to claim.
      await wakeDone;
      await first.drain();
      expect(await seen('restart')).to.deep.equal([woken]);

      // The process died between the commit and the wake: nothing makes the job due...
      const lost = await emit(new EventOutbox(db.knex, schemas, now, false, () => {}));
      await first.drain();
      expect(await seen('restart')).to.deep.equal([woken]);
      // ...until a worker starts.
      await worker(db.knex, [sub]).drain();
      expect(await seen('restart')).to.deep.equal([woken, lost]);
    });
  });
}
