// Step kinds run by the step job with the job worker drained by hand: a condition routing on a
// review's decision, a review gate timing out, and a chat step refused by the webhook address
// policy when its address is private and private addresses are not allowed.

import { expect } from 'chai';
import { dialects } from '../helpers/databases.js';
import { startWorld, type World } from '../helpers/world.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';
import { chatNode, createWorkflow, nodeOf, reviewNode, runWorkflow, workflowWorld } from '../helpers/workflows.js';
import { wakeJob } from '../../src/jobs/queue/wake.js';

for (const dialect of dialects()) {
  describe(`workflow step kinds (${dialect})`, function () {
    this.timeout(60_000);
    let w: World;
    let chat: WebhookReceiver;
    let shoes: number;
    const key = (ref: string) => w.key('acme', ref);
    const execution = async (workflowId: number, exec: number) =>
      (await w.request('GET', `/v1/brands/${shoes}/workflows/${workflowId}/executions/${exec}`, { key: key('ci') })).body;

    before(async () => {
      chat = await new WebhookReceiver().start('/chat');
      w = await startWorld({ dialect, bootstrap: workflowWorld, env: { JOBS: 'off', WEBHOOK_ALLOW_PRIVATE: 'true' } });
      shoes = w.brandId('acme', 'shoes');
    });
    after(async () => {
      await w?.close();
      await chat?.close();
    });

    it('a condition follows the edge matching its test and skips the other branch', async () => {
      const wf = await createWorkflow(w, key('ci'), shoes, {
        nodes: [
          reviewNode('review'),
          { nodeId: 'approved', kind: 'condition', name: 'Approved?', settings: { source: 'review', path: 'decision', equals: 'approve' } },
          chatNode('yes', chat.url, 'approved'),
          chatNode('no', chat.url, 'not approved'),
        ],
        edges: [
          { from: 'review', to: 'approved' },
          { from: 'approved', to: 'yes', when: true },
          { from: 'approved', to: 'no', when: false },
        ],
      });
      const exec = await runWorkflow(w, key('ci'), shoes, wf.workflowId);
      await w.service.jobs.drain();
      expect((await execution(wf.workflowId, exec)).status).to.equal('waiting_review');
      const decided = await w.request('POST', `/v1/brands/${shoes}/workflows/${wf.workflowId}/executions/${exec}/reviews`, {
        key: key('ci2'),
        body: { nodeId: 'review', decision: 'approve' },
      });
      expect(decided.status).to.equal(200);
      await w.service.jobs.drain();
      const done = await execution(wf.workflowId, exec);
      expect(done.status).to.equal('succeeded');
      expect(nodeOf(done, 'approved').result).to.deep.equal({ value: true, tested: 'approve' });
      expect(nodeOf(done, 'yes').status).to.equal('succeeded');
      expect(nodeOf(done, 'no').status).to.equal('skipped');
      expect(chat.received.map((r) => (r.body as unknown as { text: string }).text)).to.deep.equal(['approved']);
    });

    it('a review gate that nobody decides before its timeout fails the run', async () => {
      const wf = await createWorkflow(w, key('ci'), shoes, { nodes: [reviewNode('review', { timeoutHours: 1 }), chatNode('tell', chat.url)] });
      const exec = await runWorkflow(w, key('ci'), shoes, wf.workflowId);
      await w.service.jobs.drain();
      const row = await w.service
        .knex('workflow_node_results')
        .where({ execution_id: Number(exec), node_id: 'review' })
        .first();
      expect(Number(row.deadline_at) - Date.now()).to.be.within(3_500_000, 3_600_000);
      const job = await w.service
        .knex('jobs')
        .where({ kind: 'run-workflow-step', job_key: String(exec) })
        .first();
      expect(Number(job.run_at), 'the step job is parked until the deadline').to.equal(Number(row.deadline_at));
      // An hour later: the deadline has passed when the job comes due.
      await w.service
        .knex('workflow_node_results')
        .where({ id: row.id })
        .update({ deadline_at: Date.now() - 1 });
      await wakeJob(w.service.knex, 'run-workflow-step', String(exec), Date.now());
      await w.service.jobs.drain();
      const done = await execution(wf.workflowId, exec);
      expect(done.status).to.equal('failed');
      expect(done.error.code).to.equal('review_timed_out');
      expect(nodeOf(done, 'review').status).to.equal('timed_out');
      expect(nodeOf(done, 'tell').status).to.equal('canceled');
    });

    it("a chat step's own private address is refused unless WEBHOOK_ALLOW_PRIVATE is set; CHAT_WEBHOOK_URL is the operator's and is called as given", async () => {
      const strict = await startWorld({ dialect, bootstrap: workflowWorld, env: { JOBS: 'off', CHAT_WEBHOOK_URL: chat.url } });
      try {
        const brand = strict.brandId('acme', 'shoes');
        const ci = strict.key('acme', 'ci');
        const saved = await strict.request('POST', `/v1/brands/${brand}/workflows`, {
          key: ci,
          body: { workflowName: 'Private', trigger: { kind: 'manual' }, nodes: [chatNode('tell', chat.url)], edges: [] },
        });
        expect(saved.status).to.equal(400);
        expect(saved.body.error.details[0].field).to.equal('nodes[tell].settings.webhookUrl');
        const wf = await createWorkflow(strict, ci, brand, { nodes: [{ nodeId: 'tell', kind: 'chat', name: 'Tell', settings: { message: 'hello' } }] });
        const exec = await runWorkflow(strict, ci, brand, wf.workflowId);
        const before = chat.received.length;
        await strict.service.jobs.drain();
        const done = (await strict.request('GET', `/v1/brands/${brand}/workflows/${wf.workflowId}/executions/${exec}`, { key: ci })).body;
        expect(done.status).to.equal('succeeded');
        expect(chat.received.length).to.equal(before + 1);
      } finally {
        await strict.close();
      }
    });
  });
}
