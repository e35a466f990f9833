// Traces over OTLP/HTTP: a loopback collector (node:http) decodes what the exporter sends (OTLP
// JSON, opentelemetry-proto's ExportTraceServiceRequest); one publish to the fake Meta yields a
// request span carrying the Service-Request-Id, with platform-call and database-transaction spans
// below it in the same trace.

import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { startWorld, type World } from '../../helpers/world.js';
import { FakeMetaServer } from '../../fakes/meta-server.js';
import { BrandClient, buildLaunch, liveExampleWorld } from '../../helpers/launches.js';

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes?: Array<{ key: string; value: { stringValue?: string; intValue?: number | string } }>;
}

/** A collector that keeps every span of every ExportTraceServiceRequest posted to /v1/traces as JSON. */
class OtlpReceiver {
  readonly spans: OtlpSpan[] = [];
  readonly contentTypes: string[] = [];
  private server!: http.Server;
  url = '';

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        if (req.method !== 'POST' || req.url !== '/v1/traces') {
          res.writeHead(404).end();
          return;
        }
        this.contentTypes.push(String(req.headers['content-type']));
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
          resourceSpans: Array<{ scopeSpans: Array<{ spans: OtlpSpan[] }> }>;
        };
        for (const rs of body.resourceSpans) for (const ss of rs.scopeSpans) this.spans.push(...ss.spans);
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}

const attribute = (span: OtlpSpan, key: string): string | undefined => {
  const v = span.attributes?.find((a) => a.key === key)?.value;
  return v?.stringValue ?? (v?.intValue !== undefined ? String(v.intValue) : undefined);
};

describe('traces over OTLP/HTTP (OTEL_EXPORTER_OTLP_ENDPOINT)', function () {
  this.timeout(60_000);
  let savedKey: string | undefined;
  let fake: FakeMetaServer;
  let receiver: OtlpReceiver;
  let w: World | undefined;
  let creativesDir: string;

  before(async () => {
    savedKey = process.env.TOKEN_ENCRYPTION_KEY;
    if (!savedKey) process.env.TOKEN_ENCRYPTION_KEY = crypto.randomBytes(32).toString('base64');
    fake = await FakeMetaServer.start();
    receiver = await new OtlpReceiver().start();
    creativesDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-traces-creatives-'));
  });
  after(async () => {
    await w?.close();
    await fake?.close();
    await receiver?.close();
    if (creativesDir) fs.rmSync(creativesDir, { recursive: true, force: true });
    if (savedKey === undefined) delete process.env.TOKEN_ENCRYPTION_KEY;
  });

  it('one publish yields a request span with the request id and platform-call children in its trace', async () => {
    const token = fake.addAccount('act_1001');
    w = await startWorld({
      dialect: 'sqlite',
      bootstrap: liveExampleWorld(500, token),
      env: {
        PLATFORM_MODE: 'live',
        META_GRAPH_URL: fake.url,
        TOKEN_ENCRYPTION_KEY: process.env.TOKEN_ENCRYPTION_KEY!,
        CREATIVES_DIR: creativesDir,
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      },
    });
    const client = new BrandClient(w.url, w.key('acme', 'ci'), w.brandId('acme', 'shoes'));
    const built = await buildLaunch(client, { creativeId: await client.uploadCreative(), title: 'Traced' });
    const published = await client.publish(built.launchId, crypto.randomUUID());
    expect(published.status, JSON.stringify(published.body)).to.equal(200);
    const requestId = published.headers.get('service-request-id')!;
    expect(requestId).to.match(/^req_[0-9a-f]{32}$/);
    // Closing the service flushes the spans still buffered to the collector.
    await w.close();
    w = undefined;

    expect(receiver.contentTypes.length).to.be.greaterThan(0);
    expect(receiver.contentTypes.every((t) => t.startsWith('application/json'))).to.equal(true);
    const requests = receiver.spans.filter((s) => attribute(s, 'svc.request_id') === requestId);
    expect(requests.map((s) => s.name)).to.deep.equal(['api launch-campaign']);
    const request = requests[0];
    expect(request.parentSpanId || undefined).to.equal(undefined);
    expect(attribute(request, 'http.response.status_code')).to.equal('200');

    const byId = new Map(receiver.spans.map((s) => [s.spanId, s]));
    const under = (span: OtlpSpan): boolean => {
      for (let at: OtlpSpan | undefined = span; at; at = at.parentSpanId ? byId.get(at.parentSpanId) : undefined) if (at === request) return at !== span;
      return false;
    };
    const below = receiver.spans.filter(under);
    expect(below.every((s) => s.traceId === request.traceId)).to.equal(true);
    const platformCalls = below.filter((s) => s.name.startsWith('platform meta '));
    expect(platformCalls.map((s) => attribute(s, 'svc.platform.call'))).to.include.members(['createObjects', 'setStatus']);
    expect(platformCalls.every((s) => attribute(s, 'svc.platform') === 'meta')).to.equal(true);
    // The adapter's Graph requests go through the outbound client: its spans sit under the platform calls.
    const outbound = below.filter((s) => s.name.startsWith('outbound '));
    expect(outbound.length).to.be.greaterThan(0);
    expect(outbound.every((s) => platformCalls.some((p) => p.spanId === s.parentSpanId))).to.equal(true);
    expect(below.some((s) => s.name === 'db transaction')).to.equal(true);
  });
});
