// A publish abandoned past its deadline pauses every object it recorded; an object Meta cannot look
// up (error 100 subcode 33: "does not exist, cannot be loaded due to missing permissions", which a
// token that lost its permission gets too) is not proof that the object is gone
// (live-platforms.md, "Error 100 subcode 33"): it is named as not confirmed paused and the ceiling's
// reservation stays counted (what may still spend stays counted). The real Meta adapter against the
// fake Graph API (test/fakes/meta-server.ts, its losePermissionOn switch), on both dialects.

import { expect } from 'chai';
import pino from 'pino';
import type { Principal } from '../../src/auth/principal.js';
import { activityRecorder } from '../../src/activity/recorder.js';
import { applyBootstrap } from '../../src/bootstrap.js';
import { loadConfig } from '../../src/config.js';
import { abandonPublish, type PublishContext, type PublishPlan } from '../../src/launches/publish.js';
import {
  claimForPublishing,
  commitmentsOf,
  insertCommitments,
  insertLaunch,
  insertNodes,
  loadNodes,
  publishRecordOf,
  recordPlatformIds,
  type NodeRow,
} from '../../src/launches/store.js';
import { MetaAdapter } from '../../src/platforms/meta/adapter.js';
import type { BrandAdAccount } from '../../src/platforms/registry.js';
import { loadSchemaFiles, SchemaRegistry } from '../../src/schemas/registry.js';
import { FakeMetaServer } from '../fakes/meta-server.js';
import { dialects, migratedDatabase, type MigratedDatabase } from '../helpers/databases.js';
import { exampleWorld } from '../helpers/launches.js';
import { testOutbound } from '../helpers/outbound.js';

interface Abandoned {
  launchId: number;
  campaignPlatformId: string;
  adsetPlatformId: string;
  ctx: PublishContext;
  plan: PublishPlan;
}

/**
 * A launch of one campaign and one ad set that a publish created on the fake Meta (both ACTIVE, both
 * recorded), claimed for publishing with its amount reserved against the key's ceiling.
 */
async function createdOnMeta(db: MigratedDatabase, fake: FakeMetaServer): Promise<Abandoned> {
  const knex = db.knex;
  const seed = await applyBootstrap(knex, new SchemaRegistry(loadSchemaFiles()), exampleWorld(500));
  const org = seed.organizations.acme;
  const brandId = org.brands.shoes.id;
  const account: BrandAdAccount = {
    platform: 'meta',
    accountId: 'act_1001',
    timezone: 'UTC',
    currency: 'USD',
    accessToken: fake.addAccount('act_1001'),
    name: null,
    active: true,
  };
  const meta = new MetaAdapter(testOutbound(), { baseUrl: fake.url, sleep: async () => {}, random: () => 0, timeoutMs: 5_000 });
  const [campaign, adset] = await meta.createObjects(account, [
    {
      level: 'campaign',
      marker: 'nd_campaign',
      name: 'Spring',
      parentId: null,
      status: 'ACTIVE',
      objective: 'OUTCOME_TRAFFIC',
      budget: { period: 'daily', amountMinorUnits: 5000 },
      settings: {},
    },
    {
      level: 'adset',
      marker: 'nd_set',
      name: 'US',
      parentId: 'nd_campaign',
      status: 'ACTIVE',
      budget: null,
      settings: {
        optimizationGoal: 'LINK_CLICKS',
        billingEvent: 'IMPRESSIONS',
        targeting: { countries: ['US'], ageMin: 18, ageMax: 65 },
        schedule: { startTime: '2030-01-01T00:00:00Z' },
      },
    },
  ]);
  const now = Date.now();
  const launchId = await insertLaunch(knex, {
    organizationId: org.id,
    brandId,
    accountId: account.accountId,
    title: 'Abandoned',
    description: null,
    status: 'draft',
    createdAt: now,
    updatedAt: now,
  });
  const node = (id: string, nodeType: NodeRow['nodeType'], parentId: string | null, properties: Record<string, unknown>): NodeRow => ({
    id,
    launchId,
    parentId,
    nodeType,
    accountId: nodeType === 'campaign' ? account.accountId : null,
    name: String(properties.name),
    properties,
    platformId: null,
    status: 'draft',
    createdAt: now,
    updatedAt: now,
  });
  await insertNodes(knex, [
    node('nd_campaign', 'campaign', null, { name: 'Spring', objective: 'OUTCOME_TRAFFIC', budget: { dailyAmount: 5000 } }),
    node('nd_set', 'adset', 'nd_campaign', { name: 'US' }),
  ]);
  const owner = 'job_test';
  await claimForPublishing(knex, launchId, now, { note: 'test' }, owner);
  const stored = await loadNodes(knex, launchId);
  await recordPlatformIds(knex, [stored.find((n) => n.id === 'nd_campaign')!, stored.find((n) => n.id === 'nd_set')!], [campaign.id, adset.id], now);
  const keyId = org.apiKeys.ci.id;
  await insertCommitments(
    knex,
    [
      {
        organizationId: org.id,
        apiKeyId: keyId,
        grantId: null,
        launchId,
        nodeId: null,
        kind: 'publish',
        accountId: account.accountId,
        currency: 'USD',
        amountMinorUnits: 5000,
        countedUsdCents: 5000,
      },
    ],
    now,
  );
  const principal: Principal = {
    kind: 'api_key',
    organizationId: org.id,
    credentialId: `key:${keyId}`,
    apiKeyId: keyId,
    grantId: null,
    userId: 0,
    actorLabel: 'API key: ci',
    scopes: new Set(['publish']),
    brandIds: null,
    role: null,
    publishCeilingCents: 50_000,
  };
  const ctx: PublishContext = {
    principal,
    db: knex,
    now: Date.now,
    requestId: 'test',
    log: pino({ level: 'silent' }),
    platforms: { adapterFor: () => meta } as unknown as PublishContext['platforms'],
    metrics: { get: async () => null, set: async () => {}, invalidate: async () => {} },
    config: loadConfig({}),
    activity: activityRecorder(knex, principal, Date.now),
    events: { emit: async () => {} } as unknown as PublishContext['events'],
    progress: () => {},
  };
  const plan: PublishPlan = {
    launch: (await publishRecordOf(knex, launchId))!.launch,
    nodes: await loadNodes(knex, launchId),
    campaignAccounts: new Map([['nd_campaign', account.accountId]]),
    accounts: new Map([[account.accountId, account]]),
    counted: { totalUsdCents: 5000, accounts: [] },
    campaignAmounts: new Map([['nd_campaign', 5000]]),
    creatives: new Map(),
    creativesDir: '/nonexistent',
  };
  return { launchId, campaignPlatformId: campaign.id, adsetPlatformId: adset.id, ctx, plan };
}

for (const dialect of dialects()) {
  describe(`a publish abandoned past its deadline, on Meta (${dialect})`, function () {
    this.timeout(60_000);
    let db: MigratedDatabase;
    let fake: FakeMetaServer;

    beforeEach(async () => {
      db = await migratedDatabase(dialect);
      fake = await FakeMetaServer.start();
    });
    afterEach(async () => {
      await fake?.close();
      await db?.close();
    });

    const states = async (launchId: number) => ({
      reserved: (await commitmentsOf(db.knex, launchId, 'reserved')).length,
      committed: (await commitmentsOf(db.knex, launchId, 'committed')).length,
      released: (await commitmentsOf(db.knex, launchId, 'released')).length,
    });

    it('an object Meta answers 100/33 for is named not confirmed paused, and the reservation stays counted', async () => {
      const a = await createdOnMeta(db, fake);
      fake.losePermissionOn(a.campaignPlatformId);
      await abandonPublish(a.ctx, a.plan, 'job_test', new Error('test'));
      const record = (await publishRecordOf(db.knex, a.launchId))!;
      expect(record.launch.status).to.equal('publish_failed');
      expect(record.launch.statusReason).to.contain(`campaign ${a.campaignPlatformId} on act_1001 (not confirmed paused:`);
      expect(record.launch.statusReason).to.contain(`adset ${a.adsetPlatformId} on act_1001 (paused)`);
      expect(fake.objects.get(a.adsetPlatformId)!.status).to.equal('PAUSED');
      expect(await states(a.launchId), 'what may still spend stays counted').to.deep.equal({ reserved: 0, committed: 1, released: 0 });
      const kept = (await loadNodes(db.knex, a.launchId)).filter((n) => n.platformId).map((n) => n.platformId);
      expect(kept.sort()).to.deep.equal([a.campaignPlatformId, a.adsetPlatformId].sort());
    });

    it('with every object paused, the reservation is released', async () => {
      const a = await createdOnMeta(db, fake);
      await abandonPublish(a.ctx, a.plan, 'job_test', new Error('test'));
      const record = (await publishRecordOf(db.knex, a.launchId))!;
      expect(record.launch.statusReason).to.contain(`campaign ${a.campaignPlatformId} on act_1001 (paused)`);
      expect(fake.objects.get(a.campaignPlatformId)!.status).to.equal('PAUSED');
      expect(await states(a.launchId)).to.deep.equal({ reserved: 0, committed: 0, released: 1 });
    });
  });
}
