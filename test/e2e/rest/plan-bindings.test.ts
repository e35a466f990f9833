// What a person confirmed is what a workflow publishes, over REST against a real listening server on
// both dialects (paths.md "Who may cause a publish"):
//   - a card moved with planFingerprint into a column whose workflow has a launch step binds that
//     run's launch step to the plan (a launch changed since: the step stops with stale_read and
//     publishes nothing; the plan still current: it publishes);
//   - a review gate lets one launch or budget step go on: a workflow where a gate is followed by
//     more than one is refused at save with a 400 naming the gate and the steps;
//   - an approval stores the plan the reviewer named and no other, even when the launch changes
//     while the approval reads it (the change is made from another process between the approval's
//     reads, at the moment its first read of the launch's nodes answers).

import { execFileSync } from 'node:child_process';
import { expect } from 'chai';
import { projectPath } from '../../../src/paths.js';
import { dialects } from '../../helpers/databases.js';
import type { World } from '../../helpers/world.js';
import { startWorld } from '../../helpers/world.js';
import { brandApi, buildLaunch, planFingerprintOf, uploadCreative } from '../../helpers/launch-builders.js';
import { waitUntil } from '../../helpers/launches.js';
import { createWorkflow, definition, finished, launchNode, nodeOf, reviewNode, runWorkflow, waitForExecution, workflowWorld } from '../../helpers/workflows.js';

/** Writes a node's properties from another process, synchronously: the server's event loop waits for it, so the change lands between two of its reads. */
function changeNodeFromOutside(databaseUrl: string, nodeId: string, properties: Record<string, unknown>): void {
  const script = `
    const { openDatabase } = await import(${JSON.stringify(projectPath('dist', 'src', 'db', 'connection.js'))});
    const { updateNodeProperties } = await import(${JSON.stringify(projectPath('dist', 'src', 'launches', 'store.js'))});
    const { knex } = openDatabase(process.env.CHANGE_DATABASE_URL);
    await updateNodeProperties(knex, process.env.CHANGE_NODE_ID, JSON.parse(process.env.CHANGE_PROPERTIES), Date.now());
    await knex.destroy();`;
  execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    env: { ...process.env, CHANGE_DATABASE_URL: databaseUrl, CHANGE_NODE_ID: nodeId, CHANGE_PROPERTIES: JSON.stringify(properties) },
    stdio: 'pipe',
    timeout: 30_000,
  });
}

for (const dialect of dialects()) {
  describe(`plans bound to what was confirmed, over REST (${dialect})`, function () {
    this.timeout(90_000);
    let w: World;
    let shoes: number;
    let creativeId: number;
    const key = (ref: string) => w.key('acme', ref);
    const api = (ref = 'ci') => brandApi(w, key(ref), shoes);
    const executions = async (workflowId: number) =>
      (await w.request('GET', `/v1/brands/${shoes}/workflows/${workflowId}/executions`, { key: key('ci') })).body.executions as Array<Record<string, any>>;
    const launchStatus = async (launchId: string) => (await api()('GET', `/launches/${launchId}`)).body.status;

    before(async () => {
      const world = structuredClone(workflowWorld);
      for (const k of world.organizations[0].apiKeys) if ('publishCeilingDollars' in k) k.publishCeilingDollars = 100_000;
      w = await startWorld({ dialect, bootstrap: world, env: { RATE_LIMIT_PER_MINUTE: '100000' } });
      shoes = w.brandId('acme', 'shoes');
      creativeId = await uploadCreative(w, key('ci'), shoes);
    });
    after(async () => w?.close());

    describe('a card moved with planFingerprint binds the run its column starts', () => {
      /** A launch, a workflow publishing the card's launch, a column linked to it, and the launch's card in another column. */
      async function cardBeforeColumn(title: string) {
        const built = await buildLaunch(api(), { creativeId, title });
        const wf = await createWorkflow(w, key('ci'), shoes, { workflowName: `Publish ${title}`, nodes: [launchNode('go', '$trigger.launchId')] });
        const backlog = (await api()('POST', '/pipeline/columns', { name: `Backlog ${title}` })).body.columnId;
        const column = (await api()('POST', '/pipeline/columns', { name: `Go ${title}`, workflowId: wf.workflowId })).body.columnId;
        const card = (await api()('POST', '/pipeline/cards', { launchId: built.launchId, columnId: backlog })).body;
        return { built, workflowId: wf.workflowId as number, column, card };
      }
      async function theRun(workflowId: number) {
        await waitUntil(async () => (await executions(workflowId)).length > 0, 'the run the card started', 15_000, 50);
        const [run] = await executions(workflowId);
        return waitForExecution(w, key('ci'), shoes, workflowId, run.executionId, finished, 'the run to finish');
      }

      it('a launch changed since the plan was shown: the launch step stops with stale_read and publishes nothing', async () => {
        const { built, workflowId, column, card } = await cardBeforeColumn('Changed');
        const shown = await planFingerprintOf(api(), built.launchId);
        const raised = await api('writer')('PATCH', `/launches/${built.launchId}/nodes/${built.campaignId}`, {
          properties: { budget: { dailyAmount: 40000 } },
        });
        expect(raised.status, JSON.stringify(raised.body)).to.equal(200);

        const moved = await api()('PATCH', `/pipeline/cards/${card.cardId}`, { columnId: column, version: card.version, planFingerprint: shown });
        expect(moved.status, JSON.stringify(moved.body)).to.equal(200);
        expect(moved.body.columnId).to.equal(column);
        const run = await theRun(workflowId);
        expect(run.trigger.confirmedPlan).to.deep.equal({ stepNodeId: 'go', planFingerprint: shown });
        expect(run.status, JSON.stringify(run)).to.equal('failed');
        expect(nodeOf(run, 'go').error.code).to.equal('stale_read');
        expect(await launchStatus(built.launchId)).to.equal('draft');
      });

      it('the plan still current: the run publishes it', async () => {
        const { built, workflowId, column, card } = await cardBeforeColumn('Current');
        const shown = await planFingerprintOf(api(), built.launchId);
        const moved = await api()('PATCH', `/pipeline/cards/${card.cardId}`, { columnId: column, version: card.version, planFingerprint: shown });
        expect(moved.status, JSON.stringify(moved.body)).to.equal(200);
        const run = await theRun(workflowId);
        expect(run.status, JSON.stringify(run)).to.equal('succeeded');
        expect(run.trigger.confirmedPlan).to.deep.equal({ stepNodeId: 'go', planFingerprint: shown });
        expect(nodeOf(run, 'go').result.answer).to.deep.include({ status: 'published', planFingerprint: shown });
      });
    });

    describe('a review gate lets one launch or budget step go on', () => {
      const save = (nodes: Array<Record<string, unknown>>, edges?: Array<Record<string, unknown>>) =>
        w.request('POST', `/v1/brands/${shoes}/workflows`, { key: key('ci'), body: definition({ nodes, edges }) });

      it('two launch steps after one gate: 400 naming the gate and both steps; nothing saved', async () => {
        const a = await buildLaunch(api(), { creativeId, title: 'First after gate' });
        const b = await buildLaunch(api(), { creativeId, title: 'Second after gate' });
        const before = (await w.request('GET', `/v1/brands/${shoes}/workflows?limit=100`, { key: key('ci') })).body.workflows.length;
        const refused = await save([reviewNode('review'), launchNode('first', a.launchId), launchNode('second', b.launchId)]);
        expect(refused.status, JSON.stringify(refused.body)).to.equal(400);
        expect(refused.body.error.code).to.equal('validation_failed');
        const [issue] = refused.body.error.details;
        expect(issue).to.deep.include({ field: 'nodes[review]', code: 'invalid_value' });
        expect(issue.message).to.contain('first').and.to.contain('second').and.to.contain('put a review gate before each');
        expect((await w.request('GET', `/v1/brands/${shoes}/workflows?limit=100`, { key: key('ci') })).body.workflows).to.have.length(before);

        // The same on save-workflow.
        const wf = await createWorkflow(w, key('ci'), shoes, { nodes: [reviewNode('review'), launchNode('first', a.launchId)] });
        const put = await w.request('PUT', `/v1/brands/${shoes}/workflows/${wf.workflowId}`, {
          key: key('ci'),
          body: { ...definition({ nodes: [reviewNode('review'), launchNode('first', a.launchId), launchNode('second', b.launchId)] }), version: wf.version },
        });
        expect(put.status, JSON.stringify(put.body)).to.equal(400);
        expect(put.body.error.details[0].field).to.equal('nodes[review]');
      });

      it('a launch and a budget step on the two branches of a condition after one gate: refused the same way', async () => {
        const a = await buildLaunch(api(), { creativeId, title: 'Branches' });
        const refused = await save(
          [
            reviewNode('review'),
            { nodeId: 'check', kind: 'condition', name: 'Approved?', settings: { source: 'review', path: 'decision', equals: 'approve' } },
            launchNode('go', a.launchId),
            { nodeId: 'raise', kind: 'budget', name: 'Raise', settings: { launchId: a.launchId, nodeId: a.campaignId, amount: 7000 } },
          ],
          [
            { from: 'review', to: 'check' },
            { from: 'check', to: 'go', when: true },
            { from: 'check', to: 'raise', when: false },
          ],
        );
        expect(refused.status, JSON.stringify(refused.body)).to.equal(400);
        expect(refused.body.error.details[0].field).to.equal('nodes[review]');
        expect(refused.body.error.details[0].message).to.contain('go').and.to.contain('raise');
      });

      it('a gate before each money step is saved, and each gate records the plan of its own step', async () => {
        const a = await buildLaunch(api(), { creativeId, title: 'Gate each A' });
        const b = await buildLaunch(api(), { creativeId, title: 'Gate each B' });
        const wf = await createWorkflow(w, key('ci'), shoes, {
          nodes: [reviewNode('review'), launchNode('first', a.launchId), reviewNode('again'), launchNode('second', b.launchId)],
        });
        const exec = await runWorkflow(w, key('ci'), shoes, wf.workflowId);
        const waiting = await waitForExecution(w, key('ci'), shoes, wf.workflowId, exec, (e) => e.status === 'waiting_review', 'the first gate');
        expect(nodeOf(waiting, 'review').plan).to.deep.include({ stepNodeId: 'first', launchId: a.launchId });
      });
    });

    describe('an approval stores the plan the reviewer named', () => {
      it('the launch changes while the approval reads it: the plan named is what is stored and the only plan the step may publish', async () => {
        const built = await buildLaunch(api(), { creativeId, title: 'Changed mid-approval' });
        const wf = await createWorkflow(w, key('ci'), shoes, { nodes: [reviewNode('review'), launchNode('go', built.launchId)] });
        const exec = await runWorkflow(w, key('ci'), shoes, wf.workflowId);
        await waitForExecution(w, key('ci'), shoes, wf.workflowId, exec, (e) => e.status === 'waiting_review', 'the gate');
        const reviews = `/v1/brands/${shoes}/workflows/${wf.workflowId}/executions/${exec}/reviews`;
        const campaign = (await api()('GET', `/launches/${built.launchId}`)).body.campaigns[0].node;

        // Changed while the gate waits: the reviewer is shown the plan now (409), and approves that one.
        await api('writer')('PATCH', `/launches/${built.launchId}/nodes/${built.campaignId}`, { properties: { budget: { dailyAmount: 6000 } } });
        const shown = await w.request('POST', reviews, { key: key('ci2'), body: { nodeId: 'review', decision: 'approve' } });
        expect(shown.status, JSON.stringify(shown.body)).to.equal(409);
        const named: string = shown.body.error.details.planFingerprint;

        // The launch changes again as soon as the approval's first read of its nodes has answered.
        const launchRow = Number(built.launchId);
        let changed = false;
        const onAnswer = (_response: unknown, q: { sql?: string; bindings?: unknown[] }) => {
          if (changed || !q.sql || !/^\s*select/i.test(q.sql) || !q.sql.includes('launch_nodes')) return;
          if (!(q.bindings ?? []).some((b) => Number(b) === launchRow)) return;
          changed = true;
          changeNodeFromOutside(w.db.url, built.campaignId, { ...campaign.properties, budget: { dailyAmount: 90000 } });
        };
        w.service.knex.on('query-response', onAnswer);
        let approved;
        try {
          approved = await w.request('POST', reviews, { key: key('ci2'), body: { nodeId: 'review', decision: 'approve', planFingerprint: named } });
        } finally {
          w.service.knex.off('query-response', onAnswer);
        }
        expect(changed, 'the launch was changed during the approval').to.equal(true);
        const afterChange = await planFingerprintOf(api(), built.launchId);
        expect(afterChange).to.not.equal(named);

        // The approval read the plan it names before the change: it stores that plan, and the step, bound to it, publishes nothing of the change.
        expect(approved.status, JSON.stringify(approved.body)).to.equal(200);
        expect(nodeOf(approved.body, 'review').plan.planFingerprint, 'the stored plan is the one the reviewer named').to.equal(named);
        expect(nodeOf(approved.body, 'review').plan.countedUsdCents).to.equal(6000);
        const done = await waitForExecution(w, key('ci'), shoes, wf.workflowId, exec, finished, 'the run to finish');
        expect(done.status, JSON.stringify(done)).to.equal('failed');
        expect(nodeOf(done, 'go').error.code).to.equal('stale_read');
        expect(await launchStatus(built.launchId), 'nothing but the named plan may be published').to.equal('draft');
      });
    });
  });
}
