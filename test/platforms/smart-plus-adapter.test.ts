// The TikTok adapter's Smart+ family against the strict fake (no storage): what the publish, the
// recovery, the rollback and the automations ask of it, on an account allowed Smart+ that also holds a
// classic campaign:
//   - the spec the fake checks against is the SDK's yml files at a recorded commit (types, required
//     fields, valid enum keys, int64 conversions);
//   - one setStatusEach over a classic and a Smart+ campaign sends each to its own status endpoint, and a
//     Smart+ refusal (error_list) answers that object only;
//   - findCreated, confirmRecorded and childrenOf find Smart+ ad groups and ads by their ids and parents;
//   - updateObject of a Smart+ ad goes to /smart_plus/ad/update/ with its lists; deleteObjects deletes
//     each family through its own endpoint.

import crypto from 'node:crypto';
import { expect } from 'chai';
import type { AdAccount, CreativeFile, ObjectSpec } from '../../src/platforms/port.js';
import { TikTokAdapter } from '../../src/platforms/tiktok/adapter.js';
import { FakeTikTokServer, SMART_PLUS_SPEC } from '../fakes/tiktok-server.js';
import { testOutbound } from '../helpers/outbound.js';

const md5 = (bytes: Buffer) => crypto.createHash('md5').update(bytes).digest('hex');

function mp4(): CreativeFile {
  const bytes = Buffer.concat([Buffer.from([0, 0, 0, 24]), Buffer.from('ftypisom', 'latin1'), Buffer.alloc(12), crypto.randomBytes(2048)]);
  return { creativeId: 8, type: 'video', name: 'spot.mp4', mime: 'video/mp4', bytes, width: 720, height: 1280, md5: md5(bytes) };
}

/** A Smart+ campaign, one ad group and two video ads, as the publish hands them to the adapter. */
function smartLaunch(video: ObjectSpec['creative']): ObjectSpec[] {
  const ad = (n: number): ObjectSpec => ({
    level: 'ad',
    marker: `nd_smart_ad${n}`,
    name: `Smart ad ${n}`,
    parentId: 'nd_smart_set',
    status: 'ACTIVE',
    settings: {
      smartPlus: true,
      primaryText: 'Spring sale',
      linkUrl: 'https://shop.example.com/spring',
      callToAction: 'SHOP_NOW',
      identityId: '7100000000000000042',
      identityType: 'CUSTOMIZED_USER',
    },
    creative: video,
  });
  return [
    {
      level: 'campaign',
      marker: 'nd_smart_campaign',
      name: 'Smart spring',
      parentId: null,
      status: 'PAUSED',
      objective: 'WEB_CONVERSIONS',
      budget: { period: 'daily', amountMinorUnits: 10000 },
      settings: { smartPlus: true },
    },
    {
      level: 'adset',
      marker: 'nd_smart_set',
      name: 'Smart set',
      parentId: 'nd_smart_campaign',
      status: 'ACTIVE',
      objective: 'WEB_CONVERSIONS',
      settings: {
        smartPlus: true,
        optimizationGoal: 'CONVERT',
        targeting: { countries: ['US'] },
        promotedObject: { pixelId: '7100000000000000001', customEventType: 'SHOPPING' },
      },
    },
    ad(1),
    ad(2),
  ];
}

describe('TikTok adapter: the Smart+ family against the strict fake', function () {
  let fake: FakeTikTokServer;
  let account: AdAccount;
  let adapter: TikTokAdapter;
  let ids: string[];
  let classicCampaign: string;
  const paths = () => fake.requests.map((r) => `${r.method} ${r.path.replace('/open_api/v1.3', '')}`);

  beforeEach(async () => {
    fake = await FakeTikTokServer.start();
    const advertiserId = `7${crypto.randomInt(10 ** 9, 10 ** 10)}${crypto.randomInt(10 ** 7, 10 ** 8)}`;
    account = {
      platform: 'tiktok',
      accountId: `biz_${advertiserId}`,
      timezone: 'UTC',
      currency: 'USD',
      accessToken: fake.addAdvertiser(advertiserId, { allowlisted: ['SMART_PLUS'] }),
      smartPlusAllowed: true,
    };
    adapter = new TikTokAdapter(testOutbound(), { baseUrl: fake.url, sleep: async () => {}, random: () => 0.5, timeoutMs: 2_000 });
    const video = await adapter.uploadCreative(account, mp4());
    ids = (await adapter.createObjects(account, smartLaunch({ type: 'video', ...video }))).map((r) => r.id);
    classicCampaign = fake.seedCampaign(advertiserId, { name: 'Classic', budget: 60 });
    fake.requests.length = 0;
  });
  afterEach(async () => fake?.close());

  it('checks Smart+ requests against the yml files of the SDK at a recorded commit', () => {
    expect(SMART_PLUS_SPEC.repository).to.equal('https://github.com/tiktok/tiktok-business-api-sdk');
    expect(SMART_PLUS_SPEC.commit).to.match(/^[0-9a-f]{40}$/);
    const campaign = SMART_PLUS_SPEC.endpoints['POST /smart_plus/campaign/create/'].params;
    expect(campaign.request_id).to.deep.equal({ type: 'string', required: true, convert: 'int64' });
    expect(campaign.budget_mode.enum).to.deep.equal(['BUDGET_MODE_DYNAMIC_DAILY_BUDGET', 'BUDGET_MODE_TOTAL']);
    expect(SMART_PLUS_SPEC.endpoints['GET /smart_plus/ad/get/'].params.page_size.maximum).to.equal(100);
    expect(SMART_PLUS_SPEC.endpoints['POST /smart_plus/ad/status/update/'].params.smart_plus_ad_ids).to.include({ required: true, maxItems: 20 });
  });

  it('creates the four objects through the Smart+ endpoints, the two ads one create each', () => {
    expect(fake.objectsOf(account.accountId.slice(4)).map((o) => `${o.level} ${o.smartPlus}`)).to.deep.equal([
      'campaign true',
      'adgroup true',
      'ad true',
      'ad true',
      'campaign undefined',
    ]);
  });

  it('setStatusEach over a classic and a Smart+ campaign sends each to its own endpoint; a Smart+ refusal answers that campaign only', async () => {
    fake.refuseStatusOf(ids[0], 'The campaign cannot be paused while it is in review.', false, ['DISABLE']);
    const out = await adapter.setStatusEach(
      account,
      [
        { level: 'campaign', id: classicCampaign },
        { level: 'campaign', id: ids[0] },
      ],
      'PAUSED',
    );
    expect(out[0]).to.equal(null);
    expect(out[1]?.message).to.equal('The campaign cannot be paused while it is in review.');
    const posts = paths().filter((p) => p.startsWith('POST'));
    expect(posts).to.deep.equal(['POST /campaign/status/update/', 'POST /smart_plus/campaign/status/update/']);
    expect(fake.objects.get(classicCampaign)!.operationStatus).to.equal('DISABLE');
  });

  it('findCreated, confirmRecorded and childrenOf find the Smart+ ad group and ads', async () => {
    const recorded = new Map([
      ['nd_smart_ad1', ids[2]],
      ['nd_smart_ad2', ids[3]],
    ]);
    const found = await adapter.findCreated(account, 'ad', ['nd_smart_ad1', 'nd_smart_ad2'], recorded);
    expect([...found.values()].map((r) => r.id)).to.deep.equal([ids[2], ids[3]]);
    expect([...(await adapter.confirmRecorded(account, 'adset', [ids[1]])).entries()]).to.deep.equal([[ids[1], 'held']]);
    expect(await adapter.childrenOf(account, 'adset', [ids[0]])).to.deep.equal([ids[1]]);
    expect((await adapter.childrenOf(account, 'ad', [ids[1]])).sort()).to.deep.equal([ids[2], ids[3]].sort());
    expect(
      paths().filter((p) => p.startsWith('POST')),
      'reads only',
    ).to.deep.equal([]);
  });

  it('updateObject of a Smart+ ad sends its name and texts to /smart_plus/ad/update/', async () => {
    await adapter.updateObject(account, { level: 'ad', id: ids[2] }, { name: 'Smart ad 1b', settings: { primaryText: 'Spring sale, last days' } });
    const [update] = fake.requestsTo('/smart_plus/ad/update/');
    expect(update.params).to.deep.equal({
      advertiser_id: account.accountId.slice(4),
      smart_plus_ad_id: ids[2],
      ad_name: 'Smart ad 1b',
      ad_text_list: [{ ad_text: 'Spring sale, last days' }],
    });
    expect(fake.objects.get(ids[2])!.name).to.equal('Smart ad 1b');
  });

  it('deleteObjects deletes each family through its own status endpoint', async () => {
    await adapter.deleteObjects(account, [
      { level: 'ad', id: ids[3] },
      { level: 'campaign', id: ids[0] },
      { level: 'campaign', id: classicCampaign },
    ]);
    const deletes = fake.requests.filter((r) => r.method === 'POST').map((r) => [r.path.replace('/open_api/v1.3', ''), r.params.operation_status]);
    expect(deletes).to.deep.equal([
      ['/smart_plus/ad/status/update/', 'DELETE'],
      ['/campaign/status/update/', 'DELETE'],
      ['/smart_plus/campaign/status/update/', 'DELETE'],
    ]);
    expect([ids[3], ids[0], classicCampaign].map((id) => fake.objects.get(id)!.deleted)).to.deep.equal([true, true, true]);
  });
});
