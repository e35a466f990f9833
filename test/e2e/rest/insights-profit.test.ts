// Profit in get-insights against a fake Keitaro tracker: revenue 123.45 USD on one campaign's
// sub_id_3 reads revenue 12345 on that campaign's row, profit and roas from the row's spend, 0 on
// the other campaigns; one POST /report/build per request (grouping sub_id_3, conversions and
// revenue, the period in the account's time zone, a filter on the rows' campaign ids); a EUR
// account converted with FX_RATES; a tracker that fails leaves the platform figures and says why.

import { expect } from 'chai';
import { dialects } from '../../helpers/databases.js';
import { startWorld, type World } from '../../helpers/world.js';
import { insightsBootstrap, seedReportObjects, type SeededReport } from '../../helpers/insights-world.js';
import { KeitaroServer } from '../../fakes/keitaro-server.js';
import { addDays, localDate } from '../../../src/time/zones.js';
import { seedLiveLaunch } from '../../../src/launches/live-launch.js';

const KEY = 'kt_profit_key_0042';

for (const dialect of dialects()) {
  describe(`get-insights with a tracker: revenue, profit and roas (${dialect})`, function () {
    this.timeout(60_000);
    let w: World;
    let tracker: KeitaroServer;
    let seeded: SeededReport;
    let eu: SeededReport;
    const today = () => localDate(Date.now(), 'America/New_York');
    const get = (account: string, query: string) =>
      w.request('GET', `/v1/brands/${w.brandId('acme', 'shoes')}/ad-accounts/${account}/insights?${query}`, { key: w.key('acme', 'ci') });
    const reports = () => tracker.requests.filter((r) => r.path === '/report/build');

    before(async () => {
      tracker = await new KeitaroServer(KEY).start();
      w = await startWorld({ dialect, bootstrap: insightsBootstrap({ baseUrl: tracker.url, apiKey: KEY }), env: { FX_RATES: 'EUR=1.08' } });
      const org = w.seed.organizations.acme.id;
      seeded = await seedReportObjects(w.service.knex, org, w.brandId('acme', 'shoes'));
      eu = await seedReportObjects(w.service.knex, org, w.brandId('acme', 'shoes'), 'act_1002');
      tracker.campaigns = [{ id: 31, name: 'Offer' }];
      const yesterday = addDays(today(), -1);
      tracker.clicks = [
        { date: yesterday, campaign_id: 31, sub_id_3: seeded.campaigns[0], ad_campaign_id: '', clicks: 40, conversions: 3, revenue: 123.45 },
        { date: yesterday, campaign_id: 31, sub_id_3: eu.campaigns[0], ad_campaign_id: '', clicks: 40, conversions: 3, revenue: 123.45 },
        // Two days before the campaigns' first day on the platform (they were published 10 days ago).
        { date: addDays(today(), -12), campaign_id: 31, sub_id_3: seeded.campaigns[0], ad_campaign_id: '', clicks: 5, conversions: 1, revenue: 50 },
        // Outside the period, and a campaign the report does not hold: neither counts.
        { date: addDays(today(), -30), campaign_id: 31, sub_id_3: seeded.campaigns[0], ad_campaign_id: '', clicks: 9, conversions: 9, revenue: 999 },
        { date: yesterday, campaign_id: 31, sub_id_3: '120299999999999', ad_campaign_id: '', clicks: 9, conversions: 9, revenue: 777 },
      ];
    });
    after(async () => {
      await w?.close();
      await tracker?.close();
    });

    it('joins the tracker revenue to campaign rows and totals, with one report/build per request', async () => {
      const before = reports().length;
      const reply = await get('act_1001', 'datePreset=last_7d');
      expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
      const sent = reports().slice(before);
      expect(sent).to.have.length(1);
      expect(sent[0].status).to.equal(200);
      expect(sent[0].body).to.deep.include({
        range: { from: reply.body.period.since, to: reply.body.period.until, timezone: 'America/New_York' },
        grouping: ['sub_id_3'],
        metrics: ['conversions', 'revenue'],
      });
      expect(sent[0].body.filters).to.deep.equal([{ name: 'sub_id_3', operator: 'IN_LIST', expression: [...seeded.campaigns].sort() }]);
      const rows = reply.body.rows;
      const tracked = rows.find((r: any) => r.campaignId === seeded.campaigns[0]);
      expect(tracked.revenue).to.equal(12345);
      expect(tracked.trackerConversions).to.equal(3);
      expect(tracked.profit).to.equal(12345 - tracked.spend);
      expect(tracked.roas).to.equal(Math.round((12345 / tracked.spend) * 10_000) / 10_000);
      for (const r of rows.filter((x: any) => x.campaignId !== seeded.campaigns[0])) {
        expect(r).to.deep.include({ revenue: 0, trackerConversions: 0, profit: -r.spend, roas: 0 });
      }
      const spend = rows.reduce((s: number, r: any) => s + r.spend, 0);
      expect(reply.body.totals).to.deep.include({
        revenue: 12345,
        trackerConversions: 3,
        profit: 12345 - spend,
        roas: Math.round((12345 / spend) * 10_000) / 10_000,
      });
      expect(reply.body).to.not.have.property('trackerError');
    });

    it('reads the tracker once per request, also for every page and breakdown, and only at campaign level', async () => {
      let before = reports().length;
      const page = await get('act_1001', 'datePreset=last_7d&limit=1');
      expect(page.body.rows).to.have.length(1);
      expect(page.body.totals.revenue).to.equal(12345);
      expect(reports().length - before).to.equal(1);
      before = reports().length;
      const days = await get('act_1001', 'datePreset=last_7d&breakdown=day');
      expect(days.body.totals.revenue).to.equal(12345);
      expect(reports().length - before).to.equal(1);
      expect(reports().at(-1)!.body.grouping).to.deep.equal(['sub_id_3', 'day']);
      before = reports().length;
      const adsets = await get('act_1001', 'datePreset=last_7d&level=adset');
      expect(adsets.body.totals).to.not.have.property('revenue');
      expect(reports().length - before).to.equal(0);
    });

    it("by day, each campaign's row carries that day's revenue, and the rows add up to the totals, revenue included", async () => {
      const reply = await get('act_1001', 'datePreset=last_7d&breakdown=day&limit=500');
      expect(reply.status).to.equal(200);
      const rows = reply.body.rows;
      const yesterday = addDays(today(), -1);
      const earned = rows.find((r: any) => r.campaignId === seeded.campaigns[0] && r.day === yesterday);
      expect(earned).to.deep.include({ revenue: 12345, trackerConversions: 3, profit: 12345 - earned.spend });
      for (const r of rows.filter((x: any) => x !== earned)) expect(r).to.deep.include({ revenue: 0, trackerConversions: 0, profit: -r.spend });
      const sum = (key: string) => rows.reduce((s: number, r: any) => s + r[key], 0);
      expect({ spend: sum('spend'), revenue: sum('revenue'), profit: sum('profit'), trackerConversions: sum('trackerConversions') }).to.deep.equal({
        spend: reply.body.totals.spend,
        revenue: reply.body.totals.revenue,
        profit: reply.body.totals.profit,
        trackerConversions: reply.body.totals.trackerConversions,
      });
      expect(reply.body.totals.revenue).to.equal(12345);
    });

    it("counts a campaign's revenue from its first day on the platform: what the tracker dates before it is revenueBeforeLaunch, not in roas", async () => {
      const before = reports().length;
      const reply = await get('act_1001', 'datePreset=last_14d');
      expect(reply.status).to.equal(200);
      // The campaigns started 10 days ago, inside the period: the tracker is asked by day.
      expect(reports().slice(before)[0].body.grouping).to.deep.equal(['sub_id_3', 'day']);
      const row = reply.body.rows.find((r: any) => r.campaignId === seeded.campaigns[0]);
      expect(row.revenue).to.equal(12345);
      expect(reply.body.totals.revenue).to.equal(12345);
      expect(reply.body.totals.revenueBeforeLaunch).to.equal(5000);
      expect(reply.body.totals.roas).to.equal(Math.round((12345 / reply.body.totals.spend) * 10_000) / 10_000);
      // A period wholly after the first day reads no such figure.
      const week = await get('act_1001', 'datePreset=last_7d');
      expect(week.body.totals).to.not.have.property('revenueBeforeLaunch');
    });

    it("publishing a campaign today leaves yesterday's report as it was, even when the tracker dates revenue of it yesterday", async () => {
      const yesterday = addDays(today(), -1);
      const query = `since=${yesterday}&until=${yesterday}`;
      const before = await get('act_1001', query);
      expect(before.status).to.equal(200);
      const fresh = await seedLiveLaunch(w.service.knex, {
        organizationId: w.seed.organizations.acme.id,
        brandId: w.brandId('acme', 'shoes'),
        accountId: 'act_1001',
        platform: 'meta',
        title: 'Published today',
        at: Date.now(),
        campaigns: [{ name: 'Today', dailyBudget: 5000, adSets: 1, adsPerAdSet: 1 }],
      });
      const campaignId = fresh.objects.find((o) => o.level === 'campaign')!.objectId;
      tracker.clicks.push({ date: yesterday, campaign_id: 31, sub_id_3: campaignId, ad_campaign_id: '', clicks: 10, conversions: 2, revenue: 80 });
      const after = await get('act_1001', query);
      expect(after.status).to.equal(200);
      expect(after.body.totals).to.deep.equal(before.body.totals);
      for (const row of before.body.rows) expect(after.body.rows).to.deep.include(row);
      expect(after.body.totals).to.not.have.property('revenueBeforeLaunch');
    });

    it('converts revenue in another currency with FX_RATES: 123.45 USD on a EUR account reads 11431 (EUR=1.08)', async () => {
      const reply = await get('act_1002', 'datePreset=last_7d');
      const row = reply.body.rows.find((r: any) => r.campaignId === eu.campaigns[0]);
      expect(reply.body.currency).to.equal('EUR');
      expect(row.revenue).to.equal(11431);
      expect(row.profit).to.equal(11431 - row.spend);
    });

    it('a tracker that does not answer leaves the platform figures and adds trackerError', async () => {
      tracker.faults.push({ status: 500, path: /report/ });
      const reply = await get('act_1001', 'datePreset=last_14d');
      expect(reply.status).to.equal(200);
      expect(reply.body.trackerError)
        .to.be.a('string')
        .and.match(/tracker/i);
      expect(reply.body.rows.length).to.equal(3);
      for (const r of reply.body.rows) expect(r).to.not.have.any.keys('revenue', 'profit', 'roas', 'trackerConversions');
      expect(reply.body.totals).to.not.have.property('revenue');
      expect(reply.body.totals.spend).to.be.greaterThan(0);
    });
  });
}
