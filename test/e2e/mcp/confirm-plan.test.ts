// Issue 43, finding 2: what the person confirms is what is published (paths.md "Confirmation by the
// person"). The question carries the plan's fingerprint, the same binding the REST preview gives
// (planFingerprint); if the launch changes while the question waits, an accept publishes nothing and
// the answer says the launch changed. The same for edit_live_campaign. A review gate whose launch
// changed since it recorded its plan asks about the launch as it is now, and an accept publishes that
// plan (paths.md "Who may cause a publish"). Both dialects.

import { expect } from 'chai';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ElicitRequestSchema, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { mcpClient, type ToolResult } from '../../helpers/mcp.js';
import { brandApi, buildLaunch, idem, publish, uploadCreative } from '../../helpers/launch-builders.js';
import { templatesWorld } from '../../helpers/structure-templates.js';
import { createWorkflow, finished, launchNode, nodeOf, reviewNode, runWorkflow, waitForExecution } from '../../helpers/workflows.js';
import { dialects } from '../../helpers/databases.js';
import { startWorld, type World } from '../../helpers/world.js';

let seq = 0;
const key = (what: string) => `${what}-${process.pid}-${seq++}`;

for (const dialect of dialects()) {
  describe(`MCP confirmation bound to the plan (${dialect})`, function () {
    this.timeout(60_000);
    let w: World;
    let shoes: number;
    let creativeId: number;
    before(async () => {
      const world = templatesWorld();
      world.organizations[0].apiKeys.find((k: { ref: string }) => k.ref === 'ci').publishCeilingDollars = 5000;
      // A reviewer holding publish, created by another person than the ci key's (a run's author may not approve it).
      world.organizations[0].apiKeys.push({
        ref: 'pubReviewer',
        name: 'Publishing reviewer',
        createdBy: 'ada',
        scopes: ['read', 'write', 'publish'],
        surfaces: { api: true, mcp: true },
        brands: null,
        publishCeilingDollars: 5000,
      });
      w = await startWorld({ dialect, bootstrap: world });
      shoes = w.brandId('acme', 'shoes');
      creativeId = await uploadCreative(w, w.key('acme', 'ci'), shoes);
    });
    after(async () => w?.close());

    const api = () => brandApi(w, w.key('acme', 'ci'), shoes);
    const committed = async () => (await w.service.knex('api_keys').where({ id: w.seed.organizations.acme.apiKeys.ci.id }).first()).committed_cents as number;
    const launchStatus = async (launchId: string) => (await api()('GET', `/launches/${launchId}`)).body.status as string;

    /** A client (of `credential`) whose person runs `meanwhile` while the question waits, then answers `answer`; the questions asked land in `asked`. */
    async function asking(meanwhile: () => Promise<void>, answer: ElicitResult, asked: string[], credential = 'ci'): Promise<Client> {
      const client = await mcpClient(w.url, w.key('acme', credential), { capabilities: { elicitation: {} } });
      client.setRequestHandler(ElicitRequestSchema, async (request) => {
        asked.push((request.params as { message: string }).message);
        await meanwhile();
        return answer;
      });
      return client;
    }

    /** A client whose person, while the first question waits, raises the launch's budget to $400 a day, then accepts. */
    const raisingWhileAsked = (built: { launchId: string; campaignId: string }, asked: string[]) =>
      asking(
        async () => {
          if (asked.length > 1) return;
          const r = await api()('PATCH', `/launches/${built.launchId}/nodes/${built.campaignId}`, { properties: { budget: { dailyAmount: 40_000 } } });
          expect(r.status, JSON.stringify(r.body)).to.equal(200);
        },
        { action: 'accept', content: { publish: true } },
        asked,
      );

    it('the REST preview answers planFingerprint; a publish naming a plan the launch no longer is publishes nothing (409 stale_read)', async () => {
      const built = await buildLaunch(api(), { creativeId });
      const preview = await api()('POST', `/launches/${built.launchId}/publish`, { confirm: false }, idem('preview'));
      expect(preview.status, JSON.stringify(preview.body)).to.equal(200);
      const seen = preview.body.planFingerprint;
      expect(seen).to.be.a('string').with.length.greaterThan(20);
      const raised = await api()('PATCH', `/launches/${built.launchId}/nodes/${built.campaignId}`, { properties: { budget: { dailyAmount: 40_000 } } });
      expect(raised.status, JSON.stringify(raised.body)).to.equal(200);
      const before = await committed();
      const stale = await api()('POST', `/launches/${built.launchId}/publish`, { confirm: true, planFingerprint: seen }, idem('stale'));
      expect(stale.status, JSON.stringify(stale.body)).to.equal(409);
      expect(stale.body.error.code).to.equal('stale_read');
      expect(stale.body.error.details).to.include({ reason: 'plan_changed', launchId: built.launchId });
      expect(stale.body.error.details.planFingerprint).to.not.equal(seen);
      expect(await launchStatus(built.launchId)).to.equal('draft');
      expect(await committed()).to.equal(before);
      const current = stale.body.error.details.planFingerprint;
      const ok = await api()('POST', `/launches/${built.launchId}/publish`, { confirm: true, planFingerprint: current }, idem('current'));
      expect(ok.status, JSON.stringify(ok.body)).to.equal(200);
      expect(ok.body).to.include({ status: 'published', planFingerprint: current });
    });

    it('launch_campaign: the budget raised while the question waits, the accept publishes nothing and says the launch changed; asked again, the new amount is shown and published', async () => {
      const built = await buildLaunch(api(), { creativeId });
      const before = await committed();
      const asked: string[] = [];
      const client = await raisingWhileAsked(built, asked);
      try {
        const changed = (await client.callTool({
          name: 'launch_campaign',
          arguments: { brandId: shoes, launchId: built.launchId, confirm: true, idempotencyKey: key('changed') },
        })) as ToolResult;
        expect(changed.isError, JSON.stringify(changed)).to.equal(true);
        expect(changed.content[0].text).to.match(/Nothing was done: the launch changed since the question/);
        expect(asked[0]).to.match(/act_1001: 50\.00 USD/);
        expect(asked[0]).to.match(/Plan [A-Za-z0-9_-]{20,}/);
        expect(await launchStatus(built.launchId)).to.equal('draft');
        expect(await committed()).to.equal(before);

        const again = (await client.callTool({
          name: 'launch_campaign',
          arguments: { brandId: shoes, launchId: built.launchId, confirm: true, idempotencyKey: key('again') },
        })) as ToolResult;
        expect(again.isError, JSON.stringify(again)).to.not.equal(true);
        expect(asked[1]).to.match(/act_1001: 400\.00 USD/);
        expect(await launchStatus(built.launchId)).to.equal('published');
        expect(await committed()).to.equal(before + 40_000);
      } finally {
        await client.close();
      }
    });

    it('launch_campaign: a retry with the same idempotencyKey after an accepted publish replays it', async () => {
      const built = await buildLaunch(api(), { creativeId });
      const asked: string[] = [];
      const client = await asking(async () => undefined, { action: 'accept', content: { publish: true } }, asked);
      const idempotencyKey = key('replay');
      try {
        const call = () => client.callTool({ name: 'launch_campaign', arguments: { brandId: shoes, launchId: built.launchId, confirm: true, idempotencyKey } });
        const first = (await call()) as ToolResult;
        expect(first.isError, JSON.stringify(first)).to.not.equal(true);
        const second = (await call()) as ToolResult;
        expect(second.isError, JSON.stringify(second)).to.not.equal(true);
        expect(second.structuredContent).to.include({ status: 'published', confirmed: true });
      } finally {
        await client.close();
      }
    });

    it('edit_live_campaign: the launch changed while the question waits, the accept changes nothing and says so', async () => {
      const built = await buildLaunch(api(), { creativeId });
      await publish(api(), built.launchId);
      const asked: string[] = [];
      const client = await asking(
        async () => {
          // Another change of the same budget lands first (through REST, as the same key could).
          const r = await api()(
            'POST',
            `/launches/${built.launchId}/nodes/${built.campaignId}/live-budget`,
            { level: 'CAMPAIGN', budgetType: 'daily', amount: 6000 },
            idem('other-edit'),
          );
          expect(r.status, JSON.stringify(r.body)).to.equal(200);
        },
        { action: 'accept', content: { publish: true } },
        asked,
      );
      try {
        const before = await committed();
        const result = (await client.callTool({
          name: 'edit_live_campaign',
          arguments: {
            brandId: shoes,
            launchId: built.launchId,
            nodeId: built.campaignId,
            level: 'CAMPAIGN',
            budgetType: 'daily',
            amount: 9000,
            idempotencyKey: key('edit'),
          },
        })) as ToolResult;
        expect(result.isError, JSON.stringify(result)).to.equal(true);
        expect(result.content[0].text).to.match(/Nothing was done: the launch changed since the question/);
        expect(asked[0]).to.match(/Now: 50\.00 USD daily\. New: 90\.00 USD daily/);
        expect(await committed()).to.equal(before + 6000);
        const node = (await api()('GET', `/launches/${built.launchId}`)).body;
        // The budget is the other edit's, not the declined one (read where it lives, not as text: ids may hold the digits).
        const budget = node.campaigns[0].node.properties.budget;
        expect(budget, JSON.stringify(node.campaigns[0].node)).to.deep.include({ dailyAmount: 6000 });
      } finally {
        await client.close();
      }
    });

    it('move_pipeline_card into a publishing column: the budget raised while the question waits, the accept places the card and publishes nothing (publish.reason stale_read)', async () => {
      const built = await buildLaunch(api(), { creativeId });
      const before = await committed();
      const asked: string[] = [];
      const client = await raisingWhileAsked(built, asked);
      try {
        const call = async (name: string, args: Record<string, unknown>) => {
          const r = (await client.callTool({ name, arguments: { brandId: shoes, ...args } })) as ToolResult;
          expect(r.isError, `${name}: ${JSON.stringify(r.content)}`).to.not.equal(true);
          return r.structuredContent as Record<string, any>;
        };
        const draft = await call('create_pipeline_column', { name: `Draft ${key('column')}` });
        const live = await call('create_pipeline_column', { name: `Live ${key('column')}`, publishes: true });
        const card = await call('create_pipeline_card', { launchId: built.launchId, columnId: draft.columnId, idempotencyKey: key('card') });
        expect(asked).to.deep.equal([]);
        const moved = await call('move_pipeline_card', { cardId: card.cardId, columnId: live.columnId, version: card.version });
        expect(asked).to.have.length(1);
        expect(asked[0]).to.match(/Plan [A-Za-z0-9_-]{20,}/);
        expect(moved).to.deep.include({ columnId: live.columnId, launchStatus: 'draft' });
        expect(moved.publish).to.deep.equal({ attempted: true, published: false, reason: 'stale_read' });
        expect(moved.publishError.code).to.equal('stale_read');
        expect(moved.publishError.details).to.include({ reason: 'plan_changed', launchId: built.launchId });
        expect(await launchStatus(built.launchId)).to.equal('draft');
        expect(await committed()).to.equal(before);
      } finally {
        await client.close();
      }
    });

    /** A run of review → launch of a fresh $50 draft started by the ci key, waiting at its gate. */
    async function waitingRun() {
      const built = await buildLaunch(api(), { creativeId });
      const wf = await createWorkflow(w, w.key('acme', 'ci'), shoes, { nodes: [reviewNode('review'), launchNode('go', built.launchId)] });
      const exec = await runWorkflow(w, w.key('acme', 'ci'), shoes, wf.workflowId);
      await waitForExecution(w, w.key('acme', 'ci'), shoes, wf.workflowId, exec, (e) => e.status === 'waiting_review', 'the gate');
      return { built, workflowId: wf.workflowId as number, exec };
    }
    const raise = async (built: { launchId: string; campaignId: string }, dailyAmount: number) => {
      const r = await api()('PATCH', `/launches/${built.launchId}/nodes/${built.campaignId}`, { properties: { budget: { dailyAmount } } });
      expect(r.status, JSON.stringify(r.body)).to.equal(200);
    };

    it('review_workflow_step: a launch changed at the gate is asked about as it is now and published so; changed again while the question waits, the accept approves nothing and the next question shows it', async () => {
      const { built, workflowId, exec } = await waitingRun();
      await raise(built, 7000);
      const asked: string[] = [];
      // A reviewer other than the run's author, holding publish (so the question can read the launch's preview).
      const client = await asking(
        async () => {
          if (asked.length === 1) await raise(built, 40_000);
        },
        { action: 'accept', content: { publish: true } },
        asked,
        'pubReviewer',
      );
      const args = { brandId: shoes, workflowId, executionId: exec, nodeId: 'review', decision: 'approve' };
      try {
        const changed = (await client.callTool({ name: 'review_workflow_step', arguments: args })) as ToolResult;
        expect(asked[0])
          .to.contain(`Launch ${built.launchId} changed since the gate recorded plan`)
          .and.to.match(/act_1001: 70\.00 USD/);
        expect(changed.isError, JSON.stringify(changed)).to.equal(true);
        expect(changed.content[0].text).to.match(/Nothing was done: the launch changed since the question/);
        const still = await waitForExecution(w, w.key('acme', 'ci'), shoes, workflowId, exec, () => true, 'the run');
        expect(nodeOf(still, 'review').status).to.equal('waiting_review');
        expect(await launchStatus(built.launchId)).to.equal('draft');

        const again = (await client.callTool({ name: 'review_workflow_step', arguments: args })) as ToolResult;
        expect(again.isError, JSON.stringify(again)).to.not.equal(true);
        expect(asked[1]).to.match(/act_1001: 400\.00 USD/);
        expect(nodeOf(again.structuredContent, 'review').plan).to.deep.include({ countedUsdCents: 40_000 });
      } finally {
        await client.close();
      }
      const done = await waitForExecution(w, w.key('acme', 'ci'), shoes, workflowId, exec, finished, 'the run');
      expect(done.status, JSON.stringify(done)).to.equal('succeeded');
      expect(nodeOf(done, 'go').result.answer.budget.countedUsdCents).to.equal(40_000);
    });

    it('review_workflow_step by a reviewer without publish: a launch changed at the gate is shown as it is now (its preview read with the read scope) and the accept publishes it', async () => {
      const { built, workflowId, exec } = await waitingRun();
      await raise(built, 8000);
      const asked: string[] = [];
      const client = await asking(async () => undefined, { action: 'accept', content: { publish: true } }, asked, 'reviewer');
      try {
        const r = (await client.callTool({
          name: 'review_workflow_step',
          arguments: { brandId: shoes, workflowId, executionId: exec, nodeId: 'review', decision: 'approve' },
        })) as ToolResult;
        expect(r.isError, JSON.stringify(r)).to.not.equal(true);
        expect(asked[0])
          .to.contain(`Launch ${built.launchId} changed since the gate recorded plan`)
          .and.to.match(/80\.00 USD/)
          .and.not.to.match(/50\.00 USD/)
          .and.not.to.contain('could not be read');
      } finally {
        await client.close();
      }
      const done = await waitForExecution(w, w.key('acme', 'ci'), shoes, workflowId, exec, finished, 'the run');
      expect(done.status, JSON.stringify(done)).to.equal('succeeded');
      expect(nodeOf(done, 'go').result.answer.budget.countedUsdCents).to.equal(8000);
    });
  });
}
