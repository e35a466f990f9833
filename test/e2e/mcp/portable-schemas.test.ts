// What every client's model can read: each tool of `all` (and of dynamic mode), as the SDK's real
// Client lists it, passes the schema-portability rules with no warning; create_node shows every
// setting a campaign, ad set or ad takes; and the core still validates each call against the full
// REST schema, so what the portable subset cannot say is refused all the same.

import { expect } from 'chai';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { mcpClient, toolError, type ToolResult } from '../../helpers/mcp.js';
import { outputPortabilityWarnings, portabilityWarnings } from '../../helpers/schema-portability.js';
import { startWorld, type World } from '../../helpers/world.js';

describe('MCP input schemas every client can read', function () {
  this.timeout(60_000);
  let w: World;
  let client: Client;
  before(async () => {
    w = await startWorld({ dialect: 'sqlite' });
    client = await mcpClient(w.url, w.key('acme', 'ci'), { toolsets: 'all' });
  });
  after(async () => {
    await client?.close();
    await w?.close();
  });

  it('finds no portability warning in any tool of all or of dynamic mode, each titled', async () => {
    const { tools } = await client.listTools();
    expect(tools.length).to.equal(w.service.catalogue.list().length);
    expect(portabilityWarnings(tools)).to.deep.equal([]);
    const dynamic = await mcpClient(w.url, w.key('acme', 'ci'), { toolsets: 'dynamic' });
    const listed = (await dynamic.listTools()).tools;
    await dynamic.close();
    expect(listed.map((t) => t.name)).to.include.members(['list_toolsets', 'enable_toolset']);
    expect(portabilityWarnings(listed)).to.deep.equal([]);
  });

  it('finds no portability warning in any output schema of all or of dynamic mode (no type arrays: a nullable field is left open)', async () => {
    const { tools } = await client.listTools();
    expect(outputPortabilityWarnings(tools)).to.deep.equal([]);
    expect(tools.every((t) => t.outputSchema)).to.equal(true);
    const dynamic = await mcpClient(w.url, w.key('acme', 'ci'), { toolsets: 'dynamic' });
    const listed = (await dynamic.listTools()).tools;
    await dynamic.close();
    expect(outputPortabilityWarnings(listed)).to.deep.equal([]);
    expect(
      outputPortabilityWarnings([{ name: 'old', outputSchema: { type: 'object', properties: { title: { type: ['string', 'null'] } }, required: ['gone'] } }]),
    ).to.deep.equal(['old: outputSchema.title: type is an array (["string","null"])', 'old: outputSchema: required gone is not a property']);
  });

  it('the rules warn about what the issue found: type arrays, references, combinators, undescribed fields, no title', () => {
    const warnings = portabilityWarnings([
      {
        name: 'old_tool',
        inputSchema: {
          type: 'object',
          $defs: { id: { type: 'integer' } },
          properties: {
            launchId: { type: ['integer', 'string'], description: 'Launch id.' },
            parentId: { $ref: '#/$defs/id', description: 'Parent.' },
            budget: {
              anyOf: [{ type: 'object', properties: { dailyAmount: { type: 'integer', description: 'Daily.' } } }, { type: 'null' }],
              description: 'Budget.',
            },
            action: { description: "As action in create_automation's input." },
            properties: { type: 'object', description: 'Settings: see node-properties.' },
            mode: { type: 'string', enum: ['live', 'shadow'] },
          },
        },
      },
    ]);
    expect(warnings).to.include.members([
      'old_tool: no title',
      'old_tool: inputSchema: keyword $defs is outside the portable subset',
      'old_tool: launchId: type is an array (["integer","string"])',
      'old_tool: parentId: keyword $ref is outside the portable subset',
      'old_tool: budget: keyword anyOf is outside the portable subset',
      'old_tool: action: no single type',
      'old_tool: properties: object without properties',
      'old_tool: mode: no description',
    ]);
  });

  it('shows in create_node and update_node every setting of each level, with its type, enum and the levels that take it', async () => {
    const { tools } = await client.listTools();
    const catalogue = (level: string) => Object.keys((w.service.schemas.bundle(`node-properties#/$defs/${level}`).properties ?? {}) as object);
    for (const name of ['create_node', 'update_node']) {
      const settings = (tools.find((t) => t.name === name)!.inputSchema.properties as any).properties;
      expect(settings.type).to.equal('object');
      expect(Object.keys(settings.properties).sort(), name).to.deep.equal(
        [...new Set([...catalogue('campaign'), ...catalogue('adset'), ...catalogue('ad')])].sort(),
      );
      expect(settings.properties.bidStrategy).to.include({ type: 'string' });
      expect(settings.properties.bidStrategy.enum).to.deep.equal(['LOWEST_COST_WITHOUT_CAP', 'LOWEST_COST_WITH_BID_CAP', 'COST_CAP']);
      expect(settings.properties.bidStrategy.description).to.match(/^Campaign only\./);
      expect(settings.properties.callToAction.enum).to.include('SHOP_NOW');
      expect(settings.properties.callToAction.description).to.match(/^Ad only\./);
      expect(settings.properties.budget.properties.dailyAmount).to.include({ type: 'integer' });
      expect(settings.properties.targeting.properties.countries).to.deep.include({ type: 'array' });
    }
    // Fields another tool shares are written out here too, not "as in create_automation".
    const update = tools.find((t) => t.name === 'update_automation')!.inputSchema.properties as any;
    expect(update.action).to.include({ type: 'string' });
    expect(update.action.enum).to.deep.equal(['pause', 'notify', 'pause_and_notify']);
    expect(JSON.stringify(tools.map((t) => t.inputSchema))).to.not.match(/"As [^"]* in [^"]*'s input\."/);
  });

  it('still validates every call against the full REST schema: what the portable schema cannot say is refused', async () => {
    const brandId = w.brandId('acme', 'shoes');
    const launch = (await client.callTool({ name: 'create_launch', arguments: { brandId, title: 'Portable', idempotencyKey: 'portable-1' } })) as ToolResult;
    const launchId = launch.structuredContent.id;
    // A budget holds exactly one amount (maxProperties 1 in the REST schema, left to the core here).
    const both = (await client.callTool({
      name: 'create_node',
      arguments: {
        brandId,
        launchId,
        nodeType: 'campaign',
        properties: { name: 'Two budgets', objective: 'OUTCOME_TRAFFIC', budget: { dailyAmount: 5000, lifetimeAmount: 9000 } },
        idempotencyKey: 'portable-2',
      },
    })) as ToolResult;
    expect(toolError(both).code).to.equal('validation_failed');
    expect(JSON.stringify(toolError(both).details)).to.contain('properties.budget');
    // A setting of another level is refused for this one, though the united schema lists it.
    const wrongLevel = (await client.callTool({
      name: 'create_node',
      arguments: { brandId, launchId, nodeType: 'campaign', properties: { name: 'C', callToAction: 'SHOP_NOW' }, idempotencyKey: 'portable-3' },
    })) as ToolResult;
    expect(toolError(wrongLevel).code).to.equal('validation_failed');
    expect(JSON.stringify(toolError(wrongLevel).details)).to.contain('callToAction');
    const nodes = await w.request('GET', `/v1/brands/${brandId}/launches/${launchId}`, { key: w.key('acme', 'ci') });
    expect(nodes.body.campaigns).to.deep.equal([]);
  });
});
