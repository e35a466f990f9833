// The ledger (src/platforms/meta/ledger.ts, tiktok/ledger.ts) against what the adapters really send:
// every request the Meta and TikTok adapters send to the strict fakes while publishing the reference
// launch and its variations (images, videos, posts, lead forms, conversions, app installs, EU and
// Singapore ad sets, special categories, bids, reach, live edits, pauses, rollbacks) is recorded, and
// each parameter must be in its platform's table and taken by the version called. Shown to fail when an
// adapter sends a parameter the table lacks, or one the table marks removed for the version called.

import crypto from 'node:crypto';
import { expect } from 'chai';
import { MetaAdapter } from '../../src/platforms/meta/adapter.js';
import { TikTokAdapter } from '../../src/platforms/tiktok/adapter.js';
import type { AdAccount, CreativeFile, ObjectSpec } from '../../src/platforms/port.js';
import { entryOf, ledgerProblems, type SentRequest } from '../../src/platforms/ledger.js';
import { META_LEDGER, META_NEVER_SENT } from '../../src/platforms/meta/ledger.js';
import { TIKTOK_LEDGER, TIKTOK_API_VERSION } from '../../src/platforms/tiktok/ledger.js';
import { DEFAULT_GRAPH_VERSION } from '../../src/platforms/meta/versions.js';
import { FakeMetaServer, GRAPH_VERSION } from '../fakes/meta-server.js';
import { FakeTikTokServer } from '../fakes/tiktok-server.js';
import { testOutbound } from '../helpers/outbound.js';
import { makePng } from '../helpers/png.js';

const md5 = (bytes: Buffer) => crypto.createHash('md5').update(bytes).digest('hex');
const PAGE_ID = '100200300400';

function file(type: 'image' | 'video'): CreativeFile {
  const bytes =
    type === 'image'
      ? makePng(1080, 1080)
      : Buffer.concat([Buffer.from([0, 0, 0, 24]), Buffer.from('ftypisom', 'latin1'), Buffer.alloc(12), crypto.randomBytes(2048)]);
  return {
    creativeId: type === 'image' ? 7 : 8,
    type,
    name: type === 'image' ? 'hero.png' : 'spot.mp4',
    mime: type === 'image' ? 'image/png' : 'video/mp4',
    bytes,
    width: 1080,
    height: 1080,
    md5: md5(bytes),
  };
}

let serial = 0;
/** A campaign, one ad set and one ad, with what a variation changes at each level. */
function launch(
  parts: { campaign?: Partial<ObjectSpec>; adset?: Partial<ObjectSpec>; ad?: Partial<ObjectSpec> },
  adsetSettings: Record<string, unknown>,
  adSettings: Record<string, unknown>,
): ObjectSpec[] {
  const n = ++serial;
  const c = `nd_c${String(n).padStart(15, '0')}`;
  const s = `nd_s${String(n).padStart(15, '0')}`;
  return [
    { level: 'campaign', marker: c, name: `Campaign ${n}`, parentId: null, status: 'PAUSED', budget: null, settings: {}, ...parts.campaign },
    {
      level: 'adset',
      marker: s,
      name: `Ad set ${n}`,
      parentId: c,
      status: 'ACTIVE',
      budget: { period: 'daily', amountMinorUnits: 5000 },
      ...parts.adset,
      settings: { targeting: { countries: ['US'] }, ...adsetSettings },
    },
    {
      level: 'ad',
      marker: `nd_a${String(n).padStart(15, '0')}`,
      name: `Ad ${n}`,
      parentId: s,
      status: 'ACTIVE',
      creative: null,
      ...parts.ad,
      settings: { primaryText: 'Up to 40% off', linkUrl: 'https://shop.example.com/spring', callToAction: 'SHOP_NOW', ...adSettings },
    },
  ];
}

describe('the ledger: every parameter the adapters send is in its table and taken by the version called', function () {
  this.timeout(30_000);

  describe('Meta', () => {
    let fake: FakeMetaServer;
    let account: AdAccount;
    beforeEach(async () => {
      fake = await FakeMetaServer.start();
      account = {
        platform: 'meta',
        accountId: 'act_1001',
        timezone: 'UTC',
        currency: 'USD',
        accessToken: fake.addAccount('act_1001'),
        pageId: PAGE_ID,
        instagramUserId: '17841400000000001',
        dsaBeneficiary: 'Shoes Co GmbH',
        dsaPayor: 'Shoes Co Holding',
        regionalIdentities: { SG: { beneficiary: '900000000000001', payer: '900000000000002' } },
      };
      fake.seedLeadForm(PAGE_ID, { id: '700000000000001', name: 'Spring signup' });
    });
    afterEach(async () => fake?.close());

    const sent = (): SentRequest[] => fake.calls.map((c) => ({ method: c.method, path: c.path, params: c.params }));

    /** Publishes the reference launch and its variations against Graph `version`, with live edits, pauses and a rollback. */
    async function publishAll(version: string, extra: Record<string, unknown> = {}): Promise<void> {
      const meta = new MetaAdapter(testOutbound(), {
        baseUrl: fake.url.replace(GRAPH_VERSION, version),
        sleep: async () => undefined,
        random: () => 0,
        timeoutMs: 5_000,
        videoPollMs: 1,
      });
      const image = await meta.uploadCreative(account, file('image'));
      const video = await meta.uploadCreative(account, file('video'));
      const asImage = { type: 'image' as const, ref: image.ref, thumbnailRef: null };
      const asVideo = { type: 'video' as const, ref: video.ref, thumbnailRef: video.thumbnailRef };
      const traffic = { optimizationGoal: 'LINK_CLICKS', billingEvent: 'IMPRESSIONS' };
      const variations: ObjectSpec[][] = [
        // The reference launch (campaign budget with its bid strategy; ad-set budget), image and video.
        launch(
          {
            campaign: {
              objective: 'OUTCOME_TRAFFIC',
              budget: { period: 'daily', amountMinorUnits: 5000 },
              settings: { bidStrategy: 'LOWEST_COST_WITHOUT_CAP' },
            },
            adset: { budget: null },
            ad: { creative: asImage },
          },
          { ...traffic, targeting: { countries: ['US'], ageMin: 18, ageMax: 65 }, schedule: { startTime: '2030-01-01T00:00:00Z' } },
          { headline: 'Spring sale', urlTags: 'utm_source=meta', ...extra },
        ),
        launch({ campaign: { objective: 'OUTCOME_TRAFFIC' }, ad: { creative: asVideo } }, traffic, { headline: 'Spring sale', description: 'Shoes' }),
        // An existing post; a link ad with a display URL.
        launch({ campaign: { objective: 'OUTCOME_TRAFFIC' } }, traffic, { postId: '555000111' }),
        launch({ campaign: { objective: 'OUTCOME_TRAFFIC' } }, traffic, { displayUrl: 'shop.example.com', multiAdvertiserAds: true }),
        // A lead form in the EU (DSA names), with placements, ages, genders, interests and audiences.
        launch(
          { campaign: { objective: 'OUTCOME_LEADS' } },
          {
            optimizationGoal: 'LEAD_GENERATION',
            targeting: {
              countries: ['DE', 'GP'],
              ageMin: 25,
              ageMax: 54,
              genders: ['female'],
              interests: ['6003107902433'],
              customAudiences: ['1'],
              excludedAudiences: ['2'],
            },
            placements: { automatic: false, positions: ['facebook:feed', 'instagram:stream', 'messenger:messenger_home', 'audience_network:classic'] },
            promotedObject: { leadFormId: '700000000000001' },
          },
          { leadFormId: '700000000000001' },
        ),
        // Conversions with a capped bid on a lifetime budget; Singapore with the account's identities.
        launch(
          { campaign: { objective: 'OUTCOME_SALES', settings: { bidStrategy: 'LOWEST_COST_WITH_BID_CAP' } } },
          {
            optimizationGoal: 'OFFSITE_CONVERSIONS',
            bidStrategy: 'LOWEST_COST_WITH_BID_CAP',
            bidAmount: 300,
            targeting: { countries: ['SG'] },
            schedule: { startTime: '2030-01-01T00:00:00Z', endTime: '2030-01-11T00:00:00Z' },
            promotedObject: { pixelId: '123456789012345', customEventType: 'PURCHASE' },
          },
          {},
        ).map((spec) => (spec.level === 'adset' ? { ...spec, budget: { period: 'lifetime' as const, amountMinorUnits: 500_000 } } : spec)),
        // App installs; post engagement; a special ad category with its countries.
        launch(
          { campaign: { objective: 'OUTCOME_APP_PROMOTION' } },
          { optimizationGoal: 'APP_INSTALLS', promotedObject: { applicationId: '77', objectStoreUrl: 'https://play.google.com/store/apps/details?id=x' } },
          {},
        ),
        launch({ campaign: { objective: 'OUTCOME_ENGAGEMENT' } }, { optimizationGoal: 'POST_ENGAGEMENT' }, { postId: '555000112' }),
        launch(
          { campaign: { objective: 'OUTCOME_TRAFFIC', settings: { specialAdCategories: ['CREDIT'], adSetCountries: ['US'] } } },
          { ...traffic, targeting: { countries: ['US'], regions: ['3847'], cities: ['2418779'] } },
          {},
        ),
      ];
      const window = { since: '2030-01-01', until: '2030-01-07' };
      for (const specs of variations) {
        // What a preview and a publish ask first (validate_only), then the creates, live edits, pauses, a rollback.
        expect(await meta.validateCreates(account, specs.slice(0, 1))).to.deep.equal([null]);
        const refs = await meta.createObjects(account, specs);
        expect(
          await meta.validateCreates(account, [
            { ...specs[1], parentId: refs[0].id },
            { ...specs[2], parentId: refs[1].id },
          ]),
        ).to.deep.equal([null, null]);
        const budgeted = specs[1].budget ? refs[1] : refs[0];
        const budget = { period: (specs[1].budget ?? specs[0].budget)?.period ?? 'daily', amountMinorUnits: 600_000 } as const;
        expect(await meta.validateBudget(account, budgeted, budget)).to.equal(null);
        await meta.setBudget(account, budgeted, budget);
        await meta.setStatus(account, refs, 'PAUSED');
        await meta.updateObject(account, refs[2], { name: 'Renamed', settings: { headline: 'Summer sale', linkUrl: 'https://shop.example.com/summer' } });
        await meta.findCreated(account, 'ad', [specs[2].marker]);
        await meta.confirmRecorded(account, 'campaign', [refs[0].id]);
        await meta.insightsByObject(account, 'adset', [refs[1].id], window);
        await meta.deleteObjects(account, [refs[0]]);
      }
      await meta.metaAccountFacts(account, { dsa: true, cities: ['2418779'], bids: [300] });
      await meta.listCampaigns(account, { statuses: ['ACTIVE', 'PAUSED'], nameQuery: 'Camp', limit: 10, after: null });
      await meta.listLeadForms(account, PAGE_ID, null, 10);
      for (const type of ['pixels', 'pages', 'profileAccounts', 'audiences', 'interests', 'locations', 'conversionEvents'] as const)
        await meta.listOptions(account, type, 'a');
      await meta.insights(account, [], window);
      for (const breakdown of [null, 'day', 'age', 'placement'] as const) await meta.report(account, { level: 'ad', window, breakdown, campaignIds: null });
    }

    for (const version of [DEFAULT_GRAPH_VERSION, 'v27.0']) {
      it(`publishes the reference launch and its variations on ${version}: every parameter sent is in the Meta table and taken by ${version}`, async () => {
        await publishAll(version);
        expect(fake.silentChanges, 'nothing Meta would change without a word').to.deep.equal([]);
        expect(fake.calls.length).to.be.greaterThan(50);
        const problems = ledgerProblems(META_LEDGER, sent(), version);
        expect(problems, problems.join('\n')).to.deep.equal([]);
        const creatives = fake.calls.filter((c) => c.method === 'POST' && /\/ads$/.test(c.path)).map((c) => JSON.parse(String(c.params.creative)));
        expect(
          creatives.some((c) => c.degrees_of_freedom_spec?.creative_features_spec?.standard_enhancements),
          'standard_enhancements',
        ).to.equal(false);
        // What is never sent (META_NEVER_SENT: the legacy smart_promotion_type) is in no request, and not in the ledger.
        for (const never of META_NEVER_SENT) {
          expect(fake.calls.filter((c) => never.field in c.params).map((c) => `${c.method} ${c.path}`)).to.deep.equal([]);
          expect(entryOf(META_LEDGER, 'POST /act_{id}/campaigns', never.field)).to.equal(undefined);
        }
        // Each creative opts out of its format's features one by one, field by field; product_extensions from v27.0.
        const out = (names: string[]) => ({ creative_features_spec: Object.fromEntries(names.map((n) => [n, { enroll_status: 'OPT_OUT' }])) });
        const v27 = version === 'v27.0' ? ['product_extensions'] : [];
        const image = creatives.find((c) => c.object_story_spec?.link_data?.image_hash);
        const video = creatives.find((c) => c.object_story_spec?.video_data);
        expect(image.degrees_of_freedom_spec).to.deep.equal(out(['image_template', 'image_touchups', 'text_optimizations', 'inline_comment', ...v27]));
        expect(video.degrees_of_freedom_spec).to.deep.equal(out(['video_auto_crop', 'text_optimizations', 'inline_comment', ...v27]));
        // Singapore's ad set carries the account's verified identities.
        const singapore = fake.calls.find((c) => c.method === 'POST' && c.path.endsWith('/adsets') && String(c.params.targeting).includes('"SG"'))!;
        expect(JSON.parse(String(singapore.params.regional_regulated_categories))).to.deep.equal(['SINGAPORE_UNIVERSAL']);
        expect(JSON.parse(String(singapore.params.regional_regulation_identities))).to.deep.equal({
          singapore_universal_beneficiary: '900000000000001',
          singapore_universal_payer: '900000000000002',
        });
      });
    }

    it('fails on a parameter an adapter sends that the table lacks (one added through platformFields)', async () => {
      await publishAll(DEFAULT_GRAPH_VERSION, { platformFields: { conversion_domain: 'shop.example.com' } });
      expect(ledgerProblems(META_LEDGER, sent(), DEFAULT_GRAPH_VERSION)).to.deep.equal(['POST /act_{id}/ads: conversion_domain is not in the ledger']);
    });

    it('fails on a parameter the table marks removed for the version called (standard_enhancements from v22.0), and on one a version does not take yet', () => {
      const bundle = {
        name: 'C',
        degrees_of_freedom_spec: JSON.stringify({ creative_features_spec: { standard_enhancements: { enroll_status: 'OPT_OUT' } } }),
      };
      const call = { method: 'POST', path: '/act_1001/adcreatives', params: bundle };
      expect(ledgerProblems(META_LEDGER, [call], 'v26.0')).to.deep.equal([
        'POST /act_{id}/adcreatives: degrees_of_freedom_spec.creative_features_spec.standard_enhancements.enroll_status was removed in v22.0 (called v26.0)',
      ]);
      // A parameter a version takes only from a later one (an entry with `added`).
      const later = [{ field: 'name', where: ['POST /act_{id}/adcreatives'], source: 'test', added: 'v27.0' }];
      expect(ledgerProblems(later, [{ ...call, params: { name: 'C' } }], 'v26.0')).to.deep.equal([
        'POST /act_{id}/adcreatives: name is taken from v27.0 only (called v26.0)',
      ]);
      expect(ledgerProblems(later, [{ ...call, params: { name: 'C' } }], 'v27.0')).to.deep.equal([]);
    });

    it('the fake refuses every field the table marks removed, for the versions that removed it', async () => {
      const removed = META_LEDGER.filter((e) => e.removed);
      expect(removed.map((e) => e.field)).to.include('degrees_of_freedom_spec.creative_features_spec.standard_enhancements.enroll_status');
      for (const entry of removed) {
        const path = entry.field.split('.');
        let value: unknown = 'OPT_OUT';
        for (const key of [...path.slice(1)].reverse()) value = { [key]: value };
        const form = new URLSearchParams({
          name: 'C',
          object_story_spec: JSON.stringify({ page_id: PAGE_ID, link_data: { link: 'https://shop.example.com/' } }),
          [path[0]]: JSON.stringify(value),
          access_token: account.accessToken!,
        });
        const res = await fetch(`${fake.url.replace(GRAPH_VERSION, DEFAULT_GRAPH_VERSION)}/act_1001/adcreatives`, { method: 'POST', body: form });
        const body = (await res.json()) as any;
        expect(res.status, entry.field).to.equal(400);
        expect(body.error, entry.field).to.deep.include({ code: 100, error_subcode: 3858504 });
      }
    });
  });

  describe('TikTok', () => {
    let fake: FakeTikTokServer;
    let account: AdAccount;
    beforeEach(async () => {
      fake = await FakeTikTokServer.start();
      const advertiserId = `7${crypto.randomInt(10 ** 9, 10 ** 10)}${crypto.randomInt(10 ** 8, 10 ** 9)}`;
      account = {
        platform: 'tiktok',
        accountId: `biz_${advertiserId}`,
        timezone: 'UTC',
        currency: 'USD',
        accessToken: fake.addAdvertiser(advertiserId, { allowlisted: ['PLACEMENT_GLOBAL_APP_BUNDLE'] }),
        allowlisted: ['PLACEMENT_GLOBAL_APP_BUNDLE'],
        brandName: 'Acme Outdoor Supply',
        identityId: '7100000000000000042',
        identityType: 'CUSTOMIZED_USER',
        identityBcId: '7400000000000000001',
      };
      fake.seedAsset(advertiserId, 'audiences', { audience_id: '900001', name: 'Buyers' });
      fake.seedAsset(advertiserId, 'audiences', { audience_id: '900002', name: 'Recent buyers' });
    });
    afterEach(async () => fake?.close());

    /** The requests TikTok received, a file as the word "file" (what the ledger lists is the parameter, not its parts). */
    const sent = (): SentRequest[] =>
      fake.requests.map((r) => ({
        method: r.method,
        path: r.path.replace(`/open_api/${TIKTOK_API_VERSION}`, ''),
        params: Object.fromEntries(
          Object.entries(r.params ?? {}).map(([k, v]) => [k, v && typeof v === 'object' && 'md5' in v && 'filename' in v ? 'file' : v]),
        ),
      }));

    async function publishAll(extra: Record<string, unknown> = {}): Promise<void> {
      const live = new TikTokAdapter(testOutbound(), { baseUrl: fake.url, sleep: async () => undefined, random: () => 0.5, timeoutMs: 5_000, videoPollMs: 1 });
      const image = await live.uploadCreative(account, file('image'));
      const video = await live.uploadCreative(account, file('video'));
      const asImage = { type: 'image' as const, ref: image.ref, thumbnailRef: null };
      const asVideo = { type: 'video' as const, ref: video.ref, thumbnailRef: video.thumbnailRef };
      const offFeed = { placements: { positions: ['PLACEMENT_PANGLE', 'PLACEMENT_GLOBAL_APP_BUNDLE'] } };
      const variations: ObjectSpec[][] = [
        launch(
          { campaign: { objective: 'TRAFFIC', budget: { period: 'daily', amountMinorUnits: 5000 } }, adset: { budget: null }, ad: { creative: asImage } },
          { optimizationGoal: 'CLICK', targeting: { countries: ['US'], ageMin: 18, ageMax: 65 }, schedule: { startTime: '2030-01-01T00:00:00Z' }, ...offFeed },
          { headline: 'Spring sale', urlTags: 'utm_source=tiktok', displayName: 'Acme', ...extra },
        ),
        launch(
          { campaign: { objective: 'TRAFFIC' }, ad: { creative: asVideo } },
          {
            optimizationGoal: 'CLICK',
            bidAmount: 30,
            targeting: { countries: ['US'], genders: ['female'], customAudiences: ['900001'], excludedAudiences: ['900002'] },
          },
          { identityType: 'BC_AUTH_TT', identityId: '7100000000000000043' },
        ),
        launch(
          { campaign: { objective: 'WEB_CONVERSIONS', settings: { specialAdCategories: ['HOUSING'] } }, ad: { creative: asVideo } },
          {
            optimizationGoal: 'CONVERT',
            bidAmount: 250,
            placements: { automatic: true },
            schedule: { startTime: '2030-01-01T00:00:00Z', endTime: '2030-01-11T00:00:00Z' },
            promotedObject: { pixelId: '7300000000000000001', customEventType: 'SHOPPING' },
          },
          {},
        ).map((spec) => (spec.level === 'adset' ? { ...spec, budget: { period: 'lifetime' as const, amountMinorUnits: 500_000 } } : spec)),
        launch({ campaign: { objective: 'REACH' }, ad: { creative: asVideo } }, { optimizationGoal: 'REACH', frequencyCap: { impressions: 3, days: 7 } }, {}),
        launch(
          { campaign: { objective: 'LEAD_GENERATION' }, ad: { creative: asVideo } },
          { optimizationGoal: 'LEAD_GENERATION', promotedObject: { pixelId: '7300000000000000001', customEventType: 'FORM' } },
          {},
        ),
      ];
      const window = { since: '2030-01-01', until: '2030-01-07' };
      for (const specs of variations) {
        const tree = specs.map((s) => (s.level === 'campaign' ? s : { ...s, objective: specs[0].objective }));
        expect(await live.validateWithTools(account, tree)).to.deep.equal(tree.map(() => null));
        const refs = await live.createObjects(account, tree);
        await live.finishPublish(
          account,
          refs.map((ref) => ({ ref, status: 'ACTIVE' as const })),
        );
        if (specs[1].budget?.period === 'daily' || specs[0].budget)
          await live.setBudget(account, specs[1].budget ? refs[1] : refs[0], { period: 'daily', amountMinorUnits: 9000 });
        await live.setStatus(account, refs, 'PAUSED');
        await live.updateObject(account, refs[1], { name: 'Renamed' });
        await live.findCreated(account, 'ad', [specs[2].marker], new Map([[specs[2].marker, refs[2].id]]));
        await live.childrenOf(account, 'ad', [refs[1].id]);
        await live.insightsByObject(account, 'adset', [refs[1].id], window);
        await live.deleteObjects(account, [refs[2]]);
      }
      await live.listCampaigns(account, { statuses: ['ACTIVE', 'PAUSED'], nameQuery: 'Camp', limit: 10, after: null });
      for (const type of ['pixels', 'pages', 'profileAccounts', 'audiences', 'interests', 'locations', 'conversionEvents'] as const)
        await live.listOptions(account, type, 'a').catch(() => undefined);
      await live.insights(account, [], window);
      for (const breakdown of [null, 'day', 'age', 'country'] as const) await live.report(account, { level: 'ad', window, breakdown, campaignIds: null });
    }

    it(`publishes the reference launch and its variations: every parameter sent is in the TikTok table (${'v1.3'})`, async () => {
      await publishAll();
      expect(fake.requests.length).to.be.greaterThan(30);
      const problems = ledgerProblems(TIKTOK_LEDGER, sent(), TIKTOK_API_VERSION);
      expect(problems, problems.join('\n')).to.deep.equal([]);
    });

    it('fails on a parameter an adapter sends that the table lacks', () => {
      const call = { method: 'POST', path: '/adgroup/create/', params: { advertiser_id: '7', adgroup_name: 'S', dayparting: '0'.repeat(336) } };
      expect(ledgerProblems(TIKTOK_LEDGER, [call], TIKTOK_API_VERSION)).to.deep.equal(['POST /adgroup/create/: dayparting is not in the ledger']);
    });
  });
});
