// A step that already acted is not repeated: the run is left as a crash after the launch step
// published but before its result was recorded would leave it (node still running), and the step
// job then resumes it. The step calls launch-campaign again with the Idempotency-Key derived from
// (execution, node), so the first answer is replayed and nothing is published or counted twice.

import { expect } from 'chai';
import { dialects } from '../helpers/databases.js';
import { startWorld, type World } from '../helpers/world.js';
import { brandApi, buildLaunch, uploadCreative } from '../helpers/launch-builders.js';
import { createWorkflow, launchNode, runWorkflow, workflowWorld } from '../helpers/workflows.js';
import { principalOfApiKey } from '../../src/access/stored-principal.js';
import { stepKey } from '../../src/workflows/steps.js';

for (const dialect of dialects()) {
  describe(`workflow steps resumed after acting (${dialect})`, function () {
    this.timeout(60_000);
    let w: World;

    before(async () => {
      w = await startWorld({ dialect, bootstrap: workflowWorld, env: { JOBS: 'off' } });
    });
    after(async () => {
      await w?.close();
    });

    it('replays the launch a crashed step already published instead of publishing again', async () => {
      const shoes = w.brandId('acme', 'shoes');
      const ci = w.key('acme', 'ci');
      const api = brandApi(w, ci, shoes);
      const launch = await buildLaunch(api, { creativeId: await uploadCreative(w, ci, shoes), title: 'Acted before the crash' });
      const wf = await createWorkflow(w, ci, shoes, { nodes: [launchNode('go', launch.launchId)] });
      const exec = await runWorkflow(w, ci, shoes, wf.workflowId);

      // What the step did before the process died: the publish, under the step's own key.
      const knex = w.service.knex;
      const principal = await principalOfApiKey(knex, w.seed.organizations.acme.id, w.seed.organizations.acme.apiKeys.ci.id, Date.now());
      const acted = await w.service.invoke(
        'launch-campaign',
        principal,
        { brandId: shoes, launchId: launch.launchId, confirm: true },
        { requestId: 'before-crash', idempotencyKey: stepKey(Number(exec), 'go') },
      );
      expect(acted.status).to.equal(200);
      await knex('workflow_node_results')
        .where({ execution_id: Number(exec), node_id: 'go' })
        .update({ status: 'running', started_at: Date.now() });
      await knex('workflow_executions')
        .where({ id: Number(exec) })
        .update({ status: 'running' });

      await w.service.jobs.drain();
      const done = (await w.request('GET', `/v1/brands/${shoes}/workflows/${wf.workflowId}/executions/${exec}`, { key: ci })).body;
      expect(done.status, JSON.stringify(done)).to.equal('succeeded');
      expect(done.nodes[0].result).to.include({ operation: 'launch-campaign', replayed: true });
      expect(done.nodes[0].result.answer).to.deep.equal(acted.body);
      const events = await knex('events').where({ type: 'launch.published' });
      expect(events.filter((e: any) => JSON.parse(e.data).launchId === launch.launchId)).to.have.length(1);
      const commitments = await knex('spend_commitments').where({ launch_id: Number(launch.launchId) });
      expect(commitments).to.have.length(1);
    });
  });
}
