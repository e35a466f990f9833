// The agent step against a local fake OpenAI-compatible model that asks for tool calls: every
// call goes through the pipeline as the run's key, narrowed to the step's brands, so a publish
// within the key's ceiling goes live and one past it is refused (spend_ceiling_exceeded in the
// transcript, nothing published); the tools offered are the operations the key has the scope for.

import { expect } from 'chai';
import { dialects } from '../../helpers/databases.js';
import { startWorld, type World } from '../../helpers/world.js';
import { brandApi, buildLaunch, uploadCreative } from '../../helpers/launch-builders.js';
import { AgentModelServer } from '../../fakes/agent-model-server.js';
import { createWorkflow, finished, nodeOf, runWorkflow, waitForExecution, workflowWorld } from '../../helpers/workflows.js';

for (const dialect of dialects()) {
  describe(`workflow agent steps (${dialect})`, function () {
    this.timeout(60_000);
    let w: World;
    let model: AgentModelServer;
    let shoes: number;
    let hats: number;
    const key = (ref: string) => w.key('acme', ref);

    before(async () => {
      model = await new AgentModelServer().start();
      model.apiKey = 'sk-test-model';
      w = await startWorld({
        dialect,
        bootstrap: workflowWorld,
        env: { AGENT_MODEL_URL: model.url, AGENT_MODEL: 'fake-tools-1', AGENT_MODEL_API_KEY: 'sk-test-model' },
      });
      shoes = w.brandId('acme', 'shoes');
      hats = w.brandId('acme', 'hats');
    });
    after(async () => {
      await w?.close();
      await model?.close();
    });

    /** The model publishes `launchId` on its first turn, then sums up what the tool answered. */
    function publishScript(brandId: number, launchId: string) {
      model.requests.length = 0;
      model.script = (req, n) => {
        if (n === 0) return { toolCalls: [{ name: 'launch_campaign', arguments: { brandId, launchId, confirm: true } }] };
        const result = JSON.parse(req.messages.at(-1)!.content);
        return { text: result.error ? `Refused: ${result.error.code}` : `Published ${result.body.launchId}` };
      };
    }

    const agentStep = { nodeId: 'agent', kind: 'agent', name: 'Agent', settings: { instruction: 'Publish the spring launch.' } };

    it("publishes through launch_campaign within the key's ceiling, with the transcript in the node result", async () => {
      const api = brandApi(w, key('ci'), shoes);
      const launch = await buildLaunch(api, { creativeId: await uploadCreative(w, key('ci'), shoes), title: 'Agent launch' });
      publishScript(shoes, launch.launchId);
      const wf = await createWorkflow(w, key('ci'), shoes, { nodes: [agentStep] });
      const exec = await runWorkflow(w, key('ci'), shoes, wf.workflowId);
      const done = await waitForExecution(w, key('ci'), shoes, wf.workflowId, exec, finished, 'the agent run');
      expect(done.status, JSON.stringify(done)).to.equal('succeeded');
      const result = nodeOf(done, 'agent').result;
      expect(result).to.include({ answer: `Published ${launch.launchId}`, turns: 2, toolCalls: 1 });
      expect(result.transcript.map((m: any) => m.role)).to.deep.equal(['system', 'user', 'assistant', 'tool', 'assistant']);
      expect(JSON.parse(result.transcript[3].content)).to.deep.include({ status: 200 });
      expect((await api('GET', `/launches/${launch.launchId}`)).body.status).to.equal('published');
      const activity = await api('GET', `/activity?limit=100&entityId=${launch.campaignId}`);
      expect(activity.body.activities.find((a: any) => a.action === 'campaign.published').userName).to.equal('API key: CI key');

      const first = model.requests[0];
      expect(first.model).to.equal('fake-tools-1');
      const names = first.tools!.map((t) => t.function.name);
      expect(names).to.include.members(['launch_campaign', 'edit_live_campaign', 'list_launches']);
      expect(names.filter((n) => n.includes('workflow'))).to.deep.equal([]);
      expect(first.tools!.find((t) => t.function.name === 'launch_campaign')!.function.parameters).to.include({ type: 'object' });
    });

    it("is refused past the key's ceiling: spend_ceiling_exceeded in the transcript and nothing published", async () => {
      const api = brandApi(w, key('ci'), shoes);
      const launch = await buildLaunch(api, { creativeId: await uploadCreative(w, key('ci'), shoes), title: 'Too big' });
      publishScript(shoes, launch.launchId);
      const wf = await createWorkflow(w, key('small'), shoes, { nodes: [agentStep] });
      const exec = await runWorkflow(w, key('small'), shoes, wf.workflowId);
      const done = await waitForExecution(w, key('small'), shoes, wf.workflowId, exec, finished, 'the agent run');
      const result = nodeOf(done, 'agent').result;
      expect(result.answer).to.equal('Refused: spend_ceiling_exceeded');
      expect(model.toolResults()[0].error.code).to.equal('spend_ceiling_exceeded');
      expect(JSON.parse(result.transcript[3].content).error.code).to.equal('spend_ceiling_exceeded');
      expect((await api('GET', `/launches/${launch.launchId}`)).body.status).to.equal('draft');
      const committed = await w.service.knex('api_keys').where({ id: w.seed.organizations.acme.apiKeys.small.id }).first('committed_cents');
      expect(Number(committed.committed_cents)).to.equal(0);
    });

    it("works only on the step's brands: a call on another brand is refused with brand_not_allowed", async () => {
      const api = brandApi(w, key('ci'), hats);
      const launch = await api('POST', '/launches', { title: 'Hats launch' });
      publishScript(hats, launch.body.id);
      const wf = await createWorkflow(w, key('ci'), shoes, { nodes: [agentStep] });
      const exec = await runWorkflow(w, key('ci'), shoes, wf.workflowId);
      const done = await waitForExecution(w, key('ci'), shoes, wf.workflowId, exec, finished, 'the agent run');
      expect(nodeOf(done, 'agent').result.answer).to.equal('Refused: brand_not_allowed');
    });

    it('a key without publish cannot run an agent step: 403 insufficient_scope and nothing reaches the model', async () => {
      model.requests.length = 0;
      model.script = () => ({ text: 'Done.' });
      const wf = await createWorkflow(w, key('ci'), shoes, { nodes: [agentStep] });
      const refused = await w.request('POST', `/v1/brands/${shoes}/workflows/${wf.workflowId}/runs`, { key: key('writer'), body: {} });
      expect(refused.status).to.equal(403);
      expect(refused.body.error.details).to.deep.equal({ requiredScope: 'publish' });
      expect(model.requests).to.have.length(0);
    });

    it('refuses to save an agent step when no model is configured', async () => {
      const bare = await startWorld({ dialect, bootstrap: workflowWorld });
      try {
        const r = await bare.request('POST', `/v1/brands/${bare.brandId('acme', 'shoes')}/workflows`, {
          key: bare.key('acme', 'ci'),
          body: { workflowName: 'Agent', trigger: { kind: 'manual' }, nodes: [agentStep], edges: [] },
        });
        expect(r.status).to.equal(400);
        expect(r.body.error.details).to.deep.include({
          field: 'nodes[agent].kind',
          code: 'invalid_value',
          message: 'agent steps need a model: this service has no AGENT_MODEL_URL configured',
        });
      } finally {
        await bare.close();
      }
    });
  });

  describe(`workflow agent steps against a model that stalls or fails (${dialect})`, function () {
    this.timeout(60_000);
    let w: World;
    let model: AgentModelServer;

    before(async () => {
      model = await new AgentModelServer().start();
      w = await startWorld({
        dialect,
        bootstrap: workflowWorld,
        env: { AGENT_MODEL_URL: model.url, AGENT_MODEL: 'fake-tools-1', AGENT_TIMEOUT_MS: '2000', JOBS: 'off' },
      });
    });
    beforeEach(() => {
      model.requests.length = 0;
      model.stallMs = 0;
      model.failStatus = null;
    });
    after(async () => {
      await w?.close();
      await model?.close();
    });

    const agentRun = async () => {
      const shoes = w.brandId('acme', 'shoes');
      const wf = await createWorkflow(w, w.key('acme', 'ci'), shoes, {
        nodes: [{ nodeId: 'agent', kind: 'agent', name: 'Agent', settings: { instruction: 'Summarise the week.' } }],
      });
      const exec = await runWorkflow(w, w.key('acme', 'ci'), shoes, wf.workflowId);
      return { shoes, workflowId: wf.workflowId, exec };
    };

    it('AGENT_TIMEOUT_MS bounds the whole step: one request, no SDK retry and no job retry after the deadline; the step fails with timeout', async () => {
      model.stallMs = 30_000;
      const { shoes, workflowId, exec } = await agentRun();
      await w.service.jobs.drain();
      const done = await waitForExecution(w, w.key('acme', 'ci'), shoes, workflowId, exec, finished, 'the stalled agent run');
      expect(done.status).to.equal('failed');
      const node = nodeOf(done, 'agent');
      expect(node.status).to.equal('failed');
      expect(node.error).to.deep.include({ code: 'timeout' });
      expect(node.error.message).to.match(/within 2 s \(AGENT_TIMEOUT_MS\), retries included/);
      // Before this rule the SDK retried once per attempt and the job tried the step three times: six requests of 2 s each.
      expect(model.requests).to.have.length(1);
    });

    it("the deadline counts from the step's first start: a job retry after it asks the model nothing and fails the step with timeout", async () => {
      model.failStatus = 500;
      const { shoes, workflowId, exec } = await agentRun();
      await w.service.jobs.drain();
      // The first attempt: the request and the SDK's one retry, both answered 500; the job retries later.
      expect(model.requests).to.have.length(2);
      const job = await w.service
        .knex('jobs')
        .where({ kind: 'run-workflow-step', job_key: String(exec) })
        .first();
      expect(Number(job.attempts)).to.equal(1);
      // The job's backoff (5 s) outlasts AGENT_TIMEOUT_MS: make the retry due now, once the deadline has passed.
      await new Promise((resolve) => setTimeout(resolve, 2_100));
      await w.service.knex('jobs').where({ id: job.id }).update({ run_at: Date.now() });
      await w.service.jobs.drain();
      const done = await waitForExecution(w, w.key('acme', 'ci'), shoes, workflowId, exec, finished, 'the failing agent run');
      expect(nodeOf(done, 'agent').error).to.deep.include({ code: 'timeout' });
      expect(model.requests).to.have.length(2);
    });
  });
}
