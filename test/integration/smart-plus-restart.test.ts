// A live TikTok Smart+ publish whose server is SIGKILLed halfway and started again, nobody retrying, on
// every dialect (a SQLite file, or a MariaDB database, shared by the two processes). The first process is
// killed once TikTok holds the campaign, both ad groups and an ad whose answer it may not have had:
//   - the restarted process carries the publish on to the end, through the Smart+ endpoints only;
//   - every object is made once: the campaign and ad groups by their int64 request_id, the ads (whose
//     create takes no request_id) found again in their ad group by name and video before any is sent;
//   - every node ends on the object TikTok holds for it, everything created DISABLE and enabled at the end.

import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import type { Knex } from 'knex';
import { openDatabase } from '../../src/db/connection.js';
import { FakeTikTokServer } from '../fakes/tiktok-server.js';
import { BrandClient, waitUntil } from '../helpers/launches.js';
import { createTestDatabase, dialects, type TestDatabase } from '../helpers/databases.js';
import { makeMp4 } from '../helpers/mp4.js';
import { runSvcServer, startSvcServer, type ServerProcess } from '../helpers/processes.js';

const ADVERTISER = '7000000000000000021';
/** The publish's claim (JOB_LEASE_MS): how long an interrupted publish waits before the job takes it over. */
const LEASE_MS = 5_000;

const world = (token: string) => ({
  organizations: [
    {
      ref: 'acme',
      name: 'Acme Smart',
      plan: 'agency',
      subscriptionStatus: 'active',
      users: [{ ref: 'olive', email: 'olive@smart.test', name: 'Olive Owner', password: 'correct horse 1', role: 'owner' }],
      brands: [
        {
          ref: 'smart',
          name: 'Smart Co',
          adAccounts: [
            {
              platform: 'tiktok',
              accountId: `biz_${ADVERTISER}`,
              name: 'Tok Smart',
              timezone: 'UTC',
              currency: 'USD',
              accessToken: token,
              identityId: '7000000000000009999',
              identityType: 'CUSTOMIZED_USER',
              smartPlusAllowed: true,
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

/** A Smart+ launch of one campaign, two ad groups and two video ads each (7 objects). */
async function smartLaunch(client: BrandClient): Promise<{ launchId: string; objectCount: number }> {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(makeMp4(1080, 1920, 15_000))], { type: 'video/mp4' }), 'spring.mp4');
  const res = await fetch(`${client.baseUrl}/v1/brands/${client.brandId}/creatives`, {
    method: 'POST',
    headers: { authorization: `Bearer ${client.key}` },
    body: form,
  });
  expect(res.status).to.equal(201);
  const creativeId = ((await res.json()) as { id: number }).id;
  const made = async (reply: { status: number; body: any }) => {
    expect(reply.status, JSON.stringify(reply.body)).to.equal(201);
    return String(reply.body.id);
  };
  const launchId = await made(await client.api('POST', '/launches', { title: 'Smart restart' }));
  const node = (nodeType: string, parentId: string | undefined, properties: Record<string, unknown>) =>
    client.api('POST', `/launches/${launchId}/nodes`, { nodeType, parentId, properties }).then(made);
  const campaignId = await node('campaign', undefined, {
    name: 'Smart restart',
    objective: 'WEB_CONVERSIONS',
    budget: { dailyAmount: 10000 },
    smartPlus: true,
  });
  for (const set of ['A', 'B']) {
    const adSetId = await node('adset', campaignId, {
      name: `Smart restart ${set}`,
      optimizationGoal: 'CONVERT',
      targeting: { countries: ['US'] },
      promotedObject: { pixelId: '7100000000000000001', customEventType: 'SHOPPING' },
    });
    for (const n of [1, 2])
      await node('ad', adSetId, {
        name: `Smart restart ${set} ad ${n}`,
        primaryText: 'Spring sale',
        linkUrl: 'https://shop.example.com/spring',
        callToAction: 'SHOP_NOW',
        creativeId,
      });
  }
  return { launchId, objectCount: 7 };
}

for (const dialect of dialects()) {
  describe(`a live TikTok Smart+ publish carried on by a restarted process (${dialect}, fake TikTok)`, function () {
    this.timeout(180_000);
    let fake: FakeTikTokServer;
    let db: TestDatabase;
    let reader: Knex;
    let dir: string;
    let first: ServerProcess | undefined;
    let second: ServerProcess | undefined;
    let launch: { launchId: string; objectCount: number };
    let status = 'publishing';
    let madeBeforeKill: string[] = [];

    before(async () => {
      fake = await FakeTikTokServer.start();
      const token = fake.addAdvertiser(ADVERTISER, { allowlisted: ['SMART_PLUS'] });
      db = await createTestDatabase(dialect);
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-smart-restart-'));
      const env = {
        DATABASE_URL: db.url,
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
      reader = openDatabase(db.url).knex;
      first = await startSvcServer(['serve'], { env, timeoutMs: 60_000 });
      const client = new BrandClient(first.url, seed.organizations.acme.apiKeys.ci.secret, seed.organizations.acme.brands.smart.id);
      launch = await smartLaunch(client);
      // Every answer waits, so the first ad is on TikTok before the process has heard of it.
      fake.delayMs = 150;
      const inFlight = client.publish(launch.launchId, `kill-${crypto.randomBytes(4).toString('hex')}`).catch((e: Error) => e);
      await waitUntil(() => fake.objectsOf(ADVERTISER, 'ad').length >= 1, 'a Smart+ ad on the platform', 60_000);
      await first.stop('SIGKILL');
      await inFlight;
      madeBeforeKill = fake.objectsOf(ADVERTISER).map((o) => `${o.level} ${o.name}`);
      fake.delayMs = 0;
      second = await startSvcServer(['serve'], { env, timeoutMs: 60_000 });
      await waitUntil(
        async () => {
          status =
            (
              await reader('launches')
                .where({ id: Number(launch.launchId) })
                .first('status')
            )?.status ?? 'publishing';
          return status !== 'publishing';
        },
        `launch ${launch.launchId} to leave publishing by itself`,
        LEASE_MS + 90_000,
        250,
      );
    });
    after(async () => {
      await first?.stop('SIGKILL').catch(() => {});
      await second?.stop().catch(() => {});
      await reader?.destroy();
      await fake?.close();
      await db?.drop();
      if (dir) fs.rmSync(dir, { recursive: true, force: true });
    });

    it('was killed halfway: the campaign, both ad groups and at least one ad on TikTok, not all four ads', () => {
      expect(madeBeforeKill.slice(0, 3)).to.deep.equal(['campaign Smart restart', 'adgroup Smart restart A', 'adgroup Smart restart B']);
      const ads = madeBeforeKill.filter((m) => m.startsWith('ad '));
      expect(ads.length).to.be.within(1, 3);
    });

    it('ends published, every node on the object TikTok holds for it, each object made once, all through the Smart+ endpoints', async () => {
      expect(status).to.equal('published');
      const nodes: Array<Record<string, any>> = await reader('launch_nodes').where({ launch_id: Number(launch.launchId) });
      expect(nodes).to.have.length(launch.objectCount);
      const objects = fake.objectsOf(ADVERTISER);
      expect(objects.map((o) => `${o.level} ${o.name}`).sort(), 'objects ever made').to.deep.equal(
        [
          'campaign Smart restart',
          'adgroup Smart restart A',
          'adgroup Smart restart B',
          ...['A', 'B'].flatMap((s) => [1, 2].map((n) => `ad Smart restart ${s} ad ${n}`)),
        ].sort(),
      );
      expect(objects.every((o) => o.smartPlus && !o.deleted)).to.equal(true);
      expect(objects.map((o) => o.id).sort()).to.deep.equal(nodes.map((n) => String(n.platform_id)).sort());
      const classic = fake.requests.filter((r) => /\/open_api\/v1\.3\/(campaign|adgroup|ad)\//.test(r.path) && r.method === 'POST');
      expect(classic, 'classic creates or updates').to.deep.equal([]);
    });

    it('created everything DISABLE and enabled it all once everything existed', () => {
      const objects = fake.objectsOf(ADVERTISER);
      expect(objects.map((o) => `${o.level} ${o.createdStatus} ${o.operationStatus}`)).to.deep.equal(objects.map((o) => `${o.level} DISABLE ENABLE`));
    });
  });
}
