// get-insights against the sandbox: every parameter (level, preset or since/until, breakdown,
// campaignIds, launchId, limit and cursor) and every refusal naming its parameter; totals that are
// the sums of the rows of every page; breakdowns consistent with the unbroken figures; the same
// figures for the same request; and the sandbox tracker's revenue on campaign rows.

import { expect } from 'chai';
import { dialects } from '../../helpers/databases.js';
import { startWorld, type World } from '../../helpers/world.js';
import { insightsBootstrap, seedReportObjects, type SeededReport } from '../../helpers/insights-world.js';
import { localDate, addDays } from '../../../src/time/zones.js';
import { mcpClient } from '../../helpers/mcp.js';

const sum = (rows: any[], key: string) => rows.reduce((s, r) => s + r[key], 0);
const additive = ['spend', 'impressions', 'clicks', 'results'];

for (const dialect of dialects()) {
  describe(`get-insights (${dialect})`, function () {
    this.timeout(60_000);
    let w: World;
    let seeded: SeededReport;
    let base: string;
    const get = (query: string) => w.request('GET', `${base}?${query}`, { key: w.key('acme', 'ci') });
    /** Every page of a report, followed to the end. */
    const allPages = async (query: string) => {
      const pages: any[] = [];
      let cursor: string | null = null;
      do {
        const reply = await get(`${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
        expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
        pages.push(reply.body);
        cursor = reply.body.nextCursor;
      } while (cursor);
      return pages;
    };

    before(async () => {
      w = await startWorld({ dialect, bootstrap: insightsBootstrap() });
      seeded = await seedReportObjects(w.service.knex, w.seed.organizations.acme.id, w.brandId('acme', 'shoes'));
      base = `/v1/brands/${w.brandId('acme', 'shoes')}/ad-accounts/act_1001/insights`;
    });
    after(async () => w?.close());

    it('answers campaign rows over last_7d by default, in the account time zone, with the contract fields', async () => {
      const reply = await get('');
      expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
      const today = localDate(Date.now(), 'America/New_York');
      expect(reply.body).to.deep.include({
        accountId: 'act_1001',
        currency: 'USD',
        timezone: 'America/New_York',
        level: 'campaign',
        breakdown: null,
        period: { since: addDays(today, -7), until: addDays(today, -1) },
        nextCursor: null,
      });
      expect(reply.body).to.not.have.property('trackerError');
      expect(reply.body.rows.map((r: any) => r.campaignId)).to.deep.equal([...seeded.campaigns].sort());
      const row = reply.body.rows.find((r: any) => r.campaignId === seeded.campaigns[0]);
      expect(Object.keys(row)).to.deep.equal([
        'campaignId',
        'name',
        'spend',
        'impressions',
        'clicks',
        'reach',
        'results',
        'ctr',
        'cpc',
        'cpm',
        'costPerResult',
      ]);
      expect(row.name).to.equal('Campaign 1');
      expect(row.spend)
        .to.be.greaterThan(0)
        .and.at.most(3000 * 7);
      expect(row.ctr).to.equal(Math.round((row.clicks / row.impressions) * 100 * 10_000) / 10_000);
      expect(row.cpc).to.equal(Math.floor((2 * row.spend + row.clicks) / (2 * row.clicks)));
      expect(row.cpm).to.equal(Math.round((row.spend * 1000) / row.impressions));
      expect(row).to.not.have.property('revenue');
      for (const k of additive) expect(reply.body.totals[k], k).to.equal(sum(reply.body.rows, k));
      expect(reply.body.totals.reach).to.equal(null);
      expect(Date.parse(reply.body.asOf)).to.be.closeTo(Date.now(), 60_000);
    });

    it('totals are the sums of the rows of every page, the same on each page', async () => {
      const pages = await allPages(
        'breakdown=day&limit=4&since=' +
          addDays(localDate(Date.now(), 'America/New_York'), -9) +
          '&until=' +
          addDays(localDate(Date.now(), 'America/New_York'), -1),
      );
      expect(pages.length).to.be.greaterThan(2);
      const rows = pages.flatMap((p) => p.rows);
      expect(rows.length).to.equal(27);
      for (const p of pages) {
        expect(p.rows.length).to.be.at.most(4);
        expect(p.totals).to.deep.equal(pages[0].totals);
      }
      for (const k of additive) expect(pages[0].totals[k], k).to.equal(sum(rows, k));
      expect(pages[0].totals.cpc).to.equal(Math.floor((2 * pages[0].totals.spend + pages[0].totals.clicks) / (2 * pages[0].totals.clicks)));
    });

    it('every breakdown is consistent with the unbroken figures: the days sum to the week, ages, genders, countries and placements split the same totals', async () => {
      const whole = (await get('datePreset=last_7d')).body;
      const byCampaign = new Map(whole.rows.map((r: any) => [r.campaignId, r]));
      for (const breakdown of ['day', 'age', 'gender', 'country', 'placement']) {
        const rows = (await allPages(`datePreset=last_7d&breakdown=${breakdown}&limit=500`)).flatMap((p) => p.rows);
        expect(rows.length, breakdown).to.be.greaterThan(3);
        for (const r of rows) expect(r[breakdown], breakdown).to.be.a('string');
        for (const [id, unbroken] of byCampaign) {
          const mine = rows.filter((r: any) => r.campaignId === id);
          for (const k of additive) expect(sum(mine, k), `${breakdown} ${k} of ${String(id)}`).to.equal((unbroken as any)[k]);
        }
      }
      const days = (await get('datePreset=last_7d&breakdown=day&limit=500')).body.rows;
      expect(new Set(days.map((r: any) => r.day)).size).to.equal(7);
      const ages = (await get('datePreset=last_7d&breakdown=age&limit=500')).body.rows;
      for (const r of ages) expect(['18-24', '25-34', '35-44', '45-54', '55-64', '65+', 'unknown']).to.include(r.age);
      const genders = (await get('datePreset=last_7d&breakdown=gender&limit=500')).body.rows;
      for (const r of genders) expect(['female', 'male', 'unknown']).to.include(r.gender);
      const countries = (await get('datePreset=last_7d&breakdown=country&limit=500')).body.rows;
      for (const r of countries) expect(r.country).to.match(/^[A-Z]{2}$/);
    });

    it('reads every level: account (one row), adset and ad with the ids their level needs, all adding up to the same totals', async () => {
      const campaign = (await get('datePreset=last_7d')).body;
      const account = (await get('datePreset=last_7d&level=account')).body;
      expect(account.rows).to.have.length(1);
      expect(Object.keys(account.rows[0])[0]).to.equal('name');
      expect(account.rows[0].name).to.equal('Shoes US');
      expect(account.rows[0].spend).to.equal(campaign.totals.spend);
      const adsets = (await get('datePreset=last_7d&level=adset')).body;
      expect(adsets.rows.map((r: any) => r.adsetId)).to.deep.equal(seeded.adsets);
      expect(adsets.rows[0]).to.have.keys(['campaignId', 'adsetId', 'name', ...Object.keys(campaign.rows[0]).slice(2)]);
      const ads = (await get('datePreset=last_7d&level=ad')).body;
      expect(ads.rows.map((r: any) => r.adId)).to.deep.equal(seeded.ads);
      expect(ads.rows[0]).to.include.keys(['campaignId', 'adsetId', 'adId']);
      expect(adsets.rows.map((r: any) => r.adsetId)).to.include.members([...new Set(ads.rows.map((r: any) => r.adsetId))]);
      // Each ad set delivers its share of its campaign's budget on its own pace (as automations read it).
      expect(adsets.totals.spend)
        .to.be.greaterThan(0)
        .and.at.most(3000 * 6 * 7);
      expect(ads.totals.spend)
        .to.be.greaterThan(0)
        .and.at.most(3000 * 6 * 7);
      const dayAccount = (await get('datePreset=last_7d&level=account&breakdown=day')).body;
      expect(dayAccount.rows).to.have.length(7);
      expect(sum(dayAccount.rows, 'spend')).to.equal(campaign.totals.spend);
    });

    it('narrows to campaignIds and to the objects a launch published', async () => {
      const two = (await get(`campaignIds=${seeded.campaigns[1]},${seeded.campaigns[2]}`)).body;
      expect(two.rows.map((r: any) => r.campaignId)).to.deep.equal(seeded.campaigns.slice(1).sort());
      const launch = (await get(`launchId=${seeded.launchId}&level=ad`)).body;
      expect(new Set(launch.rows.map((r: any) => r.campaignId))).to.deep.equal(new Set([seeded.campaigns[0]]));
      expect(launch.rows).to.have.length(4);
      const none = (await get('campaignIds=999999')).body;
      expect(none.rows).to.deep.equal([]);
      expect(none.totals).to.include({ spend: 0, impressions: 0, ctr: null, cpc: null, cpm: null, costPerResult: null });
    });

    it('since/until name a period in the account time zone; the same request reads the same figures', async () => {
      const today = localDate(Date.now(), 'America/New_York');
      const a = (await get(`since=${addDays(today, -5)}&until=${addDays(today, -3)}&breakdown=day`)).body;
      expect(a.period).to.deep.equal({ since: addDays(today, -5), until: addDays(today, -3) });
      expect([...new Set(a.rows.map((r: any) => r.day))].sort()).to.deep.equal([addDays(today, -5), addDays(today, -4), addDays(today, -3)]);
      const b = (await get(`since=${addDays(today, -5)}&until=${addDays(today, -3)}&breakdown=day&limit=50`)).body;
      expect(b.rows).to.deep.equal(a.rows);
      // One read per distinct request, kept for METRICS_CACHE_SECONDS: the second page size reads the same entry.
      expect(b.asOf).to.equal(a.asOf);
      const presets = ['today', 'yesterday', 'this_week_sun_today', 'last_14d', 'last_28d', 'last_30d', 'last_90d', 'this_month', 'last_month', 'maximum'];
      for (const p of presets) expect((await get(`datePreset=${p}`)).status, p).to.equal(200);
    });

    it('refuses each wrong parameter with 400 validation_failed naming it', async () => {
      const today = localDate(Date.now(), 'America/New_York');
      const cases: Array<[string, string]> = [
        ['level=campaigns', 'level'],
        ['datePreset=lifetime', 'datePreset'],
        [`datePreset=last_7d&since=${addDays(today, -3)}&until=${addDays(today, -1)}`, 'datePreset'],
        [`since=${addDays(today, -3)}`, 'until'],
        [`until=${addDays(today, -3)}`, 'since'],
        ['since=2026-02-30&until=2026-03-02', 'since'],
        ['since=yesterday&until=today', 'since'],
        [`since=${addDays(today, -1)}&until=${addDays(today, -3)}`, 'since'],
        [`since=${addDays(today, -3)}&until=${addDays(today, 1)}`, 'until'],
        [`since=${addDays(today, -100)}&until=${addDays(today, -1)}`, 'since'],
        [`since=${addDays(today, -40 * 31)}&until=${addDays(today, -40 * 31 + 10)}`, 'since'],
        ['breakdown=hour', 'breakdown'],
        ['campaignIds=abc', 'campaignIds'],
        [`campaignIds=${seeded.campaigns[0]}&launchId=${seeded.launchId}`, 'launchId'],
        ['launchId=987654', 'launchId'],
        ['limit=0', 'limit'],
        ['limit=501', 'limit'],
        ['cursor=nonsense', 'cursor'],
        ['sort=spend', 'sort'],
      ];
      for (const [query, field] of cases) {
        const reply = await get(query);
        expect(reply.status, query).to.equal(400);
        expect(reply.body.error.code, query).to.equal('validation_failed');
        expect(
          reply.body.error.details.map((d: any) => d.field),
          `${query}: ${JSON.stringify(reply.body.error)}`,
        ).to.include(field);
      }
      const first = await get('limit=1');
      const otherFilters = await get(`limit=1&level=adset&cursor=${encodeURIComponent(first.body.nextCursor)}`);
      expect(otherFilters.status).to.equal(400);
    });

    it('with the sandbox tracker connected, campaign rows carry its deterministic revenue, profit and roas', async () => {
      const shoes = w.brandId('acme', 'shoes');
      const connect = await w.request('PUT', `/v1/brands/${shoes}/integrations/tracker`, {
        key: w.key('acme', 'ci'),
        body: { baseUrl: 'sandbox:', apiKey: 'sandbox-key-0001' },
      });
      expect(connect.status, JSON.stringify(connect.body)).to.equal(200);
      const a = (await get('datePreset=last_7d')).body;
      const b = (await get('datePreset=last_7d&limit=7')).body;
      expect(a.rows).to.deep.equal(b.rows);
      expect(a.rows.some((r: any) => r.revenue > 0)).to.equal(true);
      for (const r of a.rows) {
        expect(r.profit).to.equal(r.revenue - r.spend);
        expect(r.roas).to.equal(Math.round((r.revenue / r.spend) * 10_000) / 10_000);
      }
      expect(a.totals.revenue).to.equal(sum(a.rows, 'revenue'));
      await w.request('DELETE', `/v1/brands/${shoes}/integrations/tracker`, { key: w.key('acme', 'ci') });
    });

    it('the MCP tool get_insights (toolset monitor, read-only) answers the same report, a large one cut with a link to the whole', async () => {
      const client = await mcpClient(w.url, w.key('acme', 'ci'), { toolsets: 'monitor', readOnly: 'true' });
      try {
        const { tools } = await client.listTools();
        const tool = tools.find((t) => t.name === 'get_insights')!;
        expect(tool.annotations).to.deep.include({ readOnlyHint: true, destructiveHint: false });
        const small: any = await client.callTool({
          name: 'get_insights',
          arguments: { brandId: w.brandId('acme', 'shoes'), accountId: 'act_1001', datePreset: 'last_7d' },
        });
        expect(small.isError, JSON.stringify(small.content).slice(0, 600)).to.not.equal(true);
        expect(small.structuredContent.rows.map((r: any) => r.campaignId)).to.deep.equal([...seeded.campaigns].sort());
        const large: any = await client.callTool({
          name: 'get_insights',
          arguments: { brandId: w.brandId('acme', 'shoes'), accountId: 'act_1001', level: 'ad', breakdown: 'day', datePreset: 'last_14d', limit: 500 },
        });
        expect(large.isError, JSON.stringify(large.content).slice(0, 600)).to.not.equal(true);
        expect(large.content.some((c: any) => c.type === 'resource_link')).to.equal(true);
        expect(large.structuredContent.rows.length).to.be.lessThan(12 * 9);
        expect(large.structuredContent.totals.spend).to.be.greaterThan(0);
      } finally {
        await client.close();
      }
    });

    it('another brand’s account answers 404', async () => {
      const reply = await w.request('GET', `/v1/brands/${w.brandId('acme', 'shoes')}/ad-accounts/act_7007/insights`, { key: w.key('acme', 'ci') });
      expect(reply.status).to.equal(404);
    });
  });
}
