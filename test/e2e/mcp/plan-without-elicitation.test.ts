// Issue 52, items 1 and 3, through the SDK's real Client on both dialects. A client that cannot ask
// its user (no elicitation) confirms every money path with the plan it was answered: launch_campaign
// with confirm, edit_live_campaign, update_node of a live status, a card into a publishing column,
// run_workflow and review_workflow_step before a launch step. Without planFingerprint (or with one
// that is no longer the plan) nothing moves, and the answer is the plan, its planFingerprint and what
// to do; with it, the call goes on bound to that plan (a review gate whose launch changed since it
// recorded its plan: the launch as it is now). A live status needs publish over MCP too, and a
// client that can ask is asked before it (as for edit_live_campaign). The server's instructions say so.

import { expect } from 'chai';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ElicitRequestSchema, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { dialects } from '../../helpers/databases.js';
import { mcpClient, toolError, type ToolResult } from '../../helpers/mcp.js';
import { brandApi, buildLaunch, planFingerprintOf, publish, uploadCreative } from '../../helpers/launch-builders.js';
import { createWorkflow, finished, launchNode, nodeOf, reviewNode, runWorkflow, waitForExecution, workflowWorld } from '../../helpers/workflows.js';
import { startWorld, type World } from '../../helpers/world.js';

let seq = 0;
const key = (what: string) => `${what}-${process.pid}-${seq++}`;

for (const dialect of dialects()) {
  describe(`MCP: a client that cannot ask confirms money with the plan (${dialect})`, function () {
    this.timeout(90_000);
    let w: World;
    let shoes: number;
    let creativeId: number;
    let client: Client;
    before(async () => {
      const world = structuredClone(workflowWorld);
      for (const k of world.organizations[0].apiKeys) if ('publishCeilingDollars' in k) k.publishCeilingDollars = 100_000;
      w = await startWorld({ dialect, bootstrap: world, env: { MCP_CONFIRM_TIMEOUT_S: '2' } });
      shoes = w.brandId('acme', 'shoes');
      creativeId = await uploadCreative(w, w.key('acme', 'ci'), shoes);
      // No capabilities: this client cannot ask its user anything.
      client = await mcpClient(w.url, w.key('acme', 'ci'));
      await client.listTools();
    });
    after(async () => {
      await client?.close();
      await w?.close();
    });

    const api = (ref = 'ci') => brandApi(w, w.key('acme', ref), shoes);
    const launch = async (launchId: string) => (await api()('GET', `/launches/${launchId}`)).body;
    const call = async (name: string, args: Record<string, unknown>, by = client) =>
      (await by.callTool({ name, arguments: { brandId: shoes, ...args } })) as ToolResult;
    const text = (r: ToolResult) => r.content.map((c) => c.text).join('\n');
    /** The campaign's status on the (sandbox) ad platform, by its platform id: what was sent, not what the launch records. */
    async function platformStatus(launchId: string): Promise<string> {
      const platformId = (await launch(launchId)).campaigns[0].node.platformId;
      const r = await api()('GET', '/ad-accounts/act_1001/campaigns?limit=100');
      expect(r.status, JSON.stringify(r.body)).to.equal(200);
      return r.body.campaigns.find((c: { id: string }) => c.id === platformId)?.status;
    }

    /** A result that moved nothing and answers the plan: its fingerprint in structuredContent and in the words to the agent. */
    function expectPlanAnswer(r: ToolResult, tool: string): string {
      expect(r.isError, text(r)).to.not.equal(true);
      const fingerprint = r.structuredContent.planFingerprint;
      expect(fingerprint).to.be.a('string').and.have.length.above(20);
      expect(text(r))
        .to.contain('cannot ask its user')
        .and.to.contain('Show the person this plan')
        .and.to.contain(`call ${tool} again with the same arguments and planFingerprint: "${fingerprint}"`);
      return fingerprint;
    }

    it('launch_campaign with confirm: nothing published without the plan; a stale plan is answered with the new one; the named plan publishes', async () => {
      const built = await buildLaunch(api(), { creativeId, title: 'Two calls' });
      const first = await call('launch_campaign', { launchId: built.launchId, confirm: true, idempotencyKey: key('a') });
      const fingerprint = expectPlanAnswer(first, 'launch_campaign');
      expect(first.structuredContent).to.include({ confirmed: false, status: 'draft' });
      expect(text(first)).to.match(/act_1001: 50\.00 USD/);
      expect((await launch(built.launchId)).status).to.equal('draft');

      // The launch changes after the plan was answered: the old fingerprint publishes nothing either.
      await api()('PATCH', `/launches/${built.launchId}/nodes/${built.campaignId}`, { properties: { budget: { dailyAmount: 6000 } } });
      const stale = await call('launch_campaign', { launchId: built.launchId, confirm: true, planFingerprint: fingerprint, idempotencyKey: key('b') });
      expect(stale.isError).to.not.equal(true);
      expect(text(stale))
        .to.contain(`the plan changed since planFingerprint ${fingerprint} was answered`)
        .and.to.match(/act_1001: 60\.00 USD/);
      const fresh = stale.structuredContent.planFingerprint;
      expect(fresh).to.not.equal(fingerprint);
      expect((await launch(built.launchId)).status).to.equal('draft');

      const done = await call('launch_campaign', { launchId: built.launchId, confirm: true, planFingerprint: fresh, idempotencyKey: key('c') });
      expect(done.structuredContent).to.include({ confirmed: true, status: 'published', planFingerprint: fresh });
      expect(done.structuredContent.budget.countedUsdCents).to.equal(6000);
    });

    it('edit_live_campaign: no budget changes without the plan; with it, the new budget is set', async () => {
      const built = await buildLaunch(api(), { creativeId, title: 'Live budget' });
      await publish(api(), built.launchId);
      const args = { launchId: built.launchId, nodeId: built.campaignId, level: 'CAMPAIGN', budgetType: 'daily', amount: 9000 };
      const first = await call('edit_live_campaign', { ...args, idempotencyKey: key('e') });
      const fingerprint = expectPlanAnswer(first, 'edit_live_campaign');
      expect(text(first)).to.contain('Now: 50.00 USD daily. New: 90.00 USD daily');
      expect((await launch(built.launchId)).campaigns[0].node.properties.budget).to.deep.equal({ dailyAmount: 5000 });
      const done = await call('edit_live_campaign', { ...args, planFingerprint: fingerprint, idempotencyKey: key('e2') });
      expect(done.isError, text(done)).to.not.equal(true);
      expect(done.structuredContent).to.include({ nodeId: built.campaignId, amountMinorUnits: 9000 });
    });

    describe('a fingerprint binds the change it was answered for', () => {
      /** The budget the (sandbox) ad platform holds for a live object: what was sent, not what the launch records. */
      async function platformBudget(launchId: string, nodeId: string): Promise<number> {
        const tree = await launch(launchId);
        const node = [tree.campaigns[0].node, ...tree.campaigns[0].adSets.map((s: { node: unknown }) => s.node)].find((n) => n.id === nodeId);
        const row = await w.service.knex('sandbox_objects').where({ object_id: node.platformId }).first('budget_cents');
        return Number(row.budget_cents);
      }
      const stale = (r: ToolResult) => {
        const error = toolError(r);
        expect(error.code, JSON.stringify(error)).to.equal('stale_read');
        expect(error.details.reason).to.equal('change_differs');
        return error.details;
      };

      it("edit_live_campaign: the change answered (from, to, currency, counted); another amount, level, node or a launch preview's fingerprint: 409 stale_read with its own, nothing sent; the same change is made exactly", async () => {
        const built = await buildLaunch(api(), { creativeId, title: 'Bound budget' });
        await publish(api(), built.launchId);
        const other = await buildLaunch(api(), { creativeId, title: 'Other node' });
        await publish(api(), other.launchId);
        const args = { launchId: built.launchId, nodeId: built.campaignId, level: 'CAMPAIGN', budgetType: 'daily', amount: 1500 };
        const first = await call('edit_live_campaign', { ...args, idempotencyKey: key('b1') });
        const fingerprint = expectPlanAnswer(first, 'edit_live_campaign');
        expect(first.structuredContent.change).to.deep.equal({
          launchId: built.launchId,
          nodeId: built.campaignId,
          level: 'CAMPAIGN',
          field: 'budget',
          from: { period: 'daily', amountMinorUnits: 5000 },
          to: { period: 'daily', amountMinorUnits: 1500 },
          accountId: 'act_1001',
          currency: 'USD',
          amountMinorUnits: 1500,
          countedUsdCents: 1500,
        });
        expect(text(first)).to.contain('New: 15.00 USD daily (counts as 15.00 USD)');
        // Another amount with it.
        const more = stale(await call('edit_live_campaign', { ...args, amount: 2000, planFingerprint: fingerprint, idempotencyKey: key('b2') }));
        expect(more.planFingerprint).to.be.a('string').and.not.equal(fingerprint);
        expect(more.change).to.deep.include({ to: { period: 'daily', amountMinorUnits: 2000 } });
        // Another level, another node.
        stale(await call('edit_live_campaign', { ...args, level: 'ADSET', planFingerprint: fingerprint, idempotencyKey: key('b3') }));
        stale(
          await call('edit_live_campaign', {
            ...args,
            launchId: other.launchId,
            nodeId: other.campaignId,
            planFingerprint: fingerprint,
            idempotencyKey: key('b4'),
          }),
        );
        // A launch preview's fingerprint never stands for a live change.
        const preview = await call('preview_launch', { launchId: built.launchId });
        const byPreview = stale(
          await call('edit_live_campaign', {
            ...args,
            amount: 2_500_000,
            planFingerprint: preview.structuredContent.planFingerprint,
            idempotencyKey: key('b5'),
          }),
        );
        expect(byPreview.planFingerprint).to.not.equal(preview.structuredContent.planFingerprint);
        expect(await platformBudget(built.launchId, built.campaignId), 'nothing was sent').to.equal(5000);
        expect(await platformBudget(other.launchId, other.campaignId), 'nothing was sent to the other node').to.equal(5000);
        const done = await call('edit_live_campaign', { ...args, planFingerprint: fingerprint, idempotencyKey: key('b6') });
        expect(done.isError, text(done)).to.not.equal(true);
        expect(done.structuredContent).to.include({ nodeId: built.campaignId, amountMinorUnits: 1500, countedUsdCents: 1500 });
        expect(await platformBudget(built.launchId, built.campaignId)).to.equal(1500);
      });

      it("update_node: a fingerprint shown for pausing one node neither activates it nor pauses another (409, nothing sent); a launch preview's fingerprint is refused", async () => {
        const built = await buildLaunch(api(), { creativeId, title: 'Bound pause' });
        await publish(api(), built.launchId);
        const pause = { launchId: built.launchId, nodeId: built.adIds[0], properties: { status: 'PAUSED' } };
        const first = await call('update_node', pause);
        const fingerprint = expectPlanAnswer(first, 'update_node');
        expect(first.structuredContent.change).to.deep.include({ nodeId: built.adIds[0], level: 'ad', field: 'status', from: 'ACTIVE', to: 'PAUSED' });
        stale(await call('update_node', { ...pause, nodeId: built.campaignId, planFingerprint: fingerprint }));
        stale(await call('update_node', { ...pause, nodeId: built.adsetId, planFingerprint: fingerprint }));
        const preview = await call('preview_launch', { launchId: built.launchId });
        stale(await call('update_node', { ...pause, planFingerprint: preview.structuredContent.planFingerprint }));
        expect(await platformStatus(built.launchId), 'the campaign was not paused').to.equal('ACTIVE');
        const done = await call('update_node', { ...pause, planFingerprint: fingerprint });
        expect(done.structuredContent.properties.status).to.equal('PAUSED');
        // Paused now: that fingerprint does not set it ACTIVE again.
        stale(await call('update_node', { ...pause, properties: { status: 'ACTIVE' }, planFingerprint: fingerprint }));
        expect((await launch(built.launchId)).campaigns[0].adSets[0].ads[0].properties.status).to.equal('PAUSED');
      });

      it("run_workflow of a budget step: the change is answered with its own fingerprint; the launch's does not start it (409, no run); with it the run sets exactly that amount", async () => {
        const built = await buildLaunch(api(), { creativeId, title: 'Budget step bound' });
        await publish(api(), built.launchId);
        const wf = await createWorkflow(w, w.key('acme', 'ci'), shoes, {
          nodes: [{ nodeId: 'raise', kind: 'budget', name: 'Raise', settings: { launchId: built.launchId, nodeId: built.campaignId, amount: 7000 } }],
        });
        const first = await call('run_workflow', { workflowId: wf.workflowId });
        const fingerprint = expectPlanAnswer(first, 'run_workflow');
        expect(first.structuredContent.change).to.deep.include({
          nodeId: built.campaignId,
          from: { period: 'daily', amountMinorUnits: 5000 },
          to: { period: 'daily', amountMinorUnits: 7000 },
        });
        expect(fingerprint).to.not.equal(await planFingerprintOf(api(), built.launchId));
        const refused = toolError(await call('run_workflow', { workflowId: wf.workflowId, planFingerprint: await planFingerprintOf(api(), built.launchId) }));
        expect(refused.code).to.equal('stale_read');
        expect(refused.details.planFingerprint).to.equal(fingerprint);
        const none = (await w.request('GET', `/v1/brands/${shoes}/workflows/${wf.workflowId}/executions`, { key: w.key('acme', 'ci') })).body;
        expect(none.executions, 'no run started').to.deep.equal([]);
        const started = await call('run_workflow', { workflowId: wf.workflowId, planFingerprint: fingerprint });
        const done = await waitForExecution(w, w.key('acme', 'ci'), shoes, wf.workflowId, started.structuredContent.executionId, finished, 'the run');
        expect(done.status, JSON.stringify(done)).to.equal('succeeded');
        expect(await platformBudget(built.launchId, built.campaignId)).to.equal(7000);
      });
    });

    it('activate_workflow of a money workflow: not armed without planFingerprints (the answer shows every bound plan and what to do); with them, armed bound to those plans', async () => {
      const built = await buildLaunch(api(), { creativeId, title: 'Arm without asking' });
      const wf = await createWorkflow(w, w.key('acme', 'ci'), shoes, {
        trigger: { kind: 'schedule', cron: '0 9 * * *', timezone: 'Europe/Paris' },
        nodes: [launchNode('go', built.launchId)],
      });
      const first = await call('activate_workflow', { workflowId: wf.workflowId });
      expect(first.isError, text(first)).to.not.equal(true);
      const fingerprint = await planFingerprintOf(api(), built.launchId);
      expect(first.structuredContent).to.deep.include({ armed: false, reason: 'plan_confirmation_required', status: 'inactive' });
      expect(first.structuredContent.boundPlans).to.deep.equal([{ nodeId: 'go', launchId: built.launchId, planFingerprint: fingerprint }]);
      expect(text(first))
        .to.contain('Nothing was armed: this MCP client cannot ask its user')
        .and.to.match(/act_1001: 50\.00 USD/)
        .and.to.contain(`call activate_workflow again with the same arguments and planFingerprints: ["${fingerprint}"]`);
      const read = async () => (await w.request('GET', `/v1/brands/${shoes}/workflows/${wf.workflowId}`, { key: w.key('acme', 'ci') })).body;
      expect((await read()).status).to.equal('inactive');
      // A stale list arms nothing either.
      const stale = toolError(await call('activate_workflow', { workflowId: wf.workflowId, planFingerprints: ['not-the-plan'] }));
      expect(stale.code).to.equal('stale_read');
      expect((await read()).status).to.equal('inactive');
      const armed = await call('activate_workflow', { workflowId: wf.workflowId, planFingerprints: [fingerprint] });
      expect(armed.isError, text(armed)).to.not.equal(true);
      expect(armed.structuredContent.status).to.equal('active');
      expect(armed.structuredContent.boundPlans[0].planFingerprint).to.equal(fingerprint);
    });

    it('update_node of a live status: refused without publish (insufficient_scope, nothing sent; a draft still changes with write); without the plan nothing is sent; with it the status changes', async () => {
      const built = await buildLaunch(api(), { creativeId, title: 'Live status' });
      await publish(api(), built.launchId);
      const writer = await mcpClient(w.url, w.key('acme', 'writer'));
      try {
        const refused = await call('update_node', { launchId: built.launchId, nodeId: built.campaignId, properties: { status: 'PAUSED' } }, writer);
        const error = toolError(refused);
        expect(error.code).to.equal('insufficient_scope');
        expect(error.details).to.deep.equal({ requiredScope: 'publish' });
        expect(await platformStatus(built.launchId), 'nothing was sent to the ad platform').to.equal('ACTIVE');
        // A draft's status is no money: the same key changes it (write).
        const draft = await buildLaunch(api(), { creativeId, title: 'Writer draft' });
        const drafted = await call('update_node', { launchId: draft.launchId, nodeId: draft.campaignId, properties: { status: 'PAUSED' } }, writer);
        expect(drafted.isError, text(drafted)).to.not.equal(true);
        expect(drafted.structuredContent.properties.status).to.equal('PAUSED');
      } finally {
        await writer.close();
      }
      const first = await call('update_node', { launchId: built.launchId, nodeId: built.campaignId, properties: { status: 'PAUSED' } });
      const fingerprint = expectPlanAnswer(first, 'update_node');
      expect(first.structuredContent).to.include({ id: built.campaignId });
      expect(text(first)).to.contain('to PAUSED on the ad platform');
      expect((await launch(built.launchId)).campaigns[0].node.properties.status, 'not paused').to.not.equal('PAUSED');
      const done = await call('update_node', {
        launchId: built.launchId,
        nodeId: built.campaignId,
        properties: { status: 'PAUSED' },
        planFingerprint: fingerprint,
      });
      expect(done.isError, text(done)).to.not.equal(true);
      expect(done.structuredContent.properties.status).to.equal('PAUSED');
      expect(await platformStatus(built.launchId)).to.equal('PAUSED');
      // A draft is no money: changed at once.
      const draft = await buildLaunch(api(), { creativeId, title: 'Draft status' });
      const plain = await call('update_node', { launchId: draft.launchId, nodeId: draft.adIds[0], properties: { status: 'PAUSED' } });
      expect(plain.structuredContent.properties.status).to.equal('PAUSED');
    });

    it('create_pipeline_card into a publishing column: no card and no publish without the plan; with it, placed and published', async () => {
      const column = (await api()('POST', '/pipeline/columns', { name: 'Go live', publishes: true })).body.columnId;
      const built = await buildLaunch(api(), { creativeId, title: 'Card' });
      const first = await call('create_pipeline_card', { launchId: built.launchId, columnId: column, idempotencyKey: key('card') });
      const fingerprint = expectPlanAnswer(first, 'create_pipeline_card');
      expect(first.structuredContent.publish).to.deep.equal({ attempted: false, published: false, reason: 'plan_confirmation_required' });
      expect((await api()('GET', '/pipeline')).body.cards.filter((c: { launchId: string }) => c.launchId === built.launchId)).to.deep.equal([]);
      const done = await call('create_pipeline_card', {
        launchId: built.launchId,
        columnId: column,
        planFingerprint: fingerprint,
        idempotencyKey: key('card2'),
      });
      expect(done.structuredContent.publish).to.deep.equal({ attempted: true, published: true, reason: null });
      expect((await launch(built.launchId)).status).to.equal('published');
    });

    it('run_workflow of a workflow with a launch step: no run without the plan; with it, the run publishes that plan', async () => {
      const built = await buildLaunch(api(), { creativeId, title: 'Run' });
      const wf = await createWorkflow(w, w.key('acme', 'ci'), shoes, { nodes: [launchNode('go', built.launchId)] });
      const first = await call('run_workflow', { workflowId: wf.workflowId });
      const fingerprint = expectPlanAnswer(first, 'run_workflow');
      expect(fingerprint).to.equal(await planFingerprintOf(api(), built.launchId));
      expect(first.structuredContent).to.deep.include({ workflowId: wf.workflowId, started: false, reason: 'plan_confirmation_required' });
      const none = (await w.request('GET', `/v1/brands/${shoes}/workflows/${wf.workflowId}/executions`, { key: w.key('acme', 'ci') })).body;
      expect(none.executions).to.deep.equal([]);
      const started = await call('run_workflow', { workflowId: wf.workflowId, planFingerprint: fingerprint });
      expect(started.isError, text(started)).to.not.equal(true);
      const done = await waitForExecution(w, w.key('acme', 'ci'), shoes, wf.workflowId, started.structuredContent.executionId, finished, 'the run');
      expect(done.status, JSON.stringify(done)).to.equal('succeeded');
      expect(done.trigger.confirmedPlan).to.deep.equal({ stepNodeId: 'go', planFingerprint: fingerprint });
    });

    it("run_workflow of a workflow with a budget step: the plan shows the step's amount in the ad account's currency", async () => {
      const built = await buildLaunch(api(), { creativeId, title: 'Budget run' });
      await publish(api(), built.launchId);
      const wf = await createWorkflow(w, w.key('acme', 'ci'), shoes, {
        nodes: [{ nodeId: 'raise', kind: 'budget', name: 'Raise', settings: { launchId: built.launchId, nodeId: built.campaignId, amount: 900000 } }],
      });
      const first = await call('run_workflow', { workflowId: wf.workflowId });
      expectPlanAnswer(first, 'run_workflow');
      expect(text(first))
        .to.contain(`Step raise sets the budget of node ${built.campaignId} (ad account act_1001) to 9,000.00 USD.`)
        .and.not.to.contain('minor units');
    });

    it('review_workflow_step approving a gate before a launch step: stays pending without the plan; with it, approved and published', async () => {
      const built = await buildLaunch(api(), { creativeId, title: 'Reviewed' });
      const wf = await createWorkflow(w, w.key('acme', 'ci'), shoes, { nodes: [reviewNode('review'), launchNode('go', built.launchId)] });
      const exec = await runWorkflow(w, w.key('acme', 'ci'), shoes, wf.workflowId);
      const waiting = await waitForExecution(w, w.key('acme', 'ci'), shoes, wf.workflowId, exec, (e) => e.status === 'waiting_review', 'the gate');
      const reviewer = await mcpClient(w.url, w.key('acme', 'ci2'));
      try {
        const args = { workflowId: wf.workflowId, executionId: exec, nodeId: 'review', decision: 'approve' };
        const first = await call('review_workflow_step', args, reviewer);
        const fingerprint = expectPlanAnswer(first, 'review_workflow_step');
        expect(fingerprint).to.equal(nodeOf(waiting, 'review').plan.planFingerprint);
        expect(text(first))
          .to.contain('Step go (launch) on launch')
          .and.to.match(/act_1001: 50\.00 USD/);
        expect(nodeOf(first.structuredContent, 'review').status).to.equal('waiting_review');
        const done = await call('review_workflow_step', { ...args, planFingerprint: fingerprint }, reviewer);
        expect(done.isError, text(done)).to.not.equal(true);
        expect(nodeOf(done.structuredContent, 'review').status).to.equal('succeeded');
      } finally {
        await reviewer.close();
      }
      const done = await waitForExecution(w, w.key('acme', 'ci'), shoes, wf.workflowId, exec, finished, 'the run');
      expect(done.status, JSON.stringify(done)).to.equal('succeeded');
      expect((await launch(built.launchId)).status).to.equal('published');
    });

    it('review_workflow_step after the launch changed at the gate: the answer is the current plan, the recorded one is refused (gate pending); the current plan approved publishes it', async () => {
      const built = await buildLaunch(api(), { creativeId, title: 'Changed at the gate' });
      const wf = await createWorkflow(w, w.key('acme', 'ci'), shoes, { nodes: [reviewNode('review'), launchNode('go', built.launchId)] });
      const exec = await runWorkflow(w, w.key('acme', 'ci'), shoes, wf.workflowId);
      const waiting = await waitForExecution(w, w.key('acme', 'ci'), shoes, wf.workflowId, exec, (e) => e.status === 'waiting_review', 'the gate');
      const recorded = nodeOf(waiting, 'review').plan.planFingerprint;
      // The draft's budget goes from $50 to $70 while the gate waits.
      await api()('PATCH', `/launches/${built.launchId}/nodes/${built.campaignId}`, { properties: { budget: { dailyAmount: 7000 } } });
      const current = await planFingerprintOf(api(), built.launchId);
      expect(current).to.not.equal(recorded);
      const reviewer = await mcpClient(w.url, w.key('acme', 'ci2'));
      try {
        const args = { workflowId: wf.workflowId, executionId: exec, nodeId: 'review', decision: 'approve' };
        // Without a plan: the answer is the plan an approval would publish now, the current one.
        const first = await call('review_workflow_step', args, reviewer);
        expect(expectPlanAnswer(first, 'review_workflow_step')).to.equal(current);
        expect(text(first)).to.match(/act_1001: 70\.00 USD/);
        // The plan the gate recorded is no longer the launch: nothing approved, the answer is the current plan again.
        const stale = await call('review_workflow_step', { ...args, planFingerprint: recorded }, reviewer);
        expect(text(stale)).to.contain(`the plan changed since planFingerprint ${recorded} was answered`);
        expect(stale.structuredContent.planFingerprint).to.equal(current);
        const still = await waitForExecution(w, w.key('acme', 'ci'), shoes, wf.workflowId, exec, () => true, 'the run');
        expect(nodeOf(still, 'review').status).to.equal('waiting_review');
        expect((await launch(built.launchId)).status).to.equal('draft');
        // The current plan, as the refusal named it: approved, and that plan is published.
        const done = await call('review_workflow_step', { ...args, planFingerprint: current }, reviewer);
        expect(done.isError, text(done)).to.not.equal(true);
        expect(nodeOf(done.structuredContent, 'review').plan).to.deep.include({ planFingerprint: current, countedUsdCents: 7000 });
      } finally {
        await reviewer.close();
      }
      const done = await waitForExecution(w, w.key('acme', 'ci'), shoes, wf.workflowId, exec, finished, 'the run');
      expect(done.status, JSON.stringify(done)).to.equal('succeeded');
      expect(nodeOf(done, 'go').result.answer).to.deep.include({ status: 'published', planFingerprint: current });
    });

    it('a client that can ask is asked before a live status change; a decline sends nothing, an accept sends it', async () => {
      const built = await buildLaunch(api(), { creativeId, title: 'Asked status' });
      await publish(api(), built.launchId);
      const asking = await mcpClient(w.url, w.key('acme', 'ci'), { capabilities: { elicitation: {} } });
      const questions: string[] = [];
      asking.setRequestHandler(ElicitRequestSchema, async (request): Promise<ElicitResult> => {
        questions.push(request.params.message);
        return { action: 'decline' };
      });
      try {
        const r = await call('update_node', { launchId: built.launchId, nodeId: built.campaignId, properties: { status: 'PAUSED' } }, asking);
        expect(questions).to.have.length(1);
        expect(questions[0]).to.match(/^Set the campaign "Spring - US" \(\S+, ad account act_1001\) to PAUSED on the ad platform\? It is ACTIVE now\./);
        expect(r.isError).to.not.equal(true);
        expect(text(r)).to.contain('Nothing was changed: the person declined.');
      } finally {
        await asking.close();
      }
      expect((await launch(built.launchId)).campaigns[0].node.properties.status, 'not paused').to.not.equal('PAUSED');
      expect(await platformStatus(built.launchId), 'nothing was sent').to.equal('ACTIVE');
      // An accept sends the change.
      const accepting = await mcpClient(w.url, w.key('acme', 'ci'), { capabilities: { elicitation: {} } });
      accepting.setRequestHandler(ElicitRequestSchema, async (): Promise<ElicitResult> => ({ action: 'accept', content: { publish: true } }));
      try {
        const r = await call('update_node', { launchId: built.launchId, nodeId: built.campaignId, properties: { status: 'PAUSED' } }, accepting);
        expect(r.isError, text(r)).to.not.equal(true);
        expect(r.structuredContent.properties.status).to.equal('PAUSED');
      } finally {
        await accepting.close();
      }
      expect(await platformStatus(built.launchId)).to.equal('PAUSED');
    });

    it("the server's instructions tell a client that cannot ask to confirm every money path with the plan's planFingerprint", () => {
      const said = client.getInstructions();
      expect(said)
        .to.contain('If it cannot (no elicitation), every call that moves money')
        .and.to.contain('launch_campaign with confirm, edit_live_campaign, update_node of a live status, a pipeline card into a column that publishes')
        .and.to.contain('run_workflow and review_workflow_step before a launch or budget step) needs the planFingerprint of the plan shown')
        .and.to.contain('without it nothing moves and the answer is the plan with its planFingerprint');
    });

    it('cards into a column whose workflow has a launch step: no card placed or moved and no run without the plan; with it, the run publishes that plan', async () => {
      const built = await buildLaunch(api(), { creativeId, title: 'Workflow column' });
      const wf = await createWorkflow(w, w.key('acme', 'ci'), shoes, { workflowName: key('Publish it'), nodes: [launchNode('go', '$trigger.launchId')] });
      const backlog = (await api()('POST', '/pipeline/columns', { name: key('Backlog') })).body.columnId;
      const column = (await api()('POST', '/pipeline/columns', { name: key('Go'), workflowId: wf.workflowId })).body.columnId;
      const executions = async () =>
        (await w.request('GET', `/v1/brands/${shoes}/workflows/${wf.workflowId}/executions`, { key: w.key('acme', 'ci') })).body.executions as Array<
          Record<string, any>
        >;
      const cards = async () => (await api()('GET', '/pipeline')).body.cards.filter((c: { launchId: string }) => c.launchId === built.launchId);

      const created = await call('create_pipeline_card', { launchId: built.launchId, columnId: column, idempotencyKey: key('wcard') });
      const fingerprint = expectPlanAnswer(created, 'create_pipeline_card');
      expect(text(created)).to.contain(`The column starts workflow ${wf.workflowId}`);
      expect(created.structuredContent.publish).to.deep.include({ attempted: false, reason: 'plan_confirmation_required' });
      expect(await cards(), 'no card placed').to.deep.equal([]);

      const card = (await api()('POST', '/pipeline/cards', { launchId: built.launchId, columnId: backlog })).body;
      const unnamed = await call('move_pipeline_card', { cardId: card.cardId, columnId: column, version: card.version });
      expect(expectPlanAnswer(unnamed, 'move_pipeline_card')).to.equal(fingerprint);
      expect((await cards())[0]).to.deep.include({ columnId: backlog, version: card.version });
      expect(await executions(), 'no run started').to.deep.equal([]);

      const moved = await call('move_pipeline_card', { cardId: card.cardId, columnId: column, version: card.version, planFingerprint: fingerprint });
      expect(moved.isError, text(moved)).to.not.equal(true);
      expect(moved.structuredContent.columnId).to.equal(column);
      let runs: Array<Record<string, any>> = [];
      for (let waited = 0; waited < 15_000 && !runs.length; waited += 50) {
        runs = await executions();
        if (!runs.length) await new Promise((r) => setTimeout(r, 50));
      }
      expect(runs, 'the run the card started').to.have.length(1);
      const done = await waitForExecution(w, w.key('acme', 'ci'), shoes, wf.workflowId, runs[0].executionId, finished, 'the run');
      expect(done.status, JSON.stringify(done)).to.equal('succeeded');
      expect(done.trigger.confirmedPlan).to.deep.equal({ stepNodeId: 'go', planFingerprint: fingerprint });
      expect((await launch(built.launchId)).status).to.equal('published');
    });
  });
}
