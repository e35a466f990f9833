// Live performance reports (the port's `report`) against both strict fakes: every level the fakes
// seed (account, campaign) with no breakdown and with each breakdown, every request accepted (an
// adapter throws on a refusal), the paging followed to the end, the figures read exactly (Meta's
// spend "12.34" is 1234 minor units), breakdowns adding up to the unbroken figures, and a
// narrowing to campaigns sent as the platform's filter.

import { expect } from 'chai';
import { MetaAdapter } from '../../src/platforms/meta/adapter.js';
import { TikTokAdapter } from '../../src/platforms/tiktok/adapter.js';
import type { AdAccount, PlatformAdapter, ReportBreakdown, ReportRow } from '../../src/platforms/port.js';
import { FakeMetaServer } from '../fakes/meta-server.js';
import { FakeTikTokServer } from '../fakes/tiktok-server.js';
import { testOutbound } from '../helpers/outbound.js';

const noSleep = async () => {};
const CAMPAIGNS = 60;
const DAYS = 20;
const dates = Array.from({ length: DAYS }, (_, i) => `2026-10-${String(i + 1).padStart(2, '0')}`);
const window = { since: dates[0], until: dates[DAYS - 1] };
const BREAKDOWNS: Array<ReportBreakdown | null> = [null, 'day', 'age', 'gender', 'country', 'placement'];
const sum = (rows: ReportRow[], k: keyof ReportRow) => rows.reduce((s, r) => s + Number(r[k]), 0);

interface Live {
  name: string;
  adapter: PlatformAdapter;
  account: AdAccount;
  campaigns: string[];
  reportRequests(): Array<Record<string, unknown>>;
  close(): Promise<void>;
}

async function metaLive(): Promise<Live> {
  const fake = await FakeMetaServer.start();
  const accountId = 'act_5550001';
  const accessToken = fake.addAccount(accountId);
  const campaigns = Array.from({ length: CAMPAIGNS }, (_, i) =>
    fake.seedCampaign(accountId, { name: `Campaign ${i}`, status: 'ACTIVE', objective: 'OUTCOME_SALES' }),
  );
  campaigns.forEach((id, i) =>
    dates.forEach((d, k) => fake.seedStats(id, d, { spendMinor: 1234 + i + k, impressions: 5000 + k, clicks: 61 + i, results: k % 3, revenueMinor: 0 })),
  );
  return {
    name: 'Meta',
    adapter: new MetaAdapter(testOutbound(), { baseUrl: fake.url, sleep: noSleep, timeoutMs: 5_000 }),
    account: { platform: 'meta', accountId, timezone: 'America/New_York', currency: 'USD', accessToken },
    campaigns,
    reportRequests: () => fake.calls.filter((c) => c.path.endsWith('/insights')).map((c) => c.params),
    close: () => fake.close(),
  };
}

async function tiktokLive(): Promise<Live> {
  const fake = await FakeTikTokServer.start();
  const advertiserId = '7555000000000000001';
  const accessToken = fake.addAdvertiser(advertiserId);
  const campaigns = Array.from({ length: CAMPAIGNS }, (_, i) =>
    fake.seedCampaign(advertiserId, {
      name: `Campaign ${i}`,
      operationStatus: 'ENABLE',
      objectiveType: 'TRAFFIC',
      budgetMode: 'BUDGET_MODE_INFINITE',
      budget: 0,
    }),
  );
  campaigns.forEach((id, i) =>
    dates.forEach((d, k) => fake.seedStats(id, d, { spendMinor: 2210 + i + k, impressions: 7000 + k, clicks: 90 + i, conversions: k % 4, revenueMinor: 0 })),
  );
  return {
    name: 'TikTok',
    adapter: new TikTokAdapter(testOutbound(), { baseUrl: fake.url, sleep: noSleep, timeoutMs: 5_000 }),
    account: { platform: 'tiktok', accountId: `biz_${advertiserId}`, timezone: 'America/New_York', currency: 'USD', accessToken },
    campaigns,
    reportRequests: () => fake.requestsTo('/report/integrated/get/').map((r) => r.params),
    close: () => fake.close(),
  };
}

for (const start of [metaLive, tiktokLive]) {
  describe(`live reports: ${start === metaLive ? 'Meta /act_{id}/insights' : 'TikTok /report/integrated/get/'} against the strict fake`, function () {
    this.timeout(60_000);
    let live: Live;
    before(async () => {
      live = await start();
    });
    after(async () => live?.close());

    it('reads campaign rows with their names, exactly, and the account as one row', async () => {
      const rows = await live.adapter.report(live.account, { level: 'campaign', window, breakdown: null, campaignIds: null });
      expect(rows).to.have.length(CAMPAIGNS);
      const first = rows.find((r) => r.campaignId === live.campaigns[0])!;
      const base = live.name === 'Meta' ? 1234 : 2210;
      expect(first).to.deep.include({ name: 'Campaign 0', key: null, adsetId: null, adId: null });
      expect(first.spendMinorUnits).to.equal(dates.reduce((s, _d, k) => s + base + k, 0));
      expect(first.clicks).to.equal(DAYS * (live.name === 'Meta' ? 61 : 90));
      const account = await live.adapter.report(live.account, { level: 'account', window, breakdown: null, campaignIds: null });
      expect(account).to.have.length(1);
      expect(account[0].spendMinorUnits).to.equal(sum(rows, 'spendMinorUnits'));
      expect(account[0].impressions).to.equal(sum(rows, 'impressions'));
    });

    if (start === metaLive) {
      it('reads Meta spend "12.34" as 1234 minor units', async () => {
        const rows = await live.adapter.report(live.account, {
          level: 'campaign',
          window: { since: dates[0], until: dates[0] },
          breakdown: null,
          campaignIds: [live.campaigns[0]],
        });
        expect(rows[0].spendMinorUnits).to.equal(1234);
      });
    }

    for (const breakdown of BREAKDOWNS.filter(Boolean) as ReportBreakdown[]) {
      it(`breakdown ${breakdown}: every request accepted, every page followed, the parts adding up to the unbroken rows`, async () => {
        const before = live.reportRequests().length;
        const whole = await live.adapter.report(live.account, { level: 'campaign', window, breakdown: null, campaignIds: null });
        const rows = await live.adapter.report(live.account, { level: 'campaign', window, breakdown, campaignIds: null });
        const sent = live.reportRequests().slice(before);
        expect(
          rows.every((r) => typeof r.key === 'string' && r.key !== 'unknown'),
          JSON.stringify(rows[0]),
        ).to.equal(true);
        if (breakdown === 'day') {
          expect(rows).to.have.length(CAMPAIGNS * DAYS);
          expect(new Set(rows.map((r) => r.key))).to.deep.equal(new Set(dates));
          // More rows than one page holds: the paging was followed.
          expect(sent.length).to.be.greaterThan(2);
        }
        if (breakdown === 'age') for (const r of rows) expect(['18-24', '25-34', '35-44', '45-54', '55-64', '65+']).to.include(r.key);
        if (breakdown === 'gender') for (const r of rows) expect(['female', 'male']).to.include(r.key);
        if (breakdown === 'country') for (const r of rows) expect(r.key).to.match(/^[A-Z]{2}$/);
        for (const id of live.campaigns.slice(0, 5)) {
          const mine = rows.filter((r) => r.campaignId === id);
          const unbroken = whole.find((r) => r.campaignId === id)!;
          for (const k of ['spendMinorUnits', 'impressions', 'clicks', 'results'] as const) expect(sum(mine, k), `${breakdown} ${k}`).to.equal(unbroken[k]);
        }
        if (live.name === 'Meta') {
          const params = sent[sent.length - 1];
          if (breakdown === 'day') expect(params.time_increment).to.equal('1');
          else
            expect(typeof params.breakdowns === 'string' ? JSON.parse(params.breakdowns) : params.breakdowns).to.deep.equal(
              breakdown === 'placement' ? ['publisher_platform', 'platform_position'] : [breakdown],
            );
        } else {
          const audience = sent.filter((p) => p.report_type === 'AUDIENCE');
          if (breakdown === 'day') {
            expect(audience).to.have.length(0);
            expect(sent[sent.length - 1].dimensions).to.deep.equal(['campaign_id', 'stat_time_day']);
          } else {
            expect(audience.length).to.be.greaterThan(0);
            const dimension = breakdown === 'country' ? 'country_code' : breakdown;
            expect(audience[0].dimensions).to.deep.equal(['campaign_id', dimension]);
            expect(rows.every((r) => r.name?.startsWith('Campaign '))).to.equal(true);
          }
          for (const p of sent) expect(Number(p.page_size)).to.be.at.most(1000);
        }
      });
    }

    it('narrows to campaigns with the platform filter, in slices the platform accepts', async () => {
      const wanted = live.campaigns.slice(0, 3);
      const rows = await live.adapter.report(live.account, { level: 'campaign', window, breakdown: 'day', campaignIds: wanted });
      expect(new Set(rows.map((r) => r.campaignId))).to.deep.equal(new Set(wanted));
      expect(rows).to.have.length(3 * DAYS);
    });
  });
}
