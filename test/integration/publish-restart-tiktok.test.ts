// A live TikTok publish whose server is SIGKILLed mid-publish and started again, nobody retrying.
// TikTok cannot be searched by request_id, so the process that carries the publish on knows the
// objects the first one made only from what the service recorded (findCreated's `recorded` ids):
//   - carried on, it ends published with each object made once and every recorded one live;
//   - when the platform then refuses the publish, the rollback deletes what the first process made
//     too, not only what the second made (before, they were forgotten and left on the platform).
// SQLite in a file shared by the two processes; the platform is the fake TikTok with added latency.

import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import knexFactory, { type Knex } from 'knex';
import { FakeTikTokServer } from '../fakes/tiktok-server.js';
import { BrandClient, buildLaunch, waitUntil, type BuiltLaunch } from '../helpers/launches.js';
import { runSvcServer, startSvcServer, type ServerProcess } from '../helpers/processes.js';

const ADVERTISER = '7000000000000000001';
/** The publish's claim (JOB_LEASE_MS, the lease of every job): how long an interrupted publish waits before the job takes it over. */
const LEASE_MS = 5_000;

const world = (token: string) => ({
  organizations: [
    {
      ref: 'acme',
      name: 'Acme Tok',
      plan: 'agency',
      subscriptionStatus: 'active',
      users: [{ ref: 'olive', email: 'olive@tok.test', name: 'Olive Owner', password: 'correct horse 1', role: 'owner' }],
      brands: [
        {
          ref: 'tok',
          name: 'Tok Co',
          adAccounts: [
            {
              platform: 'tiktok',
              accountId: `biz_${ADVERTISER}`,
              name: 'Tok US',
              timezone: 'UTC',
              currency: 'USD',
              accessToken: token,
              identityId: '7000000000000009999',
              identityType: 'CUSTOMIZED_USER',
            },
          ],
        },
      ],
      apiKeys: [
        {
          ref: 'ci',
          name: 'CI key',
          createdBy: 'olive',
          scopes: ['read', 'write', 'publish'],
          surfaces: { api: true, mcp: false },
          publishCeilingDollars: 500,
        },
      ],
    },
  ],
});

interface Backend {
  fake: FakeTikTokServer;
  reader: Knex;
  env: Record<string, string>;
  client(url: string): BrandClient;
  close(): Promise<void>;
}

async function startBackend(): Promise<Backend> {
  const fake = await FakeTikTokServer.start();
  const token = fake.addAdvertiser(ADVERTISER);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-tiktok-restart-'));
  const env = {
    DATABASE_URL: `sqlite:${path.join(dir, 'svc.sqlite')}`,
    PLATFORM_MODE: 'live',
    TIKTOK_API_URL: fake.url,
    TOKEN_ENCRYPTION_KEY: crypto.randomBytes(32).toString('base64'),
    JOB_LEASE_MS: String(LEASE_MS),
    CREATIVES_DIR: path.join(dir, 'creatives'),
    RATE_LIMIT_PER_MINUTE: '1000000',
    RATE_LIMIT_CONCURRENCY: '1000',
  };
  fs.mkdirSync(env.CREATIVES_DIR);
  const boot = await runSvcServer(['bootstrap', '-'], { env, input: JSON.stringify(world(token)), timeoutMs: 60_000 });
  if (boot.code !== 0) throw new Error(`bootstrap failed (${boot.code}):\n${boot.stdout}\n${boot.stderr}`);
  const seed = JSON.parse(boot.stdout);
  const reader = knexFactory({ client: 'better-sqlite3', connection: { filename: path.join(dir, 'svc.sqlite') }, useNullAsDefault: true });
  return {
    fake,
    reader,
    env,
    client: (url) => new BrandClient(url, seed.organizations.acme.apiKeys.ci.secret, seed.organizations.acme.brands.tok.id),
    close: async () => {
      await reader.destroy();
      await fake.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A launch of 1 campaign, 4 ad groups and 2 ads each (13 objects) in TikTok's vocabulary, its creative uploaded. */
async function launchOn(client: BrandClient): Promise<BuiltLaunch> {
  const creativeId = await client.uploadCreative();
  return buildLaunch(client, {
    title: `Restart ${crypto.randomBytes(3).toString('hex')}`,
    adSets: 4,
    adsPerSet: 2,
    creativeId,
    campaign: { objective: 'TRAFFIC' },
    // An image ad runs outside TikTok's in-feed placement.
    adset: { optimizationGoal: 'CLICK', billingEvent: 'CPC', placements: { positions: ['PLACEMENT_PANGLE'] } },
  });
}

/** Waits, without any request to the service, until the launch has left `publishing`. */
async function settled(b: Backend, launchId: string): Promise<string> {
  let status = 'publishing';
  await waitUntil(
    async () => {
      status =
        (
          await b
            .reader('launches')
            .where({ id: Number(launchId) })
            .first('status')
        )?.status ?? 'publishing';
      return status !== 'publishing';
    },
    `launch ${launchId} to end published or publish_failed by itself`,
    LEASE_MS + 60_000,
    250,
  );
  return status;
}

const liveObjects = (b: Backend) => b.fake.objectsOf(ADVERTISER).filter((o) => !o.deleted);

/** Starts a publish, SIGKILLs the server once `madeBeforeKill` ad groups exist, and answers the server started after it. */
async function publishAndKill(b: Backend, launch: BuiltLaunch, first: ServerProcess, beforeRestart: () => void = () => {}): Promise<ServerProcess> {
  b.fake.delayMs = 150;
  const inFlight = b
    .client(first.url)
    .publish(launch.launchId, `kill-${crypto.randomBytes(4).toString('hex')}`)
    .catch((e: Error) => e);
  await waitUntil(() => b.fake.objectsOf(ADVERTISER, 'adgroup').length >= 2, 'ad groups on the platform', 30_000);
  await first.stop('SIGKILL');
  await inFlight;
  const made = b.fake.objectsOf(ADVERTISER).length;
  expect(made, 'objects the first process made').to.be.greaterThan(2);
  beforeRestart();
  b.fake.delayMs = 0;
  return startSvcServer(['serve'], { env: b.env, timeoutMs: 60_000 });
}

/**
 * Registers the hooks of one scenario: a backend, a launch published on a first server that is
 * SIGKILLed mid-publish, `beforeRestart`, a second server, and the launch's settled status.
 */
function interrupted(beforeRestart?: (b: Backend) => void): { b: Backend; launch: BuiltLaunch; status: string } {
  const state = {} as { b: Backend; launch: BuiltLaunch; status: string };
  let first: ServerProcess;
  let second: ServerProcess;
  before(async () => {
    state.b = await startBackend();
    first = await startSvcServer(['serve'], { env: state.b.env, timeoutMs: 60_000 });
    state.launch = await launchOn(state.b.client(first.url));
    second = await publishAndKill(state.b, state.launch, first, () => beforeRestart?.(state.b));
    state.status = await settled(state.b, state.launch.launchId);
  });
  after(async () => {
    await first?.stop('SIGKILL').catch(() => {});
    await second?.stop().catch(() => {});
    await state.b?.close();
  });
  return state;
}

const nodesOf = (b: Backend, launch: BuiltLaunch): Promise<Array<Record<string, any>>> =>
  b.reader('launch_nodes').where({ launch_id: Number(launch.launchId) });

describe('a live TikTok publish carried on by a restarted process (sqlite file, fake TikTok)', function () {
  this.timeout(180_000);

  describe('the server SIGKILLed mid-publish, carried on to the end', () => {
    const run = interrupted();

    it('ends published, every node live on the object the platform holds, each object made once', async () => {
      expect(run.status).to.equal('published');
      const nodes = await nodesOf(run.b, run.launch);
      expect(nodes).to.have.length(run.launch.objectCount);
      expect(
        liveObjects(run.b)
          .map((o) => o.id)
          .sort(),
        'live objects are exactly the recorded ones',
      ).to.deep.equal(nodes.map((n) => String(n.platform_id)).sort());
      expect(run.b.fake.objectsOf(ADVERTISER).length, 'objects ever made').to.equal(run.launch.objectCount);
      // Both processes created every ad group and ad DISABLE; the end of the publish enabled them all.
      const children = run.b.fake.objectsOf(ADVERTISER).filter((o) => o.level !== 'campaign');
      expect(children.map((o) => o.createdStatus)).to.deep.equal(children.map(() => 'DISABLE'));
      expect(liveObjects(run.b).map((o) => `${o.level} ${o.operationStatus}`)).to.deep.equal(liveObjects(run.b).map((o) => `${o.level} ENABLE`));
    });
  });

  describe('the server SIGKILLed mid-publish, then the platform refuses the campaign: rolled back by the restarted process', () => {
    // The campaign was made by the first process; TikTok now refuses to enable it, so the publish must roll back.
    const run = interrupted((b) => {
      const [campaign] = b.fake.objectsOf(ADVERTISER, 'campaign');
      b.fake.refuseStatusOf(campaign.id, 'The campaign cannot be enabled in its current state.', false, ['ENABLE']);
    });

    it("ends publish_failed with nothing of the launch live on TikTok, the first process's objects included", async () => {
      expect(run.status).to.equal('publish_failed');
      expect(
        liveObjects(run.b).map((o) => `${o.level} ${o.id} ${o.name}`),
        'objects left live on the platform',
      ).to.deep.equal([]);
      for (const n of await nodesOf(run.b, run.launch)) expect(n.platform_id, `platform id of node ${n.id}`).to.equal(null);
    });
  });
});
