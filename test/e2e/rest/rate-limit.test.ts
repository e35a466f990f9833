// Per-organization rate limits over a real listening server: the RateLimit-* headers, 429
// rate_limited with Retry-After, the budget shared by an organization's keys and no one else's,
// the in-flight limit, and one budget shared through Redis by two server processes.

import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { Redis } from 'ioredis';
import { openDatabase } from '../../../src/db/connection.js';
import { createTestDatabase, dialects, type TestDatabase } from '../../helpers/databases.js';
import { standardWorld } from '../../helpers/fixture.js';
import { runSvcServer, startSvcServer, stopAllServers, type ServerProcess } from '../../helpers/processes.js';
import { slowGate, slowOperation, slowSchema } from '../../helpers/slow-operation.js';
import { startWorld, type Reply, type World } from '../../helpers/world.js';

const REDIS_URL = process.env.TEST_REDIS_URL || 'redis://127.0.0.1:6379';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The limiter counts in fixed one-minute windows. A test that counts down a budget must not straddle
 * a window boundary: when less than `roomMs` is left in this minute, wait for the next one.
 * (The servers run on this machine, so they share this clock.)
 */
async function roomyWindow(roomMs = 8_000): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < roomMs) await sleep(left + 250);
}

interface Limits {
  limit: number;
  remaining: number;
  reset: number;
}

/** The RateLimit-* headers of a reply, each required to be a whole number. */
function limitsOf(reply: { headers: Headers; status: number; body: unknown }): Limits {
  const read = (name: string) => {
    const raw = reply.headers.get(name);
    expect(raw, `${name} header on a ${reply.status} reply ${JSON.stringify(reply.body)}`).to.match(/^\d+$/);
    return Number(raw);
  };
  return { limit: read('ratelimit-limit'), remaining: read('ratelimit-remaining'), reset: read('ratelimit-reset') };
}

function expectRateLimited(reply: Reply): number {
  expect(reply.status, JSON.stringify(reply.body)).to.equal(429);
  expect(reply.body.error.code).to.equal('rate_limited');
  expect(reply.body.error.message).to.be.a('string').and.not.empty;
  expect(reply.body.error.requestId).to.equal(reply.headers.get('service-request-id'));
  expect(reply.body.error).to.have.property('details');
  const retryAfter = reply.headers.get('retry-after');
  expect(retryAfter, 'Retry-After header').to.match(/^\d+$/);
  const seconds = Number(retryAfter);
  expect(seconds).to.be.within(1, 60);
  return seconds;
}

for (const dialect of dialects()) {
  describe(`REST rate limits per organization (${dialect})`, function () {
    this.timeout(30_000);
    let world: World;
    // A fresh world (and so a fresh limiter) per test: each test spends a whole budget.
    beforeEach(async () => {
      world = await startWorld({ dialect, env: { RATE_LIMIT_PER_MINUTE: '5' } });
      await roomyWindow();
    });
    afterEach(async () => world?.close());

    it('sends RateLimit-Limit, -Remaining and -Reset on authenticated answers, success or error, counting down', async () => {
      const ci = world.key('acme', 'ci');
      const replies: Reply[] = [];
      replies.push(await world.request('GET', '/v1/brands', { key: ci }));
      replies.push(await world.request('GET', '/v1/brands?colour=red', { key: ci }));
      replies.push(await world.request('GET', '/v1/brands', { key: world.key('acme', 'writer') }));
      replies.push(await world.request('GET', '/v1/brands/999999/activity', { key: ci }));
      replies.push(await world.request('GET', `/v1/brands?limit=1`, { key: ci }));

      expect(replies.map((r) => r.status)).to.deep.equal([200, 400, 403, 404, 200]);
      expect(replies[1].body.error.code).to.equal('validation_failed');
      expect(replies[2].body.error.code).to.equal('insufficient_scope');
      expect(replies[3].body.error.code).to.equal('not_found');

      const limits = replies.map(limitsOf);
      expect(limits.map((l) => l.limit)).to.deep.equal([5, 5, 5, 5, 5]);
      expect(limits.map((l) => l.remaining)).to.deep.equal([4, 3, 2, 1, 0]);
      for (const l of limits) expect(l.reset).to.be.within(1, 60);
      for (let i = 1; i < limits.length; i++) expect(limits[i].reset).to.be.at.most(limits[i - 1].reset);
    });

    it('does not charge the organization for a request that fails authentication', async () => {
      const ci = world.key('acme', 'ci');
      const first = await world.request('GET', '/v1/brands', { key: ci });
      const refused = await world.request('GET', '/v1/brands', { key: 'svc_sk_' + 'A'.repeat(44) });
      const revoked = await world.request('GET', '/v1/brands', { key: world.key('acme', 'revoked') });
      const second = await world.request('GET', '/v1/brands', { key: ci });
      expect(refused.status).to.equal(401);
      expect(revoked.status).to.equal(401);
      expect(limitsOf(first).remaining).to.equal(4);
      expect(limitsOf(second).remaining).to.equal(3);
    });

    it('answers the request past the limit with 429 rate_limited, the envelope and Retry-After in seconds', async () => {
      const ci = world.key('acme', 'ci');
      const admitted: Reply[] = [];
      for (let i = 0; i < 5; i++) admitted.push(await world.request('GET', '/v1/brands', { key: ci }));
      expect(admitted.map((r) => r.status)).to.deep.equal([200, 200, 200, 200, 200]);

      const over = await world.request('GET', '/v1/brands', { key: ci });
      const retryAfter = expectRateLimited(over);
      const limits = limitsOf(over);
      expect(limits).to.include({ limit: 5, remaining: 0 });
      // Retry-After points at the end of the current window, not past it.
      expect(retryAfter).to.be.at.most(limitsOf(admitted[0]).reset);
      expect(retryAfter).to.equal(limits.reset);

      // The budget is the organization's, not the endpoint's: another operation is refused too.
      const elsewhere = await world.request('GET', `/v1/brands/${world.brandId('acme', 'shoes')}/activity`, { key: ci });
      expectRateLimited(elsewhere);
      expect(limitsOf(elsewhere).remaining).to.equal(0);
    });

    it('shares one budget between two keys of the same organization and leaves another organization alone', async () => {
      const ci = world.key('acme', 'ci');
      const reader = world.key('acme', 'reader');
      const remaining: number[] = [];
      for (const key of [ci, reader, ci, reader, ci]) {
        const reply = await world.request('GET', '/v1/brands', { key });
        expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
        remaining.push(limitsOf(reply).remaining);
      }
      expect(remaining).to.deep.equal([4, 3, 2, 1, 0]);

      expectRateLimited(await world.request('GET', '/v1/brands', { key: reader }));
      expectRateLimited(await world.request('GET', '/v1/brands', { key: ci }));

      const other = await world.request('GET', '/v1/brands', { key: world.key('other', 'otherKey') });
      expect(other.status, JSON.stringify(other.body)).to.equal(200);
      expect(other.body.accounts.map((a: any) => a.brandId)).to.deep.equal([world.brandId('other', 'rival')]);
      expect(limitsOf(other)).to.include({ limit: 5, remaining: 4 });
    });
  });

  describe(`REST in-flight limit per organization (${dialect})`, function () {
    this.timeout(30_000);
    let world: World;
    before(async () => {
      world = await startWorld({
        dialect,
        env: { RATE_LIMIT_PER_MINUTE: '1000', RATE_LIMIT_CONCURRENCY: '1' },
        extraOperations: [slowOperation],
        extraSchemas: [slowSchema],
      });
    });
    after(async () => world?.close());

    it('refuses a second concurrent request of the organization with 429 rate_limited while a slow one is in flight', async () => {
      const ci = world.key('acme', 'ci');
      // Verify the keys first, so the held request is the only thing the organization has running.
      expect((await world.request('GET', '/v1/brands', { key: ci })).status).to.equal(200);
      expect((await world.request('GET', '/v1/brands', { key: world.key('acme', 'reader') })).status).to.equal(200);

      const hold = slowGate.hold();
      let slow: Promise<Reply> | undefined;
      try {
        slow = world.request('GET', '/v1/test/slow?label=first', { key: ci });
        await hold.entered;

        const second = await world.request('GET', '/v1/brands', { key: ci });
        const retryAfter = expectRateLimited(second);
        expect(retryAfter).to.be.at.least(1);
        expect(limitsOf(second).limit).to.equal(1000);

        // Another key of the same organization shares the in-flight budget.
        expectRateLimited(await world.request('GET', '/v1/test/slow?label=second', { key: world.key('acme', 'reader') }));

        // Another organization has its own.
        const other = await world.request('GET', '/v1/brands', { key: world.key('other', 'otherKey') });
        expect(other.status, JSON.stringify(other.body)).to.equal(200);
      } finally {
        hold.release();
      }
      const first = await slow!;
      expect(first.status, JSON.stringify(first.body)).to.equal(200);
      expect(first.body).to.deep.equal({ label: 'first', held: true });
      limitsOf(first);

      // The slot is given back when the slow request ends.
      const after = await world.request('GET', '/v1/brands', { key: ci });
      expect(after.status, JSON.stringify(after.body)).to.equal(200);
    });
  });
}

describe('Rate limit shared through Redis by two server processes (sqlite file)', function () {
  this.timeout(40_000);
  let db: TestDatabase;
  let otherDb: TestDatabase;
  let keys: { ci: string; reader: string; other: string };
  let otherCi: string;
  let first: ServerProcess;
  let second: ServerProcess;
  let third: ServerProcess;
  const env = (url: string) => ({ DATABASE_URL: url, REDIS_URL, RATE_LIMIT_PER_MINUTE: '6' });

  const get = async (server: ServerProcess, key: string, pathname = '/v1/brands') => {
    const res = await fetch(server.url + pathname, { headers: { authorization: `Bearer ${key}` } });
    const text = await res.text();
    let body: any = text;
    try {
      body = JSON.parse(text);
    } catch {
      // leave the text for the assertion message
    }
    return { status: res.status, headers: res.headers, body } as Reply;
  };

  before(async () => {
    const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1, lazyConnect: true });
    try {
      await redis.connect();
      expect(await redis.ping()).to.equal('PONG');
    } finally {
      redis.disconnect();
    }

    db = await createTestDatabase('sqlite');
    otherDb = await createTestDatabase('sqlite');
    const seed = async (url: string) => {
      const file = path.join(path.dirname(url.slice('sqlite:'.length)), 'world.json');
      fs.writeFileSync(file, JSON.stringify(standardWorld));
      const run = await runSvcServer(['bootstrap', file], { env: { DATABASE_URL: url } });
      expect(run.code, run.stderr).to.equal(0);
      return JSON.parse(run.stdout).organizations;
    };
    const orgs = await seed(db.url);
    keys = { ci: orgs.acme.apiKeys.ci.secret, reader: orgs.acme.apiKeys.reader.secret, other: orgs.other.apiKeys.otherKey.secret };
    const otherOrgs = await seed(otherDb.url);
    // Same organization id in both databases: only the per-database namespace keeps them apart.
    expect(otherOrgs.acme.id).to.equal(orgs.acme.id);
    otherCi = otherOrgs.acme.apiKeys.ci.secret;

    [first, second, third] = await Promise.all([
      startSvcServer(['serve'], { env: env(db.url) }),
      startSvcServer(['serve'], { env: env(db.url) }),
      startSvcServer(['serve'], { env: env(otherDb.url) }),
    ]);
    expect(first.url).to.not.equal(second.url);
  });

  after(async () => {
    try {
      for (const server of [first, second, third]) if (server?.running) await server.stop();
    } finally {
      await stopAllServers();
      // Remove this run's counters (they would expire within about a minute anyway).
      const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
      try {
        for (const d of [db, otherDb]) {
          if (!d) continue;
          const knex = openDatabase(d.url).knex;
          try {
            const row = (await knex.schema.hasTable('service_settings'))
              ? await knex('service_settings').where({ name: 'instance_id' }).first('value')
              : undefined;
            if (row) {
              const stale = await redis.keys(`svc:${row.value}:*`);
              if (stale.length) await redis.del(...stale);
            }
          } finally {
            await knex.destroy();
          }
        }
      } finally {
        redis.disconnect();
      }
      await db?.drop();
      await otherDb?.drop();
    }
  });

  it('counts requests to either process against one budget: the 7th in the window is 429 whichever process answers', async () => {
    await roomyWindow(10_000);
    const route = [first, second, first, second, first, second];
    const remaining: number[] = [];
    for (const [i, server] of route.entries()) {
      const reply = await get(server, i % 2 ? keys.reader : keys.ci);
      expect(reply.status, `request ${i + 1}: ${JSON.stringify(reply.body)}`).to.equal(200);
      const limits = limitsOf(reply);
      expect(limits.limit).to.equal(6);
      remaining.push(limits.remaining);
    }
    expect(remaining).to.deep.equal([5, 4, 3, 2, 1, 0]);

    const seventh = await get(first, keys.ci);
    expectRateLimited(seventh);
    expect(limitsOf(seventh)).to.include({ limit: 6, remaining: 0 });
    const eighth = await get(second, keys.ci);
    expectRateLimited(eighth);
    expect(limitsOf(eighth)).to.include({ limit: 6, remaining: 0 });

    // Another organization of the same database keeps its own budget on both processes.
    const other = await get(second, keys.other);
    expect(other.status, JSON.stringify(other.body)).to.equal(200);
    expect(limitsOf(other).remaining).to.equal(5);

    // A server on another database with the same Redis: its organization 1 is not this one.
    const elsewhere = await get(third, otherCi);
    expect(elsewhere.status, JSON.stringify(elsewhere.body)).to.equal(200);
    expect(limitsOf(elsewhere)).to.include({ limit: 6, remaining: 5 });
  });

  it('stops each Redis-backed process cleanly on SIGTERM (exit 0)', async () => {
    const codes = await Promise.all([first, second, third].map((server) => server.stop('SIGTERM')));
    expect(codes).to.deep.equal([0, 0, 0]);
  });
});
