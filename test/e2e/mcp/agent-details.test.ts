// The MCP details agents tripped on (issue 60, item 5), through the SDK's real Client: an error
// names tools and their arguments, never REST routes or headers; every planFingerprint argument says
// what a stale one does; every output schema lists each field its answers carry (nextCursor
// included); a launch id is taken as answers give it (a string of digits) and as a number.

import { expect } from 'chai';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { mcpClient, toolError, type ToolResult } from '../../helpers/mcp.js';
import { brandApi, buildLaunch } from '../../helpers/launch-builders.js';
import { startWorld, type World } from '../../helpers/world.js';

/** Words that belong to REST, not to a tool: an HTTP verb before a path or resource, a /v1 route, the header. */
const REST_WORDS = /\b(GET|POST|PATCH|PUT|DELETE) (on |the |\/|[a-z]+:)|\/v1\/|Idempotency-Key|live-budget/;

describe('MCP details an agent relies on (issue 60, item 5)', function () {
  this.timeout(60_000);
  let w: World;
  let client: Client;
  let shoes: number;
  let tools: Awaited<ReturnType<Client['listTools']>>['tools'];
  before(async () => {
    w = await startWorld({ dialect: 'sqlite' });
    shoes = w.brandId('acme', 'shoes');
    client = await mcpClient(w.url, w.key('acme', 'ci'));
    tools = (await client.listTools()).tools;
  });
  after(async () => {
    await client?.close();
    await w?.close();
  });

  const call = async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: { brandId: shoes, ...args } })) as ToolResult;

  it('an error names the tool to call and its arguments, not a REST route or header', async () => {
    const built = await buildLaunch(brandApi(w, w.key('acme', 'ci'), shoes));
    // A draft's budget is not live: the core says which operation changes it, MCP says it as the tool.
    const draftBudget = await call('edit_live_campaign', {
      launchId: built.launchId,
      nodeId: built.campaignId,
      level: 'CAMPAIGN',
      budgetType: 'daily',
      amount: 1500,
      idempotencyKey: 'details-1',
    });
    const draft = toolError(draftBudget);
    expect(draft.code).to.equal('conflict');
    expect(draft.message).to.contain('(update_node)').and.not.to.match(REST_WORDS);
    // The same condition over REST names the operation (paths.md's names), not a tool.
    const rest = await brandApi(w, w.key('acme', 'ci'), shoes)(
      'POST',
      `/launches/${built.launchId}/nodes/${built.campaignId}/live-budget`,
      { level: 'CAMPAIGN', budgetType: 'daily', amount: 1500 },
      { 'Idempotency-Key': 'details-rest-1' },
    );
    expect(rest.status).to.equal(409);
    expect(rest.body.error.message).to.contain('(update-node)');
    // No click tracker connected: the answer names connect_tracker and its arguments.
    const push = toolError(await call('run_tracker_push', { idempotencyKey: 'details-2' }));
    expect(push.message).to.contain('connect_tracker with baseUrl and apiKey').and.not.to.match(REST_WORDS);
    // A refused argument is named as the tool takes it.
    const key = toolError(await call('create_launch', { title: 'x', idempotencyKey: '' }));
    expect(key.details.map((d: { field: string }) => d.field)).to.deep.equal(['idempotencyKey']);
    expect(key.message).to.not.match(REST_WORDS);
  });

  it('every planFingerprint argument says what a stale one does (409 stale_read, and that nothing moves)', () => {
    const named: string[] = [];
    for (const tool of tools) {
      const properties = (tool.inputSchema.properties ?? {}) as Record<string, { description?: string }>;
      for (const name of ['planFingerprint', 'planFingerprints']) {
        if (!properties[name]) continue;
        named.push(tool.name);
        expect(properties[name].description, `${tool.name}.${name}`).to.match(/stale_read/);
        expect(properties[name].description, `${tool.name}.${name}`).to.match(/nothing (sent|published|armed|started|moves|was)|not the one recorded/);
      }
    }
    expect(named).to.include.members(['launch_campaign', 'edit_live_campaign', 'update_node', 'activate_workflow', 'run_workflow', 'review_workflow_step']);
  });

  it("every output schema lists each field of its tool's answers, nextCursor included", () => {
    const ops = w.service.catalogue.list();
    const missing: string[] = [];
    for (const tool of tools) {
      const op = ops.find((o) => o.name === tool.name.replace(/_/g, '-'))!;
      const full = w.service.schemas.bundle(op.output) as { properties?: Record<string, unknown> };
      const listed = (tool.outputSchema?.properties ?? {}) as Record<string, unknown>;
      for (const field of Object.keys(full.properties ?? {})) if (!(field in listed)) missing.push(`${tool.name}.${field}`);
    }
    expect(missing, missing.join(' ')).to.deep.equal([]);
    const lists = tools.filter((t) => t.name.startsWith('list_'));
    expect(lists.length).to.be.greaterThan(10);
    for (const t of lists) {
      const op = ops.find((o) => o.name === t.name.replace(/_/g, '-'))!;
      if ('nextCursor' in ((w.service.schemas.bundle(op.output) as { properties?: object }).properties ?? {}))
        expect(t.outputSchema?.properties, t.name).to.have.property('nextCursor');
    }
  });

  it('a launch id argument is a string of digits, as answers give it, and the number is taken too', async () => {
    for (const tool of tools) {
      const launchId = (tool.inputSchema.properties as Record<string, { type?: string }> | undefined)?.launchId;
      if (launchId) expect(launchId.type, tool.name).to.equal('string');
    }
    const built = await buildLaunch(brandApi(w, w.key('acme', 'ci'), shoes), { title: 'Both forms' });
    for (const launchId of [built.launchId, Number(built.launchId)]) {
      const r = await call('get_launch', { launchId });
      expect(r.isError, r.content[0]?.text).to.not.equal(true);
      expect(r.structuredContent.id).to.equal(built.launchId);
      // get_insights filters by launch with the same id schema as every other launch argument.
      const insights = await call('get_insights', { accountId: 'act_1001', launchId });
      expect(insights.isError, insights.content[0]?.text).to.not.equal(true);
    }
  });
});
