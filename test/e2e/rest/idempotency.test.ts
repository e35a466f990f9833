// Idempotency-Key over a real listening server: replays, conflicts, scoping per credential,
// what is never stored, concurrency and expiry, on each storage dialect.

import { expect } from 'chai';
import { dialects } from '../../helpers/databases.js';
import { startWorld, type Reply, type World } from '../../helpers/world.js';
import { activityCount, testOperations, testSchemas } from '../../helpers/test-operations.js';
import { purgeExpiredIdempotencyKeys } from '../../../src/pipeline/idempotency.js';

const HOUR = 3_600_000;

function expectError(reply: Reply, status: number, code: string): any {
  expect(reply.status, JSON.stringify(reply.body)).to.equal(status);
  expect(reply.body.error.code).to.equal(code);
  expect(reply.body.error.message).to.be.a('string').and.not.empty;
  expect(reply.body.error.requestId).to.equal(reply.headers.get('service-request-id'));
  return reply.body.error;
}

/** A fresh acting answer: the operation ran (no replay header). */
function expectActed(reply: Reply, status = 201): void {
  expect(reply.status, JSON.stringify(reply.body)).to.equal(status);
  expect(reply.headers.get('idempotent-replayed')).to.equal(null);
  expect(reply.body.requestId).to.equal(reply.headers.get('service-request-id'));
}

/** A replay of `first`: same status and body, marked, under a new request id. */
function expectReplayOf(reply: Reply, first: Reply): void {
  expect(reply.status, JSON.stringify(reply.body)).to.equal(first.status);
  expect(reply.headers.get('idempotent-replayed')).to.equal('true');
  expect(reply.body).to.deep.equal(first.body);
  expect(reply.headers.get('service-request-id')).to.not.equal(first.headers.get('service-request-id'));
}

for (const dialect of dialects()) {
  describe(`REST idempotency (${dialect})`, function () {
    let world: World;
    let ci: string;
    let acme: number;
    let brandSeq = 0;
    let keySeq = 0;

    before(async () => {
      // KEY_CACHE_MS=0: changes to a key's scopes or revocation apply to the next request.
      world = await startWorld({ dialect, extraOperations: testOperations, extraSchemas: testSchemas, env: { KEY_CACHE_MS: '0' } });
      ci = world.key('acme', 'ci');
      acme = world.seed.organizations.acme.id;
    });
    after(async () => world?.close());

    /** A fresh acme brand, so activity counts start at zero for each test. */
    async function newBrand(): Promise<number> {
      const [id] = await world.service.knex('brands').insert({ organization_id: acme, name: `Idem ${++brandSeq}`, active: true, created_at: Date.now() });
      return Number(id);
    }
    const newKey = () => `idem-${dialect}-${++keySeq}-${Date.now()}`;
    const echo = (brand: number, body: unknown, idempotencyKey: string | null, key: string | null = ci) =>
      world.request('POST', `/v1/brands/${brand}/test-echo`, { key, body, headers: idempotencyKey === null ? {} : { 'idempotency-key': idempotencyKey } });
    const acted = (brand: number) => activityCount(world.service.knex, brand);
    const records = async () => Number((await world.service.knex('idempotency_records').where('organization_id', acme).count({ n: '*' }))[0].n);

    it('returns the first response, marked Idempotent-Replayed: true, to a retry with the same key, without acting again', async () => {
      const brand = await newBrand();
      const key = newKey();
      const first = await echo(brand, { echo: 'once', mode: 'loud' }, key);
      expectActed(first);
      expect(first.body).to.deep.include({ echo: 'ONCE', executions: 1 });
      for (let i = 0; i < 3; i++) {
        expectReplayOf(await echo(brand, { echo: 'once', mode: 'loud' }, key), first);
      }
      expect(await acted(brand)).to.equal(1);
    });

    it('treats the same body with its fields in another order as the same request', async () => {
      const brand = await newBrand();
      const key = newKey();
      const first = await echo(brand, { echo: 'order', count: 2, tags: ['a', 'b'] }, key);
      expectActed(first);
      const reordered = await world.request('POST', `/v1/brands/${brand}/test-echo`, {
        key: ci,
        rawBody: '{"tags":["a","b"],"count":2,"echo":"order"}',
        headers: { 'content-type': 'application/json', 'idempotency-key': key },
      });
      expectReplayOf(reordered, first);
      expect(await acted(brand)).to.equal(1);
    });

    it('acts every time without a key', async () => {
      const brand = await newBrand();
      for (let i = 1; i <= 3; i++) {
        const reply = await echo(brand, { echo: 'again' }, null);
        expectActed(reply);
        expect(reply.body.executions).to.equal(i);
      }
      expect(await acted(brand)).to.equal(3);
    });

    const differentRequests: Array<{ name: string; second: (brand: number, other: number) => [number, unknown] }> = [
      { name: 'a different body value', second: (b) => [b, { echo: 'two' }] },
      { name: 'an extra optional field', second: (b) => [b, { echo: 'one', mode: 'plain' }] },
      { name: 'another brand in the path', second: (_b, other) => [other, { echo: 'one' }] },
    ];
    for (const row of differentRequests) {
      it(`answers 409 idempotency_conflict to the same key with ${row.name}, and acts on nothing`, async () => {
        const brand = await newBrand();
        const other = await newBrand();
        const key = newKey();
        const first = await echo(brand, { echo: 'one' }, key);
        expectActed(first);
        const [b, body] = row.second(brand, other);
        const err = expectError(await echo(b, body, key), 409, 'idempotency_conflict');
        expect(err.details).to.deep.equal({ reason: 'different_request' });
        expect(await acted(brand)).to.equal(1);
        expect(await acted(other)).to.equal(0);
        // The original request still replays.
        expectReplayOf(await echo(brand, { echo: 'one' }, key), first);
      });
    }

    it('answers 409 idempotency_conflict with Retry-After while the first request with the key is still running, then replays it', async function () {
      this.timeout(10_000);
      const brand = await newBrand();
      const key = newKey();
      const sleep = () => world.request('POST', `/v1/brands/${brand}/test-sleep`, { key: ci, body: { ms: 1500 }, headers: { 'idempotency-key': key } });
      const running = sleep();
      // Wait until the first request holds the key.
      for (
        let i = 0;
        i < 100 && (await world.service.knex('idempotency_records').where({ organization_id: acme, state: 'running' }).count({ n: '*' }))[0].n == 0;
        i++
      ) {
        await new Promise((r) => setTimeout(r, 20));
      }
      const second = await sleep();
      const err = expectError(second, 409, 'idempotency_conflict');
      expect(err.details).to.deep.equal({ reason: 'in_progress' });
      expect(second.headers.get('retry-after')).to.match(/^[1-9]\d*$/);

      const first = await running;
      expectActed(first, 200);
      expect(first.body).to.deep.include({ slept: 1500, executions: 1 });
      expectReplayOf(await sleep(), first);
      expect(await acted(brand)).to.equal(1);
    });

    it('scopes keys per credential: another API key with the same Idempotency-Key acts anew', async () => {
      const brand = await newBrand();
      const key = newKey();
      const byCi = await echo(brand, { echo: 'shared' }, key, ci);
      expectActed(byCi);
      expect(byCi.body.executions).to.equal(1);
      const byWriter = await echo(brand, { echo: 'shared' }, key, world.key('acme', 'writer'));
      expectActed(byWriter);
      expect(byWriter.body.executions).to.equal(2);
      // Each credential replays its own first response.
      expectReplayOf(await echo(brand, { echo: 'shared' }, key, ci), byCi);
      expectReplayOf(await echo(brand, { echo: 'shared' }, key, world.key('acme', 'writer')), byWriter);
      expect(await acted(brand)).to.equal(2);
    });

    it('scopes keys per operation: the same key on another operation acts anew', async () => {
      const brand = await newBrand();
      const key = newKey();
      expectActed(await echo(brand, { echo: 'op' }, key));
      const other = await world.request('POST', `/v1/brands/${brand}/test-required-key`, { key: ci, body: {}, headers: { 'idempotency-key': key } });
      expectActed(other, 200);
      expect(other.body.executions).to.equal(2);
    });

    it('refuses an Idempotency-Key longer than 255 characters with 400, and accepts 255', async () => {
      const brand = await newBrand();
      const err = expectError(await echo(brand, { echo: 'long' }, 'k'.repeat(256)), 400, 'validation_failed');
      expect(err.details.map((d: any) => [d.field, d.code])).to.deep.equal([['Idempotency-Key', 'too_big']]);
      expect(await acted(brand)).to.equal(0);
      const key = `${newKey()}-`.padEnd(255, 'k');
      const first = await echo(brand, { echo: 'long' }, key);
      expectActed(first);
      expectReplayOf(await echo(brand, { echo: 'long' }, key), first);
      expect(await acted(brand)).to.equal(1);
    });

    it('refuses an empty Idempotency-Key with 400', async () => {
      const brand = await newBrand();
      const err = expectError(await echo(brand, { echo: 'empty' }, ''), 400, 'validation_failed');
      expect(err.details.map((d: any) => d.field)).to.deep.equal(['Idempotency-Key']);
      expect(await acted(brand)).to.equal(0);
    });

    it('answers 400 idempotency_key_required when an operation that requires a key gets none', async () => {
      const brand = await newBrand();
      const path = `/v1/brands/${brand}/test-required-key`;
      expectError(await world.request('POST', path, { key: ci, body: { note: 'x' } }), 400, 'idempotency_key_required');
      expect(await acted(brand)).to.equal(0);
      const key = newKey();
      const first = await world.request('POST', path, { key: ci, body: { note: 'x' }, headers: { 'idempotency-key': key } });
      expectActed(first, 200);
      expectReplayOf(await world.request('POST', path, { key: ci, body: { note: 'x' }, headers: { 'idempotency-key': key } }), first);
    });

    it('ignores Idempotency-Key on an operation that takes none', async () => {
      const before = await records();
      const reply = await world.request('GET', '/v1/brands', { key: ci, headers: { 'idempotency-key': newKey() } });
      expect(reply.status).to.equal(200);
      expect(reply.headers.get('idempotent-replayed')).to.equal(null);
      expect(await records()).to.equal(before);
    });

    describe('requests refused before the handler are not stored; once fixed, the same key acts', () => {
      const refusals: Array<{
        name: string;
        status: number;
        code: string;
        refuse: (w: World, brand: number, key: string) => Promise<Reply>;
        fix?: (w: World) => Promise<void>;
        undo?: (w: World) => Promise<void>;
        retry: (w: World, brand: number, key: string) => Promise<Reply>;
      }> = [
        {
          name: 'an invalid body (400)',
          status: 400,
          code: 'validation_failed',
          refuse: (w, brand, key) =>
            w.request('POST', `/v1/brands/${brand}/test-echo`, {
              key: w.key('acme', 'ci'),
              body: { echo: 'fixed', mode: 'shout' },
              headers: { 'idempotency-key': key },
            }),
          retry: (w, brand, key) =>
            w.request('POST', `/v1/brands/${brand}/test-echo`, {
              key: w.key('acme', 'ci'),
              body: { echo: 'fixed', mode: 'loud' },
              headers: { 'idempotency-key': key },
            }),
        },
        {
          name: 'an unknown body field (400)',
          status: 400,
          code: 'validation_failed',
          refuse: (w, brand, key) =>
            w.request('POST', `/v1/brands/${brand}/test-echo`, {
              key: w.key('acme', 'ci'),
              body: { echo: 'fixed', extra: 1 },
              headers: { 'idempotency-key': key },
            }),
          retry: (w, brand, key) =>
            w.request('POST', `/v1/brands/${brand}/test-echo`, { key: w.key('acme', 'ci'), body: { echo: 'fixed' }, headers: { 'idempotency-key': key } }),
        },
        {
          name: 'a revoked key (401), then restored',
          status: 401,
          code: 'unauthenticated',
          refuse: async (w, brand, key) => {
            await w.service.knex('api_keys').where({ id: w.seed.organizations.acme.apiKeys.writer.id }).update({ revoked_at: Date.now() });
            return w.request('POST', `/v1/brands/${brand}/test-echo`, {
              key: w.key('acme', 'writer'),
              body: { echo: 'fixed' },
              headers: { 'idempotency-key': key },
            });
          },
          fix: async (w) => {
            await w.service.knex('api_keys').where({ id: w.seed.organizations.acme.apiKeys.writer.id }).update({ revoked_at: null });
          },
          retry: (w, brand, key) =>
            w.request('POST', `/v1/brands/${brand}/test-echo`, { key: w.key('acme', 'writer'), body: { echo: 'fixed' }, headers: { 'idempotency-key': key } }),
        },
        {
          name: 'a missing credential (401)',
          status: 401,
          code: 'unauthenticated',
          refuse: (w, brand, key) =>
            w.request('POST', `/v1/brands/${brand}/test-echo`, { key: null, body: { echo: 'fixed' }, headers: { 'idempotency-key': key } }),
          retry: (w, brand, key) =>
            w.request('POST', `/v1/brands/${brand}/test-echo`, { key: w.key('acme', 'ci'), body: { echo: 'fixed' }, headers: { 'idempotency-key': key } }),
        },
        {
          name: 'a key without the write scope (403), then given it',
          status: 403,
          code: 'insufficient_scope',
          refuse: (w, brand, key) =>
            w.request('POST', `/v1/brands/${brand}/test-echo`, { key: w.key('acme', 'reader'), body: { echo: 'fixed' }, headers: { 'idempotency-key': key } }),
          fix: async (w) => {
            await w.service.knex('api_keys').where({ id: w.seed.organizations.acme.apiKeys.reader.id }).update({ scopes: 'read,write' });
          },
          undo: async (w) => {
            await w.service.knex('api_keys').where({ id: w.seed.organizations.acme.apiKeys.reader.id }).update({ scopes: 'read' });
          },
          retry: (w, brand, key) =>
            w.request('POST', `/v1/brands/${brand}/test-echo`, { key: w.key('acme', 'reader'), body: { echo: 'fixed' }, headers: { 'idempotency-key': key } }),
        },
        {
          name: 'a brand outside the key limit (403)',
          status: 403,
          code: 'brand_not_allowed',
          refuse: (w, _brand, key) =>
            w.request('POST', `/v1/brands/${w.brandId('acme', 'hats')}/test-echo`, {
              key: w.key('acme', 'limited'),
              body: { echo: 'fixed' },
              headers: { 'idempotency-key': key },
            }),
          // The same key on the allowed brand: a stored refusal would answer 409 (different request).
          retry: (w, _brand, key) =>
            w.request('POST', `/v1/brands/${w.brandId('acme', 'shoes')}/test-echo`, {
              key: w.key('acme', 'limited'),
              body: { echo: 'fixed' },
              headers: { 'idempotency-key': key },
            }),
        },
      ];
      for (const row of refusals) {
        it(`does not store ${row.name}`, async () => {
          const brand = await newBrand();
          const key = newKey();
          const before = await records();
          try {
            expectError(await row.refuse(world, brand, key), row.status, row.code);
            expect(await records()).to.equal(before);
            expect(await acted(brand)).to.equal(0);
            await row.fix?.(world);
            const retry = await row.retry(world, brand, key);
            expectActed(retry);
            expect(await records()).to.equal(before + 1);
          } finally {
            await row.undo?.(world);
          }
        });
      }
    });

    it('does not store a failed handler: the retry with the same key acts, and its answer is then replayed', async () => {
      const brand = await newBrand();
      const key = newKey();
      const body = { echo: 'flaky', failAttempts: 1, token: key };
      const before = await records();
      const failed = await echo(brand, body, key);
      const err = expectError(failed, 500, 'internal_error');
      expect(err.message).to.not.contain('injected failure');
      expect(await records()).to.equal(before);
      expect(await acted(brand)).to.equal(0); // the failed transaction left nothing behind

      const retry = await echo(brand, body, key);
      expectActed(retry);
      expect(retry.body.executions).to.equal(1);
      expectReplayOf(await echo(brand, body, key), retry);
      expect(await acted(brand)).to.equal(1);
    });

    it('never replays a handler that always fails', async () => {
      const brand = await newBrand();
      const key = newKey();
      for (let i = 0; i < 3; i++) {
        const reply = await world.request('POST', `/v1/brands/${brand}/test-crash`, { key: ci, body: {}, headers: { 'idempotency-key': key } });
        expectError(reply, 500, 'internal_error');
        expect(reply.headers.get('idempotent-replayed')).to.equal(null);
      }
      const [pending] = await world.service.knex('idempotency_records').where('organization_id', acme).whereNot('state', 'done').count({ n: '*' });
      expect(Number(pending.n)).to.equal(0);
    });

    it('acts exactly once for 10 concurrent identical requests with one key', async () => {
      const brand = await newBrand();
      const key = newKey();
      const replies = await Promise.all(Array.from({ length: 10 }, () => echo(brand, { echo: 'race' }, key)));
      const fresh = replies.filter((r) => r.status === 201 && r.headers.get('idempotent-replayed') === null);
      const replayed = replies.filter((r) => r.status === 201 && r.headers.get('idempotent-replayed') === 'true');
      const busy = replies.filter((r) => r.status === 409);
      expect(fresh, replies.map((r) => `${r.status} ${JSON.stringify(r.body)}`).join('\n')).to.have.length(1);
      expect(fresh.length + replayed.length + busy.length).to.equal(10);
      for (const r of replayed) expect(r.body).to.deep.equal(fresh[0].body);
      for (const r of busy) expect(r.body.error.code).to.equal('idempotency_conflict');
      expect(fresh[0].body.executions).to.equal(1);
      expect(await acted(brand)).to.equal(1);
      expectReplayOf(await echo(brand, { echo: 'race' }, key), fresh[0]);
    });

    it('acts exactly once for 10 concurrent requests with one key to a slow operation; the others get 409 with Retry-After', async function () {
      this.timeout(10_000);
      const brand = await newBrand();
      const key = newKey();
      const sleep = () => world.request('POST', `/v1/brands/${brand}/test-sleep`, { key: ci, body: { ms: 400 }, headers: { 'idempotency-key': key } });
      const replies = await Promise.all(Array.from({ length: 10 }, sleep));
      const fresh = replies.filter((r) => r.status === 200 && r.headers.get('idempotent-replayed') === null);
      const busy = replies.filter((r) => r.status === 409);
      expect(fresh, replies.map((r) => `${r.status} ${JSON.stringify(r.body)}`).join('\n')).to.have.length(1);
      expect(busy).to.have.length(9);
      for (const r of busy) {
        expect(r.body.error.code).to.equal('idempotency_conflict');
        expect(r.body.error.details).to.deep.equal({ reason: 'in_progress' });
        expect(r.headers.get('retry-after')).to.match(/^[1-9]\d*$/);
      }
      expect(await acted(brand)).to.equal(1);
      expectReplayOf(await sleep(), fresh[0]);
    });

    it('purges records older than 24 hours; the key then acts again', async () => {
      const brand = await newBrand();
      const key = newKey();
      const first = await echo(brand, { echo: 'old' }, key);
      expectActed(first);
      const rowsNow = () =>
        world.service
          .knex('idempotency_records')
          .where('organization_id', acme)
          .where('created_at', '>=', Date.now() - HOUR)
          .count({ n: '*' });
      const kept = Number((await rowsNow())[0].n);
      expect(kept).to.be.greaterThan(0);

      // Not yet expired: nothing goes, the key still replays.
      expect(await purgeExpiredIdempotencyKeys(world.service.knex, Date.now() + 23 * HOUR)).to.equal(0);
      expectReplayOf(await echo(brand, { echo: 'old' }, key), first);

      const purged = await purgeExpiredIdempotencyKeys(world.service.knex, Date.now() + 25 * HOUR);
      expect(purged).to.equal(kept);
      expect(await records()).to.equal(0);

      const again = await echo(brand, { echo: 'old' }, key);
      expectActed(again);
      expect(again.body.executions).to.equal(2);
      expect(await acted(brand)).to.equal(2);
    });

    it('acts again on a key whose record expired but was not purged yet', async () => {
      const brand = await newBrand();
      const key = newKey();
      const first = await echo(brand, { echo: 'stale' }, key);
      expectActed(first);
      await world.service
        .knex('idempotency_records')
        .where('organization_id', acme)
        .where('state', 'done')
        .update({ expires_at: Date.now() - 1 });
      const again = await echo(brand, { echo: 'stale' }, key);
      expectActed(again);
      expect(again.body.executions).to.equal(2);
      expectReplayOf(await echo(brand, { echo: 'stale' }, key), again);
    });
  });
}
