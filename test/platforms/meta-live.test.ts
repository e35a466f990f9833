// The Meta adapter publishing the contract's reference launch (campaign, ad set, ad with an uploaded
// image or video) to the strict fake Graph API, with a campaign budget and with ad-set budgets; the
// requests Graph received asserted field by field. Also: findCreated by ad labels, throttles, the
// deprecated-version error, unknown countries and the default Graph version.

import { expect } from 'chai';
import crypto from 'node:crypto';
import { MetaAdapter, type MetaAdapterOptions } from '../../src/platforms/meta/adapter.js';
import { PlatformError, type AdAccount, type CreativeFile, type ObjectSpec } from '../../src/platforms/port.js';
import { serviceErrorOf } from '../../src/platforms/registry.js';
import { loadConfig } from '../../src/config.js';
import { FakeMetaServer, GRAPH_VERSION } from '../fakes/meta-server.js';
import { GRAPH_SPEC, JAVA_SDK } from '../fakes/meta-spec/validate.js';
import { DEFAULT_GRAPH_VERSION } from '../../src/platforms/meta/versions.js';
import { testOutbound } from '../helpers/outbound.js';

const PAGE_ID = '100200300400';
const IG_USER = '17841400000000001';

function file(type: 'image' | 'video'): CreativeFile {
  const bytes = crypto.randomBytes(type === 'image' ? 2048 : 8192);
  return {
    creativeId: 7,
    type,
    name: type === 'image' ? 'hero.png' : 'hero.mp4',
    mime: type === 'image' ? 'image/png' : 'video/mp4',
    bytes,
    width: 1080,
    height: 1080,
    md5: crypto.createHash('md5').update(bytes).digest('hex'),
  };
}

async function rejectionOf(promise: Promise<unknown>): Promise<PlatformError> {
  try {
    await promise;
  } catch (err) {
    expect(err).to.be.instanceOf(PlatformError);
    return err as PlatformError;
  }
  throw new Error('expected a rejection');
}

/** The contract's reference launch (launch-example.md) as the publish hands it to the adapter. */
function referenceLaunch(budget: 'campaign' | 'adset', creative: ObjectSpec['creative']): ObjectSpec[] {
  return [
    {
      level: 'campaign',
      marker: 'nd_campaign1',
      name: 'Spring - US',
      parentId: null,
      status: 'PAUSED',
      objective: 'OUTCOME_TRAFFIC',
      budget: budget === 'campaign' ? { period: 'daily', amountMinorUnits: 5000 } : null,
      settings: {},
    },
    {
      level: 'adset',
      marker: 'nd_adset1',
      name: 'US 18-65',
      parentId: 'nd_campaign1',
      status: 'PAUSED',
      budget: budget === 'adset' ? { period: 'daily', amountMinorUnits: 5000 } : null,
      settings: {
        optimizationGoal: 'LINK_CLICKS',
        billingEvent: 'IMPRESSIONS',
        targeting: { countries: ['US'], ageMin: 18, ageMax: 65 },
        schedule: { startTime: '2030-01-01T00:00:00Z' },
      },
    },
    {
      level: 'ad',
      marker: 'nd_ad1',
      name: 'Hero 1',
      parentId: 'nd_adset1',
      status: 'ACTIVE',
      settings: {
        headline: 'Spring sale',
        primaryText: 'Up to 40% off',
        linkUrl: 'https://shop.example.com/spring',
        callToAction: 'SHOP_NOW',
        urlTags: 'utm_source=meta',
        pageId: PAGE_ID,
        instagramUserId: IG_USER,
      },
      creative,
    },
  ];
}

describe('Meta adapter: the reference launch against the strict fake Graph API', function () {
  let fake: FakeMetaServer;
  let account: AdAccount;
  let sleeps: number[];
  const adapter = (options: Partial<MetaAdapterOptions> = {}) =>
    new MetaAdapter(testOutbound(), { baseUrl: fake.url, sleep: async (ms) => void sleeps.push(ms), random: () => 0, timeoutMs: 5_000, ...options });

  beforeEach(async () => {
    fake = await FakeMetaServer.start();
    const accountId = 'act_1001';
    account = { platform: 'meta', accountId, timezone: 'America/New_York', currency: 'USD', accessToken: fake.addAccount(accountId), pageId: PAGE_ID };
    sleeps = [];
  });
  afterEach(async () => fake?.close());

  const posts = (path: string) => fake.calls.filter((c) => c.method === 'POST' && c.path === path);
  const json = (value: unknown) => JSON.parse(String(value));

  for (const budget of ['campaign', 'adset'] as const) {
    it(`publishes the image launch with a ${budget} budget: the upload before the ad, image_hash, page_id, budgets, countries, sub3, labels, names as given`, async () => {
      const meta = adapter();
      const image = await meta.uploadCreative(account, file('image'));
      expect(image.thumbnailRef).to.equal(null);
      expect(fake.images.get('act_1001')!.has(image.ref)).to.equal(true);
      const refs = await meta.createObjects(account, referenceLaunch(budget, { type: 'image', ref: image.ref, thumbnailRef: null }));
      expect(refs.map((r) => r.level)).to.deep.equal(['campaign', 'adset', 'ad']);

      const order = fake.calls.filter((c) => c.method === 'POST').map((c) => c.path);
      expect(order.indexOf('/act_1001/adimages')).to.be.lessThan(order.indexOf('/act_1001/ads'));
      expect(Object.keys(posts('/act_1001/adimages')[0].params)).to.deep.equal(['bytes']);

      const [campaign] = posts('/act_1001/campaigns');
      expect(campaign.params.name).to.equal('Spring - US');
      expect(campaign.params.objective).to.equal('OUTCOME_TRAFFIC');
      expect(campaign.params.status).to.equal('PAUSED');
      expect(json(campaign.params.special_ad_categories)).to.deep.equal([]);
      expect(json(campaign.params.adlabels)).to.deep.equal([{ name: 'svc:nd_campaign1' }]);
      if (budget === 'campaign') {
        expect(campaign.params.daily_budget).to.equal('5000');
        expect(campaign.params).to.not.have.property('is_adset_budget_sharing_enabled');
      } else {
        expect(campaign.params).to.not.have.property('daily_budget');
        expect(campaign.params.is_adset_budget_sharing_enabled).to.equal('false');
      }

      const [adset] = posts('/act_1001/adsets');
      expect(adset.params.name).to.equal('US 18-65');
      expect(adset.params.campaign_id).to.equal(refs[0].id);
      expect(adset.params.optimization_goal).to.equal('LINK_CLICKS');
      expect(adset.params.billing_event).to.equal('IMPRESSIONS');
      expect(adset.params.start_time).to.equal('2030-01-01T00:00:00Z');
      expect(json(adset.params.targeting)).to.deep.equal({
        geo_locations: { countries: ['US'] },
        age_min: 18,
        age_max: 65,
        targeting_automation: { advantage_audience: 1 },
      });
      expect(json(adset.params.adlabels)).to.deep.equal([{ name: 'svc:nd_adset1' }]);
      if (budget === 'adset') expect(adset.params.daily_budget).to.equal('5000');
      else expect(adset.params).to.not.have.property('daily_budget');

      const [ad] = posts('/act_1001/ads');
      expect(ad.params.name).to.equal('Hero 1');
      expect(ad.params.adset_id).to.equal(refs[1].id);
      expect(ad.params.status).to.equal('ACTIVE');
      expect(json(ad.params.adlabels)).to.deep.equal([{ name: 'svc:nd_ad1' }]);
      expect(json(ad.params.creative)).to.deep.equal({
        name: 'Hero 1 creative',
        url_tags: 'utm_source=meta&sub3={{campaign.id}}',
        object_story_spec: {
          page_id: PAGE_ID,
          instagram_user_id: IG_USER,
          link_data: {
            link: 'https://shop.example.com/spring',
            message: 'Up to 40% off',
            name: 'Spring sale',
            image_hash: image.ref,
            call_to_action: { type: 'SHOP_NOW', value: { link: 'https://shop.example.com/spring' } },
          },
        },
        // Said explicitly, so the ad runs as written: out of multi-advertiser ads and out of each Advantage+
        // creative feature of an image, one by one (never the standard_enhancements bundle, gone since v22.0).
        contextual_multi_ads: { enroll_status: 'OPT_OUT' },
        degrees_of_freedom_spec: {
          creative_features_spec: {
            image_template: { enroll_status: 'OPT_OUT' },
            image_touchups: { enroll_status: 'OPT_OUT' },
            text_optimizations: { enroll_status: 'OPT_OUT' },
            inline_comment: { enroll_status: 'OPT_OUT' },
          },
        },
      });
      expect(fake.objectsOf('act_1001').map((o) => o.name)).to.deep.equal(['Spring - US', 'US 18-65', 'Hero 1']);
      expect(fake.silentChanges, 'nothing Meta would change without a word').to.deep.equal([]);
    });
  }

  it('publishes the video launch: advideos upload, status polled until ready with progress, video_data with the thumbnail', async () => {
    fake.videoPollsUntilReady = 2;
    const progress: string[] = [];
    const meta = adapter({ videoPollMs: 1_500 });
    const video = await meta.uploadCreative(account, file('video'), (m) => progress.push(m));
    const stored = fake.videos.get(video.ref)!;
    expect(stored).to.include({ accountId: 'act_1001', polls: 3, bytes: 8192 });
    expect(progress).to.have.length(2);
    expect(progress[0]).to.contain('hero.mp4');
    expect(sleeps).to.deep.equal([1_500, 1_500]);
    expect(video.thumbnailRef).to.match(/^https:\/\//);
    expect(fake.calls.filter((c) => c.path === `/${video.ref}`).map((c) => c.params.fields)).to.deep.equal([
      'id,status,picture',
      'id,status,picture',
      'id,status,picture',
    ]);

    await meta.createObjects(account, referenceLaunch('campaign', { type: 'video', ref: video.ref, thumbnailRef: video.thumbnailRef }));
    const creative = json(posts('/act_1001/ads')[0].params.creative);
    expect(creative.url_tags).to.equal('utm_source=meta&sub3={{campaign.id}}');
    expect(creative.object_story_spec).to.deep.equal({
      page_id: PAGE_ID,
      instagram_user_id: IG_USER,
      video_data: {
        video_id: video.ref,
        message: 'Up to 40% off',
        title: 'Spring sale',
        image_url: video.thumbnailRef,
        call_to_action: { type: 'SHOP_NOW', value: { link: 'https://shop.example.com/spring' } },
      },
    });
  });

  it('gives up on a video still processing after the polls allowed, saying so', async () => {
    fake.videoPollsUntilReady = 10;
    const err = await rejectionOf(adapter({ videoPolls: 3, videoPollMs: 100 }).uploadCreative(account, file('video')));
    expect(err.kind).to.equal('transient');
    expect(err.message).to.contain('still processing');
    expect(sleeps).to.deep.equal([100, 100, 100]);
  });

  it('uses an existing post by object_story_id when the ad names postId', async () => {
    const specs = referenceLaunch('campaign', null);
    specs[2].settings = { ...specs[2].settings, postId: '555000111' };
    await adapter().createObjects(account, specs);
    expect(json(posts('/act_1001/ads')[0].params.creative)).to.deep.equal({
      name: 'Hero 1 creative',
      url_tags: 'utm_source=meta&sub3={{campaign.id}}',
      object_story_id: `${PAGE_ID}_555000111`,
      contextual_multi_ads: { enroll_status: 'OPT_OUT' },
      // A post's format is not known: the features images and videos share.
      degrees_of_freedom_spec: { creative_features_spec: { text_optimizations: { enroll_status: 'OPT_OUT' }, inline_comment: { enroll_status: 'OPT_OUT' } } },
    });
  });

  it('publishes a link ad without a creative (Meta shows the link preview), keeping an ad that sets sub3 itself', async () => {
    const specs = referenceLaunch('campaign', null);
    specs[2].settings = { ...specs[2].settings, urlTags: 'sub3=mine&utm_medium=paid' };
    await adapter().createObjects(account, specs);
    const creative = json(posts('/act_1001/ads')[0].params.creative);
    expect(creative.url_tags).to.equal('sub3=mine&utm_medium=paid');
    expect(creative.object_story_spec.link_data).to.not.have.property('image_hash');
  });

  it("speaks as the account's page when the ad names none, in a create and in a creative edit", async () => {
    const specs = referenceLaunch('campaign', null);
    const { pageId: _page, instagramUserId: _ig, ...settings } = specs[2].settings;
    specs[2].settings = settings;
    const meta = adapter();
    const refs = await meta.createObjects({ ...account, pageId: '999888777' }, specs);
    expect(json(posts('/act_1001/ads')[0].params.creative).object_story_spec.page_id).to.equal('999888777');
    await meta.updateObject({ ...account, pageId: '999888777' }, refs[2], {
      settings: { headline: 'Summer sale', linkUrl: 'https://shop.example.com/summer' },
    });
    const edit = posts(`/${refs[2].id}`)[0];
    expect(json(edit.params.creative).object_story_spec).to.deep.equal({
      page_id: '999888777',
      link_data: { link: 'https://shop.example.com/summer', name: 'Summer sale' },
    });
    await meta.updateObject(account, refs[2], { name: 'Hero 1b' });
    expect(posts(`/${refs[2].id}`)[1].params).to.deep.equal({ name: 'Hero 1b' });
  });

  it('finds many created objects again with a handful of list calls, leaving deleted ones out', async () => {
    const meta = adapter();
    const [campaign] = await meta.createObjects(account, [referenceLaunch('campaign', null)[0]]);
    const [adset] = await meta.createObjects(account, [{ ...referenceLaunch('campaign', null)[1], parentId: campaign.id }]);
    const specs: ObjectSpec[] = Array.from({ length: 120 }, (_, i) => ({
      ...referenceLaunch('campaign', null)[2],
      marker: `nd_ad${i}`,
      name: `Ad ${i}`,
      parentId: adset.id,
    }));
    const refs = await meta.createObjects(account, specs);
    await meta.deleteObjects(account, [refs[7]]);
    const fresh = adapter();
    const before = fake.roundTrips;
    const found = await fresh.findCreated(
      account,
      'ad',
      specs.map((s) => s.marker),
    );
    // One list of the account's labels, one Graph batch of three adsbylabels reads (50 labels each).
    expect(fake.roundTrips - before).to.equal(2);
    expect(found.size).to.equal(119);
    expect(found.has('nd_ad7')).to.equal(false);
    specs.forEach((s, i) => i !== 7 && expect(found.get(s.marker)).to.deep.equal({ level: 'ad', id: refs[i].id }));
    expect((await fresh.findCreated(account, 'campaign', ['nd_campaign1', 'nd_never'])).get('nd_campaign1')).to.deep.equal(campaign);
  });

  it("reads the account's minimum budgets once an hour and Meta's DSA defaults once, in one round trip when both are due", async () => {
    let now = 1_000_000;
    const meta = adapter({ now: () => now });
    fake.setDsaDefaults(account.accountId, { beneficiary: 'Shoes Co GmbH', payor: 'Shoes Co Holding' });
    const first = await meta.metaAccountFacts(account, { dsa: true });
    expect(first).to.deep.equal({
      minimumBudgets: { imp: 100, highFreq: 500, lowFreq: 2500, videoViews: 200 },
      bidMinimums: new Map(),
      dsaBeneficiary: 'Shoes Co GmbH',
      dsaPayor: 'Shoes Co Holding',
      cityCountries: new Map(),
    });
    expect(fake.roundTrips, 'one Graph batch of both reads').to.equal(1);
    now += 59 * 60_000;
    expect(await meta.metaAccountFacts(account, { dsa: true })).to.deep.equal(first);
    expect(fake.roundTrips, 'both kept').to.equal(1);
    now += 60_000;
    await meta.metaAccountFacts(account, { dsa: true });
    expect(fake.roundTrips, 'the minimums read again after an hour, the defaults kept').to.equal(2);
    expect(fake.calls.map((c) => c.path)).to.deep.equal([
      `/${account.accountId}/minimum_budgets`,
      `/${account.accountId}`,
      `/${account.accountId}/minimum_budgets`,
    ]);
    // The account's own names come first, and then Meta's defaults are not asked for.
    const own = { ...account, dsaBeneficiary: 'Own GmbH', dsaPayor: 'Own AG' };
    expect(await adapter().metaAccountFacts(own, { dsa: true })).to.deep.include({ dsaBeneficiary: 'Own GmbH', dsaPayor: 'Own AG' });
    expect(fake.calls.filter((c) => c.path === `/${account.accountId}`)).to.have.length(1);
  });

  it('asks Meta to validate creates without doing them (validate_only): one batch, ads of one shape asked once, refusals in its words with code, subcode and property', async () => {
    const meta = adapter();
    const [campaignSpec, adsetSpec, adSpec] = referenceLaunch('campaign', null);
    expect(await meta.validateCreates(account, [campaignSpec])).to.deep.equal([null]);
    expect(fake.objectsOf('act_1001'), 'nothing created').to.deep.equal([]);
    const [campaign] = await meta.createObjects(account, [campaignSpec]);
    fake.refuseWhen((call) =>
      call.level === 'adset' && call.params.name === 'Second' ? { message: '(#100) This ad set cannot run: Second is reserved', subcode: 1487390 } : null,
    );
    const before = fake.roundTrips;
    const sets = [
      { ...adsetSpec, parentId: campaign.id },
      { ...adsetSpec, marker: 'nd_adset2', name: 'Second', parentId: campaign.id },
      {
        ...adsetSpec,
        marker: 'nd_adset3',
        name: 'Third',
        parentId: campaign.id,
        settings: { ...adsetSpec.settings, targeting: { countries: ['US'], ageMax: 70 } },
      },
    ];
    const answers = await meta.validateCreates(account, sets);
    expect(fake.roundTrips - before, 'one Graph batch for the level').to.equal(1);
    expect(answers[0]).to.equal(null);
    expect(answers[1]).to.be.instanceOf(PlatformError);
    expect(answers[1]!.message).to.equal('(#100) This ad set cannot run: Second is reserved');
    expect(answers[1]!.extra).to.include({ platformCode: 100, platformSubcode: 1487390 });
    expect(answers[2]!.extra).to.include({ platformCode: 100, field: 'targeting.ageMax' });
    expect(fake.objectsOf('act_1001', 'adset'), 'nothing created').to.deep.equal([]);
    fake.clearUnwritten();

    // Ads of one shape under ad sets of one shape (duplicates: names apart) are asked about once.
    const created = await meta.createObjects(account, [sets[0], { ...sets[0], marker: 'nd_copy', name: 'US 18-65 - Copy' }]);
    const ads = created.flatMap((s, i) => [1, 2].map((n) => ({ ...adSpec, marker: `nd_ad_${i}_${n}`, name: `Hero ${n}`, parentId: s.id })));
    fake.calls.length = 0;
    expect(await meta.validateCreates(account, ads)).to.deep.equal([null, null, null, null]);
    const asked = fake.calls.filter((c) => c.path === '/act_1001/ads');
    expect(asked.map((c) => c.params.name)).to.deep.equal(['Hero 1', 'Hero 2']);
    for (const c of asked) expect(json(c.params.execution_options)).to.deep.equal(['validate_only']);
    expect(fake.objectsOf('act_1001', 'ad')).to.deep.equal([]);
  });

  it('asks Meta to validate a live budget change first: its refusal changes nothing; a take changes nothing until the change is sent', async () => {
    const meta = adapter();
    const refs = await meta.createObjects(account, referenceLaunch('adset', null));
    fake.refuseWhen((call) =>
      String(call.params.daily_budget) === '7777' ? { message: '(#100) Budget changes are frozen for this ad set', subcode: 1885650 } : null,
    );
    const refused = await meta.validateBudget(account, refs[1], { period: 'daily', amountMinorUnits: 7777 });
    expect(refused!.message).to.equal('(#100) Budget changes are frozen for this ad set');
    expect(refused!.extra).to.include({ platformSubcode: 1885650 });
    expect(await meta.validateBudget(account, refs[1], { period: 'daily', amountMinorUnits: 6000 })).to.equal(null);
    expect(fake.objects.get(refs[1].id)!.dailyBudget).to.equal('5000');
    fake.clearUnwritten();
  });

  it('confirmRecorded: an object Meta answers DELETED is gone; error 100 subcode 33 (no such object, or no permission on it) proves nothing and is left out', async () => {
    const meta = adapter();
    const [kept] = await meta.createObjects(account, [referenceLaunch('campaign', null)[0]]);
    const [deleted] = await meta.createObjects(account, [{ ...referenceLaunch('campaign', null)[0], marker: 'nd_other' }]);
    await meta.deleteObjects(account, [deleted]);
    fake.losePermissionOn(kept.id);
    const said = await meta.confirmRecorded(account, 'campaign', [kept.id, deleted.id, '120299999999999']);
    expect([...said]).to.deep.equal([[deleted.id, 'gone']]);
    fake.losePermissionOn(kept.id, false);
    expect([...(await meta.confirmRecorded(account, 'campaign', [kept.id]))]).to.deep.equal([[kept.id, 'held']]);
  });

  it('setStatusEach: error 100 subcode 33 on the lookup is a failed lookup (transient, subcode kept), never "no such object"; the others are paused', async () => {
    const meta = adapter();
    const [lost, kept] = await meta.createObjects(account, [
      referenceLaunch('campaign', null)[0],
      { ...referenceLaunch('campaign', null)[0], marker: 'nd_other', status: 'ACTIVE' },
    ]);
    fake.objects.get(lost.id)!.status = 'ACTIVE';
    fake.losePermissionOn(lost.id);
    const outcomes = await meta.setStatusEach(account, [lost, kept], 'PAUSED');
    expect(outcomes[1]).to.equal(null);
    expect(fake.objects.get(kept.id)!.status).to.equal('PAUSED');
    const failed = outcomes[0]!;
    expect(failed).to.be.instanceOf(PlatformError);
    expect(failed.kind).to.equal('transient');
    expect(failed.extra).to.include({ platformCode: 100, platformSubcode: 33 });
    expect(failed.message).to.contain(lost.id).and.to.contain('not proof');
    expect(fake.objects.get(lost.id)!.status, 'nothing was sent to the object it could not look up').to.equal('ACTIVE');
    fake.losePermissionOn(lost.id, false);
  });

  it("reads the minimums per manual bid and the countries of targeted cities with the account's facts, in one batch, and keeps them", async () => {
    const meta = adapter();
    const facts = await meta.metaAccountFacts(account, { dsa: true, bids: [300], cities: ['2418956'] });
    expect(fake.roundTrips, 'minimums, DSA defaults, minimums with the bid and the cities: one batch').to.equal(1);
    expect(facts.bidMinimums!.get(300)).to.deep.equal({ imp: 1500, highFreq: 1500, lowFreq: 2500, videoViews: 1500 });
    expect([...facts.cityCountries!]).to.deep.equal([['2418956', 'DE']]);
    expect(fake.calls.find((c) => c.path === '/act_1001/minimum_budgets' && c.params.bid_amount === '300')).to.not.equal(undefined);
    await meta.metaAccountFacts(account, { dsa: true, bids: [300], cities: ['2418956'] });
    expect(fake.roundTrips, 'all kept').to.equal(1);
  });

  it('answers a throttle longer than the call has left at once with retryAfterMs, waiting nothing', async () => {
    fake.throttleNext(1, { code: 80004, minutes: 1 });
    const err = await rejectionOf(adapter().listCampaigns(account, { limit: 10 }));
    expect(err.kind).to.equal('throttled');
    expect(err.extra).to.include({ retryAfterMs: 60_000, platformCode: 80004 });
    expect(sleeps).to.deep.equal([]);
    expect(fake.roundTrips).to.equal(1);
    const service = serviceErrorOf(err);
    expect([service.code, service.retryAfter]).to.deep.equal(['unavailable', 60]);
  });

  it('waits a short throttle and retries once; a second throttle is then reported', async () => {
    fake.throttleNext(1, { code: 17, seconds: 8 });
    expect((await adapter().listCampaigns(account, { limit: 10 })).campaigns).to.deep.equal([]);
    expect(sleeps).to.deep.equal([8_000]);
    sleeps.length = 0;
    fake.throttleNext(2, { code: 17, seconds: 8 });
    const err = await rejectionOf(adapter().listCampaigns(account, { limit: 10 }));
    expect(err.extra).to.include({ retryAfterMs: 8_000, platformCode: 17 });
    expect(sleeps).to.deep.equal([8_000]);
  });

  it('reports a Graph version past its end (2635) as 503 unavailable naming META_GRAPH_URL', async () => {
    const old = adapter({ baseUrl: fake.url.replace(GRAPH_VERSION, 'v21.0') });
    const err = await rejectionOf(old.listCampaigns(account, { limit: 10 }));
    expect(err.extra.platformCode).to.equal(2635);
    expect(sleeps).to.deep.equal([]);
    const service = serviceErrorOf(err);
    expect(service.code).to.equal('unavailable');
    expect(service.message).to.contain('META_GRAPH_URL');
  });

  it('names the countries Meta cannot target: only codes that are not ISO 3166-1 alpha-2', async () => {
    expect(await adapter().unknownCountries(account, ['US', 'DE', 'ZZ', 'usa', 'XK', 'JP'])).to.deep.equal(['ZZ', 'usa']);
  });

  it('defaults META_GRAPH_URL to the newest Graph version a vendored generated source describes (the Java SDK @a73f92d: v26.0)', () => {
    expect(GRAPH_SPEC.graphVersion).to.equal('v25.0');
    expect(JAVA_SDK.source).to.include({ repository: 'facebook/facebook-java-business-sdk' });
    expect(JAVA_SDK.source.commit).to.match(/^a73f92d/);
    expect(JAVA_SDK.apiVersion).to.equal('v26.0');
    expect(GRAPH_VERSION).to.equal(JAVA_SDK.apiVersion);
    expect(DEFAULT_GRAPH_VERSION).to.equal(GRAPH_VERSION);
    expect(loadConfig({}).metaGraphUrl).to.equal(`https://graph.facebook.com/${GRAPH_VERSION}`);
  });
});
