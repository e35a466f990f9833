// Money moves only for a credential that holds publish, whoever's workflow does the moving, against a
// real listening server: a key without publish placing cards where a launching workflow would start
// (linked or by trigger, active or not) gets the card placed with publish_scope_missing, no run and
// the launch still a draft; running such a workflow is 403; the owner's own move still publishes.

import { expect } from 'chai';
import { dialects } from '../../helpers/databases.js';
import { startWorld, type World } from '../../helpers/world.js';
import { brandApi, buildLaunch, uploadCreative, type Api } from '../../helpers/launch-builders.js';
import { boardWorld, eventsOf } from '../../helpers/board.js';
import { createWorkflow, finished, launchNode, waitForExecution } from '../../helpers/workflows.js';
import { waitUntil } from '../../helpers/launches.js';

const REFUSED = { attempted: false, published: false, reason: 'publish_scope_missing' };

for (const dialect of dialects()) {
  describe(`who may cause a publish: the board and workflows (${dialect})`, function () {
    this.timeout(90_000);
    let w: World;
    let shoes: number;
    let owner: Api;
    let editor: Api;
    let creativeId: number;

    before(async () => {
      w = await startWorld({ dialect, bootstrap: boardWorld });
      shoes = w.brandId('acme', 'shoes');
      owner = brandApi(w, w.key('acme', 'ci'), shoes);
      editor = brandApi(w, w.key('acme', 'editor'), shoes);
      creativeId = await uploadCreative(w, w.key('acme', 'ci'), shoes);
    });
    after(async () => {
      await w?.close();
    });

    const column = async (name: string, extra: Record<string, unknown> = {}) => {
      const r = await owner('POST', '/pipeline/columns', { name, ...extra });
      expect(r.status, JSON.stringify(r.body)).to.equal(201);
      return r.body.columnId as number;
    };
    /** A workflow whose one step publishes the card's launch, saved by the owner (who holds publish). */
    const launching = async (name: string, trigger: Record<string, unknown> = { kind: 'manual' }) =>
      (await createWorkflow(w, w.key('acme', 'ci'), shoes, { workflowName: name, trigger, nodes: [launchNode('go', '$trigger.launchId')] }))
        .workflowId as number;
    const activate = async (workflowId: number) => {
      const r = await owner('POST', `/workflows/${workflowId}/activate`, {});
      expect(r.status, JSON.stringify(r.body)).to.equal(200);
    };
    const executions = async (workflowId: number) => (await owner('GET', `/workflows/${workflowId}/executions`)).body.executions as Array<Record<string, any>>;
    const status = async (launchId: string) => (await owner('GET', `/launches/${launchId}`)).body.status as string;
    const draftLaunch = async (title: string) => (await buildLaunch(owner, { creativeId, title })).launchId;

    it('places the no-publish key’s cards with publish_scope_missing and starts nothing; running is 403; the owner’s move publishes', async () => {
      const draft = await column('Draft');
      const linkedInactive = await launching('Linked, inactive');
      const linkedActive = await launching('Linked, active');
      await activate(linkedActive);
      const toLinkedInactive = await column('Go (inactive workflow)', { workflowId: linkedInactive });
      const toLinkedActive = await column('Go (active workflow)', { workflowId: linkedActive });
      const toStageActive = await column('Go (trigger, active)');
      const toStageInactive = await column('Go (trigger, inactive)');
      const stageActive = await launching('Stage, active', { kind: 'pipeline_stage', columnId: toStageActive });
      await activate(stageActive);
      const stageInactive = await launching('Stage, inactive', { kind: 'pipeline_stage', columnId: toStageInactive });
      const workflows = [linkedInactive, linkedActive, stageActive, stageInactive];

      // Created straight into the column, and moved into it from a plain one.
      const editorLaunches: string[] = [];
      for (const [i, to] of [toLinkedInactive, toLinkedActive, toStageActive, toStageInactive].entries()) {
        const created = await draftLaunch(`Editor's own ${i} (created)`);
        editorLaunches.push(created);
        const card = await editor('POST', '/pipeline/cards', { launchId: created, columnId: to });
        expect(card.status, JSON.stringify(card.body)).to.equal(201);
        expect(card.body.columnId).to.equal(to);
        expect(card.body.publish).to.deep.equal(REFUSED);

        const moved = await draftLaunch(`Editor's own ${i} (moved)`);
        editorLaunches.push(moved);
        const start = await editor('POST', '/pipeline/cards', { launchId: moved, columnId: draft });
        expect(start.status, JSON.stringify(start.body)).to.equal(201);
        expect(start.body.publish, 'a plain column is not a publish').to.deep.equal({ attempted: false, published: false, reason: null });
        const move = await editor('PATCH', `/pipeline/cards/${start.body.cardId}`, { columnId: to, version: start.body.version });
        expect(move.status, JSON.stringify(move.body)).to.equal(200);
        expect(move.body.columnId).to.equal(to);
        expect(move.body.publish).to.deep.equal(REFUSED);
      }

      // The events say who placed each card and that they could not publish.
      const placed = (await eventsOf(w, 'pipeline.card.moved', shoes)).filter((e) => editorLaunches.includes(e.launchId));
      expect(placed).to.have.length(12);
      expect(placed.every((e) => e.movedBy === 'API key: Board editor' && e.canPublish === false)).to.equal(true);

      // Running a launching workflow without publish: 403 before anything is written.
      for (const workflowId of [linkedInactive, linkedActive]) {
        const run = await editor('POST', `/workflows/${workflowId}/runs`, { launchId: editorLaunches[0] });
        expect(run.status, JSON.stringify(run.body)).to.equal(403);
        expect(run.body.error.code).to.equal('insufficient_scope');
        expect(run.body.error.details).to.deep.equal({ requiredScope: 'publish' });
      }

      // The owner's move into the column of the inactive linked workflow runs it and publishes. Events are
      // handled in order, so once this run exists every earlier placing has been handled too.
      const ownLaunch = await draftLaunch('Owner’s launch');
      const card = await owner('POST', '/pipeline/cards', { launchId: ownLaunch, columnId: draft });
      expect(card.status, JSON.stringify(card.body)).to.equal(201);
      const move = await owner('PATCH', `/pipeline/cards/${card.body.cardId}`, { columnId: toLinkedInactive, version: card.body.version });
      expect(move.status, JSON.stringify(move.body)).to.equal(200);
      expect(move.body.publish, 'not a publishing column: the workflow publishes').to.deep.equal({ attempted: false, published: false, reason: null });
      let runs: Array<Record<string, any>> = [];
      await waitUntil(async () => (runs = await executions(linkedInactive)).length > 0, 'the owner’s move to start the linked workflow', 20_000, 100);
      const done = await waitForExecution(w, w.key('acme', 'ci'), shoes, linkedInactive, runs[0].executionId, finished, 'the owner’s run');
      expect(done.status, JSON.stringify(done)).to.equal('succeeded');
      expect(done.trigger).to.include({ kind: 'pipeline_stage', launchId: ownLaunch });
      expect(await status(ownLaunch)).to.equal('published');

      expect(await executions(linkedInactive)).to.have.length(1);
      for (const workflowId of workflows.slice(1)) expect(await executions(workflowId), `workflow ${workflowId}`).to.have.length(0);
      for (const launchId of editorLaunches) expect(await status(launchId), `launch ${launchId}`).to.equal('draft');
      const ownEvent = (await eventsOf(w, 'pipeline.card.moved', shoes)).filter((e) => e.launchId === ownLaunch).at(-1);
      expect(ownEvent).to.include({ movedBy: 'API key: CI key', canPublish: true, toColumnId: toLinkedInactive });
    });
  });
}
