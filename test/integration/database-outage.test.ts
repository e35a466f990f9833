// A database outage under steady traffic (paths.md "Faults"): a `svc-server` process on a MariaDB of
// the test's own; the test kills the database while requests keep coming. Every answer during the
// outage is 503 `unavailable` with Retry-After (never 500), the process stays up, and once the
// database is back requests succeed again without a restart.

import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { BrandClient, exampleWorld, waitUntil, type HttpReply } from '../helpers/launches.js';
import { PrivateMariaDb } from '../helpers/private-mariadb.js';
import { runSvcServer, startSvcServer, type ServerProcess } from '../helpers/processes.js';

describe('a database outage during steady requests (a private MariaDB, stopped and started)', function () {
  this.timeout(180_000);
  let mariadb: PrivateMariaDb;
  let server: ServerProcess;
  let client: BrandClient;
  let creatives: string;
  const steady: HttpReply[] = [];
  const during: HttpReply[] = [];
  let afterRestart: HttpReply;

  // One read and one write, over and over: what a busy integration sends.
  const traffic = async (into: HttpReply[], until: () => boolean) => {
    let i = 0;
    while (!until()) {
      i++;
      const [read, write] = await Promise.all([
        client.api('GET', '/launches?limit=5'),
        client.api('POST', '/launches', { title: `Steady ${i}` }, { 'Idempotency-Key': `steady-${crypto.randomBytes(6).toString('hex')}` }),
      ]);
      into.push(read, write);
    }
  };

  before(async () => {
    mariadb = await PrivateMariaDb.create();
    creatives = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-outage-creatives-'));
    // KEY_CACHE_MS=0: every request authenticates against the database, so none is served from memory alone.
    const env = { DATABASE_URL: mariadb.url(), CREATIVES_DIR: creatives, KEY_CACHE_MS: '0', RATE_LIMIT_PER_MINUTE: '1000000', RATE_LIMIT_CONCURRENCY: '1000' };
    const boot = await runSvcServer(['bootstrap', '-'], { env, input: JSON.stringify(exampleWorld(500)), timeoutMs: 60_000 });
    if (boot.code !== 0) throw new Error(`bootstrap failed (${boot.code}):\n${boot.stdout}\n${boot.stderr}`);
    const seed = JSON.parse(boot.stdout);
    server = await startSvcServer(['serve'], { env, timeoutMs: 60_000 });
    client = new BrandClient(server.url, seed.organizations.acme.apiKeys.ci.secret, seed.organizations.acme.brands.shoes.id);

    await traffic(steady, () => steady.length >= 20);
    let stopped = false;
    const running = traffic(during, () => stopped && during.length >= 40);
    await mariadb.stop('SIGKILL');
    // What was in flight when the database died is counted with the outage's answers below.
    await new Promise((r) => setTimeout(r, 1500));
    stopped = true;
    await running;

    await mariadb.start();
    let last: HttpReply | undefined;
    await waitUntil(
      async () => {
        last = await client.api('GET', '/launches?limit=5');
        return last.status === 200;
      },
      'a request to succeed after the database came back',
      30_000,
      200,
    );
    afterRestart = last!;
  });

  after(async () => {
    await server?.stop().catch(() => {});
    await mariadb?.remove();
    fs.rmSync(creatives, { recursive: true, force: true });
  });

  it('serves the steady traffic before the outage (reads 200, writes 201)', () => {
    expect(steady.map((r) => r.status).filter((s) => s !== 200 && s !== 201)).to.deep.equal([]);
  });

  it('answers every request during the outage 503 unavailable with Retry-After, or as before when it finished first; never 500', () => {
    const statuses = during.map((r) => r.status);
    expect(
      statuses.filter((s) => s === 500),
      'answers 500',
    ).to.deep.equal([]);
    const refused = during.filter((r) => r.status !== 200 && r.status !== 201);
    expect(refused.length, 'answers refused during the outage').to.be.at.least(30);
    for (const r of refused) {
      expect(r.status, JSON.stringify(r.body)).to.equal(503);
      expect(r.body.error.code).to.equal('unavailable');
      expect(r.body.error.message).to.match(/database/i);
      expect(Number(r.headers.get('retry-after')), 'Retry-After seconds').to.be.greaterThan(0);
    }
  });

  it('stays up through the outage and answers again once the database is back, without a restart', async () => {
    expect(server.running).to.equal(true);
    expect(afterRestart.status).to.equal(200);
    const write = await client.api('POST', '/launches', { title: 'After the outage' }, { 'Idempotency-Key': `after-${crypto.randomBytes(6).toString('hex')}` });
    expect(write.status, JSON.stringify(write.body)).to.equal(201);
  });
});
