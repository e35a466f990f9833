// Issue 60, item 3, over REST on both dialects: arming a money workflow binds its plans. Activation
// (with publish) answers boundPlans (the launch's planFingerprint, a budget step's live change, the
// amounts); a scheduled run whose launch changed after activation publishes nothing, records
// stale_read, sends the chat notice and the workflow.failed event, and the workflow stays armed; the
// plan unchanged, it publishes. planFingerprints arms only for the plans shown (stale: 409, nothing
// armed), and a run started by hand binds its steps at its start.

import { expect } from 'chai';
import { dialects } from '../../helpers/databases.js';
import type { World } from '../../helpers/world.js';
import { startWorld } from '../../helpers/world.js';
import { brandApi, buildLaunch, planFingerprintOf, publish, uploadCreative } from '../../helpers/launch-builders.js';
import { waitUntil } from '../../helpers/launches.js';
import { WebhookReceiver } from '../../helpers/webhook-receiver.js';
import { createWorkflow, finished, launchNode, nodeOf, waitForExecution, workflowWorld } from '../../helpers/workflows.js';
import { scheduleRunAt } from '../../../src/workflows/schedule.js';

for (const dialect of dialects()) {
  describe(`arming a money workflow binds its plans, over REST (${dialect})`, function () {
    this.timeout(90_000);
    let w: World;
    let shoes: number;
    let creativeId: number;
    let chat: WebhookReceiver;
    const key = (ref: string) => w.key('acme', ref);
    const api = (ref = 'ci') => brandApi(w, key(ref), shoes);
    const wf = (workflowId: number, rest = '') => `/v1/brands/${shoes}/workflows/${workflowId}${rest}`;
    const launchStatus = async (launchId: string) => (await api()('GET', `/launches/${launchId}`)).body.status;

    before(async () => {
      chat = await new WebhookReceiver().start('/chat');
      const world = structuredClone(workflowWorld);
      for (const k of world.organizations[0].apiKeys) if ('publishCeilingDollars' in k) k.publishCeilingDollars = 100_000;
      w = await startWorld({ dialect, bootstrap: world, env: { RATE_LIMIT_PER_MINUTE: '100000', CHAT_WEBHOOK_URL: chat.url } });
      shoes = w.brandId('acme', 'shoes');
      creativeId = await uploadCreative(w, key('ci'), shoes);
    });
    after(async () => {
      await w?.close();
      await chat?.close();
    });

    /** A scheduled workflow (09:00 Paris) publishing a fresh $50 draft, armed by the ci key; answers the launch, the workflow and the activation. */
    async function armed(title: string) {
      const built = await buildLaunch(api(), { creativeId, title });
      const created = await createWorkflow(w, key('ci'), shoes, {
        trigger: { kind: 'schedule', cron: '0 9 * * *', timezone: 'Europe/Paris' },
        nodes: [launchNode('go', built.launchId)],
      });
      const activated = await w.request('POST', wf(created.workflowId, '/activate'), { key: key('ci'), body: {} });
      expect(activated.status, JSON.stringify(activated.body)).to.equal(200);
      return { built, workflowId: created.workflowId as number, activated: activated.body };
    }

    /** Makes the schedule's time come now and answers the run it starts, finished. */
    async function scheduledRun(workflowId: number) {
      await scheduleRunAt(w.service.knex, workflowId, Date.now() - 1000, Date.now());
      let exec: Record<string, any> | undefined;
      await waitUntil(
        async () => {
          exec = (await w.request('GET', wf(workflowId, '/executions'), { key: key('ci') })).body.executions[0];
          return exec !== undefined;
        },
        'the scheduled run',
        15_000,
        100,
      );
      return waitForExecution(w, key('ci'), shoes, workflowId, exec!.executionId, finished, 'the scheduled run to finish');
    }

    it('activation answers each money step bound to its plan now: the launch planFingerprint and the amounts', async () => {
      const { built, activated } = await armed('Bound at arming');
      expect(activated.status).to.equal('active');
      expect(activated.boundPlans).to.deep.equal([
        {
          nodeId: 'go',
          launchId: built.launchId,
          planFingerprint: await planFingerprintOf(api(), built.launchId),
          amounts: [{ accountId: 'act_1001', currency: 'USD', amountMinorUnits: 5000, countedUsdCents: 5000 }],
        },
      ]);
      // Read back while armed; none once disarmed.
      expect((await w.request('GET', wf(activated.workflowId), { key: key('ci') })).body.boundPlans).to.deep.equal(activated.boundPlans);
      const off = await w.request('POST', wf(activated.workflowId, '/deactivate'), { key: key('ci'), body: {} });
      expect(off.body.boundPlans).to.deep.equal([]);
    });

    it('a launch changed after activation: the scheduled run publishes nothing, records stale_read, notifies chat and emits workflow.failed; the workflow stays armed', async () => {
      const { built, workflowId } = await armed('Changed after arming');
      // A $300.00 a day plan nobody saw.
      const changed = await api()('PATCH', `/launches/${built.launchId}/nodes/${built.campaignId}`, { properties: { budget: { dailyAmount: 30000 } } });
      expect(changed.status, JSON.stringify(changed.body)).to.equal(200);
      const chatBefore = chat.received.length;
      const done = await scheduledRun(workflowId);
      expect(done.status).to.equal('failed');
      expect(nodeOf(done, 'go').error.code).to.equal('stale_read');
      expect(done.error.code).to.equal('stale_read');
      expect(await launchStatus(built.launchId), 'nothing published').to.equal('draft');
      await waitUntil(() => chat.received.length > chatBefore, 'the chat notice');
      const notice = (chat.received.at(-1)!.body as unknown as { text: string }).text;
      expect(notice).to.contain(`step go did not run`).and.to.contain(`launch ${built.launchId}`).and.to.contain('nothing was published');
      const events = await w.service.knex('events').where({ type: 'workflow.failed' });
      const mine = events.map((e) => JSON.parse(e.data)).find((d) => d.workflowId === workflowId);
      expect(mine).to.deep.include({ executionId: done.executionId, nodeId: 'go', launchId: built.launchId, code: 'stale_read' });
      expect((await w.request('GET', wf(workflowId), { key: key('ci') })).body.status, 'still armed').to.equal('active');
    });

    it('the plan unchanged since activation: the scheduled run publishes exactly it', async () => {
      const { built, workflowId, activated } = await armed('Unchanged');
      const done = await scheduledRun(workflowId);
      expect(done.status, JSON.stringify(done)).to.equal('succeeded');
      expect(done.trigger.boundPlans[0].planFingerprint).to.equal(activated.boundPlans[0].planFingerprint);
      expect(nodeOf(done, 'go').result.answer).to.deep.include({ status: 'published', planFingerprint: activated.boundPlans[0].planFingerprint });
      expect(await launchStatus(built.launchId)).to.equal('published');
    });

    it('planFingerprints arms only for the plans shown: a stale one answers 409 stale_read with the plans now and arms nothing', async () => {
      const built = await buildLaunch(api(), { creativeId, title: 'Shown plans' });
      const created = await createWorkflow(w, key('ci'), shoes, {
        trigger: { kind: 'schedule', cron: '0 9 * * *', timezone: 'Europe/Paris' },
        nodes: [launchNode('go', built.launchId)],
      });
      const shown = await planFingerprintOf(api(), built.launchId);
      await api()('PATCH', `/launches/${built.launchId}/nodes/${built.campaignId}`, { properties: { budget: { dailyAmount: 7000 } } });
      const stale = await w.request('POST', wf(created.workflowId, '/activate'), { key: key('ci'), body: { planFingerprints: [shown] } });
      expect(stale.status, JSON.stringify(stale.body)).to.equal(409);
      expect(stale.body.error.code).to.equal('stale_read');
      const now = await planFingerprintOf(api(), built.launchId);
      expect(stale.body.error.details.boundPlans[0]).to.deep.include({ nodeId: 'go', planFingerprint: now });
      expect((await w.request('GET', wf(created.workflowId), { key: key('ci') })).body.status, 'not armed').to.equal('inactive');
      const ok = await w.request('POST', wf(created.workflowId, '/activate'), { key: key('ci'), body: { planFingerprints: [now] } });
      expect(ok.status, JSON.stringify(ok.body)).to.equal(200);
      expect(ok.body.boundPlans[0].planFingerprint).to.equal(now);
    });

    it('activating a workflow with a budget step binds its live change; a key without publish arms nothing (403)', async () => {
      const built = await buildLaunch(api(), { creativeId, title: 'Budget armed' });
      await publish(api(), built.launchId);
      const created = await createWorkflow(w, key('ci'), shoes, {
        trigger: { kind: 'schedule', cron: '0 9 * * *', timezone: 'Europe/Paris' },
        nodes: [{ nodeId: 'raise', kind: 'budget', name: 'Raise', settings: { launchId: built.launchId, nodeId: built.campaignId, amount: 6500 } }],
      });
      const refused = await w.request('POST', wf(created.workflowId, '/activate'), { key: key('writer'), body: {} });
      expect(refused.status, JSON.stringify(refused.body)).to.equal(403);
      expect(refused.body.error.details).to.deep.equal({ requiredScope: 'publish' });
      const on = await w.request('POST', wf(created.workflowId, '/activate'), { key: key('ci'), body: {} });
      expect(on.status, JSON.stringify(on.body)).to.equal(200);
      const [plan] = on.body.boundPlans;
      expect(plan).to.deep.include({
        nodeId: 'raise',
        launchId: built.launchId,
        amounts: [{ accountId: 'act_1001', currency: 'USD', amountMinorUnits: 6500, countedUsdCents: 6500 }],
      });
      expect(plan.planFingerprint, "the change's own, not the launch's").to.not.equal(await planFingerprintOf(api(), built.launchId));
      const done = await scheduledRun(created.workflowId);
      expect(done.status, JSON.stringify(done)).to.equal('succeeded');
      expect(nodeOf(done, 'raise').result.answer).to.deep.include({ amountMinorUnits: 6500 });
    });

    it('a run started by hand binds at its start: the plans of its money steps then are in its trigger.boundPlans', async () => {
      const built = await buildLaunch(api(), { creativeId, title: 'Manual bound' });
      const created = await createWorkflow(w, key('ci'), shoes, {
        nodes: [{ nodeId: 'wait', kind: 'review', name: 'Wait', settings: {} }, launchNode('go', built.launchId)],
      });
      const started = await w.request('POST', wf(created.workflowId, '/runs'), { key: key('ci'), body: {} });
      expect(started.status, JSON.stringify(started.body)).to.equal(202);
      expect(started.body.trigger.boundPlans[0]).to.deep.include({ nodeId: 'go', planFingerprint: await planFingerprintOf(api(), built.launchId) });
    });
  });
}
