// The tool list with the frameworks agents are built on, not only the official SDK (paths.md, "What
// an agent sees must stand on its own"): LangChain's MCP adapters, the OpenAI Agents SDK with strict
// schemas, the Vercel AI SDK's MCP client and Google's mcpToTool each load every tool of `all` from a
// running server and convert it for their model without an error. No model is called: what each
// would send to its model is captured and checked. Then get_launch of a launch of one campaign with
// 60 ad sets of 4 ads is called through each of them and answers usably (structuredContent, within
// 25,000 characters). LangChain's adapters and the OpenAI Agents SDK declare no elicitation, so each
// publishes in two calls: launch_campaign with confirm answers the plan and its planFingerprint, and
// the call that names it publishes. The MCP Inspector 2.12's own CLI (installed on first use, test/helpers/mcp-inspector.ts) lists the tools with its schema check
// (`--strict`) and reports nothing, where it does report a nullable type array (a control server);
// test/helpers/schema-portability.ts states the same rules, for output schemas too.

import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { projectPath } from '../../../src/paths.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { loadMcpTools } from '@langchain/mcp-adapters';
import { convertToOpenAITool } from '@langchain/core/utils/function_calling';
import { MCPServerStreamableHttp, RunContext, getAllMcpTools, type FunctionTool } from '@openai/agents-core';
import { createMCPClient } from '@ai-sdk/mcp';
import { mcpToTool } from '@google/genai';
import { MAX_ANSWER_CHARS } from '../../../surfaces/mcp/answer-budget.js';
import { mcpClient } from '../../helpers/mcp.js';
import { brandApi, buildLaunch, oneCampaignLaunch, uploadCreative } from '../../helpers/launch-builders.js';
import { outputPortabilityWarnings, portabilityWarnings } from '../../helpers/schema-portability.js';
import { startWorld, type World } from '../../helpers/world.js';
import { inspectorLauncher } from '../../helpers/mcp-inspector.js';

const run = promisify(execFile);

/** `mcp-inspector --cli <target> --method tools/list --strict`, with a HOME of its own (it keeps a catalog there). */
async function inspectorList(target: string[], extra: string[] = []): Promise<{ code: number; stdout: string; stderr: string }> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-inspector-'));
  try {
    const r = await run(process.execPath, [inspectorLauncher(), '--cli', ...target, '--method', 'tools/list', '--strict', ...extra], {
      cwd: home,
      env: { PATH: process.env.PATH ?? '', HOME: home },
      maxBuffer: 16 * 1024 * 1024,
    }).then(
      (ok) => ({ code: 0, ...ok }),
      (err: { code: number; stdout: string; stderr: string }) => err,
    );
    return { code: r.code, stdout: r.stdout, stderr: r.stderr };
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
  }
}

/**
 * The text blocks of a tool answer as a framework hands it back (a string, the MCP content list, or
 * the whole result), joined: what the model reads besides the framework's own wrapping.
 */
function textOf(answer: unknown): string {
  let value = answer;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      return value as string;
    }
  }
  // One content block comes alone (the OpenAI Agents SDK hands back `content[0]` when there is one).
  if ((value as { type?: unknown })?.type === 'text') value = [value];
  const blocks = Array.isArray(value) ? value : (value as { content?: unknown })?.content;
  if (!Array.isArray(blocks)) return typeof answer === 'string' ? answer : JSON.stringify(answer);
  return blocks.map((b: { type?: string; text?: string }) => (b.type === 'text' ? (b.text ?? '') : '')).join('');
}

/** The planFingerprint an answer tells the agent to call again with (what a model reads, whatever the framework wraps it in). */
function namedPlan(text: string, framework: string): string {
  const m = /call launch_campaign again with the same arguments and planFingerprint: "([A-Za-z0-9_-]+)"/.exec(text);
  expect(m, `${framework}: the answer names the plan to confirm: ${text.slice(0, 500)}`).to.not.equal(null);
  return m![1];
}

/** What a usable get_launch answer is, whatever the framework wraps it in: the cut launch, its note and the link. */
function expectUsableLaunch(text: string, launchId: string, framework: string): void {
  expect(text.length, `${framework}: the answer's text`).to.be.at.most(MAX_ANSWER_CHARS);
  expect(text, framework).to.contain(`"id":"${launchId}"`);
  expect(text, framework).to.match(/campaigns\[0\]\.adSets: kept \d+ of 60/);
}

describe('MCP with the frameworks agents are built on (all tools, no model called)', function () {
  this.timeout(120_000);
  let w: World;
  let brandId: number;
  let launchId: string;
  let headers: Record<string, string>;
  let listed: Awaited<ReturnType<Client['listTools']>>['tools'];
  let creativeId: number;
  before(async () => {
    w = await startWorld({ dialect: 'sqlite', env: { RATE_LIMIT_PER_MINUTE: '100000', RATE_LIMIT_CONCURRENCY: '100' } });
    brandId = w.brandId('acme', 'shoes');
    creativeId = await uploadCreative(w, w.key('acme', 'ci'), brandId);
    launchId = await oneCampaignLaunch(w, brandId, 60);
    headers = { authorization: `Bearer ${w.key('acme', 'ci')}`, 'x-mcp-toolsets': 'all' };
    const client = await mcpClient(w.url, w.key('acme', 'ci'));
    listed = (await client.listTools()).tools;
    await client.close();
    expect(listed.length).to.equal(w.service.catalogue.list().length);
  });
  after(async () => w?.close());

  it('the MCP Inspector CLI lists every tool of all and reports no schema portability problem', async () => {
    const r = await inspectorList([`${w.url}/mcp`], ['--header', `Authorization: Bearer ${w.key('acme', 'ci')}`, '--header', 'X-MCP-Toolsets: all']);
    expect(r.code, r.stderr).to.equal(0);
    expect(JSON.parse(r.stdout).tools).to.have.length(listed.length);
    expect(r.stderr, `the Inspector reports: ${r.stderr.slice(0, 1500)}`).to.not.match(/warning|error|portability/i);
  });

  it('the MCP Inspector CLI does report a nullable type array (its check is on)', async () => {
    const r = await inspectorList([process.execPath, projectPath('test', 'fixtures', 'nonportable-mcp-server.mjs')]);
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stderr).to.match(/Warning: tool "set_thing"\n\s+Path: inputSchema\.properties\.name/);
    expect(r.stderr).to.contain('0 errors, 1 warning across 1 tool.');
  });

  it('the Inspector-style schema check finds no warning on all, inputs and outputs', () => {
    expect(portabilityWarnings(listed)).to.deep.equal([]);
    expect(outputPortabilityWarnings(listed)).to.deep.equal([]);
  });

  it("LangChain's MCP adapters load and convert every tool for an OpenAI-style model, and call get_launch", async () => {
    const client = await mcpClient(w.url, w.key('acme', 'ci'));
    try {
      const tools = await loadMcpTools('svc', client, { throwOnLoadError: true });
      expect(tools.map((t) => t.name).sort()).to.deep.equal(listed.map((t) => t.name).sort());
      // What LangChain sends a chat model that binds these tools.
      const sent = tools.map((t) => convertToOpenAITool(t));
      for (const s of sent) expect(s.function.parameters, s.function.name).to.include({ type: 'object' });
      const getLaunch = tools.find((t) => t.name === 'get_launch')!;
      // Arguments as a model following the schema writes them (a launch id as answers give it: its digits, a string).
      const answer = await getLaunch.invoke({ brandId, launchId });
      expectUsableLaunch(textOf(answer), launchId, 'LangChain');
    } finally {
      await client.close();
    }
  });

  it("LangChain's MCP adapters call tools with ids taken from answers (a launch's id, a node's id), as the answers give them", async () => {
    const client = await mcpClient(w.url, w.key('acme', 'ci'));
    try {
      const tools = await loadMcpTools('svc', client, { throwOnLoadError: true });
      const tool = (name: string) => tools.find((t) => t.name === name)!;
      const answerOf = async (name: string, args: Record<string, unknown>) => JSON.parse(textOf(await tool(name).invoke(args)));
      const created = await answerOf('create_launch', { brandId, title: 'Ids from answers', idempotencyKey: 'langchain-ids-1' });
      expect(created.id, 'a launch id is answered as a string of digits')
        .to.be.a('string')
        .and.match(/^[1-9][0-9]*$/);
      // The id goes back exactly as it was answered: the adapter checks it against the tool's schema before sending.
      const campaign = await answerOf('create_node', {
        brandId,
        launchId: created.id,
        nodeType: 'campaign',
        properties: { name: 'From an answer' },
        idempotencyKey: 'langchain-ids-2',
      });
      expect(campaign.id, JSON.stringify(campaign)).to.be.a('string');
      const renamed = await answerOf('update_node', { brandId, launchId: created.id, nodeId: campaign.id, properties: { name: 'Renamed from an answer' } });
      expect(renamed.properties.name, JSON.stringify(renamed)).to.equal('Renamed from an answer');
      const read = await answerOf('get_launch', { brandId, launchId: created.id });
      expect(read.id).to.equal(created.id);
      expect(read.campaigns.map((c: { node: { properties: { name: string } } }) => c.node.properties.name)).to.deep.equal(['Renamed from an answer']);
      // A creative's id is answered as a number, and taken as one.
      const listed = await answerOf('list_creatives', { brandId });
      const creative = await answerOf('get_creative', { brandId, creativeId: listed.creatives[0].id });
      expect(creative.id).to.equal(listed.creatives[0].id);
    } finally {
      await client.close();
    }
  });

  // Neither framework declares elicitation: a publish takes two calls, the plan first, then the call that names it.
  it("LangChain's MCP adapters publish in two calls: confirm without the plan answers it with its planFingerprint, the call naming it publishes", async () => {
    const draft = await buildLaunch(brandApi(w, w.key('acme', 'ci'), brandId), { creativeId, title: 'LangChain two calls' });
    const client = await mcpClient(w.url, w.key('acme', 'ci'));
    try {
      const tools = await loadMcpTools('svc', client, { throwOnLoadError: true });
      const launchCampaign = tools.find((t) => t.name === 'launch_campaign')!;
      const args = { brandId, launchId: draft.launchId, confirm: true };
      const first = textOf(await launchCampaign.invoke({ ...args, idempotencyKey: 'langchain-1' }));
      expect(first).to.contain('Nothing was done').and.to.contain('"status":"draft"');
      const planFingerprint = namedPlan(first, 'LangChain');
      expect((await w.request('GET', `/v1/brands/${brandId}/launches/${draft.launchId}`, { key: w.key('acme', 'ci') })).body.status).to.equal('draft');
      const second = textOf(await launchCampaign.invoke({ ...args, planFingerprint, idempotencyKey: 'langchain-2' }));
      expect(second).to.contain('"status":"published"').and.to.contain(`"planFingerprint":"${planFingerprint}"`);
    } finally {
      await client.close();
    }
  });

  it('the OpenAI Agents SDK (strict schemas) publishes in two calls the same way', async () => {
    const draft = await buildLaunch(brandApi(w, w.key('acme', 'ci'), brandId), { creativeId, title: 'Agents SDK two calls' });
    const server = new MCPServerStreamableHttp({ url: `${w.url}/mcp`, name: 'svc', requestInit: { headers }, cacheToolsList: false });
    await server.connect();
    try {
      const tools = (await getAllMcpTools({ mcpServers: [server], convertSchemasToStrict: true, runContext: new RunContext() })) as FunctionTool[];
      const launchCampaign = tools.find((t) => t.name === 'launch_campaign')!;
      const args = { brandId, launchId: draft.launchId, confirm: true };
      const first = textOf(await launchCampaign.invoke(new RunContext(), JSON.stringify({ ...args, idempotencyKey: 'agents-1' })));
      expect(first).to.contain('Nothing was done').and.to.contain('"status":"draft"');
      const planFingerprint = namedPlan(first, 'OpenAI Agents SDK');
      expect((await w.request('GET', `/v1/brands/${brandId}/launches/${draft.launchId}`, { key: w.key('acme', 'ci') })).body.status).to.equal('draft');
      const second = textOf(await launchCampaign.invoke(new RunContext(), JSON.stringify({ ...args, planFingerprint, idempotencyKey: 'agents-2' })));
      expect(second).to.not.match(/An error occurred/);
      expect(second).to.contain('"status":"published"').and.to.contain(`"planFingerprint":"${planFingerprint}"`);
    } finally {
      await server.close();
    }
  });

  it('the OpenAI Agents SDK converts every tool with strict schemas, and calls get_launch', async () => {
    const server = new MCPServerStreamableHttp({ url: `${w.url}/mcp`, name: 'svc', requestInit: { headers }, cacheToolsList: false });
    await server.connect();
    try {
      const tools = (await getAllMcpTools({ mcpServers: [server], convertSchemasToStrict: true, runContext: new RunContext() })) as FunctionTool[];
      expect(tools.map((t) => t.name).sort()).to.deep.equal(listed.map((t) => t.name).sort());
      // What the Responses API would be sent for each tool; every one converted to strict mode.
      const sent = tools.map((t) => ({ type: 'function', name: t.name, description: t.description, parameters: t.parameters, strict: t.strict }));
      const notStrict = sent.filter((s) => !s.strict).map((s) => s.name);
      expect(notStrict, 'tools the strict conversion gave up on').to.deep.equal([]);
      const getLaunch = tools.find((t) => t.name === 'get_launch')!;
      const answer = await getLaunch.invoke(new RunContext(), JSON.stringify({ brandId, launchId }));
      expect(JSON.stringify(answer)).to.not.match(/An error occurred/);
      expectUsableLaunch(textOf(answer), launchId, 'OpenAI Agents SDK');
    } finally {
      await server.close();
    }
  });

  it('the OpenAI Agents SDK with X-MCP-Schema: strict: served in strict form, its converter changes nothing, each description said once, and a null means left out', async () => {
    const connect = async (form: string) => {
      const server = new MCPServerStreamableHttp({
        url: `${w.url}/mcp`,
        name: 'svc',
        requestInit: { headers: { ...headers, 'x-mcp-schema': form } },
        cacheToolsList: false,
      });
      await server.connect();
      return server;
    };
    const portable = await connect('portable');
    const strict = await connect('strict');
    try {
      const served = await strict.listTools();
      const converted = (await getAllMcpTools({ mcpServers: [strict], convertSchemasToStrict: true, runContext: new RunContext() })) as FunctionTool[];
      const fromPortable = (await getAllMcpTools({ mcpServers: [portable], convertSchemasToStrict: true, runContext: new RunContext() })) as FunctionTool[];
      expect(converted.map((t) => t.name)).to.deep.equal(served.map((t) => t.name));
      for (const t of converted) {
        expect(t.strict, t.name).to.equal(true);
        // The Agents SDK's own conversion finds nothing to change.
        expect(t.parameters, t.name).to.deep.equal({ ...served.find((s) => s.name === t.name)!.inputSchema, additionalProperties: false });
      }
      // The same words either way: what the portable form's conversion writes twice is written once.
      const sent = (tools: FunctionTool[]) => JSON.stringify(tools.map((t) => ({ name: t.name, description: t.description, parameters: t.parameters })));
      const descriptions = (tools: FunctionTool[]) => new Set(sent(tools).match(/"description":"[^"]*"/g));
      expect(descriptions(converted)).to.deep.equal(descriptions(fromPortable));
      expect(sent(converted).length).to.be.below(sent(fromPortable).length);
      // A strict model sends every property; null for those it leaves out, which the server reads as left out.
      const tool = (name: string) => converted.find((t) => t.name === name)!;
      const made = JSON.parse(
        textOf(
          await tool('create_launch').invoke(
            new RunContext(),
            JSON.stringify({ brandId, title: 'Strict nulls', description: null, idempotencyKey: 'strict-1' }),
          ),
        ),
      );
      expect(made, JSON.stringify(made)).to.include({ title: 'Strict nulls' });
      const read = JSON.parse(textOf(await tool('get_launch').invoke(new RunContext(), JSON.stringify({ brandId, launchId: made.id }))));
      expect(read.id).to.equal(made.id);
      expect(read).to.not.have.property('description');
    } finally {
      await portable.close();
      await strict.close();
    }
  });

  it('answers an unknown X-MCP-Schema with 400 naming the two forms', async () => {
    const res = await fetch(`${w.url}/mcp`, {
      method: 'POST',
      headers: { ...headers, 'x-mcp-schema': 'loose', 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    expect(res.status).to.equal(400);
    expect((await res.json()).error.message).to.contain('X-MCP-Schema must be portable (the default) or strict');
  });

  it("the Vercel AI SDK's MCP client loads every tool and calls get_launch", async () => {
    const client = await createMCPClient({ transport: { type: 'http', url: `${w.url}/mcp`, headers } });
    try {
      const tools = await client.tools();
      expect(Object.keys(tools).sort()).to.deep.equal(listed.map((t) => t.name).sort());
      // What generateText would send the model for each tool: its description and JSON Schema.
      for (const [name, tool] of Object.entries(tools)) {
        const schema = await (tool.inputSchema as { jsonSchema: unknown }).jsonSchema;
        expect(schema, name).to.include({ type: 'object' });
      }
      const answer = await tools.get_launch.execute!({ brandId, launchId }, { toolCallId: 'call-1', messages: [] });
      const result = answer as { structuredContent?: { id?: string }; content: Array<{ type: string; text?: string }>; isError?: boolean };
      expect(result.isError).to.not.equal(true);
      expect(result.structuredContent?.id).to.equal(launchId);
      expectUsableLaunch(textOf(result), launchId, 'AI SDK');
    } finally {
      await client.close();
    }
  });

  it("Google's mcpToTool declares every tool for Gemini, output schemas included, and calls get_launch", async () => {
    const client = await mcpClient(w.url, w.key('acme', 'ci'));
    try {
      const callable = mcpToTool(client);
      // What a generateContent request would carry: one function declaration per tool.
      const declared = (await callable.tool()).functionDeclarations ?? [];
      expect(declared.map((d) => d.name).sort()).to.deep.equal(listed.map((t) => t.name).sort());
      for (const d of declared) {
        expect(d.parametersJsonSchema, d.name).to.include({ type: 'object' });
        expect(outputPortabilityWarnings([{ name: d.name!, outputSchema: d.responseJsonSchema as Record<string, unknown> }]), d.name).to.deep.equal([]);
      }
      const parts = await callable.callTool([{ name: 'get_launch', args: { brandId, launchId } }]);
      const response = parts[0].functionResponse?.response as Record<string, unknown>;
      expect(response, 'a function response').to.be.an('object');
      expect(response.isError).to.not.equal(true);
      expectUsableLaunch(textOf(response), launchId, 'Google GenAI');
      // Gemini forwards the whole result (text blocks and structuredContent): that is what the budget counts.
      expect(JSON.stringify(response).length, 'what Gemini forwards').to.be.at.most(MAX_ANSWER_CHARS);
    } finally {
      await client.close();
    }
  });
});
