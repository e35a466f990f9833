// MCP tools/call of list_brands against GET /v1/brands, on the same server in the same run, two ways:
// raw JSON-RPC POSTs from autocannon against REST from autocannon (the server's cost alone), and the
// MCP SDK's own Client (StreamableHTTPClientTransport, checking each answer against the tool's
// outputSchema) against fetch of the REST read, each caller waiting for its answer, at the same
// concurrency (what an agent sees). Target: MCP p50 within 1.5× REST p50.

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Worker } from 'node:worker_threads';
import { measureBrands, BRANDS_PATH } from './brands.js';
import {
  availableDialects,
  dialectLabel,
  loadTest,
  mainThreadCpuSeconds,
  progress,
  resultRow,
  startBenchService,
  type Benchmark,
  type BenchmarkOutput,
  type LoadOptions,
  type LoadResult,
  type ResultRow,
  type BareServer,
  type BenchService,
} from './lib.js';
import type { ClientJob, ClientMessage } from './mcp-client.js';

export const MCP_RATIO_TARGET = 1.5;
const LOAD: LoadOptions = { connections: 10, durationSec: 4, warmupSec: 1 };
/** Callers of the client rows: one agent alone, and a few at once. */
const CLIENT_CONCURRENCY = [1, 4];
/** All lanes of a run together: each runs its share, in turns of sliceMs. */
const CLIENT_LOAD = { durationSec: 8, warmupSec: 1, sliceMs: 200 };
/** The breakdown's five lanes, with one caller each. */
const BREAKDOWN_LOAD = { durationSec: 15, warmupSec: 1, sliceMs: 200 };

/**
 * Runs bench/mcp-client.ts on a worker thread: its lanes in turns; the server thread's CPU time
 * is split by whose turn it was.
 */
function clientLoadTest(job: ClientJob): Promise<Record<string, LoadResult>> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./mcp-client.js', import.meta.url), { workerData: job });
    let settled = false;
    const cpu = new Map<string, number>();
    let running: string | null = null;
    let since = NaN;
    worker.on('message', (message: ClientMessage) => {
      if ('slice' in message) {
        const now = mainThreadCpuSeconds();
        if (running) cpu.set(running, (cpu.get(running) ?? 0) + now - since);
        running = message.slice;
        since = now;
        return;
      }
      settled = true;
      const out: Record<string, LoadResult> = {};
      for (const [label, r] of Object.entries(message.results)) {
        out[label] = { ...r, cpuUsPerRequest: r.total > 0 ? ((cpu.get(label) ?? 0) * 1e6) / r.total : NaN };
      }
      resolve(out);
    });
    worker.once('error', (err) => {
      settled = true;
      reject(err);
    });
    worker.once('exit', (code) => {
      if (!settled) reject(new Error(`client worker exited with code ${code} before reporting`));
    });
  });
}

/**
 * A server that answers at once what the service answered: GET /v1/brands with its bytes, and
 * initialize, tools/list and the tools/call of `tool` with the service's results. The SDK Client
 * calling it costs what the client itself costs; so does fetch reading it.
 */
async function startCannedServer(svc: BenchService, tool: string): Promise<BareServer> {
  const headers = { authorization: `Bearer ${svc.key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const rpc = async (method: string, params: unknown) => {
    const res = await fetch(`${svc.url}/mcp`, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
    return ((await res.json()) as { result: unknown }).result;
  };
  const results: Record<string, unknown> = {
    initialize: await rpc('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'svc-bench', version: '1.0.0' } }),
    'tools/list': await rpc('tools/list', {}),
    'tools/call': await rpc('tools/call', { name: tool, arguments: {} }),
  };
  const brands = Buffer.from(await (await fetch(svc.url + BRANDS_PATH, { headers: { authorization: headers.authorization } })).arrayBuffer());
  const server = http.createServer((req, res) => {
    if (req.method === 'GET' && req.url === BRANDS_PATH) {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': brands.length });
      return void res.end(brands);
    }
    if (req.method !== 'POST') {
      res.writeHead(405, { 'content-length': 0 });
      return void res.end();
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const message = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id?: unknown; method: string };
      if (message.id === undefined) {
        res.writeHead(202, { 'content-length': 0 });
        return void res.end();
      }
      const out = Buffer.from(JSON.stringify({ result: results[message.method], jsonrpc: '2.0', id: message.id }));
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': out.length, 'mcp-session-id': 'canned' });
      res.end(out);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Where an SDK tool call's time goes, against the REST read, from five lanes measured in turns. */
async function breakdown(svc: BenchService, label: string): Promise<{ rows: Array<[string, LoadResult]>; note: string }> {
  const canned = await startCannedServer(svc, 'list_brands');
  try {
    const r = await clientLoadTest({
      lanes: [
        { label: 'rest', kind: 'rest', url: svc.url },
        { label: 'post', kind: 'post', url: svc.url },
        { label: 'sdk', kind: 'sdk', url: svc.url },
        { label: 'rest-canned', kind: 'rest', url: canned.url },
        { label: 'sdk-canned', kind: 'sdk', url: canned.url },
      ],
      key: svc.key,
      restPath: BRANDS_PATH,
      tool: 'list_brands',
      concurrency: 1,
      ...BREAKDOWN_LOAD,
    });
    const ms = (x: number) => `${x.toFixed(2)} ms`;
    const [rest, post, sdk, restCanned, sdkCanned] = [r.rest, r.post, r.sdk, r['rest-canned'], r['sdk-canned']].map((x) => x.p50);
    const note =
      `mcp stages ${label} (p50, one caller, five lanes in turns): REST fetch ${ms(rest)}, of which fetch against a server answering at once ${ms(restCanned)} ` +
      `and the service ${ms(rest - restCanned)}; SDK Client ${ms(sdk)} = ratio ${(sdk / rest).toFixed(2)}: the same tools/call sent with fetch ${ms(post)} ` +
      `(its server side about ${ms(post - restCanned)}), the SDK Client's own work ${ms(sdk - post)}; ` +
      `the SDK Client against a server answering at once ${ms(sdkCanned)}, so no MCP server can go below ratio ${(sdkCanned / rest).toFixed(2)} here.`;
    return {
      rows: [
        ['fetch GET canned x1', r['rest-canned']],
        ['fetch POST tools/call x1', r.post],
        ['SDK Client canned x1', r['sdk-canned']],
      ],
      note,
    };
  } finally {
    await canned.close();
  }
}

const CALL = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_brands', arguments: {} } });

export const benchmark: Benchmark = {
  name: 'MCP tools/call',
  order: 20,
  async run(): Promise<BenchmarkOutput> {
    const { dialects } = await availableDialects();
    const rows: ResultRow[] = [];
    const notes: string[] = [
      `mcp: stateless Streamable HTTP, one JSON-RPC tools/call list_brands per request; ${LOAD.connections} connections, ${LOAD.durationSec} s after ${LOAD.warmupSec} s warm-up.`,
      `mcp sdk: the SDK's Client (initialize and tools/list once per caller, then tools/call list_brands, structuredContent checked against the outputSchema) against fetch GET ${BRANDS_PATH}; ${CLIENT_CONCURRENCY.join(' and ')} caller(s) of each kind, each waiting for its answer, the two kinds taking turns of ${CLIENT_LOAD.sliceMs} ms for ${CLIENT_LOAD.durationSec} s after ${CLIENT_LOAD.warmupSec} s warm-up.`,
    ];
    for (const dialect of dialects) {
      progress(`mcp vs rest on ${dialectLabel(dialect)}`);
      const svc = await startBenchService(dialect);
      try {
        const check = await fetch(`${svc.url}/mcp`, {
          method: 'POST',
          headers: { authorization: `Bearer ${svc.key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          body: CALL,
        });
        const answer = await check.json();
        if (check.status !== 200 || answer.result?.isError) throw new Error(`MCP tools/call answered ${check.status}: ${JSON.stringify(answer).slice(0, 300)}`);
        const rest = await measureBrands(svc.url, svc.key, LOAD);
        const mcp = await loadTest(
          `${svc.url}/mcp`,
          {
            authorization: `Bearer ${svc.key}`,
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'mcp-protocol-version': '2025-06-18',
          },
          { ...LOAD, method: 'POST', body: CALL },
        );
        for (const [target, r] of [
          ['REST GET /v1/brands', rest],
          ['MCP list_brands', mcp],
        ] as const) {
          rows.push(resultRow(this.name, dialect, target, r));
        }
        const clientRatios: string[] = [];
        for (const concurrency of CLIENT_CONCURRENCY) {
          const { rest: restClient, sdk } = await clientLoadTest({
            lanes: [
              { label: 'rest', kind: 'rest', url: svc.url },
              { label: 'sdk', kind: 'sdk', url: svc.url },
            ],
            key: svc.key,
            restPath: BRANDS_PATH,
            tool: 'list_brands',
            concurrency,
            ...CLIENT_LOAD,
          });
          rows.push(resultRow(this.name, dialect, `REST fetch x${concurrency}`, restClient));
          rows.push(resultRow(this.name, dialect, `MCP SDK Client x${concurrency}`, sdk));
          const r = sdk.p50 / restClient.p50;
          clientRatios.push(
            `x${concurrency} ${sdk.p50.toFixed(2)}/${restClient.p50.toFixed(2)} ms = ${r.toFixed(2)} (target <= ${MCP_RATIO_TARGET}): ${r <= MCP_RATIO_TARGET ? 'MET' : 'NOT MET'}`,
          );
        }
        notes.push(`mcp sdk ${dialectLabel(dialect)}: MCP SDK Client p50 / REST fetch p50 at the same concurrency: ${clientRatios.join('; ')}`);
        const stages = await breakdown(svc, dialectLabel(dialect));
        for (const [target, r] of stages.rows) rows.push(resultRow(this.name, dialect, target, r));
        notes.push(stages.note);
        const ratio = mcp.p50 / rest.p50;
        notes.push(
          `mcp ${dialectLabel(dialect)}: MCP p50 / REST p50 = ${mcp.p50.toFixed(2)}/${rest.p50.toFixed(2)} ms = ${ratio.toFixed(2)} (target <= ${MCP_RATIO_TARGET}): ${ratio <= MCP_RATIO_TARGET ? 'MET' : 'NOT MET'}; ` +
            `a tool call costs ${(mcp.cpuUsPerRequest - rest.cpuUsPerRequest).toFixed(0)} µs more server CPU than the REST request`,
        );
      } finally {
        await svc.close();
      }
    }
    return { rows, notes };
  },
};
