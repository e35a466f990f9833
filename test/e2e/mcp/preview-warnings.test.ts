// A preview's warnings name their rule's source on every surface: a live Meta launch that breaks a rule
// whose only source is a third party (a conversion ad set without its event: pipeboard meta-ads-mcp issue
// 140) previews valid with one warning, {field, message, source}, the same over REST, through the SDK's
// real MCP Client (preview_launch) and from the `svc` CLI as a child process; on both dialects.

import crypto from 'node:crypto';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { dialects } from '../../helpers/databases.js';
import { startWorld, type World } from '../../helpers/world.js';
import { FakeMetaServer } from '../../fakes/meta-server.js';
import { BrandClient, buildLaunch, liveExampleWorld } from '../../helpers/launches.js';
import { mcpClient, type ToolResult } from '../../helpers/mcp.js';
import { projectPath } from '../../../src/paths.js';

for (const dialect of dialects()) {
  describe(`preview warnings with their source on REST, MCP and the CLI (${dialect})`, function () {
    this.timeout(90_000);
    let savedKey: string | undefined;
    let fake: FakeMetaServer;
    let w: World;
    let client: BrandClient;
    let mcp: Client;
    let creativesDir: string;
    let brandId: number;

    before(async () => {
      savedKey = process.env.TOKEN_ENCRYPTION_KEY;
      if (!savedKey) process.env.TOKEN_ENCRYPTION_KEY = crypto.randomBytes(32).toString('base64');
      fake = await FakeMetaServer.start();
      const token = fake.addAccount('act_1001');
      creativesDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-preview-warnings-'));
      w = await startWorld({
        dialect,
        bootstrap: liveExampleWorld(500, token),
        env: { PLATFORM_MODE: 'live', META_GRAPH_URL: fake.url, TOKEN_ENCRYPTION_KEY: process.env.TOKEN_ENCRYPTION_KEY!, CREATIVES_DIR: creativesDir },
      });
      brandId = w.brandId('acme', 'shoes');
      client = new BrandClient(w.url, w.key('acme', 'ci'), brandId);
      mcp = await mcpClient(w.url, w.key('acme', 'ci'));
    });
    after(async () => {
      await mcp?.close();
      await w?.close();
      await fake?.close();
      if (creativesDir) fs.rmSync(creativesDir, { recursive: true, force: true });
      if (savedKey === undefined) delete process.env.TOKEN_ENCRYPTION_KEY;
    });

    it('answers the same warning, naming the third party, on REST, MCP and the CLI', async () => {
      const creativeId = await client.uploadCreative();
      const built = await buildLaunch(client, {
        title: 'Third-party rule on every surface',
        creativeId,
        campaign: { objective: 'OUTCOME_SALES' },
        adset: { optimizationGoal: 'OFFSITE_CONVERSIONS', promotedObject: { pixelId: '7788' } },
      });
      const expected = [
        {
          field: `adSets[${built.adsetIds[0]}].promotedObject`,
          message: `needs pixelId and customEventType (the pixel and the event it counts, e.g. PURCHASE) for optimizationGoal OFFSITE_CONVERSIONS; missing customEventType (the platform decides when asked: this rule's only source is a third party)`,
          source: 'pipeboard meta-ads-mcp issue 140 (third party: Meta refused an OFFSITE_CONVERSIONS ad set without custom_event_type, subcode 1885154)',
        },
      ];
      const rest = await client.api('GET', `/launches/${built.launchId}/preview`);
      expect(rest.status, JSON.stringify(rest.body)).to.equal(200);
      expect(rest.body).to.deep.include({ valid: true, warnings: expected });

      const tool = (await mcp.callTool({ name: 'preview_launch', arguments: { brandId, launchId: built.launchId } })) as ToolResult;
      expect(tool.isError, JSON.stringify(tool)).to.not.equal(true);
      expect(tool.structuredContent?.warnings).to.deep.equal(expected);

      // The server runs in this process: the CLI child is awaited, never waited for synchronously.
      const cli = await promisify(execFile)(
        process.execPath,
        [projectPath('dist', 'surfaces', 'cli', 'svc.js'), 'preview-launch', '--brand-id', String(brandId), '--launch-id', built.launchId],
        { env: { ...process.env, HOME: creativesDir, SVC_BASE_URL: w.url, SVC_API_KEY: w.key('acme', 'ci') }, encoding: 'utf8', timeout: 20_000 },
      );
      expect(JSON.parse(cli.stdout).warnings, cli.stderr).to.deep.equal(expected);
    });
  });
}
