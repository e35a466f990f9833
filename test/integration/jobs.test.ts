// The job queue on every storage dialect, with a fixed clock: claims are exclusive across
// workers, a dead holder's lease runs out and another worker takes over, a wake during a run is
// never lost, failures back off, recurring kinds follow their cron, finished one-off jobs go.

import { expect } from 'chai';
import { pino } from 'pino';
import type { Knex } from 'knex';
import { dialects, migratedDatabase, type MigratedDatabase } from '../helpers/databases.js';
import { loadConfig } from '../../src/config.js';
import type { Dialect } from '../../src/db/connection.js';
import { JobWorker, nextCronTime } from '../../src/jobs/worker.js';
import type { JobKind } from '../../src/jobs/kind.js';
import { claimJobs } from '../../src/jobs/queue/claim.js';
import { wakeJob } from '../../src/jobs/queue/wake.js';
import { SecretBox } from '../../src/auth/encryption.js';
import { EventOutbox } from '../../src/events/outbox.js';
import { SchemaRegistry } from '../../src/schemas/registry.js';
import { WebhookSender } from '../../src/webhooks/sender.js';
import { testOutbound } from '../helpers/outbound.js';
import { backoffMs } from '../../src/jobs/queue/fail.js';
import { Platforms } from '../../src/platforms/registry.js';
import { liveAdapters } from '../../src/platforms/live.js';
import { Directory } from '../../src/brands/directory.js';
import { Trackers } from '../../src/trackers/registry.js';
import { adAccountReader } from '../../src/wiring/platforms.js';

const LEASE = 10_000;

for (const dialect of dialects()) {
  describe(`job queue (${dialect})`, function () {
    this.timeout(30_000);
    let db: MigratedDatabase;
    let clock = Date.UTC(2030, 0, 1, 0, 0, 0);
    const now = () => clock;
    const outbound = testOutbound();
    const sender = new WebhookSender(outbound);

    before(async () => {
      db = await migratedDatabase(dialect);
    });
    after(async () => {
      await outbound.close();
      await db?.close();
    });

    function worker(kinds: JobKind[], concurrency = 4): JobWorker {
      const schemas = new SchemaRegistry();
      return new JobWorker({
        knex: db.knex,
        config: loadConfig({ DATABASE_URL: 'sqlite:unused' }),
        log: pino({ level: 'silent' }),
        now,
        kinds,
        services: {
          dialect: dialect as Dialect,
          events: new EventOutbox(db.knex, schemas, now, false, () => {}),
          secrets: new SecretBox(Buffer.alloc(32, 1)),
          webhooks: sender,
          outbound,
          invoke: () => Promise.reject(new Error('the queue tests run no operation')),
          platforms: new Platforms('sandbox', db.knex, now, liveAdapters(loadConfig({ DATABASE_URL: 'sqlite:unused' }), outbound), 0, adAccountReader),
          directory: new Directory(db.knex, 0, now),
          schemas,
          trackers: new Trackers(db.knex, now, outbound),
        },
        leaseMs: LEASE,
        concurrency,
      });
    }

    const row = (kind: string, key: string) => db.knex('jobs').where({ kind, job_key: key }).first();
    const wake = (kind: string, key: string, k: Knex = db.knex) => wakeJob(k, kind, key, clock);

    it('runs each due job once when two workers claim at the same moment', async () => {
      const runs: string[] = [];
      const kind: JobKind = {
        kind: 'count',
        async run(_ctx, job) {
          runs.push(job.key);
          await new Promise((r) => setTimeout(r, 5));
          return 'done';
        },
      };
      for (let i = 0; i < 40; i++) await wake('count', `k${i}`);
      const a = worker([kind]);
      const b = worker([kind]);
      await Promise.all([a.drain(), b.drain()]);
      expect(runs.sort()).to.deep.equal(Array.from({ length: 40 }, (_, i) => `k${i}`).sort());
      expect(await db.knex('jobs').where({ kind: 'count' }).count({ n: '*' }).first()).to.satisfy((r: any) => Number(r.n) === 0);
    });

    it("lets another worker take a job over once its holder's lease runs out (the holder died)", async () => {
      const runs: string[] = [];
      const kind: JobKind = { kind: 'orphan', run: async (ctx, job) => (runs.push(`${job.key}@${ctx.now()}`), 'done') };
      await wake('orphan', 'o1');
      // A process claims it and dies: nothing renews or finishes the claim.
      const claimed = await claimJobs(db.knex, dialect as Dialect, { workerId: 'dead.1', now: clock, leaseMs: LEASE, limit: 10 });
      expect(claimed.map((j) => j.key)).to.include('o1');
      const w = worker([kind]);
      await w.drain();
      expect(runs).to.deep.equal([]);
      clock += LEASE + 1;
      await w.drain();
      expect(runs).to.deep.equal([`o1@${clock}`]);
    });

    it('runs a job again at once when it is woken while running, instead of parking it', async () => {
      let runs = 0;
      const kind: JobKind = {
        kind: 'woken',
        async run() {
          runs++;
          // New work for this job arrives while it runs (another transaction wakes it).
          if (runs === 1) await wake('woken', 'w1');
          return null;
        },
      };
      await wake('woken', 'w1');
      await worker([kind]).drain();
      expect(runs).to.equal(2);
      const r = await row('woken', 'w1');
      expect(r.run_at).to.equal(null);
      expect(r.locked_by).to.equal(null);
    });

    it('backs off after a failure, records the error, and clears it after a success', async () => {
      let fail = true;
      const kind: JobKind = {
        kind: 'flaky',
        async run() {
          if (fail) throw new Error('platform said no');
          return null;
        },
      };
      await wake('flaky', 'f1');
      const w = worker([kind]);
      await w.drain();
      let r = await row('flaky', 'f1');
      expect(r.attempts).to.equal(1);
      expect(r.last_error).to.equal('platform said no');
      expect(Number(r.run_at) - clock).to.be.within(4_000, 6_000);
      expect(r.locked_by).to.equal(null);
      fail = false;
      clock = Number(r.run_at);
      await w.drain();
      r = await row('flaky', 'f1');
      expect(r).to.deep.include({ attempts: 0, last_error: null, run_at: null });
      expect(backoffMs(3, () => 0.5)).to.equal(40_000);
      expect(backoffMs(30, () => 0.5)).to.equal(3_600_000);
    });

    it('keeps one row per recurring kind and runs it at each cron time', async () => {
      const at: number[] = [];
      const kind: JobKind = { kind: 'every-ten', schedule: '*/10 * * * *', run: async (ctx) => void at.push(ctx.now()) };
      clock = Date.UTC(2030, 0, 1, 0, 3, 0);
      const w = worker([kind]);
      await w.drain();
      expect(at).to.deep.equal([]);
      expect(Number((await row('every-ten', 'schedule')).run_at)).to.equal(Date.UTC(2030, 0, 1, 0, 10, 0));
      clock = Date.UTC(2030, 0, 1, 0, 10, 0);
      await w.drain();
      await worker([kind]).drain(); // a second process finds the same single row, not yet due again
      expect(at).to.deep.equal([clock]);
      expect(Number((await row('every-ten', 'schedule')).run_at)).to.equal(Date.UTC(2030, 0, 1, 0, 20, 0));
      expect(await db.knex('jobs').where({ kind: 'every-ten' }).count({ n: '*' }).first()).to.satisfy((r: any) => Number(r.n) === 1);
      expect(nextCronTime('0 9 * * *', Date.UTC(2030, 2, 31, 12), 'Europe/Berlin')).to.equal(Date.UTC(2030, 3, 1, 7));
    });
  });
}
