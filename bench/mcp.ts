// MCP tools/call of list_brands against GET /v1/brands, on the same server in the same run.
// Target: MCP p50 within 1.5× REST p50.

import { measureBrands } from './brands.js';
import {
  availableDialects,
  dialectLabel,
  loadTest,
  progress,
  resultRow,
  startBenchService,
  type Benchmark,
  type BenchmarkOutput,
  type LoadOptions,
  type ResultRow,
} from './lib.js';

export const MCP_RATIO_TARGET = 1.5;
const LOAD: LoadOptions = { connections: 10, durationSec: 4, warmupSec: 1 };

const CALL = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_brands', arguments: {} } });

export const benchmark: Benchmark = {
  name: 'MCP tools/call',
  order: 20,
  async run(): Promise<BenchmarkOutput> {
    const { dialects } = await availableDialects();
    const rows: ResultRow[] = [];
    const notes: string[] = [
      `mcp: stateless Streamable HTTP, one JSON-RPC tools/call list_brands per request; ${LOAD.connections} connections, ${LOAD.durationSec} s after ${LOAD.warmupSec} s warm-up.`,
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
