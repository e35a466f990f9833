// The queue's lanes, retry policies and schedule calls on every storage dialect, with a fixed
// clock: a kind's retry policy spaces the tries and gives up through onGiveUp; the due jobs of one
// lane are claimed together in order and handed to runBatch; two workers never hold one lane at
// once; a dead holder's lane is taken over once its lease runs out; scheduleJob / cancelJob /
// jobDueAt answer what the table holds, and a worker running a job leaves a new schedule in place.

import { expect } from 'chai';
import { pino } from 'pino';
import { dialects, migratedDatabase, type MigratedDatabase } from '../helpers/databases.js';
import { loadConfig } from '../../src/config.js';
import type { Dialect } from '../../src/db/connection.js';
import { JobWorker } from '../../src/jobs/worker.js';
import type { JobKind, JobNext } from '../../src/jobs/kind.js';
import { claimJobs } from '../../src/jobs/queue/claim.js';
import { cancelJob, jobDueAt, jobsDueAt, scheduleJob, wakeJob } from '../../src/jobs/queue/schedule.js';
import { SecretBox } from '../../src/auth/encryption.js';
import { EventOutbox } from '../../src/events/outbox.js';
import { SchemaRegistry } from '../../src/schemas/registry.js';
import { WebhookSender } from '../../src/webhooks/sender.js';
import { testOutbound } from '../helpers/outbound.js';
import { Platforms } from '../../src/platforms/registry.js';
import { liveAdapters } from '../../src/platforms/live.js';
import { Directory } from '../../src/brands/directory.js';
import { Trackers } from '../../src/trackers/registry.js';
import { adAccountReader } from '../../src/wiring/platforms.js';

const LEASE = 10_000;

for (const dialect of dialects()) {
  describe(`job lanes and retry policies (${dialect})`, function () {
    this.timeout(30_000);
    let db: MigratedDatabase;
    let clock = Date.UTC(2030, 0, 1, 0, 0, 0);
    const now = () => clock;
    const outbound = testOutbound();

    before(async () => {
      db = await migratedDatabase(dialect);
    });
    after(async () => {
      await outbound.close();
      await db?.close();
    });

    function worker(kinds: JobKind[], concurrency = 4): JobWorker {
      const schemas = new SchemaRegistry();
      const config = loadConfig({ DATABASE_URL: 'sqlite:unused' });
      return new JobWorker({
        knex: db.knex,
        config,
        log: pino({ level: 'silent' }),
        now,
        kinds,
        services: {
          dialect: dialect as Dialect,
          events: new EventOutbox(db.knex, schemas, now, false, () => {}),
          secrets: new SecretBox(Buffer.alloc(32, 1)),
          webhooks: new WebhookSender(outbound),
          outbound,
          invoke: () => Promise.reject(new Error('the queue tests run no operation')),
          platforms: new Platforms('sandbox', db.knex, now, liveAdapters(config, outbound), 0, adAccountReader),
          directory: new Directory(db.knex, 0, now),
          schemas,
          trackers: new Trackers(db.knex, now, outbound),
        },
        leaseMs: LEASE,
        concurrency,
      });
    }

    const row = (kind: string, key: string) => db.knex('jobs').where({ kind, job_key: key }).first();
    const count = async (kind: string) => Number((await db.knex('jobs').where({ kind }).count({ n: '*' }).first())!.n);
    const schedule = (kind: string, key: string, runAt: number | null, lane?: string, payload?: unknown) =>
      scheduleJob(db.knex, { kind, key, runAt, lane, payload, now: clock });

    it("spaces the tries by the kind's retry policy, then gives up through onGiveUp and deletes the job", async () => {
      const givenUp: string[] = [];
      const kind: JobKind = {
        kind: 'policy',
        retry: (attempts) => (attempts < 3 ? attempts * 1000 : null),
        async onGiveUp(ctx, job, error) {
          givenUp.push(`${job.key}:${error}@${ctx.now()}`);
        },
        async run() {
          throw new Error('receiver down');
        },
      };
      await schedule('policy', 'p1', clock);
      const w = worker([kind]);
      await w.drain();
      let r = await row('policy', 'p1');
      expect({ attempts: Number(r.attempts), runAt: Number(r.run_at), error: r.last_error }).to.deep.equal({
        attempts: 1,
        runAt: clock + 1000,
        error: 'receiver down',
      });
      clock += 1000;
      await w.drain();
      r = await row('policy', 'p1');
      expect({ attempts: Number(r.attempts), runAt: Number(r.run_at) }).to.deep.equal({ attempts: 2, runAt: clock + 2000 });
      expect(givenUp).to.deep.equal([]);
      clock += 2000;
      await w.drain();
      expect(givenUp).to.deep.equal([`p1:receiver down@${clock}`]);
      expect(await row('policy', 'p1')).to.equal(undefined);
    });

    it('keeps a job whose onGiveUp failed and gives it up on a later try', async () => {
      let refuse = true;
      const givenUp: string[] = [];
      const kind: JobKind = {
        kind: 'stubborn',
        retry: () => null,
        async onGiveUp(_ctx, job) {
          if (refuse) throw new Error('storage busy');
          givenUp.push(job.key);
        },
        async run() {
          throw new Error('no');
        },
      };
      await schedule('stubborn', 's1', clock);
      const w = worker([kind]);
      await w.drain();
      const r = await row('stubborn', 's1');
      expect(Number(r.attempts)).to.equal(1);
      expect(Number(r.run_at)).to.be.greaterThan(clock);
      refuse = false;
      clock = Number(r.run_at);
      await w.drain();
      expect(givenUp).to.deep.equal(['s1']);
      expect(await row('stubborn', 's1')).to.equal(undefined);
    });

    it('hands the due jobs of one lane to runBatch together, oldest due first then by id, and records each outcome', async () => {
      const batches: string[][] = [];
      const outcome: Record<string, JobNext | Error> = {};
      const kind: JobKind = {
        kind: 'batched',
        batch: 3,
        run: () => Promise.reject(new Error('runs in batches')),
        async runBatch(_ctx, jobs) {
          batches.push(jobs.map((j) => j.key));
          return new Map(jobs.map((j) => [j.id, j.key in outcome ? outcome[j.key] : 'done']));
        },
      };
      // Lane a: a2 is due first, then a1, a3, a4 at one time (by id), a5 later; lane b on its own.
      await schedule('batched', 'a1', clock - 500, 'lane-a');
      await schedule('batched', 'a2', clock - 900, 'lane-a');
      await schedule('batched', 'a3', clock - 500, 'lane-a');
      await schedule('batched', 'a4', clock - 500, 'lane-a');
      await schedule('batched', 'a5', clock + 60_000, 'lane-a');
      await schedule('batched', 'b1', clock - 100, 'lane-b');
      outcome.a1 = clock + 5_000;
      outcome.a3 = new Error('try later');
      outcome.a4 = null;
      await worker([kind], 1).drain();
      expect(batches).to.deep.equal([['a2', 'a1', 'a3'], ['a4'], ['b1']]);
      expect(await row('batched', 'a2')).to.equal(undefined);
      expect(await row('batched', 'b1')).to.equal(undefined);
      expect(Number((await row('batched', 'a1')).run_at)).to.equal(clock + 5_000);
      const a3 = await row('batched', 'a3');
      expect({ attempts: Number(a3.attempts), error: a3.last_error }).to.deep.equal({ attempts: 1, error: 'try later' });
      expect(Number(a3.run_at) - clock).to.be.within(4_000, 6_000);
      expect((await row('batched', 'a4')).run_at).to.equal(null);
      expect(Number((await row('batched', 'a5')).run_at)).to.equal(clock + 60_000);
      expect(await db.knex('job_lanes').whereNotNull('locked_by').count({ n: '*' }).first()).to.satisfy((r: any) => Number(r.n) === 0);
      for (const key of ['a1', 'a3', 'a4', 'a5']) await cancelJob(db.knex, 'batched', key);
    });

    it('lets one claimer hold a lane: a second claim at the same moment takes none of its jobs', async () => {
      for (let i = 1; i <= 6; i++) await schedule('held', `h${i}`, clock - 10 + i, 'lane-h');
      const opts = { now: clock, leaseMs: LEASE, limit: 4, batchOf: () => 2, maxBatch: 2 };
      const a = await claimJobs(db.knex, dialect as Dialect, { ...opts, workerId: 'a.1' });
      const b = await claimJobs(db.knex, dialect as Dialect, { ...opts, workerId: 'b.1' });
      expect(a.map((j) => [j.key, j.lane])).to.deep.equal([
        ['h1', 'lane-h'],
        ['h2', 'lane-h'],
      ]);
      expect(b).to.deep.equal([]);
      await db.knex('jobs').where({ kind: 'held' }).delete();
      await db.knex('job_lanes').where({ lane: 'lane-h' }).update({ locked_by: null, locked_until: null });
    });

    it('splits the queue by claim scope: `only` takes the lanes of its prefixes and its singles, `except` everything else', async () => {
      await schedule('scoped', 'd1', clock - 30, 'hooks:1');
      await schedule('scoped', 'd2', clock - 20, 'hooks:2');
      await schedule('scoped', 'o1', clock - 25, 'other:1');
      await schedule('fan', 'hooks', clock - 15);
      await schedule('fan', 'flows', clock - 14);
      await schedule('single', 's1', clock - 13);
      const split = { lanePrefixes: ['hooks:'], singles: [{ kind: 'fan', key: 'hooks' }] };
      const opts = { now: clock, leaseMs: LEASE, limit: 10 };
      const only = await claimJobs(db.knex, dialect as Dialect, { ...opts, workerId: 'only.1', scope: { mode: 'only', ...split } });
      const except = await claimJobs(db.knex, dialect as Dialect, { ...opts, workerId: 'except.1', scope: { mode: 'except', ...split } });
      expect(only.map((j) => j.key)).to.deep.equal(['d1', 'd2', 'hooks']);
      expect(except.map((j) => j.key)).to.deep.equal(['o1', 'flows', 's1']);
      // A third claimer of either share finds nothing left: each job was claimed once.
      const again = await claimJobs(db.knex, dialect as Dialect, { ...opts, workerId: 'again.1' });
      expect(again).to.deep.equal([]);
      await db.knex('jobs').whereIn('kind', ['scoped', 'fan', 'single']).delete();
      await db.knex('job_lanes').whereIn('lane', ['hooks:1', 'hooks:2', 'other:1']).delete();
    });

    it('splits the lanes of a share between claimers by shard: lane number modulo the count, each lane always to the same claimer', async () => {
      // Seven endpoint lanes (ids 1..7, 12 and 1003) with two jobs each, and the fan-out single.
      const ids = [1, 2, 3, 4, 5, 6, 7, 12, 1003];
      for (const id of ids) for (const n of [1, 2]) await schedule('sharded', `e${id}.${n}`, clock - 100 + n, `hooks:${id}`);
      await schedule('fan', 'hooks', clock - 50);
      const split = { lanePrefixes: ['hooks:'], singles: [{ kind: 'fan', key: 'hooks' }] };
      const opts = { now: clock, leaseMs: LEASE, limit: 20, batchOf: () => 1, maxBatch: 1 };
      const claimedBy = new Map<string, number>();
      // Two rounds: in each, every shard claims the next job of each of its lanes.
      for (let round = 0; round < 2; round++) {
        for (const index of [0, 1, 2]) {
          const jobs = await claimJobs(db.knex, dialect as Dialect, {
            ...opts,
            workerId: `shard${index}.${round}`,
            scope: { mode: 'only', ...split, singles: index === 0 ? split.singles : [], shard: { count: 3, index } },
          });
          for (const j of jobs) {
            if (j.lane) {
              expect(Number(j.lane.slice('hooks:'.length)) % 3, `${j.key} claimed by shard ${index}`).to.equal(index);
              expect(claimedBy.get(j.lane) ?? index, `${j.lane} claimed by two shards`).to.equal(index);
              claimedBy.set(j.lane, index);
            }
            await db.knex('jobs').where({ id: j.id }).delete();
            if (j.lane) await db.knex('job_lanes').where({ lane: j.lane }).update({ locked_by: null, locked_until: null });
            else expect([index, j.key]).to.deep.equal([0, 'hooks']);
          }
        }
      }
      expect([...claimedBy.keys()].sort()).to.deep.equal(ids.map((id) => `hooks:${id}`).sort());
      expect(await count('sharded')).to.equal(0);
      expect(await count('fan')).to.equal(0);
      await db
        .knex('job_lanes')
        .whereIn(
          'lane',
          ids.map((id) => `hooks:${id}`),
        )
        .delete();
    });

    it('never runs two jobs of one lane at once across two workers, and runs each lane in order', async () => {
      const running = new Map<string, number>();
      const order = new Map<string, string[]>();
      let overlap = 0;
      const kind: JobKind = {
        kind: 'ordered',
        async run(_ctx, job) {
          const lane = job.lane!;
          running.set(lane, (running.get(lane) ?? 0) + 1);
          if (running.get(lane)! > 1) overlap++;
          order.set(lane, [...(order.get(lane) ?? []), job.key]);
          await new Promise((r) => setTimeout(r, 2));
          running.set(lane, running.get(lane)! - 1);
          return 'done';
        },
      };
      const expected = new Map<string, string[]>();
      for (let i = 0; i < 12; i++) {
        for (const lane of ['x', 'y', 'z']) {
          await schedule('ordered', `${lane}${i}`, clock - 1000 + i, `lane-${lane}`);
          expected.set(`lane-${lane}`, [...(expected.get(`lane-${lane}`) ?? []), `${lane}${i}`]);
        }
      }
      await Promise.all([worker([kind]).drain(), worker([kind]).drain()]);
      expect(overlap).to.equal(0);
      expect(Object.fromEntries(order)).to.deep.equal(Object.fromEntries(expected));
      expect(await count('ordered')).to.equal(0);
    });

    it("takes a dead holder's lane over once its lease runs out, its claimed jobs first", async () => {
      const batches: string[][] = [];
      const kind: JobKind = {
        kind: 'orphaned',
        batch: 10,
        run: () => Promise.reject(new Error('runs in batches')),
        async runBatch(ctx, jobs) {
          batches.push(jobs.map((j) => `${j.key}@${ctx.now()}`));
          return new Map(jobs.map((j) => [j.id, 'done' as const]));
        },
      };
      for (let i = 1; i <= 3; i++) await schedule('orphaned', `o${i}`, clock - 10 + i, 'lane-o');
      // A process claims two of them and dies: nothing renews or finishes the claim.
      const dead = await claimJobs(db.knex, dialect as Dialect, { workerId: 'dead.1', now: clock, leaseMs: LEASE, limit: 1, batchOf: () => 2, maxBatch: 2 });
      expect(dead.map((j) => j.key)).to.deep.equal(['o1', 'o2']);
      await schedule('orphaned', 'o4', clock, 'lane-o');
      const w = worker([kind]);
      await w.drain();
      expect(batches).to.deep.equal([]);
      clock += LEASE + 1;
      await w.drain();
      expect(batches).to.deep.equal([['o1', 'o2', 'o3', 'o4'].map((k) => `${k}@${clock}`)]);
      expect(await count('orphaned')).to.equal(0);
    });

    it('schedules, moves and cancels a job, answers when jobs are due, and leaves a schedule made during a run in place', async () => {
      await schedule('planned', 'k1', clock + 60_000, undefined, { n: 1 });
      await schedule('planned', 'k2', null);
      expect(await jobDueAt(db.knex, 'planned', 'k1')).to.equal(clock + 60_000);
      expect(await jobDueAt(db.knex, 'planned', 'k2')).to.equal(null);
      expect(await jobDueAt(db.knex, 'planned', 'nope')).to.equal(null);
      await schedule('planned', 'k2', clock + 30_000);
      expect(Object.fromEntries(await jobsDueAt(db.knex, 'planned', ['k1', 'k2', 'nope']))).to.deep.equal({ k1: clock + 60_000, k2: clock + 30_000 });
      expect(JSON.parse((await row('planned', 'k1')).payload)).to.deep.equal({ n: 1 });

      const seen: unknown[] = [];
      const kind: JobKind = {
        kind: 'planned',
        async run(ctx, job) {
          seen.push(job.payload);
          // The change the job reports on moves it while it runs: the worker keeps the new time.
          if (job.key === 'k1') await scheduleJob(ctx.knex, { kind: 'planned', key: 'k1', runAt: clock + 90_000, now: clock });
          return clock + 1_000;
        },
      };
      await schedule('planned', 'k1', clock);
      await cancelJob(db.knex, 'planned', 'k2');
      await worker([kind]).drain();
      expect(seen).to.deep.equal([{ n: 1 }]);
      expect(await jobDueAt(db.knex, 'planned', 'k1')).to.equal(clock + 90_000);
      expect(await row('planned', 'k2')).to.equal(undefined);

      // A wake still makes a parked job due at once.
      await schedule('planned', 'k1', null);
      await wakeJob(db.knex, 'planned', 'k1', clock);
      expect(await jobDueAt(db.knex, 'planned', 'k1')).to.equal(clock);
      await cancelJob(db.knex, 'planned', 'k1');
    });

    it('lets a job cancelled while it runs finish without coming back', async () => {
      let runs = 0;
      const kind: JobKind = {
        kind: 'cancelled',
        async run(ctx, job) {
          runs++;
          await cancelJob(ctx.knex, 'cancelled', job.key);
          return clock + 1_000;
        },
      };
      await schedule('cancelled', 'c1', clock, 'lane-c');
      await worker([kind]).drain();
      expect(runs).to.equal(1);
      expect(await row('cancelled', 'c1')).to.equal(undefined);
    });
  });
}
