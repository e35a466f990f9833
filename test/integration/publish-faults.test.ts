// A live publish interrupted by each fault of paths.md "Faults", with nobody retrying: the service
// must end it by itself (the finish-publish job) in `published` with every recorded object live on
// the platform, or `publish_failed` with nothing live and the reservation released. The faults:
//   - the database (a private MariaDB) killed mid-publish and started again;
//   - the server process SIGKILLed mid-publish and started again (no request retried);
//   - the platform down for longer than the request budget (REQUEST_TIMEOUT_MS): the 504 names the
//     launch and says the publish goes on;
//   - the platform answering every request in 2.5 s with a 4 s request budget: 504, then the
//     publish ends by itself within the lease plus a minute (the job is not held to the budget).
// The platform is the fake Meta (test/fakes/meta-server.ts) with added latency.

import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import knexFactory, { type Knex } from 'knex';
import { FakeMetaServer } from '../fakes/meta-server.js';
import { BrandClient, buildLaunch, liveExampleWorld, waitUntil, type BuiltLaunch, type HttpReply } from '../helpers/launches.js';
import { PrivateMariaDb } from '../helpers/private-mariadb.js';
import { runSvcServer, startSvcServer, type ServerProcess } from '../helpers/processes.js';

const ACCOUNT = 'act_1001';
/** The publish's claim (JOB_LEASE_MS, the lease of every job): how long an interrupted publish waits before the job takes it over. */
const LEASE_MS = 5_000;

interface Backend {
  fake: FakeMetaServer;
  reader: Knex;
  env: Record<string, string>;
  seed: any;
  client(url: string): BrandClient;
  close(): Promise<void>;
}

async function startBackend(mariadb: PrivateMariaDb, env: Record<string, string> = {}): Promise<Backend> {
  const fake = await FakeMetaServer.start();
  const token = fake.addAccount(ACCOUNT);
  const name = `svc_${crypto.randomBytes(4).toString('hex')}`;
  const admin = knexFactory({ client: 'mysql2', connection: { host: '127.0.0.1', port: mariadb.port, user: 'root' }, pool: { min: 0, max: 1 } });
  await admin.raw(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
  await admin.destroy();
  const creatives = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-faults-creatives-'));
  const fullEnv = {
    DATABASE_URL: mariadb.url(name),
    PLATFORM_MODE: 'live',
    META_GRAPH_URL: fake.url,
    TOKEN_ENCRYPTION_KEY: crypto.randomBytes(32).toString('base64'),
    JOB_LEASE_MS: String(LEASE_MS),
    CREATIVES_DIR: creatives,
    RATE_LIMIT_PER_MINUTE: '1000000',
    RATE_LIMIT_CONCURRENCY: '1000',
    ...env,
  };
  const boot = await runSvcServer(['bootstrap', '-'], { env: fullEnv, input: JSON.stringify(liveExampleWorld(500, token)), timeoutMs: 60_000 });
  if (boot.code !== 0) throw new Error(`bootstrap failed (${boot.code}):\n${boot.stdout}\n${boot.stderr}`);
  const seed = JSON.parse(boot.stdout);
  const reader = knexFactory({
    client: 'mysql2',
    connection: { host: '127.0.0.1', port: mariadb.port, user: 'root', database: name },
    pool: { min: 0, max: 2 },
  });
  return {
    fake,
    reader,
    env: fullEnv,
    seed,
    client: (url) => new BrandClient(url, seed.organizations.acme.apiKeys.ci.secret, seed.organizations.acme.brands.shoes.id),
    close: async () => {
      await reader.destroy();
      await fake.close();
      fs.rmSync(creatives, { recursive: true, force: true });
    },
  };
}

/** Reads through the test's own connection, retrying while the database is still coming back. */
async function launchRow(b: Backend, launchId: string): Promise<Record<string, any> | undefined> {
  try {
    return await b
      .reader('launches')
      .where({ id: Number(launchId) })
      .first();
  } catch {
    return undefined;
  }
}

/** Waits, without any request to the service, until the launch has left `publishing`. */
async function settled(b: Backend, launchId: string): Promise<string> {
  let status = 'publishing';
  // The lease, the job's claim tick and a resume on a slow platform: well within the lease plus a minute.
  await waitUntil(
    async () => {
      status = (await launchRow(b, launchId))?.status ?? 'publishing';
      return status !== 'publishing';
    },
    `launch ${launchId} to end published or publish_failed by itself`,
    LEASE_MS + 60_000,
    250,
  );
  return status;
}

/** The invariant of paths.md "Faults": the launch, its nodes, the ceiling's ledger and the platform agree. */
async function expectAgreement(b: Backend, launch: BuiltLaunch, ...others: BuiltLaunch[]): Promise<string> {
  const row = await launchRow(b, launch.launchId);
  const nodes: Array<Record<string, any>> = await b.reader('launch_nodes').where({ launch_id: Number(launch.launchId) });
  // Objects another launch of the same account recorded are that launch's to agree on.
  const theirs = new Set(
    (
      await b
        .reader('launch_nodes')
        .whereIn(
          'launch_id',
          others.map((o) => Number(o.launchId)),
        )
        .whereNotNull('platform_id')
        .pluck('platform_id')
    ).map(String),
  );
  const live = b.fake.objectsOf(ACCOUNT).filter((o) => o.status !== 'DELETED' && !theirs.has(o.id));
  const commitments: Array<Record<string, any>> = await b.reader('spend_commitments').where({ launch_id: Number(launch.launchId) });
  expect(
    commitments.filter((c) => c.state === 'reserved'),
    'reservations left open',
  ).to.deep.equal([]);
  if (row!.status === 'published') {
    expect(nodes.length).to.equal(launch.objectCount);
    for (const n of nodes) {
      expect(n.status, `node ${n.id}`).to.equal('live');
      const object = b.fake.objects.get(String(n.platform_id));
      expect(object, `platform object of node ${n.id}`).to.not.equal(undefined);
      expect(object!.status, `platform object of node ${n.id}`).to.not.equal('DELETED');
    }
    expect(live.map((o) => o.id).sort(), 'live objects on the platform are exactly the recorded ones').to.deep.equal(
      nodes.map((n) => String(n.platform_id)).sort(),
    );
    expect(committedOf(commitments), 'committed for this launch').to.equal(launch.countedCents);
  } else {
    expect(row!.status).to.equal('publish_failed');
    expect(
      live.map((o) => `${o.level} ${o.id}`),
      'objects left live on the platform',
    ).to.deep.equal([]);
    for (const n of nodes) expect(n.platform_id, `platform id of node ${n.id}`).to.equal(null);
    expect(committedOf(commitments), 'committed after the rollback').to.equal(0);
  }
  return row!.status;
}

const committedOf = (commitments: Array<Record<string, any>>) =>
  commitments.filter((c) => c.state === 'committed').reduce((sum, c) => sum + Number(c.amount_cents), 0);

/** What the calling key has committed in all: the ceiling's own counter. */
async function keyCommitted(b: Backend): Promise<number> {
  const key = await b.reader('api_keys').where({ id: b.seed.organizations.acme.apiKeys.ci.id }).first('committed_cents');
  return Number(key.committed_cents);
}

async function activityActions(b: Backend, launchId: string): Promise<string[]> {
  const rows = await b.reader('activity_entries').where({ entity_id: launchId }).orderBy('id').select('action');
  return rows.map((r) => r.action);
}

/** A launch of 1 campaign, 4 ad sets and 2 ads each (13 objects), its creative uploaded. */
async function launchOn(client: BrandClient): Promise<BuiltLaunch> {
  const creativeId = await client.uploadCreative();
  return buildLaunch(client, { title: `Faults ${crypto.randomBytes(3).toString('hex')}`, adSets: 4, adsPerSet: 2, creativeId });
}

describe('a live publish interrupted by a fault ends by itself, agreeing with the platform (private MariaDB, fake Meta)', function () {
  this.timeout(240_000);
  let mariadb: PrivateMariaDb;

  before(async () => {
    mariadb = await PrivateMariaDb.create();
  });
  after(async () => {
    await mariadb?.remove();
  });

  describe('the database killed in the middle of two publishes and started again, nobody retrying', () => {
    let b: Backend;
    let server: ServerProcess;
    let launch: BuiltLaunch;
    let other: BuiltLaunch;
    let answer: HttpReply | Error;
    let status: string;
    let otherStatus: string;

    before(async () => {
      b = await startBackend(mariadb);
      server = await startSvcServer(['serve'], { env: b.env, timeoutMs: 60_000 });
      const client = b.client(server.url);
      launch = await launchOn(client);
      other = await launchOn(client);
      b.fake.delayMs = 150;
      const inFlight = client.publish(launch.launchId, `db-${crypto.randomBytes(4).toString('hex')}`).catch((e: Error) => e);
      const otherInFlight = client.publish(other.launchId, `db2-${crypto.randomBytes(4).toString('hex')}`).catch((e: Error) => e);
      await waitUntil(() => b.fake.objectsOf(ACCOUNT, 'adset').length >= 1, 'the first ad sets on the platform', 30_000);
      await mariadb.stop('SIGKILL');
      answer = await inFlight;
      await otherInFlight;
      await new Promise((r) => setTimeout(r, 1_000));
      await mariadb.start();
      // Each within the lease plus a minute of the database's return (settled fails past it).
      [status, otherStatus] = await Promise.all([settled(b, launch.launchId), settled(b, other.launchId)]);
    });
    after(async () => {
      await server?.stop().catch(() => {});
      await b?.close();
    });

    it('answers the interrupted publish 503 unavailable with Retry-After (not 500)', () => {
      expect(answer).to.not.be.instanceOf(Error);
      const r = answer as HttpReply;
      expect(r.status, JSON.stringify(r.body)).to.equal(503);
      expect(r.body.error.code).to.equal('unavailable');
      expect(Number(r.headers.get('retry-after'))).to.be.greaterThan(0);
    });

    it('ends both published with every recorded object live on the platform, or publish_failed with nothing live and the reservation released', async () => {
      expect(await expectAgreement(b, launch, other)).to.equal(status);
      expect(await expectAgreement(b, other, launch)).to.equal(otherStatus);
      const counted = [launch, other].filter((_l, i) => [status, otherStatus][i] === 'published').reduce((sum, l) => sum + l.countedCents, 0);
      expect(await keyCommitted(b), 'the ceiling counts each published launch once').to.equal(counted);
    });

    it('records in the activity log that the publish was interrupted and taken over', async () => {
      const actions = await activityActions(b, launch.launchId);
      expect(
        actions.some((a) => a.startsWith('launch.publish_interrupted')),
        actions.join(', '),
      ).to.equal(true);
    });

    it('keeps the server up: it answers again', async () => {
      expect(server.running).to.equal(true);
      expect((await b.client(server.url).launch(launch.launchId)).status).to.equal(200);
    });
  });

  describe('the server SIGKILLed mid-publish and started again, nobody retrying', () => {
    let b: Backend;
    let first: ServerProcess;
    let second: ServerProcess;
    let launch: BuiltLaunch;
    let status: string;

    before(async () => {
      b = await startBackend(mariadb);
      first = await startSvcServer(['serve'], { env: b.env, timeoutMs: 60_000 });
      const client = b.client(first.url);
      launch = await launchOn(client);
      b.fake.delayMs = 150;
      const inFlight = client.publish(launch.launchId, `kill-${crypto.randomBytes(4).toString('hex')}`).catch((e: Error) => e);
      await waitUntil(() => b.fake.objectsOf(ACCOUNT, 'adset').length >= 2, 'ad sets on the platform', 30_000);
      await first.stop('SIGKILL');
      await inFlight;
      second = await startSvcServer(['serve'], { env: b.env, timeoutMs: 60_000 });
      status = await settled(b, launch.launchId);
    });
    after(async () => {
      await first?.stop('SIGKILL').catch(() => {});
      await second?.stop().catch(() => {});
      await b?.close();
    });

    it('ends published with every recorded object live, or publish_failed with nothing live, the reservation settled either way', async () => {
      expect(await expectAgreement(b, launch)).to.equal(status);
    });

    it('creates each object at most once: no two live objects carry the same name', () => {
      const names = b.fake
        .objectsOf(ACCOUNT)
        .filter((o) => o.status !== 'DELETED')
        .map((o) => `${o.level}:${o.name}`);
      expect(new Set(names).size).to.equal(names.length);
    });

    it('records the interruption and the resume in the activity log', async () => {
      const actions = await activityActions(b, launch.launchId);
      expect(
        actions.some((a) => a.startsWith('launch.publish_interrupted')),
        actions.join(', '),
      ).to.equal(true);
    });
  });

  describe('the platform down for longer than the request budget', () => {
    let b: Backend;
    let server: ServerProcess;
    let launch: BuiltLaunch;
    let answer: HttpReply;
    let status: string;

    before(async () => {
      b = await startBackend(mariadb, { REQUEST_TIMEOUT_MS: '3000' });
      server = await startSvcServer(['serve'], { env: b.env, timeoutMs: 60_000 });
      const client = b.client(server.url);
      launch = await launchOn(client);
      b.fake.delayMs = 100;
      const inFlight = client.publish(launch.launchId, `outage-${crypto.randomBytes(4).toString('hex')}`);
      await waitUntil(() => b.fake.objectsOf(ACCOUNT, 'campaign').length >= 1, 'the campaign on the platform', 30_000);
      b.fake.outageFor(8_000);
      answer = await inFlight;
      status = await settled(b, launch.launchId);
    });
    after(async () => {
      await server?.stop().catch(() => {});
      await b?.close();
    });

    it('answers 504 timeout naming the launch and saying the publish goes on, or 503 once the publish was rolled back', () => {
      // Which comes first depends on the platform client's own deadline (REQUEST_TIMEOUT_MS less 5 s,
      // at least 1 s): past it the adapter gives up, the publish rolls back and the answer is 503.
      if (answer.status === 503) {
        expect(answer.body.error.code, JSON.stringify(answer.body)).to.equal('unavailable');
        expect(status).to.equal('publish_failed');
        return;
      }
      expect(answer.status, JSON.stringify(answer.body)).to.equal(504);
      expect(answer.body.error.code).to.equal('timeout');
      expect(answer.body.error.details).to.deep.equal({ launchId: launch.launchId, status: 'publishing' });
      expect(answer.body.error.message).to.match(/goes on/);
    });

    it('ends published with every recorded object live, or publish_failed with nothing live and the reservation released', async () => {
      expect(await expectAgreement(b, launch)).to.equal(status);
    });
  });

  describe('the platform answering every request in 2.5 s, with a 4 s request budget', () => {
    let b: Backend;
    let server: ServerProcess;
    let launch: BuiltLaunch;
    let answer: HttpReply;
    let answeredAt: number;
    let endedAt: number;
    let status: string;

    before(async () => {
      b = await startBackend(mariadb, { REQUEST_TIMEOUT_MS: '4000' });
      server = await startSvcServer(['serve'], { env: b.env, timeoutMs: 60_000 });
      const client = b.client(server.url);
      launch = await launchOn(client);
      // A preview reads the account's minimum budgets, which the server keeps for the publish: the slow
      // platform then meets the publish itself, not its validation.
      expect((await client.publish(launch.launchId, `preview-${crypto.randomBytes(4).toString('hex')}`, false)).status).to.equal(200);
      b.fake.delayMs = 2_500;
      answer = await client.publish(launch.launchId, `slow-${crypto.randomBytes(4).toString('hex')}`);
      answeredAt = Date.now();
      status = await settled(b, launch.launchId);
      endedAt = Date.now();
    });
    after(async () => {
      await server?.stop().catch(() => {});
      await b?.close();
    });

    it('answers 504 timeout naming the launch and saying the publish goes on', () => {
      expect(answer.status, JSON.stringify(answer.body)).to.equal(504);
      expect(answer.body.error.details).to.deep.equal({ launchId: launch.launchId, status: 'publishing' });
    });

    it('ends by itself within the lease plus a minute of the answer, agreeing with the platform and the ceiling', async () => {
      expect(endedAt - answeredAt).to.be.below(LEASE_MS + 60_000);
      expect(await expectAgreement(b, launch)).to.equal(status);
    });
  });
});
