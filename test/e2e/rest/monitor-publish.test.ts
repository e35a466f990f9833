// Issue 43, finding 1: a monitor trigger moves money only when its automation run's cause holds
// `publish` (paths.md "Who may cause a publish"). The owner saves a monitor workflow whose step
// launches a launch; a read+write key edits and runs the automation: the run stops before the step
// with publish_scope_missing and nothing is published. Run by a publishing key, it publishes. A
// scheduled run is caused by whoever last saved the automation. A shadow run fires no trigger.

import { expect } from 'chai';
import { dialects } from '../../helpers/databases.js';
import type { World } from '../../helpers/world.js';
import { startOAuthWorld } from '../../helpers/oauth.js';
import { brandApi, buildLaunch, uploadCreative } from '../../helpers/launch-builders.js';
import { waitUntil } from '../../helpers/launches.js';
import { seedLiveLaunch } from '../../../src/launches/live-launch.js';
import { createWorkflow, finished, launchNode, nodeOf, waitForExecution, workflowWorld } from '../../helpers/workflows.js';

const ENV = { WEBHOOK_ALLOW_PRIVATE: 'true' };

for (const dialect of dialects()) {
  describe(`monitor workflows and the publish scope (${dialect})`, function () {
    this.timeout(90_000);
    let w: World;
    let shoes: number;
    let key: (ref: string) => string;
    let burner: string;
    let creativeId: number;
    const wfPath = (rest = '') => `/v1/brands/${shoes}/workflows${rest}`;

    before(async () => {
      w = await startOAuthWorld(dialect, workflowWorld, ENV);
      shoes = w.brandId('acme', 'shoes');
      key = (ref) => w.key('acme', ref);
      [{ objectId: burner }] = (
        await seedLiveLaunch(w.service.knex, {
          organizationId: w.seed.organizations.acme.id,
          brandId: shoes,
          accountId: 'act_1001',
          platform: 'meta',
          title: 'Monitored',
          at: Date.now() - 3 * 86_400_000,
          campaigns: [{ name: 'Burner - no results', dailyBudget: 20_000 }],
        })
      ).objects;
      creativeId = await uploadCreative(w, key('ci'), shoes);
    });
    after(async () => {
      await w?.close();
    });

    /** An automation that matches the burner now (paused, so only a run by hand or an arming runs it), saved by `saver`. */
    async function automation(saver: string, name: string, extra: Record<string, unknown> = {}): Promise<number> {
      const r = await w.request('POST', `/v1/brands/${shoes}/automations`, {
        key: key(saver),
        body: {
          automationName: name,
          accountId: 'act_1001',
          level: 'campaign',
          objectIds: [burner],
          action: 'notify',
          status: 'PAUSED',
          frequency: 'every_15_minutes',
          conditions: [{ metric: 'spend', window: 'yesterday', operator: 'gt', value: 100 }],
          ...extra,
        },
      });
      expect(r.status, JSON.stringify(r.body)).to.equal(201);
      return r.body.automationId;
    }

    /** The owner's armed monitor workflow on `automationId` whose one step launches a new launch; answers both ids. */
    async function monitorWorkflow(automationId: number, title: string): Promise<{ workflowId: number; launchId: string }> {
      const launch = await buildLaunch(brandApi(w, key('ci'), shoes), { creativeId, title });
      const wf = await createWorkflow(w, key('ci'), shoes, { trigger: { kind: 'monitor', automationId }, nodes: [launchNode('go', launch.launchId)] });
      const armed = await w.request('POST', wfPath(`/${wf.workflowId}/activate`), { key: key('ci'), body: {} });
      expect(armed.status, JSON.stringify(armed.body)).to.equal(200);
      return { workflowId: wf.workflowId, launchId: launch.launchId };
    }

    async function onlyExecution(workflowId: number): Promise<Record<string, any>> {
      await waitUntil(async () => (await w.request('GET', wfPath(`/${workflowId}`), { key: key('ci') })).body.runCount === 1, 'the monitor run', 20_000, 100);
      const exec = (await w.request('GET', wfPath(`/${workflowId}/executions`), { key: key('ci') })).body.executions[0];
      return waitForExecution(w, key('ci'), shoes, workflowId, exec.executionId, finished, 'the monitor run to end', 30_000);
    }

    const launchStatus = async (launchId: string) => (await w.request('GET', `/v1/brands/${shoes}/launches/${launchId}`, { key: key('ci') })).body.status;

    it('a read+write key that edits and runs the automation by hand: the run stops before the launch step (publish_scope_missing), nothing is published', async () => {
      const automationId = await automation('ci', 'Watch, run by a writer');
      const { workflowId, launchId } = await monitorWorkflow(automationId, 'Not through a monitor');
      const edited = await w.request('PATCH', `/v1/brands/${shoes}/automations/${automationId}`, {
        key: key('writer'),
        body: { conditions: [{ metric: 'spend', window: 'yesterday', operator: 'gt', value: 50 }] },
      });
      expect(edited.status, JSON.stringify(edited.body)).to.equal(200);
      const fired = await w.request('POST', `/v1/brands/${shoes}/automations/${automationId}/runs`, { key: key('writer'), body: {} });
      expect(fired.status, JSON.stringify(fired.body)).to.equal(201);
      expect(fired.body.objects[0]).to.include({ matched: true, action: 'notified' });
      const done = await onlyExecution(workflowId);
      expect(done.status).to.equal('failed');
      expect(done.trigger).to.include({ kind: 'monitor', automationId, causeCanPublish: false });
      expect(nodeOf(done, 'go').error.code, JSON.stringify(done)).to.equal('publish_scope_missing');
      expect(await launchStatus(launchId)).to.equal('draft');
    });

    it('the same, run by hand by a key holding publish: the launch step publishes', async () => {
      const automationId = await automation('writer', 'Watch, run by the owner');
      const { workflowId, launchId } = await monitorWorkflow(automationId, 'Through a monitor, by a publisher');
      const fired = await w.request('POST', `/v1/brands/${shoes}/automations/${automationId}/runs`, { key: key('ci'), body: {} });
      expect(fired.status, JSON.stringify(fired.body)).to.equal(201);
      const done = await onlyExecution(workflowId);
      expect(done.status, JSON.stringify(done)).to.equal('succeeded');
      expect(nodeOf(done, 'go').result.answer).to.include({ launchId, status: 'published' });
    });

    it('a scheduled run is caused by whoever last saved the automation: armed by a read+write key, the step stops', async () => {
      const automationId = await automation('ci', 'Watch, armed by a writer');
      const { workflowId, launchId } = await monitorWorkflow(automationId, 'Not through a schedule');
      // Arming is a save: the first scheduled run is at once.
      const armed = await w.request('PATCH', `/v1/brands/${shoes}/automations/${automationId}/status`, { key: key('writer'), body: { status: 'ACTIVE' } });
      expect(armed.status, JSON.stringify(armed.body)).to.equal(200);
      const done = await onlyExecution(workflowId);
      expect(done.trigger).to.include({ causeCanPublish: false });
      expect(nodeOf(done, 'go').error.code).to.equal('publish_scope_missing');
      expect(await launchStatus(launchId)).to.equal('draft');
      await w.request('PATCH', `/v1/brands/${shoes}/automations/${automationId}/status`, { key: key('ci'), body: { status: 'PAUSED' } });
    });

    it('a scheduled run of an automation last saved by a publishing key publishes', async () => {
      const automationId = await automation('writer', 'Watch, armed by the owner');
      const { workflowId, launchId } = await monitorWorkflow(automationId, 'Through a schedule');
      const armed = await w.request('PATCH', `/v1/brands/${shoes}/automations/${automationId}/status`, { key: key('ci'), body: { status: 'ACTIVE' } });
      expect(armed.status, JSON.stringify(armed.body)).to.equal(200);
      const done = await onlyExecution(workflowId);
      expect(done.status, JSON.stringify(done)).to.equal('succeeded');
      expect(await launchStatus(launchId)).to.equal('published');
      await w.request('PATCH', `/v1/brands/${shoes}/automations/${automationId}/status`, { key: key('ci'), body: { status: 'PAUSED' } });
    });

    it('a shadow run fires no trigger', async () => {
      const automationId = await automation('ci', 'Shadow watch', { mode: 'shadow' });
      const { workflowId, launchId } = await monitorWorkflow(automationId, 'Never through a shadow');
      const fired = await w.request('POST', `/v1/brands/${shoes}/automations/${automationId}/runs`, { key: key('ci'), body: {} });
      expect(fired.status, JSON.stringify(fired.body)).to.equal(201);
      expect(fired.body.objects[0]).to.include({ matched: true, skipReason: 'shadow' });
      // The outbox holds the shadow event; the workflows subscriber passes it by.
      const shadowEvent = async () =>
        (await w.service.knex('events').where({ type: 'automation.triggered' }).select('data')).some((r: any) => {
          const d = typeof r.data === 'string' ? JSON.parse(r.data) : r.data;
          return d.automationId === automationId && d.mode === 'shadow';
        });
      await waitUntil(shadowEvent, 'the shadow event', 10_000, 100);
      await new Promise((r) => setTimeout(r, 3000));
      expect((await w.request('GET', wfPath(`/${workflowId}`), { key: key('ci') })).body.runCount).to.equal(0);
      expect(await launchStatus(launchId)).to.equal('draft');
    });
  });
}
