// The reference launch (docs/launches.md: campaign, ad set, ad with an uploaded creative) published
// over REST in PLATFORM_MODE=live to the fake Meta and TikTok servers, with a campaign budget and
// with ad-set budgets, with an image and with a video. A recording proxy in front of each fake keeps
// every request the service sent, asserted field by field: the upload before the ad, the uploaded
// reference in the ad, page or identity, budgets in each platform's unit, region ids, sub3. A second
// launch with the same creative uploads nothing. A TikTok preview puts each landing page to TikTok's
// URL tool: a page it calls invalid is an issue on the ad's linkUrl.

import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { dialects } from '../../helpers/databases.js';
import { startWorld, type World } from '../../helpers/world.js';
import { addNode, adProps, brandApi, buildLaunch, idem, type Api } from '../../helpers/launch-builders.js';
import { makePng } from '../../helpers/png.js';
import { makeMp4 } from '../../helpers/mp4.js';
import { RecordingProxy, type Recorded } from '../../helpers/recording-proxy.js';
import { FakeMetaServer } from '../../fakes/meta-server.js';
import { FakeTikTokServer } from '../../fakes/tiktok-server.js';
import { TIKTOK_RULE_ROWS, TIKTOK_VALID_ROWS, tokBrand, tokTree as ruleTree } from '../../helpers/tiktok-rules.js';
import { ledgerProblems } from '../../../src/platforms/ledger.js';
import { META_LEDGER } from '../../../src/platforms/meta/ledger.js';
import { TIKTOK_API_VERSION, TIKTOK_LEDGER } from '../../../src/platforms/tiktok/ledger.js';
import { DEFAULT_GRAPH_VERSION } from '../../../src/platforms/meta/versions.js';

const META_ACCOUNT = 'act_1001';
const PAGE = '100200300400';
const ADVERTISER = '7000000000000000001';
const TIKTOK_ACCOUNT = `biz_${ADVERTISER}`;
const IDENTITY = '7000000000000009999';
/** A TikTok advertiser in yen (FX_RATES JPY=0.0066, the fake's rate), and one whose brand's name is over TikTok's 40 display-name characters. */
const YEN_ADVERTISER = '7000000000000000002';
/** A TikTok advertiser in pounds: its ad groups' floor is the pound table's GBP 15.00 a day. */
const GBP_ADVERTISER = '7000000000000000004';
const LONG_ADVERTISER = '7000000000000000003';
const LONG_BRAND = 'Acme Outdoor Supply Company of the Pacific Northwest';

const tokAccount = (advertiserId: string, name: string, currency: string, accessToken: string) => ({
  platform: 'tiktok',
  accountId: `biz_${advertiserId}`,
  name,
  timezone: 'UTC',
  currency,
  accessToken,
  identityId: IDENTITY,
  identityType: 'CUSTOMIZED_USER',
});

const world = (metaToken: string, tiktokToken: string, yenToken: string, longToken: string, gbpToken: string) => ({
  organizations: [
    {
      ref: 'acme',
      name: 'Acme Live',
      plan: 'agency',
      subscriptionStatus: 'active',
      users: [{ ref: 'olive', email: 'olive@live.test', name: 'Olive Owner', password: 'correct horse 1', role: 'owner' }],
      brands: [
        {
          ref: 'shoes',
          name: 'Shoes Co',
          adAccounts: [
            {
              platform: 'meta',
              accountId: META_ACCOUNT,
              name: 'Shoes US',
              timezone: 'America/New_York',
              currency: 'USD',
              accessToken: metaToken,
              pageId: PAGE,
            },
          ],
        },
        {
          ref: 'tok',
          name: 'Tok Co',
          adAccounts: [
            {
              platform: 'tiktok',
              accountId: TIKTOK_ACCOUNT,
              name: 'Tok US',
              timezone: 'UTC',
              currency: 'USD',
              accessToken: tiktokToken,
              identityId: IDENTITY,
              identityType: 'CUSTOMIZED_USER',
              // The reference launch's image ad runs in the allowlist-only PLACEMENT_GLOBAL_APP_BUNDLE.
              allowlisted: ['PLACEMENT_GLOBAL_APP_BUNDLE'],
            },
          ],
        },
        { ref: 'tokyen', name: 'Tok Yen Co', adAccounts: [tokAccount(YEN_ADVERTISER, 'Tok JP', 'JPY', yenToken)] },
        { ref: 'tokgbp', name: 'Tok Pound Co', adAccounts: [tokAccount(GBP_ADVERTISER, 'Tok UK', 'GBP', gbpToken)] },
        { ref: 'toklong', name: LONG_BRAND, adAccounts: [tokAccount(LONG_ADVERTISER, 'Tok Long', 'USD', longToken)] },
      ],
      apiKeys: [
        {
          ref: 'ci',
          name: 'CI key',
          createdBy: 'olive',
          scopes: ['read', 'write', 'publish'],
          surfaces: { api: true, mcp: true },
          publishCeilingDollars: 5000,
        },
      ],
    },
  ],
});

const md5 = (bytes: Buffer) => crypto.createHash('md5').update(bytes).digest('hex');

async function upload(w: World, key: string, brandId: number, bytes: Buffer, name: string, type: string): Promise<number> {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(bytes)], { type }), name);
  const res = await fetch(`${w.url}/v1/brands/${brandId}/creatives`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form });
  const body = await res.json();
  expect(res.status, JSON.stringify(body)).to.equal(201);
  return body.id as number;
}

async function publish(api: Api, launchId: string): Promise<void> {
  const reply = await api('POST', `/launches/${launchId}/publish`, { confirm: true }, idem('live'));
  expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
  expect(reply.body.status).to.equal('published');
}

/** Every string anywhere in a value, for the fields whose place in a request the platform leaves open. */
function stringsIn(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(stringsIn);
  if (value && typeof value === 'object') return Object.values(value).flatMap(stringsIn);
  return [];
}

const firstIndex = (log: Recorded[], test: (r: Recorded) => boolean) => log.findIndex(test);

for (const dialect of dialects()) {
  describe(`live publish to the fake Meta and TikTok servers over REST (${dialect})`, function () {
    this.timeout(120_000);
    let w: World;
    let meta: FakeMetaServer;
    let tiktok: FakeTikTokServer;
    let metaProxy: RecordingProxy;
    let tiktokProxy: RecordingProxy;
    let creativesDir: string;
    let key: string;
    let shoes: Api;
    let tok: Api;
    let tokYen: Api;
    let tokLong: Api;
    let tokGbp: Api;
    const png = makePng(1080, 1080);
    const mp4 = makeMp4(1080, 1920, 15_000);
    const ids: Record<string, number> = {};
    let savedKey: string | undefined;

    before(async () => {
      // Bootstrap seals the tokens in this process, the server reads them: one key for both.
      savedKey = process.env.TOKEN_ENCRYPTION_KEY;
      if (!savedKey) process.env.TOKEN_ENCRYPTION_KEY = crypto.randomBytes(32).toString('base64');
      meta = await FakeMetaServer.start();
      tiktok = await FakeTikTokServer.start();
      const metaToken = meta.addAccount(META_ACCOUNT);
      const tiktokToken = tiktok.addAdvertiser(ADVERTISER, { allowlisted: ['PLACEMENT_GLOBAL_APP_BUNDLE'] });
      const yenToken = tiktok.addAdvertiser(YEN_ADVERTISER, { currency: 'JPY' });
      const longToken = tiktok.addAdvertiser(LONG_ADVERTISER);
      const gbpToken = tiktok.addAdvertiser(GBP_ADVERTISER, { currency: 'GBP' });
      metaProxy = await RecordingProxy.start(meta.url, /^\/v\d+\.\d+/);
      tiktokProxy = await RecordingProxy.start(tiktok.url, /^\/open_api\/v\d+\.\d+/);
      creativesDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-live-creatives-'));
      w = await startWorld({
        dialect,
        bootstrap: world(metaToken, tiktokToken, yenToken, longToken, gbpToken),
        env: {
          PLATFORM_MODE: 'live',
          // The yen and pound accounts' campaign minimums are TikTok's USD ones at these rates (the fake TikTok's too).
          FX_RATES: 'JPY=0.0066,GBP=1.27',
          META_GRAPH_URL: metaProxy.url,
          TIKTOK_API_URL: tiktokProxy.url,
          TOKEN_ENCRYPTION_KEY: process.env.TOKEN_ENCRYPTION_KEY!,
          CREATIVES_DIR: creativesDir,
        },
      });
      key = w.key('acme', 'ci');
      shoes = brandApi(w, key, w.brandId('acme', 'shoes'));
      tok = brandApi(w, key, w.brandId('acme', 'tok'));
      tokYen = brandApi(w, key, w.brandId('acme', 'tokyen'));
      tokLong = brandApi(w, key, w.brandId('acme', 'toklong'));
      tokGbp = brandApi(w, key, w.brandId('acme', 'tokgbp'));
      ids.shoesImage = await upload(w, key, w.brandId('acme', 'shoes'), png, 'hero.png', 'image/png');
      ids.shoesVideo = await upload(w, key, w.brandId('acme', 'shoes'), mp4, 'hero.mp4', 'video/mp4');
      ids.tokImage = await upload(w, key, w.brandId('acme', 'tok'), png, 'hero.png', 'image/png');
      ids.tokVideo = await upload(w, key, w.brandId('acme', 'tok'), mp4, 'hero.mp4', 'video/mp4');
      ids.tokyenImage = await upload(w, key, w.brandId('acme', 'tokyen'), png, 'hero.png', 'image/png');
      ids.toklongImage = await upload(w, key, w.brandId('acme', 'toklong'), png, 'hero.png', 'image/png');
      ids.tokgbpImage = await upload(w, key, w.brandId('acme', 'tokgbp'), png, 'hero.png', 'image/png');
    });
    after(async () => {
      await w?.close();
      await metaProxy?.close();
      await tiktokProxy?.close();
      await meta?.close();
      await tiktok?.close();
      if (creativesDir) fs.rmSync(creativesDir, { recursive: true, force: true });
      if (savedKey === undefined) delete process.env.TOKEN_ENCRYPTION_KEY;
    });
    beforeEach(() => {
      metaProxy.clear();
      tiktokProxy.clear();
    });

    /** The object story specs the Meta ads were created with (an adcreatives create, or the ad's inline creative). */
    const storySpecs = (log: Recorded[]) =>
      log
        .filter((r) => r.method === 'POST' && /\/(adcreatives|ads)$/.test(r.path))
        .map((r) => (r.params.object_story_spec ?? (r.params.creative as Record<string, unknown> | undefined)?.object_story_spec) as Record<string, any>)
        .filter(Boolean);

    describe('Meta', () => {
      it('campaign budget, image: adimages before the ad, image_hash and page_id in the story, daily_budget in cents on the campaign only, countries, sub3', async () => {
        const built = await buildLaunch(shoes, { title: 'Meta campaign budget', creativeId: ids.shoesImage });
        await publish(shoes, built.launchId);
        const log = metaProxy.recorded;
        const uploads = log.filter((r) => r.method === 'POST' && r.path === `/${META_ACCOUNT}/adimages`);
        expect(uploads, 'one image upload').to.have.length(1);
        const hash = stringsIn(uploads[0].answer).find((s) => s === md5(png)) ?? (Object.values((uploads[0].answer as any).images)[0] as any).hash;
        const firstAd = firstIndex(log, (r) => r.method === 'POST' && /\/(adcreatives|ads)$/.test(r.path));
        expect(firstIndex(log, (r) => r.path === `/${META_ACCOUNT}/adimages`)).to.be.lessThan(firstAd);
        const [story] = storySpecs(log);
        expect(story.page_id).to.equal(PAGE);
        expect(story.link_data).to.deep.include({ image_hash: hash, link: 'https://shop.example.com/spring' });
        const [campaign] = log.filter((r) => r.method === 'POST' && r.path === `/${META_ACCOUNT}/campaigns`);
        expect(String(campaign.params.daily_budget)).to.equal('5000');
        expect(campaign.params.name).to.equal('Spring - US');
        const [adset] = log.filter((r) => r.method === 'POST' && r.path === `/${META_ACCOUNT}/adsets`);
        expect(adset.params).to.not.have.property('daily_budget');
        expect((adset.params.targeting as any).geo_locations.countries).to.deep.equal(['US']);
        // Ages 18-65 and countries only: Meta's default audience, said explicitly (v23.0+).
        expect((adset.params.targeting as any).targeting_automation).to.deep.equal({ advantage_audience: 1 });
        expect(stringsIn(log.filter((r) => /\/(adcreatives|ads)$/.test(r.path)).map((r) => r.params)).join(' ')).to.contain('sub3={{campaign.id}}');
      });

      it('ad-set budget, video: advideos before the ad, video_id in video_data, no campaign budget and is_adset_budget_sharing_enabled false, the ad set daily_budget in cents', async () => {
        const built = await buildLaunch(shoes, {
          title: 'Meta ad set budget',
          creativeId: ids.shoesVideo,
          campaign: { budget: undefined },
          adset: { budget: { dailyAmount: 2000 } },
        });
        await publish(shoes, built.launchId);
        const log = metaProxy.recorded;
        const uploads = log.filter((r) => r.method === 'POST' && r.path === `/${META_ACCOUNT}/advideos`);
        expect(uploads, 'one video upload').to.have.length(1);
        const videoId = String((uploads[0].answer as { id: string }).id);
        expect(firstIndex(log, (r) => r.path === `/${META_ACCOUNT}/advideos`)).to.be.lessThan(
          firstIndex(log, (r) => r.method === 'POST' && /\/(adcreatives|ads)$/.test(r.path)),
        );
        const [story] = storySpecs(log);
        expect(story.page_id).to.equal(PAGE);
        expect(String(story.video_data.video_id)).to.equal(videoId);
        expect(story.video_data.image_hash ?? story.video_data.image_url, 'the video thumbnail').to.be.a('string');
        const [campaign] = log.filter((r) => r.method === 'POST' && r.path === `/${META_ACCOUNT}/campaigns`);
        expect(campaign.params).to.not.have.property('daily_budget');
        expect(String(campaign.params.is_adset_budget_sharing_enabled)).to.equal('false');
        const [adset] = log.filter((r) => r.method === 'POST' && r.path === `/${META_ACCOUNT}/adsets`);
        expect(String(adset.params.daily_budget)).to.equal('2000');
      });

      it('a second launch with the same image uploads nothing and uses the kept hash', async () => {
        const built = await buildLaunch(shoes, { title: 'Meta again', creativeId: ids.shoesImage });
        await publish(shoes, built.launchId);
        expect(metaProxy.to(/\/(adimages|advideos)$/)).to.deep.equal([]);
        const [story] = storySpecs(metaProxy.recorded);
        expect(story.link_data.image_hash).to.be.a('string').and.not.empty;
      });
    });

    describe('TikTok', () => {
      const tokTree = (creativeId: number, budget: 'campaign' | 'adset') => ({
        creativeId,
        campaign: { objective: 'TRAFFIC', budget: budget === 'campaign' ? { dailyAmount: 5000 } : undefined },
        adset: {
          optimizationGoal: 'CLICK',
          billingEvent: 'CPC',
          // An image ad runs outside TikTok's in-feed placement; a video ad anywhere (automatic placement).
          ...(creativeId === ids.tokImage ? { placements: { positions: ['PLACEMENT_PANGLE', 'PLACEMENT_GLOBAL_APP_BUNDLE'] } } : {}),
          ...(budget === 'adset' ? { budget: { dailyAmount: 2000 } } : {}),
        },
      });
      /** Every ad group and ad TikTok holds was created DISABLE, and each object now has the status its launch gives it. */
      const createdDisabled = () => {
        const children = tiktok.objectsOf(ADVERTISER).filter((o) => o.level !== 'campaign');
        expect(children.map((o) => `${o.level} ${o.createdStatus}`)).to.deep.equal(children.map((o) => `${o.level} DISABLE`));
      };

      it('campaign budget, image: the upload (UPLOAD_BY_FILE, MD5 signature) before ad/create, image_ids, identity, campaign budget optimization in dollars, region ids, sub3', async () => {
        const built = await buildLaunch(tok, { title: 'TikTok campaign budget', ...tokTree(ids.tokImage, 'campaign') });
        await publish(tok, built.launchId);
        const log = tiktokProxy.recorded;
        const uploads = log.filter((r) => r.path === '/file/image/ad/upload/');
        expect(uploads, 'one image upload').to.have.length(1);
        expect(uploads[0].params).to.deep.include({ advertiser_id: ADVERTISER, upload_type: 'UPLOAD_BY_FILE', image_signature: md5(png) });
        const imageId = (uploads[0].answer as { data: { image_id: string } }).data.image_id;
        expect(firstIndex(log, (r) => r.path === '/file/image/ad/upload/')).to.be.lessThan(firstIndex(log, (r) => r.path === '/ad/create/'));
        const [ad] = log.filter((r) => r.path === '/ad/create/');
        const creative = (ad.params.creatives as Array<Record<string, any>>)[0];
        expect(creative).to.deep.include({ ad_format: 'SINGLE_IMAGE', identity_id: IDENTITY, identity_type: 'CUSTOMIZED_USER' });
        expect(creative.image_ids).to.deep.equal([imageId]);
        expect(new URL(creative.landing_page_url).searchParams.get('sub3')).to.equal('__CAMPAIGN_ID__');
        // The rules the specifications leave out, field by field (live-platforms.md).
        expect(creative).to.deep.include({ operation_status: 'DISABLE', call_to_action: 'SHOP_NOW', display_name: 'Tok Co' });
        const [campaign] = log.filter((r) => r.path === '/campaign/create/');
        expect(campaign.params).to.deep.include({ budget_optimize_on: true, budget_mode: 'BUDGET_MODE_DAY', budget: 50 });
        expect(campaign.params).to.not.have.property('optimization_goal');
        const [adgroup] = log.filter((r) => r.path === '/adgroup/create/');
        expect(adgroup.params).to.deep.include({
          operation_status: 'DISABLE',
          promotion_type: 'WEBSITE',
          bid_type: 'BID_TYPE_NO_BID',
          placement_type: 'PLACEMENT_TYPE_NORMAL',
          placements: ['PLACEMENT_PANGLE', 'PLACEMENT_GLOBAL_APP_BUNDLE'],
        });
        expect(adgroup.params).to.not.have.property('budget');
        createdDisabled();
        // Enabled once everything existed: the ad, then its ad group, then the campaign.
        const enables = log.filter((r) => /\/status\/update\/$/.test(r.path));
        expect(enables.map((r) => [r.path, r.params.operation_status])).to.deep.equal([
          ['/ad/status/update/', 'ENABLE'],
          ['/adgroup/status/update/', 'ENABLE'],
          ['/campaign/status/update/', 'ENABLE'],
        ]);
        expect(firstIndex(log, (r) => r.path === '/ad/create/')).to.be.lessThan(firstIndex(log, (r) => r.path === '/ad/status/update/'));
        const locations = adgroup.params.location_ids as string[];
        expect(locations).to.be.an('array').with.length(1);
        expect(locations).to.not.include('US');
        const regions = tiktokProxy.to(/^\/tool\/region\/$/);
        for (const r of regions) expect(JSON.stringify(r.answer)).to.contain(locations[0]);
      });

      it('ad-set budget, video: the video upload before ad/create, SINGLE_VIDEO with video_id and a cover image, BUDGET_MODE_INFINITE campaign, the ad group budget in dollars', async () => {
        const built = await buildLaunch(tok, { title: 'TikTok ad group budget', ...tokTree(ids.tokVideo, 'adset') });
        await publish(tok, built.launchId);
        const log = tiktokProxy.recorded;
        const uploads = log.filter((r) => r.path === '/file/video/ad/upload/');
        expect(uploads, 'one video upload').to.have.length(1);
        expect(uploads[0].params).to.deep.include({ advertiser_id: ADVERTISER, video_signature: md5(mp4) });
        expect(firstIndex(log, (r) => r.path === '/file/video/ad/upload/')).to.be.lessThan(firstIndex(log, (r) => r.path === '/ad/create/'));
        const [ad] = log.filter((r) => r.path === '/ad/create/');
        const creative = (ad.params.creatives as Array<Record<string, any>>)[0];
        expect(creative).to.deep.include({ ad_format: 'SINGLE_VIDEO', identity_id: IDENTITY });
        expect(JSON.stringify(uploads[0].answer)).to.contain(creative.video_id);
        expect(creative.image_ids, 'the cover image').to.be.an('array').with.length(1);
        const [campaign] = log.filter((r) => r.path === '/campaign/create/');
        expect(campaign.params.budget_mode).to.equal('BUDGET_MODE_INFINITE');
        expect(campaign.params).to.not.have.property('budget');
        expect(campaign.params).to.deep.include({ budget_optimize_on: false });
        const [adgroup] = log.filter((r) => r.path === '/adgroup/create/');
        expect(adgroup.params).to.deep.include({
          budget_mode: 'BUDGET_MODE_DAY',
          budget: 20,
          operation_status: 'DISABLE',
          promotion_type: 'WEBSITE',
          bid_type: 'BID_TYPE_NO_BID',
          placement_type: 'PLACEMENT_TYPE_AUTOMATIC',
        });
        expect(creative).to.deep.include({ operation_status: 'DISABLE', call_to_action: 'SHOP_NOW', display_name: 'Tok Co' });
        createdDisabled();
      });

      it('a PAUSED campaign: TikTok starts it ENABLE whatever the create says, and the publish ends with it DISABLE and every ad group and ad enabled', async () => {
        const built = await buildLaunch(tok, {
          title: 'TikTok paused',
          ...tokTree(ids.tokVideo, 'adset'),
          campaign: { objective: 'TRAFFIC', budget: undefined, status: 'PAUSED' },
        });
        await publish(tok, built.launchId);
        const log = tiktokProxy.recorded;
        const [campaign] = log.filter((r) => r.path === '/campaign/create/');
        expect(campaign.params.operation_status, 'sent, and ignored by TikTok').to.equal('DISABLE');
        const campaignId = (campaign.answer as { data: { campaign_id: string } }).data.campaign_id;
        expect(tiktok.objects.get(campaignId)!.createdStatus).to.equal('ENABLE');
        const statuses = log.filter((r) => /\/status\/update\/$/.test(r.path));
        expect(statuses.map((r) => [r.path, r.params.operation_status])).to.deep.equal([
          ['/campaign/status/update/', 'DISABLE'],
          ['/ad/status/update/', 'ENABLE'],
          ['/adgroup/status/update/', 'ENABLE'],
        ]);
        expect(statuses[0].params.campaign_ids).to.deep.equal([campaignId]);
        createdDisabled();
        const mine = tiktok.objectsOf(ADVERTISER).filter((o) => o.id === campaignId || o.campaignId === campaignId);
        expect(mine.map((o) => `${o.level} ${o.operationStatus}`)).to.deep.equal(['campaign DISABLE', 'adgroup ENABLE', 'ad ENABLE']);
        const tree = await tok('GET', `/launches/${built.launchId}`);
        expect(tree.body.status).to.equal('published');
      });

      /** The brand's API and uploaded image a row runs on. */
      const apiOf = (row: Parameters<typeof tokBrand>[0]): [Api, number] => {
        const brand = tokBrand(row);
        const api = { shoes, tok, tokyen: tokYen, toklong: tokLong, tokgbp: tokGbp }[brand]!;
        return [api, ids[brand === 'shoes' ? 'shoesImage' : `${brand}Image`]];
      };

      // The same tables as the sandbox's preview (test/e2e/rest/launches.test.ts): what previews valid there previews valid live and publishes.
      for (const row of TIKTOK_VALID_ROWS) {
        it(`live: ${row.what} → previews valid and publishes, every TikTok answer code 0`, async () => {
          const [api, image] = apiOf(row);
          const built = await buildLaunch(api, { title: row.what.slice(0, 200), ...row.tree({ image }) });
          const reply = await api('POST', `/launches/${built.launchId}/publish`, {}, idem('preview'));
          expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
          expect(reply.body.valid).to.equal(true);
          await publish(api, built.launchId);
          const answers = tiktokProxy.recorded.map((r) => (r.answer as { code?: number } | undefined)?.code);
          expect(
            answers.filter((code) => code !== 0),
            JSON.stringify(tiktokProxy.recorded.map((r) => r.answer)),
          ).to.deep.equal([]);
        });
      }

      // Live mode refuses each rule at preview too.
      for (const row of TIKTOK_RULE_ROWS) {
        it(`preview in live mode: ${row.what} → 400 on the named fields, nothing sent to create`, async () => {
          const [api, image] = apiOf(row);
          const built = await buildLaunch(api, { title: row.what.slice(0, 200), ...row.tree({ image }) });
          const reply = await api('POST', `/launches/${built.launchId}/publish`, {}, idem('preview'));
          expect(reply.status, JSON.stringify(reply.body)).to.equal(400);
          expect(reply.body.error.code).to.equal('validation_failed');
          const details: Array<{ field: string; message: string }> = reply.body.error.details;
          expect(details.map((d) => d.field).sort(), JSON.stringify(details)).to.deep.equal(row.fields(built).sort());
          for (const d of details) expect(d.message).to.match(row.says);
          expect([...tiktokProxy.recorded, ...metaProxy.recorded].filter((r) => r.method === 'POST')).to.deep.equal([]);
        });
      }

      const tokTreeOf = (image: number, positions: string[]) => ruleTree(image, { adset: { placements: { positions } } });
      it('preview in live mode: the allowlist-only PLACEMENT_GLOBAL_APP_BUNDLE on an account the bootstrap does not say is allowlisted → 400 on placements, nothing sent to create', async () => {
        const account = `/ad-accounts/${TIKTOK_ACCOUNT}`;
        expect((await tok('PATCH', account, { allowlisted: [] })).status).to.equal(200);
        try {
          const built = await buildLaunch(tok, { title: 'Not allowlisted', ...tokTreeOf(ids.tokImage, ['PLACEMENT_GLOBAL_APP_BUNDLE']) });
          const reply = await tok('POST', `/launches/${built.launchId}/publish`, {}, idem('preview'));
          expect(reply.status, JSON.stringify(reply.body)).to.equal(400);
          expect(reply.body.error.details).to.have.length(1);
          expect(reply.body.error.details[0].field).to.equal(`adSets[${built.adsetId}].placements`);
          expect(reply.body.error.details[0].message).to.match(new RegExp(`allowlist-only; ad account ${TIKTOK_ACCOUNT} is not allowlisted for it`));
          expect([...tiktokProxy.recorded, ...metaProxy.recorded].filter((r) => r.method === 'POST')).to.deep.equal([]);
        } finally {
          expect((await tok('PATCH', account, { allowlisted: ['PLACEMENT_GLOBAL_APP_BUNDLE'] })).status).to.equal(200);
        }
      });

      it('a BC_AUTH_TT identity on an account whose Business Center update-ad-account set: previews valid and the ad carries identity_authorized_bc_id', async () => {
        const account = `/ad-accounts/${TIKTOK_ACCOUNT}`;
        expect((await tok('PATCH', account, { identityBcId: '7400000000000000001' })).status).to.equal(200);
        try {
          const built = await buildLaunch(tok, {
            title: 'TikTok Business Center identity',
            ...ruleTree(ids.tokImage, { ad: { identityId: '7000000000000008888', identityType: 'BC_AUTH_TT' } }),
          });
          await publish(tok, built.launchId);
          const [ad] = tiktokProxy.to(/^\/ad\/create\/$/);
          expect((ad.params.creatives as Array<Record<string, unknown>>)[0]).to.deep.include({
            identity_id: '7000000000000008888',
            identity_type: 'BC_AUTH_TT',
            identity_authorized_bc_id: '7400000000000000001',
          });
          expect((ad.answer as { code: number }).code).to.equal(0);
        } finally {
          expect((await tok('PATCH', account, { identityBcId: null })).status).to.equal(200);
        }
      });

      it("a yen account: budgets at TikTok's minimums (campaign ¥7,576: USD 50 at the FX_RATES rate; ad group ¥2,500: the yen table) preview valid and are sent as whole yen, which TikTok takes", async () => {
        const campaignBudget = await buildLaunch(tokYen, {
          title: 'TikTok yen campaign',
          ...ruleTree(ids.tokyenImage, { campaign: { budget: { dailyAmount: 7576 } } }),
        });
        await publish(tokYen, campaignBudget.launchId);
        const [campaign] = tiktokProxy.to(/^\/campaign\/create\/$/);
        expect(campaign.params).to.deep.include({ advertiser_id: YEN_ADVERTISER, budget_optimize_on: true, budget_mode: 'BUDGET_MODE_DAY', budget: 7576 });
        tiktokProxy.clear();
        const adgroupBudget = await buildLaunch(tokYen, {
          title: 'TikTok yen ad group',
          ...ruleTree(ids.tokyenImage, { campaign: { budget: undefined }, adset: { budget: { dailyAmount: 2500 } } }),
        });
        await publish(tokYen, adgroupBudget.launchId);
        expect(tiktokProxy.to(/^\/campaign\/create\/$/)[0].params).to.deep.include({ budget_optimize_on: false, budget_mode: 'BUDGET_MODE_INFINITE' });
        const [adgroup] = tiktokProxy.to(/^\/adgroup\/create\/$/);
        expect(adgroup.params).to.deep.include({ advertiser_id: YEN_ADVERTISER, budget_mode: 'BUDGET_MODE_DAY', budget: 2500 });
        const answers = tiktokProxy.recorded.map((r) => (r.answer as { code?: number } | undefined)?.code);
        expect(answers.filter((code) => code !== 0)).to.deep.equal([]);
      });

      it('preview in live mode: TikTok throttling for longer than the request has left (Retry-After 120) → 503 unavailable at once with Retry-After, nothing created', async () => {
        const built = await buildLaunch(tok, { title: 'TikTok throttled preview', ...tokTree(ids.tokImage, 'campaign') });
        const before = tiktok.objectsOf(ADVERTISER).length;
        tiktok.throttleNext(1, { http429: true, retryAfterSeconds: 120 });
        const started = Date.now();
        const reply = await tok('POST', `/launches/${built.launchId}/publish`, {}, idem('preview'));
        expect(reply.status, JSON.stringify(reply.body)).to.equal(503);
        expect(reply.body.error.code).to.equal('unavailable');
        expect(reply.headers.get('retry-after')).to.equal('120');
        expect(Date.now() - started, 'answered at once, not after the wait').to.be.lessThan(10_000);
        expect(tiktokProxy.recorded.filter((r) => r.method === 'POST')).to.deep.equal([]);
        expect(tiktok.objectsOf(ADVERTISER)).to.have.length(before);
        expect((await tok('GET', `/launches/${built.launchId}`)).body.status).to.equal('draft');
      });

      it("preview in live mode: a country TikTok's region tool lists for another placement only (SG: in-feed) → 400 on targeting.countries; placed in-feed it is valid", async () => {
        const image = tokTree(ids.tokImage, 'campaign');
        const outside = await buildLaunch(tok, { title: 'Singapore outside in-feed', ...image, adset: { ...image.adset, targeting: { countries: ['SG'] } } });
        const refused = await tok('POST', `/launches/${outside.launchId}/publish`, {}, idem('preview'));
        expect(refused.status, JSON.stringify(refused.body)).to.equal(400);
        expect(refused.body.error.details.map((d: { field: string }) => d.field)).to.deep.equal([`adSets[${outside.adsetId}].targeting.countries`]);
        expect(refused.body.error.details[0].message).to.match(/^SG cannot be targeted on tiktok .*for this ad set's objective and placements/);
        const video = tokTree(ids.tokVideo, 'campaign');
        const inFeed = await buildLaunch(tok, {
          title: 'Singapore in-feed',
          ...video,
          adset: { ...video.adset, placements: { positions: ['PLACEMENT_TIKTOK'] }, targeting: { countries: ['SG'] } },
        });
        const valid = await tok('POST', `/launches/${inFeed.launchId}/publish`, {}, idem('preview'));
        expect(valid.status, JSON.stringify(valid.body)).to.equal(200);
        expect(tiktokProxy.recorded.filter((r) => r.method === 'POST')).to.deep.equal([]);
      });

      // Asking the platform (live-platforms.md): TikTok has no validate-only mode; a live preview puts each
      // distinct landing page to its URL tool, once per page per preview, as the ad would carry it (sub3 in).
      const SPRING = 'https://shop.example.com/spring?sub3=__CAMPAIGN_ID__';
      const CLOSED = 'https://shop.example.com/closed?sub3=__CAMPAIGN_ID__';
      const urlQuestions = () => tiktokProxy.to(/^\/tool\/url_validate\/$/);

      it("preview in live mode: a landing page TikTok's URL tool calls invalid → 400 on that ad's linkUrl in TikTok's words, the same issue in preview-launch, nothing created", async () => {
        const built = await buildLaunch(tok, { title: 'TikTok closed page', ...tokTree(ids.tokImage, 'campaign'), ads: 2 });
        const closed = await addNode(
          tok,
          built.launchId,
          'ad',
          { ...adProps, name: 'Closed', creativeId: ids.tokImage, linkUrl: 'https://shop.example.com/closed' },
          built.adsetId,
        );
        tiktok.refuseUrlWhen((url, advertiser) => advertiser === ADVERTISER && url.startsWith('https://shop.example.com/closed'));
        try {
          const before = tiktok.objectsOf(ADVERTISER).length;
          const reply = await tok('POST', `/launches/${built.launchId}/publish`, {}, idem('preview'));
          expect(reply.status, JSON.stringify(reply.body)).to.equal(400);
          expect(reply.body.error.code).to.equal('validation_failed');
          const issue = {
            field: `ads[${closed}].linkUrl`,
            code: 'platform_refused',
            message:
              "the ad platform refused it when asked to validate it: TikTok's /tool/url_validate/ answered is_scheme_link: false, is_valid_scheme: false, " +
              `is_valid_url: false for the landing page ${CLOSED}: give the ad a landing page TikTok takes (linkUrl)`,
          };
          expect(reply.body.error.details).to.deep.equal([issue]);
          // Three ads, two pages: one GET each, field by field; nothing else written.
          expect(urlQuestions().map((r) => [r.method, r.params])).to.have.deep.members([
            ['GET', { advertiser_id: ADVERTISER, url: SPRING }],
            ['GET', { advertiser_id: ADVERTISER, url: CLOSED }],
          ]);
          expect(tiktokProxy.recorded.filter((r) => r.method === 'POST')).to.deep.equal([]);
          // preview-launch (the read the console's launch page draws) asks the same questions and shows the same issue.
          tiktokProxy.clear();
          const read = await tok('GET', `/launches/${built.launchId}/preview`);
          expect(read.status, JSON.stringify(read.body)).to.equal(200);
          expect(read.body.valid).to.equal(false);
          expect(read.body.issues).to.deep.equal([{ field: issue.field, message: issue.message }]);
          expect(urlQuestions().map((r) => r.params.url)).to.have.members([SPRING, CLOSED]);
          expect(tiktok.objectsOf(ADVERTISER)).to.have.length(before);
        } finally {
          tiktok.clearUnwritten();
        }
      });

      it("preview in live mode: landing pages TikTok's URL tool accepts preview valid, one question per distinct page (two ads on one page: one GET)", async () => {
        const built = await buildLaunch(tok, { title: 'TikTok open page', ...tokTree(ids.tokImage, 'campaign'), ads: 2 });
        const reply = await tok('POST', `/launches/${built.launchId}/publish`, {}, idem('preview'));
        expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
        expect(reply.body.valid).to.equal(true);
        expect(urlQuestions().map((r) => [r.method, r.params])).to.deep.equal([['GET', { advertiser_id: ADVERTISER, url: SPRING }]]);
        expect((urlQuestions()[0].answer as { code: number; data: unknown }).data).to.deep.equal({
          url_info: { validate_info: { is_scheme_link: false, is_valid_scheme: false, is_valid_url: true } },
        });
        const read = await tok('GET', `/launches/${built.launchId}/preview`);
        expect(read.body).to.deep.include({ valid: true, issues: [] });
        expect(urlQuestions(), 'asked again by the next preview').to.have.length(2);
      });

      it('a second launch with the same image uploads nothing and uses the kept image_id', async () => {
        const first = await w.service.knex('creative_uploads').where({ creative_id: ids.tokImage, account_id: TIKTOK_ACCOUNT }).first('ref');
        const built = await buildLaunch(tok, { title: 'TikTok again', ...tokTree(ids.tokImage, 'campaign') });
        await publish(tok, built.launchId);
        expect(tiktokProxy.to(/^\/file\//)).to.deep.equal([]);
        const [ad] = tiktokProxy.to(/^\/ad\/create\/$/);
        expect((ad.params.creatives as Array<Record<string, any>>)[0].image_ids).to.deep.equal([first.ref]);
      });
    });

    // Mocha runs a suite's own tests before its nested suites: these run last, in a suite of their own.
    describe('after every publish above', () => {
      it('every publish above was taken as sent: neither platform changed anything without a word (silentChanges)', () => {
        expect(meta.silentChanges).to.deep.equal([]);
        expect(tiktok.silentChanges).to.deep.equal([]);
      });

      it('every parameter the service sent above, through the REST publishes, is in its platform ledger and taken by the version called', () => {
        expect(metaProxy.history.length).to.be.greaterThan(20);
        expect(tiktokProxy.history.length).to.be.greaterThan(20);
        const metaProblems = ledgerProblems(META_LEDGER, metaProxy.history, DEFAULT_GRAPH_VERSION);
        const tiktokProblems = ledgerProblems(TIKTOK_LEDGER, tiktokProxy.history, TIKTOK_API_VERSION);
        expect(metaProblems, metaProblems.join('\n')).to.deep.equal([]);
        expect(tiktokProblems, tiktokProblems.join('\n')).to.deep.equal([]);
      });
    });
  });
}
