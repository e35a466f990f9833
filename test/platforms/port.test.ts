// The platform port's shared contract run against the sandbox and against the real Meta and TikTok
// adapters over their fake servers, then the faults only real platforms have: throttling, error
// codes, 5xx, slow answers and creates whose answer is lost, with the round trips they cost.

import crypto from 'node:crypto';
import { expect } from 'chai';
import { openDatabase, type Database } from '../../src/db/connection.js';
import { migrateLatest } from '../../src/db/migrate.js';
import {
  PlatformError,
  type AdAccount,
  type CreativeFile,
  type ObjectSpec,
  type PlatformAdapter,
  type PlatformName,
  type UploadedCreative,
} from '../../src/platforms/port.js';
import { SandboxPlatform, newPlatformId } from '../../src/platforms/sandbox/adapter.js';
import { seedObjects } from '../../src/platforms/sandbox/store.js';
import { MetaAdapter, type MetaAdapterOptions } from '../../src/platforms/meta/adapter.js';
import { TikTokAdapter, type TikTokAdapterOptions } from '../../src/platforms/tiktok/adapter.js';
import { liveAdapters } from '../../src/platforms/live.js';
import { loadConfig } from '../../src/config.js';
import { createTestDatabase, type TestDatabase } from '../helpers/databases.js';
import { rejectionOf } from '../helpers/assert.js';
import { FakeMetaServer, type MetaAssetEdge } from '../fakes/meta-server.js';
import { FakeTikTokServer } from '../fakes/tiktok-server.js';
import { adSpec, adsetSpec, campaignSpec, describePortSuite, type PortFixture, type SeedAssetType } from './port-suite.js';
import { testOutbound } from '../helpers/outbound.js';
import { makePng } from '../helpers/png.js';

const digits = (n: number) => Array.from({ length: n }, () => crypto.randomInt(10)).join('');
const DAY_MS = 86_400_000;
/** Midnight of 2030-01-15 in America/New_York. */
const SANDBOX_START = Date.parse('2030-01-15T05:00:00Z');
const DELIVERY_WINDOW = { since: '2030-01-15', until: '2030-01-16' };
const noSleep = async () => {};

async function platformErrorOf(promise: Promise<unknown>): Promise<PlatformError> {
  const err = await rejectionOf(promise);
  expect(err, String(err)).to.be.instanceOf(PlatformError);
  return err as unknown as PlatformError;
}

/**
 * The port suite against a live adapter over a fake platform server, started once for the block
 * `title` and closed after it; `setup` makes each test's fixture on it.
 */
function describePortSuiteOverFake<F extends { close(): Promise<void> }>(
  title: string,
  name: string,
  start: () => Promise<F>,
  setup: (fake: F) => Promise<PortFixture>,
): void {
  describe(title, function () {
    let fake: F;
    before(async () => {
      fake = await start();
    });
    after(async () => fake?.close());

    describePortSuite(name, () => setup(fake));
  });
}

/** Adapter options of the fault tests: waits recorded in `sleeps` instead of taken, no jitter, short timeout and backoff. */
const recordedWaits = (sleeps: number[]) => ({
  sleep: async (ms: number) => void sleeps.push(ms),
  random: () => 0.5,
  timeoutMs: 1_000,
  backoffBaseMs: 100,
  backoffMaxMs: 1_000,
});

describe('platform port on the sandbox', function () {
  let db: TestDatabase;
  let database: Database;
  before(async () => {
    db = await createTestDatabase('sqlite');
    database = openDatabase(db.url);
    await migrateLatest(database.knex);
  });
  after(async () => {
    await database?.knex.destroy();
    await db?.drop();
  });

  for (const platform of ['meta', 'tiktok'] as PlatformName[]) {
    describePortSuite(`sandbox (${platform})`, async () => {
      const knex = database.knex;
      let now = SANDBOX_START;
      const account: AdAccount = {
        platform,
        accountId: `${platform === 'meta' ? 'act_' : 'biz_'}${digits(12)}`,
        timezone: 'America/New_York',
        currency: 'USD',
        accessToken: null,
      };
      const asset = (kind: string, pageId: string | null, item: { id: string; name: string }) => ({
        account_id: account.accountId,
        kind,
        asset_id: item.id,
        page_id: pageId,
        name: item.name,
        payload: JSON.stringify({ ...item, accountId: account.accountId }),
      });
      return {
        adapter: new SandboxPlatform(platform, knex, () => now),
        account,
        async seedCampaigns(campaigns) {
          const seeded = campaigns.map((c) => ({
            platform,
            accountId: account.accountId,
            objectId: newPlatformId(platform),
            name: c.name,
            status: c.status,
            objective: c.objective,
            budget: c.budget ?? null,
          }));
          await knex.transaction((trx) => seedObjects(trx, seeded, [], now));
          return seeded.map((c) => c.objectId);
        },
        async seedAssets(type, items) {
          await knex('sandbox_assets').insert(items.map((item) => asset(type, null, item)));
        },
        async seedLeadForms(pageId, forms) {
          await knex('sandbox_assets').insert(forms.map((form) => asset('leadForms', pageId, form)));
        },
        async deliver() {
          now = SANDBOX_START + 3 * DAY_MS;
          return DELIVERY_WINDOW;
        },
        objectiveOf: (objective) => objective,
        capabilities: { pages: platform === 'meta', leadFormsPerPage: true },
        close: async () => {},
      } satisfies PortFixture;
    });
  }
});

const META_EDGES: Record<SeedAssetType, MetaAssetEdge> = {
  pixels: 'adspixels',
  pages: 'promote_pages',
  profileAccounts: 'instagram_accounts',
  audiences: 'customaudiences',
};

describePortSuiteOverFake(
  'platform port on the Meta adapter',
  'Meta Graph API (fake server)',
  () => FakeMetaServer.start(),
  async (fake) => {
    const accountId = `act_${digits(15)}`;
    const accessToken = fake.addAccount(accountId);
    return {
      adapter: new MetaAdapter(testOutbound(), { baseUrl: fake.url, sleep: noSleep, timeoutMs: 5_000 }),
      account: { platform: 'meta', accountId, timezone: 'America/New_York', currency: 'USD', accessToken },
      async seedCampaigns(campaigns) {
        return campaigns.map((c) =>
          fake.seedCampaign(accountId, {
            name: c.name,
            status: c.status,
            objective: c.objective,
            ...(c.budget?.period === 'daily' ? { dailyBudget: c.budget.amountMinorUnits } : {}),
            ...(c.budget?.period === 'lifetime' ? { lifetimeBudget: c.budget.amountMinorUnits } : {}),
          }),
        );
      },
      async seedAssets(type, items) {
        for (const item of items) {
          if (type === 'profileAccounts') fake.seedAsset(accountId, META_EDGES[type], { id: item.id, username: item.name });
          else if (type === 'audiences') fake.seedAsset(accountId, META_EDGES[type], { id: item.id, name: item.name, subtype: 'CUSTOM' });
          else fake.seedAsset(accountId, META_EDGES[type], { id: item.id, name: item.name });
        }
      },
      async seedLeadForms(pageId, forms) {
        for (const form of forms) fake.seedLeadForm(pageId, form);
      },
      async deliver(ids) {
        ids.forEach((id, i) => {
          fake.seedStats(id, DELIVERY_WINDOW.since, { spendMinor: 1234 + i, impressions: 5000, clicks: 61, results: 3, revenueMinor: 8999 });
          fake.seedStats(id, DELIVERY_WINDOW.until, { spendMinor: 4321, impressions: 4000 + i, clicks: 40, results: 1, revenueMinor: 2999 });
        });
        return DELIVERY_WINDOW;
      },
      objectiveOf: (objective) => objective,
      capabilities: { pages: true, leadFormsPerPage: true, unknownIsUndecided: true },
      close: async () => {},
    } satisfies PortFixture;
  },
);

const TIKTOK_OBJECTIVES: Record<string, string> = { OUTCOME_TRAFFIC: 'TRAFFIC', OUTCOME_SALES: 'WEB_CONVERSIONS' };

/** A real PNG as the publish hands it to uploadCreative. */
function pngCreative(name = 'hero.png'): CreativeFile {
  const bytes = makePng(1080, 1080);
  return { creativeId: 7, type: 'image', name, mime: 'image/png', bytes, width: 1080, height: 1080, md5: crypto.createHash('md5').update(bytes).digest('hex') };
}

/**
 * The port suite's ad specs carry no creative (a Meta link ad needs none); a TikTok ad needs one, so,
 * as the publish does before an account's ads, the fixture uploads an image once through the adapter
 * and gives it to the suite's ads that have none. The suite's ads are images, which TikTok runs only
 * outside its in-feed placement: its ad groups without placements are placed on Pangle.
 */
function withUploadedImage(adapter: TikTokAdapter): PlatformAdapter {
  let image: Promise<UploadedCreative> | null = null;
  const wrapped: PlatformAdapter = Object.create(adapter);
  wrapped.createObjects = async (account, specs) => {
    if (specs.some((s) => s.level === 'ad' && !s.creative)) {
      const uploaded = await (image ??= adapter.uploadCreative(account, pngCreative()));
      specs = specs.map((s) => (s.level === 'ad' && !s.creative ? { ...s, creative: { type: 'image', ref: uploaded.ref, thumbnailRef: null } } : s));
    }
    specs = specs.map((s) =>
      s.level === 'adset' && !s.settings.placements ? { ...s, settings: { ...s.settings, placements: { positions: ['PLACEMENT_PANGLE'] } } } : s,
    );
    return adapter.createObjects(account, specs);
  };
  return wrapped;
}

describePortSuiteOverFake(
  'platform port on the TikTok adapter',
  'TikTok Business API (fake server)',
  () => FakeTikTokServer.start(),
  async (fake) => {
    const advertiserId = `7${digits(18)}`;
    const accessToken = fake.addAdvertiser(advertiserId);
    return {
      adapter: withUploadedImage(new TikTokAdapter(testOutbound(), { baseUrl: fake.url, sleep: noSleep, timeoutMs: 5_000 })),
      account: {
        platform: 'tiktok',
        accountId: `biz_${advertiserId}`,
        timezone: 'America/New_York',
        currency: 'USD',
        accessToken,
        identityId: '7000000000000000001',
        identityType: 'CUSTOMIZED_USER',
        brandName: 'Port Suite Brand',
      },
      async seedCampaigns(campaigns) {
        return campaigns.map((c) =>
          fake.seedCampaign(advertiserId, {
            name: c.name,
            operationStatus: c.status === 'ACTIVE' ? 'ENABLE' : 'DISABLE',
            objectiveType: TIKTOK_OBJECTIVES[c.objective] ?? c.objective,
            budgetMode: c.budget ? (c.budget.period === 'daily' ? 'BUDGET_MODE_DAY' : 'BUDGET_MODE_TOTAL') : 'BUDGET_MODE_INFINITE',
            budget: c.budget ? c.budget.amountMinorUnits / 100 : 0,
          }),
        );
      },
      async seedAssets(type, items) {
        for (const item of items) {
          if (type === 'pixels') fake.seedAsset(advertiserId, 'pixels', { pixel_id: item.id, pixel_name: item.name });
          else if (type === 'profileAccounts')
            fake.seedAsset(advertiserId, 'identities', { identity_id: item.id, identity_type: 'CUSTOMIZED_USER', display_name: item.name });
          else if (type === 'audiences') fake.seedAsset(advertiserId, 'audiences', { audience_id: item.id, name: item.name, audience_type: 'CUSTOMER_FILE' });
          else throw new Error('TikTok ad accounts have no pages');
        }
      },
      async seedLeadForms(_pageId, forms) {
        for (const form of forms) fake.seedLeadForm(advertiserId, { page_id: form.id, title: form.name });
      },
      async deliver(ids) {
        ids.forEach((id, i) => {
          fake.seedStats(id, DELIVERY_WINDOW.since, { spendMinor: 2210 + i, impressions: 7000, clicks: 90, conversions: 4, revenueMinor: 15000 });
          fake.seedStats(id, DELIVERY_WINDOW.until, { spendMinor: 10, impressions: 100 + i, clicks: 1, conversions: 0, revenueMinor: 0 });
        });
        return DELIVERY_WINDOW;
      },
      objectiveOf: (objective) => TIKTOK_OBJECTIVES[objective] ?? objective,
      capabilities: { pages: false, leadFormsPerPage: false, lifetimeCampaignBudget: false },
      close: async () => {},
    } satisfies PortFixture;
  },
);

describe('Meta adapter against the fake Graph API: batching and faults', function () {
  let fake: FakeMetaServer;
  let sleeps: number[];
  let account: AdAccount;
  const adapter = (options: Partial<MetaAdapterOptions> = {}) => new MetaAdapter(testOutbound(), { baseUrl: fake.url, ...recordedWaits(sleeps), ...options });

  beforeEach(async () => {
    fake = await FakeMetaServer.start();
    sleeps = [];
    const accountId = `act_${digits(15)}`;
    account = { platform: 'meta', accountId, timezone: 'America/New_York', currency: 'USD', accessToken: fake.addAccount(accountId) };
    fake.seedCampaign(accountId, { name: 'Existing', status: 'ACTIVE' });
  });
  afterEach(async () => fake?.close());

  it('publishes 1 campaign × 50 ad sets × 10 ads in at most 30 round trips, in batches of at most 50, parents first', async () => {
    const campaign = campaignSpec('Bench');
    const adsets = Array.from({ length: 50 }, (_, i) => adsetSpec(campaign.marker, `Set ${i}`, { budget: { period: 'daily', amountMinorUnits: 1000 } }));
    const ads = adsets.flatMap((s, i) => Array.from({ length: 10 }, (_, j) => adSpec(s.marker, `Ad ${i}.${j}`)));
    const specs = [{ ...campaign, budget: null }, ...adsets, ...ads];
    const refs = await adapter().createObjects(account, specs);
    expect(refs).to.have.length(551);
    expect(fake.roundTrips).to.be.at.most(30);
    expect(fake.requests.every((r) => (r.batch ?? 1) <= 50)).to.equal(true);
    const created = fake.objectsOf(account.accountId);
    expect([created.filter((o) => o.level === 'adset').length, created.filter((o) => o.level === 'ad').length]).to.deep.equal([50, 500]);
    const campaignId = refs[0].id;
    for (let i = 0; i < 50; i++) {
      const set = fake.objects.get(refs[1 + i].id)!;
      expect([set.level, set.parentId]).to.deep.equal(['adset', campaignId]);
      for (let j = 0; j < 10; j++) expect(fake.objects.get(refs[51 + i * 10 + j].id)!.parentId).to.equal(set.id);
    }
  });

  for (const code of [4, 17, 32, 613, 80000, 80004]) {
    it(`waits a short throttle of code ${code} as X-Ad-Account-Usage tells, then retries once and succeeds`, async () => {
      fake.throttleNext(1, { code, seconds: 10 });
      const page = await adapter().listCampaigns(account, { limit: 10 });
      expect(page.campaigns.map((c) => c.name)).to.deep.equal(['Existing']);
      expect(sleeps).to.deep.equal([10_000]);
      expect(fake.roundTrips).to.equal(2);
    });

    it(`answers a throttle of code ${code} longer than the call has left at once, with retryAfterMs`, async () => {
      fake.throttleNext(1, { code, minutes: 1 });
      const err = await platformErrorOf(adapter().listCampaigns(account, { limit: 10 }));
      expect(err.kind).to.equal('throttled');
      expect(err.extra).to.include({ retryAfterMs: 60_000, platformCode: code });
      expect(sleeps).to.deep.equal([]);
      expect(fake.roundTrips).to.equal(1);
    });
  }

  it('reports throttled with the platform wait when it is longer than the adapter waits in place', async () => {
    fake.throttleNext(1, { code: 80004, minutes: 5 });
    const err = await platformErrorOf(adapter().listCampaigns(account, { limit: 10 }));
    expect(err.kind).to.equal('throttled');
    expect(err.extra).to.include({ retryAfterMs: 300_000, platformCode: 80004 });
    expect(sleeps).to.deep.equal([]);
    expect(fake.roundTrips).to.equal(1);
  });

  for (const code of [1, 2]) {
    it(`retries code ${code} with jittered backoff, then succeeds`, async () => {
      fake.errorNext(2, { code });
      const page = await adapter().listCampaigns(account, { limit: 10 });
      expect(page.matched).to.equal(1);
      expect(sleeps).to.deep.equal([75, 150]);
      expect(fake.roundTrips).to.equal(3);
    });
  }

  it('caps the backoff and reports transient when code 1 persists past the attempts', async () => {
    fake.errorNext(10, { code: 1 });
    const err = await platformErrorOf(adapter({ backoffMaxMs: 200 }).listCampaigns(account, { limit: 10 }));
    expect(err.kind).to.equal('transient');
    expect(sleeps).to.deep.equal([75, 150, 150]);
    expect(fake.roundTrips).to.equal(4);
  });

  it('never retries code 100 and maps it to invalid_request naming the field', async () => {
    fake.errorNext(1, { code: 100, message: '(#100) Param daily_budget must be at least 100', errorData: { blame_field_specs: [['daily_budget']] } });
    const err = await platformErrorOf(adapter().listCampaigns(account, { limit: 10 }));
    expect(err.kind).to.equal('invalid_request');
    expect(err.extra).to.include({ field: 'daily_budget', platformCode: 100 });
    expect(fake.roundTrips).to.equal(1);
    expect(sleeps).to.deep.equal([]);
  });

  it('refuses a create the platform rejects with invalid_request naming the field, sent once', async () => {
    const err = await platformErrorOf(adapter().createObjects(account, [adsetSpec('120200000000000001', 'Orphan')]));
    expect(err.kind).to.equal('invalid_request');
    expect(err.extra).to.include({ field: 'campaign_id', platformCode: 100 });
    expect(fake.roundTrips).to.equal(1);
    expect(fake.objectsOf(account.accountId, 'adset')).to.have.length(0);
  });

  it('never retries code 190 and maps it to authentication', async () => {
    const err = await platformErrorOf(adapter().listCampaigns({ ...account, accessToken: 'EAAB-expired' }, { limit: 10 }));
    expect(err.kind).to.equal('authentication');
    expect(err.extra.platformCode).to.equal(190);
    expect(fake.roundTrips).to.equal(1);
  });

  it('answers authentication without calling the platform when the account has no token', async () => {
    const err = await platformErrorOf(adapter().listCampaigns({ ...account, accessToken: null }, { limit: 10 }));
    expect(err.kind).to.equal('authentication');
    expect(fake.roundTrips).to.equal(0);
  });

  it('maps "object does not exist" (100/33) to not_found', async () => {
    const err = await platformErrorOf(adapter().listLeadForms(account, '555000111', null, 10));
    expect(err.kind).to.equal('not_found');
    expect(fake.roundTrips).to.equal(1);
  });

  it('retries 5xx answers, then succeeds', async () => {
    fake.serverErrorNext(2, 503);
    const page = await adapter().listCampaigns(account, { limit: 10 });
    expect(page.matched).to.equal(1);
    expect(sleeps).to.deep.equal([75, 150]);
    expect(fake.roundTrips).to.equal(3);
  });

  it('reports transient when 5xx answers persist', async () => {
    fake.serverErrorNext(10, 502);
    const err = await platformErrorOf(adapter().listCampaigns(account, { limit: 10 }));
    expect(err.kind).to.equal('transient');
    expect(fake.roundTrips).to.equal(4);
  });

  it('gives up on a slow answer at the timeout and reports transient', async () => {
    fake.delayMs = 1_000;
    const started = Date.now();
    const err = await platformErrorOf(adapter({ timeoutMs: 100, maxAttempts: 2 }).listCampaigns(account, { limit: 10 }));
    expect(err.kind).to.equal('transient');
    expect(err.message).to.match(/did not answer within 100 ms/);
    expect(fake.roundTrips).to.equal(2);
    expect(Date.now() - started).to.be.below(900);
  });

  it('reconciles a create whose answer was dropped: one object on the platform, with the id returned', async () => {
    fake.dropNextCreate();
    const spec = campaignSpec('Dropped');
    const [ref] = await adapter().createObjects(account, [spec]);
    const created = fake.objectsOf(account.accountId, 'campaign').filter((o) => fake.labelNamesOf(o).includes(`svc:${spec.marker}`));
    expect(created.map((o) => o.id)).to.deep.equal([ref.id]);
    // The create whose answer was lost, then the lookup: the account's labels and the campaigns carrying the marker's label.
    expect(fake.roundTrips).to.equal(3);
  });

  it('reconciles a dropped batch of many creates without creating any of them twice', async () => {
    const [c] = await adapter().createObjects(account, [campaignSpec('Parent', { budget: null })]);
    fake.dropNextCreate();
    const specs = Array.from({ length: 20 }, (_, i) => adsetSpec(c.id, `Set ${i}`, { budget: { period: 'daily', amountMinorUnits: 1500 } }));
    const refs = await adapter().createObjects(account, specs);
    const sets = fake.objectsOf(account.accountId, 'adset');
    expect(sets).to.have.length(20);
    specs.forEach((spec, i) => expect(sets.find((o) => fake.labelNamesOf(o).includes(`svc:${spec.marker}`))?.id).to.equal(refs[i].id));
  });

  it('sends again only the requests of a batch that were throttled on their own, after the wait', async () => {
    const specs = [campaignSpec('One'), campaignSpec('Two'), campaignSpec('Three')];
    fake.throttleNextItems(1, 0.2);
    const refs = await adapter().createObjects(account, specs);
    const created = fake.objectsOf(account.accountId, 'campaign').slice(1);
    expect(created).to.have.length(3);
    specs.forEach((spec, i) => expect(created.find((o) => fake.labelNamesOf(o).includes(`svc:${spec.marker}`))?.id).to.equal(refs[i].id));
    expect(sleeps).to.deep.equal([12_000]);
    // The create batch, the retried item.
    expect(fake.requests.map((r) => r.batch)).to.deep.equal([3, 1]);
  });

  it('reconciles a create that timed out while the platform applied it', async () => {
    fake.slowNext(1, 800);
    const spec = campaignSpec('Slow create');
    const [ref] = await adapter({ timeoutMs: 200 }).createObjects(account, [spec]);
    const created = fake.objectsOf(account.accountId, 'campaign').filter((o) => fake.labelNamesOf(o).includes(`svc:${spec.marker}`));
    expect(created.map((o) => o.id)).to.deep.equal([ref.id]);
    expect(sleeps).to.deep.equal([75]);
  });

  it('counts spend and purchase values exactly in minor units, and each purchase once', async () => {
    const ids = [fake.seedCampaign(account.accountId, { name: 'A' }), fake.seedCampaign(account.accountId, { name: 'B' })];
    fake.seedStats(ids[0], '2030-02-01', { spendMinor: 10, impressions: 100, clicks: 3, results: 2, revenueMinor: 4599 });
    fake.seedStats(ids[1], '2030-02-01', { spendMinor: 20, impressions: 50, clicks: 1, results: 1, revenueMinor: 1 });
    const insights = await adapter().insights(account, ids, { since: '2030-02-01', until: '2030-02-01' });
    expect(insights).to.deep.equal({ spendMinorUnits: 30, impressions: 150, clicks: 4, results: 3, revenueMinorUnits: 4600 });
    expect(fake.roundTrips).to.equal(1);
  });

  it('reads amounts of a zero-decimal currency as whole minor units', async () => {
    const accountId = `act_${digits(15)}`;
    const yen: AdAccount = {
      platform: 'meta',
      accountId,
      timezone: 'Asia/Tokyo',
      currency: 'JPY',
      accessToken: fake.addAccount(accountId, { currency: 'JPY' }),
    };
    const id = fake.seedCampaign(accountId, { name: 'Yen', dailyBudget: 5000 });
    fake.seedStats(id, '2030-02-01', { spendMinor: 1234, impressions: 1, clicks: 0, results: 0, revenueMinor: 0 });
    expect((await adapter().insights(yen, [id], { since: '2030-02-01', until: '2030-02-01' })).spendMinorUnits).to.equal(1234);
    expect((await adapter().listCampaigns(yen, { limit: 10 })).campaigns[0].budget).to.deep.equal({ period: 'daily', amountMinorUnits: 5000 });
  });

  it('renames an object to exactly the name given, keeping its marker label, and answers not_found for an object of another account', async () => {
    const spec = campaignSpec('Before');
    const [ref] = await adapter().createObjects(account, [spec]);
    await adapter().updateObject(account, ref, { name: 'After' });
    expect(fake.objects.get(ref.id)!.name).to.equal('After');
    expect(fake.labelNamesOf(fake.objects.get(ref.id)!)).to.deep.equal([`svc:${spec.marker}`]);
    expect((await adapter().findCreated(account, 'campaign', [spec.marker])).get(spec.marker)).to.deep.equal(ref);
    const otherId = `act_${digits(15)}`;
    const other: AdAccount = { ...account, accountId: otherId };
    fake.addAccount(otherId, { token: account.accessToken! });
    const err = await platformErrorOf(adapter().setStatus(other, [ref], 'ACTIVE'));
    expect(err.kind).to.equal('not_found');
    expect(fake.objects.get(ref.id)!.status).to.equal('PAUSED');
  });

  it('sets statuses object by object in Graph batches: a write throttled past the waits fails alone and the others change', async () => {
    const refs = await adapter().createObjects(
      account,
      Array.from({ length: 3 }, (_, i) => campaignSpec(`Each ${i}`)),
    );
    fake.requests.length = 0;
    fake.throttleWritesTo(refs[1].id, 5);
    const outcomes = await adapter().setStatusEach(account, refs, 'ACTIVE');
    expect(outcomes[0]).to.equal(null);
    expect(outcomes[1]?.kind).to.equal('throttled');
    expect(outcomes[2]).to.equal(null);
    // One batch of ownership reads, one of writes; a five-minute wait is longer than the adapter serves in place.
    expect(fake.requests.map((r) => r.batch)).to.deep.equal([3, 3]);
    expect(refs.map((r) => fake.objects.get(r.id)!.status)).to.deep.equal(['ACTIVE', 'PAUSED', 'ACTIVE']);
  });

  it('sends again only the status write throttled on its own, after the wait Graph gives', async () => {
    const refs = await adapter().createObjects(
      account,
      Array.from({ length: 3 }, (_, i) => campaignSpec(`Again ${i}`)),
    );
    fake.requests.length = 0;
    sleeps.length = 0;
    fake.throttleWritesTo(refs[2].id, 0.2, 1);
    expect(await adapter().setStatusEach(account, refs, 'ACTIVE')).to.deep.equal([null, null, null]);
    expect(sleeps).to.deep.equal([12_000]);
    expect(fake.requests.map((r) => r.batch)).to.deep.equal([3, 3, 1]);
    expect(refs.map((r) => fake.objects.get(r.id)!.status)).to.deep.equal(['ACTIVE', 'ACTIVE', 'ACTIVE']);
  });

  it('builds both live adapters from the configuration', async () => {
    const factory = liveAdapters({ ...loadConfig({}), metaGraphUrl: fake.url }, testOutbound(), { sleep: noSleep });
    const meta = factory('meta');
    expect(meta.platform).to.equal('meta');
    expect(factory('meta')).to.equal(meta);
    expect(factory('tiktok').platform).to.equal('tiktok');
    expect((await meta.listCampaigns(account, { limit: 10 })).campaigns.map((c) => c.name)).to.deep.equal(['Existing']);
  });
});

describe('TikTok adapter against the fake Business API: bulk calls and faults', function () {
  let fake: FakeTikTokServer;
  let sleeps: number[];
  let advertiserId: string;
  let account: AdAccount;
  /** An ad group of image ads: placed outside TikTok's in-feed placement, where TikTok runs images. */
  const tokSet = (parentId: string, name: string, overrides: Partial<ObjectSpec> = {}): ObjectSpec => {
    const spec = adsetSpec(parentId, name, overrides);
    return { ...spec, settings: { ...spec.settings, placements: { positions: ['PLACEMENT_PANGLE'] } } };
  };
  const adapter = (options: Partial<TikTokAdapterOptions> = {}) =>
    new TikTokAdapter(testOutbound(), { baseUrl: fake.url, ...recordedWaits(sleeps), throttleWaitMs: 2_000, ...options });
  const withCurrency = (currency: string): AdAccount => {
    const id = `7${digits(18)}`;
    return {
      platform: 'tiktok',
      accountId: `biz_${id}`,
      timezone: 'UTC',
      currency,
      accessToken: fake.addAdvertiser(id, { currency }),
      identityId: '7000000000000000001',
      identityType: 'CUSTOMIZED_USER',
      brandName: 'Bulk Brand',
    };
  };

  beforeEach(async () => {
    fake = await FakeTikTokServer.start();
    sleeps = [];
    advertiserId = `7${digits(18)}`;
    account = {
      platform: 'tiktok',
      accountId: `biz_${advertiserId}`,
      timezone: 'America/New_York',
      currency: 'USD',
      accessToken: fake.addAdvertiser(advertiserId),
      identityId: '7000000000000000001',
      identityType: 'CUSTOMIZED_USER',
      brandName: 'Bulk Brand',
    };
    fake.seedCampaign(advertiserId, { name: 'Existing' });
  });
  afterEach(async () => fake?.close());

  it('creates the ads of one ad group in bulk, up to 20 per /ad/create/ call', async () => {
    const image = await adapter().uploadCreative(account, pngCreative());
    const creative = { type: 'image' as const, ref: image.ref, thumbnailRef: null };
    fake.requests.length = 0;
    const campaign = campaignSpec('Bulk');
    const sets = [
      tokSet(campaign.marker, 'A', { budget: { period: 'daily', amountMinorUnits: 2000 } }),
      tokSet(campaign.marker, 'B', { budget: { period: 'daily', amountMinorUnits: 2000 } }),
    ];
    const ads = [
      ...Array.from({ length: 25 }, (_, i) => adSpec(sets[0].marker, `A${i}`, { creative })),
      ...Array.from({ length: 3 }, (_, i) => adSpec(sets[1].marker, `B${i}`, { creative })),
    ];
    const refs = await adapter().createObjects(account, [{ ...campaign, budget: null }, ...sets, ...ads]);
    expect(refs).to.have.length(31);
    expect(fake.requests.map((r) => r.path.replace(/^.*v1\.3/, ''))).to.deep.equal([
      '/campaign/create/',
      '/tool/region/',
      '/adgroup/create/',
      '/adgroup/create/',
      '/ad/create/',
      '/ad/create/',
      '/ad/create/',
    ]);
    const stored = fake.objectsOf(advertiserId, 'ad');
    expect(stored.filter((o) => o.parentId === refs[1].id)).to.have.length(25);
    expect(stored.filter((o) => o.parentId === refs[2].id)).to.have.length(3);
  });

  it('converts budgets exactly between minor units and currency units, per currency', async () => {
    const [usd] = await adapter().createObjects(account, [campaignSpec('USD', { budget: { period: 'daily', amountMinorUnits: 5010 } })]);
    expect(fake.objects.get(usd.id)!.budget).to.equal(50.1);
    await adapter().setBudget(account, usd, { period: 'daily', amountMinorUnits: 5099 });
    expect([fake.objects.get(usd.id)!.budget, fake.objects.get(usd.id)!.budgetMode]).to.deep.equal([50.99, 'BUDGET_MODE_DAY']);
    // Amounts over TikTok's USD 50 campaign minimum in each currency (the fake's rates: ¥7,576, KWD 15.385).
    const jpy = withCurrency('JPY');
    const [yen] = await adapter().createObjects(jpy, [campaignSpec('JPY', { budget: { period: 'daily', amountMinorUnits: 8000 } })]);
    expect(fake.objects.get(yen.id)!.budget).to.equal(8000);
    expect((await adapter().listCampaigns(jpy, { limit: 10 })).campaigns[0].budget).to.deep.equal({ period: 'daily', amountMinorUnits: 8000 });
    const kwd = withCurrency('KWD');
    const [dinar] = await adapter().createObjects(kwd, [campaignSpec('KWD', { budget: { period: 'daily', amountMinorUnits: 16345 } })]);
    expect(fake.objects.get(dinar.id)!.budget).to.equal(16.345);
    expect((await adapter().listCampaigns(kwd, { limit: 10 })).campaigns[0].budget).to.deep.equal({ period: 'daily', amountMinorUnits: 16345 });
  });

  it('sums report spend in minor units without floating-point drift', async () => {
    const ids = [fake.seedCampaign(advertiserId, { name: 'A' }), fake.seedCampaign(advertiserId, { name: 'B' })];
    fake.seedStats(ids[0], '2030-02-01', { spendMinor: 10, impressions: 100, clicks: 3, conversions: 2, revenueMinor: 4599 });
    fake.seedStats(ids[1], '2030-02-01', { spendMinor: 20, impressions: 50, clicks: 1, conversions: 1, revenueMinor: 1 });
    const insights = await adapter().insights(account, ids, { since: '2030-02-01', until: '2030-02-01' });
    expect(insights).to.deep.equal({ spendMinorUnits: 30, impressions: 150, clicks: 4, results: 3, revenueMinorUnits: 4600 });
  });

  it('waits and retries after rate-limit code 40100, then succeeds', async () => {
    fake.throttleNext(1);
    const page = await adapter().listCampaigns(account, { limit: 10 });
    expect(page.campaigns.map((c) => c.name)).to.deep.equal(['Existing']);
    expect(sleeps).to.deep.equal([2_000]);
    expect(fake.roundTrips).to.equal(2);
  });

  it('waits as Retry-After tells after HTTP 429, then succeeds', async () => {
    fake.throttleNext(1, { http429: true, retryAfterSeconds: 7 });
    expect((await adapter().listCampaigns(account, { limit: 10 })).matched).to.equal(1);
    expect(sleeps).to.deep.equal([7_000]);
  });

  it('reports throttled with retryAfterMs when rate limiting persists', async () => {
    fake.throttleNext(10);
    const err = await platformErrorOf(adapter().listCampaigns(account, { limit: 10 }));
    expect(err.kind).to.equal('throttled');
    expect(err.extra).to.include({ retryAfterMs: 2_000, platformCode: 40100 });
    // A throttle is waited once and the call retried once (live-http.ts), then reported.
    expect(fake.roundTrips).to.equal(2);
  });

  for (const code of [40001, 40104, 40105]) {
    it(`never retries auth code ${code} and maps it to authentication`, async () => {
      fake.codeNext(1, code, 'Access token is incorrect or has been revoked.');
      const err = await platformErrorOf(adapter().listCampaigns(account, { limit: 10 }));
      expect(err.kind).to.equal('authentication');
      expect(err.extra.platformCode).to.equal(code);
      expect(fake.roundTrips).to.equal(1);
    });
  }

  it('sets statuses in bulk, 20 ids per call; ids the answer lists in failures stay as they were and the others change', async () => {
    const campaigns = Array.from({ length: 22 }, (_, i) => fake.seedCampaign(advertiserId, { name: `Bulk ${i}`, operationStatus: 'ENABLE' }));
    fake.refuseStatusOf(campaigns[3], 'The campaign is in review and cannot be disabled.');
    fake.requests.length = 0;
    const outcomes = await adapter().setStatusEach(
      account,
      campaigns.map((id) => ({ level: 'campaign', id })),
      'PAUSED',
    );
    expect(fake.requests.map((r) => r.path.replace(/^.*v1\.3/, ''))).to.deep.equal(['/campaign/status/update/', '/campaign/status/update/']);
    expect(outcomes.filter((o) => o !== null)).to.have.length(1);
    expect(outcomes[3]).to.include({ kind: 'invalid_request', message: 'The campaign is in review and cannot be disabled.' });
    expect(campaigns.map((id) => fake.objects.get(id)!.operationStatus)).to.deep.equal(campaigns.map((_id, i) => (i === 3 ? 'ENABLE' : 'DISABLE')));
  });

  it('never retries a refused parameter (40002) and names the field', async () => {
    const err = await platformErrorOf(adapter().createObjects(account, [campaignSpec('x'.repeat(600))]));
    expect(err.kind).to.equal('invalid_request');
    expect(err.extra).to.include({ field: 'campaign_name', platformCode: 40002 });
    expect(fake.roundTrips).to.equal(1);
    expect(fake.objectsOf(advertiserId, 'campaign')).to.have.length(1);
  });

  it('maps a wrong access token to authentication without retrying', async () => {
    const err = await platformErrorOf(adapter().listCampaigns({ ...account, accessToken: 'revoked' }, { limit: 10 }));
    expect(err.kind).to.equal('authentication');
    expect(err.extra.platformCode).to.equal(40105);
    expect(fake.roundTrips).to.equal(1);
  });

  it('retries system errors (50000) with backoff, then succeeds', async () => {
    fake.codeNext(2, 50000, 'System error, please try again later.');
    expect((await adapter().listCampaigns(account, { limit: 10 })).matched).to.equal(1);
    expect(sleeps).to.deep.equal([75, 150]);
    expect(fake.roundTrips).to.equal(3);
  });

  it('retries 5xx answers, then reports transient when they persist', async () => {
    fake.serverErrorNext(2);
    expect((await adapter().listCampaigns(account, { limit: 10 })).matched).to.equal(1);
    fake.serverErrorNext(10);
    const err = await platformErrorOf(adapter().listCampaigns(account, { limit: 10 }));
    expect(err.kind).to.equal('transient');
    expect(fake.roundTrips).to.equal(3 + 4);
  });

  it('gives up on a slow answer at the timeout and reports transient', async () => {
    fake.delayMs = 1_000;
    const err = await platformErrorOf(adapter({ timeoutMs: 100, maxAttempts: 2 }).listCampaigns(account, { limit: 10 }));
    expect(err.kind).to.equal('transient');
    expect(err.message).to.match(/did not answer within 100 ms/);
    expect(fake.roundTrips).to.equal(2);
  });

  it('reconciles a campaign create whose answer was dropped: sent again with the same request_id, exactly one campaign', async () => {
    fake.dropNextCreate();
    const spec = campaignSpec('Dropped');
    const [ref] = await adapter().createObjects(account, [spec]);
    const created = fake.objectsOf(advertiserId, 'campaign').filter((o) => o.name === 'Dropped');
    expect(created.map((o) => o.id)).to.deep.equal([ref.id]);
    expect(fake.requestsTo('/campaign/create/').map((r) => r.params.request_id)).to.deep.equal([spec.marker, spec.marker]);
    expect(fake.roundTrips).to.equal(2);
  });

  it('reconciles a bulk ad create whose answer was dropped: each ad exactly once, found in its ad group', async () => {
    const image = await adapter().uploadCreative(account, pngCreative());
    const creative = { type: 'image' as const, ref: image.ref, thumbnailRef: null };
    const [c] = await adapter().createObjects(account, [campaignSpec('Parent', { budget: null })]);
    const [s] = await adapter().createObjects(account, [tokSet(c.id, 'Set', { budget: { period: 'daily', amountMinorUnits: 2000 } })]);
    fake.dropNextCreate();
    const specs = Array.from({ length: 5 }, (_, i) => adSpec(s.id, `Ad ${i}`, { creative }));
    const refs = await adapter().createObjects(account, specs);
    const ads = fake.objectsOf(advertiserId, 'ad');
    expect(ads).to.have.length(5);
    specs.forEach((spec, i) => expect(ads.find((o) => o.name === spec.name)?.id).to.equal(refs[i].id));
  });

  it('answers capability_unsupported for creative objects, which TikTok ads carry themselves', async () => {
    const spec: ObjectSpec = { ...campaignSpec('Creative'), level: 'creative' };
    const err = await platformErrorOf(adapter().createObjects(account, [spec]));
    expect(err.kind).to.equal('capability_unsupported');
    expect(fake.roundTrips).to.equal(0);
  });
});
