// Workflows with the other halves of the service, through the real operations: brief to live on the
// pipeline board (a card moved into a Review column linked to a workflow starts it; the review gate,
// approved by another member, lets a chat step tell the team), and an apply_template step whose
// draft launch the next step publishes as the run's key.

import { expect } from 'chai';
import { dialects } from '../../helpers/databases.js';
import { startWorld, type World } from '../../helpers/world.js';
import { WebhookReceiver } from '../../helpers/webhook-receiver.js';
import { brandApi, buildLaunch, uploadCreative } from '../../helpers/launch-builders.js';
import { waitUntil } from '../../helpers/launches.js';
import { templateBody, templatesWorld } from '../../helpers/structure-templates.js';
import { chatNode, createWorkflow, finished, nodeOf, reviewNode, runWorkflow, waitForExecution } from '../../helpers/workflows.js';

for (const dialect of dialects()) {
  describe(`workflows with the board and structure templates (${dialect})`, function () {
    this.timeout(60_000);
    let w: World;
    let chat: WebhookReceiver;

    before(async () => {
      chat = await new WebhookReceiver().start('/chat');
      w = await startWorld({ dialect, bootstrap: templatesWorld(), env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
    });
    after(async () => {
      await w?.close();
      await chat?.close();
    });

    it('brief to live: a card moved into the Review column starts its workflow; another member approves; the chat step tells the team', async () => {
      const shoes = w.brandId('acme', 'shoes');
      const ci = w.key('acme', 'ci');
      const api = brandApi(w, ci, shoes);
      const wf = await createWorkflow(w, ci, shoes, {
        workflowName: 'Review before going live',
        nodes: [reviewNode('review', { timeoutHours: 48 }), chatNode('tell', chat.url, '{{workflowName}}: launch {{launchId}} approved')],
      });
      const column = async (name: string, extra: Record<string, unknown> = {}) => {
        const r = await api('POST', '/pipeline/columns', { name, ...extra });
        expect(r.status, JSON.stringify(r.body)).to.equal(201);
        return r.body.columnId as number;
      };
      const draft = await column('Draft');
      const review = await column('Review', { workflowId: wf.workflowId });
      await column('Live', { publishes: true });
      const launch = await buildLaunch(api, { creativeId: await uploadCreative(w, ci, shoes), title: 'Spring brief' });
      const card = await api('POST', '/pipeline/cards', { launchId: launch.launchId, columnId: draft });
      expect(card.status, JSON.stringify(card.body)).to.equal(201);
      const moved = await api('PATCH', `/pipeline/cards/${card.body.cardId}`, { columnId: review, version: card.body.version });
      expect(moved.status, JSON.stringify(moved.body)).to.equal(200);

      let exec: Record<string, any> = {};
      await waitUntil(
        async () => {
          exec = (await api('GET', `/workflows/${wf.workflowId}/executions`)).body.executions[0] ?? {};
          return exec.status === 'waiting_review';
        },
        'the card to start the workflow',
        15_000,
        100,
      );
      expect(exec.trigger).to.include({ kind: 'pipeline_stage', launchId: launch.launchId, toColumnId: review });
      expect(exec.runsAs).to.equal('API key: CI key');

      const reviews = `/workflows/${wf.workflowId}/executions/${exec.executionId}/reviews`;
      expect((await api('POST', reviews, { nodeId: 'review', decision: 'approve' })).status, 'the author').to.equal(403);
      const ownKey = await brandApi(w, w.key('acme', 'limited'), shoes)('POST', reviews, { nodeId: 'review', decision: 'approve' });
      expect(ownKey.status, "another key of the author's person").to.equal(403);
      const approved = await brandApi(w, w.key('acme', 'reviewer'), shoes)('POST', reviews, { nodeId: 'review', decision: 'approve' });
      expect(approved.status, JSON.stringify(approved.body)).to.equal(200);
      const done = await waitForExecution(w, ci, shoes, wf.workflowId, exec.executionId, finished, 'the run to finish');
      expect(done.status).to.equal('succeeded');
      expect(chat.received.map((r) => (r.body as unknown as { text: string }).text)).to.deep.equal([
        `Review before going live: launch ${launch.launchId} approved`,
      ]);
    });

    it("an apply_template step makes a draft launch from a structure template and the next step publishes it as the run's key", async () => {
      const agency = w.brandId('acme', 'agency');
      const ci = w.key('acme', 'ci');
      const api = brandApi(w, ci, agency);
      const template = await api('POST', '/structure-templates', templateBody(await uploadCreative(w, ci, agency)));
      expect(template.status, JSON.stringify(template.body)).to.equal(201);
      const templateId = template.body.templateId ?? template.body.id;
      const wf = await createWorkflow(w, ci, agency, {
        nodes: [
          { nodeId: 'apply', kind: 'apply_template', name: 'Build the launch', settings: { templateId } },
          { nodeId: 'go', kind: 'launch', name: 'Publish it', settings: { launchId: '$nodes.apply.launchId' } },
        ],
      });
      const exec = await runWorkflow(w, ci, agency, wf.workflowId);
      const done = await waitForExecution(w, ci, agency, wf.workflowId, exec, finished, 'the template run');
      expect(done.status, JSON.stringify(done)).to.equal('succeeded');
      const made = nodeOf(done, 'apply').result;
      expect(made).to.include({ operation: 'apply-structure-template', status: 201 });
      const launchId = made.answer.launchId;
      expect(nodeOf(done, 'go').result.answer).to.include({ launchId: String(launchId), status: 'published' });
      expect((await api('GET', `/launches/${launchId}`)).body.status).to.equal('published');
    });
  });
}
