// What connecting costs an agent: the size of tools/list (minified JSON of the result, output
// schemas included) for the default toolsets, dynamic mode, every tool, and read-only mode, in bytes and in
// tokens estimated at 4 bytes a token, beside github-mcp-server's lists as the reference.
// Targets: default at most 40 tools and 40 KB; all at most 140 KB as sent (125 KB until every output
// schema listed each field its answers carry, issue 60); as OpenAI strict tools 40 KB and 125 KB (issue 64).

import { MCPServerStreamableHttp, RunContext, getAllMcpTools, type FunctionTool } from '@openai/agents-core';
import { benchWorld, progress, startBenchService, type Benchmark, type BenchmarkOutput } from './lib.js';

const KB = 1024;
/** github-mcp-server's tools/list, measured the same way (issue 24): the reference an agent already pays. */
const REFERENCE = [
  { what: 'github-mcp-server, default toolsets', tools: 43, bytes: 52 * KB },
  { what: 'github-mcp-server, all tools', tools: 87, bytes: 107 * KB },
];
/** This service before toolsets and lean schemas (one list of every tool), measured on 2026-11-25. */
const BEFORE = { what: 'svc before issue 24: every tool, one list', tools: 81, bytes: 328_603 };
const TARGETS: Record<string, { tools?: number; bytes: number }> = { default: { tools: 40, bytes: 40 * KB }, all: { bytes: 140 * KB } };
/** The same lists as a strict client sees them (issue 64): at most these. */
const STRICT_TARGETS: Record<string, number> = { default: 40 * KB, all: 125 * KB };

/**
 * The tools a strict OpenAI client sends the model: the OpenAI Agents SDK's own conversion of every
 * MCP tool (getAllMcpTools with convertSchemasToStrict), as the Responses API's function tools.
 */
async function strictBytes(url: string, key: string, headers: Record<string, string>, form: 'portable' | 'strict'): Promise<{ tools: number; bytes: number }> {
  const server = new MCPServerStreamableHttp({
    url: `${url}/mcp`,
    name: 'svc',
    requestInit: { headers: { authorization: `Bearer ${key}`, 'x-mcp-schema': form, ...headers } },
    cacheToolsList: false,
  });
  await server.connect();
  try {
    const tools = (await getAllMcpTools({ mcpServers: [server], convertSchemasToStrict: true, runContext: new RunContext() })) as FunctionTool[];
    const sent = tools.map((t) => ({ type: 'function', name: t.name, description: t.description, parameters: t.parameters, strict: t.strict }));
    return { tools: sent.length, bytes: Buffer.byteLength(JSON.stringify(sent)) };
  } finally {
    await server.close();
  }
}

const CHOICES = [
  { what: 'default', headers: {} as Record<string, string> },
  { what: 'default, read-only', headers: { 'x-mcp-readonly': 'true' } },
  { what: 'dynamic', headers: { 'x-mcp-toolsets': 'dynamic' } },
  { what: 'all', headers: { 'x-mcp-toolsets': 'all' } },
  { what: 'all, read-only', headers: { 'x-mcp-toolsets': 'all', 'x-mcp-readonly': 'true' } },
];

const row = (what: string, tools: number, bytes: number, verdict = '') =>
  `${what.padEnd(44)} ${String(tools).padStart(5)} ${String(bytes).padStart(9)} ${String(Math.round(bytes / 4)).padStart(8)}${verdict ? `  ${verdict}` : ''}`;

export const benchmark: Benchmark = {
  name: 'MCP tools/list size',
  order: 21,
  async run(): Promise<BenchmarkOutput> {
    progress('mcp tools/list size on sqlite');
    // A key with every scope, so the list holds every tool a toolset has (the bench world's key only reads).
    const world = structuredClone(benchWorld);
    world.organizations[0].apiKeys = [{ ...world.organizations[0].apiKeys[0], scopes: ['read', 'write', 'publish'] }];
    const svc = await startBenchService('sqlite', { bootstrap: world });
    const lines = [
      `mcp tools/list size (minified JSON of the result; tokens = bytes / 4):`,
      `${'list'.padEnd(44)} ${'tools'.padStart(5)} ${'bytes'.padStart(9)} ${'tokens'.padStart(8)}`,
    ];
    try {
      for (const choice of CHOICES) {
        const res = await fetch(`${svc.url}/mcp`, {
          method: 'POST',
          headers: { authorization: `Bearer ${svc.key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...choice.headers },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
        });
        const answer = await res.json();
        if (!answer.result) throw new Error(`tools/list answered ${res.status}: ${JSON.stringify(answer).slice(0, 300)}`);
        const bytes = Buffer.byteLength(JSON.stringify(answer.result));
        const tools = answer.result.tools.length as number;
        const target = TARGETS[choice.what];
        const verdict = target
          ? `target ${target.tools ? `<= ${target.tools} tools, ` : ''}<= ${target.bytes / KB} KB: ${(target.tools === undefined || tools <= target.tools) && bytes <= target.bytes ? 'MET' : 'NOT MET'}`
          : '';
        lines.push(row(`svc ${choice.what}`, tools, bytes, verdict));
      }
      // As the OpenAI Agents SDK sends them: converted from the portable form, and served in the strict form (X-MCP-Schema: strict).
      for (const form of ['portable', 'strict'] as const) {
        for (const choice of CHOICES.filter((c) => STRICT_TARGETS[c.what])) {
          const strict = await strictBytes(svc.url, svc.key, choice.headers, form);
          const limit = STRICT_TARGETS[choice.what];
          lines.push(
            row(
              `svc ${choice.what}, OpenAI strict, from ${form}`,
              strict.tools,
              strict.bytes,
              `target <= ${limit / KB} KB: ${strict.bytes <= limit ? 'MET' : 'NOT MET'}`,
            ),
          );
        }
      }
    } finally {
      await svc.close();
    }
    for (const r of [...REFERENCE, BEFORE]) lines.push(row(r.what, r.tools, r.bytes, '(reference)'));
    return { rows: [], notes: [lines.join('\n')] };
  },
};
