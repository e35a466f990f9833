// The resume of an interrupted publish (publish.ts carryOn, as the finish-publish job runs it), on
// every dialect, against an in-memory ad platform that counts the adapter calls made of it:
//   - it asks what already exists with one findCreated per level and ad account (all of the level's
//     markers at once), never one lookup per node, and creates only what is missing, each once;
//   - a recorded object the platform no longer holds (deleted by an earlier rollback) is never
//     used again: the publish rolls back instead, leaving nothing live and the launch publish_failed;
//   - the records come first: a lookup that answers empty or fails concludes nothing (no create, no
//     rollback, nothing forgotten) and the next try carries the publish on; a rollback deletes every
//     recorded id; a rollback that cannot finish by the deadline pauses what is left and names it.

import { expect } from 'chai';
import type { Knex } from 'knex';
import type { Principal } from '../../src/auth/principal.js';
import { activityRecorder } from '../../src/activity/recorder.js';
import { applyBootstrap } from '../../src/bootstrap.js';
import { loadConfig } from '../../src/config.js';
import {
  abandonPublish,
  carryOn,
  finishRollback,
  LookupIncomplete,
  publishingConflict,
  type PublishContext,
  type PublishPlan,
} from '../../src/launches/publish.js';
import {
  claimForPublishing,
  insertLaunch,
  insertNodes,
  loadNodes,
  markRollbackStarted,
  publishRecordOf,
  recordPlatformIds,
  type NodeRow,
} from '../../src/launches/store.js';
import { PlatformError, type ObjectLevel, type ObjectRef, type ObjectSpec, type PlatformAdapter } from '../../src/platforms/port.js';
import type { BrandAdAccount } from '../../src/platforms/registry.js';
import { loadSchemaFiles, SchemaRegistry } from '../../src/schemas/registry.js';
import { dialects, migratedDatabase, type MigratedDatabase } from '../helpers/databases.js';
import { exampleWorld } from '../helpers/launches.js';
import pino from 'pino';

const AD_SETS = 10;
const ADS_PER_SET = 3;
const ACCOUNT: BrandAdAccount = { platform: 'meta', accountId: 'act_1001', timezone: 'UTC', currency: 'USD', accessToken: null, name: null, active: true };

/** An ad platform in memory: objects by id with their marker and status, and a log of the calls made of it. */
class CountingPlatform {
  readonly objects = new Map<string, { level: string; marker: string; status: string; parentId: string | null }>();
  readonly calls: Array<{ call: string; level: string; count: number }> = [];
  /**
   * How the marker lookup (findCreated) answers: in full, with nothing (a label edge answering
   * empty), with a failure, or with the recorded ids only (TikTok, which cannot be searched by marker).
   */
  lookup: 'whole' | 'empty' | 'failing' | 'recorded' = 'whole';
  /** Deletes refused (a rollback that cannot finish). */
  refuseDeletes = false;
  private next = 1;

  put(level: string, marker: string, parentId: string | null = null): string {
    const id = `p${this.next++}`;
    this.objects.set(id, { level, marker, status: 'PAUSED', parentId });
    return id;
  }

  live(): string[] {
    return [...this.objects].filter(([, o]) => o.status !== 'DELETED').map(([id]) => id);
  }

  adapter(): PlatformAdapter {
    const objects = this.objects;
    const calls = this.calls;
    const put = (level: string, marker: string, parentId: string | null) => this.put(level, marker, parentId);
    const lookup = () => this.lookup;
    const refuseDeletes = () => this.refuseDeletes;
    const partial = {
      async createObjects(_account: BrandAdAccount, specs: ObjectSpec[]): Promise<ObjectRef[]> {
        calls.push({ call: 'createObjects', level: specs[0].level, count: specs.length });
        return specs.map((s) => ({ level: s.level, id: put(s.level, s.marker, s.parentId) }));
      },
      async findCreated(
        _account: BrandAdAccount,
        level: ObjectLevel,
        markers: string[],
        recorded = new Map<string, string>(),
      ): Promise<Map<string, ObjectRef>> {
        calls.push({ call: 'findCreated', level, count: markers.length });
        if (lookup() === 'failing') throw new PlatformError('transient', 'The ad platform did not answer within 2000 ms.');
        if (lookup() === 'empty') return new Map();
        if (lookup() === 'recorded')
          return new Map([...recorded].filter(([, id]) => objects.get(id)?.status !== 'DELETED').map(([marker, id]) => [marker, { level, id }]));
        const wanted = new Set(markers);
        const found = new Map<string, ObjectRef>();
        for (const [id, o] of objects) if (o.level === level && o.status !== 'DELETED' && wanted.has(o.marker)) found.set(o.marker, { level, id });
        return found;
      },
      async childrenOf(_account: BrandAdAccount, level: ObjectLevel, parentIds: string[]): Promise<string[]> {
        calls.push({ call: 'childrenOf', level, count: parentIds.length });
        const parents = new Set(parentIds);
        return [...objects].filter(([, o]) => o.level === level && o.status !== 'DELETED' && o.parentId && parents.has(o.parentId)).map(([id]) => id);
      },
      async confirmRecorded(_account: BrandAdAccount, level: ObjectLevel, ids: string[]): Promise<Map<string, 'held' | 'gone'>> {
        calls.push({ call: 'confirmRecorded', level, count: ids.length });
        return new Map(ids.map((id) => [id, objects.get(id) && objects.get(id)!.status !== 'DELETED' ? 'held' : 'gone']));
      },
      async setStatusEach(_account: BrandAdAccount, refs: ObjectRef[], status: string): Promise<Array<PlatformError | null>> {
        calls.push({ call: 'setStatusEach', level: refs[0].level, count: refs.length });
        for (const r of refs) objects.get(r.id)!.status = status;
        return refs.map(() => null);
      },
      async setStatus(_account: BrandAdAccount, refs: ObjectRef[], status: string): Promise<void> {
        calls.push({ call: 'setStatus', level: refs[0].level, count: refs.length });
        for (const r of refs) objects.get(r.id)!.status = status;
      },
      async deleteObjects(_account: BrandAdAccount, refs: ObjectRef[]): Promise<void> {
        calls.push({ call: 'deleteObjects', level: refs[0]?.level ?? '', count: refs.length });
        if (refuseDeletes()) throw new PlatformError('invalid_request', 'This object cannot be deleted now.');
        for (const r of refs) objects.get(r.id)!.status = 'DELETED';
      },
    };
    return partial as unknown as PlatformAdapter;
  }
}

interface Interrupted {
  plan: PublishPlan;
  ctx: PublishContext;
  platform: CountingPlatform;
  owner: string;
  attempt: number;
}

/**
 * A launch of 1 campaign, AD_SETS ad sets and ADS_PER_SET ads each, left by an interrupted publish:
 * the campaign and the first six ad sets exist on the platform, only the campaign and the first
 * three ad sets were recorded (the answer of the second chunk was lost with the process).
 */
async function interruptedPublish(db: MigratedDatabase): Promise<Interrupted> {
  const knex: Knex = db.knex;
  const seed = await applyBootstrap(knex, new SchemaRegistry(loadSchemaFiles()), exampleWorld(500));
  const org = seed.organizations.acme;
  const brandId = org.brands.shoes.id;
  const now = Date.now();
  const launchId = await insertLaunch(knex, {
    organizationId: org.id,
    brandId,
    accountId: ACCOUNT.accountId,
    title: 'Resume',
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
    accountId: nodeType === 'campaign' ? ACCOUNT.accountId : null,
    name: String(properties.name),
    properties,
    platformId: null,
    status: 'draft',
    createdAt: now,
    updatedAt: now,
  });
  const nodes: NodeRow[] = [node('nd_campaign', 'campaign', null, { name: 'Spring', objective: 'OUTCOME_TRAFFIC', budget: { dailyAmount: 5000 } })];
  for (let s = 0; s < AD_SETS; s++) {
    nodes.push(node(`nd_set${s}`, 'adset', 'nd_campaign', { name: `Set ${s}` }));
    for (let a = 0; a < ADS_PER_SET; a++) nodes.push(node(`nd_ad${s}_${a}`, 'ad', `nd_set${s}`, { name: `Ad ${s}.${a}` }));
  }
  await insertNodes(knex, nodes);
  const principal: Principal = {
    kind: 'api_key',
    organizationId: org.id,
    credentialId: `key:${org.apiKeys.ci.id}`,
    apiKeyId: org.apiKeys.ci.id,
    grantId: null,
    userId: 0,
    actorLabel: 'API key: ci',
    scopes: new Set(['publish']),
    brandIds: null,
    role: null,
    publishCeilingCents: 50_000,
  };
  const owner = 'job_test';
  await claimForPublishing(knex, launchId, now, { note: 'test' }, owner);
  const platform = new CountingPlatform();
  const adapter = platform.adapter();
  const campaignId = platform.put('campaign', 'nd_campaign');
  const setIds = Array.from({ length: 6 }, (_, s) => platform.put('adset', `nd_set${s}`, campaignId));
  const stored = await loadNodes(knex, launchId);
  const byId = new Map(stored.map((n) => [n.id, n]));
  await recordPlatformIds(knex, [byId.get('nd_campaign')!, ...[0, 1, 2].map((s) => byId.get(`nd_set${s}`)!)], [campaignId, ...setIds.slice(0, 3)], now);
  const ctx: PublishContext = {
    principal,
    db: knex,
    now: Date.now,
    requestId: 'test',
    log: pino({ level: 'silent' }),
    platforms: { adapterFor: () => adapter } as unknown as PublishContext['platforms'],
    metrics: { get: async () => null, set: async () => {}, invalidate: async () => {} },
    config: loadConfig({}),
    activity: activityRecorder(knex, principal, Date.now),
    events: { emit: async () => {} } as unknown as PublishContext['events'],
    progress: () => {},
  };
  const plan: PublishPlan = {
    launch: (await publishRecordOf(knex, launchId))!.launch,
    nodes: await loadNodes(knex, launchId),
    campaignAccounts: new Map([['nd_campaign', ACCOUNT.accountId]]),
    accounts: new Map([[ACCOUNT.accountId, ACCOUNT]]),
    counted: { totalUsdCents: 5000, accounts: [] },
    campaignAmounts: new Map([['nd_campaign', 5000]]),
    creatives: new Map(),
    // The ads name no creative: nothing is read from the creatives folder.
    creativesDir: '/nonexistent',
  };
  return { plan, ctx, platform, owner, attempt: (await publishRecordOf(knex, launchId))!.attempt };
}

for (const dialect of dialects()) {
  describe(`resuming an interrupted publish (${dialect})`, function () {
    this.timeout(60_000);

    describe('with every recorded object still on the platform', () => {
      let db: MigratedDatabase;
      let r: Interrupted;

      before(async () => {
        db = await migratedDatabase(dialect);
        r = await interruptedPublish(db);
        await carryOn(r.ctx, r.plan, r.owner, r.attempt, true);
      });
      after(async () => db?.close());

      it('asks the platform what exists with one findCreated per level (all its markers at once), not one call per node', () => {
        const finds = r.platform.calls.filter((c) => c.call === 'findCreated');
        expect(finds).to.deep.equal([
          { call: 'findCreated', level: 'campaign', count: 1 },
          { call: 'findCreated', level: 'adset', count: AD_SETS },
          { call: 'findCreated', level: 'ad', count: AD_SETS * ADS_PER_SET },
        ]);
      });

      it('creates only what was missing (4 ad sets, then every ad), each object once', () => {
        const creates = r.platform.calls.filter((c) => c.call === 'createObjects');
        expect(creates).to.deep.equal([
          { call: 'createObjects', level: 'adset', count: AD_SETS - 6 },
          { call: 'createObjects', level: 'ad', count: AD_SETS * ADS_PER_SET },
        ]);
        const markers = [...r.platform.objects.values()].map((o) => o.marker);
        expect(new Set(markers).size).to.equal(markers.length);
        expect(markers.length).to.equal(1 + AD_SETS + AD_SETS * ADS_PER_SET);
      });

      it('ends published with every node live on the object the platform holds for it', async () => {
        const record = await publishRecordOf(db.knex, r.plan.launch.id);
        expect(record!.launch.status).to.equal('published');
        for (const n of await loadNodes(db.knex, r.plan.launch.id)) {
          expect(n.status, n.id).to.equal('live');
          expect(r.platform.objects.get(n.platformId!)?.marker, n.id).to.equal(n.id);
        }
      });
    });

    describe('with a recorded ad set deleted on the platform (an earlier rollback the database never heard of)', () => {
      let db: MigratedDatabase;
      let r: Interrupted;
      let deletedId: string;
      let thrown: unknown;

      before(async () => {
        db = await migratedDatabase(dialect);
        r = await interruptedPublish(db);
        deletedId = r.plan.nodes.find((n) => n.id === 'nd_set1')!.platformId!;
        r.platform.objects.get(deletedId)!.status = 'DELETED';
        thrown = await carryOn(r.ctx, r.plan, r.owner, r.attempt, true).then(
          () => null,
          (err: unknown) => err,
        );
      });
      after(async () => db?.close());

      it('does not go on: no ad is created under any ad set, nothing set ACTIVE', () => {
        expect(thrown).to.be.instanceOf(Error);
        expect(r.platform.calls.filter((c) => c.call === 'createObjects' || c.call === 'setStatus')).to.deep.equal([]);
      });

      it('rolls back: nothing of the launch stays live on the platform, and the launch is publish_failed', async () => {
        expect(r.platform.live()).to.deep.equal([]);
        const record = await publishRecordOf(db.knex, r.plan.launch.id);
        expect(record!.launch.status).to.equal('publish_failed');
        expect(record!.launch.statusReason).to.match(/no longer on the ad platform/);
      });

      it('records no deleted object on any node, and each deletion as a step', async () => {
        for (const n of await loadNodes(db.knex, r.plan.launch.id)) expect(n.platformId, n.id).to.equal(null);
        const steps = await db.knex('publish_steps').where({ launch_id: r.plan.launch.id, action: 'delete', state: 'done' });
        const deleted = steps.flatMap((s) => JSON.parse(s.platform_ids));
        expect(deleted).to.not.include(deletedId);
        expect(deleted.length).to.equal(1 + 6 - 1);
      });
    });

    for (const lookup of ['empty', 'failing'] as const) {
      describe(`with the marker lookup ${lookup === 'empty' ? 'answering empty' : 'failing'} on the first try`, () => {
        let db: MigratedDatabase;
        let r: Interrupted;
        let recordedBefore: Array<[string, string | null]>;
        let thrown: unknown;

        before(async () => {
          db = await migratedDatabase(dialect);
          r = await interruptedPublish(db);
          recordedBefore = (await loadNodes(db.knex, r.plan.launch.id)).map((n) => [n.id, n.platformId]);
          r.platform.lookup = lookup;
          thrown = await carryOn(r.ctx, r.plan, r.owner, r.attempt, true).then(
            () => null,
            (err: unknown) => err,
          );
        });
        after(async () => db?.close());

        it('concludes nothing: no create, no status change, no delete, and the launch is still publishing with its records', async () => {
          expect(thrown).to.be.instanceOf(LookupIncomplete);
          expect((thrown as LookupIncomplete).code).to.equal('unavailable');
          expect(r.platform.calls.filter((c) => !['findCreated', 'confirmRecorded'].includes(c.call))).to.deep.equal([]);
          expect((await publishRecordOf(db.knex, r.plan.launch.id))!.launch.status).to.equal('publishing');
          expect((await loadNodes(db.knex, r.plan.launch.id)).map((n) => [n.id, n.platformId])).to.deep.equal(recordedBefore);
          expect(r.platform.live().length).to.equal(1 + 6);
        });

        it('is carried on by the next try once the lookup answers in full: published, each object made once', async () => {
          r.platform.lookup = 'whole';
          const plan = { ...r.plan, nodes: await loadNodes(db.knex, r.plan.launch.id) };
          await carryOn(r.ctx, plan, r.owner, r.attempt, true);
          expect((await publishRecordOf(db.knex, r.plan.launch.id))!.launch.status).to.equal('published');
          const markers = [...r.platform.objects.values()].map((o) => o.marker);
          expect(new Set(markers).size).to.equal(markers.length);
          expect(markers.length).to.equal(1 + AD_SETS + AD_SETS * ADS_PER_SET);
          for (const n of await loadNodes(db.knex, r.plan.launch.id)) expect(r.platform.objects.get(n.platformId!)?.marker, n.id).to.equal(n.id);
        });
      });
    }

    describe('a rollback whose marker lookup answers empty', () => {
      let db: MigratedDatabase;
      let r: Interrupted;
      let recorded: string[];
      let first: unknown;

      before(async () => {
        db = await migratedDatabase(dialect);
        r = await interruptedPublish(db);
        recorded = r.plan.nodes.filter((n) => n.platformId).map((n) => n.platformId!);
        r.platform.lookup = 'empty';
        first = await finishRollback(r.ctx, r.plan, r.owner, r.attempt, new Error('test')).then(
          () => null,
          (err: unknown) => err,
        );
      });
      after(async () => db?.close());

      it('before its deadline deletes nothing and forgets nothing: it looks again later', async () => {
        expect(first).to.be.instanceOf(LookupIncomplete);
        expect(r.platform.calls.filter((c) => c.call === 'deleteObjects')).to.deep.equal([]);
        expect((await loadNodes(db.knex, r.plan.launch.id)).filter((n) => n.platformId).length).to.equal(recorded.length);
      });

      it('past its deadline (final) still deletes every recorded object, and ends publish_failed', async () => {
        const plan = { ...r.plan, nodes: await loadNodes(db.knex, r.plan.launch.id) };
        await finishRollback(r.ctx, plan, r.owner, r.attempt, new Error('test'), { final: true });
        for (const id of recorded) expect(r.platform.objects.get(id)!.status, id).to.equal('DELETED');
        expect((await publishRecordOf(db.knex, r.plan.launch.id))!.launch.status).to.equal('publish_failed');
      });
    });

    describe('a rollback on a platform that cannot be searched by marker (TikTok): the lost creates found under their parent', () => {
      let db: MigratedDatabase;
      let r: Interrupted;

      before(async () => {
        db = await migratedDatabase(dialect);
        r = await interruptedPublish(db);
        r.platform.lookup = 'recorded';
        await finishRollback(r.ctx, r.plan, r.owner, r.attempt, new Error('test'));
      });
      after(async () => db?.close());

      it("lists the campaign's ad sets by parent and deletes the three whose answers were lost with the recorded ones", async () => {
        expect(r.platform.calls.filter((c) => c.call === 'childrenOf').map((c) => c.level)).to.include('adset');
        expect(r.platform.live()).to.deep.equal([]);
        expect((await publishRecordOf(db.knex, r.plan.launch.id))!.launch.status).to.equal('publish_failed');
      });
    });

    describe('a publish request meeting a launch that is rolling back', () => {
      let db: MigratedDatabase;
      let r: Interrupted;

      before(async () => {
        db = await migratedDatabase(dialect);
        r = await interruptedPublish(db);
      });
      after(async () => db?.close());

      it('says "being published" while it goes forward, and "rolling back" with details.status once it goes backward', async () => {
        const forward = await publishingConflict(db.knex, r.plan.launch.id);
        expect(forward.code).to.equal('conflict');
        expect(forward.message).to.match(/being published by another request/);
        await markRollbackStarted(db.knex, r.plan.launch.id, Date.now());
        const backward = await publishingConflict(db.knex, r.plan.launch.id);
        expect(backward.code).to.equal('conflict');
        expect(backward.message).to.match(/is rolling back a failed publish and ends publish_failed by itself/);
        expect(backward.details).to.deep.equal({ status: 'rolling_back' });
      });
    });

    describe('a rollback that cannot finish by the deadline (every delete refused)', () => {
      let db: MigratedDatabase;
      let r: Interrupted;
      let recorded: string[];

      before(async () => {
        db = await migratedDatabase(dialect);
        r = await interruptedPublish(db);
        recorded = r.plan.nodes.filter((n) => n.platformId).map((n) => n.platformId!);
        r.platform.refuseDeletes = true;
        const err = await finishRollback(r.ctx, r.plan, r.owner, r.attempt, new Error('test'), { final: true }).then(
          () => null,
          (e: unknown) => e,
        );
        expect(err).to.be.instanceOf(PlatformError);
        await abandonPublish(r.ctx, { ...r.plan, nodes: await loadNodes(db.knex, r.plan.launch.id) }, r.owner, err);
      });
      after(async () => db?.close());

      it('pauses every object it recorded, so nothing is left spending', () => {
        for (const id of recorded) expect(r.platform.objects.get(id)!.status, id).to.equal('PAUSED');
      });

      it('ends publish_failed keeping the ids, its statusReason naming each object left and where', async () => {
        const record = await publishRecordOf(db.knex, r.plan.launch.id);
        expect(record!.launch.status).to.equal('publish_failed');
        for (const id of recorded) expect(record!.launch.statusReason).to.include(`${id} on act_1001 (paused)`);
        expect(record!.launch.statusReason).to.match(/could not be rolled back before its deadline/);
        const kept = (await loadNodes(db.knex, r.plan.launch.id)).filter((n) => n.platformId).map((n) => n.platformId);
        expect(kept.sort()).to.deep.equal([...recorded].sort());
      });

      it('records the end in the activity log', async () => {
        const actions = await db
          .knex('activity_entries')
          .where({ entity_id: String(r.plan.launch.id) })
          .pluck('action');
        expect(actions).to.include('launch.publish_abandoned');
      });
    });
  });
}
