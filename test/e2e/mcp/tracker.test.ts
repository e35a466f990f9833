// The click-tracker role rules through the SDK's real MCP Client: a member signed in through OAuth
// reads mappings and the push setting but may not change them (forbidden); an owner may; turning the
// push on for a brand without a tracker is a conflict.

import { expect } from 'chai';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { dialects } from '../../helpers/databases.js';
import { mcpClient } from '../../helpers/mcp.js';
import type { World } from '../../helpers/world.js';
import { startOAuthWorld, tokensFor } from '../../helpers/oauth.js';
import { KeitaroServer } from '../../fakes/keitaro-server.js';
import { M, mappingBootstrap, seedMappingCases } from '../../helpers/tracker-mapping-world.js';

type ToolResult = { isError?: boolean; content: Array<{ type: string; text?: string }>; structuredContent?: any };

async function toolError(client: Client, name: string, args: Record<string, unknown>): Promise<{ code: string; message: string }> {
  const result = (await client.callTool({ name, arguments: args })) as ToolResult;
  expect(result.isError, `${name} should fail`).to.equal(true);
  return JSON.parse(result.content[0].text!).error;
}

async function toolResult(client: Client, name: string, args: Record<string, unknown>): Promise<any> {
  const result = (await client.callTool({ name, arguments: args })) as ToolResult;
  expect(result.isError, `${name}: ${result.content?.[0]?.text}`).to.not.equal(true);
  return result.structuredContent;
}

const KEY = 'kt_mcp_key_5150';

for (const dialect of dialects()) {
  describe(`click tracker role rules on MCP (${dialect})`, function () {
    this.timeout(90_000);
    let w: World;
    let tracker: KeitaroServer;
    let brand: number;
    let member: Client;
    let owner: Client;

    before(async () => {
      tracker = await new KeitaroServer(KEY).start();
      // Default settings, jobs running: a push run is carried out in the background.
      w = await startOAuthWorld(dialect, mappingBootstrap(tracker.url, KEY));
      brand = w.brandId('acme', 'mapped');
      await seedMappingCases(w.service.knex, tracker, w.seed.organizations.acme.id, brand);
      const token = async (email: string, password: string) =>
        (await tokensFor(w.url, { email, password }, { resource: `${w.url}/mcp`, scope: 'read write' })).access_token;
      member = await mcpClient(w.url, await token('mia@acme.test', 'correct horse 2'));
      owner = await mcpClient(w.url, await token('olive@acme.test', 'correct horse 1'));
    });
    after(async () => {
      await member?.close();
      await owner?.close();
      await w?.close();
      await tracker?.close();
    });

    it('a member reads the mapping list and the push setting', async () => {
      const list = await toolResult(member, 'list_tracker_mappings', { brandId: brand });
      expect(list.mappings.find((m: any) => m.providerCampaignId === M.A)).to.deep.include({ trackerCampaignId: '31', source: 'auto', matchedOn: 'sub3' });
      const push = await toolResult(member, 'get_tracker_push', { brandId: brand });
      expect(push).to.deep.include({ brandId: brand, connected: true, enabled: false });
    });

    it('a member may not change a mapping, the push or the connection: forbidden', async () => {
      expect((await toolError(member, 'update_tracker_mapping', { brandId: brand, providerCampaignId: M.C, trackerCampaignId: '33' })).code).to.equal(
        'forbidden',
      );
      expect((await toolError(member, 'set_tracker_push', { brandId: brand, enabled: true })).code).to.equal('forbidden');
      expect((await toolError(member, 'run_tracker_push', { brandId: brand })).code).to.equal('forbidden');
      expect((await toolError(member, 'connect_tracker', { brandId: brand, baseUrl: tracker.url, apiKey: 'kt_member_key_0000' })).code).to.equal('forbidden');
      expect((await toolError(member, 'disconnect_tracker', { brandId: brand })).code).to.equal('forbidden');
      expect((await toolResult(owner, 'get_tracker_push', { brandId: brand })).enabled).to.equal(false);
    });

    it('an owner changes a mapping and turns the push on; before a tracker is connected the push answers conflict', async () => {
      const list = await toolResult(owner, 'update_tracker_mapping', { brandId: brand, providerCampaignId: M.C, trackerCampaignId: '33' });
      expect(list.mappings.find((m: any) => m.providerCampaignId === M.C)).to.deep.include({ trackerCampaignId: '33', source: 'manual' });
      expect((await toolResult(owner, 'set_tracker_push', { brandId: brand, enabled: true })).enabled).to.equal(true);
      const conflict = await toolError(owner, 'set_tracker_push', { brandId: w.brandId('acme', 'bare'), enabled: true });
      expect(conflict.code).to.equal('conflict');
    });

    it('run_tracker_push follows the run to its end and answers it: succeeded, with every planned cost update done', async () => {
      expect((await toolResult(owner, 'set_tracker_push', { brandId: brand, enabled: true, requestIntervalSeconds: 0 })).enabled).to.equal(true);
      const before = tracker.costUpdates.length;
      const run = await toolResult(owner, 'run_tracker_push', { brandId: brand });
      expect(run).to.deep.include({ brandId: brand, status: 'succeeded', trigger: 'manual' });
      expect(run, 'no error: left out of the answer').to.not.have.property('error');
      expect(run.finishedAt).to.be.a('string');
      expect(run.progress.done).to.equal(run.progress.total);
      expect(run.pushed.length).to.equal(run.progress.total);
      expect(tracker.costUpdates.length - before).to.equal(run.pushed.length);
      const read = await toolResult(member, 'get_tracker_push_run', { brandId: brand, runId: run.runId });
      expect(read).to.deep.equal(run);
    });
  });
}
