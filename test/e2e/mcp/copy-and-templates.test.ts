// Ad copy and structure templates as MCP tools through the SDK's real Client: the brand profile,
// generate_copy (and its 503 when the model fails), attaching copy with update_node, and a
// structure template created, applied and refused as DRAFT, the same rules as over REST.

import { expect } from 'chai';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { dialects } from '../../helpers/databases.js';
import { mcpClient } from '../../helpers/mcp.js';
import { startWorld, type World } from '../../helpers/world.js';
import { FakeOpenAIServer } from '../../fakes/openai-server.js';
import { uploadCreative } from '../../helpers/launch-builders.js';
import { templateBody, templatesWorld } from '../../helpers/structure-templates.js';

type ToolResult = { isError?: boolean; content: Array<{ type: string; text?: string }>; structuredContent?: any };

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<any> {
  const result = (await client.callTool({ name, arguments: args })) as ToolResult;
  expect(result.isError, `${name}: ${result.content?.[0]?.text}`).to.not.equal(true);
  return result.structuredContent;
}

async function toolError(client: Client, name: string, args: Record<string, unknown>): Promise<{ code: string; message: string; details: any }> {
  const result = (await client.callTool({ name, arguments: args })) as ToolResult;
  expect(result.isError, `${name} should fail`).to.equal(true);
  return JSON.parse(result.content[0].text!).error;
}

for (const dialect of dialects()) {
  describe(`ad copy and structure templates over MCP (${dialect})`, function () {
    this.timeout(60_000);
    let w: World;
    let mcp: Client;
    let model: FakeOpenAIServer;
    let brandId: number;
    let creativeId: number;

    before(async () => {
      model = await new FakeOpenAIServer().start();
      w = await startWorld({
        dialect,
        bootstrap: templatesWorld(),
        env: { COPY_MODEL_URL: model.url, COPY_MODEL: 'fake-copy-1', COPY_MODEL_MAX_RETRIES: '0' },
      });
      mcp = await mcpClient(w.url, w.key('acme', 'ci'));
      brandId = w.brandId('acme', 'agency');
      creativeId = await uploadCreative(w, w.key('acme', 'ci'), brandId);
    });
    after(async () => {
      await mcp?.close();
      await w?.close();
      await model?.close();
    });

    it('sets the brand profile and generates copy from a model, then attaches it to an ad', async () => {
      const profile = await call(mcp, 'set_brand_profile', { brandId, voice: ['warm'], wordsToAvoid: ['cheap'] });
      expect(profile).to.deep.include({ voice: ['warm'], wordsToAvoid: ['cheap'] });
      model.script({
        kind: 'content',
        content: { headlines: ['Cheap thrills', 'Run lighter'], primaryTexts: ['Made in Porto.'], descriptions: ['Free returns'] },
      });
      const copy = await call(mcp, 'generate_copy', { brandId, platform: 'meta', angle: 'new season' });
      expect(copy).to.deep.include({ headlines: ['Run lighter'], model: 'fake-copy-1', droppedTexts: 1 });
      expect(await call(mcp, 'get_copy', { brandId, copyGenerationId: copy.copyGenerationId })).to.deep.equal(copy);

      const launch = await call(mcp, 'create_launch', { brandId, title: 'Copy test' });
      const campaign = await call(mcp, 'create_node', {
        brandId,
        launchId: launch.id,
        nodeType: 'campaign',
        properties: { name: 'C', objective: 'OUTCOME_TRAFFIC', accountId: 'act_3001' },
      });
      const adSet = await call(mcp, 'create_node', { brandId, launchId: launch.id, nodeType: 'adset', parentId: campaign.id, properties: { name: 'S' } });
      const ad = await call(mcp, 'create_node', { brandId, launchId: launch.id, nodeType: 'ad', parentId: adSet.id, properties: { name: 'A' } });
      const attached = await call(mcp, 'update_node', { brandId, launchId: launch.id, nodeId: ad.id, copyGenerationId: copy.copyGenerationId });
      expect(attached.properties).to.deep.include({
        headline: 'Run lighter',
        primaryText: 'Made in Porto.',
        description: 'Free returns',
        copyGenerationId: copy.copyGenerationId,
      });
    });

    it('answers 503 unavailable when the model fails, the same envelope as REST', async () => {
      model.script({ kind: 'error', status: 500 });
      const err = await toolError(mcp, 'generate_copy', { brandId, platform: 'tiktok' });
      expect(err.code).to.equal('unavailable');
      expect(err.message).to.match(/HTTP 500/);
    });

    it('creates a structure template, refuses to apply it as DRAFT, and applies it once READY', async () => {
      const t = await call(mcp, 'create_structure_template', { brandId, ...templateBody(creativeId, { status: 'DRAFT' }) });
      expect(t.status).to.equal('DRAFT');
      const refused = await toolError(mcp, 'apply_structure_template', { brandId, templateId: t.templateId });
      expect(refused.code).to.equal('conflict');
      const noAudience = await toolError(mcp, 'edit_structure_template', { brandId, templateId: t.templateId, audiences: [] });
      expect(noAudience.code).to.equal('validation_failed');
      expect(noAudience.details.map((d: any) => d.field)).to.deep.equal(['audiences']);
      await call(mcp, 'edit_structure_template', { brandId, templateId: t.templateId, status: 'READY' });
      const applied = await call(mcp, 'apply_structure_template', { brandId, templateId: t.templateId, idempotencyKey: 'apply-mcp-1' });
      expect(applied).to.deep.include({ campaigns: 2, adSets: 4, ads: 8, status: 'draft' });
      const listed = await call(mcp, 'list_structure_templates', { brandId });
      expect(listed.structureTemplates[0].templateId).to.equal(t.templateId);
      expect(await call(mcp, 'delete_structure_template', { brandId, templateId: t.templateId })).to.deep.equal({ templateId: t.templateId, deleted: true });
    });
  });
}
