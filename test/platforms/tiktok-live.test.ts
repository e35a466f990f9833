// The TikTok adapter against the strict fake TikTok Business API: the reference launch (campaign, ad
// group, ad with an uploaded image; once with a video) with campaign budget optimization and with an
// ad-group budget, every recorded request asserted field by field; region ids kept per advertiser,
// findCreated in a few calls, live budget edits and bulk pauses, pixel pages of 20, throttles, landing
// pages put to /tool/url_validate/, and the fake refusing bad requests with 40002 naming the field.

import crypto from 'node:crypto';
import { expect } from 'chai';
import { PlatformError, type AdAccount, type CreativeFile, type ObjectSpec } from '../../src/platforms/port.js';
import { TikTokAdapter, type TikTokAdapterOptions } from '../../src/platforms/tiktok/adapter.js';
import { FakeTikTokServer, REGIONS, TIKTOK_SPEC } from '../fakes/tiktok-server.js';
import { rejectionOf } from '../helpers/assert.js';
import { testOutbound } from '../helpers/outbound.js';
import { makePng } from '../helpers/png.js';

const md5 = (bytes: Buffer) => crypto.createHash('md5').update(bytes).digest('hex');

function png(): CreativeFile {
  const bytes = makePng(1080, 1080);
  return { creativeId: 7, type: 'image', name: 'hero.png', mime: 'image/png', bytes, width: 1080, height: 1080, md5: md5(bytes) };
}

/** The first bytes of an MP4 (an ftyp box) and some payload: what the fake takes as a video. */
function mp4(): CreativeFile {
  const bytes = Buffer.concat([Buffer.from([0, 0, 0, 24]), Buffer.from('ftypisom', 'latin1'), Buffer.alloc(12), crypto.randomBytes(2048)]);
  return { creativeId: 8, type: 'video', name: 'spot.mp4', mime: 'video/mp4', bytes, width: 720, height: 1280, md5: md5(bytes) };
}

async function platformErrorOf(promise: Promise<unknown>): Promise<PlatformError> {
  const err = await rejectionOf(promise);
  expect(err, String(err)).to.be.instanceOf(PlatformError);
  return err as unknown as PlatformError;
}

const IDENTITY = { identityId: '7100000000000000042', identityType: 'CUSTOMIZED_USER' as const };

/** The reference launch of launch-example.md as the publish hands it to the adapter. */
function referenceLaunch(campaignBudget: boolean, creative: ObjectSpec['creative']): ObjectSpec[] {
  const budget = { period: 'daily' as const, amountMinorUnits: 5000 };
  return [
    {
      level: 'campaign',
      marker: 'nd_campaign00000001',
      name: 'Spring - US',
      parentId: null,
      status: 'PAUSED',
      objective: 'OUTCOME_TRAFFIC',
      budget: campaignBudget ? budget : null,
      settings: {},
    },
    {
      level: 'adset',
      marker: 'nd_adset0000000001',
      name: 'US 18-65',
      parentId: 'nd_campaign00000001',
      status: 'ACTIVE',
      budget: campaignBudget ? null : budget,
      settings: {
        optimizationGoal: 'LINK_CLICKS',
        billingEvent: 'IMPRESSIONS',
        targeting: { countries: ['US'], ageMin: 18, ageMax: 65 },
        schedule: { startTime: '2030-01-01T00:00:00Z' },
        // An image ad runs outside TikTok's in-feed placement; a video ad anywhere.
        ...(creative?.type === 'video' ? {} : { placements: { positions: ['PLACEMENT_PANGLE', 'PLACEMENT_GLOBAL_APP_BUNDLE'] } }),
      },
    },
    {
      level: 'ad',
      marker: 'nd_ad0000000000001',
      name: 'Hero 1',
      parentId: 'nd_adset0000000001',
      status: 'ACTIVE',
      settings: {
        headline: 'Spring sale',
        primaryText: 'Up to 40% off',
        linkUrl: 'https://shop.example.com/spring?ref=tt#offer',
        urlTags: 'utm_source=tiktok&utm_medium=paid',
        callToAction: 'SHOP_NOW',
        ...IDENTITY,
      },
      creative,
    },
  ];
}

describe('TikTok adapter against the strict fake: the reference launch and what TikTok takes', function () {
  let fake: FakeTikTokServer;
  let sleeps: number[];
  let advertiserId: string;
  let account: AdAccount;
  const adapter = (options: Partial<TikTokAdapterOptions> = {}) =>
    new TikTokAdapter(testOutbound(), { baseUrl: fake.url, sleep: async (ms) => void sleeps.push(ms), random: () => 0.5, timeoutMs: 2_000, ...options });
  const paths = () => fake.requests.map((r) => r.path.replace(`/open_api/v1.3`, ''));

  beforeEach(async () => {
    fake = await FakeTikTokServer.start();
    sleeps = [];
    advertiserId = `7${crypto.randomInt(10 ** 9, 10 ** 10)}${crypto.randomInt(10 ** 8, 10 ** 9)}`;
    account = {
      platform: 'tiktok',
      accountId: `biz_${advertiserId}`,
      timezone: 'UTC',
      currency: 'USD',
      // Allowlisted for PLACEMENT_GLOBAL_APP_BUNDLE, which the reference launch's image ad runs in.
      accessToken: fake.addAdvertiser(advertiserId, { allowlisted: ['PLACEMENT_GLOBAL_APP_BUNDLE'] }),
      allowlisted: ['PLACEMENT_GLOBAL_APP_BUNDLE'],
      brandName: 'Acme Outdoor Supply',
    };
  });
  afterEach(async () => fake?.close());

  it('generates the fake from the SDK at a recorded commit, with the endpoints the adapter calls', () => {
    expect(TIKTOK_SPEC.repository).to.equal('https://github.com/tiktok/tiktok-business-api-sdk');
    expect(TIKTOK_SPEC.commit).to.match(/^[0-9a-f]{40}$/);
    expect(TIKTOK_SPEC.endpoints['POST /campaign/update/'].params).to.not.have.property('budget_mode');
    expect(TIKTOK_SPEC.endpoints['GET /pixel/list/'].params.page_size.maximum).to.equal(20);
    expect(TIKTOK_SPEC.endpoints['POST /campaign/create/'].params.request_id).to.deep.equal({ type: 'string', required: false });
  });

  for (const campaignBudget of [true, false]) {
    it(`publishes the reference launch with an uploaded image and ${campaignBudget ? 'campaign budget optimization' : 'an ad-group budget'}, every request as TikTok takes it`, async () => {
      const live = adapter();
      const file = png();
      const image = await live.uploadCreative(account, file);
      const refs = await live.createObjects(account, referenceLaunch(campaignBudget, { type: 'image', ref: image.ref, thumbnailRef: null }));
      expect(paths()).to.deep.equal(['/file/image/ad/upload/', '/campaign/create/', '/tool/region/', '/adgroup/create/', '/ad/create/']);
      const [upload, campaign, region, adgroup, ad] = fake.requests.map((r) => r.params);
      expect(upload).to.deep.equal({
        advertiser_id: advertiserId,
        upload_type: 'UPLOAD_BY_FILE',
        image_signature: file.md5,
        image_file: { filename: 'hero.png', mime: 'image/png', size: file.bytes.length, md5: file.md5 },
      });
      expect(image.thumbnailRef).to.equal(null);
      expect(fake.library.get(image.ref)).to.include({ kind: 'image', advertiserId, signature: file.md5 });
      expect(campaign).to.deep.equal({
        advertiser_id: advertiserId,
        campaign_name: 'Spring - US',
        objective_type: 'TRAFFIC',
        operation_status: 'DISABLE',
        ...(campaignBudget
          ? { budget_optimize_on: true, budget_mode: 'BUDGET_MODE_DAY', budget: 50 }
          : { budget_optimize_on: false, budget_mode: 'BUDGET_MODE_INFINITE' }),
        request_id: 'nd_campaign00000001',
      });
      // TikTok ignored operation_status (allowlist-only): the campaign is live from its create.
      expect(fake.objects.get(refs[0].id)!.createdStatus).to.equal('ENABLE');
      // Asked with the ad group's own objective and placements (AdgroupCreateBody location_ids: "based on your placement and objective").
      expect(region).to.deep.equal({ advertiser_id: advertiserId, placements: ['PLACEMENT_GLOBAL_APP_BUNDLE', 'PLACEMENT_PANGLE'], objective_type: 'TRAFFIC' });
      expect(adgroup).to.deep.equal({
        advertiser_id: advertiserId,
        campaign_id: refs[0].id,
        adgroup_name: 'US 18-65',
        operation_status: 'DISABLE',
        placement_type: 'PLACEMENT_TYPE_NORMAL',
        placements: ['PLACEMENT_PANGLE', 'PLACEMENT_GLOBAL_APP_BUNDLE'],
        pacing: 'PACING_MODE_SMOOTH',
        optimization_goal: 'CLICK',
        billing_event: 'CPC',
        bid_type: 'BID_TYPE_NO_BID',
        promotion_type: 'WEBSITE',
        schedule_type: 'SCHEDULE_FROM_NOW',
        schedule_start_time: '2030-01-01 00:00:00',
        ...(campaignBudget ? {} : { budget_mode: 'BUDGET_MODE_DAY', budget: 50 }),
        location_ids: ['6252001'],
        age_groups: ['AGE_18_24', 'AGE_25_34', 'AGE_35_44', 'AGE_45_54', 'AGE_55_100'],
        request_id: 'nd_adset0000000001',
      });
      expect(ad).to.deep.equal({
        advertiser_id: advertiserId,
        adgroup_id: refs[1].id,
        creatives: [
          {
            ad_name: 'Hero 1',
            operation_status: 'DISABLE',
            ad_text: 'Up to 40% off',
            call_to_action: 'SHOP_NOW',
            landing_page_url: 'https://shop.example.com/spring?ref=tt&utm_source=tiktok&utm_medium=paid&sub3=__CAMPAIGN_ID__#offer',
            // The ad names no displayName: its brand's name, cut to TikTok's 40 characters.
            display_name: 'Acme Outdoor Supply',
            identity_id: IDENTITY.identityId,
            identity_type: 'CUSTOMIZED_USER',
            ad_format: 'SINGLE_IMAGE',
            image_ids: [image.ref],
          },
        ],
      });
      // Names are the launch's own: nothing of the service's bookkeeping in them.
      expect(fake.objectsOf(advertiserId).map((o) => o.name)).to.deep.equal(['Spring - US', 'US 18-65', 'Hero 1']);
      expect(fake.objects.get(refs[0].id)).to.include({
        budgetOptimizeOn: campaignBudget,
        budgetMode: campaignBudget ? 'BUDGET_MODE_DAY' : 'BUDGET_MODE_INFINITE',
      });
      // Nothing delivers mid-publish: the ad group and the ad were created DISABLE.
      expect(fake.objectsOf(advertiserId).map((o) => [o.level, o.createdStatus])).to.deep.equal([
        ['campaign', 'ENABLE'],
        ['adgroup', 'DISABLE'],
        ['ad', 'DISABLE'],
      ]);
    });
  }

  it('uploads a video with its MD5, then its cover by the URL the video info gives, and publishes a SINGLE_VIDEO ad with both', async () => {
    const live = adapter({ videoPollMs: 500 });
    const file = mp4();
    const progress: string[] = [];
    const video = await live.uploadCreative(account, file, (m) => progress.push(m));
    expect(paths()).to.deep.equal(['/file/video/ad/upload/', '/file/video/ad/info/', '/file/image/ad/upload/']);
    const [upload, info, cover] = fake.requests.map((r) => r.params);
    expect(upload).to.deep.equal({
      advertiser_id: advertiserId,
      upload_type: 'UPLOAD_BY_FILE',
      video_signature: file.md5,
      video_file: { filename: 'spot.mp4', mime: 'video/mp4', size: file.bytes.length, md5: file.md5 },
    });
    expect(info).to.deep.equal({ advertiser_id: advertiserId, video_ids: [video.ref] });
    expect(cover).to.deep.equal({ advertiser_id: advertiserId, upload_type: 'UPLOAD_BY_URL', image_url: fake.library.get(video.ref)!.coverUrl });
    expect(fake.library.get(video.ref)).to.include({ kind: 'video', signature: file.md5 });
    expect(fake.library.get(video.thumbnailRef!)).to.include({ kind: 'image', uploadType: 'UPLOAD_BY_URL', advertiserId });
    expect(progress).to.deep.equal(['Uploading video spot.mp4 to TikTok', 'Uploading the cover of video spot.mp4 to TikTok']);

    fake.requests.length = 0;
    await live.createObjects(account, referenceLaunch(false, { type: 'video', ref: video.ref, thumbnailRef: video.thumbnailRef }));
    const [creative] = fake.requestsTo('/ad/create/')[0].params.creatives as Array<Record<string, unknown>>;
    expect(creative).to.include({ ad_format: 'SINGLE_VIDEO', video_id: video.ref, identity_id: IDENTITY.identityId });
    expect(creative.image_ids).to.deep.equal([video.thumbnailRef]);
  });

  it('takes the identity of the account when the ad names none, and refuses an ad without creative or identity before sending it', async () => {
    const live = adapter();
    const image = await live.uploadCreative(account, png());
    const [, , ad] = referenceLaunch(true, { type: 'image', ref: image.ref, thumbnailRef: null });
    const { identityId: _i, identityType: _t, ...settings } = ad.settings;
    const withAccount: AdAccount = { ...account, identityId: '7100000000000000077', identityType: 'TT_USER' };
    const [c, s] = await live.createObjects(withAccount, referenceLaunch(true, null).slice(0, 2));
    await live.createObjects(withAccount, [{ ...ad, parentId: s.id, settings }]);
    expect((fake.requestsTo('/ad/create/')[0].params.creatives as Array<Record<string, unknown>>)[0]).to.include({
      identity_id: '7100000000000000077',
      identity_type: 'TT_USER',
    });
    expect(c.level).to.equal('campaign');
    const before = fake.requests.length;
    const noCreative = await platformErrorOf(live.createObjects(account, [{ ...ad, parentId: s.id, creative: null }]));
    expect(noCreative).to.include({ kind: 'invalid_request' });
    expect(noCreative.extra.field).to.equal('creativeId');
    const noIdentity = await platformErrorOf(live.createObjects(account, [{ ...ad, parentId: s.id, settings }]));
    expect(noIdentity.extra.field).to.equal('identityId');
    expect(fake.requests.length).to.equal(before);
  });

  it("sends the service's calls to action as TikTok names them, and refuses an ad without one (or NO_BUTTON) before sending it", async () => {
    const live = adapter();
    const image = await live.uploadCreative(account, png());
    const [campaign, adset, ad] = referenceLaunch(true, { type: 'image', ref: image.ref, thumbnailRef: null });
    const [, s] = await live.createObjects(account, [campaign, adset]);
    const ctas = ['DOWNLOAD', 'WATCH_MORE', 'GET_OFFER', 'SIGN_UP'];
    await live.createObjects(
      account,
      ctas.map((callToAction, i) => ({ ...ad, marker: `nd_cta${i}`, parentId: s.id, settings: { ...ad.settings, callToAction } })),
    );
    const sent = fake.requestsTo('/ad/create/')[0].params.creatives as Array<Record<string, unknown>>;
    expect(sent.map((c) => c.call_to_action)).to.deep.equal(['DOWNLOAD_NOW', 'WATCH_NOW', 'LEARN_MORE', 'SIGN_UP']);
    const before = fake.requests.length;
    for (const callToAction of ['NO_BUTTON', undefined]) {
      const err = await platformErrorOf(
        live.createObjects(account, [{ ...ad, marker: 'nd_nocta', parentId: s.id, settings: { ...ad.settings, callToAction } }]),
      );
      expect(err).to.include({ kind: 'invalid_request' });
      expect(err.extra.field).to.equal('callToAction');
    }
    expect(fake.requests.length).to.equal(before);
  });

  it('looks the region ids up once per advertiser, objective and placements and keeps them: a second ad group and unknownCountries of the same scope ask TikTok nothing more', async () => {
    const live = adapter();
    const [campaign, adset] = referenceLaunch(true, null);
    const [c] = await live.createObjects(account, [campaign]);
    await live.createObjects(account, [{ ...adset, parentId: c.id }]);
    await live.createObjects(account, [
      { ...adset, marker: 'nd_adset0000000002', parentId: c.id, settings: { ...adset.settings, targeting: { countries: ['GB', 'de'] } } },
    ]);
    const scope = { objective: campaign.objective, placements: adset.settings.placements };
    expect(await live.unknownCountries(account, ['US', 'ZZ', 'JP', 'XK'], scope)).to.deep.equal(['ZZ', 'XK']);
    expect(fake.requestsTo('/tool/region/')).to.have.length(1);
    // Singapore is listed for the TikTok placement only (the fake's region tool): another scope, another lookup.
    expect(await live.unknownCountries(account, ['SG'], scope)).to.deep.equal(['SG']);
    expect(await live.unknownCountries(account, ['SG'], { objective: 'OUTCOME_TRAFFIC', placements: { positions: ['PLACEMENT_TIKTOK'] } })).to.deep.equal([]);
    expect(fake.requestsTo('/tool/region/').map((r) => r.params.placements)).to.deep.equal([
      ['PLACEMENT_GLOBAL_APP_BUNDLE', 'PLACEMENT_PANGLE'],
      ['PLACEMENT_TIKTOK'],
    ]);
    expect(fake.requestsTo('/adgroup/create/')[1].params.location_ids).to.deep.equal(['2635167', '2921044']);
    expect(REGIONS.find((r) => r.location_id === '2921044')?.region_code).to.equal('DE');

    const before = fake.requests.length;
    const err = await platformErrorOf(
      live.createObjects(account, [
        { ...adset, marker: 'nd_adset0000000003', parentId: c.id, settings: { ...adset.settings, targeting: { countries: ['US', 'ZZ'] } } },
      ]),
    );
    expect(err).to.include({ kind: 'invalid_request' });
    expect(err.extra.field).to.equal('targeting.countries');
    expect(err.message).to.include('ZZ');
    expect(fake.requests.length).to.equal(before);

    // Another advertiser has its own lookup.
    const otherId = `7${crypto.randomInt(10 ** 9, 10 ** 10)}${crypto.randomInt(10 ** 8, 10 ** 9)}`;
    const other: AdAccount = { ...account, accountId: `biz_${otherId}`, accessToken: fake.addAdvertiser(otherId) };
    expect(await live.unknownCountries(other, ['US'], scope)).to.deep.equal([]);
    expect(fake.requestsTo('/tool/region/')).to.have.length(3);
  });

  it('finds created objects again with one list call per level and 100 ids, leaving out what was deleted', async () => {
    const live = adapter();
    const image = await live.uploadCreative(account, png());
    const campaigns = Array.from({ length: 120 }, (_, i): ObjectSpec => ({
      ...referenceLaunch(false, null)[0],
      marker: `nd_c${String(i).padStart(15, '0')}`,
      name: `C ${i}`,
    }));
    const campaignRefs = await live.createObjects(account, campaigns);
    const [, adset, ad] = referenceLaunch(false, { type: 'image', ref: image.ref, thumbnailRef: null });
    const [s] = await live.createObjects(account, [{ ...adset, parentId: campaignRefs[0].id }]);
    const ads = Array.from({ length: 3 }, (_, i): ObjectSpec => ({ ...ad, marker: `nd_a${i}`, name: `Ad ${i}`, parentId: s.id }));
    const adRefs = await live.createObjects(account, ads);
    await live.deleteObjects(account, [campaignRefs[5], adRefs[1]]);
    // What it deleted the adapter forgets; TikTok is asked about the rest.

    fake.requests.length = 0;
    const found = await live.findCreated(account, 'campaign', [...campaigns.map((c) => c.marker), 'nd_never_created']);
    expect(paths()).to.deep.equal(['/campaign/get/', '/campaign/get/']);
    expect(found.size).to.equal(119);
    expect(found.has(campaigns[5].marker)).to.equal(false);
    expect(found.get(campaigns[7].marker)).to.deep.equal(campaignRefs[7]);

    fake.requests.length = 0;
    const foundAds = await live.findCreated(account, 'ad', ['nd_a0', 'nd_a1', 'nd_a2']);
    expect(paths()).to.deep.equal(['/ad/get/']);
    expect([...foundAds.keys()]).to.deep.equal(['nd_a0', 'nd_a2']);
    expect(fake.requestsTo('/ad/get/')[0].params).to.deep.equal({
      advertiser_id: advertiserId,
      filtering: { ad_ids: [adRefs[0].id, adRefs[2].id] },
      page: '1',
      page_size: '1000',
    });
    expect(await live.findCreated(account, 'adset', ['nd_unknown'])).to.deep.equal(new Map());
  });

  it('publishes a rolled-back campaign again as a new one: the next attempt sends a new request_id, even from a restarted process', async () => {
    const [campaign] = referenceLaunch(true, null);
    const [first] = await adapter().createObjects(account, [{ ...campaign, attempt: 1 }]);
    await adapter().deleteObjects(account, [first]);
    // Another adapter: the process that publishes the launch again remembers nothing of the first.
    const again = adapter();
    const [second] = await again.createObjects(account, [{ ...campaign, attempt: 2 }]);
    expect(second.id).to.not.equal(first.id);
    expect(fake.requestsTo('/campaign/create/').map((r) => r.params.request_id)).to.deep.equal(['nd_campaign00000001', 'nd_campaign00000001.2']);
    expect(await again.findCreated(account, 'campaign', [campaign.marker])).to.deep.equal(new Map([[campaign.marker, second]]));
  });

  it('fails a status change that TikTok answers with code 0 but lists in failures, naming the object and why; a refused delete pauses the object instead', async () => {
    const live = adapter();
    const [campaign] = referenceLaunch(true, null);
    const [kept, refused] = await live.createObjects(account, [campaign, { ...campaign, marker: 'nd_refused', name: 'Refused' }]);
    fake.refuseStatusOf(refused.id, 'The campaign is in review.', false, ['ENABLE']);
    const enable = await rejectionOf(live.setStatus(account, [kept, refused], 'ACTIVE'));
    expect(enable).to.be.instanceOf(PlatformError);
    expect((enable as PlatformError).kind).to.equal('invalid_request');
    expect((enable as PlatformError).message).to.equal(`TikTok did not enable 1 of 2 objects (campaign ${refused.id}: The campaign is in review.).`);
    expect(fake.objects.get(kept.id)!.operationStatus, 'the other campaign of the batch was enabled').to.equal('ENABLE');
    // A delete TikTok refuses cannot be retried into success: the object is paused so it cannot spend, and given up.
    fake.refuseStatusOf(kept.id, 'The campaign is in review.', false, ['DELETE']);
    await live.deleteObjects(account, [kept, refused]);
    expect(fake.objects.get(refused.id)!.deleted).to.equal(true);
    expect(fake.objects.get(kept.id)).to.deep.include({ deleted: false, operationStatus: 'DISABLE' });
    expect(
      fake
        .requestsTo('/campaign/status/update/')
        .slice(-2)
        .map((r) => [r.params.operation_status, r.params.campaign_ids]),
    ).to.deep.equal([
      ['DELETE', [kept.id, refused.id]],
      ['DISABLE', [kept.id]],
    ]);
  });

  it('looks for an ad a carried-on publish may have sent before (mayExist) in its ad group, sending only the missing ones', async () => {
    const image = await adapter().uploadCreative(account, png());
    const [campaign, adset, ad] = referenceLaunch(true, { type: 'image', ref: image.ref, thumbnailRef: null });
    const [c] = await adapter().createObjects(account, [campaign]);
    const [s] = await adapter().createObjects(account, [{ ...adset, parentId: c.id }]);
    const twins = ['nd_twin1', 'nd_twin2', 'nd_new'].map((marker): ObjectSpec => ({ ...ad, marker, name: 'Twin', parentId: s.id }));
    // The first process made both twins; their answers were recorded for the first only.
    const [one, two] = await adapter().createObjects(account, twins.slice(0, 2));

    const restarted = adapter();
    expect(await restarted.findCreated(account, 'ad', ['nd_twin1', 'nd_twin2'], new Map([['nd_twin1', one.id]]))).to.deep.equal(new Map([['nd_twin1', one]]));
    fake.requests.length = 0;
    const refs = await restarted.createObjects(
      account,
      twins.slice(1).map((t) => ({ ...t, mayExist: true })),
    );
    expect(refs[0], 'the unrecorded twin is found, not the recorded one').to.deep.equal(two);
    expect(paths()).to.deep.equal(['/ad/get/', '/ad/create/']);
    expect(fake.requestsTo('/ad/get/')[0].params.filtering).to.deep.equal({ adgroup_ids: [s.id] });
    expect((fake.requestsTo('/ad/create/')[0].params.creatives as unknown[]).length, 'only the new ad is sent').to.equal(1);
    expect(fake.objectsOf(advertiserId, 'ad').filter((o) => !o.deleted)).to.have.length(3);

    // Again from a fresh process, the new ad's answer lost on the way: the lookup after the loss finds
    // the ad just made, never the twin the pre-lookup already claimed.
    const third = adapter();
    await third.findCreated(
      account,
      'ad',
      ['nd_twin1', 'nd_new'],
      new Map([
        ['nd_twin1', one.id],
        ['nd_new', refs[1].id],
      ]),
    );
    fake.dropNextCreate();
    const more = await third.createObjects(account, [
      { ...twins[1], mayExist: true },
      { ...twins[2], marker: 'nd_new2', mayExist: true },
    ]);
    expect(more[0]).to.deep.equal(two);
    expect(more[1].id).to.not.be.oneOf([one.id, two.id, refs[1].id]);
    expect(fake.objectsOf(advertiserId, 'ad').filter((o) => !o.deleted)).to.have.length(4);
  });

  it('finds after a restart what the service recorded: a fresh adapter confirms the recorded ids, leaving out the deleted', async () => {
    const before = adapter();
    const [campaign, adset] = referenceLaunch(false, null);
    const [c] = await before.createObjects(account, [campaign]);
    const [kept, gone] = await before.createObjects(account, [
      { ...adset, parentId: c.id },
      { ...adset, marker: 'nd_adset_gone', parentId: c.id },
    ]);
    await before.deleteObjects(account, [gone]);

    const restarted = adapter();
    expect(await restarted.findCreated(account, 'campaign', [campaign.marker]), 'nothing recorded, nothing remembered').to.deep.equal(new Map());
    fake.requests.length = 0;
    const recorded = new Map([
      [adset.marker, kept.id],
      ['nd_adset_gone', gone.id],
    ]);
    const found = await restarted.findCreated(account, 'adset', [adset.marker, 'nd_adset_gone', 'nd_adset_never'], recorded);
    expect(found).to.deep.equal(new Map([[adset.marker, kept]]));
    expect(paths()).to.deep.equal(['/adgroup/get/']);
    expect(fake.requestsTo('/adgroup/get/')[0].params.filtering).to.deep.equal({ adgroup_ids: [kept.id, gone.id] });
  });

  it('edits live budgets with budget alone (no budget_mode), and refuses a change of period without a write', async () => {
    const live = adapter();
    const [c] = await live.createObjects(account, referenceLaunch(true, null).slice(0, 1));
    const [plain] = await live.createObjects(account, [{ ...referenceLaunch(false, null)[0], marker: 'nd_plain' }]);
    const [s] = await live.createObjects(account, [{ ...referenceLaunch(false, null)[1], parentId: plain.id }]);
    fake.requests.length = 0;
    await live.setBudget(account, c, { period: 'daily', amountMinorUnits: 7000 });
    await live.setBudget(account, s, { period: 'daily', amountMinorUnits: 12345 });
    expect(fake.requestsTo('/campaign/update/').map((r) => r.params)).to.deep.equal([{ advertiser_id: advertiserId, campaign_id: c.id, budget: 70 }]);
    expect(fake.requestsTo('/adgroup/update/').map((r) => r.params)).to.deep.equal([{ advertiser_id: advertiserId, adgroup_id: s.id, budget: 123.45 }]);
    expect([fake.objects.get(c.id)!.budget, fake.objects.get(s.id)!.budget]).to.deep.equal([70, 123.45]);

    const writes = fake.requestsTo('/campaign/update/').length;
    const period = await platformErrorOf(live.setBudget(account, c, { period: 'lifetime', amountMinorUnits: 9000 }));
    expect(period).to.include({ kind: 'invalid_request' });
    expect(period.extra.field).to.equal('budgetType');
    const none = await platformErrorOf(live.setBudget(account, plain, { period: 'daily', amountMinorUnits: 9000 }));
    expect(none.extra.field).to.equal('budget');
    expect(fake.requestsTo('/campaign/update/')).to.have.length(writes);
  });

  it('pauses a campaign, an ad group and an ad in bulk, one status update per level', async () => {
    const live = adapter();
    const image = await live.uploadCreative(account, png());
    const refs = await live.createObjects(account, referenceLaunch(true, { type: 'image', ref: image.ref, thumbnailRef: null }));
    await live.setStatus(account, [refs[0]], 'ACTIVE');
    fake.requests.length = 0;
    expect(await live.setStatusEach(account, refs, 'PAUSED')).to.deep.equal([null, null, null]);
    expect(fake.requests.map((r) => [r.path.replace('/open_api/v1.3', ''), r.params])).to.deep.equal([
      ['/campaign/status/update/', { advertiser_id: advertiserId, campaign_ids: [refs[0].id], operation_status: 'DISABLE' }],
      ['/adgroup/status/update/', { advertiser_id: advertiserId, adgroup_ids: [refs[1].id], operation_status: 'DISABLE' }],
      ['/ad/status/update/', { advertiser_id: advertiserId, ad_ids: [refs[2].id], operation_status: 'DISABLE' }],
    ]);
    expect(refs.map((r) => fake.objects.get(r.id)!.operationStatus)).to.deep.equal(['DISABLE', 'DISABLE', 'DISABLE']);
  });

  for (const campaignStatus of ['ACTIVE', 'PAUSED'] as const) {
    it(`finishes a publish whose campaign is ${campaignStatus}: a paused campaign disabled first, then the active ads, the ad groups and an active campaign enabled, in bulk`, async () => {
      const live = adapter();
      const image = await live.uploadCreative(account, png());
      const [campaign, adset, ad] = referenceLaunch(true, { type: 'image', ref: image.ref, thumbnailRef: null });
      const specs = [campaign, adset, ad, { ...ad, marker: 'nd_ad_paused', name: 'Hero 2', status: 'PAUSED' as const }];
      const refs = await live.createObjects(account, specs);
      expect(
        refs.map((r) => fake.objects.get(r.id)!.operationStatus),
        'as created',
      ).to.deep.equal(['ENABLE', 'DISABLE', 'DISABLE', 'DISABLE']);
      fake.requests.length = 0;
      const wanted = [campaignStatus, 'ACTIVE', 'ACTIVE', 'PAUSED'] as const;
      await live.finishPublish(
        account,
        refs.map((ref, i) => ({ ref, status: wanted[i] })),
      );
      expect(fake.requests.map((r) => [r.path.replace('/open_api/v1.3', ''), r.params])).to.deep.equal([
        ...(campaignStatus === 'PAUSED'
          ? [['/campaign/status/update/', { advertiser_id: advertiserId, campaign_ids: [refs[0].id], operation_status: 'DISABLE' }]]
          : []),
        ['/ad/status/update/', { advertiser_id: advertiserId, ad_ids: [refs[2].id], operation_status: 'ENABLE' }],
        ['/adgroup/status/update/', { advertiser_id: advertiserId, adgroup_ids: [refs[1].id], operation_status: 'ENABLE' }],
        ...(campaignStatus === 'ACTIVE'
          ? [['/campaign/status/update/', { advertiser_id: advertiserId, campaign_ids: [refs[0].id], operation_status: 'ENABLE' }]]
          : []),
      ]);
      // The platform and the launch agree on every status.
      expect(refs.map((r) => fake.objects.get(r.id)!.operationStatus)).to.deep.equal(wanted.map((w) => (w === 'ACTIVE' ? 'ENABLE' : 'DISABLE')));
    });
  }

  it('fails a finish TikTok answers with failures, naming the object', async () => {
    const live = adapter();
    const [campaign, adset] = referenceLaunch(false, null);
    const refs = await live.createObjects(account, [campaign, adset]);
    fake.refuseStatusOf(refs[1].id, 'The ad group is in review.', false, ['ENABLE']);
    const err = await platformErrorOf(live.finishPublish(account, [{ ref: refs[1], status: 'ACTIVE' }]));
    expect(err.message).to.equal(`TikTok did not enable 1 of 1 objects (adset ${refs[1].id}: The ad group is in review.).`);
  });

  it("sends round four's rules: conversion_bid_price on OCPM, a BC identity with its Business Center, age groups from 18, a special industry's targeting as TikTok keeps it; a name over 40 as TikTok counts it is refused unsent", async () => {
    const live = adapter();
    const bc = { ...account, identityBcId: '7400000000000000001' };
    const [campaign, adset, ad] = referenceLaunch(false, { type: 'image', ref: (await live.uploadCreative(account, png())).ref, thumbnailRef: null });
    const [c] = await live.createObjects(bc, [{ ...campaign, objective: 'WEB_CONVERSIONS', settings: { specialAdCategories: ['HOUSING'] } }]);
    const [s] = await live.createObjects(bc, [
      {
        ...adset,
        parentId: c.id,
        objective: 'WEB_CONVERSIONS',
        settings: {
          ...adset.settings,
          optimizationGoal: 'CONVERT',
          bidAmount: 250,
          targeting: { countries: ['US'], ageMax: 65 },
          promotedObject: { pixelId: '7300000000000000001', customEventType: 'SHOPPING' },
        },
      },
    ]);
    const group = fake.requestsTo('/adgroup/create/')[0].params;
    expect(group).to.deep.include({
      billing_event: 'OCPM',
      bid_type: 'BID_TYPE_CUSTOM',
      conversion_bid_price: 2.5,
      pixel_id: '7300000000000000001',
      optimization_event: 'SHOPPING',
      age_groups: ['AGE_18_24', 'AGE_25_34', 'AGE_35_44', 'AGE_45_54', 'AGE_55_100'],
    });
    expect(group).to.not.have.property('bid_price');
    await live.createObjects(bc, [{ ...ad, parentId: s.id, settings: { ...ad.settings, identityType: 'BC_AUTH_TT', displayName: '春日セール' } }]);
    const [sent] = fake.requestsTo('/ad/create/')[0].params.creatives as Array<Record<string, unknown>>;
    expect(sent).to.deep.include({ identity_type: 'BC_AUTH_TT', identity_authorized_bc_id: '7400000000000000001', display_name: '春日セール' });
    expect(fake.silentChanges, 'a HOUSING ad group already 18+ and all genders: TikTok widens nothing').to.deep.equal([]);

    const before = fake.requests.length;
    const long = await platformErrorOf(
      live.createObjects(bc, [{ ...ad, marker: 'nd_long', parentId: s.id, settings: { ...ad.settings, displayName: '春'.repeat(21) } }]),
    );
    expect(long.extra.field).to.equal('displayName');
    expect(long.message).to.contain('42 characters as TikTok counts them');
    const noCenter = await platformErrorOf(
      live.createObjects(account, [{ ...ad, marker: 'nd_bc', parentId: s.id, settings: { ...ad.settings, identityType: 'BC_AUTH_TT' } }]),
    );
    expect(noCenter.extra.field).to.equal('identityId');
    expect(fake.requests.length, 'nothing sent').to.equal(before);
  });

  it('sends what the rules ask: a campaign goal under budget optimization, promotion_type per objective, audiences, automatic placement; a lifetime campaign budget is refused unsent', async () => {
    const live = adapter();
    fake.seedAsset(advertiserId, 'audiences', { audience_id: '900001', name: 'Buyers' });
    fake.seedAsset(advertiserId, 'audiences', { audience_id: '900002', name: 'Recent buyers' });
    const [campaign, adset] = referenceLaunch(true, null);
    const [c] = await live.createObjects(account, [{ ...campaign, objective: 'WEB_CONVERSIONS' }]);
    expect(fake.requestsTo('/campaign/create/')[0].params).to.include({
      budget_optimize_on: true,
      optimization_goal: 'CONVERT',
      objective_type: 'WEB_CONVERSIONS',
    });
    await live.createObjects(account, [
      {
        ...adset,
        parentId: c.id,
        objective: 'WEB_CONVERSIONS',
        settings: {
          optimizationGoal: 'CONVERT',
          targeting: { countries: ['US'], customAudiences: ['900001'], excludedAudiences: ['900002'] },
          placements: { automatic: true },
          promotedObject: { pixelId: 'px1', customEventType: 'SHOPPING' },
        },
      },
    ]);
    expect(fake.requestsTo('/adgroup/create/')[0].params).to.deep.include({
      placement_type: 'PLACEMENT_TYPE_AUTOMATIC',
      promotion_type: 'WEBSITE',
      bid_type: 'BID_TYPE_NO_BID',
      audience_ids: ['900001'],
      excluded_audience_ids: ['900002'],
      optimization_goal: 'CONVERT',
      billing_event: 'OCPM',
    });
    expect(fake.requestsTo('/adgroup/create/')[0].params).to.not.have.property('placements');
    // REACH takes no promotion_type; a lead ad group with an instant form is LEAD_GENERATION.
    const [reach] = await live.createObjects(account, [{ ...campaign, marker: 'nd_reach', objective: 'REACH', budget: null }]);
    await live.createObjects(account, [
      {
        ...adset,
        marker: 'nd_reach_set',
        parentId: reach.id,
        objective: 'REACH',
        budget: { period: 'daily', amountMinorUnits: 2000 },
        settings: { optimizationGoal: 'REACH', targeting: { countries: ['US'] }, frequencyCap: { impressions: 3, days: 7 } },
      },
    ]);
    expect(fake.requestsTo('/campaign/create/')[1].params).to.not.have.property('optimization_goal');
    expect(fake.requestsTo('/adgroup/create/')[1].params).to.not.have.property('promotion_type');
    // A reach ad group caps how often a person sees it (frequency, frequency_schedule).
    expect(fake.requestsTo('/adgroup/create/')[1].params).to.deep.include({ frequency: 3, frequency_schedule: 7 });
    const before = fake.requests.length;
    const lifetime = await platformErrorOf(
      live.createObjects(account, [{ ...campaign, marker: 'nd_lifetime', budget: { period: 'lifetime', amountMinorUnits: 90000 } }]),
    );
    expect(lifetime.extra.field).to.equal('budget');
    expect(fake.requests.length).to.equal(before);
  });

  it('asks /tool/url_validate/ about each distinct landing page once, as the ad would carry it: a page TikTok calls invalid is a refusal on linkUrl in its words, nothing created', async () => {
    const live = adapter();
    const [campaign, adset, ad] = referenceLaunch(true, { type: 'image', ref: 'img_1', thumbnailRef: null });
    const twin: ObjectSpec = { ...ad, marker: 'nd_ad0000000000002', name: 'Hero 2' };
    const closed: ObjectSpec = {
      ...ad,
      marker: 'nd_ad0000000000003',
      name: 'Closed',
      settings: { ...ad.settings, linkUrl: 'https://shop.example.com/closed', urlTags: undefined },
    };
    fake.refuseUrlWhen((url) => url.startsWith('https://shop.example.com/closed'));
    const answers = await live.validateWithTools(account, [campaign, adset, ad, twin, closed]);
    // One GET per distinct page: the campaign and the ad group have none, the twin shares the first ad's.
    expect(fake.requests.map((r) => [r.method, r.path])).to.deep.equal([
      ['GET', '/open_api/v1.3/tool/url_validate/'],
      ['GET', '/open_api/v1.3/tool/url_validate/'],
    ]);
    expect(fake.requests.map((r) => r.params)).to.have.deep.members([
      { advertiser_id: advertiserId, url: 'https://shop.example.com/spring?ref=tt&utm_source=tiktok&utm_medium=paid&sub3=__CAMPAIGN_ID__#offer' },
      { advertiser_id: advertiserId, url: 'https://shop.example.com/closed?sub3=__CAMPAIGN_ID__' },
    ]);
    expect(answers.slice(0, 4)).to.deep.equal([null, null, null, null]);
    const refused = answers[4]!;
    expect(refused).to.be.instanceOf(PlatformError);
    expect(refused.kind).to.equal('invalid_request');
    expect(refused.extra.field).to.equal('linkUrl');
    expect(refused.message).to.equal(
      "TikTok's /tool/url_validate/ answered is_scheme_link: false, is_valid_scheme: false, is_valid_url: false for the landing page " +
        'https://shop.example.com/closed?sub3=__CAMPAIGN_ID__: give the ad a landing page TikTok takes (linkUrl)',
    );
    expect(fake.objects.size, 'nothing created').to.equal(0);

    // A url TikTok refuses outright (40002) is a refusal on linkUrl with its message and code; a refused token is thrown.
    fake.codeNext(1, 40002, 'url: The URL is too long.');
    const [outright] = await live.validateWithTools(account, [closed]);
    expect(outright).to.be.instanceOf(PlatformError);
    expect(outright!.message).to.equal('url: The URL is too long.');
    expect(outright!.extra).to.deep.include({ field: 'linkUrl', platformCode: 40002 });
    fake.codeNext(1, 40105, 'Access token is incorrect or has been revoked.');
    expect((await platformErrorOf(live.validateWithTools(account, [ad]))).kind).to.equal('authentication');
  });

  it('reads the pixel options 20 a page, the cap of pixel/list', async () => {
    for (let i = 0; i < 45; i++) fake.seedAsset(advertiserId, 'pixels', { pixel_id: `9${String(i).padStart(9, '0')}`, pixel_name: `Pixel ${i}` });
    const pixels = await adapter().listOptions(account, 'pixels');
    expect(pixels).to.have.length(45);
    expect(fake.requestsTo('/pixel/list/').map((r) => [r.params.page, r.params.page_size])).to.deep.equal([
      ['1', '20'],
      ['2', '20'],
      ['3', '20'],
    ]);
  });

  it('answers throttled at once, with the wait, when TikTok asks for longer than the request has left', async () => {
    fake.throttleNext(1, { http429: true, retryAfterSeconds: 120 });
    const err = await platformErrorOf(adapter({ callDeadlineMs: 30_000 }).listCampaigns(account, { limit: 10 }));
    expect(err).to.include({ kind: 'throttled' });
    expect(err.extra.retryAfterMs).to.equal(120_000);
    fake.throttleNext(1);
    const coded = await platformErrorOf(adapter({ callDeadlineMs: 30_000, throttleWaitMs: 45_000 }).listCampaigns(account, { limit: 10 }));
    expect(coded.extra).to.include({ retryAfterMs: 45_000, platformCode: 40100 });
    expect(sleeps).to.deep.equal([]);
    expect(fake.roundTrips).to.equal(2);
  });

  it('waits a short throttle (40100) and sends the request again', async () => {
    fake.seedCampaign(advertiserId, { name: 'Existing' });
    fake.throttleNext(1);
    const page = await adapter({ callDeadlineMs: 30_000, throttleWaitMs: 2_000 }).listCampaigns(account, { limit: 10 });
    expect(page.campaigns.map((c) => c.name)).to.deep.equal(['Existing']);
    expect(sleeps).to.deep.equal([2_000]);
    expect(fake.roundTrips).to.equal(2);
  });
});

describe('the strict fake TikTok Business API refuses what TikTok refuses, naming the field', function () {
  let fake: FakeTikTokServer;
  let token: string;
  const advertiserId = '7000000000000000009';
  let cbo: string;
  let plain: string;
  let conversions: string;
  let reach: string;
  let adgroupId: string;
  let automaticId: string;
  let inFeedId: string;
  let imageId: string;

  const call = async (method: 'GET' | 'POST', path: string, params: Record<string, unknown>, headers: Record<string, string> = { 'Access-Token': token }) => {
    const withAdvertiser = { advertiser_id: advertiserId, ...params };
    if (method === 'GET') {
      const query = new URLSearchParams(Object.entries(withAdvertiser).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]));
      const res = await fetch(`${fake.url}${path}?${query}`, { headers });
      return { status: res.status, body: await res.json() };
    }
    const res = await fetch(`${fake.url}${path}`, {
      method,
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify(withAdvertiser),
    });
    return { status: res.status, body: await res.json() };
  };
  const upload = async (fields: Record<string, string>, file: Buffer) => {
    const form = new FormData();
    form.append('advertiser_id', advertiserId);
    for (const [k, v] of Object.entries(fields)) form.append(k, v);
    form.append('image_file', new Blob([new Uint8Array(file)], { type: 'image/png' }), 'hero.png');
    const res = await fetch(`${fake.url}/file/image/ad/upload/`, { method: 'POST', headers: { 'Access-Token': token }, body: form });
    return { status: res.status, body: await res.json() };
  };

  before(async () => {
    fake = await FakeTikTokServer.start();
    token = fake.addAdvertiser(advertiserId);
    cbo = fake.seedCampaign(advertiserId, { name: 'CBO', budgetMode: 'BUDGET_MODE_DAY', budget: 50, budgetOptimizeOn: true });
    plain = fake.seedCampaign(advertiserId, { name: 'Plain' });
    conversions = fake.seedCampaign(advertiserId, { name: 'Conversions', objectiveType: 'WEB_CONVERSIONS' });
    reach = fake.seedCampaign(advertiserId, { name: 'Reach', objectiveType: 'REACH' });
    const bytes = makePng(600, 600);
    imageId = (await upload({ upload_type: 'UPLOAD_BY_FILE', image_signature: md5(bytes) }, bytes)).body.data.image_id;
    // Outside TikTok's in-feed placement, where image ads may run.
    const created = await call('POST', '/adgroup/create/', {
      ...adgroup(plain),
      placement_type: 'PLACEMENT_TYPE_NORMAL',
      placements: ['PLACEMENT_PANGLE'],
      budget_mode: 'BUDGET_MODE_DAY',
      budget: 20,
    });
    adgroupId = created.body.data.adgroup_id;
    fake.seedAsset(advertiserId, 'audiences', { audience_id: '900001', name: 'Buyers' });
    automaticId = (await call('POST', '/adgroup/create/', { ...adgroup(plain), budget_mode: 'BUDGET_MODE_DAY', budget: 20 })).body.data.adgroup_id;
    inFeedId = (
      await call('POST', '/adgroup/create/', {
        ...adgroup(plain),
        placement_type: 'PLACEMENT_TYPE_NORMAL',
        placements: ['PLACEMENT_PANGLE', 'PLACEMENT_TIKTOK'],
        budget_mode: 'BUDGET_MODE_DAY',
        budget: 20,
      })
    ).body.data.adgroup_id;
  });
  after(async () => fake?.close());

  function adgroup(campaignId: string): Record<string, unknown> {
    return {
      campaign_id: campaignId,
      adgroup_name: 'Set',
      placement_type: 'PLACEMENT_TYPE_AUTOMATIC',
      pacing: 'PACING_MODE_SMOOTH',
      optimization_goal: 'CLICK',
      billing_event: 'CPC',
      schedule_type: 'SCHEDULE_FROM_NOW',
      schedule_start_time: '2030-01-01 00:00:00',
      location_ids: ['6252001'],
      promotion_type: 'WEBSITE',
      bid_type: 'BID_TYPE_NO_BID',
    };
  }
  const creative = (extra: Record<string, unknown> = {}) => ({
    ad_name: 'Ad',
    ad_format: 'SINGLE_IMAGE',
    ad_text: 'Up to 40% off',
    identity_id: '7100000000000000042',
    identity_type: 'CUSTOMIZED_USER',
    image_ids: [imageId],
    call_to_action: 'LEARN_MORE',
    ...extra,
  });
  const campaign = { campaign_name: 'X', objective_type: 'TRAFFIC', budget_mode: 'BUDGET_MODE_INFINITE', budget_optimize_on: false };
  const cboCampaign = { ...campaign, budget_optimize_on: true, budget_mode: 'BUDGET_MODE_DAY', budget: 50 };
  /** An ad group with its own daily budget of `budget` dollars under a campaign without budget optimization. */
  const ownBudget = (campaignId: string, budget = 20) => ({ ...adgroup(campaignId), budget_mode: 'BUDGET_MODE_DAY', budget });
  const convertGroup = (extra: Record<string, unknown> = {}) => ({
    ...ownBudget(conversions),
    optimization_goal: 'CONVERT',
    billing_event: 'OCPM',
    pixel_id: '7300000000000000001',
    optimization_event: 'SHOPPING',
    ...extra,
  });
  const cjk = (n: number) => '春'.repeat(n);
  /** A REACH ad group capped at `frequency` impressions in `days` days. */
  const reachGroup = (frequency: number, days: number) => ({
    ...ownBudget(reach),
    optimization_goal: 'REACH',
    billing_event: 'CPM',
    promotion_type: undefined,
    frequency,
    frequency_schedule: days,
  });
  /** An ad whose display name TikTok counts over its 40 characters. */
  const tooLongDisplayName = (mistake: string, displayName: string) => ({
    mistake,
    call: () =>
      call('POST', '/ad/create/', {
        adgroup_id: adgroupId,
        creatives: [creative({ landing_page_url: 'https://shop.example.com/', display_name: displayName })],
      }),
    message: /^creatives\.0\.display_name: Length must be between 1 and 40\.$/,
  });

  const rows: Array<{ mistake: string; call: () => Promise<{ status: number; body: any }>; code?: number; message: RegExp }> = [
    {
      mistake: 'an unknown field',
      call: () => call('POST', '/campaign/create/', { ...campaign, daily_budget: 5 }),
      message: /^daily_budget: Unknown field\.$/,
    },
    {
      mistake: 'a mistyped field (a string budget)',
      call: () => call('POST', '/campaign/create/', { ...campaign, budget_mode: 'BUDGET_MODE_DAY', budget: '50' }),
      message: /^budget: Not a number\.$/,
    },
    {
      mistake: 'a missing required field',
      call: () => call('POST', '/campaign/create/', { campaign_name: 'X' }),
      message: /^objective_type: Missing data for required field\.$/,
    },
    {
      mistake: 'a value outside its enum',
      call: () => call('POST', '/campaign/create/', { ...campaign, budget_mode: 'BUDGET_MODE_WEEK' }),
      message: /^budget_mode: Must be one of /,
    },
    {
      mistake: 'budget_mode on campaign/update',
      call: () => call('POST', '/campaign/update/', { campaign_id: cbo, budget_mode: 'BUDGET_MODE_DAY', budget: 60 }),
      message: /^budget_mode: Unknown field\.$/,
    },
    {
      mistake: 'budget_mode on adgroup/update',
      call: () => call('POST', '/adgroup/update/', { adgroup_id: adgroupId, budget_mode: 'BUDGET_MODE_DAY' }),
      message: /^budget_mode: Unknown field\.$/,
    },
    {
      mistake: 'pixel/list over its page size of 20',
      call: () => call('GET', '/pixel/list/', { page: 1, page_size: 100 }),
      message: /^page_size: Must be between 1 and 20\.$/,
    },
    {
      mistake: 'campaign/get over its page size of 1000',
      call: () => call('GET', '/campaign/get/', { page: 1, page_size: 1001 }),
      message: /^page_size: Must be between 1 and 1000\.$/,
    },
    {
      mistake: 'ISO codes as location_ids',
      call: () => call('POST', '/adgroup/create/', { ...adgroup(cbo), location_ids: ['US'] }),
      message: /^location_ids: Location ID US is invalid/,
    },
    {
      mistake: 'an age group TikTok does not have',
      call: () => call('POST', '/adgroup/create/', { ...adgroup(cbo), age_groups: ['AGE_18_65'] }),
      message: /^age_groups\.0: Must be one of /,
    },
    {
      mistake: 'an ad group without budget under a campaign without budget optimization',
      call: () => call('POST', '/adgroup/create/', adgroup(plain)),
      message: /^budget_mode: Missing data for required field\.$/,
    },
    {
      mistake: 'an ad group budget under a campaign with budget optimization',
      call: () => call('POST', '/adgroup/create/', { ...adgroup(cbo), budget_mode: 'BUDGET_MODE_DAY', budget: 20 }),
      message: /^budget: Campaign \d+ has budget optimization on/,
    },
    {
      mistake: 'a campaign with budget optimization and no budget',
      call: () => call('POST', '/campaign/create/', { ...campaign, budget_optimize_on: true }),
      message: /^budget_mode: When Campaign Budget Optimization is enabled, only BUDGET_MODE_DAY is supported\.$/,
    },
    // The rules the specifications leave out (live-platforms.md), each cited in the fake.
    {
      mistake: 'a campaign that does not say budget_optimize_on',
      call: () => call('POST', '/campaign/create/', { ...campaign, budget_optimize_on: undefined }),
      message: /^budget_optimize_on: Missing data for required field\. Say true/,
    },
    {
      mistake: 'a lifetime budget with budget optimization',
      call: () => call('POST', '/campaign/create/', { ...cboCampaign, budget_mode: 'BUDGET_MODE_TOTAL' }),
      message: /^budget_mode: When Campaign Budget Optimization is enabled, only BUDGET_MODE_DAY is supported\.$/,
    },
    {
      mistake: 'a budget-optimized conversion campaign without its optimization goal',
      call: () => call('POST', '/campaign/create/', { ...cboCampaign, objective_type: 'WEB_CONVERSIONS' }),
      message: /^optimization_goal: Required when Campaign Budget Optimization is enabled \(objective WEB_CONVERSIONS\)\.$/,
    },
    {
      mistake: 'a campaign optimization goal TikTok does not take at campaign level',
      call: () => call('POST', '/campaign/create/', { ...cboCampaign, objective_type: 'WEB_CONVERSIONS', optimization_goal: 'CLICK' }),
      message: /^optimization_goal: Must be one of CONVERT, INSTALL, VALUE, IN_APP_EVENT, LEAD_GENERATION\.$/,
    },
    {
      mistake: 'an ad group of a budget-optimized campaign without bid_type',
      call: () => call('POST', '/adgroup/create/', { ...adgroup(cbo), bid_type: undefined }),
      message: /^bid_type: Required when campaign \d+ has Campaign Budget Optimization on/,
    },
    {
      mistake: 'a TRAFFIC ad group without promotion_type',
      call: () => call('POST', '/adgroup/create/', { ...adgroup(cbo), promotion_type: undefined }),
      message: /^promotion_type: Missing data for required field \(objective TRAFFIC\)\.$/,
    },
    {
      mistake: 'placements as an object',
      call: () =>
        call('POST', '/adgroup/create/', {
          ...adgroup(cbo),
          placement_type: 'PLACEMENT_TYPE_NORMAL',
          placements: { automatic: false, positions: ['PLACEMENT_TIKTOK'] },
        }),
      message: /^placements: Not a valid list\.$/,
    },
    {
      mistake: 'a placement TikTok does not have',
      call: () => call('POST', '/adgroup/create/', { ...adgroup(cbo), placement_type: 'PLACEMENT_TYPE_NORMAL', placements: ['facebook:feed'] }),
      message: /^placements\.0: Must be one of PLACEMENT_TIKTOK, PLACEMENT_PANGLE, PLACEMENT_GLOBAL_APP_BUNDLE\.$/,
    },
    {
      mistake: 'an audience the advertiser does not have',
      call: () => call('POST', '/adgroup/create/', { ...adgroup(cbo), audience_ids: ['900001'], excluded_audience_ids: ['999'] }),
      message: /^excluded_audience_ids: Audience 999 does not exist in this advertiser\.$/,
    },
    {
      mistake: 'an ad without a call to action',
      call: () => call('POST', '/ad/create/', { adgroup_id: adgroupId, creatives: [creative({ call_to_action: undefined })] }),
      message: /^creatives\.0\.call_to_action: For TikTok ads, either call_to_action or call_to_action_id must be specified\.$/,
    },
    {
      mistake: 'a landing-page ad without display_name',
      call: () => call('POST', '/ad/create/', { adgroup_id: adgroupId, creatives: [creative({ landing_page_url: 'https://shop.example.com/' })] }),
      message: /^creatives\.0\.display_name: Required for an ad with a landing page\.$/,
    },
    tooLongDisplayName('a display_name over 40 characters', 'x'.repeat(41)),
    {
      mistake: 'an image ad in an ad group with automatic placement',
      call: () => call('POST', '/ad/create/', { adgroup_id: automaticId, creatives: [creative()] }),
      message: /^creatives\.0\.ad_format: For in-feed ads on TikTok, set this field to SINGLE_VIDEO\.$/,
    },
    {
      mistake: 'an image ad in an ad group placed on PLACEMENT_TIKTOK',
      call: () => call('POST', '/ad/create/', { adgroup_id: inFeedId, creatives: [creative()] }),
      message: /^creatives\.0\.ad_format: For in-feed ads on TikTok, set this field to SINGLE_VIDEO\.$/,
    },
    {
      mistake: 'an ad without ad_format',
      call: () => call('POST', '/ad/create/', { adgroup_id: adgroupId, creatives: [creative({ ad_format: undefined })] }),
      message: /^creatives\.0\.ad_format: Missing data/,
    },
    {
      mistake: 'an ad without identity',
      call: () => call('POST', '/ad/create/', { adgroup_id: adgroupId, creatives: [creative({ identity_id: undefined })] }),
      message: /^creatives\.0\.identity_id: Missing data/,
    },
    {
      mistake: 'an image never uploaded to the advertiser',
      call: () => call('POST', '/ad/create/', { adgroup_id: adgroupId, creatives: [creative({ image_ids: ['ad-site-i18n-sg/nope'] })] }),
      message: /^creatives\.0\.image_ids: Image ad-site-i18n-sg\/nope does not exist/,
    },
    {
      mistake: 'a video ad without its video',
      call: () => call('POST', '/ad/create/', { adgroup_id: adgroupId, creatives: [creative({ ad_format: 'SINGLE_VIDEO' })] }),
      message: /^creatives\.0\.video_id: Missing data/,
    },
    {
      mistake: 'an identity type TikTok does not have',
      call: () => call('POST', '/ad/create/', { adgroup_id: adgroupId, creatives: [creative({ identity_type: 'PAGE' })] }),
      message: /^creatives\.0\.identity_type: Must be one of /,
    },
    {
      mistake: 'an image whose signature is not its MD5',
      call: () => upload({ upload_type: 'UPLOAD_BY_FILE', image_signature: md5(Buffer.from('other')) }, makePng(10, 10)),
      message: /^image_signature: The signature is not the MD5 of image_file\.$/,
    },
    {
      mistake: 'more than 20 ids in one status update',
      call: () => call('POST', '/campaign/status/update/', { campaign_ids: Array.from({ length: 21 }, (_, i) => String(i)), operation_status: 'DISABLE' }),
      message: /^campaign_ids: At most 20 items/,
    },
    // More rules the platforms enforce (live-platforms.md), each cited in the fake.
    {
      mistake: 'a custom bid on an OCPM ad group in bid_price, without conversion_bid_price',
      call: () => call('POST', '/adgroup/create/', convertGroup({ bid_type: 'BID_TYPE_CUSTOM', bid_price: 2.5 })),
      message: /^conversion_bid_price: Required when billing_event = OCPM and bid_type = BID_TYPE_CUSTOM\.$/,
    },
    {
      mistake: "Meta's name for an event (PURCHASE) as optimization_event",
      call: () => call('POST', '/adgroup/create/', convertGroup({ optimization_event: 'PURCHASE' })),
      message: /^optimization_event: Must be one of .*SHOPPING/,
    },
    {
      mistake: 'a conversion ad group without its pixel',
      call: () => call('POST', '/adgroup/create/', convertGroup({ pixel_id: undefined })),
      message: /^pixel_id: Required when optimization_goal is CONVERT\.$/,
    },
    {
      mistake: 'a pixel on a TRAFFIC ad group',
      call: () => call('POST', '/adgroup/create/', { ...ownBudget(plain), pixel_id: '7300000000000000001' }),
      message: /^pixel_id: Not supported for objective TRAFFIC\.$/,
    },
    {
      mistake: 'a REACH ad group without frequency',
      call: () => call('POST', '/adgroup/create/', { ...ownBudget(reach), optimization_goal: 'REACH', billing_event: 'CPM', promotion_type: undefined }),
      message: /^frequency: Required when objective_type is REACH\.$/,
    },
    {
      mistake: 'an ad group daily budget under USD 20',
      call: () => call('POST', '/adgroup/create/', ownBudget(plain, 19.99)),
      message: /^budget: The ad group budget must be at least 20\.00 USD\.$/,
    },
    {
      mistake: 'a lifetime ad group budget under USD 20 a day for its days',
      call: () =>
        call('POST', '/adgroup/create/', {
          ...ownBudget(plain, 150),
          budget_mode: 'BUDGET_MODE_TOTAL',
          schedule_type: 'SCHEDULE_START_END',
          schedule_end_time: '2030-01-11 00:00:00',
        }),
      message: /^budget: The lifetime ad group budget must be at least 200\.00 USD \(10 days\)\.$/,
    },
    {
      mistake: 'a campaign daily budget under USD 50',
      call: () => call('POST', '/campaign/create/', { ...cboCampaign, budget: 49 }),
      message: /^budget: The campaign budget must be at least 50\.00 USD\.$/,
    },
    {
      mistake: "a location the region tool does not list for the ad group's placements (SG outside PLACEMENT_TIKTOK)",
      call: () =>
        call('POST', '/adgroup/create/', {
          ...ownBudget(plain),
          placement_type: 'PLACEMENT_TYPE_NORMAL',
          placements: ['PLACEMENT_PANGLE'],
          location_ids: ['1880251'],
        }),
      message: /^location_ids: Location ID 1880251 is not available for this ad group's placements and objective\.$/,
    },
    {
      mistake: 'the allowlist-only placement on an advertiser not allowlisted for it',
      call: () =>
        call('POST', '/adgroup/create/', { ...ownBudget(plain), placement_type: 'PLACEMENT_TYPE_NORMAL', placements: ['PLACEMENT_GLOBAL_APP_BUNDLE'] }),
      code: 40001,
      message: /^placements: PLACEMENT_GLOBAL_APP_BUNDLE is an allowlist-only placement/,
    },
    {
      mistake: 'a BC_AUTH_TT identity without identity_authorized_bc_id',
      call: () => call('POST', '/ad/create/', { adgroup_id: adgroupId, creatives: [creative({ identity_type: 'BC_AUTH_TT' })] }),
      message: /^creatives\.0\.identity_authorized_bc_id: Required when identity_type is BC_AUTH_TT\.$/,
    },
    {
      mistake: 'ad text of 51 Chinese characters (102 as TikTok counts them)',
      call: () => call('POST', '/ad/create/', { adgroup_id: adgroupId, creatives: [creative({ ad_text: cjk(51) })] }),
      message: /^creatives\.0\.ad_text: Length must be between 1 and 100\.$/,
    },
    tooLongDisplayName('a display_name of 21 Chinese characters (42 as TikTok counts them)', cjk(21)),
    tooLongDisplayName('a display_name of 21 Korean characters (42 as TikTok counts them in names)', '봄'.repeat(21)),
    // Names (CampaignCreateBody campaign_name, AdgroupCreateBody adgroup_name, AdcreateCreatives ad_name: "Character limit is 512 and cannot contain emoji").
    {
      mistake: 'a campaign name with an emoji',
      call: () => call('POST', '/campaign/create/', { ...campaign, campaign_name: 'Spring 🌸 sale' }),
      message: /^campaign_name: Cannot contain emoji\.$/,
    },
    {
      mistake: 'an ad group name of 257 Chinese characters (514 as TikTok counts them)',
      call: () => call('POST', '/adgroup/create/', { ...ownBudget(plain), adgroup_name: cjk(257) }),
      message: /^adgroup_name: Length must be between 1 and 512\.$/,
    },
    {
      mistake: 'an ad name with an emoji',
      call: () => call('POST', '/ad/create/', { adgroup_id: adgroupId, creatives: [creative({ ad_name: 'Hero 🔥' })] }),
      message: /^creatives\.0\.ad_name: Cannot contain emoji\.$/,
    },
    // Frequency (AdgroupCreateBody frequency: "1 <= frequency <= frequency_schedule * 3"; frequency_schedule: "1 <= frequency_schedule <= 7").
    {
      mistake: 'a frequency over three times its days (10 in 3 days)',
      call: () => call('POST', '/adgroup/create/', reachGroup(10, 3)),
      message: /^frequency: Must be between 1 and frequency_schedule \* 3 \(9\)\.$/,
    },
    {
      mistake: 'a frequency schedule of 8 days',
      call: () => call('POST', '/adgroup/create/', reachGroup(3, 8)),
      message: /^frequency_schedule: Must be between 1 and 7\.$/,
    },
    // Bids below budgets (AdgroupCreateBody bid_price: "needs to be lower than budget set at the campaign level and ad group level").
    {
      mistake: "a bid at the ad group's daily budget",
      call: () => call('POST', '/adgroup/create/', { ...ownBudget(plain, 20), bid_type: 'BID_TYPE_CUSTOM', bid_price: 20 }),
      message: /^bid_price: The bid needs to be lower than the budget set at the campaign level and ad group level\.$/,
    },
    {
      mistake: "a conversion bid above the campaign's daily budget",
      call: () =>
        call('POST', '/adgroup/create/', {
          ...adgroup(cbo),
          optimization_goal: 'CONVERT',
          billing_event: 'OCPM',
          bid_type: 'BID_TYPE_CUSTOM',
          conversion_bid_price: 60,
        }),
      message: /bid needs to be lower than the budget/,
    },
    // Asking the platform: /tool/url_validate/ as ToolApi.md and yml_files/tool_url_validate.yml describe it.
    {
      mistake: 'url_validate without its url',
      call: () => call('GET', '/tool/url_validate/', {}),
      message: /^url: Missing data for required field\.$/,
    },
    {
      mistake: 'url_validate with a field it does not take',
      call: () => call('GET', '/tool/url_validate/', { url: 'https://shop.example.com/', landing_page_url: 'https://shop.example.com/' }),
      message: /^landing_page_url: Unknown field\.$/,
    },
    {
      mistake: 'url_validate with a list of urls',
      call: () => call('GET', '/tool/url_validate/', { url: ['https://shop.example.com/'] }),
      message: /^url: Not a string\.$/,
    },
    { mistake: 'no access token', call: () => call('GET', '/campaign/get/', {}, {}), code: 40104, message: /^Access token is null/ },
    {
      mistake: 'a revoked access token',
      call: () => call('GET', '/campaign/get/', {}, { 'Access-Token': 'revoked' }),
      code: 40105,
      message: /^Access token is incorrect or has been revoked/,
    },
  ];

  it('answers /tool/url_validate/ in the shape of its response_rule, and calls a page invalid only when a test says TikTok does (refuseUrlWhen)', async () => {
    const asked = (url: string) => call('GET', '/tool/url_validate/', { url });
    const info = (answer: { body: any }) => answer.body.data.url_info.validate_info;
    const page = await asked('https://shop.example.com/spring?sub3=__CAMPAIGN_ID__');
    expect(page.body).to.include({ code: 0 });
    expect(info(page)).to.deep.equal({ is_scheme_link: false, is_valid_scheme: false, is_valid_url: true });
    expect(info(await asked('shopapp://spring'))).to.deep.equal({ is_scheme_link: true, is_valid_scheme: true, is_valid_url: true });
    expect(info(await asked('not a url'))).to.deep.equal({ is_scheme_link: false, is_valid_scheme: false, is_valid_url: false });
    fake.refuseUrlWhen((url, advertiser) => advertiser === advertiserId && url.includes('/closed'));
    try {
      expect(info(await asked('https://shop.example.com/closed'))).to.deep.equal({ is_scheme_link: false, is_valid_scheme: false, is_valid_url: false });
      expect(info(await asked('https://shop.example.com/open')).is_valid_url).to.equal(true);
    } finally {
      fake.clearUnwritten();
    }
    expect(info(await asked('https://shop.example.com/closed')).is_valid_url).to.equal(true);
  });

  it("widens a special industry's ad group to 18+ and all genders without a word, as TikTok does, and records it (silentChanges)", async () => {
    const housing = await call('POST', '/campaign/create/', { ...campaign, campaign_name: 'Housing', special_industries: ['HOUSING'] });
    expect(housing.body.code, JSON.stringify(housing.body)).to.equal(0);
    const narrow = await call('POST', '/adgroup/create/', {
      ...ownBudget(housing.body.data.campaign_id),
      adgroup_name: 'Women 25-34',
      age_groups: ['AGE_25_34'],
      gender: 'GENDER_FEMALE',
    });
    expect(narrow.body.code, JSON.stringify(narrow.body)).to.equal(0);
    expect(fake.silentChanges).to.deep.equal([
      'ad group Women 25-34: age_groups AGE_25_34 widened to 18+ (special industries HOUSING)',
      'ad group Women 25-34: gender GENDER_FEMALE widened to GENDER_UNLIMITED (special industries HOUSING)',
    ]);
    fake.silentChanges.length = 0;
    fake.objects.delete(narrow.body.data.adgroup_id);
    fake.objects.delete(housing.body.data.campaign_id);
  });

  it("holds a yen advertiser to TikTok's floors: a campaign to USD 50 at its rate in whole yen (¥7,575 refused, ¥7,576 taken), an ad group to the yen table's ¥2,500", async () => {
    const yenId = '7000000000000000019';
    const headers = { 'Access-Token': fake.addAdvertiser(yenId, { currency: 'JPY' }) };
    const yen = (path: string, params: Record<string, unknown>) => call('POST', path, { ...params, advertiser_id: yenId }, headers);
    const low = await yen('/campaign/create/', { ...cboCampaign, budget: 7575 });
    expect(low.body).to.include({ code: 40002, message: 'budget: The campaign budget must be at least 7576 JPY.' });
    const fraction = await yen('/campaign/create/', { ...cboCampaign, budget: 7576.5 });
    expect(fraction.body).to.include({ code: 40002, message: 'budget: At most 0 decimal places are allowed for this currency.' });
    const budgeted = await yen('/campaign/create/', { ...cboCampaign, budget: 7576 });
    expect(budgeted.body.code, JSON.stringify(budgeted.body)).to.equal(0);
    const own = await yen('/campaign/create/', campaign);
    expect(own.body.code, JSON.stringify(own.body)).to.equal(0);
    const lowGroup = await yen('/adgroup/create/', ownBudget(own.body.data.campaign_id, 2499));
    expect(lowGroup.body).to.include({ code: 40002, message: 'budget: The ad group budget must be at least 2500 JPY.' });
    const group = await yen('/adgroup/create/', ownBudget(own.body.data.campaign_id, 2500));
    expect(group.body.code, JSON.stringify(group.body)).to.equal(0);
    expect(fake.objects.get(group.body.data.adgroup_id)).to.include({ budget: 2500, budgetMode: 'BUDGET_MODE_DAY' });
    for (const id of [group.body.data.adgroup_id, own.body.data.campaign_id, budgeted.body.data.campaign_id]) fake.objects.delete(id);
  });

  it('takes what round five no longer refuses: a pixel on a lead generation ad group, a frequency of three times its days, a bid below both budgets, a 20-character Korean display name', async () => {
    const leads = fake.seedCampaign(advertiserId, { name: 'Leads', objectiveType: 'LEAD_GENERATION' });
    const taken = [
      await call('POST', '/adgroup/create/', {
        ...ownBudget(leads),
        optimization_goal: 'LEAD_GENERATION',
        billing_event: 'OCPM',
        promotion_type: 'LEAD_GENERATION',
        pixel_id: '7300000000000000001',
        optimization_event: 'FORM',
      }),
      await call('POST', '/adgroup/create/', reachGroup(21, 7)),
      await call('POST', '/adgroup/create/', { ...ownBudget(plain, 20), bid_type: 'BID_TYPE_CUSTOM', bid_price: 19.99 }),
    ];
    for (const t of taken) expect(t.body.code, JSON.stringify(t.body)).to.equal(0);
    const ad = await call('POST', '/ad/create/', {
      adgroup_id: adgroupId,
      creatives: [creative({ landing_page_url: 'https://shop.example.com/', display_name: '봄'.repeat(20) })],
    });
    expect(ad.body.code, JSON.stringify(ad.body)).to.equal(0);
    for (const id of [...taken.map((t) => t.body.data.adgroup_id), ...ad.body.data.ad_ids, leads]) fake.objects.delete(id);
  });

  it("holds a pound advertiser's ad group to the pound table's GBP 15.00 a day (not USD 20 converted): £14.99 refused, £15.00 taken", async () => {
    const gbpId = '7000000000000000021';
    const headers = { 'Access-Token': fake.addAdvertiser(gbpId, { currency: 'GBP' }) };
    const gbp = (path: string, params: Record<string, unknown>) => call('POST', path, { ...params, advertiser_id: gbpId }, headers);
    const own = await gbp('/campaign/create/', campaign);
    const low = await gbp('/adgroup/create/', ownBudget(own.body.data.campaign_id, 14.99));
    expect(low.body).to.include({ code: 40002, message: 'budget: The ad group budget must be at least 15.00 GBP.' });
    const group = await gbp('/adgroup/create/', ownBudget(own.body.data.campaign_id, 15));
    expect(group.body.code, JSON.stringify(group.body)).to.equal(0);
    expect(fake.objects.get(group.body.data.adgroup_id)).to.include({ budget: 15, budgetMode: 'BUDGET_MODE_DAY' });
    for (const id of [group.body.data.adgroup_id, own.body.data.campaign_id]) fake.objects.delete(id);
  });

  for (const row of rows) {
    it(`refuses ${row.mistake} with ${row.code ?? 40002}`, async () => {
      const before = fake.objects.size;
      const answer = await row.call();
      expect(answer.status).to.equal(200);
      expect(answer.body).to.include({ code: row.code ?? 40002 });
      expect(answer.body.message).to.match(row.message);
      expect(answer.body.request_id).to.be.a('string').and.not.empty;
      expect(fake.objects.size).to.equal(before);
    });
  }
});
