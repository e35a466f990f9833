// The tracker spend push against the fake Keitaro server with a fixed clock and default settings (a
// connected tracker is always called at its baseUrl), on every storage dialect: hourly cycles and
// the final push across a day boundary in two time zones (New York USD, Tokyo JPY), requests spaced
// by requestIntervalSeconds, manual runs answered at once and carried out by the brand's push job
// with their progress, a cycle repeated after a crash setting the same costs again, and every
// disabledReason with its event. The worker is driven with `drain()`.

import { expect } from 'chai';
import { pino } from 'pino';
import { dialects, createMigratedTestDatabase, type TestDatabase } from '../helpers/databases.js';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/connection.js';
import { migrateLatest } from '../../src/db/migrate.js';
import { applyBootstrap, type BootstrapResult } from '../../src/bootstrap.js';
import { SchemaRegistry, loadSchemaFiles } from '../../src/schemas/registry.js';
import { Service } from '../../src/service.js';
import type { Principal } from '../../src/auth/principal.js';
import { SandboxPlatform } from '../../src/platforms/sandbox/adapter.js';
import type { AdAccount } from '../../src/platforms/port.js';
import { localDate } from '../../src/time/zones.js';
import { KeitaroServer, type LoggedRequest } from '../fakes/keitaro-server.js';
import { fakeResolver } from '../helpers/outbound.js';
import { C1, C2, C3, EAST_CAMPAIGN, TOKYO_CAMPAIGN, clicksEveryDay, seedLaunch, trackerBootstrap } from '../helpers/tracker-world.js';

const HOUR = 3_600_000;
const KEY = 'kt_live_key_0001';
const EAST: AdAccount = { platform: 'meta', accountId: 'act_5001', timezone: 'America/New_York', currency: 'USD', accessToken: null };
const TOKYO: AdAccount = { platform: 'tiktok', accountId: 'biz_5002', timezone: 'Asia/Tokyo', currency: 'JPY', accessToken: null };

for (const dialect of dialects()) {
  describe(`tracker spend push with a fixed clock (${dialect})`, function () {
    this.timeout(120_000);
    // Tuesday 10 March 2026, 12:05 UTC: 08:05 in New York (EDT), 21:05 in Tokyo.
    const T0 = Date.UTC(2026, 2, 10, 12, 5);
    let clock = T0;
    const sleeps: number[] = [];
    let db: TestDatabase;
    let service: Service;
    let tracker: KeitaroServer;
    let seed: BootstrapResult;
    let principal: Principal;
    let east: number;
    let tokyo: number;

    const call = async (name: string, input: Record<string, unknown>) =>
      (await service.invoke(name, principal, input, { requestId: `t-${name}-${clock}` })).body as any;
    const events = async (type: string, brandId: number) =>
      (await service.knex('events').where({ type, brand_id: brandId }).orderBy('id')).map((e) => JSON.parse(e.data));
    /** Spend of a campaign on a local date as the ad platform reports it now (minor units). */
    const spend = async (account: AdAccount, id: string, date: string) =>
      (await new SandboxPlatform(account.platform, service.knex, () => clock).insights(account, [id], { since: date, until: date })).spendMinorUnits;
    const dollars = (cents: number) => `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
    const dateOf = (r: LoggedRequest) => String(r.body.start_date).slice(0, 10);
    /**
     * A manual run: answered at once (running, nothing done yet), carried out by the brand's push job
     * on the next drain, then read as it ended. With `catchUp`, the hourly cycles due at this clock
     * run before it, so nothing else runs beside it.
     */
    const manualRun = async (brandId: number, catchUp = true) => {
      if (catchUp) await service.jobs.drain();
      const started = await call('run-tracker-push', { brandId });
      expect(started).to.deep.include({ brandId, status: 'running', trigger: 'manual', finishedAt: null, pushed: [], error: null });
      expect(started.progress).to.deep.equal({ done: 0, total: 0 });
      await service.jobs.drain();
      return call('get-tracker-push-run', { brandId, runId: started.runId });
    };

    before(async () => {
      tracker = await new KeitaroServer(KEY, () => clock).start();
      tracker.campaigns = [
        { id: EAST_CAMPAIGN, name: 'East offers' },
        { id: TOKYO_CAMPAIGN, name: 'Tokyo offers' },
      ];
      clicksEveryDay(tracker, '2026-03-01', '2026-03-20', [
        { campaign_id: EAST_CAMPAIGN, sub_id_3: C1, clicks: 120 },
        { campaign_id: EAST_CAMPAIGN, sub_id_3: C2, clicks: 60 },
        { campaign_id: TOKYO_CAMPAIGN, sub_id_3: C3, clicks: 90 },
      ]);
      db = await createMigratedTestDatabase(dialect);
      const setup = openDatabase(db.url);
      await migrateLatest(setup.knex);
      seed = await applyBootstrap(setup.knex, new SchemaRegistry(loadSchemaFiles()), trackerBootstrap(tracker.url, KEY), T0 - 3 * 24 * HOUR);
      const org = seed.organizations.acme;
      east = org.brands.east.id;
      tokyo = org.brands.tokyo.id;
      await seedLaunch(
        setup.knex,
        org.id,
        east,
        'act_5001',
        [
          { id: C1, name: 'Prospecting' },
          { id: C2, name: 'Retargeting' },
        ],
        T0 - 3 * 24 * HOUR,
      );
      await seedLaunch(setup.knex, org.id, tokyo, 'biz_5002', [{ id: C3, name: 'Tokyo launch' }], T0 - 3 * 24 * HOUR);
      await setup.knex.destroy();
      service = await Service.open({
        // The injected sleep moves the clock by whole seconds: a lease long enough that a run never outlives it on this clock.
        config: loadConfig({ DATABASE_URL: db.url, LOG_LEVEL: 'silent', SVC_STRICT_OUTPUT: 'true', JOB_LEASE_MS: '600000' }),
        log: pino({ level: 'silent' }),
        resolveHost: fakeResolver(),
        now: () => clock,
        sleep: async (ms) => {
          sleeps.push(ms);
          clock += ms;
        },
      });
      principal = await service.authenticate(`Bearer ${org.apiKeys.ci.secret}`, 'api');
    });
    after(async () => {
      await service?.close();
      await tracker?.close();
      await db?.drop();
    });

    it('stores the bootstrap key sealed and shows only its last four characters', async () => {
      const row = await service.knex('tracker_connections').where({ brand_id: east }).first();
      expect(row).to.not.have.property('api_key');
      expect(row.api_key_sealed).to.match(/^v1\./).and.not.contain(KEY);
      expect(service.secrets.open(row.api_key_sealed)).to.equal(KEY);
      const view = await call('get-tracker-connection', { brandId: east });
      expect(view).to.deep.include({ connected: true, baseUrl: tracker.url, apiKeyLast4: '0001' });
      expect(JSON.stringify(view)).to.not.contain(KEY);
    });

    it("pushes today's spend every hour and yesterday's final spend once at finalLocalHour, across midnight in New York and Tokyo", async () => {
      const on = await call('set-tracker-push', { brandId: east, enabled: true, finalLocalHour: 3, requestIntervalSeconds: 5 });
      expect(on).to.deep.include({
        connected: true,
        enabled: true,
        disabledReason: null,
        schedule: { cron: '5 * * * *', finalLocalHour: 3, requestIntervalSeconds: 5 },
      });
      await call('set-tracker-push', { brandId: tokyo, enabled: true, finalLocalHour: 3, requestIntervalSeconds: 5 });
      // Not due before the next hour: nothing is pushed.
      await service.jobs.drain();
      expect(tracker.costUpdates).to.have.length(0);

      const finals: Array<{ at: number; sub: string | null; campaign: string; date: string }> = [];
      for (let cycle = 1; cycle <= 24; cycle++) {
        clock = T0 + cycle * HOUR;
        const cycleStart = clock;
        const before = tracker.costUpdates.length;
        await service.jobs.drain();
        const sent = tracker.costUpdates.slice(before);
        const eastToday = localDate(cycleStart, EAST.timezone);
        const tokyoToday = localDate(cycleStart, TOKYO.timezone);
        const today = sent.filter((r) => dateOf(r) === (r.path.includes(`/${EAST_CAMPAIGN}/`) ? eastToday : tokyoToday));
        // Every cycle sets today's cost of each of the three campaigns, in its own account's terms.
        expect(today, `cycle ${cycle}`).to.have.length(3);
        for (const r of today) {
          const isEast = r.path.includes(`/${EAST_CAMPAIGN}/`);
          const account = isEast ? EAST : TOKYO;
          const id = isEast ? r.body.filters.sub_id_3 : C3;
          const cents = await spend(account, id, dateOf(r));
          expect(r.body).to.deep.include({
            start_date: `${dateOf(r)} 00:00:00`,
            end_date: `${dateOf(r)} 23:59:59`,
            currency: account.currency,
            timezone: account.timezone,
          });
          expect(r.body.cost, `cycle ${cycle} ${id}`).to.equal(isEast ? dollars(cents) : String(cents));
          // The east tracker campaign receives clicks of two service campaigns: each push filters on sub_id_3.
          if (isEast) expect([C1, C2]).to.include(r.body.filters.sub_id_3);
          else expect(r.body).to.not.have.property('filters');
        }
        for (const r of sent.filter((x) => !today.includes(x))) {
          finals.push({ at: cycleStart, sub: r.body.filters?.sub_id_3 ?? null, campaign: r.path.split('/')[2], date: dateOf(r) });
          const isEast = r.path.includes(`/${EAST_CAMPAIGN}/`);
          const account = isEast ? EAST : TOKYO;
          const cents = await spend(account, isEast ? r.body.filters.sub_id_3 : C3, dateOf(r));
          expect(r.body.cost).to.equal(isEast ? dollars(cents) : String(cents));
        }
      }
      const at = (d: string) => Date.parse(d);
      // The two brands' jobs run side by side: compare in a fixed order.
      const order = (x: { at: number; campaign: string; sub: string | null }) => `${x.at}|${x.campaign}|${x.sub ?? ''}`;
      expect([...finals].sort((a, b) => order(a).localeCompare(order(b)))).to.deep.equal([
        // The first cycle: yesterday (9 March) had not been pushed for either account.
        { at: T0 + HOUR, sub: C1, campaign: String(EAST_CAMPAIGN), date: '2026-03-09' },
        { at: T0 + HOUR, sub: C2, campaign: String(EAST_CAMPAIGN), date: '2026-03-09' },
        { at: T0 + HOUR, sub: null, campaign: String(TOKYO_CAMPAIGN), date: '2026-03-09' },
        // 03:05 on 11 March in Tokyo (18:05 UTC on the 10th): the 10th is final there.
        { at: at('2026-03-10T18:05:00Z'), sub: null, campaign: String(TOKYO_CAMPAIGN), date: '2026-03-10' },
        // 03:05 on 11 March in New York (07:05 UTC): the 10th is final there, pushed once.
        { at: at('2026-03-11T07:05:00Z'), sub: C1, campaign: String(EAST_CAMPAIGN), date: '2026-03-10' },
        { at: at('2026-03-11T07:05:00Z'), sub: C2, campaign: String(EAST_CAMPAIGN), date: '2026-03-10' },
      ]);
      // A full day's cost (every hour over) was what the final push set.
      expect(tracker.cost(TOKYO_CAMPAIGN, '2026-03-10')!.cost).to.equal(String(await spend(TOKYO, C3, '2026-03-10')));
      const setting = await call('get-tracker-push', { brandId: east });
      expect(setting).to.deep.include({
        enabled: true,
        lastCampaignsPushed: 2,
        unmatchedCount: 0,
        lastError: null,
        lastPushAt: new Date(clock).toISOString().replace(/\.\d+Z$/, (m) => m),
      });
    });

    it("asks for clicks in Keitaro's own report shape (columns, metrics, grouping, filters, range); the strict fake refuses the old dimensions/measures shape", async () => {
      const report = tracker.requests.find((r) => r.path === '/report/build' && r.body.metrics?.includes('clicks'))!;
      expect(report.status).to.equal(200);
      expect(Object.keys(report.body).sort()).to.deep.equal(['columns', 'filters', 'grouping', 'limit', 'metrics', 'offset', 'range', 'sort']);
      expect(report.body.grouping).to.include('sub_id_3');
      expect(report.body.range).to.have.keys('from', 'to', 'timezone');
      expect(tracker.requests.filter((r) => r.status === 400)).to.deep.equal([]);
      const old = await fetch(`${tracker.url}/admin_api/v1/report/build`, {
        method: 'POST',
        headers: { 'Api-Key': KEY, 'Content-Type': 'application/json' },
        body: JSON.stringify({
          range: { from: '2026-03-01', to: '2026-03-07', timezone: 'UTC' },
          dimensions: ['campaign_id', 'sub_id_3'],
          measures: ['clicks'],
        }),
      });
      expect(old.status).to.equal(400);
      expect(await old.json()).to.deep.equal({ error: 'Bad request: unknown field "dimensions"' });
    });

    it('spaces cost updates by requestIntervalSeconds (the injected sleep moves the fixed clock)', async () => {
      await call('set-tracker-push', { brandId: east, enabled: true, requestIntervalSeconds: 7 });
      clock = Date.UTC(2026, 2, 11, 14, 5);
      sleeps.length = 0;
      await service.jobs.drain();
      sleeps.length = 0;
      const before = tracker.requests.length;
      const run = await manualRun(east);
      expect(run.status).to.equal('succeeded');
      expect(run.progress).to.deep.equal({ done: 2, total: 2 });
      const sent = tracker.requests.slice(before).filter((r) => r.path.endsWith('/update_costs'));
      expect(sent).to.have.length(2);
      const report = tracker.requests.slice(before).find((r) => r.path === '/report/build')!;
      expect(sent[0].at - report.at).to.equal(7_000);
      expect(sent[1].at - sent[0].at).to.equal(7_000);
      expect(sleeps).to.deep.equal([7_000, 7_000]);
    });

    it('a cycle repeated after a crash sets the same costs again, never adds', async () => {
      clock = Date.UTC(2026, 2, 11, 15, 5);
      await service.jobs.drain();
      const date = localDate(clock, EAST.timezone);
      const first = { c1: tracker.cost(EAST_CAMPAIGN, date, C1)!, c2: tracker.cost(EAST_CAMPAIGN, date, C2)! };
      const sets = first.c1.sets;
      const snapshot = { c1: first.c1.cost, c2: first.c2.cost };
      // The process died after pushing, before recording the run: the lease runs out and another worker runs it again.
      await service
        .knex('jobs')
        .where({ kind: 'tracker-push', job_key: String(east) })
        .update({ run_at: clock, locked_by: null });
      await service.jobs.drain();
      const again = { c1: tracker.cost(EAST_CAMPAIGN, date, C1)!, c2: tracker.cost(EAST_CAMPAIGN, date, C2)! };
      expect(again.c1.sets).to.equal(sets + 1);
      expect({ c1: again.c1.cost, c2: again.c2.cost }).to.deep.equal(snapshot);

      // A cycle cut off after its first update (a 500 on the second) leaves the push on, and the next one sets both again.
      tracker.faults.push({ status: 500, path: /update_costs/, after: 1 });
      const cut = await manualRun(east);
      expect(cut.status).to.equal('failed');
      expect(cut.error).to.match(/500/);
      expect(cut.pushed).to.have.length(1);
      expect(cut.progress).to.deep.equal({ done: 1, total: 2 });
      const afterCut = await call('get-tracker-push', { brandId: east });
      expect(afterCut).to.deep.include({ enabled: true, disabledReason: null });
      expect(afterCut.lastError).to.match(/500/);
      const failed = await events('tracker.push.failed', east);
      expect(failed[failed.length - 1]).to.deep.include({ brandId: east });
      const whole = await manualRun(east);
      expect(whole.status).to.equal('succeeded');
      expect(tracker.cost(EAST_CAMPAIGN, date, C1)!.cost).to.equal(snapshot.c1);
      expect(tracker.cost(EAST_CAMPAIGN, date, C2)!.cost).to.equal(snapshot.c2);
    });

    it('waits out a 429 (Retry-After) and pushes', async () => {
      clock = Date.UTC(2026, 2, 11, 16, 5);
      await service.jobs.drain();
      sleeps.length = 0;
      tracker.faults.push({ status: 429, retryAfter: '11', path: /update_costs/ });
      const run = await manualRun(tokyo);
      expect(run.status).to.equal('succeeded');
      expect(sleeps).to.include(11_000);
      expect(run.pushed.map((p: any) => p.providerCampaignId)).to.deep.equal([C3]);
    });

    it('after a final push, reads back what the tracker holds and reports the spend drift in the run answer', async () => {
      // 04:05 on 12 March in Tokyo: the 11th is final there and has not been pushed yet.
      // 04:05 on 12 March in Tokyo: the 11th is final there and has not been pushed yet (no cycle ran since 16:05 UTC).
      clock = Date.UTC(2026, 2, 11, 19, 5);
      const run = await manualRun(tokyo, false);
      expect(run.status).to.equal('succeeded');
      const final = run.pushed.find((p: any) => p.final);
      expect(final).to.deep.include({ providerCampaignId: C3, date: '2026-03-11', currency: 'JPY' });
      // JPY has no minor unit: the cost sent is the yen amount.
      const yen = Number(final.cost);
      expect(run.drift).to.deep.equal([
        {
          providerCampaignId: C3,
          trackerCampaignId: String(TOKYO_CAMPAIGN),
          date: '2026-03-11',
          platformMinorUnits: yen,
          trackerMinorUnits: yen,
          differenceMinorUnits: 0,
        },
      ]);
      // Later cycles of the same day push no final and report no drift.
      clock += HOUR;
      expect((await manualRun(tokyo)).drift).to.deep.equal([]);
      // A tracker holding one yen more than was pushed shows a drift of 1.
      await service.knex('tracker_final_pushes').where({ brand_id: tokyo }).delete();
      tracker.reportedCostOffset = 1;
      try {
        const drifted = await manualRun(tokyo);
        expect(drifted.drift.map((d: any) => d.differenceMinorUnits)).to.deep.equal([1]);
      } finally {
        tracker.reportedCostOffset = 0;
      }
    });

    const disabledRows = [
      {
        what: 'a 401 (the tracker rejects the key)',
        reason: 'unauthorized',
        provoke: () => {
          tracker.apiKey = 'kt_other_key_9999';
        },
        restore: () => {
          tracker.apiKey = KEY;
        },
      },
      {
        what: 'a 402 (the plan refuses cost updates)',
        reason: 'refused',
        provoke: () => {
          tracker.faults.push({ status: 402, path: /update_costs/ });
        },
        restore: () => {},
      },
      {
        what: 'a 403 (the plan refuses cost updates)',
        reason: 'refused',
        provoke: () => {
          tracker.faults.push({ status: 403, path: /update_costs/ });
        },
        restore: () => {},
      },
    ];
    for (const row of disabledRows) {
      it(`${row.what} turns the push off with disabledReason ${row.reason} and emits tracker.push.disabled; an owner turns it back on`, async () => {
        clock += HOUR;
        const before = (await events('tracker.push.disabled', tokyo)).length;
        await service.jobs.drain();
        row.provoke();
        const run = await manualRun(tokyo);
        row.restore();
        expect(run.status).to.equal('failed');
        expect(run.error).to.match(new RegExp(`turned off \\(${row.reason}\\)`));
        expect(await call('get-tracker-push', { brandId: tokyo })).to.deep.include({ enabled: false, disabledReason: row.reason });
        const emitted = await events('tracker.push.disabled', tokyo);
        expect(emitted.slice(before)).to.deep.equal([{ brandId: tokyo, reason: row.reason }]);
        // The job parks: nothing is pushed on the next hours.
        const tokyoUpdates = () => tracker.costUpdates.filter((r) => r.path.includes(`/${TOKYO_CAMPAIGN}/`)).length;
        const sent = tokyoUpdates();
        clock += 2 * HOUR;
        await service.jobs.drain();
        expect(tokyoUpdates()).to.equal(sent);
        const back = await call('set-tracker-push', { brandId: tokyo, enabled: true });
        expect(back).to.deep.include({ enabled: true, disabledReason: null });
      });
    }

    it('changing the key turns the push off with key_changed and emits tracker.push.disabled; the same key again changes nothing', async () => {
      const before = (await events('tracker.push.disabled', tokyo)).length;
      // Through the API the baseUrl is a caller's: a public address (the fake resolver does not know the name, so it is taken and checked at send).
      const same = await call('connect-tracker', { brandId: tokyo, baseUrl: 'https://tracker.example.com', apiKey: KEY });
      expect(same.apiKeyLast4).to.equal('0001');
      expect((await call('get-tracker-push', { brandId: tokyo })).enabled).to.equal(true);
      const changed = await call('connect-tracker', { brandId: tokyo, baseUrl: 'https://tracker.example.com', apiKey: 'kt_rotated_key_4242' });
      expect(changed.apiKeyLast4).to.equal('4242');
      const setting = await call('get-tracker-push', { brandId: tokyo });
      expect(setting).to.deep.include({ enabled: false, disabledReason: 'key_changed' });
      expect((await events('tracker.push.disabled', tokyo)).slice(before)).to.deep.equal([{ brandId: tokyo, reason: 'key_changed' }]);
    });
  });
}
