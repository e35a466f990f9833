// An automation against the fake Meta Graph API in live mode: it reads each window once per level
// for the whole account, pauses through Graph, waits out throttling (codes 4, 17, 32, 613 with the
// wait from X-Business-Use-Case-Usage), and a pause the platform keeps refusing is retried by the
// job with backoff and ends in automation.action_failed; a run still open while it acts reads with
// the objects it is about to act on.

import crypto from 'node:crypto';
import { expect } from 'chai';
import { pino } from 'pino';
import { dialects, createMigratedTestDatabase, type TestDatabase } from '../helpers/databases.js';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/connection.js';
import { migrateLatest } from '../../src/db/migrate.js';
import { applyBootstrap } from '../../src/bootstrap.js';
import { SchemaRegistry, loadSchemaFiles } from '../../src/schemas/registry.js';
import { Service } from '../../src/service.js';
import { liveAdapters } from '../../src/platforms/live.js';
import { newNodeId } from '../../src/launches/store.js';
import type { Principal } from '../../src/auth/principal.js';
import { standardWorld } from '../helpers/fixture.js';
import { FakeMetaServer } from '../fakes/meta-server.js';
import { testOutbound } from '../helpers/outbound.js';

const MINUTE = 60_000;
/** Saturday 2030-03-09 10:00 in New York. */
const START = Date.UTC(2030, 2, 9, 15, 0);
const TODAY = '2030-03-09';

for (const dialect of dialects()) {
  describe(`automations against the fake Meta Graph API, live mode (${dialect})`, function () {
    this.timeout(60_000);
    let db: TestDatabase;
    let service: Service;
    let fake: FakeMetaServer;
    let clock = START;
    let orgId: number;
    let brandId: number;
    let ci: Principal;
    let savedKey: string | undefined;
    const sleeps: number[] = [];
    /** Called inside the adapter's wait (the run is then open: decided, not yet acted). */
    let whileWaiting: (() => Promise<void>) | null = null;
    let n = 0;

    before(async () => {
      savedKey = process.env.TOKEN_ENCRYPTION_KEY;
      if (!savedKey) process.env.TOKEN_ENCRYPTION_KEY = crypto.randomBytes(32).toString('base64');
      fake = await FakeMetaServer.start();
      const token = fake.addAccount('act_1001');
      const world = JSON.parse(JSON.stringify(standardWorld));
      world.organizations[0].brands[0].adAccounts[0].accessToken = token;
      db = await createMigratedTestDatabase(dialect);
      const setup = openDatabase(db.url);
      await migrateLatest(setup.knex);
      const seed = await applyBootstrap(setup.knex, new SchemaRegistry(loadSchemaFiles()), world);
      await setup.knex.destroy();
      orgId = seed.organizations.acme.id;
      brandId = seed.organizations.acme.brands.shoes.id;
      const config = loadConfig({
        DATABASE_URL: db.url,
        LOG_LEVEL: 'silent',
        SVC_STRICT_OUTPUT: 'true',
        PLATFORM_MODE: 'live',
        META_GRAPH_URL: fake.url,
        RATE_LIMIT_PER_MINUTE: '100000',
      });
      service = await Service.open({
        config,
        log: pino({ level: 'silent' }),
        now: () => clock,
        liveAdapters: liveAdapters(config, testOutbound(), {
          metaGraphUrl: fake.url,
          sleep: async (ms) => {
            sleeps.push(ms);
            await whileWaiting?.();
          },
          random: () => 0.5,
          timeoutMs: 5_000,
        }),
      });
      ci = await service.authenticate(`Bearer ${seed.organizations.acme.apiKeys.ci.secret}`, 'api');
    });
    after(async () => {
      await service?.close();
      await fake?.close();
      await db?.drop();
      if (savedKey === undefined) delete process.env.TOKEN_ENCRYPTION_KEY;
    });

    async function call(name: string, input: Record<string, unknown>): Promise<any> {
      return (await service.invoke(name, ci, { brandId, ...input }, { requestId: `m-${++n}` })).body;
    }

    /** A campaign on the fake platform, launched through the service (a live node), with today's delivery. */
    async function liveCampaign(name: string, results: number): Promise<{ objectId: string; nodeId: string }> {
      const objectId = fake.seedCampaign('act_1001', { name, dailyBudget: 20_000 });
      fake.seedStats(objectId, TODAY, { spendMinor: 5_000, impressions: 40_000, clicks: 400, results, revenueMinor: results * 3_000 });
      const [launchId] = await service.knex('launches').insert({
        organization_id: orgId,
        brand_id: brandId,
        account_id: 'act_1001',
        title: name,
        description: null,
        status: 'published',
        status_reason: null,
        created_at: clock,
        updated_at: clock,
        published_at: clock,
      });
      const nodeId = newNodeId();
      await service.knex('launch_nodes').insert({
        id: nodeId,
        launch_id: Number(launchId),
        parent_id: null,
        node_type: 'campaign',
        account_id: 'act_1001',
        name,
        properties: JSON.stringify({ name, status: 'ACTIVE' }),
        platform_id: objectId,
        status: 'live',
        created_at: clock,
        updated_at: clock,
      });
      return { objectId, nodeId };
    }

    const rule = (objectIds: string[], extra: Record<string, unknown> = {}) =>
      call('create-automation', {
        automationName: `Meta rule ${++n}`,
        accountId: 'act_1001',
        level: 'campaign',
        objectIds,
        action: 'pause',
        frequency: 'every_15_minutes',
        cooldownMinutes: 0,
        conditions: [
          { metric: 'spend', window: 'today', operator: 'gt', value: 1000 },
          { metric: 'results', window: 'today', operator: 'lt', value: 1 },
          { metric: 'ctr', window: 'today', operator: 'gte', value: 0.5 },
        ],
        ...extra,
      });
    const insightReads = () => fake.requests.filter((r) => r.method === 'GET' && r.path.endsWith('/act_1001/insights')).length;
    const disarm = (a: { automationId: number }) => call('set-automation-status', { automationId: String(a.automationId), status: 'PAUSED' });
    const lastRun = async (a: { automationId: number }) => (await call('list-automation-runs', { automationId: String(a.automationId) })).runs[0];

    it("pauses through the Graph API after one insights read for the account's window and level", async () => {
      const burner = await liveCampaign('Burner', 0);
      const winner = await liveCampaign('Winner', 12);
      const reads = insightReads();
      const a = await rule([burner.objectId, winner.objectId]);
      await service.jobs.drain();
      expect(insightReads() - reads).to.equal(1);
      expect(fake.objects.get(burner.objectId)!.status).to.equal('PAUSED');
      expect(fake.objects.get(winner.objectId)!.status).to.equal('ACTIVE');
      const run = await lastRun(a);
      const b = run.objects.find((o: any) => o.objectId === burner.objectId);
      // $50.00 spent is 5000 minor units; 400 clicks over 40,000 impressions is a 1 % ctr.
      expect(b.metrics.today).to.deep.equal({ spend: 5000, results: 0, ctr: 1 });
      expect(b.action).to.equal('paused');
      await disarm(a);
    });

    for (const code of [4, 32, 613]) {
      it(`waits out throttling code ${code} for the time Graph gives, then reads and pauses`, async () => {
        const burner = await liveCampaign(`Burner ${code}`, 0);
        const a = await rule([burner.objectId], { status: 'PAUSED' });
        sleeps.length = 0;
        // A short wait (X-Ad-Account-Usage reset_time_duration) is waited in place; a longer one reschedules the job.
        fake.throttleNext(1, { code, seconds: 10 });
        const run = await call('run-automation', { automationId: String(a.automationId) });
        expect(sleeps).to.deep.equal([10_000]);
        expect(run.objects[0].action).to.equal('paused');
        expect(fake.objects.get(burner.objectId)!.status).to.equal('PAUSED');
      });
    }

    it('waits out throttling code 17 on the pause itself inside a Graph batch', async () => {
      const burner = await liveCampaign('Burner 17', 0);
      const a = await rule([burner.objectId], { status: 'PAUSED' });
      sleeps.length = 0;
      fake.throttleNextItems(1, 0.2);
      const run = await call('run-automation', { automationId: String(a.automationId) });
      expect(sleeps).to.deep.equal([12_000]);
      expect(run.objects[0].action).to.equal('paused');
      expect(fake.objects.get(burner.objectId)!.status).to.equal('PAUSED');
    });

    it('an open run (acting, not yet closed) reads with the objects it is about to act on; closed, with every object evaluated', async () => {
      const burner = await liveCampaign('Burner open', 0);
      const winner = await liveCampaign('Winner open', 12);
      const a = await rule([burner.objectId, winner.objectId], { status: 'PAUSED' });
      let open: any = null;
      whileWaiting = async () => {
        open = await lastRun(a);
      };
      fake.throttleNextItems(1, 0.2);
      try {
        await call('run-automation', { automationId: String(a.automationId) });
      } finally {
        whileWaiting = null;
      }
      expect(open.objects.map((o: any) => o.objectId)).to.deep.equal([burner.objectId]);
      expect(open.objects[0]).to.include({ intended: 'pause', action: 'none', skipReason: null, error: null, matched: true });
      const closed = await lastRun(a);
      expect(closed.runId).to.equal(open.runId);
      expect(closed.objects.map((o: any) => o.objectId).sort()).to.deep.equal([burner.objectId, winner.objectId].sort());
      expect(closed.objects.find((o: any) => o.objectId === burner.objectId)).to.include({ action: 'paused', error: null });
      expect(closed.objects.find((o: any) => o.objectId === winner.objectId)).to.include({ intended: null, matched: false });
    });

    it('retries a pause throttled for longer than the adapter waits with backoff in the job, and records it in the run when it goes through', async () => {
      const burner = await liveCampaign('Burner retried', 0);
      const a = await rule([burner.objectId], { frequency: 'daily', dailyHour: 22 });
      await service.jobs.drain();
      fake.throttleNextItems(1, 5);
      const run = await call('run-automation', { automationId: String(a.automationId) });
      expect(run.objects[0]).to.include({ action: 'none' });
      expect(run.objects[0].error).to.match(/^unavailable: .*retry after 300 seconds/);
      expect(fake.objects.get(burner.objectId)!.status).to.equal('ACTIVE');
      clock += 4 * MINUTE;
      await service.jobs.drain();
      expect(fake.objects.get(burner.objectId)!.status).to.equal('ACTIVE');
      clock += 2 * MINUTE;
      await service.jobs.drain();
      expect(fake.objects.get(burner.objectId)!.status).to.equal('PAUSED');
      const runs = (await call('list-automation-runs', { automationId: String(a.automationId) })).runs;
      expect(runs.find((r: any) => r.runId === run.runId).objects[0]).to.include({ action: 'paused', error: null });
      await disarm(a);
    });

    it("pauses an account's objects in one Graph batch; one the platform keeps refusing is retried alone and ends in automation.action_failed", async () => {
      const kept = await liveCampaign('Burner kept', 0);
      const refused = await liveCampaign('Burner refused alone', 0);
      const a = await rule([kept.objectId, refused.objectId], { frequency: 'daily', dailyHour: 21 });
      await service.jobs.drain();
      fake.throttleWritesTo(refused.objectId, 5);
      const before = fake.requests.length;
      const run = await call('run-automation', { automationId: String(a.automationId) });
      // One batch checks both objects, one batch writes both statuses.
      expect(
        fake.requests
          .slice(before)
          .filter((r) => r.batch !== undefined)
          .map((r) => r.batch),
      ).to.deep.equal([2, 2]);
      const byObject = new Map(run.objects.map((o: any) => [o.objectId, o]));
      expect(byObject.get(kept.objectId)).to.include({ action: 'paused', error: null });
      expect(byObject.get(refused.objectId)).to.include({ action: 'none' });
      expect((byObject.get(refused.objectId) as any).error).to.match(/^unavailable: /);
      expect(fake.objects.get(kept.objectId)!.status).to.equal('PAUSED');
      const triggered = (await service.knex('events').where({ type: 'automation.triggered' }))
        .map((e) => JSON.parse(e.data))
        .filter((e) => e.automationId === a.automationId);
      expect(triggered.map((e) => e.objectId)).to.deep.equal([kept.objectId]);
      for (let i = 0; i < 6; i++) {
        clock += 10 * MINUTE;
        await service.jobs.drain();
      }
      const failed = (await service.knex('events').where({ type: 'automation.action_failed' }))
        .map((e) => JSON.parse(e.data))
        .filter((e) => e.automationId === a.automationId);
      expect(failed.map((e) => e.objectId)).to.deep.equal([refused.objectId]);
      expect(failed[0].error).to.match(/after 4 attempts/);
      expect(fake.objects.get(refused.objectId)!.status).to.equal('ACTIVE');
      fake.throttleWritesTo(refused.objectId, 0, 0);
      await disarm(a);
    });

    it('a pause the platform refuses for good ends in automation.action_failed at once, with the run saying so and no retry waiting', async () => {
      const kept = await liveCampaign('Burner paused beside', 0);
      const refused = await liveCampaign('Burner under review', 0);
      const a = await rule([kept.objectId, refused.objectId], { frequency: 'daily', dailyHour: 22 });
      await service.jobs.drain();
      fake.refuseWritesTo(refused.objectId, { code: 100, message: '(#100) The campaign cannot be paused while it is under review' });
      const run = await call('run-automation', { automationId: String(a.automationId) });
      const byObject = new Map(run.objects.map((o: any) => [o.objectId, o]));
      expect(byObject.get(kept.objectId)).to.include({ action: 'paused', error: null });
      expect((byObject.get(refused.objectId) as any).error)
        .to.be.a('string')
        .and.match(/under review/);
      const failed = (await service.knex('events').where({ type: 'automation.action_failed' }))
        .map((e) => JSON.parse(e.data))
        .filter((e) => e.automationId === a.automationId);
      expect(failed).to.have.length(1);
      expect(failed[0]).to.include({ objectId: refused.objectId, action: 'pause' });
      expect(failed[0].error)
        .to.match(/under review/)
        .and.not.match(/attempts/);
      const recorded = (await call('list-automation-runs', { automationId: String(a.automationId) })).runs.find((r: any) => r.runId === run.runId);
      expect(recorded.objects.find((o: any) => o.objectId === refused.objectId).error).to.match(/under review/);
      expect(await service.knex('jobs').where({ kind: 'retry-automation-action' }).where('job_key', 'like', `${a.automationId}:%`)).to.have.length(0);
      expect(fake.objects.get(refused.objectId)!.status).to.equal('ACTIVE');
      fake.refuseWritesTo(refused.objectId, null);
      await disarm(a);
    });

    it('ends a pause the platform keeps throttling in automation.action_failed after its retries', async () => {
      const burner = await liveCampaign('Burner refused', 0);
      const a = await rule([burner.objectId], { frequency: 'daily', dailyHour: 23 });
      await service.jobs.drain();
      fake.throttleNextItems(10, 5);
      const run = await call('run-automation', { automationId: String(a.automationId) });
      for (let i = 0; i < 6; i++) {
        clock += 10 * MINUTE;
        await service.jobs.drain();
      }
      const failed = (await service.knex('events').where({ type: 'automation.action_failed' }))
        .map((e) => JSON.parse(e.data))
        .filter((e) => e.automationId === a.automationId);
      expect(failed).to.have.length(1);
      expect(failed[0]).to.include({ objectId: burner.objectId, action: 'pause' });
      expect(failed[0].error).to.match(/after 4 attempts/);
      expect(fake.objects.get(burner.objectId)!.status).to.equal('ACTIVE');
      const recorded = (await call('list-automation-runs', { automationId: String(a.automationId) })).runs.find((r: any) => r.runId === run.runId);
      expect(recorded.objects[0].error).to.match(/gave up after 4 attempts/);
      // Nothing waits for a retry any more: the action's job is gone.
      expect(await service.knex('jobs').where({ kind: 'retry-automation-action' }).where('job_key', 'like', `${a.automationId}:%`)).to.have.length(0);
      await disarm(a);
    });
  });
}
