// The publishing path under concurrency and failure, over real listening servers on every dialect:
//   - 50 launches racing for one key's ceiling: never more than the ceiling is committed;
//   - 20 identical publishes sharing one Idempotency-Key: one set of platform objects, replays;
//   - a live (Meta) publish whose ad-set or ad batch keeps failing: everything created is removed,
//     the reservation released, the launch publish_failed, and a later publish succeeds;
//   - a live publish whose server process is SIGKILLed halfway, retried with the same key on a new
//     process: it resumes, and the platform ends up with each object exactly once;
//   - a live publish that is alive but slower than the idempotency lease, while a publish with a new
//     key arrives: the second must not take the first over.
// The Meta API is test/fakes/meta-server.ts; the failing batches come from a small HTTP proxy in
// front of it (below) that answers Graph's transient error for the requests a test picks.

import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import type { Knex } from 'knex';
import { openDatabase, type Dialect } from '../../src/db/connection.js';
import { FakeMetaServer, type MetaObject } from '../fakes/meta-server.js';
import { createMigratedTestDatabase, dialects, type TestDatabase } from '../helpers/databases.js';
import { BrandClient, buildLaunch, exampleWorld, liveExampleWorld, mapLimit, waitUntil, type BuiltLaunch, type HttpReply } from '../helpers/launches.js';
import { runSvcServer, startSvcServer, type ServerProcess } from '../helpers/processes.js';
import { startWorld, type World } from '../helpers/world.js';

const ACCOUNT = 'act_1001';
const run = crypto.randomBytes(4).toString('hex');
let keyCounter = 0;
const newKey = (label: string) => `${label}-${run}-${++keyCounter}`;

// ---- shared set-up ------------------------------------------------------------------------------

/** Live mode stores ad-account tokens encrypted with TOKEN_ENCRYPTION_KEY (read from process.env). */
function useEncryptionKey(): void {
  let saved: string | undefined;
  before(() => {
    saved = process.env.TOKEN_ENCRYPTION_KEY;
    if (!saved) process.env.TOKEN_ENCRYPTION_KEY = crypto.randomBytes(32).toString('base64');
  });
  after(() => {
    if (saved === undefined) delete process.env.TOKEN_ENCRYPTION_KEY;
  });
}

/** A temporary folder for uploaded creatives, removed by `remove`. */
function tempCreativesDir(): { dir: string; remove(): void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-publish-creatives-'));
  return { dir, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/** Limits out of the way: 50 publishes in flight at once would otherwise meet RATE_LIMIT_CONCURRENCY. */
const UNLIMITED = { RATE_LIMIT_PER_MINUTE: '1000000', RATE_LIMIT_CONCURRENCY: '1000' };

async function committedCents(knex: Knex, apiKeyId: number): Promise<number> {
  const row = await knex('api_keys').where({ id: apiKeyId }).first('committed_cents');
  return Number(row.committed_cents);
}

interface TreeNode {
  id: string;
  nodeType: 'campaign' | 'adset' | 'ad';
  status: string;
  platformId: string | null;
}

/** Every node of a launch tree (GET /launches/{id}). */
function nodesOf(tree: any): TreeNode[] {
  return (tree.campaigns ?? []).flatMap((c: any) => [c.node, ...c.adSets.flatMap((s: any) => [s.node, ...s.ads])]);
}

/**
 * What a live publish through svc-server processes stands on: a fake Meta holding the example ad
 * account, a database of its own bootstrapped with the live example world, a creatives folder, and
 * the environment to start `svc-server serve` with.
 */
interface LiveBackend {
  fake: FakeMetaServer;
  /** A connection of the test's own, to read what the server processes wrote. */
  reader: Knex;
  env: Record<string, string>;
  /** The id of acme's `ci` API key. */
  apiKeyId: number;
  /** A client of the `shoes` brand with acme's `ci` key, talking to the server at `url`. */
  client(url: string): BrandClient;
  /** Closes and removes all of it (stop the server processes first). */
  close(): Promise<void>;
}

async function startLiveBackend(dialect: Dialect, leaseMs: number): Promise<LiveBackend> {
  const fake = await FakeMetaServer.start();
  let db: TestDatabase | undefined;
  let creatives: { dir: string; remove(): void } | undefined;
  let reader: Knex | undefined;
  const close = async () => {
    await reader?.destroy();
    await fake.close();
    await db?.drop();
    creatives?.remove();
  };
  try {
    const token = fake.addAccount(ACCOUNT);
    db = await createMigratedTestDatabase(dialect);
    creatives = tempCreativesDir();
    const env = {
      DATABASE_URL: db.url,
      PLATFORM_MODE: 'live',
      META_GRAPH_URL: fake.url,
      TOKEN_ENCRYPTION_KEY: process.env.TOKEN_ENCRYPTION_KEY!,
      // The same-key retry's lease and the publish's claim (the job lease) both short.
      IDEMPOTENCY_LEASE_MS: String(leaseMs),
      JOB_LEASE_MS: String(leaseMs),
      CREATIVES_DIR: creatives.dir,
      ...UNLIMITED,
    };
    const boot = await runSvcServer(['bootstrap', '-'], { env, input: JSON.stringify(liveExampleWorld(500, token)), timeoutMs: 30_000 });
    if (boot.code !== 0) throw new Error(`bootstrap failed (${boot.code}):\n${boot.stdout}\n${boot.stderr}`);
    const seed = JSON.parse(boot.stdout);
    reader = openDatabase(db.url).knex;
    return {
      fake,
      reader,
      env,
      apiKeyId: seed.organizations.acme.apiKeys.ci.id,
      client: (url) => new BrandClient(url, seed.organizations.acme.apiKeys.ci.secret, seed.organizations.acme.brands.shoes.id),
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}

/** The node id a Meta object carries: the service's ad label (`svc:<nodeId>`); names stay as the person gave them. */
const markerOf = (fake: FakeMetaServer, o: MetaObject): string | null =>
  fake
    .labelNamesOf(o)
    .find((l) => l.startsWith('svc:'))
    ?.slice(4) ?? null;

function describeReply(r: HttpReply): string {
  return `${r.status} ${JSON.stringify(r.body).slice(0, 400)}`;
}

// ---- a proxy in front of the fake Meta that fails chosen Graph calls ------------------------------

interface GraphCall {
  method: string;
  path: string;
  /** The batch's requests when the call is a batch. */
  batch: Array<{ method?: string; relative_url?: string; body?: string }> | null;
}

/** The level a batch creates (campaign, adset, ad), or null when it creates nothing. */
function createdLevel(call: GraphCall): 'campaign' | 'adset' | 'ad' | null {
  if (call.method !== 'POST' || !call.batch) return null;
  for (const item of call.batch) {
    // A batch that only asks Meta to validate (validate_only) creates nothing.
    if (/execution_options=[^&]*validate_only/.test(decodeURIComponent(item.body ?? ''))) return null;
    const edge = item.method === 'POST' ? /^\/?act_\d+\/(campaigns|adsets|ads)$/.exec(item.relative_url ?? '')?.[1] : undefined;
    if (edge) return edge === 'campaigns' ? 'campaign' : edge === 'adsets' ? 'adset' : 'ad';
  }
  return null;
}

interface FaultProxy {
  /** The versioned base URL to give the service as META_GRAPH_URL. */
  url: string;
  /** Calls for which this answers Graph's transient error (HTTP 500, code 2) instead of forwarding. */
  failing: ((call: GraphCall) => boolean) | null;
  /** Calls answered with the error so far. */
  refused: number;
  close(): Promise<void>;
}

async function startFaultProxy(target: string): Promise<FaultProxy> {
  const upstream = new URL(target);
  const server = http.createServer();
  const proxy: FaultProxy = {
    url: '',
    failing: null,
    refused: 0,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  server.on('request', async (req: http.IncomingMessage, res: http.ServerResponse) => {
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const body = Buffer.concat(chunks);
      const method = (req.method ?? 'GET').toUpperCase();
      let batch: GraphCall['batch'] = null;
      const rawBatch = method === 'POST' ? new URLSearchParams(body.toString('utf8')).get('batch') : null;
      if (rawBatch) {
        try {
          batch = JSON.parse(rawBatch);
        } catch {
          batch = null;
        }
      }
      const call: GraphCall = { method, path: new URL(req.url ?? '/', 'http://proxy').pathname, batch };
      if (proxy.failing?.(call)) {
        proxy.refused++;
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            error: { message: '(#2) Service temporarily unavailable', type: 'OAuthException', code: 2, is_transient: true, fbtrace_id: 'proxy' },
          }),
        );
        return;
      }
      const answer = await fetch(`${upstream.origin}${req.url}`, {
        method,
        headers: req.headers['content-type'] ? { 'content-type': req.headers['content-type'] } : {},
        body: method === 'GET' || method === 'HEAD' ? undefined : body,
      });
      const text = Buffer.from(await answer.arrayBuffer());
      const headers: Record<string, string> = {};
      answer.headers.forEach((value, name) => {
        if (!['content-length', 'transfer-encoding', 'connection', 'keep-alive', 'content-encoding'].includes(name)) headers[name] = value;
      });
      res.writeHead(answer.status, headers);
      res.end(text);
    } catch {
      res.destroy();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${upstream.pathname}`;
  return proxy;
}

// ---- the tests ----------------------------------------------------------------------------------

for (const dialect of dialects()) {
  describe(`publishing under concurrency and failure (${dialect})`, function () {
    this.timeout(120_000);

    describe("50 launches racing for one key's ceiling", () => {
      const LAUNCHES = 50;
      const CEILING_DOLLARS = 1000; // 100000 cents: exactly 20 launches of 5000 cents fit
      const FITS = 20;
      let w: World;
      let creatives: { dir: string; remove(): void };
      let client: BrandClient;
      let apiKeyId: number;
      let launches: BuiltLaunch[];
      let replies: HttpReply[];
      const won = () => launches.filter((_, i) => replies[i].status === 200);
      const lost = () => launches.filter((_, i) => replies[i].status !== 200);

      before(async () => {
        creatives = tempCreativesDir();
        w = await startWorld({ dialect, bootstrap: exampleWorld(CEILING_DOLLARS), env: { ...UNLIMITED, CREATIVES_DIR: creatives.dir } });
        client = new BrandClient(w.url, w.key('acme', 'ci'), w.brandId('acme', 'shoes'));
        apiKeyId = w.seed.organizations.acme.apiKeys.ci.id;
        const creativeId = await client.uploadCreative();
        launches = await mapLimit(
          Array.from({ length: LAUNCHES }, (_, i) => i),
          10,
          (i) => buildLaunch(client, { title: `Race ${i + 1}`, creativeId }),
        );
        // Every launch its own Idempotency-Key, all in flight at once.
        replies = await Promise.all(launches.map((l) => client.publish(l.launchId, newKey('race'))));
      });
      after(async () => {
        await w?.close();
        creatives?.remove();
      });

      it(`lets exactly the ${FITS} publishes the ceiling fits succeed and refuses every other one with 403 spend_ceiling_exceeded`, () => {
        const unexpected = replies.filter((r) => r.status !== 200 && !(r.status === 403 && r.body?.error?.code === 'spend_ceiling_exceeded'));
        expect(unexpected.map(describeReply), 'answers other than 200 or 403 spend_ceiling_exceeded').to.deep.equal([]);
        expect(won().length).to.equal(FITS);
        for (const r of replies.filter((x) => x.status === 403)) {
          expect(r.body.error.details).to.include({ ceilingMinorUnits: CEILING_DOLLARS * 100, amountMinorUnits: 5000 });
        }
      });

      it("commits no more than the ceiling: api_keys.committed_cents is the sum of the successful publishes' counted amounts", async () => {
        const counted = replies.filter((r) => r.status === 200).reduce((sum, r) => sum + Number(r.body.budget.countedMinorUnits), 0);
        const committed = await committedCents(w.service.knex, apiKeyId);
        expect(committed).to.equal(counted);
        expect(committed).to.be.at.most(CEILING_DOLLARS * 100);
        const ledger = await w.service.knex('spend_commitments').where({ api_key_id: apiKeyId }).select('launch_id', 'state', 'amount_cents');
        expect(
          ledger.filter((c) => c.state !== 'committed'),
          'reservations left open',
        ).to.deep.equal([]);
        expect(ledger.map((c) => String(c.launch_id)).sort()).to.deep.equal(
          won()
            .map((l) => l.launchId)
            .sort(),
        );
        expect(ledger.reduce((sum, c) => sum + Number(c.amount_cents), 0)).to.equal(committed);
      });

      it('leaves refused launches draft without platform ids and publishes the successful ones with an id on every node', async () => {
        for (const l of lost()) {
          const tree = (await client.launch(l.launchId)).body;
          expect(tree.status, `launch ${l.launchId}`).to.equal('draft');
          for (const n of nodesOf(tree)) expect(n, `node ${n.id} of refused launch ${l.launchId}`).to.include({ status: 'draft', platformId: null });
        }
        for (const l of won()) {
          const tree = (await client.launch(l.launchId)).body;
          expect(tree.status, `launch ${l.launchId}`).to.equal('published');
          for (const n of nodesOf(tree)) {
            expect(n.status, `node ${n.id}`).to.equal('live');
            expect(n.platformId, `node ${n.id}`).to.match(/^1202\d{13}$/);
          }
        }
      });

      it('holds in the sandbox exactly the objects of the successful launches', async () => {
        // Creatives uploaded to the account are objects too; racing publishes may each upload theirs.
        const rows = await w.service
          .knex('sandbox_objects')
          .where({ account_id: ACCOUNT })
          .whereNot({ level: 'creative' })
          .select('object_id', 'marker', 'level', 'status');
        const expected = won()
          .flatMap((l) => l.nodeIds)
          .sort();
        expect(rows.length).to.equal(FITS * 3);
        expect(rows.map((r) => r.marker).sort()).to.deep.equal(expected);
        expect(rows.filter((r) => r.status === 'DELETED')).to.deep.equal([]);
        const ids = (await Promise.all(won().map(async (l) => nodesOf((await client.launch(l.launchId)).body).map((n) => n.platformId)))).flat().sort();
        expect(rows.map((r) => r.object_id).sort()).to.deep.equal(ids);
      });
    });

    describe('20 identical publishes sharing one Idempotency-Key', () => {
      const REQUESTS = 20;
      let w: World;
      let creatives: { dir: string; remove(): void };
      let client: BrandClient;
      let apiKeyId: number;
      let launch: BuiltLaunch;
      let key: string;
      let replies: HttpReply[];
      let original: HttpReply;

      before(async () => {
        creatives = tempCreativesDir();
        w = await startWorld({ dialect, bootstrap: exampleWorld(500), env: { ...UNLIMITED, CREATIVES_DIR: creatives.dir } });
        client = new BrandClient(w.url, w.key('acme', 'ci'), w.brandId('acme', 'shoes'));
        apiKeyId = w.seed.organizations.acme.apiKeys.ci.id;
        launch = await buildLaunch(client, { adSets: 2, adsPerSet: 2, creativeId: await client.uploadCreative() });
        key = newKey('same');
        replies = await Promise.all(Array.from({ length: REQUESTS }, () => client.publish(launch.launchId, key)));
        const firsts = replies.filter((r) => r.status === 200 && r.headers.get('idempotent-replayed') !== 'true');
        original = firsts[0];
      });
      after(async () => {
        await w?.close();
        creatives?.remove();
      });

      it('creates exactly one set of platform objects (campaign + ad sets + ads) and counts the budget once', async () => {
        const rows = await w.service.knex('sandbox_objects').whereIn('marker', launch.nodeIds).select('marker');
        expect(rows.length).to.equal(launch.objectCount);
        expect(new Set(rows.map((r) => r.marker)).size).to.equal(launch.objectCount);
        expect(
          await w.service
            .knex('sandbox_objects')
            .where({ account_id: ACCOUNT })
            .whereNot({ level: 'creative' })
            .count({ n: '*' })
            .first()
            .then((r) => Number(r!.n)),
        ).to.equal(launch.objectCount);
        // The one publish that ran uploaded the launch's creative to the account once.
        expect(await w.service.knex('sandbox_objects').where({ account_id: ACCOUNT, level: 'creative' }).pluck('object_id')).to.have.length(1);
        expect((await client.launch(launch.launchId)).body.status).to.equal('published');
        expect(await committedCents(w.service.knex, apiKeyId)).to.equal(launch.countedCents);
      });

      it('answers each request with the success (replays marked Idempotent-Replayed: true) or 409 idempotency_conflict with Retry-After', () => {
        const firsts = replies.filter((r) => r.status === 200 && r.headers.get('idempotent-replayed') !== 'true');
        expect(firsts.length, 'answers that ran the publish').to.equal(1);
        expect(original.body).to.include({ confirmed: true, status: 'published' });
        for (const r of replies) {
          if (r.status === 200) {
            expect(r.body, 'a 200 answer').to.deep.equal(original.body);
            if (r !== original) expect(r.headers.get('idempotent-replayed')).to.equal('true');
          } else {
            expect(r.status, describeReply(r)).to.equal(409);
            expect(r.body.error.code).to.equal('idempotency_conflict');
            expect(Number(r.headers.get('retry-after')), 'Retry-After').to.be.at.least(1);
          }
        }
      });

      it('answers a retry after the first finished with the original response', async () => {
        const again = await client.publish(launch.launchId, key);
        expect(again.status, describeReply(again)).to.equal(200);
        expect(again.headers.get('idempotent-replayed')).to.equal('true');
        expect(again.body).to.deep.equal(original.body);
        expect(
          await w.service
            .knex('sandbox_objects')
            .whereIn('marker', launch.nodeIds)
            .count({ n: '*' })
            .first()
            .then((r) => Number(r!.n)),
        ).to.equal(launch.objectCount);
      });
    });

    describe('a live (Meta) publish whose platform keeps failing halfway', () => {
      useEncryptionKey();
      let fake: FakeMetaServer;
      let proxy: FaultProxy;
      let w: World;
      let creatives: { dir: string; remove(): void };
      let client: BrandClient;
      let apiKeyId: number;
      let creativeId: number;

      before(async () => {
        fake = await FakeMetaServer.start();
        const token = fake.addAccount(ACCOUNT);
        proxy = await startFaultProxy(fake.url);
        creatives = tempCreativesDir();
        w = await startWorld({
          dialect,
          bootstrap: liveExampleWorld(500, token),
          env: { PLATFORM_MODE: 'live', META_GRAPH_URL: proxy.url, TOKEN_ENCRYPTION_KEY: process.env.TOKEN_ENCRYPTION_KEY!, CREATIVES_DIR: creatives.dir },
        });
        client = new BrandClient(w.url, w.key('acme', 'ci'), w.brandId('acme', 'shoes'));
        apiKeyId = w.seed.organizations.acme.apiKeys.ci.id;
        creativeId = await client.uploadCreative();
      });
      after(async () => {
        await w?.close();
        await proxy?.close();
        await fake?.close();
        creatives?.remove();
      });

      const cases = [
        // The ad-set batch fails on every attempt: only the campaign exists when the publish gives up.
        { level: 'adset' as const, adSets: 2, adsPerSet: 2, fail: () => (call: GraphCall) => createdLevel(call) === 'adset' },
        // 60 ads travel in two batches of 50 and 10: the first goes through, the second fails on every
        // attempt, so the campaign, both ad sets and 50 ads exist when the publish gives up.
        {
          level: 'ad' as const,
          adSets: 2,
          adsPerSet: 30,
          fail: () => {
            let adBatches = 0;
            return (call: GraphCall) => createdLevel(call) === 'ad' && ++adBatches > 1;
          },
        },
      ];

      for (const c of cases) {
        describe(`the ${c.level} batch fails with Graph code 2 beyond the retries`, () => {
          let launch: BuiltLaunch;
          let committedBefore: number;
          let objectsBefore: Set<string>;
          let reply: HttpReply;
          let refused: number;
          let createdDuringFailure: MetaObject[];

          before(async () => {
            launch = await buildLaunch(client, { title: `Failing ${c.level}`, adSets: c.adSets, adsPerSet: c.adsPerSet, creativeId });
            committedBefore = await committedCents(w.service.knex, apiKeyId);
            objectsBefore = new Set(fake.objectsOf(ACCOUNT).map((o) => o.id));
            const refusedBefore = proxy.refused;
            proxy.failing = c.fail();
            try {
              reply = await client.publish(launch.launchId, newKey(`fail-${c.level}`));
            } finally {
              proxy.failing = null;
            }
            refused = proxy.refused - refusedBefore;
            createdDuringFailure = fake.objectsOf(ACCOUNT).filter((o) => !objectsBefore.has(o.id));
          });

          it('answers an error (503 unavailable or 422) after retrying the batch', () => {
            expect([503, 422], describeReply(reply)).to.include(reply.status);
            expect(reply.body.error.code).to.be.oneOf(['unavailable', 'unprocessable']);
            expect(refused, 'attempts of the failing batch').to.be.at.least(2);
          });

          it('leaves no live object on the platform: everything it created was deleted', () => {
            expect(createdDuringFailure.filter((o) => o.level === 'campaign').length, 'campaigns created before the failure').to.equal(1);
            if (c.level === 'ad') expect(createdDuringFailure.filter((o) => o.level === 'ad').length, 'ads of the first batch').to.equal(50);
            const live = createdDuringFailure.filter((o) => o.status !== 'DELETED');
            const levels = ['campaign', 'adset', 'ad'].map((l) => `${live.filter((o) => o.level === l).length} ${l}s`).join(', ');
            const sample = live
              .slice(0, 3)
              .map((o) => `${o.level} ${o.id} "${o.name}" ${o.status}`)
              .join('; ');
            expect(live.length, `objects the failed publish left live on the platform (${levels}), e.g. ${sample}`).to.equal(0);
          });

          it("gives the reservation back: the key's committed total is what it was", async () => {
            expect(await committedCents(w.service.knex, apiKeyId)).to.equal(committedBefore);
            const ledger = await w.service
              .knex('spend_commitments')
              .where({ launch_id: Number(launch.launchId) })
              .select('state');
            expect(ledger.map((r) => r.state)).to.deep.equal(['released']);
          });

          it('marks the launch publish_failed with a statusReason and no platform ids on its nodes', async () => {
            const tree = (await client.launch(launch.launchId)).body;
            expect(tree.status).to.equal('publish_failed');
            expect(tree.statusReason)
              .to.be.a('string')
              .and.match(/^Publish failed: /);
            for (const n of nodesOf(tree)) expect(n, `node ${n.id}`).to.include({ status: 'draft', platformId: null });
          });

          it('publishes with a new Idempotency-Key once the fault is cleared, each object once on the platform', async () => {
            const again = await client.publish(launch.launchId, newKey(`after-${c.level}`));
            expect(again.status, describeReply(again)).to.equal(200);
            expect(again.body.status).to.equal('published');
            const tree = (await client.launch(launch.launchId)).body;
            expect(tree.status).to.equal('published');
            const nodes = nodesOf(tree);
            const byId = new Map(fake.objectsOf(ACCOUNT).map((o) => [o.id, o]));
            for (const n of nodes) {
              const o = byId.get(n.platformId ?? '');
              expect(o, `platform object of node ${n.id}`).to.not.equal(undefined);
              expect(o!.level).to.equal(n.nodeType);
              expect(markerOf(fake, o!)).to.equal(n.id);
              expect(o!.status).to.not.equal('DELETED');
            }
            const mine = new Set(launch.nodeIds);
            const liveOfLaunch = fake.objectsOf(ACCOUNT).filter((o) => o.status !== 'DELETED' && mine.has(markerOf(fake, o) ?? ''));
            expect(liveOfLaunch.length, "live platform objects carrying this launch's markers").to.equal(launch.objectCount);
            expect(await committedCents(w.service.knex, apiKeyId)).to.equal(committedBefore + launch.countedCents);
          });
        });
      }
    });

    describe('a live publish killed halfway and retried with the same key on a new server process', () => {
      useEncryptionKey();
      const AD_SETS = 3;
      const ADS_PER_SET = 2;
      let live: LiveBackend | undefined;
      let fake: FakeMetaServer;
      let reader: Knex;
      let first: ServerProcess | undefined;
      let second: ServerProcess | undefined;
      let client: BrandClient;
      let apiKeyId: number;
      let launch: BuiltLaunch;
      let atKill: { campaigns: number; adSets: number; ads: number };
      let interrupted: unknown;
      let retries: HttpReply[];
      let final: HttpReply;

      before(async function () {
        this.timeout(90_000);
        live = await startLiveBackend(dialect as Dialect, 1500);
        ({ fake, reader, apiKeyId } = live);
        const { env } = live;

        first = await startSvcServer(['serve'], { env });
        client = live.client(first.url);
        launch = await buildLaunch(client, { adSets: AD_SETS, adsPerSet: ADS_PER_SET, creativeId: await client.uploadCreative() });
        // A preview reads the account's minimum budgets, which this server then keeps for the publish.
        expect((await client.publish(launch.launchId, newKey('preview'), false)).status).to.equal(200);

        // Request 1 (the campaign batch) and request 2 (Meta asked to validate the ad sets) answer at
        // once; request 3 (the ad-set batch) is applied but its answer held back for a minute: the
        // server dies waiting for it.
        const base = fake.requests.length;
        fake.slowNext(2, 0);
        fake.slowNext(1, 60_000);
        const key = newKey('killed');
        const inFlight = client.publish(launch.launchId, key).then(
          (r) => r,
          (err) => err as Error,
        );
        await waitUntil(() => fake.requests.length >= base + 3, 'the fake Meta to receive the delayed ad-set batch', 20_000);
        atKill = {
          campaigns: fake.objectsOf(ACCOUNT, 'campaign').length,
          adSets: fake.objectsOf(ACCOUNT, 'adset').length,
          ads: fake.objectsOf(ACCOUNT, 'ad').length,
        };
        await first.stop('SIGKILL');
        interrupted = await inFlight;

        second = await startSvcServer(['serve'], { env });
        const retry = client.on(second.url);
        retries = [];
        const deadline = Date.now() + 30_000;
        for (;;) {
          const r = await retry.publish(launch.launchId, key);
          retries.push(r);
          if (r.status !== 409 || Date.now() > deadline) break;
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
        final = retries[retries.length - 1];
        client = retry;
      });
      after(async () => {
        await first?.stop('SIGKILL').catch(() => {});
        await second?.stop().catch(() => {});
        await live?.close();
      });

      it('killed the first server with the publish in flight, after the campaign and ad sets existed on the platform', () => {
        expect(interrupted, 'the answer of the killed server').to.be.instanceOf(Error);
        expect(atKill).to.deep.equal({ campaigns: 1, adSets: AD_SETS, ads: 0 });
      });

      it('answers the retry with the same key 200 once the lease has expired (409 idempotency_conflict before it)', () => {
        expect(final.status, describeReply(final)).to.equal(200);
        for (const r of retries.slice(0, -1)) {
          expect(r.status, describeReply(r)).to.equal(409);
          expect(r.body.error.code).to.equal('idempotency_conflict');
        }
        expect(final.body).to.include({ confirmed: true, status: 'published' });
      });

      it('publishes the launch with every node live and carrying its platform id', async () => {
        const tree = (await client.launch(launch.launchId)).body;
        expect(tree.status).to.equal('published');
        const nodes = nodesOf(tree);
        expect(nodes.length).to.equal(launch.objectCount);
        const byId = new Map(fake.objectsOf(ACCOUNT).map((o) => [o.id, o]));
        for (const n of nodes) {
          expect(n.status, `node ${n.id}`).to.equal('live');
          const o = byId.get(n.platformId ?? '');
          expect(o, `platform object of node ${n.id}`).to.not.equal(undefined);
          expect(markerOf(fake, o!)).to.equal(n.id);
        }
      });

      it(`leaves on the platform exactly one campaign, ${AD_SETS} ad sets and ${AD_SETS * ADS_PER_SET} ads, none created twice`, () => {
        const all = fake.objectsOf(ACCOUNT);
        const count = (level: string) => all.filter((o) => o.level === level).length;
        expect({ campaigns: count('campaign'), adSets: count('adset'), ads: count('ad') }).to.deep.equal({
          campaigns: 1,
          adSets: AD_SETS,
          ads: AD_SETS * ADS_PER_SET,
        });
        expect(all.map((o) => markerOf(fake, o)).sort()).to.deep.equal([...launch.nodeIds].sort());
        expect(all.filter((o) => o.status === 'DELETED')).to.deep.equal([]);
        expect(all.find((o) => o.level === 'campaign')!.status).to.equal('ACTIVE');
      });

      it('counts the launch once against the ceiling', async () => {
        expect(await committedCents(reader, apiKeyId)).to.equal(launch.countedCents);
        const ledger = await reader('spend_commitments')
          .where({ launch_id: Number(launch.launchId) })
          .select('state', 'amount_cents');
        expect(ledger.map((r) => [r.state, Number(r.amount_cents)])).to.deep.equal([['committed', launch.countedCents]]);
      });
    });

    // The other way into the resume path: a 'publishing' launch not touched for JOB_LEASE_MS
    // counts as crashed and a publish with any key takes it over. A publish that is alive but slow
    // (a platform answer taking longer than the lease) must not be taken over.
    describe('a second publish with a new key while a slow live publish is still running past the lease', () => {
      useEncryptionKey();
      const LEASE_MS = 1500;
      let live: LiveBackend | undefined;
      let fake: FakeMetaServer;
      let reader: Knex;
      let server: ServerProcess | undefined;
      let apiKeyId: number;
      let launch: BuiltLaunch;
      let firstReply: HttpReply;
      let secondReply: HttpReply;

      before(async function () {
        this.timeout(90_000);
        live = await startLiveBackend(dialect as Dialect, LEASE_MS);
        ({ fake, reader, apiKeyId } = live);
        server = await startSvcServer(['serve'], { env: live.env });
        const client = live.client(server.url);
        launch = await buildLaunch(client, { adSets: 2, adsPerSet: 2, creativeId: await client.uploadCreative() });

        // The ad-set batch is applied at once but answered only after 2.5 x the lease.
        const base = fake.requests.length;
        fake.slowNext(1, 0);
        fake.slowNext(1, LEASE_MS * 2.5);
        const first = client.publish(launch.launchId, newKey('slow'));
        await waitUntil(() => fake.requests.length >= base + 2, 'the fake Meta to receive the slow ad-set batch', 20_000);
        await new Promise((resolve) => setTimeout(resolve, LEASE_MS + 300));
        secondReply = await client.publish(launch.launchId, newKey('impatient'));
        firstReply = await first;
      });
      after(async () => {
        await server?.stop().catch(() => {});
        await live?.close();
      });

      it('answers the second publish 409 conflict while the first is still running', () => {
        expect(secondReply.status, describeReply(secondReply)).to.equal(409);
        expect(secondReply.body.error.code).to.equal('conflict');
      });

      it('lets the first publish finish: 200, published', () => {
        expect(firstReply.status, describeReply(firstReply)).to.equal(200);
        expect(firstReply.body.status).to.equal('published');
      });

      it('creates every platform object exactly once and counts the launch once', async () => {
        const all = fake.objectsOf(ACCOUNT);
        const count = (level: string) => all.filter((o) => o.level === level).length;
        expect({ campaigns: count('campaign'), adSets: count('adset'), ads: count('ad') }).to.deep.equal({ campaigns: 1, adSets: 2, ads: 4 });
        expect(await committedCents(reader, apiKeyId)).to.equal(launch.countedCents);
      });
    });
  });
}
