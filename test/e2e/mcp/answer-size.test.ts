// Lean answers: every read tool, called as an agent calls it (no limit: the MCP page of 25), answers
// at most 25,000 characters of text on the demo data and on a brand seeded large. A larger answer
// (a large launch, its publish preview, a page of 100) is cut with a note and a resource_link whose
// resources/read returns the whole, and which another organization's key cannot read.

import { expect } from 'chai';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { MAX_ANSWER_CHARS } from '../../../surfaces/mcp/answer-budget.js';
import { MCP_PAGE_SIZE } from '../../../surfaces/mcp/tools.js';
import { asToolAnswer, clientAccepts, mcpClient, toolError, type ToolResult } from '../../helpers/mcp.js';
import { brandApi, buildLaunch, idem, publish, uploadCreative, type Api } from '../../helpers/launch-builders.js';
import { mapLimit } from '../../helpers/launches.js';
import { startWorld, type World } from '../../helpers/world.js';
import { oneCampaignLaunch } from '../../helpers/launch-builders.js';

type Tool = Awaited<ReturnType<Client['listTools']>>['tools'][number];

/** Ids the read tools take, found in the brand's data; a missing one is sent as "1" (the answer is then not_found). */
type Known = Record<string, unknown>;

const FIXED: Known = { optionType: 'interests', pageId: 'page_1', datePreset: 'last_7d' };

function argsFor(tool: Tool, known: Known): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  for (const name of (tool.inputSchema.required as string[] | undefined) ?? []) args[name] = known[name] ?? FIXED[name] ?? '1';
  return args;
}

interface Measured {
  tool: string;
  bytes: number;
  error: string | null;
}

/** Calls every read tool the client lists and measures each answer's text. */
async function measureReads(client: Client, known: Known): Promise<Measured[]> {
  const { tools } = await client.listTools();
  const out: Measured[] = [];
  for (const tool of tools.filter((t) => t.annotations?.readOnlyHint)) {
    const result = (await client.callTool({ name: tool.name, arguments: argsFor(tool, known) })) as ToolResult;
    const text = result.content[0]?.text ?? '';
    if (!result.isError) expect(JSON.parse(text), tool.name).to.deep.equal(result.structuredContent);
    // Every real answer stays valid against the tool's (portable) output schema.
    expect(clientAccepts(tool, result), tool.name).to.deep.equal({ ok: true });
    out.push({ tool: tool.name, bytes: forwardedOf(result), error: result.isError ? `${toolError(result).code}: ${toolError(result).message}` : null });
  }
  return out;
}

/** What an agent would find first: the ids of the brand's first items of each kind. */
async function knownIds(client: Client, brandId: number, accountId: string, launchId?: string): Promise<Known> {
  const call = async (name: string, args: Record<string, unknown>) =>
    ((await client.callTool({ name, arguments: { brandId, ...args } })) as ToolResult).structuredContent ?? {};
  const known: Known = { brandId, accountId };
  known.launchId = launchId ?? (await call('list_launches', {})).batches?.[0]?.id;
  if (known.launchId) {
    const launch = await call('get_launch', { launchId: known.launchId });
    known.adsetId = launch.campaigns?.[0]?.adSets?.[0]?.node?.id;
  }
  known.creativeId = (await call('list_creatives', {})).creatives?.[0]?.id;
  known.copyGenerationId = (await call('list_copies', {})).copies?.[0]?.copyGenerationId;
  known.templateId = (await call('list_structure_templates', {})).structureTemplates?.[0]?.templateId;
  known.automationId = (await call('list_automations', {})).automations?.[0]?.automationId;
  known.workflowId = (await call('list_workflows', {})).workflows?.[0]?.workflowId;
  if (known.workflowId) known.executionId = (await call('list_workflow_executions', { workflowId: known.workflowId })).executions?.[0]?.executionId;
  known.endpointId = ((await client.callTool({ name: 'list_webhook_endpoints', arguments: {} })) as ToolResult).structuredContent?.webhookEndpoints?.[0]
    ?.endpointId;
  for (const [name, value] of Object.entries(known)) if (value === undefined) delete known[name];
  return known;
}

/** All the text an answer carries (its text blocks). */
function textOf(result: ToolResult): string {
  return result.content.map((c) => (c.type === 'text' ? (c.text ?? '') : '')).join('');
}

/** What a client forwards to its model, which the budget counts: the text blocks (as strings in JSON, as Gemini sends them) and the structuredContent alike. */
function forwardedOf(result: ToolResult): number {
  return JSON.stringify(textOf(result)).length + (result.structuredContent === undefined ? 0 : JSON.stringify(result.structuredContent).length);
}

function expectWithinBudget(measured: Measured[]): void {
  for (const m of measured) expect(m.bytes, `${m.tool} answered ${m.bytes} characters`).to.be.at.most(MAX_ANSWER_CHARS);
}

/** The link of a cut answer, after checking the answer is cut: within budget, a note naming what was left out, structuredContent the cut JSON. */
function cutLink(result: { isError?: boolean; structuredContent?: unknown; content: Array<{ type: string; text?: string; uri?: string }> }): string {
  expect(result.isError).to.not.equal(true);
  expect(forwardedOf(result as ToolResult), 'text and structuredContent together').to.be.at.most(MAX_ANSWER_CHARS);
  expect(JSON.parse(result.content[0].text!)).to.deep.equal(result.structuredContent);
  expect(result.content[1].text).to.match(/more than the 25,000 one answer carries, so it is cut .+ Per list: .+: kept \d+ of \d+, left out \d+/);
  const link = result.content.find((c) => c.type === 'resource_link');
  expect(link?.uri).to.match(/^svc:\/\/brands\/\d+\//);
  expect(result.content[1].text).to.contain(link!.uri!);
  return link!.uri!;
}

/** The whole answer behind a link, as resources/read returns it. */
async function readWhole(client: Client, uri: string): Promise<unknown> {
  const { contents } = await client.readResource({ uri });
  expect(contents).to.have.length(1);
  expect(contents[0].mimeType).to.equal('application/json');
  return JSON.parse((contents[0] as { text: string }).text);
}

/** The error code resources/read answers, or null when it answered. */
async function readRefusal(client: Client, uri: string): Promise<{ code: number; message: string } | null> {
  try {
    await client.readResource({ uri });
    return null;
  } catch (err) {
    if (!(err instanceof McpError)) throw err;
    return { code: err.code, message: err.message };
  }
}

describe('MCP answers an agent can read', function () {
  this.timeout(180_000);

  describe('on the demo data', () => {
    let w: World;
    before(async () => {
      w = await startWorld({ dialect: 'sqlite', demo: true });
    });
    after(async () => w?.close());

    it('answers every read tool within 25,000 characters, with the text equal to structuredContent', async () => {
      const client = await mcpClient(w.url, w.key('demo', 'demo'));
      const brandId = w.brandId('demo', 'shoes');
      const measured = await measureReads(client, await knownIds(client, brandId, 'act_1001'));
      await client.close();
      expect(measured.length).to.equal(w.service.catalogue.list().filter((op) => op.annotations.readOnly).length);
      expectWithinBudget(measured);
      // The demo's launch, creatives and campaigns are read for real, not refused.
      const ok = new Set(measured.filter((m) => !m.error).map((m) => m.tool));
      expect([...ok]).to.include.members(['list_brands', 'list_launches', 'get_launch', 'get_ad_set', 'list_campaigns', 'get_overview', 'list_activity']);
    });
  });

  describe('a launch of one campaign with 60 ad sets of 4 ads', () => {
    let w: World;
    let brandId: number;
    let launchId: string;
    before(async () => {
      w = await startWorld({ dialect: 'sqlite', env: { RATE_LIMIT_PER_MINUTE: '100000', RATE_LIMIT_CONCURRENCY: '100' } });
      brandId = w.brandId('acme', 'shoes');
      launchId = await oneCampaignLaunch(w, brandId, 60);
    });
    after(async () => w?.close());

    it('answers get_launch cut within 25,000 characters, structuredContent valid against the output schema, kept K of N per list', async () => {
      const client = await mcpClient(w.url, w.key('acme', 'ci'));
      const { tools } = await client.listTools();
      // The official client checks structuredContent against the output schema and throws when it is missing or invalid.
      const result = (await client.callTool({ name: 'get_launch', arguments: { brandId, launchId } })) as any;
      await client.close();
      cutLink(result);
      expect(
        clientAccepts(
          tools.find((t) => t.name === 'get_launch')!,
          result,
        ),
      ).to.deep.equal({ ok: true });
      const note = result.content[1].text as string;
      expect(note).to.match(/campaigns\[0\]\.adSets: kept (\d+) of 60, left out (\d+)/);
      const [, kept, leftOut] = /campaigns\[0\]\.adSets: kept (\d+) of 60, left out (\d+)/.exec(note)!;
      expect(Number(kept) + Number(leftOut)).to.equal(60);
      expect(result.structuredContent.campaigns).to.have.length(1);
      expect(result.structuredContent.campaigns[0].adSets).to.have.length(Number(kept));
      expect(Number(kept)).to.be.at.least(1);
      // The counts stay whole, and the ad sets left out are named by id.
      expect(result.structuredContent.counts).to.deep.include({ campaigns: 1, adSets: 60, ads: 240 });
      const lastId = (await brandApi(w, w.key('acme', 'ci'), brandId)('GET', `/launches/${launchId}`)).body.campaigns[0].adSets[59].node.id;
      expect(note).to.contain(String(lastId));
    });
  });

  describe('on a brand seeded large', () => {
    let w: World;
    let api: Api;
    let brandId: number;
    let bigLaunchId: string;
    let draftLaunchId: string;
    before(async () => {
      const world = structuredClone((await import('../../helpers/fixture.js')).standardWorld) as any;
      world.organizations[0].apiKeys.find((k: { ref: string }) => k.ref === 'ci').publishCeilingDollars = 100_000;
      w = await startWorld({ dialect: 'sqlite', bootstrap: world, env: { RATE_LIMIT_PER_MINUTE: '100000', RATE_LIMIT_CONCURRENCY: '100' } });
      brandId = w.brandId('acme', 'shoes');
      api = brandApi(w, w.key('acme', 'ci'), brandId);
      const key = w.key('acme', 'ci');
      const creatives = await mapLimit([...Array(40).keys()], 4, (i) => uploadCreative(w, key, brandId, `creative-${i}.png`));
      // Many launches, each with a long description, and one large published tree:
      // 3 campaigns x 8 ad sets x 4 ads.
      await mapLimit([...Array(120).keys()], 4, (i) =>
        api('POST', '/launches', { title: `Launch ${i} ${'x'.repeat(150)}`, description: 'd'.repeat(500) }, idem('many')),
      );
      // 3 campaigns x 8 ad sets x 4 ads, published; 3 x 13 x 4 left a draft for the publish preview.
      // Each campaign budget covers Meta's minimum for its link-click ad sets ($5.00 each in the sandbox).
      const buildBig = async (title: string, copies: number, dailyAmount: number) => {
        const big = await buildLaunch(api, { title, creativeId: creatives[0], ads: 4, campaign: { budget: { dailyAmount } } });
        await api('POST', `/launches/${big.launchId}/nodes/${big.adsetId}/duplicate`, { nodeType: 'adset', count: copies }, idem('dup'));
        for (let c = 1; c < 3; c++) {
          const campaign = (
            await api('POST', `/launches/${big.launchId}/nodes`, {
              nodeType: 'campaign',
              properties: { name: `Campaign ${c}`, objective: 'OUTCOME_TRAFFIC', budget: { dailyAmount } },
            })
          ).body.id;
          const adset = (
            await api('POST', `/launches/${big.launchId}/nodes`, {
              nodeType: 'adset',
              parentId: campaign,
              properties: {
                name: `Ad set ${c}`,
                optimizationGoal: 'LINK_CLICKS',
                billingEvent: 'IMPRESSIONS',
                targeting: { countries: ['US'], ageMin: 18, ageMax: 65 },
                schedule: { startTime: '2030-01-01T00:00:00Z' },
              },
            })
          ).body.id;
          for (let a = 0; a < 4; a++)
            await api('POST', `/launches/${big.launchId}/nodes`, {
              nodeType: 'ad',
              parentId: adset,
              properties: {
                name: `Ad ${c}.${a}`,
                creativeId: creatives[a],
                headline: 'Spring sale',
                primaryText: 'Up to 40% off',
                linkUrl: 'https://shop.example.com/spring',
                callToAction: 'SHOP_NOW',
              },
            });
          await api('POST', `/launches/${big.launchId}/nodes/${adset}/duplicate`, { nodeType: 'adset', count: copies }, idem('dup'));
        }
        return big.launchId;
      };
      bigLaunchId = await buildBig('Big launch', 7, 5000);
      draftLaunchId = await buildBig('Big draft', 12, 6500);
      await publish(api, bigLaunchId);
      // Copies, structure templates, automations (with runs over the live ads), a board, webhook endpoints.
      await mapLimit([...Array(40).keys()], 4, (i) =>
        api('POST', '/copies', { platform: 'meta', angle: `angle ${i}`, creativeIds: [creatives[i]] }, idem('copy')),
      );
      await mapLimit([...Array(30).keys()], 4, (i) =>
        api('POST', '/structure-templates', {
          name: `Template ${i}`,
          config: {
            campaign: { name: '{brand} | {objective}', objective: 'OUTCOME_TRAFFIC' },
            adSets: [{ name: '{audience}', optimizationGoal: 'LINK_CLICKS', billingEvent: 'IMPRESSIONS', targeting: { countries: ['US'] } }],
            ads: [
              {
                name: 'Hero',
                creativeId: creatives[i],
                headline: 'Spring',
                primaryText: 'Sale',
                linkUrl: 'https://shop.example.com',
                callToAction: 'SHOP_NOW',
              },
            ],
          },
          audiences: [{ kind: 'targetingSet', name: 'Broad', targeting: { ageMin: 25, ageMax: 45 } }],
          accounts: ['act_1001'],
        }),
      );
      for (let i = 0; i < 12; i++) {
        const rule = await api('POST', '/automations', {
          automationName: `Watch ads ${i}`,
          accountId: 'act_1001',
          level: 'ad',
          conditions: [{ metric: 'spend', window: 'today', operator: 'gt', value: 1_000_000 }],
          action: 'notify',
          mode: 'shadow',
        });
        for (let r = 0; r < 3; r++) await api('POST', `/automations/${rule.body.automationId}/runs`, {}, idem('run'));
      }
      const column = await api('POST', '/pipeline/columns', { name: 'Ideas', publishes: false });
      const launches = (await api('GET', '/launches?limit=100')).body.batches as Array<{ id: string }>;
      await mapLimit(launches.slice(0, 80), 4, (l) => api('POST', '/pipeline/cards', { launchId: l.id, columnId: column.body.columnId }, idem('card')));
      await mapLimit([...Array(15).keys()], 4, (i) =>
        w.request('POST', '/v1/webhook-endpoints', { key, body: { url: `https://hooks${i}.example.com/svc`, events: ['launch.published'] } }),
      );
    });
    after(async () => w?.close());

    it('answers every read tool within 25,000 characters, never refusing one for its size', async () => {
      const client = await mcpClient(w.url, w.key('acme', 'ci'));
      const known = await knownIds(client, brandId, 'act_1001', bigLaunchId);
      const measured = await measureReads(client, known);
      await client.close();
      expectWithinBudget(measured);
      const refused = measured.filter((m) => m.error?.includes('answer_too_large'));
      expect(refused, JSON.stringify(refused)).to.deep.equal([]);
      if (process.env.SHOW_SIZES) process.stderr.write(`${JSON.stringify(measured, null, 1)}\n`);
      expect(measured.find((m) => m.tool === 'get_launch')!.error).to.equal(null);
      expect(measured.find((m) => m.tool === 'list_launches')!.error).to.equal(null);
    });

    it('cuts a large get_launch to a summary with a resource_link whose resources/read returns the whole', async () => {
      const client = await mcpClient(w.url, w.key('acme', 'ci'));
      const result = (await client.callTool({ name: 'get_launch', arguments: { brandId, launchId: bigLaunchId } })) as any;
      const uri = cutLink(result);
      const whole = (await api('GET', `/launches/${bigLaunchId}`)).body;
      expect(JSON.stringify(whole).length).to.be.greaterThan(MAX_ANSWER_CHARS);
      expect(await readWhole(client, uri)).to.deep.equal(whole);
      // The cut keeps the launch itself and its first campaigns; only the ends of lists are gone.
      expect(result.structuredContent.id).to.equal(whole.id);
      expect(result.structuredContent.campaigns.length).to.be.at.least(1);
      await client.close();
      // Another organization's key reaches nothing behind the link.
      const other = await mcpClient(w.url, w.key('other', 'otherKey'));
      const refusal = await readRefusal(other, uri);
      await other.close();
      expect(refusal?.code).to.equal(-32002);
      expect(refusal?.message).to.match(/not found: (not_found|brand_not_allowed)/);
      expect(refusal?.message).to.not.match(/MCP error -32002.*MCP error -32002/);
    });

    it('cuts a large publish preview the same way, the whole kept for its caller and refused to another organization', async () => {
      const client = await mcpClient(w.url, w.key('acme', 'ci'));
      const result = (await client.callTool({
        name: 'launch_campaign',
        arguments: { brandId, launchId: draftLaunchId, idempotencyKey: 'preview-big' },
      })) as any;
      const uri = cutLink(result);
      expect(uri).to.match(new RegExp(`^svc://brands/${brandId}/answers/`));
      const whole = (await readWhole(client, uri)) as any;
      expect(JSON.stringify(whole).length).to.be.greaterThan(MAX_ANSWER_CHARS);
      // The preview is what REST previews, and its cut keeps the counts, the money and the problems whole.
      const rest = (await api('POST', `/launches/${draftLaunchId}/publish`, {}, idem('preview'))).body;
      // The whole, like the cut, is the tool's answer (its nulls left out).
      expect(Object.keys(whole)).to.deep.equal(Object.keys(asToolAnswer(rest)));
      const small = Object.entries(whole).filter(([, value]) => JSON.stringify(value).length < 2_000);
      expect(small.map(([key]) => key)).to.include.members(['counts', 'valid']);
      for (const [key, value] of small) expect(result.structuredContent[key], key).to.deep.equal(value);
      expect(result.structuredContent.counts).to.deep.equal({ campaigns: 3, adSets: 39, ads: 156 });
      await client.close();
      const other = await mcpClient(w.url, w.key('other', 'otherKey'));
      const refusal = await readRefusal(other, uri);
      await other.close();
      expect(refusal?.code).to.equal(-32002);
    });

    it(`pages lists by ${MCP_PAGE_SIZE} when the agent names no limit, while REST keeps 50`, async () => {
      const client = await mcpClient(w.url, w.key('acme', 'ci'));
      const page = (await client.callTool({ name: 'list_launches', arguments: { brandId } })) as ToolResult;
      await client.close();
      expect(page.structuredContent.batches).to.have.length(MCP_PAGE_SIZE);
      expect(page.structuredContent.nextCursor).to.be.a('string');
      expect((await api('GET', '/launches')).body.batches).to.have.length(50);
    });

    it('cuts a page of 100 to what fits, naming how many items it kept, and links the whole page', async () => {
      const client = await mcpClient(w.url, w.key('acme', 'ci'));
      const result = (await client.callTool({ name: 'list_launches', arguments: { brandId, limit: 100 } })) as any;
      const uri = cutLink(result);
      expect(result.content[1].text).to.match(/batches: kept \d+ of 100, left out \d+ \(/);
      expect(result.structuredContent.batches.length).to.be.below(100);
      const whole = (await readWhole(client, uri)) as any;
      expect(whole.batches).to.have.length(100);
      expect(whole.batches.slice(0, result.structuredContent.batches.length)).to.deep.equal(result.structuredContent.batches);
      await client.close();
    });
  });
});
