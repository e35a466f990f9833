// Every way money can move asks the person, through the SDK's real Client with the elicitation
// capability (MCP_CONFIRM_TIMEOUT_S one second): a pipeline card created in or moved into a column
// that publishes (or whose workflow has a launch step), run_workflow of a workflow with a launch
// step, and review_workflow_step approving a gate a launch step follows. A decline, silence or
// cancel moves no money and says so: the card is placed without a publish (publish.reason
// `declined`), no run starts, the review stays pending.

import { expect } from 'chai';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ElicitRequestSchema, type ElicitResult, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { dialects } from '../../helpers/databases.js';
import { mcpClient, type ToolResult } from '../../helpers/mcp.js';
import { brandApi, buildLaunch, uploadCreative } from '../../helpers/launch-builders.js';
import { createWorkflow, launchNode, nodeOf, reviewNode, runWorkflow, waitForExecution, workflowWorld } from '../../helpers/workflows.js';
import { startWorld, type World } from '../../helpers/world.js';

let seq = 0;
const key = (what: string) => `${what}-${process.pid}-${seq++}`;

type Answer = ElicitResult | 'silence';

for (const dialect of dialects()) {
  describe(`MCP: every money path asks the person first (${dialect})`, function () {
    this.timeout(60_000);
    let w: World;
    let shoes: number;
    let creativeId: number;
    let publishing: number;
    let plain: number;
    before(async () => {
      w = await startWorld({ dialect, bootstrap: structuredClone(workflowWorld), env: { MCP_CONFIRM_TIMEOUT_S: '1' } });
      shoes = w.brandId('acme', 'shoes');
      creativeId = await uploadCreative(w, w.key('acme', 'ci'), shoes);
      publishing = (await api()('POST', '/pipeline/columns', { name: 'Go live', publishes: true })).body.columnId;
      plain = (await api()('POST', '/pipeline/columns', { name: 'Ideas', publishes: false })).body.columnId;
    });
    after(async () => w?.close());

    const api = () => brandApi(w, w.key('acme', 'ci'), shoes);
    const launchStatus = async (launchId: string) => (await api()('GET', `/launches/${launchId}`)).body.status as string;

    /** A client that can ask, answering every question with `answer`; the questions asked are collected. */
    async function asking(answer: Answer, credential = 'ci'): Promise<{ client: Client; questions: string[] }> {
      const client = await mcpClient(w.url, w.key('acme', credential), { capabilities: { elicitation: {} } });
      // Listed first, so the client checks every answer against the tool's output schema.
      await client.listTools();
      const questions: string[] = [];
      client.setRequestHandler(ElicitRequestSchema, async (request) => {
        questions.push(request.params.message);
        return answer === 'silence' ? new Promise<ElicitResult>(() => undefined) : answer;
      });
      return { client, questions };
    }

    /** A new launch put on a card in `columnId` through create_pipeline_card, the client answering every question with `answer`. */
    async function cardFor(
      title: string,
      columnId: unknown,
      answer: Answer,
    ): Promise<{ built: { launchId: string }; questions: string[]; result: ToolResult }> {
      const built = await buildLaunch(api(), { creativeId, title });
      const { client, questions } = await asking(answer);
      const result = (await client.callTool({
        name: 'create_pipeline_card',
        arguments: { brandId: shoes, launchId: built.launchId, columnId, idempotencyKey: key('card') },
      })) as ToolResult;
      await client.close();
      return { built, questions, result };
    }

    const declined: ElicitResult = { action: 'decline' };
    const accepted: ElicitResult = { action: 'accept', content: { publish: true } };

    describe('pipeline cards into a column that publishes', () => {
      it('create_pipeline_card asks the launch_campaign question; a decline places the card without a publish (reason declined)', async () => {
        const { built, questions, result } = await cardFor('Card declined', publishing, declined);
        expect(questions).to.have.length(1);
        expect(questions[0])
          .to.contain('column "Go live"')
          .and.to.match(/Publish launch \S+ to the ad platform: 1 campaigns, 1 ad sets, 1 ads\?/);
        expect(questions[0]).to.match(/act_1001: \d+\.\d\d USD/);
        expect(result.isError).to.not.equal(true);
        expect(result.structuredContent.columnId).to.equal(publishing);
        expect(result.structuredContent.publish).to.deep.equal({ attempted: false, published: false, reason: 'declined' });
        expect(result.content.map((c) => c.text).join('\n')).to.match(/Nothing was published: the person declined\. The card was placed without a publish/);
        expect(await launchStatus(built.launchId)).to.equal('draft');
      });

      it('create_pipeline_card with an accept publishes', async () => {
        const { built, questions, result } = await cardFor('Card accepted', publishing, accepted);
        expect(questions).to.have.length(1);
        expect(result.structuredContent.publish).to.deep.equal({ attempted: true, published: true, reason: null });
        expect(await launchStatus(built.launchId)).to.equal('published');
      });

      it('a card into a column that does not publish asks nothing', async () => {
        const { questions, result } = await cardFor('Card plain', plain, declined);
        expect(questions).to.deep.equal([]);
        expect(result.structuredContent.publish.reason).to.equal(null);
      });

      it('move_pipeline_card into the publishing column with no answer in time moves the card and publishes nothing', async () => {
        const built = await buildLaunch(api(), { creativeId, title: 'Card silence' });
        const card = (await api()('POST', '/pipeline/cards', { launchId: built.launchId, columnId: plain })).body;
        const { client, questions } = await asking('silence');
        const result = (await client.callTool({
          name: 'move_pipeline_card',
          arguments: { brandId: shoes, cardId: card.cardId, columnId: publishing, version: card.version },
        })) as ToolResult;
        await client.close();
        expect(questions).to.have.length(1);
        expect(questions[0]).to.match(/^Move launch \S+ to column "Go live"/);
        expect(result.structuredContent).to.deep.include({ cardId: card.cardId, columnId: publishing });
        expect(result.structuredContent.publish).to.deep.equal({ attempted: false, published: false, reason: 'declined' });
        expect(result.content.map((c) => c.text).join('\n')).to.match(/Nothing was published: the question got no answer/);
        expect(await launchStatus(built.launchId)).to.equal('draft');
      });

      it('a card into a column whose workflow has a launch step asks; a decline starts no run', async () => {
        const column = (await api()('POST', '/pipeline/columns', { name: 'Workflow stage' })).body.columnId;
        const wf = await createWorkflow(w, w.key('acme', 'ci'), shoes, {
          trigger: { kind: 'pipeline_stage', columnId: column },
          nodes: [launchNode('go', '$trigger.launchId')],
        });
        const { built, questions, result } = await cardFor('Card workflow', column, declined);
        expect(questions).to.have.length(1);
        expect(questions[0]).to.contain(`workflow ${wf.workflowId}`).and.to.contain('launch step moves money');
        expect(result.structuredContent.publish.reason).to.equal('declined');
        const runs = (await w.request('GET', `/v1/brands/${shoes}/workflows/${wf.workflowId}/executions`, { key: w.key('acme', 'ci') })).body;
        expect(runs.executions.filter((e: any) => e.status !== 'canceled' && e.status !== 'failed').length, JSON.stringify(runs)).to.equal(0);
        expect(await launchStatus(built.launchId)).to.equal('draft');
      });

      it('create_pipeline_card cancelled while its question is open, then accepted, publishes nothing', async () => {
        const built = await buildLaunch(api(), { creativeId, title: 'Card cancelled' });
        const client: Client = await mcpClient(w.url, w.key('acme', 'ci'), { capabilities: { elicitation: {} } });
        const transport = client.transport!;
        const send = transport.send.bind(transport);
        let callId: string | number | undefined;
        transport.send = (message: JSONRPCMessage, options) => {
          const m = message as { id?: string | number; method?: string };
          if (m.method === 'tools/call') callId = m.id;
          return send(message, options);
        };
        const controller = new AbortController();
        let answered = false;
        client.setRequestHandler(ElicitRequestSchema, async (): Promise<ElicitResult> => {
          await client.notification({ method: 'notifications/cancelled', params: { requestId: callId!, reason: 'the agent gave up' } });
          controller.abort();
          answered = true;
          return accepted;
        });
        let failure: unknown;
        try {
          await client.callTool(
            { name: 'create_pipeline_card', arguments: { brandId: shoes, launchId: built.launchId, columnId: publishing, idempotencyKey: key('card') } },
            undefined,
            { signal: controller.signal },
          );
        } catch (err) {
          failure = err;
        }
        expect(failure).to.be.instanceOf(Error);
        expect(answered).to.equal(true);
        // Give the server the time it would take to act on a late accept.
        await new Promise((r) => setTimeout(r, 500));
        await client.close();
        expect(await launchStatus(built.launchId)).to.equal('draft');
      });
    });

    describe('workflows with a launch step', () => {
      it('run_workflow asks; a decline starts no run and says so', async () => {
        const built = await buildLaunch(api(), { creativeId, title: 'Run declined' });
        const wf = await createWorkflow(w, w.key('acme', 'ci'), shoes, { workflowName: 'Publish it', nodes: [launchNode('go', built.launchId)] });
        const { client, questions } = await asking(declined);
        const result = (await client.callTool({ name: 'run_workflow', arguments: { brandId: shoes, workflowId: wf.workflowId } })) as ToolResult;
        await client.close();
        expect(questions).to.have.length(1);
        expect(questions[0])
          .to.match(/^Run workflow \d+ "Publish it"/)
          .and.to.contain('launch step "Publish"');
        expect(result.isError).to.not.equal(true);
        expect(result.structuredContent).to.deep.include({ workflowId: wf.workflowId, started: false, reason: 'declined' });
        expect(result.structuredContent).to.not.have.property('executionId');
        expect(result.content.map((c) => c.text).join('\n')).to.match(/Nothing was run: the person declined/);
        const runs = (await w.request('GET', `/v1/brands/${shoes}/workflows/${wf.workflowId}/executions`, { key: w.key('acme', 'ci') })).body;
        expect(runs.executions).to.deep.equal([]);
        expect(await launchStatus(built.launchId)).to.equal('draft');
      });

      it('activate_workflow of a workflow with a launch step asks, showing the bound plan; a decline arms nothing, an accept arms it bound to the plan shown', async () => {
        const built = await buildLaunch(api(), { creativeId, title: 'Arm asked' });
        const wf = await createWorkflow(w, w.key('acme', 'ci'), shoes, {
          workflowName: 'Every morning',
          trigger: { kind: 'schedule', cron: '0 9 * * *', timezone: 'Europe/Paris' },
          nodes: [launchNode('go', built.launchId)],
        });
        const no = await asking(declined);
        const result = (await no.client.callTool({ name: 'activate_workflow', arguments: { brandId: shoes, workflowId: wf.workflowId } })) as ToolResult;
        await no.client.close();
        expect(no.questions).to.have.length(1);
        expect(no.questions[0])
          .to.match(/^Arm workflow \d+ "Every morning"/)
          .and.to.contain(`Step go: Publish launch ${built.launchId}`)
          .and.to.match(/act_1001: 50\.00 USD/);
        expect(result.isError).to.not.equal(true);
        expect(result.structuredContent).to.deep.include({ workflowId: wf.workflowId, armed: false, reason: 'declined', status: 'inactive' });
        expect(result.content.map((c) => c.text).join('\n')).to.match(/Nothing was armed: the person declined/);
        const read = async () => (await w.request('GET', `/v1/brands/${shoes}/workflows/${wf.workflowId}`, { key: w.key('acme', 'ci') })).body;
        expect((await read()).status, 'not armed').to.equal('inactive');
        const yes = await asking(accepted);
        const armed = (await yes.client.callTool({ name: 'activate_workflow', arguments: { brandId: shoes, workflowId: wf.workflowId } })) as ToolResult;
        await yes.client.close();
        expect(armed.isError, JSON.stringify(armed)).to.not.equal(true);
        expect(armed.structuredContent.status).to.equal('active');
        const shown = /Bound plan (\S+)\./.exec(yes.questions[0])![1];
        expect(armed.structuredContent.boundPlans[0]).to.deep.include({ nodeId: 'go', planFingerprint: shown });
      });

      it('run_workflow of a workflow without a launch step asks nothing', async () => {
        const wf = await createWorkflow(w, w.key('acme', 'ci'), shoes, { nodes: [reviewNode()] });
        const { client, questions } = await asking(declined);
        const result = (await client.callTool({ name: 'run_workflow', arguments: { brandId: shoes, workflowId: wf.workflowId } })) as ToolResult;
        await client.close();
        expect(questions).to.deep.equal([]);
        expect(result.structuredContent.executionId).to.be.a('number');
      });

      it('review_workflow_step approving a gate a launch step follows asks; a decline and silence leave the review pending', async () => {
        const built = await buildLaunch(api(), { creativeId, title: 'Review declined' });
        const wf = await createWorkflow(w, w.key('acme', 'ci'), shoes, { nodes: [reviewNode('gate'), launchNode('go', built.launchId)] });
        const exec = await runWorkflow(w, w.key('acme', 'ci'), shoes, wf.workflowId);
        await waitForExecution(w, w.key('acme', 'ci'), shoes, wf.workflowId, exec, (e) => e.status === 'waiting_review', 'the gate');
        for (const answer of [declined, 'silence'] as Answer[]) {
          // The reviewer is another person than the run's author.
          const { client, questions } = await asking(answer, 'ci2');
          const result = (await client.callTool({
            name: 'review_workflow_step',
            arguments: { brandId: shoes, workflowId: wf.workflowId, executionId: exec, nodeId: 'gate', decision: 'approve' },
          })) as ToolResult;
          await client.close();
          expect(questions).to.have.length(1);
          expect(questions[0])
            .to.match(/^Approve step gate of run \d+/)
            .and.to.contain('launch step "Publish"');
          expect(result.isError).to.not.equal(true);
          expect(result.structuredContent.executionId).to.equal(exec);
          expect(result.content.map((c) => c.text).join('\n')).to.match(/Nothing was approved: .*The review stays pending\./);
          const now = await waitForExecution(w, w.key('acme', 'ci'), shoes, wf.workflowId, exec, () => true, 'the run');
          expect(nodeOf(now, 'gate').status).to.equal('waiting_review');
        }
        expect(await launchStatus(built.launchId)).to.equal('draft');
        // An accept approves, and the run goes on to publish.
        const { client } = await asking(accepted, 'ci2');
        const result = (await client.callTool({
          name: 'review_workflow_step',
          arguments: { brandId: shoes, workflowId: wf.workflowId, executionId: exec, nodeId: 'gate', decision: 'approve' },
        })) as ToolResult;
        await client.close();
        expect(result.isError, JSON.stringify(result)).to.not.equal(true);
        await waitForExecution(w, w.key('acme', 'ci'), shoes, wf.workflowId, exec, (e) => e.status === 'succeeded', 'the approved run');
        expect(await launchStatus(built.launchId)).to.equal('published');
      });
    });
  });
}
