// The error rules of the interface contract over a real listening server: the envelope, the
// request id, unknown paths, bodies (JSON, Content-Type, size), unknown fields, detail codes,
// internal errors, timeouts and ambiguous ad accounts, on each storage dialect.

import http from 'node:http';
import { expect } from 'chai';
import { dialects } from '../../helpers/databases.js';
import { startWorld, type Reply, type World } from '../../helpers/world.js';
import { CRASH_SECRET, testOperations, testSchemas } from '../../helpers/test-operations.js';

const MB5 = 5 * 1024 * 1024;
// The contract only says a string; the error schema bounds it at 64 characters.
const REQUEST_ID = /^[A-Za-z0-9_-]{8,64}$/;

/** The exact envelope {error:{code,message,details,requestId}} with requestId equal to the header. */
function expectEnvelope(reply: Reply, status: number, code: string): any {
  expect(reply.status, JSON.stringify(reply.body)?.slice(0, 500)).to.equal(status);
  expect(reply.headers.get('content-type')).to.match(/^application\/json/);
  expect(Object.keys(reply.body)).to.deep.equal(['error']);
  expect(Object.keys(reply.body.error).sort()).to.deep.equal(['code', 'details', 'message', 'requestId']);
  expect(reply.body.error.code).to.equal(code);
  expect(reply.body.error.message).to.be.a('string').and.not.empty;
  expect(reply.body.error.requestId).to.match(REQUEST_ID);
  expect(reply.body.error.requestId).to.equal(reply.headers.get('service-request-id'));
  return reply.body.error;
}

/** Each detail is exactly {field, message, code}. */
function expectDetails(details: unknown): Array<{ field: string; message: string; code: string }> {
  expect(details).to.be.an('array').that.is.not.empty;
  for (const d of details as Array<Record<string, unknown>>) {
    expect(Object.keys(d).sort()).to.deep.equal(['code', 'field', 'message']);
    expect(d.field).to.be.a('string');
    expect(d.message).to.be.a('string').and.not.empty;
    expect(d.code).to.be.a('string');
  }
  return details as Array<{ field: string; message: string; code: string }>;
}

interface RawReply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: any;
  /** Bytes the client had written when the answer arrived. */
  sentWhenAnswered: number;
}

/**
 * Streams `total` bytes of a JSON-looking body with chunked transfer encoding (no Content-Length)
 * and never ends the request: only a server that refuses while streaming can answer.
 */
function streamChunked(url: string, path: string, key: string, total: number): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const target = new URL(path, url);
    let sent = 0;
    let answered = false;
    const req = http.request(
      {
        method: 'POST',
        hostname: target.hostname,
        port: target.port,
        path: target.pathname,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
      },
      (res) => {
        answered = true;
        const sentWhenAnswered = sent;
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          req.destroy();
          const text = Buffer.concat(chunks).toString('utf8');
          let body: unknown = text;
          try {
            body = JSON.parse(text);
          } catch {
            // leave the text for the assertion
          }
          resolve({ status: res.statusCode!, headers: res.headers, body, sentWhenAnswered });
        });
      },
    );
    req.on('error', (err) => {
      if (!answered) reject(err);
    });
    const timer = setTimeout(() => {
      if (!answered) {
        req.destroy();
        reject(new Error(`no answer after streaming ${sent} bytes without ending the request`));
      }
    }, 8_000);
    req.on('close', () => clearTimeout(timer));
    const chunk = Buffer.alloc(256 * 1024, 'a');
    const write = () => {
      if (answered || req.destroyed) return;
      if (sent === 0) {
        req.write('{"echo":"');
        sent += 9;
      }
      while (sent < total && !answered) {
        sent += chunk.length;
        if (!req.write(chunk)) {
          req.once('drain', write);
          return;
        }
      }
      // Deliberately no req.end(): the server must refuse without waiting for the end.
    };
    write();
  });
}

for (const dialect of dialects()) {
  describe(`REST errors (${dialect})`, function () {
    let world: World;
    let ci: string;
    let shoes: number;
    before(async () => {
      world = await startWorld({ dialect, extraOperations: testOperations, extraSchemas: testSchemas });
      ci = world.key('acme', 'ci');
      shoes = world.brandId('acme', 'shoes');
    });
    after(async () => world?.close());

    const echoPath = () => `/v1/brands/${shoes}/test-echo`;

    describe('Service-Request-Id', () => {
      const cases: Array<{ name: string; status: number; send: (w: World) => Promise<Reply> }> = [
        { name: 'a success', status: 200, send: (w) => w.request('GET', '/v1/brands', { key: w.key('acme', 'ci') }) },
        {
          name: 'a created answer',
          status: 201,
          send: (w) => w.request('POST', `/v1/brands/${w.brandId('acme', 'shoes')}/test-echo`, { key: w.key('acme', 'ci'), body: { echo: 'hi' } }),
        },
        { name: 'an unknown path', status: 404, send: (w) => w.request('GET', '/v1/no-such-thing', { key: w.key('acme', 'ci') }) },
        { name: 'a missing credential', status: 401, send: (w) => w.request('GET', '/v1/brands') },
        {
          name: 'a body refused before the route handler runs (invalid JSON)',
          status: 400,
          send: (w) =>
            w.request('POST', `/v1/brands/${w.brandId('acme', 'shoes')}/test-echo`, {
              key: w.key('acme', 'ci'),
              rawBody: '{oops',
              headers: { 'content-type': 'application/json' },
            }),
        },
        {
          name: 'a body refused for its Content-Type',
          status: 400,
          send: (w) =>
            w.request('POST', `/v1/brands/${w.brandId('acme', 'shoes')}/test-echo`, {
              key: w.key('acme', 'ci'),
              rawBody: 'echo=hi',
              headers: { 'content-type': 'application/x-www-form-urlencoded' },
            }),
        },
        {
          name: 'a body refused for its declared size',
          status: 413,
          send: (w) =>
            w.request('POST', `/v1/brands/${w.brandId('acme', 'shoes')}/test-echo`, {
              key: w.key('acme', 'ci'),
              rawBody: Buffer.alloc(MB5 + 1, ' '),
              headers: { 'content-type': 'application/json' },
            }),
        },
        {
          name: 'an internal error',
          status: 500,
          send: (w) => w.request('POST', `/v1/brands/${w.brandId('acme', 'shoes')}/test-crash`, { key: w.key('acme', 'ci'), body: {} }),
        },
      ];
      for (const c of cases) {
        it(`is on ${c.name} (${c.status}), and equals error.requestId on errors`, async () => {
          const reply = await c.send(world);
          expect(reply.status, JSON.stringify(reply.body)?.slice(0, 300)).to.equal(c.status);
          const id = reply.headers.get('service-request-id');
          expect(id).to.match(REQUEST_ID);
          if (c.status >= 400) expect(reply.body.error.requestId).to.equal(id);
        });
      }

      it('is different on every response', async () => {
        const ids = new Set<string | null>();
        for (let i = 0; i < 5; i++) ids.add((await world.request('GET', '/v1/brands', { key: ci })).headers.get('service-request-id'));
        expect(ids.size).to.equal(5);
      });
    });

    describe('unknown paths', () => {
      const paths: Array<[string, string, boolean]> = [
        ['GET', '/v1/no-such-thing', true],
        ['GET', '/no-such-thing', true],
        ['GET', '/v2/brands', true],
        ['GET', '/v1/brands/1/no-such-thing', true],
        ['DELETE', '/v1/brands', true],
        ['POST', '/v1/brands', true],
        ['GET', '/v1/no-such-thing', false],
      ];
      for (const [method, path, withKey] of paths) {
        it(`answers 404 not_found with details null for ${method} ${path}${withKey ? '' : ' without a credential'}`, async () => {
          const err = expectEnvelope(await world.request(method, path, { key: withKey ? ci : null }), 404, 'not_found');
          expect(err.details).to.equal(null);
        });
      }
    });

    describe('request bodies', () => {
      const invalidJson = ['{oops', '{"echo": "hi"', '{"echo": "hi",}', "{'echo': 'hi'}", '{"echo": "hi"} trailing'];
      for (const raw of invalidJson) {
        it(`answers 400 validation_failed, details null, for the invalid JSON ${JSON.stringify(raw)}`, async () => {
          const err = expectEnvelope(
            await world.request('POST', echoPath(), { key: ci, rawBody: raw, headers: { 'content-type': 'application/json' } }),
            400,
            'validation_failed',
          );
          expect(err.details).to.equal(null);
          expect(err.message).to.match(/not valid JSON/);
        });
      }

      const notObjects = ['[{"echo":"hi"}]', '[]', '"hi"', '42', 'null', 'true'];
      for (const raw of notObjects) {
        it(`answers 400 validation_failed, details null, for the JSON body ${raw}, which is not an object`, async () => {
          const err = expectEnvelope(
            await world.request('POST', echoPath(), { key: ci, rawBody: raw, headers: { 'content-type': 'application/json' } }),
            400,
            'validation_failed',
          );
          expect(err.details).to.equal(null);
          expect(err.message).to.match(/JSON/);
        });
      }

      const contentTypes = ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml'];
      for (const type of contentTypes) {
        it(`answers 400 validation_failed naming Content-Type for a JSON body sent as ${type}`, async () => {
          const err = expectEnvelope(
            await world.request('POST', echoPath(), { key: ci, rawBody: '{"echo":"hi"}', headers: { 'content-type': type } }),
            400,
            'validation_failed',
          );
          expect(expectDetails(err.details).map((d) => d.field)).to.deep.equal(['Content-Type']);
        });
      }

      it('accepts application/json with a charset', async () => {
        const reply = await world.request('POST', echoPath(), {
          key: ci,
          rawBody: '{"echo":"hi"}',
          headers: { 'content-type': 'application/json; charset=utf-8' },
        });
        expect(reply.status, JSON.stringify(reply.body)).to.equal(201);
        expect(reply.body.echo).to.equal('hi');
      });

      it('answers 413 validation_failed for a declared Content-Length over 5 MB, before authenticating', async () => {
        const reply = await world.request('POST', echoPath(), {
          key: ci,
          rawBody: Buffer.alloc(MB5 + 1, ' '),
          headers: { 'content-type': 'application/json' },
        });
        const err = expectEnvelope(reply, 413, 'validation_failed');
        expect(expectDetails(err.details)).to.deep.equal([{ field: 'body', code: 'too_big', message: 'must be at most 5 MB' }]);
      });

      it('reads a body of exactly 5 MB (it reaches validation, not 413)', async () => {
        const head = '{"echo":"hi","pad":"';
        const raw = head + 'x'.repeat(MB5 - head.length - 2) + '"}';
        expect(Buffer.byteLength(raw)).to.equal(MB5);
        const err = expectEnvelope(
          await world.request('POST', echoPath(), { key: ci, rawBody: raw, headers: { 'content-type': 'application/json' } }),
          400,
          'validation_failed',
        );
        expect(expectDetails(err.details).map((d) => [d.field, d.code])).to.deep.equal([['pad', 'unrecognized_key']]);
      });

      it('refuses a chunked body without Content-Length while it streams past 5 MB, with 413', async function () {
        this.timeout(15_000);
        const reply = await streamChunked(world.url, echoPath(), ci, MB5 + 2 * 1024 * 1024);
        expect(reply.status, JSON.stringify(reply.body)).to.equal(413);
        expect(reply.body.error.code).to.equal('validation_failed');
        expect(reply.body.error.details).to.deep.equal([{ field: 'body', code: 'too_big', message: 'must be at most 5 MB' }]);
        expect(reply.body.error.requestId).to.equal(reply.headers['service-request-id']);
        // The answer came before the client finished (it never ends the request).
        expect(reply.sentWhenAnswered).to.be.greaterThan(MB5);
      });

      it('accepts a chunked body under 5 MB', async () => {
        const reply = await new Promise<{ status: number; body: any }>((resolve, reject) => {
          const target = new URL(echoPath(), world.url);
          const req = http.request(
            {
              method: 'POST',
              hostname: target.hostname,
              port: target.port,
              path: target.pathname,
              headers: { authorization: `Bearer ${ci}`, 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
            },
            (res) => {
              let text = '';
              res.on('data', (c) => (text += c));
              res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
            },
          );
          req.on('error', reject);
          req.write('{"echo":');
          req.write('"chunked"}');
          req.end();
        });
        expect(reply.status, JSON.stringify(reply.body)).to.equal(201);
        expect(reply.body.echo).to.equal('chunked');
      });
    });

    describe('unknown fields', () => {
      const cases: Array<{ name: string; method: string; path: (w: World) => string; body?: unknown; field: string }> = [
        { name: 'an unknown query field on GET /v1/brands', method: 'GET', path: () => '/v1/brands?colour=red', field: 'colour' },
        {
          name: 'an unknown query field on the activity list',
          method: 'GET',
          path: (w) => `/v1/brands/${w.brandId('acme', 'shoes')}/activity?since=2024-01-01`,
          field: 'since',
        },
        {
          name: 'a path parameter repeated in the query',
          method: 'GET',
          path: (w) => `/v1/brands/${w.brandId('acme', 'shoes')}/activity?brandId=2`,
          field: 'brandId',
        },
        {
          name: 'a query field on a POST',
          method: 'POST',
          path: (w) => `/v1/brands/${w.brandId('acme', 'shoes')}/test-echo?dryRun=true`,
          body: { echo: 'hi' },
          field: 'dryRun',
        },
        {
          name: 'an unknown body field',
          method: 'POST',
          path: (w) => `/v1/brands/${w.brandId('acme', 'shoes')}/test-echo`,
          body: { echo: 'hi', colour: 'red' },
          field: 'colour',
        },
        {
          name: 'a path parameter repeated in the body',
          method: 'POST',
          path: (w) => `/v1/brands/${w.brandId('acme', 'shoes')}/test-echo`,
          body: { echo: 'hi', brandId: 2 },
          field: 'brandId',
        },
      ];
      for (const c of cases) {
        it(`answers 400 with an unrecognized_key detail for ${c.name}`, async () => {
          const err = expectEnvelope(await world.request(c.method, c.path(world), { key: ci, body: c.body }), 400, 'validation_failed');
          const details = expectDetails(err.details);
          expect(details).to.have.length(1);
          expect(details[0].field).to.equal(c.field);
          expect(details[0].code).to.equal('unrecognized_key');
          expect(details[0].message).to.match(/not recognised/);
        });
      }

      it('acts on nothing when a body has an unknown field', async () => {
        const before = await world.service.knex('activity_entries').where('brand_id', shoes).count({ n: '*' });
        await world.request('POST', echoPath(), { key: ci, body: { echo: 'hi', colour: 'red' } });
        const after = await world.service.knex('activity_entries').where('brand_id', shoes).count({ n: '*' });
        expect(Number(after[0].n)).to.equal(Number(before[0].n));
      });
    });

    describe('detail codes', () => {
      const activity = (w: World, q: string) => `/v1/brands/${w.brandId('acme', 'shoes')}/activity?${q}`;
      const cases: Array<{ name: string; method: string; path: (w: World) => string; body?: unknown; field: string; code: string }> = [
        { name: 'days above 90', method: 'GET', path: (w) => activity(w, 'days=91'), field: 'days', code: 'too_big' },
        { name: 'days below 1', method: 'GET', path: (w) => activity(w, 'days=0'), field: 'days', code: 'too_small' },
        { name: 'days not a number', method: 'GET', path: (w) => activity(w, 'days=week'), field: 'days', code: 'invalid_type' },
        { name: 'limit 0', method: 'GET', path: (w) => activity(w, 'limit=0'), field: 'limit', code: 'too_small' },
        { name: 'limit 101', method: 'GET', path: (w) => activity(w, 'limit=101'), field: 'limit', code: 'too_big' },
        { name: 'limit not an integer', method: 'GET', path: (w) => activity(w, 'limit=2.5'), field: 'limit', code: 'invalid_type' },
        { name: 'a repeated limit', method: 'GET', path: (w) => activity(w, 'limit=1&limit=2'), field: 'limit', code: 'invalid_type' },
        { name: 'userId not a number', method: 'GET', path: (w) => activity(w, 'userId=olive'), field: 'userId', code: 'invalid_type' },
        { name: 'userId negative', method: 'GET', path: (w) => activity(w, 'userId=-1'), field: 'userId', code: 'too_small' },
        { name: 'entityId empty', method: 'GET', path: (w) => activity(w, 'entityId='), field: 'entityId', code: 'too_small' },
        { name: 'entityId over 64 characters', method: 'GET', path: (w) => activity(w, `entityId=${'e'.repeat(65)}`), field: 'entityId', code: 'too_big' },
        { name: 'brandId not an integer', method: 'GET', path: () => '/v1/brands/shoes/activity', field: 'brandId', code: 'invalid_type' },
        {
          name: 'a body string sent as a number',
          method: 'POST',
          path: (w) => `/v1/brands/${w.brandId('acme', 'shoes')}/test-echo`,
          body: { echo: 123 },
          field: 'echo',
          code: 'invalid_type',
        },
        {
          name: 'a required body field missing',
          method: 'POST',
          path: (w) => `/v1/brands/${w.brandId('acme', 'shoes')}/test-echo`,
          body: {},
          field: 'echo',
          code: 'invalid_type',
        },
        {
          name: 'a body string empty',
          method: 'POST',
          path: (w) => `/v1/brands/${w.brandId('acme', 'shoes')}/test-echo`,
          body: { echo: '' },
          field: 'echo',
          code: 'too_small',
        },
        {
          name: 'a body string too long',
          method: 'POST',
          path: (w) => `/v1/brands/${w.brandId('acme', 'shoes')}/test-echo`,
          body: { echo: 'x'.repeat(201) },
          field: 'echo',
          code: 'too_big',
        },
        {
          name: 'a body enum value not allowed',
          method: 'POST',
          path: (w) => `/v1/brands/${w.brandId('acme', 'shoes')}/test-echo`,
          body: { echo: 'hi', mode: 'shout' },
          field: 'mode',
          code: 'invalid_value',
        },
        {
          name: 'a body number above its maximum',
          method: 'POST',
          path: (w) => `/v1/brands/${w.brandId('acme', 'shoes')}/test-echo`,
          body: { echo: 'hi', count: 11 },
          field: 'count',
          code: 'too_big',
        },
        {
          name: 'a body number sent as a string (bodies are never coerced)',
          method: 'POST',
          path: (w) => `/v1/brands/${w.brandId('acme', 'shoes')}/test-echo`,
          body: { echo: 'hi', count: '2' },
          field: 'count',
          code: 'invalid_type',
        },
        {
          name: 'a body array too long',
          method: 'POST',
          path: (w) => `/v1/brands/${w.brandId('acme', 'shoes')}/test-echo`,
          body: { echo: 'hi', tags: ['a', 'b', 'c', 'd'] },
          field: 'tags',
          code: 'too_big',
        },
        {
          name: 'a body array item of the wrong type',
          method: 'POST',
          path: (w) => `/v1/brands/${w.brandId('acme', 'shoes')}/test-echo`,
          body: { echo: 'hi', tags: ['a', 7] },
          field: 'tags[1]',
          code: 'invalid_type',
        },
      ];
      for (const c of cases) {
        it(`gives ${c.code} on ${c.field} for ${c.name}`, async () => {
          const err = expectEnvelope(await world.request(c.method, c.path(world), { key: ci, body: c.body }), 400, 'validation_failed');
          const details = expectDetails(err.details);
          expect(details.map((d) => [d.field, d.code])).to.deep.equal([[c.field, c.code]]);
        });
      }

      it('lists one detail per invalid field', async () => {
        const err = expectEnvelope(
          await world.request('GET', `/v1/brands/${shoes}/activity?days=91&limit=0&userId=x&junk=1`, { key: ci }),
          400,
          'validation_failed',
        );
        const got = expectDetails(err.details)
          .map((d) => `${d.field}:${d.code}`)
          .sort();
        expect(got).to.deep.equal(['days:too_big', 'junk:unrecognized_key', 'limit:too_small', 'userId:invalid_type']);
      });
    });

    describe('internal errors', () => {
      it('answers 500 internal_error without the thrown message', async () => {
        const reply = await world.request('POST', `/v1/brands/${shoes}/test-crash`, { key: ci, body: {} });
        const err = expectEnvelope(reply, 500, 'internal_error');
        expect(err.details).to.equal(null);
        expect(err.message).to.not.contain(CRASH_SECRET);
        expect(err.message).to.not.contain('connection failed');
        expect(JSON.stringify(reply.body)).to.not.contain('hunter2');
      });
    });

    describe('account_ambiguous', () => {
      const multi = () => `/v1/brands/${world.brandId('acme', 'multi')}/activity`;

      it('answers 422 account_ambiguous, listing the accounts, for a brand with several ad accounts and no accountId', async () => {
        const err = expectEnvelope(await world.request('GET', multi(), { key: ci }), 422, 'account_ambiguous');
        expect(err.details).to.deep.equal({ accountIds: ['act_2001', 'biz_2002'] });
      });

      for (const accountId of ['act_2001', 'biz_2002']) {
        it(`answers 200 with accountId=${accountId}, one of the brand's accounts`, async () => {
          const reply = await world.request('GET', `${multi()}?accountId=${accountId}`, { key: ci });
          expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
          expect(reply.body).to.have.keys('summary', 'activities', 'nextCursor');
        });
      }

      for (const accountId of ['act_1001', 'act_9001', 'act_0000']) {
        it(`answers 404 not_found with accountId=${accountId}, not attached to the brand`, async () => {
          expectEnvelope(await world.request('GET', `${multi()}?accountId=${accountId}`, { key: ci }), 404, 'not_found');
        });
      }

      it('does not ask for accountId on a brand with one ad account', async () => {
        const reply = await world.request('GET', `/v1/brands/${shoes}/activity`, { key: ci });
        expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
      });
    });
  });

  describe(`REST request timeout (${dialect})`, function () {
    let world: World;
    before(async () => {
      world = await startWorld({ dialect, extraOperations: testOperations, extraSchemas: testSchemas, env: { REQUEST_TIMEOUT_MS: '300' } });
    });
    after(async () => world?.close());

    it('answers 504 timeout when the operation runs past REQUEST_TIMEOUT_MS; a retry with the same key gets the late result', async function () {
      this.timeout(10_000);
      const key = world.key('acme', 'ci');
      const path = `/v1/brands/${world.brandId('acme', 'shoes')}/test-sleep`;
      const headers = { 'idempotency-key': 'timeout-1' };
      const started = Date.now();
      const reply = await world.request('POST', path, { key, body: { ms: 1200 }, headers });
      const err = expectEnvelope(reply, 504, 'timeout');
      expect(err.details).to.equal(null);
      expect(Date.now() - started).to.be.lessThan(1100);

      // The operation goes on: a retry while it runs is told to wait ...
      const early = await world.request('POST', path, { key, body: { ms: 1200 }, headers });
      expect(expectEnvelope(early, 409, 'idempotency_conflict').details).to.deep.equal({ reason: 'in_progress' });
      expect(early.headers.get('retry-after')).to.match(/^[1-9]\d*$/);

      // ... and once done, the same key returns its result without acting again.
      let replay: Reply = early;
      for (let i = 0; i < 40; i++) {
        await new Promise((r) => setTimeout(r, 100));
        replay = await world.request('POST', path, { key, body: { ms: 1200 }, headers });
        if (replay.status !== 409) break;
      }
      expect(replay.status, JSON.stringify(replay.body)).to.equal(200);
      expect(replay.headers.get('idempotent-replayed')).to.equal('true');
      expect(replay.body).to.include({ slept: 1200, executions: 1, requestId: reply.body.error.requestId });
    });

    it('answers a quick operation normally under the same timeout', async () => {
      const reply = await world.request('POST', `/v1/brands/${world.brandId('acme', 'hats')}/test-sleep`, { key: world.key('acme', 'ci'), body: { ms: 10 } });
      expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
      expect(reply.body.slept).to.equal(10);
    });
  });
}
