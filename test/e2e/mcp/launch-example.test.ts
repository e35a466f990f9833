// The launch of docs/launches.md replayed through MCP tools: an agent publishes a launch.

import { expect } from 'chai';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { dialects } from '../../helpers/databases.js';
import { mcpClient, toolError } from '../../helpers/mcp.js';
import { makePng } from '../../helpers/png.js';
import { startWorld, type World } from '../../helpers/world.js';
import { exampleWorld } from '../../helpers/example-world.js';

type Result = { isError?: boolean; structuredContent?: any; content: Array<{ type: string; text?: string }> };

for (const dialect of dialects()) {
  describe(`launch example through MCP tools (${dialect})`, function () {
    this.timeout(30_000);
    let w: World;
    let client: Client;
    let brandId: number;
    before(async () => {
      w = await startWorld({ dialect, bootstrap: exampleWorld() });
      client = await mcpClient(w.url, w.key('acme', 'ci'));
      brandId = w.brandId('acme', 'shoes');
    });
    after(async () => {
      await client?.close();
      await w?.close();
    });
    const call = async (name: string, args: Record<string, unknown>) => {
      const r = (await client.callTool({ name, arguments: { brandId, ...args } })) as Result;
      expect(r.isError, `${name}: ${r.content[0]?.text}`).to.not.equal(true);
      return r.structuredContent;
    };

    it('creates, fills, previews, publishes and edits a launch', async () => {
      const launch = await call('create_launch', { title: 'Spring sale' });
      expect(launch).to.deep.include({ title: 'Spring sale', brandName: 'Shoes Co', accountId: 'act_1001' });
      const creative = await call('upload_creative', { name: 'hero.png', dataBase64: makePng(1080, 1080).toString('base64') });
      expect(creative).to.deep.include({ type: 'image', width: 1080, height: 1080 });
      const campaign = await call('create_node', {
        launchId: launch.id,
        nodeType: 'campaign',
        properties: { name: 'Spring - US', objective: 'OUTCOME_TRAFFIC', budget: { dailyAmount: 5000 } },
      });
      const adset = await call('create_node', {
        launchId: launch.id,
        nodeType: 'adset',
        parentId: campaign.id,
        properties: {
          name: 'US 18-65',
          optimizationGoal: 'LINK_CLICKS',
          billingEvent: 'IMPRESSIONS',
          targeting: { countries: ['US'], ageMin: 18, ageMax: 65 },
          schedule: { startTime: '2030-01-01T00:00:00Z' },
        },
      });
      const ad = await call('create_node', {
        launchId: launch.id,
        nodeType: 'ad',
        parentId: adset.id,
        properties: {
          name: 'Hero 1',
          status: 'ACTIVE',
          headline: 'Spring sale',
          primaryText: 'Up to 40% off',
          linkUrl: 'https://shop.example.com/spring',
          callToAction: 'SHOP_NOW',
        },
      });
      const attached = await call('update_node', { launchId: launch.id, nodeId: ad.id, creativeId: creative.id });
      expect(attached.properties.creativeId).to.equal(creative.id);

      const missingKey = (await client.callTool({ name: 'launch_campaign', arguments: { brandId, launchId: launch.id } })) as Result;
      expect(missingKey.isError).to.equal(true);
      expect(toolError(missingKey).code).to.equal('idempotency_key_required');

      const preview = await call('launch_campaign', { launchId: launch.id, idempotencyKey: `mcp-preview-${dialect}` });
      expect(preview).to.deep.include({ valid: true, confirmed: false, status: 'draft' });
      expect(preview.budget.countedMinorUnits).to.equal(5000);

      // This client cannot ask its user: it confirms with the plan of the preview it showed.
      const published = await call('launch_campaign', {
        launchId: launch.id,
        confirm: true,
        planFingerprint: preview.planFingerprint,
        idempotencyKey: `mcp-publish-${dialect}`,
      });
      expect(published).to.deep.include({ confirmed: true, status: 'published' });
      expect(published.budget.ceiling.committedMinorUnits).to.equal(5000);

      // A live change has a fingerprint of its own (the launch's does not stand for it): this client
      // cannot ask its user, so the first call answers the change and its fingerprint, the second makes it.
      const change = { launchId: launch.id, nodeId: campaign.id, level: 'CAMPAIGN', budgetType: 'daily', amount: 7000 };
      const asked = await call('edit_live_campaign', { ...change, idempotencyKey: `mcp-budget-ask-${dialect}` });
      expect(asked.planFingerprint).to.be.a('string').and.not.equal(published.planFingerprint);
      const edited = await call('edit_live_campaign', { ...change, planFingerprint: asked.planFingerprint, idempotencyKey: `mcp-budget-${dialect}` });
      expect(edited.ceiling.committedMinorUnits).to.equal(12000);

      const list = await call('list_campaigns', { accountId: 'act_1001' });
      expect(list.campaigns).to.have.length(1);
      expect(list.campaigns[0]).to.deep.include({ name: 'Spring - US', budget: { period: 'daily', amountMinorUnits: 7000 }, imported: true });
    });
  });
}
