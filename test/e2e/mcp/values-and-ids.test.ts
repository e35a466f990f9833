// No meaning hidden in null, through the SDK's real Client: where REST takes null for "all" or
// "none", the tool takes a documented flag the portable subset can say (allBrands, allObjects,
// unlinkWorkflow, removeMapping); every id argument takes an integer or a string of digits; an
// error names the tool's own argument (idempotencyKey, not the REST header); a node property
// outside its vocabulary is refused when saved, and create_node/update_node list the vocabulary.

import { expect } from 'chai';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { mcpClient, toolError, type ToolResult } from '../../helpers/mcp.js';
import { brandApi, buildLaunch } from '../../helpers/launch-builders.js';
import { startWorld, type World } from '../../helpers/world.js';

describe('MCP values a tool can express, ids and argument names', function () {
  this.timeout(60_000);
  let w: World;
  let client: Client;
  let shoes: number;
  before(async () => {
    w = await startWorld({ dialect: 'sqlite' });
    client = await mcpClient(w.url, w.key('acme', 'ci'));
    shoes = w.brandId('acme', 'shoes');
  });
  after(async () => {
    await client?.close();
    await w?.close();
  });

  const call = async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as ToolResult;
  const ok = async (name: string, args: Record<string, unknown>) => {
    const result = await call(name, args);
    expect(result.isError, `${name}: ${result.content[0]?.text}`).to.not.equal(true);
    return result.structuredContent;
  };

  it('documents a flag for each null of REST, in the tool itself, and no longer requires the field it stands for', async () => {
    const { tools } = await client.listTools();
    const props = (name: string) => tools.find((t) => t.name === name)!.inputSchema.properties as Record<string, any>;
    for (const [tool, field, flag] of [
      ['update_webhook_endpoint', 'brandIds', 'allBrands'],
      ['update_automation', 'objectIds', 'allObjects'],
      ['update_pipeline_column', 'workflowId', 'unlinkWorkflow'],
      ['update_tracker_mapping', 'trackerCampaignId', 'removeMapping'],
    ]) {
      expect(props(tool)[flag], `${tool}.${flag}`).to.include({ type: 'boolean' });
      expect(props(tool)[flag].description).to.match(new RegExp(`^true: .*instead of ${field}\\.$`));
      expect(props(tool)[field].description, `${tool}.${field}`).to.not.match(/\bnull\b/);
      expect(props(tool)[field].description).to.contain(flag);
      expect(tools.find((t) => t.name === tool)!.inputSchema.required ?? []).to.not.include(field);
    }
  });

  it('allBrands: true makes an endpoint receive every brand (brandIds null); brand ids go as digits too', async () => {
    const created = await w.request('POST', '/v1/webhook-endpoints', {
      key: w.key('acme', 'ci'),
      body: { url: 'https://hooks.example.com/values', events: ['launch.published'], brandIds: [shoes] },
    });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    const endpointId = String(created.body.endpointId);
    expect((await ok('update_webhook_endpoint', { endpointId, brandIds: [String(shoes)] })).brandIds).to.deep.equal([shoes]);
    const every = await ok('update_webhook_endpoint', { endpointId, allBrands: true });
    // The answer says it as the input does: allBrands true (REST's brandIds null).
    expect(every).to.include({ allBrands: true }).and.not.have.property('brandIds');
    expect((await w.request('GET', `/v1/webhook-endpoints/${endpointId}`, { key: w.key('acme', 'ci') })).body.brandIds).to.equal(null);
    const both = toolError(await call('update_webhook_endpoint', { endpointId, allBrands: true, brandIds: [shoes] }));
    expect(both.code).to.equal('validation_failed');
    expect(both.message).to.equal('Send brandIds or allBrands: true, not both.');
  });

  it('allObjects: true watches every object; unlinkWorkflow: true unlinks a column', async () => {
    const automation = await w.request('POST', `/v1/brands/${shoes}/automations`, {
      key: w.key('acme', 'ci'),
      body: {
        automationName: 'Values',
        accountId: 'act_1001',
        level: 'campaign',
        action: 'notify',
        status: 'PAUSED',
        conditions: [{ metric: 'spend', window: 'today', operator: 'gt', value: 100 }],
      },
    });
    expect(automation.status, JSON.stringify(automation.body)).to.equal(201);
    const updated = await ok('update_automation', { brandId: String(shoes), automationId: String(automation.body.automationId), allObjects: true });
    expect(updated).to.include({ allObjects: true }).and.not.have.property('objectIds');

    const workflow = await w.request('POST', `/v1/brands/${shoes}/workflows`, {
      key: w.key('acme', 'ci'),
      body: {
        workflowName: 'Linked',
        type: 'custom',
        trigger: { kind: 'manual' },
        nodes: [{ nodeId: 'r', kind: 'review', name: 'Review', settings: {} }],
        edges: [],
      },
    });
    expect(workflow.status, JSON.stringify(workflow.body)).to.equal(201);
    const column = await w.request('POST', `/v1/brands/${shoes}/pipeline/columns`, {
      key: w.key('acme', 'ci'),
      body: { name: 'Linked column', workflowId: workflow.body.workflowId },
    });
    expect(column.status, JSON.stringify(column.body)).to.equal(201);
    expect(column.body.workflowId).to.equal(workflow.body.workflowId);
    const unlinked = await ok('update_pipeline_column', { brandId: shoes, columnId: String(column.body.columnId), unlinkWorkflow: true });
    // No workflow linked: the field is left out of the tool's answer (REST says null).
    expect(unlinked).to.not.have.property('workflowId');
  });

  it('takes every id as an integer or a string of digits, brandId included', async () => {
    const built = await buildLaunch(brandApi(w, w.key('acme', 'ci'), shoes), { title: 'Ids' });
    const asDigits = await ok('get_launch', { brandId: String(shoes), launchId: String(built.launchId) });
    const asNumbers = await ok('get_launch', { brandId: shoes, launchId: Number(built.launchId) });
    expect(asDigits).to.deep.equal(asNumbers);
    expect((await ok('list_launches', { brandId: String(shoes) })).batches.length).to.be.at.least(1);
  });

  it('names the tool’s own argument: a missing idempotencyKey says idempotencyKey, never the REST header', async () => {
    const built = await buildLaunch(brandApi(w, w.key('acme', 'ci'), shoes), { title: 'No key' });
    const err = toolError(await call('launch_campaign', { brandId: shoes, launchId: built.launchId, confirm: false }));
    expect(err.code).to.equal('idempotency_key_required');
    expect(err.message).to.contain('idempotencyKey').and.to.not.contain('Idempotency-Key');
  });

  it('refuses a node property outside its vocabulary when it is saved, and lists the vocabulary in create_node and update_node', async () => {
    const { tools } = await client.listTools();
    for (const name of ['create_node', 'update_node']) {
      const settings = (tools.find((t) => t.name === name)!.inputSchema.properties as any).properties.properties;
      expect(settings.objective.enum, name).to.include.members(['OUTCOME_SALES', 'WEB_CONVERSIONS']);
      expect(settings.objective.description).to.match(/Meta: .*TikTok: /);
      expect(settings.optimizationGoal.enum, name).to.include.members(['LINK_CLICKS', 'CLICK']);
      expect(settings.optimizationGoal.description).to.match(/Meta: .*TikTok: /);
    }
    const launch = await ok('create_launch', { brandId: shoes, title: 'Vocabulary', idempotencyKey: `vocab-${process.pid}` });
    const refused = toolError(
      await call('create_node', { brandId: shoes, launchId: launch.id, nodeType: 'campaign', properties: { name: 'C', objective: 'SELL_STUFF' } }),
    );
    expect(refused.code).to.equal('validation_failed');
    expect(JSON.stringify(refused.details)).to.contain('objective');
    const campaign = await ok('create_node', {
      brandId: shoes,
      launchId: launch.id,
      nodeType: 'campaign',
      properties: { name: 'C', objective: 'OUTCOME_SALES' },
    });
    const goal = toolError(
      await call('create_node', {
        brandId: shoes,
        launchId: launch.id,
        nodeType: 'adset',
        parentId: campaign.id,
        properties: { name: 'A', optimizationGoal: 'MOST_MONEY' },
      }),
    );
    expect(goal.code).to.equal('validation_failed');
    expect(JSON.stringify(goal.details)).to.contain('optimizationGoal');
  });
});
