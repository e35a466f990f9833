// GET /metrics over a real listening server in live Meta mode (the fake Graph API,
// test/fakes/meta-server.ts): guarded by METRICS_TOKEN (404 unset, 401 without or with a wrong
// bearer), parsed strictly (test/helpers/prometheus.ts), counters that grow after REST and MCP
// calls, a publish's platform calls, a throttled platform call, a refused outbound URL, the queue
// gauges, and no label value that names a tenant (organization, brand, key, user, URL).

import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { dialects } from '../../helpers/databases.js';
import { startWorld, type World } from '../../helpers/world.js';
import { FakeMetaServer } from '../../fakes/meta-server.js';
import { BrandClient, buildLaunch, exampleWorld, liveExampleWorld, waitUntil } from '../../helpers/launches.js';
import { mcpClient } from '../../helpers/mcp.js';
import { fakeResolver } from '../../helpers/outbound.js';
import { parseExposition, type Exposition } from '../../helpers/prometheus.js';

const ACCOUNT = 'act_1001';
const TOKEN = `metrics-${crypto.randomBytes(8).toString('hex')}`;
/** Public when the endpoint is saved, a private address when the test send connects. */
const HOOK_HOST = 'hooks.metrics.test';

for (const dialect of dialects()) {
  describe(`GET /metrics (${dialect})`, function () {
    this.timeout(60_000);
    let savedKey: string | undefined;
    let fake: FakeMetaServer;
    let w: World;
    let client: BrandClient;
    let creativesDir: string;

    const scrape = async (authorization: string | null = `Bearer ${TOKEN}`) => {
      const res = await fetch(`${w.url}/metrics`, { headers: authorization ? { authorization } : {} });
      return { status: res.status, type: res.headers.get('content-type'), text: await res.text(), headers: res.headers };
    };
    const metrics = async (): Promise<Exposition> => {
      const got = await scrape();
      expect(got.status, got.text).to.equal(200);
      return parseExposition(got.text);
    };

    before(async () => {
      savedKey = process.env.TOKEN_ENCRYPTION_KEY;
      if (!savedKey) process.env.TOKEN_ENCRYPTION_KEY = crypto.randomBytes(32).toString('base64');
      fake = await FakeMetaServer.start();
      const token = fake.addAccount(ACCOUNT);
      creativesDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-metrics-creatives-'));
      w = await startWorld({
        dialect,
        bootstrap: liveExampleWorld(500, token),
        env: {
          PLATFORM_MODE: 'live',
          META_GRAPH_URL: fake.url,
          TOKEN_ENCRYPTION_KEY: process.env.TOKEN_ENCRYPTION_KEY!,
          CREATIVES_DIR: creativesDir,
          METRICS_TOKEN: TOKEN,
        },
        resolveHost: fakeResolver({ [HOOK_HOST]: [['93.184.216.34'], ['10.0.0.5']] }),
      });
      client = new BrandClient(w.url, w.key('acme', 'ci'), w.brandId('acme', 'shoes'));
    });
    after(async () => {
      await w?.close();
      await fake?.close();
      if (creativesDir) fs.rmSync(creativesDir, { recursive: true, force: true });
      if (savedKey === undefined) delete process.env.TOKEN_ENCRYPTION_KEY;
    });

    it('answers 401 with the envelope without a bearer or with a wrong one', async () => {
      for (const authorization of [null, 'Bearer wrong-token', `Basic ${Buffer.from(`x:${TOKEN}`).toString('base64')}`, `Bearer ${TOKEN}x`]) {
        const got = await scrape(authorization);
        expect(got.status, String(authorization)).to.equal(401);
        const body = JSON.parse(got.text);
        expect(body.error.code).to.equal('unauthenticated');
        expect(body.error.message).to.contain('METRICS_TOKEN');
        expect(body.error.requestId).to.equal(got.headers.get('service-request-id'));
        expect(got.headers.get('www-authenticate')).to.match(/^Bearer realm="metrics"/);
      }
    });

    it('answers the text exposition 0.0.4 with the bearer, with the contract minimum set and the process defaults', async () => {
      const got = await scrape();
      expect(got.status).to.equal(200);
      expect(got.type).to.equal('text/plain; version=0.0.4; charset=utf-8');
      const m = parseExposition(got.text);
      const expected: Record<string, string> = {
        svc_requests_total: 'counter',
        svc_request_duration_seconds: 'histogram',
        svc_jobs_ready: 'gauge',
        svc_jobs_oldest_due_age_seconds: 'gauge',
        svc_job_runs_total: 'counter',
        svc_webhook_deliveries_total: 'counter',
        svc_platform_calls_total: 'counter',
        svc_outbound_refused_total: 'counter',
        svc_automation_cycle_duration_seconds: 'histogram',
        process_cpu_seconds_total: 'counter',
        process_resident_memory_bytes: 'gauge',
        nodejs_eventloop_lag_seconds: 'gauge',
      };
      for (const [name, type] of Object.entries(expected)) expect(m.types.get(name), name).to.equal(type);
      // The queue gauges list every job kind of the build, read at this scrape.
      const kinds = m.samples.filter((s) => s.name === 'svc_jobs_ready').map((s) => s.labels.kind);
      expect(kinds).to.include.members(['deliver-webhook', 'evaluate-automations', 'purge-events']);
    });

    it('counts REST and MCP calls by surface, operation and status, with their durations', async () => {
      const before = await metrics();
      const ok = { surface: 'api', operation: 'list-brands', status: '200' };
      const listed = await w.request('GET', '/v1/brands', { key: w.key('acme', 'ci') });
      expect(listed.status).to.equal(200);
      const missing = await client.api('GET', '/launches/999999');
      expect(missing.status).to.equal(404);
      const mcp = await mcpClient(w.url, w.key('acme', 'ci'));
      try {
        const result = (await mcp.callTool({ name: 'list_brands', arguments: {} })) as { isError?: boolean };
        expect(result.isError ?? false).to.equal(false);
      } finally {
        await mcp.close();
      }
      const after = await metrics();
      expect(after.value('svc_requests_total', ok) - before.value('svc_requests_total', ok)).to.equal(1);
      const notFound = { surface: 'api', operation: 'get-launch', status: '404' };
      expect(after.value('svc_requests_total', notFound) - before.value('svc_requests_total', notFound)).to.equal(1);
      const viaMcp = { surface: 'mcp', operation: 'list-brands', status: '200' };
      expect(after.value('svc_requests_total', viaMcp) - before.value('svc_requests_total', viaMcp)).to.equal(1);
      const timed = { surface: 'api', operation: 'list-brands' };
      expect(after.value('svc_request_duration_seconds_count', timed) - before.value('svc_request_duration_seconds_count', timed)).to.equal(1);
      expect(after.value('svc_request_duration_seconds_bucket', { ...timed, le: '+Inf' })).to.equal(after.value('svc_request_duration_seconds_count', timed));
    });

    it('counts the platform calls of a publish to the fake Meta by call and outcome, and a throttled one', async () => {
      const before = await metrics();
      const built = await buildLaunch(client, { creativeId: await client.uploadCreative(), title: 'Metered' });
      const published = await client.publish(built.launchId, crypto.randomUUID());
      expect(published.status, JSON.stringify(published.body)).to.equal(200);
      expect(fake.objectsOf(ACCOUNT).filter((o) => o.level === 'campaign' && o.status !== 'DELETED')).to.have.length(1);
      const after = await metrics();
      const grew = (labels: Record<string, string>) => after.value('svc_platform_calls_total', labels) - before.value('svc_platform_calls_total', labels);
      const calls = after.samples.filter((s) => s.name === 'svc_platform_calls_total').map((s) => `${s.labels.call}/${s.labels.outcome}=${s.value}`);
      expect(grew({ platform: 'meta', call: 'createObjects', outcome: 'ok' })).to.be.at.least(1);
      // The publish creates the campaign, ad set and ad, then turns them on.
      expect(grew({ platform: 'meta', call: 'setStatus', outcome: 'ok' }), calls.join()).to.equal(1);
      expect(grew({ platform: 'meta', outcome: 'error' }), calls.join()).to.equal(0);
      const publishes = { surface: 'api', operation: 'launch-campaign', status: '200' };
      expect(after.value('svc_requests_total', publishes) - before.value('svc_requests_total', publishes)).to.equal(1);

      // The publish's events reach their subscribers through jobs this process runs: counted by kind and outcome.
      const ranOk = (m: Exposition) => m.value('svc_job_runs_total', { kind: 'event-subscriber', outcome: 'ok' });
      await waitUntil(async () => ranOk(await metrics()) > ranOk(before), 'an event-subscriber job run to be counted', 15_000, 50);

      // The Graph API throttles the next request for longer than the adapter waits: the call fails as throttled.
      fake.throttleNext(5, { minutes: 30 });
      const listed = await client.api('GET', `/ad-accounts/${ACCOUNT}/campaigns`);
      expect(listed.status, JSON.stringify(listed.body)).to.equal(503);
      const throttled = await metrics();
      const labels = { platform: 'meta', call: 'listCampaigns', outcome: 'throttled' };
      expect(throttled.value('svc_platform_calls_total', labels) - after.value('svc_platform_calls_total', labels)).to.equal(1);
    });

    it('counts a refused outbound URL by reason and the webhook send it stopped', async () => {
      const created = await w.request('POST', '/v1/webhook-endpoints', {
        key: w.key('acme', 'ci'),
        body: { url: `https://${HOOK_HOST}/hooks`, events: ['budget.changed'], brandIds: null },
      });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      const before = await metrics();
      const sent = await w.request('POST', `/v1/webhook-endpoints/${created.body.endpointId}/test`, { key: w.key('acme', 'ci') });
      expect(sent.status, JSON.stringify(sent.body)).to.equal(200);
      expect(sent.body.delivered).to.equal(false);
      const after = await metrics();
      expect(after.value('svc_outbound_refused_total', { reason: 'address' }) - before.value('svc_outbound_refused_total', { reason: 'address' })).to.equal(1);
      expect(
        after.value('svc_webhook_deliveries_total', { outcome: 'refused' }) - before.value('svc_webhook_deliveries_total', { outcome: 'refused' }),
      ).to.equal(1);
    });

    it('carries no label value naming an organization, brand, key, user or URL of the fixture', async () => {
      const m = await metrics();
      const world = exampleWorld();
      const org = world.organizations[0];
      const seeded = w.seed.organizations.acme;
      const forbidden = new Set<string>([
        org.name,
        ...org.brands.flatMap((b) => [b.name, ...b.adAccounts.flatMap((a) => [a.accountId, a.name])]),
        ...org.apiKeys.map((k) => k.name),
        ...Object.values(seeded.apiKeys).map((k: { secret: string }) => k.secret),
        ...org.users.flatMap((u) => [u.email, u.name]),
        w.url,
        fake.url,
        `https://${HOOK_HOST}/hooks`,
        HOOK_HOST,
        TOKEN,
      ]);
      // Ids are small numbers that bucket bounds and versions share: the label names keep them out instead.
      const labelNames = new Set(m.samples.filter((s) => s.name.startsWith('svc_')).flatMap((s) => Object.keys(s.labels)));
      const vocabularies = ['call', 'kind', 'le', 'operation', 'outcome', 'platform', 'reason', 'status', 'surface', 'trigger'];
      expect([...labelNames].filter((n) => !vocabularies.includes(n))).to.deep.equal([]);
      expect(labelNames.size).to.be.at.least(8);
      const values = new Set(m.samples.flatMap((s) => Object.values(s.labels)));
      expect(values.size).to.be.greaterThan(10);
      expect([...values].filter((v) => forbidden.has(v) || [...forbidden].some((f) => f.length > 6 && v.includes(f)))).to.deep.equal([]);
    });
  });
}

describe('GET /metrics without METRICS_TOKEN', function () {
  this.timeout(30_000);
  let w: World;
  before(async () => {
    w = await startWorld({ dialect: 'sqlite' });
  });
  after(async () => {
    await w?.close();
  });

  it('answers 404 with the envelope, even with a bearer', async () => {
    const res = await fetch(`${w.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.status).to.equal(404);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).to.equal('not_found');
    expect(body.error.message).to.contain('METRICS_TOKEN');
  });
});

describe('GET /metrics: wrong tokens are throttled (issue 43)', function () {
  this.timeout(30_000);
  let w: World;
  before(async () => {
    w = await startWorld({ dialect: 'sqlite', env: { METRICS_TOKEN: TOKEN, JOBS: 'off' } });
  });
  after(async () => {
    await w?.close();
  });

  it('after 10 wrong tokens from one address within a minute, answers 429 with Retry-After and the envelope, the right token included', async () => {
    const scrape = (token: string) => fetch(`${w.url}/metrics`, { headers: { authorization: `Bearer ${token}` } });
    for (let i = 0; i < 10; i++) expect((await scrape(`guess-${i}`)).status).to.equal(401);
    for (const token of ['guess-10', TOKEN]) {
      const res = await scrape(token);
      expect(res.status).to.equal(429);
      expect(Number(res.headers.get('retry-after'))).to.be.within(1, 60);
      const body = (await res.json()) as { error: { code: string; requestId: string } };
      expect(body.error.code).to.equal('rate_limited');
      expect(body.error.requestId).to.equal(res.headers.get('service-request-id'));
    }
  });
});
