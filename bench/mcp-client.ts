// Worker thread for bench/mcp.ts: calls a server the way real clients do, away from the main
// thread that serves the requests. A lane is one way of calling: `sdk` connects the MCP SDK's own
// Client over StreamableHTTPClientTransport (initialize, then tools/list, so the Client checks
// every structuredContent against the tool's outputSchema as an agent's client does) and calls one
// tool; `rest` reads the same data with fetch GET (fetch is the HTTP client the SDK's transport
// uses); `post` sends the SDK's tools/call request with fetch, without the SDK. Each lane has
// `concurrency` callers, each sending one call after another (an agent waits for each answer).
//
// The lanes take turns in short slices, so that all meet the same load from whatever else runs on
// the machine and their ratios hold even when the figures themselves move. The main thread is told
// which lane runs (`{ slice }`), to split its CPU time.

import { performance } from 'node:perf_hooks';
import { parentPort, workerData } from 'node:worker_threads';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { WorkerLoadResult } from './lib.js';

/** How a lane calls: fetch GET of a REST path, fetch POST of one JSON-RPC tools/call, or the SDK's Client. */
export type ClientKind = 'rest' | 'post' | 'sdk';

export interface Lane {
  label: string;
  kind: ClientKind;
  /** The server's base URL (the service, or a server that answers at once). */
  url: string;
}

export interface ClientJob {
  lanes: Lane[];
  key: string;
  /** The path REST lanes read with GET. */
  restPath: string;
  /** The tool the other lanes call with no arguments. */
  tool: string;
  concurrency: number;
  /** All lanes together: each runs its share, in turns of sliceMs. */
  durationSec: number;
  warmupSec: number;
  sliceMs: number;
}

/** What the worker posts: the lane now running (null: none, or still warming up), then the figures of each, by label. */
export type ClientMessage = { slice: string | null } | { results: Record<string, WorkerLoadResult> };

/** One caller: sends one call, waits for its answer, and says whether it succeeded. */
type Call = () => Promise<boolean>;

interface Caller {
  call: Call;
  close: () => Promise<void>;
}

async function sdkCaller(job: ClientJob, lane: Lane): Promise<Caller> {
  const client = new Client({ name: 'svc-bench', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${lane.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${job.key}` } } });
  await client.connect(transport);
  const { tools } = await client.listTools();
  if (!tools.find((t) => t.name === job.tool)?.outputSchema) throw new Error(`tools/list has no ${job.tool} with an outputSchema`);
  return {
    // callTool throws when structuredContent does not match the outputSchema it listed.
    call: async () => {
      const result = await client.callTool({ name: job.tool, arguments: {} });
      return !result.isError && result.structuredContent !== undefined;
    },
    close: () => client.close(),
  };
}

function fetchCaller(job: ClientJob, lane: Lane): Caller {
  const headers: Record<string, string> = { authorization: `Bearer ${job.key}` };
  let url = lane.url + job.restPath;
  let init: RequestInit = { headers };
  if (lane.kind === 'post') {
    url = `${lane.url}/mcp`;
    // The headers and body the SDK's transport sends.
    Object.assign(headers, { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' });
    init = { method: 'POST', headers, body: JSON.stringify({ method: 'tools/call', params: { name: job.tool, arguments: {} }, jsonrpc: '2.0', id: 1 }) };
  }
  return {
    call: async () => {
      const res = await fetch(url, init);
      const body = (await res.json()) as { result?: { isError?: boolean } };
      return res.status === 200 && (lane.kind === 'rest' || (body.result !== undefined && !body.result.isError));
    },
    close: async () => {},
  };
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return 0;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i];
}

interface Tally {
  times: number[];
  /** Measured milliseconds this kind ran. */
  ms: number;
  failed: number;
  errors: number;
}

const job = workerData as ClientJob;
const callers = new Map<string, Caller[]>();
for (const lane of job.lanes) {
  callers.set(
    lane.label,
    await Promise.all(Array.from({ length: job.concurrency }, () => (lane.kind === 'sdk' ? sdkCaller(job, lane) : fetchCaller(job, lane)))),
  );
}
const tally = new Map<string, Tally>(job.lanes.map((l) => [l.label, { times: [], ms: 0, failed: 0, errors: 0 }]));
const post = (message: ClientMessage) => parentPort!.postMessage(message);

/** Every caller of the lane calls until `until`; the calls are counted when `measured`. */
async function slice(label: string, until: number, measured: boolean): Promise<void> {
  const t = tally.get(label)!;
  const started = performance.now();
  await Promise.all(
    callers.get(label)!.map(async ({ call }) => {
      while (performance.now() < until) {
        const t0 = performance.now();
        let ok = false;
        let threw = false;
        try {
          ok = await call();
        } catch {
          threw = true;
        }
        if (!measured) continue;
        t.times.push(performance.now() - t0);
        if (threw) t.errors++;
        else if (!ok) t.failed++;
      }
    }),
  );
  if (measured) t.ms += performance.now() - started;
}

const labels = job.lanes.map((l) => l.label);
const warmEnd = performance.now() + job.warmupSec * 1000;
for (let i = 0; performance.now() < warmEnd; i++) await slice(labels[i % labels.length], Math.min(warmEnd, performance.now() + job.sliceMs), false);
const end = performance.now() + job.durationSec * 1000;
for (let i = 0; performance.now() < end; i++) {
  const label = labels[i % labels.length];
  post({ slice: label });
  await slice(label, performance.now() + job.sliceMs, true);
}
post({ slice: null });
await Promise.all([...callers.values()].flat().map((c) => c.close()));

function resultOf(t: Tally): WorkerLoadResult {
  const sorted = Float64Array.from(t.times).sort();
  return {
    rps: t.ms > 0 ? sorted.length / (t.ms / 1000) : 0,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    total: sorted.length,
    non2xx: t.failed,
    errors: t.errors,
    timeouts: 0,
  };
}
post({ results: Object.fromEntries([...tally].map(([label, t]) => [label, resultOf(t)])) });
