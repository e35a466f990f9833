// TikTok Smart+ launches over REST (live-platforms.md, "Automated campaigns"): a TikTok campaign node with
// `properties.smartPlus: true` is published through the /smart_plus/ endpoints of the fake TikTok, which
// checks every request against the SDK's yml_files/smart_plus_*.yml (test/fakes/tiktok-spec/smart-plus.json).
//   - live: a launch of 1 campaign, 2 ad groups and 4 ads previews (asking /tool/url_validate/), publishes
//     with every request accepted, each field as the yml files say and nothing Smart+ decides itself;
//     the campaign is listed and reported; a live budget edit and a pause reach the Smart+ update and
//     status endpoints, and so does an automation's pause; an ad group TikTok refuses rolls the publish back;
//   - the sandbox publishes the same launch;
//   - both modes: Smart+ on an account without smartPlusAllowed, an objective Smart+ does not run, an image
//     ad and the properties Smart+ ignores fail at preview naming the field, the same in the sandbox and
//     live; and the fake refuses each of them too, in TikTok's words, when sent anyway.

import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { dialects } from '../../helpers/databases.js';
import { startWorld, type World } from '../../helpers/world.js';
import { addNode, brandApi, createLaunch, idem, type Api, type Props } from '../../helpers/launch-builders.js';
import { makePng } from '../../helpers/png.js';
import { makeMp4 } from '../../helpers/mp4.js';
import { RecordingProxy } from '../../helpers/recording-proxy.js';
import { FakeTikTokServer } from '../../fakes/tiktok-server.js';
import { ledgerProblems } from '../../../src/platforms/ledger.js';
import { TIKTOK_API_VERSION, TIKTOK_LEDGER } from '../../../src/platforms/tiktok/ledger.js';

/** An advertiser on TikTok's Smart+ allowlist, whose account says smartPlusAllowed; and one that is neither. */
const SMART = '7000000000000000011';
const PLAIN = '7000000000000000012';
const IDENTITY = '7000000000000009999';
const PIXEL = '7100000000000000001';
const US = '6252001';

const account = (advertiserId: string, name: string, smartPlusAllowed: boolean, accessToken?: string) => ({
  platform: 'tiktok',
  accountId: `biz_${advertiserId}`,
  name,
  timezone: 'UTC',
  currency: 'USD',
  ...(accessToken ? { accessToken } : {}),
  identityId: IDENTITY,
  identityType: 'CUSTOMIZED_USER',
  smartPlusAllowed,
});

const world = (tokens: { smart?: string; plain?: string }) => ({
  organizations: [
    {
      ref: 'acme',
      name: 'Acme Smart',
      plan: 'agency',
      subscriptionStatus: 'active',
      users: [{ ref: 'olive', email: 'olive@smart.test', name: 'Olive Owner', password: 'correct horse 1', role: 'owner' }],
      brands: [
        { ref: 'smart', name: 'Smart Co', adAccounts: [account(SMART, 'Tok Smart', true, tokens.smart)] },
        { ref: 'plain', name: 'Plain Co', adAccounts: [account(PLAIN, 'Tok Plain', false, tokens.plain)] },
      ],
      apiKeys: [
        {
          ref: 'ci',
          name: 'CI key',
          createdBy: 'olive',
          scopes: ['read', 'write', 'publish'],
          surfaces: { api: true, mcp: false },
          publishCeilingDollars: 5000,
        },
      ],
    },
  ],
});

async function upload(w: World, key: string, brandId: number, bytes: Buffer, name: string, type: string): Promise<number> {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(bytes)], { type }), name);
  const res = await fetch(`${w.url}/v1/brands/${brandId}/creatives`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form });
  const body = await res.json();
  expect(res.status, JSON.stringify(body)).to.equal(201);
  return body.id as number;
}

interface SmartOver {
  campaign?: Props;
  adset?: Props;
  ad?: Props;
  /** Ad set names (default two). */
  adSets?: string[];
  adsPerSet?: number;
}

interface SmartLaunch {
  launchId: string;
  campaignId: string;
  adSetIds: string[];
  adIds: string[];
}

/** A Smart+ web conversion launch: one campaign with a daily budget, its ad sets (default two) of two video ads each. */
async function smartLaunch(api: Api, creativeId: number, title: string, over: SmartOver = {}): Promise<SmartLaunch> {
  const launchId = await createLaunch(api, title);
  const campaignId = await addNode(api, launchId, 'campaign', {
    name: `${title} campaign`,
    objective: 'WEB_CONVERSIONS',
    budget: { dailyAmount: 10000 },
    smartPlus: true,
    ...over.campaign,
  });
  const adSetIds: string[] = [];
  const adIds: string[] = [];
  for (const [s, name] of (over.adSets ?? [`${title} set A`, `${title} set B`]).entries()) {
    const adSetId = await addNode(
      api,
      launchId,
      'adset',
      {
        name,
        optimizationGoal: 'CONVERT',
        targeting: { countries: ['US'], ageMin: 18 },
        promotedObject: { pixelId: PIXEL, customEventType: 'SHOPPING' },
        ...over.adset,
      },
      campaignId,
    );
    adSetIds.push(adSetId);
    for (let a = 0; a < (over.adsPerSet ?? 2); a++)
      adIds.push(
        await addNode(
          api,
          launchId,
          'ad',
          {
            name: `${name} ad ${a + 1}`,
            status: 'ACTIVE',
            primaryText: `Spring sale ${s + 1}.${a + 1}`,
            linkUrl: 'https://shop.example.com/spring?src=tt',
            callToAction: 'SHOP_NOW',
            creativeId,
            ...over.ad,
          },
          adSetId,
        ),
      );
  }
  return { launchId, campaignId, adSetIds, adIds };
}

/** A Smart+ rule broken on purpose: the launch, the fields its preview names, and what the fake says of the request sent anyway. */
interface SmartRuleRow {
  what: string;
  brand: 'smart' | 'plain';
  over: (creatives: { image: number }) => SmartOver;
  fields: (l: SmartLaunch) => string[];
  says: RegExp;
  /** The Smart+ request the property would make, and TikTok's field in the fake's refusal. */
  raw: { advertiser: string; path: string; body: Record<string, unknown>; code: number; refusal: RegExp };
}

const campaignBody = (over: Record<string, unknown> = {}) => ({
  campaign_name: 'Raw',
  objective_type: 'WEB_CONVERSIONS',
  request_id: '123456789012345678',
  budget_optimize_on: false,
  ...over,
});

const SMART_RULES: SmartRuleRow[] = [
  {
    what: 'Smart+ on an ad account without smartPlusAllowed',
    brand: 'plain',
    over: () => ({}),
    fields: (l) => [`campaigns[${l.campaignId}].smartPlus`],
    says: new RegExp(
      `ad account biz_${PLAIN} may not use TikTok Smart\\+ \\(smartPlusAllowed is not set\\): set smartPlusAllowed on it with update-ad-account`,
    ),
    raw: { advertiser: PLAIN, path: '/smart_plus/campaign/create/', body: campaignBody(), code: 40001, refusal: /is not on the allowlist for Smart\+/ },
  },
  {
    what: 'a Smart+ campaign with an objective Smart+ does not run (TRAFFIC)',
    brand: 'smart',
    over: () => ({ campaign: { objective: 'TRAFFIC' }, adset: { optimizationGoal: 'CLICK', promotedObject: undefined } }),
    fields: (l) => [`campaigns[${l.campaignId}].objective`],
    says: /TRAFFIC is not a Smart\+ objective: Smart\+ runs WEB_CONVERSIONS and LEAD_GENERATION campaigns here/,
    raw: {
      advertiser: SMART,
      path: '/smart_plus/campaign/create/',
      body: campaignBody({ objective_type: 'TRAFFIC' }),
      code: 40002,
      refusal: /^objective_type: Must be one of APP_PROMOTION, LEAD_GENERATION, WEB_CONVERSIONS\.$/,
    },
  },
  {
    what: 'a frequency cap on a Smart+ ad group (Smart+ decides it)',
    brand: 'smart',
    over: () => ({ adset: { frequencyCap: { impressions: 3, days: 7 } } }),
    fields: (l) => l.adSetIds.map((id) => `adSets[${id}].frequencyCap`),
    says: /is not sent to a Smart\+ ad group: Smart\+ sets how often a person sees the ads itself: \/smart_plus\/adgroup\/create\/ takes no frequency/,
    raw: {
      advertiser: SMART,
      path: '/smart_plus/adgroup/create/',
      body: { campaign_id: '1', adgroup_name: 'Raw', frequency: 3, frequency_schedule: 7 },
      code: 40002,
      refusal: /^frequency: Unknown field\.$/,
    },
  },
  {
    what: 'a display name on a Smart+ ad (its identity shows its own)',
    brand: 'smart',
    over: () => ({ ad: { displayName: 'Smart Co' } }),
    fields: (l) => l.adIds.map((id) => `ads[${id}].displayName`),
    says: /is not sent to a Smart\+ ad: a Smart\+ ad shows its identity's own name: \/smart_plus\/ad\/create\/ takes no display_name/,
    raw: {
      advertiser: SMART,
      path: '/smart_plus/ad/create/',
      body: { adgroup_id: '1', ad_name: 'Raw', display_name: 'Smart Co' },
      code: 40002,
      refusal: /^display_name: Unknown field\.$/,
    },
  },
  {
    what: 'an image on a Smart+ ad (Smart+ ads are videos)',
    brand: 'smart',
    over: (c) => ({ ad: { creativeId: c.image } }),
    fields: (l) => l.adIds.map((id) => `ads[${id}].creativeId`),
    says: /is an image; a Smart\+ ad is a video \(smart_plus_ad_create\.yml ad_format: SINGLE_VIDEO or carousels, no single image\): attach a video creative/,
    raw: {
      advertiser: SMART,
      path: '/smart_plus/ad/create/',
      body: { adgroup_id: '1', ad_name: 'Raw', creative_list: [{ creative_info: { ad_format: 'SINGLE_IMAGE', image_info: [{ web_uri: 'x' }] } }] },
      code: 40002,
      refusal: /^creative_list\.0\.creative_info\.ad_format: Must be one of CAROUSEL_ADS, CATALOG_CAROUSEL, SINGLE_VIDEO\.$/,
    },
  },
];

for (const dialect of dialects()) {
  describe(`TikTok Smart+ launches over REST (${dialect})`, function () {
    this.timeout(180_000);
    let live: World;
    let sandbox: World;
    let tiktok: FakeTikTokServer;
    let proxy: RecordingProxy;
    let creativesDir: string;
    let savedKey: string | undefined;
    const tokens: Record<string, string> = {};
    const apis: Record<'live' | 'sandbox', Record<'smart' | 'plain', Api>> = {} as never;
    const media: Record<'live' | 'sandbox', Record<'smart' | 'plain', { video: number; image: number }>> = {} as never;
    const mp4 = makeMp4(1080, 1920, 15_000);
    const png = makePng(1080, 1080);

    before(async () => {
      savedKey = process.env.TOKEN_ENCRYPTION_KEY;
      if (!savedKey) process.env.TOKEN_ENCRYPTION_KEY = crypto.randomBytes(32).toString('base64');
      tiktok = await FakeTikTokServer.start();
      tokens.smart = tiktok.addAdvertiser(SMART, { allowlisted: ['SMART_PLUS'] });
      tokens.plain = tiktok.addAdvertiser(PLAIN);
      proxy = await RecordingProxy.start(tiktok.url, /^\/open_api\/v\d+\.\d+/);
      creativesDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-smart-plus-'));
      live = await startWorld({
        dialect,
        bootstrap: world(tokens),
        env: {
          PLATFORM_MODE: 'live',
          TIKTOK_API_URL: proxy.url,
          TOKEN_ENCRYPTION_KEY: process.env.TOKEN_ENCRYPTION_KEY!,
          CREATIVES_DIR: creativesDir,
        },
      });
      sandbox = await startWorld({ dialect, bootstrap: world({}) });
      for (const [mode, w] of [
        ['live', live],
        ['sandbox', sandbox],
      ] as const) {
        const key = w.key('acme', 'ci');
        apis[mode] = { smart: brandApi(w, key, w.brandId('acme', 'smart')), plain: brandApi(w, key, w.brandId('acme', 'plain')) };
        media[mode] = {} as never;
        for (const brand of ['smart', 'plain'] as const)
          media[mode][brand] = {
            video: await upload(w, key, w.brandId('acme', brand), mp4, 'spring.mp4', 'video/mp4'),
            image: await upload(w, key, w.brandId('acme', brand), png, 'spring.png', 'image/png'),
          };
      }
    });
    after(async () => {
      await live?.close();
      await sandbox?.close();
      await proxy?.close();
      await tiktok?.close();
      if (creativesDir) fs.rmSync(creativesDir, { recursive: true, force: true });
      if (savedKey === undefined) delete process.env.TOKEN_ENCRYPTION_KEY;
    });
    beforeEach(() => proxy.clear());

    const answersNotZero = () => proxy.recorded.filter((r) => (r.answer as { code?: number } | undefined)?.code !== 0);
    const confirm = (api: Api, launchId: string) => api('POST', `/launches/${launchId}/publish`, { confirm: true }, idem('smart'));

    describe('live: a Smart+ launch of 1 campaign, 2 ad groups and 4 ads', () => {
      let l: SmartLaunch;
      let campaignPlatformId: string;

      before(async () => {
        l = await smartLaunch(apis.live.smart, media.live.smart.video, 'Smart spring');
      });

      it('previews valid, asking TikTok only its URL tool (one question for the one landing page) and creating nothing', async () => {
        const reply = await apis.live.smart('POST', `/launches/${l.launchId}/publish`, {}, idem('preview'));
        expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
        expect(reply.body).to.deep.include({ valid: true, counts: { campaigns: 1, adSets: 2, ads: 4 } });
        expect(reply.body.warnings ?? [], 'no warning about manual creation ending: this is Smart+').to.deep.equal([]);
        const urls = proxy.to(/^\/tool\/url_validate\/$/);
        expect(urls).to.have.length(1);
        expect(new URL(String(urls[0].params.url)).searchParams.get('sub3')).to.equal('__CAMPAIGN_ID__');
        expect(proxy.recorded.filter((r) => r.method === 'POST')).to.deep.equal([]);
      });

      it('publishes through the Smart+ endpoints only, every request accepted (code 0), and ends with everything enabled', async () => {
        const reply = await confirm(apis.live.smart, l.launchId);
        expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
        expect(reply.body.status).to.equal('published');
        expect(answersNotZero(), 'answers other than code 0').to.deep.equal([]);
        const creates = proxy.recorded.filter((r) => /\/create\/$/.test(r.path)).map((r) => r.path);
        expect(creates).to.deep.equal([
          '/smart_plus/campaign/create/',
          '/smart_plus/adgroup/create/',
          '/smart_plus/adgroup/create/',
          '/smart_plus/ad/create/',
          '/smart_plus/ad/create/',
          '/smart_plus/ad/create/',
          '/smart_plus/ad/create/',
        ]);
        const mine = tiktok.objectsOf(SMART).filter((o) => o.smartPlus && o.name.startsWith('Smart spring'));
        expect(mine.map((o) => `${o.level} ${o.createdStatus} ${o.operationStatus}`)).to.deep.equal([
          'campaign DISABLE ENABLE',
          'adgroup DISABLE ENABLE',
          'adgroup DISABLE ENABLE',
          'ad DISABLE ENABLE',
          'ad DISABLE ENABLE',
          'ad DISABLE ENABLE',
          'ad DISABLE ENABLE',
        ]);
        // Enabled once everything existed, through the Smart+ status endpoints: the ads, their ad groups, the campaign.
        const statuses = proxy.recorded.filter((r) => /\/status\/update\/$/.test(r.path));
        expect(statuses.map((r) => [r.path, r.params.operation_status])).to.deep.equal([
          ['/smart_plus/ad/status/update/', 'ENABLE'],
          ['/smart_plus/adgroup/status/update/', 'ENABLE'],
          ['/smart_plus/campaign/status/update/', 'ENABLE'],
        ]);
        expect((statuses[0].params.smart_plus_ad_ids as string[]).sort()).to.deep.equal(
          mine
            .filter((o) => o.level === 'ad')
            .map((o) => o.id)
            .sort(),
        );
        campaignPlatformId = mine[0].id;
        const tree = await apis.live.smart('GET', `/launches/${l.launchId}`);
        expect(tree.body.campaigns[0].node.platformId).to.equal(campaignPlatformId);
      });

      it('the campaign create as smart_plus_campaign_create.yml says: a dynamic daily budget in dollars, an int64 request_id, created DISABLE', () => {
        const [campaign] = proxy.history.filter((r) => r.path === '/smart_plus/campaign/create/' && r.params.campaign_name === 'Smart spring campaign');
        expect(campaign.params).to.deep.equal({
          advertiser_id: SMART,
          campaign_name: 'Smart spring campaign',
          objective_type: 'WEB_CONVERSIONS',
          operation_status: 'DISABLE',
          budget_optimize_on: true,
          budget_mode: 'BUDGET_MODE_DYNAMIC_DAILY_BUDGET',
          budget: 100,
          request_id: campaign.params.request_id,
        });
        expect(campaign.params.request_id).to.match(/^\d{18}$/);
      });

      it('each ad group create as smart_plus_adgroup_create.yml says: targeting in targeting_spec (region ids, age groups), the pixel and event, no budget, nothing Smart+ decides', () => {
        const groups = proxy.history.filter((r) => r.path === '/smart_plus/adgroup/create/' && String(r.params.adgroup_name).startsWith('Smart spring set'));
        expect(groups.map((g) => g.params.adgroup_name)).to.deep.equal(['Smart spring set A', 'Smart spring set B']);
        for (const g of groups) {
          const { schedule_start_time: start, request_id: requestId, ...rest } = g.params;
          expect(rest).to.deep.equal({
            advertiser_id: SMART,
            campaign_id: campaignPlatformId,
            adgroup_name: g.params.adgroup_name,
            operation_status: 'DISABLE',
            optimization_goal: 'CONVERT',
            billing_event: 'OCPM',
            schedule_type: 'SCHEDULE_FROM_NOW',
            bid_type: 'BID_TYPE_NO_BID',
            promotion_type: 'WEBSITE',
            pixel_id: PIXEL,
            optimization_event: 'SHOPPING',
            targeting_spec: { location_ids: [US], age_groups: ['AGE_18_24', 'AGE_25_34', 'AGE_35_44', 'AGE_45_54', 'AGE_55_100'] },
          });
          expect(start).to.match(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
          expect(requestId).to.match(/^\d{18}$/);
        }
        expect(groups[0].params.request_id).to.not.equal(groups[1].params.request_id);
      });

      it('each ad create as smart_plus_ad_create.yml says: one SINGLE_VIDEO with the uploaded video and the identity, texts, call to action and page as lists, sub3 in the page, no display name', () => {
        const ads = proxy.history.filter((r) => r.path === '/smart_plus/ad/create/' && String(r.params.ad_name).startsWith('Smart spring set'));
        expect(ads).to.have.length(4);
        const [upload] = proxy.history.filter((r) => r.path === '/file/video/ad/upload/');
        const videoId = ((upload.answer as { data: Array<{ video_id: string }> }).data[0] ?? {}).video_id;
        for (const ad of ads) {
          expect(ad.params).to.deep.equal({
            advertiser_id: SMART,
            adgroup_id: ad.params.adgroup_id,
            ad_name: ad.params.ad_name,
            operation_status: 'DISABLE',
            creative_list: [
              { creative_info: { ad_format: 'SINGLE_VIDEO', video_info: { video_id: videoId }, identity_id: IDENTITY, identity_type: 'CUSTOMIZED_USER' } },
            ],
            ad_text_list: [{ ad_text: ad.params.ad_text_list && (ad.params.ad_text_list as Array<{ ad_text: string }>)[0].ad_text }],
            call_to_action_list: [{ call_to_action: 'SHOP_NOW' }],
            landing_page_url_list: [{ landing_page_url: 'https://shop.example.com/spring?src=tt&sub3=__CAMPAIGN_ID__' }],
          });
          expect((ad.params.ad_text_list as Array<{ ad_text: string }>)[0].ad_text).to.match(/^Spring sale \d\.\d$/);
        }
      });

      it('every parameter sent is in the TikTok ledger', () => {
        expect(ledgerProblems(TIKTOK_LEDGER, proxy.history, TIKTOK_API_VERSION)).to.deep.equal([]);
      });

      it('the campaign is read in the account campaign list and in reports like any other', async () => {
        const list = await apis.live.smart('GET', `/ad-accounts/biz_${SMART}/campaigns`);
        expect(list.status, JSON.stringify(list.body)).to.equal(200);
        const row = list.body.campaigns.find((c: { id: string }) => c.id === campaignPlatformId);
        expect(row).to.deep.include({ name: 'Smart spring campaign', budget: { period: 'daily', amountMinorUnits: 10000 } });
        tiktok.seedStats(campaignPlatformId, '2026-12-01', { spendMinor: 4200, impressions: 9000, clicks: 310, conversions: 12, revenueMinor: 30000 });
        const report = await apis.live.smart('GET', `/ad-accounts/biz_${SMART}/insights?level=campaign&since=2026-12-01&until=2026-12-01`);
        expect(report.status, JSON.stringify(report.body)).to.equal(200);
        const reported = report.body.rows.find((r: { campaignId?: string; id?: string }) => JSON.stringify(r).includes(campaignPlatformId));
        expect(reported, JSON.stringify(report.body.rows)).to.deep.include({ spend: 4200, impressions: 9000, clicks: 310 });
      });

      it('a live budget edit reaches /smart_plus/campaign/update/ with the new amount in dollars', async () => {
        const reply = await apis.live.smart(
          'POST',
          `/launches/${l.launchId}/nodes/${l.campaignId}/live-budget`,
          { level: 'CAMPAIGN', budgetType: 'daily', amount: 12000 },
          idem('smart-budget'),
        );
        expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
        expect(reply.body.budget).to.deep.equal({ period: 'daily', amountMinorUnits: 12000 });
        const updates = proxy.recorded.filter((r) => /\/update\/$/.test(r.path) && !/status/.test(r.path));
        expect(updates.map((r) => [r.path, r.params])).to.deep.equal([
          ['/smart_plus/campaign/update/', { advertiser_id: SMART, campaign_id: campaignPlatformId, budget: 120 }],
        ]);
        expect(answersNotZero()).to.deep.equal([]);
        expect(tiktok.objects.get(campaignPlatformId)!.budget).to.equal(120);
      });

      it('a pause reaches /smart_plus/campaign/status/update/ (DISABLE), and nothing goes to the classic endpoints', async () => {
        const reply = await apis.live.smart('PATCH', `/launches/${l.launchId}/nodes/${l.campaignId}`, { properties: { status: 'PAUSED' } });
        expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
        const statuses = proxy.recorded.filter((r) => /\/status\/update\/$/.test(r.path));
        expect(statuses.map((r) => [r.path, r.params])).to.deep.equal([
          ['/smart_plus/campaign/status/update/', { advertiser_id: SMART, campaign_ids: [campaignPlatformId], operation_status: 'DISABLE' }],
        ]);
        expect(answersNotZero()).to.deep.equal([]);
        expect(tiktok.objects.get(campaignPlatformId)!.operationStatus).to.equal('DISABLE');
      });
      it('an automation on the Smart+ campaign reads its delivery in the report and pauses it through /smart_plus/campaign/status/update/', async () => {
        const active = await apis.live.smart('PATCH', `/launches/${l.launchId}/nodes/${l.campaignId}`, { properties: { status: 'ACTIVE' } });
        expect(active.status, JSON.stringify(active.body)).to.equal(200);
        expect(tiktok.objects.get(campaignPlatformId)!.operationStatus).to.equal('ENABLE');
        proxy.clear();
        const today = new Date().toISOString().slice(0, 10);
        tiktok.seedStats(campaignPlatformId, today, { spendMinor: 5000, impressions: 40000, clicks: 400, conversions: 0, revenueMinor: 0 });
        const created = await apis.live.smart('POST', '/automations', {
          automationName: 'Smart+ no results',
          accountId: `biz_${SMART}`,
          level: 'campaign',
          objectIds: [campaignPlatformId],
          conditions: [
            { metric: 'spend', window: 'today', operator: 'gt', value: 1000 },
            { metric: 'results', window: 'today', operator: 'lt', value: 1 },
          ],
          action: 'pause',
          frequency: 'every_15_minutes',
          mode: 'live',
        });
        expect(created.status, JSON.stringify(created.body)).to.equal(201);
        const run = await apis.live.smart('POST', `/automations/${created.body.automationId}/runs`);
        expect(run.status, JSON.stringify(run.body)).to.equal(201);
        expect(run.body.objects.find((o: { objectId: string }) => o.objectId === campaignPlatformId)).to.include({ action: 'paused', skipReason: null });
        const statuses = proxy.recorded.filter((r) => /\/status\/update\/$/.test(r.path));
        expect(statuses.map((r) => [r.path, r.params])).to.deep.equal([
          ['/smart_plus/campaign/status/update/', { advertiser_id: SMART, campaign_ids: [campaignPlatformId], operation_status: 'DISABLE' }],
        ]);
        expect(proxy.to(/^\/report\/integrated\/get\/$/).length, 'the delivery read from the report').to.be.at.least(1);
        expect(answersNotZero()).to.deep.equal([]);
        expect(tiktok.objects.get(campaignPlatformId)!.operationStatus).to.equal('DISABLE');
        // Disarmed, so no job of it runs again while the other tests go on.
        expect((await apis.live.smart('PATCH', `/automations/${created.body.automationId}`, { status: 'PAUSED' })).status).to.equal(200);
      });
    });

    it('sandbox: the same Smart+ launch previews valid and publishes (what previews valid in the sandbox publishes live)', async () => {
      const l = await smartLaunch(apis.sandbox.smart, media.sandbox.smart.video, 'Smart sandbox');
      const preview = await apis.sandbox.smart('POST', `/launches/${l.launchId}/publish`, {}, idem('preview'));
      expect(preview.status, JSON.stringify(preview.body)).to.equal(200);
      expect(preview.body).to.deep.include({ valid: true, counts: { campaigns: 1, adSets: 2, ads: 4 } });
      const reply = await confirm(apis.sandbox.smart, l.launchId);
      expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
      expect(reply.body.status).to.equal('published');
    });

    it('live: an ad group TikTok refuses rolls the publish back: nothing of the launch stays on TikTok, the launch is publish_failed', async () => {
      const l = await smartLaunch(apis.live.smart, media.live.smart.video, 'Smart refused', { adSets: ['Smart refused kept', 'Smart refused refused'] });
      tiktok.refuseCreateNamed('Smart refused refused', 'The ad group could not be created: the advertiser has reached its limit of Smart+ ad groups.');
      try {
        const reply = await confirm(apis.live.smart, l.launchId);
        expect(reply.status, JSON.stringify(reply.body)).to.be.within(400, 499);
        expect(JSON.stringify(reply.body)).to.contain('limit of Smart+ ad groups');
        const made = tiktok.objectsOf(SMART).filter((o) => o.name.startsWith('Smart refused'));
        expect(
          made.map((o) => `${o.level} ${o.name}`),
          'made before the refusal',
        ).to.deep.equal(['campaign Smart refused campaign', 'adgroup Smart refused kept']);
        expect(
          made.filter((o) => !o.deleted),
          'left on TikTok',
        ).to.deep.equal([]);
        const deletes = proxy.recorded.filter((r) => /\/status\/update\/$/.test(r.path) && r.params.operation_status === 'DELETE');
        expect(deletes.map((r) => r.path).sort()).to.deep.equal(['/smart_plus/adgroup/status/update/', '/smart_plus/campaign/status/update/']);
        expect((await apis.live.smart('GET', `/launches/${l.launchId}`)).body.status).to.equal('publish_failed');
      } finally {
        tiktok.clearUnwritten();
      }
    });

    for (const row of SMART_RULES) {
      for (const mode of ['sandbox', 'live'] as const) {
        it(`${mode}: ${row.what} → 400 at preview and at publish on ${row.fields.length ? 'the named fields' : ''}, nothing created`, async () => {
          const api = apis[mode][row.brand];
          const over = row.over({ image: media[mode][row.brand].image });
          const l = await smartLaunch(api, media[mode][row.brand].video, `Rule ${crypto.randomBytes(3).toString('hex')}`, over);
          for (const confirmed of [false, true]) {
            const reply = await api('POST', `/launches/${l.launchId}/publish`, { confirm: confirmed }, idem('smart-rule'));
            expect(reply.status, JSON.stringify(reply.body)).to.equal(400);
            expect(reply.body.error.code).to.equal('validation_failed');
            const details: Array<{ field: string; message: string }> = reply.body.error.details;
            expect(details.map((d) => d.field).sort(), JSON.stringify(details)).to.deep.equal(row.fields(l).sort());
            for (const d of details) expect(d.message).to.match(row.says);
          }
          if (mode === 'live') expect(proxy.recorded.filter((r) => r.method === 'POST')).to.deep.equal([]);
          expect((await api('GET', `/launches/${l.launchId}`)).body.status).to.equal('draft');
        });
      }
      it(`the fake TikTok refuses it too when sent anyway: ${row.what} → code ${row.raw.code} in TikTok's words`, async () => {
        const res = await fetch(`${tiktok.url}${row.raw.path}`, {
          method: 'POST',
          headers: { 'Access-Token': tokens[row.raw.advertiser === SMART ? 'smart' : 'plain'], 'Content-Type': 'application/json' },
          body: JSON.stringify({ advertiser_id: row.raw.advertiser, ...row.raw.body }),
        });
        const answer = (await res.json()) as { code: number; message: string };
        expect(res.status).to.equal(200);
        expect(answer.code, answer.message).to.equal(row.raw.code);
        expect(answer.message).to.match(row.raw.refusal);
      });
    }
  });
}
