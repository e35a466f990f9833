// MCP tools/call of list_brands against GET /v1/brands, on the same server in the same run, two ways:
// raw JSON-RPC POSTs from autocannon against REST from autocannon (the server's cost alone), and the
// MCP SDK's own Client (StreamableHTTPClientTransport, checking each answer against the tool's
// outputSchema) against fetch of the REST read, each caller waiting for its answer, at the same
// concurrency (what an agent sees). Target: MCP p50 within 1.5× REST p50.

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
  type WorkerLoadResult,
} from './lib.js';
import type { ClientJob } from './mcp-client.js';

export const MCP_RATIO_TARGET = 1.5;
const LOAD: LoadOptions = { connections: 10, durationSec: 4, warmupSec: 1 };
/** Callers of the client rows: one agent alone, and a few at once. */
const CLIENT_CONCURRENCY = [1, 4];
const CLIENT_LOAD = { durationSec: 4, warmupSec: 1 };

/** Runs bench/mcp-client.ts on a worker thread and adds the server thread's CPU per call. */
function clientLoadTest(job: ClientJob): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./mcp-client.js', import.meta.url), { workerData: job });
    let settled = false;
    let cpuAtStart = NaN;
    worker.on('message', (message: { measuring: true } | { result: WorkerLoadResult }) => {
      if ('measuring' in message) {
        cpuAtStart = mainThreadCpuSeconds();
        return;
      }
      const cpu = mainThreadCpuSeconds() - cpuAtStart;
      settled = true;
      resolve({ ...message.result, cpuUsPerRequest: message.result.total > 0 ? (cpu * 1e6) / message.result.total : NaN });
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

const CALL = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_brands', arguments: {} } });

export const benchmark: Benchmark = {
  name: 'MCP tools/call',
  order: 20,
  async run(): Promise<BenchmarkOutput> {
    const { dialects } = await availableDialects();
    const rows: ResultRow[] = [];
    const notes: string[] = [
      `mcp: stateless Streamable HTTP, one JSON-RPC tools/call list_brands per request; ${LOAD.connections} connections, ${LOAD.durationSec} s after ${LOAD.warmupSec} s warm-up.`,
      `mcp sdk: the SDK's Client (initialize and tools/list once per caller, then tools/call list_brands, structuredContent checked against the outputSchema) against fetch GET ${BRANDS_PATH}; ${CLIENT_CONCURRENCY.join(' and ')} caller(s) each waiting for its answer, ${CLIENT_LOAD.durationSec} s after ${CLIENT_LOAD.warmupSec} s warm-up.`,
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
          const base = { url: svc.url, key: svc.key, concurrency, ...CLIENT_LOAD };
          const restClient = await clientLoadTest({ ...base, mode: 'rest', target: BRANDS_PATH });
          const sdk = await clientLoadTest({ ...base, mode: 'mcp', target: 'list_brands' });
          rows.push(resultRow(this.name, dialect, `REST fetch x${concurrency}`, restClient));
          rows.push(resultRow(this.name, dialect, `MCP SDK Client x${concurrency}`, sdk));
          const r = sdk.p50 / restClient.p50;
          clientRatios.push(
            `x${concurrency} ${sdk.p50.toFixed(2)}/${restClient.p50.toFixed(2)} ms = ${r.toFixed(2)} (target <= ${MCP_RATIO_TARGET}): ${r <= MCP_RATIO_TARGET ? 'MET' : 'NOT MET'}`,
          );
        }
        notes.push(`mcp sdk ${dialectLabel(dialect)}: MCP SDK Client p50 / REST fetch p50 at the same concurrency: ${clientRatios.join('; ')}`);
        const ratio = mcp.p50 / rest.p50;
        notes.push(
          `mcp ${dialectLabel(dialect)}: MCP p50 / REST p50 = ${mcp.p50.toFixed(2)}/${rest.p50.toFixed(2)} ms = ${ratio.toFixed(2)} (target <= ${MCP_RATIO_TARGET}): ${ratio <= MCP_RATIO_TARGET ? 'MET' : 'NOT MET'}; ` +
            `a tool call costs ${(mcp.cpuUsPerRequest - rest.cpuUsPerRequest).toFixed(0)} µs more CPU than the REST request (JSON-RPC framing and the SDK's per-call validation)`,
        );
      } finally {
        await svc.close();
      }
    }
    return { rows, notes };
  },
};
