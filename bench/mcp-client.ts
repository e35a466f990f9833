// Worker thread for bench/mcp.ts: calls the service the way a real client does, away from the main
// thread that serves the requests. `mcp` connects the MCP SDK's own Client over
// StreamableHTTPClientTransport (initialize, then tools/list, so the Client checks every
// structuredContent against the tool's outputSchema as an agent's client does) and calls one tool;
// `rest` sends the same read with fetch, the HTTP client the SDK's transport uses. Each of
// `concurrency` callers sends one call after another (an agent waits for each answer); calls
// during the warm-up are thrown away, then every call's time is kept.

import { performance } from 'node:perf_hooks';
import { parentPort, workerData } from 'node:worker_threads';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { WorkerLoadResult } from './lib.js';

export interface ClientJob {
  mode: 'mcp' | 'rest';
  /** The service's base URL. */
  url: string;
  key: string;
  /** mcp: the tool called with no arguments; rest: the path read with GET. */
  target: string;
  concurrency: number;
  durationSec: number;
  warmupSec: number;
}

/** One caller: sends one call, waits for its answer, and says whether it succeeded. */
type Call = () => Promise<boolean>;

async function mcpCaller(job: ClientJob): Promise<{ call: Call; close: () => Promise<void> }> {
  const client = new Client({ name: 'svc-bench', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${job.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${job.key}` } } });
  await client.connect(transport);
  const { tools } = await client.listTools();
  const tool = tools.find((t) => t.name === job.target);
  if (!tool?.outputSchema) throw new Error(`tools/list has no ${job.target} with an outputSchema`);
  return {
    // callTool throws when structuredContent does not match the outputSchema it listed.
    call: async () => {
      const result = await client.callTool({ name: job.target, arguments: {} });
      return !result.isError && result.structuredContent !== undefined;
    },
    close: () => client.close(),
  };
}

function restCaller(job: ClientJob): { call: Call; close: () => Promise<void> } {
  const headers = { authorization: `Bearer ${job.key}` };
  return {
    call: async () => {
      const res = await fetch(job.url + job.target, { headers });
      await res.json();
      return res.status === 200;
    },
    close: async () => {},
  };
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return 0;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i];
}

const job = workerData as ClientJob;
const callers = await Promise.all(Array.from({ length: job.concurrency }, () => (job.mode === 'mcp' ? mcpCaller(job) : restCaller(job))));
const times: number[] = [];
let failed = 0;
let errors = 0;
const start = performance.now();
const measureFrom = start + job.warmupSec * 1000;
const end = measureFrom + job.durationSec * 1000;
let measuring = false;
await Promise.all(
  callers.map(async ({ call }) => {
    for (;;) {
      const t0 = performance.now();
      if (t0 >= end) return;
      if (!measuring && t0 >= measureFrom) {
        measuring = true;
        parentPort!.postMessage({ measuring: true });
      }
      let ok = false;
      let threw = false;
      try {
        ok = await call();
      } catch {
        threw = true;
      }
      if (t0 < measureFrom) continue;
      times.push(performance.now() - t0);
      if (threw) errors++;
      else if (!ok) failed++;
    }
  }),
);
const elapsed = (performance.now() - measureFrom) / 1000;
await Promise.all(callers.map((c) => c.close()));
const sorted = Float64Array.from(times).sort();
const result: WorkerLoadResult = {
  rps: elapsed > 0 ? sorted.length / elapsed : 0,
  p50: percentile(sorted, 50),
  p99: percentile(sorted, 99),
  total: sorted.length,
  non2xx: failed,
  errors,
  timeouts: 0,
};
parentPort!.postMessage({ result });
