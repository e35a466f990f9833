// A client that cannot ask its user confirms money with the plan it was shown; when that plan cannot
// be read (the ad platform throttles the preview, or does not answer), nothing that moves money goes
// ahead: move_pipeline_card into a column whose workflow has a launch step, and run_workflow of a
// workflow with a launch step, answer the preview's error and what to do, the card stays where it
// was and no run starts. Once the platform answers again, the same calls answer the plan to confirm
// (so the refusal came from the failed preview). Live Meta mode against the fake Graph API
// (test/fakes/meta-server.ts, its throttle switch), through the SDK's real Client, on both dialects.

import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { dialects } from '../../helpers/databases.js';
import { startWorld, type World } from '../../helpers/world.js';
import { FakeMetaServer } from '../../fakes/meta-server.js';
import type { ReceivedRequest } from '../../fakes/fault-server.js';
import { BrandClient, buildLaunch, liveExampleWorld } from '../../helpers/launches.js';
import { mcpClient, toolError, type ToolResult } from '../../helpers/mcp.js';
import { createWorkflow, launchNode } from '../../helpers/workflows.js';

const ACCOUNT = 'act_1001';

for (const dialect of dialects()) {
  describe(`MCP without elicitation: a plan that cannot be read moves nothing (${dialect})`, function () {
    this.timeout(90_000);
    let savedKey: string | undefined;
    let fake: FakeMetaServer;
    let w: World;
    let client: BrandClient;
    let mcp: Client;
    let creativesDir: string;
    let creativeId: number;
    let brandId: number;
    // While set, every Graph request is answered with a throttle of an hour (the adapter reports it at once, waiting nothing).
    let throttling = false;

    before(async () => {
      savedKey = process.env.TOKEN_ENCRYPTION_KEY;
      if (!savedKey) process.env.TOKEN_ENCRYPTION_KEY = crypto.randomBytes(32).toString('base64');
      fake = await FakeMetaServer.start();
      const token = fake.addAccount(ACCOUNT);
      const respond = (fake as unknown as { respond(r: ReceivedRequest): unknown }).respond.bind(fake);
      (fake as unknown as { respond(r: ReceivedRequest): unknown }).respond = (r: ReceivedRequest) => {
        if (throttling) fake.throttleNext(1, { code: 80004, minutes: 60 });
        return respond(r);
      };
      creativesDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-plan-fails-'));
      w = await startWorld({
        dialect,
        bootstrap: liveExampleWorld(500, token),
        env: { PLATFORM_MODE: 'live', META_GRAPH_URL: fake.url, TOKEN_ENCRYPTION_KEY: process.env.TOKEN_ENCRYPTION_KEY!, CREATIVES_DIR: creativesDir },
      });
      brandId = w.brandId('acme', 'shoes');
      client = new BrandClient(w.url, w.key('acme', 'ci'), brandId);
      creativeId = await client.uploadCreative();
      // No capabilities: this client cannot ask its user anything.
      mcp = await mcpClient(w.url, w.key('acme', 'ci'));
    });
    afterEach(() => {
      throttling = false;
    });
    after(async () => {
      await mcp?.close();
      await w?.close();
      await fake?.close();
      if (creativesDir) fs.rmSync(creativesDir, { recursive: true, force: true });
      if (savedKey === undefined) delete process.env.TOKEN_ENCRYPTION_KEY;
    });

    const call = async (name: string, args: Record<string, unknown>) => (await mcp.callTool({ name, arguments: { brandId, ...args } })) as ToolResult;
    const executions = async (workflowId: number) =>
      (await w.request('GET', `/v1/brands/${brandId}/workflows/${workflowId}/executions`, { key: w.key('acme', 'ci') })).body.executions as unknown[];
    const graphWrites = () => fake.calls.filter((c) => c.method === 'POST' && !String(c.params.execution_options ?? '').includes('validate_only')).length;

    /** The refusal of a money call whose plan could not be read: the preview's error (503 unavailable), why nothing moved and what to do. */
    function expectFailedClosed(r: ToolResult, tool: string) {
      const error = toolError(r);
      expect(error.code, error.message).to.equal('unavailable');
      expect(error.message)
        .to.contain('Nothing was done')
        .and.to.contain('the plan could not be read')
        .and.to.contain('throttling this ad account')
        .and.to.contain(`call ${tool} again`);
    }

    it('move_pipeline_card into a column whose workflow has a launch step: the card stays, no run starts, the launch stays a draft', async () => {
      const built = await buildLaunch(client, { creativeId, title: 'Throttled card' });
      const backlog = (await client.api('POST', '/pipeline/columns', { name: 'Backlog' })).body.columnId;
      const golive = (await client.api('POST', '/pipeline/columns', { name: 'Go live' })).body.columnId;
      const wf = await createWorkflow(w, w.key('acme', 'ci'), brandId, {
        trigger: { kind: 'pipeline_stage', columnId: golive },
        nodes: [launchNode('go', '$trigger.launchId')],
      });
      expect((await w.request('POST', `/v1/brands/${brandId}/workflows/${wf.workflowId}/activate`, { key: w.key('acme', 'ci'), body: {} })).status).to.equal(
        200,
      );
      const card = (await client.api('POST', '/pipeline/cards', { launchId: built.launchId, columnId: backlog })).body;
      const writes = graphWrites();

      throttling = true;
      const refused = await call('move_pipeline_card', { cardId: card.cardId, columnId: golive, version: card.version });
      throttling = false;
      expectFailedClosed(refused, 'move_pipeline_card');
      const board = (await client.api('GET', '/pipeline')).body;
      expect(board.cards.find((c: { cardId: number }) => c.cardId === card.cardId)).to.deep.include({ columnId: backlog, version: card.version });
      expect(await executions(wf.workflowId), 'no run started').to.deep.equal([]);
      expect((await client.launch(built.launchId)).body.status).to.equal('draft');
      expect(graphWrites(), 'nothing written to the ad platform').to.equal(writes);

      // The platform answers again: the same call answers the plan to confirm, still moving nothing.
      const plan = await call('move_pipeline_card', { cardId: card.cardId, columnId: golive, version: card.version });
      expect(plan.isError, JSON.stringify(plan)).to.not.equal(true);
      expect(plan.structuredContent.publish).to.deep.include({ attempted: false, reason: 'plan_confirmation_required' });
      expect(plan.structuredContent.planFingerprint).to.be.a('string');
    });

    it('run_workflow of a workflow with a launch step: no run starts, the launch stays a draft', async () => {
      const built = await buildLaunch(client, { creativeId, title: 'Throttled run' });
      const wf = await createWorkflow(w, w.key('acme', 'ci'), brandId, { nodes: [launchNode('go', built.launchId)] });

      throttling = true;
      const refused = await call('run_workflow', { workflowId: wf.workflowId });
      throttling = false;
      expectFailedClosed(refused, 'run_workflow');
      expect(await executions(wf.workflowId), 'no run started').to.deep.equal([]);
      expect((await client.launch(built.launchId)).body.status).to.equal('draft');

      const plan = await call('run_workflow', { workflowId: wf.workflowId });
      expect(plan.isError, JSON.stringify(plan)).to.not.equal(true);
      expect(plan.structuredContent).to.deep.include({ started: false, reason: 'plan_confirmation_required' });
      expect(await executions(wf.workflowId)).to.deep.equal([]);
    });
  });
}
