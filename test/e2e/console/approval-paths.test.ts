// Issue 60, item 4 (the rest of it), on both dialects, through the real REST server, the MCP SDK's
// Client and headless Chromium: in an organization whose agentPublishes is `person`, every money
// path an agent's key takes waits for a person (a live budget, a live status, saving an automation
// that resumes, arming a money workflow, approving a review gate a launch step follows), each
// answered 202 with an approval of its own kind, planFingerprint and amounts, which the console
// page shows with what it spends. Approving carries out exactly that change; a change made since
// makes the approval stale and moves nothing. The decision route on REST takes a signed-in person's
// session (cookie and X-CSRF-Token) and refuses every bearer credential with the console address.
// approval.requested and approval.decided reach a Standard Webhooks receiver and chat; the
// expire-approvals job expires what nobody decided. An MCP client that declares URL-mode
// elicitation is sent to the console page and its call waits for the decision.

import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { ElicitRequestSchema, type ElicitRequest } from '@modelcontextprotocol/sdk/types.js';
import { dialects } from '../../helpers/databases.js';
import { startWorld, type World } from '../../helpers/world.js';
import { launchBrowser } from '../../helpers/browser.js';
import { consoleEnv, consoleWorld, persona, signIn, texts, waitFor, type Persona } from '../../helpers/console.js';
import { mcpClient, type ToolResult } from '../../helpers/mcp.js';
import { brandApi, buildLaunch, idem, publish, uploadCreative, type BuiltLaunch } from '../../helpers/launch-builders.js';
import { WebhookReceiver } from '../../helpers/webhook-receiver.js';
import { createWorkflow, launchNode, nodeOf, reviewNode, runWorkflow, waitForExecution } from '../../helpers/workflows.js';

describe('every money path waits for a person (agentPublishes person)', function () {
  this.timeout(300_000);
  let browser: Browser;
  before(async () => {
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
  });

  for (const dialect of dialects()) {
    describe(`approvals of each kind (${dialect})`, () => {
      let w: World;
      let shoes: number;
      let creativeId: number;
      let hooks: WebhookReceiver;
      let chat: WebhookReceiver;
      let olive: Persona;
      const live: Record<'budget' | 'status' | 'mcp' | 'mcpLate', BuiltLaunch> = {} as never;
      const agent = () => w.key('acme', 'agent');
      const api = (key = agent()) => brandApi(w, key, shoes);

      before(async () => {
        hooks = await new WebhookReceiver().start();
        chat = await new WebhookReceiver().start('/chat');
        w = await startWorld({
          dialect,
          bootstrap: consoleWorld,
          env: { ...consoleEnv, WEBHOOK_ALLOW_PRIVATE: 'true', MCP_CONFIRM_TIMEOUT_S: '8', CHAT_WEBHOOK_URL: chat.url },
        });
        shoes = w.brandId('acme', 'shoes');
        creativeId = await uploadCreative(w, agent(), shoes);
        // Published while the organization still lets keys publish: the live objects the paths change.
        for (const k of ['budget', 'status', 'mcp', 'mcpLate'] as const) {
          live[k] = await buildLaunch(api(), { creativeId, title: `Live ${k}` });
          await publish(api(), live[k].launchId);
        }
        const endpoint = await w.request('POST', '/v1/webhook-endpoints', {
          key: w.key('acme', 'ci'),
          body: { url: hooks.url, events: ['approval.requested', 'approval.decided'] },
        });
        expect(endpoint.status, JSON.stringify(endpoint.body)).to.equal(201);
        hooks.secrets.push(endpoint.body.secret);
        await w.service.knex('organizations').update({ agent_publishes: 'person' });
        olive = await persona(browser, w.url);
        await signIn(olive, w.url, 'owner', '/console');
      });
      after(async () => {
        await olive?.context.close();
        await hooks?.close();
        await chat?.close();
        await w?.close();
      });

      const approval = async (id: number) => (await api()('GET', `/approvals/${id}`)).body;
      const campaignOnPlatform = async (b: BuiltLaunch) => {
        const l = (await api()('GET', `/launches/${b.launchId}`)).body;
        const node = l.campaigns[0].node;
        const r = await api()('GET', `/ad-accounts/act_1101/campaigns?limit=100`);
        return { node, platform: r.body.campaigns.find((c: { id: string }) => c.id === node.platformId) };
      };
      const delivered = (type: string, approvalId: number, status?: string) =>
        waitFor(
          async () =>
            hooks.received.some(
              (r) => r.body.type === type && r.body.data.approvalId === approvalId && (status === undefined || r.body.data.status === status),
            ),
          `${type} ${status ?? ''} of approval ${approvalId} delivered`,
        );
      const chatTexts = () => chat.received.map((r) => String((r.body as unknown as { text: string }).text));
      const chatted = (fragment: string) =>
        waitFor(async () => chatTexts().some((t) => t.includes(fragment)), `chat saying "${fragment}" (got ${JSON.stringify(chatTexts())})`);

      /** Opens the approval's console page as the owner. */
      async function page(id: number) {
        await olive.page.goto(`${w.url}/console/brands/${shoes}/approvals/${id}`);
        return olive.page;
      }

      /** Approve, then Confirm (naming the amount), on the owner's console page. */
      async function approveInConsole(id: number, amount: string) {
        const p = await page(id);
        await p.click('#approve');
        expect(await p.locator('#confirm').innerText()).to.contain(amount);
        await Promise.all([p.waitForURL(/notice=approved/), p.click('#confirm')]);
      }

      /** POST .../decision from the owner's signed-in browser session (fetch on a console page), with the session's CSRF token unless told otherwise. */
      async function decideFromSession(id: number, body: Record<string, unknown>, csrf: 'send' | 'omit' = 'send') {
        if (!olive.page.url().startsWith(`${w.url}/console`)) await olive.page.goto(`${w.url}/console`);
        const token = await olive.page.locator('input[name=csrf_token]').first().inputValue();
        return olive.page.evaluate(
          async ({ url, body, token }) => {
            const r = await fetch(url, {
              method: 'POST',
              headers: { 'content-type': 'application/json', ...(token ? { 'x-csrf-token': token } : {}) },
              body: JSON.stringify(body),
            });
            return { status: r.status, body: await r.json() };
          },
          { url: `/v1/brands/${shoes}/approvals/${id}/decision`, body, token: csrf === 'send' ? token : null },
        );
      }

      it("an agent's live budget waits (live_budget, the change's fingerprint, the amount); the console shows from and to; approved, the budget is set as planned", async () => {
        const b = live.budget;
        const asked = await api()(
          'POST',
          `/launches/${b.launchId}/nodes/${b.campaignId}/live-budget`,
          { level: 'CAMPAIGN', budgetType: 'daily', amount: 7500 },
          idem('budget'),
        );
        expect(asked.status, JSON.stringify(asked.body)).to.equal(202);
        expect(asked.body).to.deep.include({ kind: 'live_budget', status: 'waiting', nodeId: b.campaignId, launchId: b.launchId });
        expect(asked.body.amounts).to.deep.equal([{ accountId: 'act_1101', currency: 'USD', amountMinorUnits: 7500, countedUsdCents: 7500 }]);
        expect(asked.body.plan.change).to.deep.include({
          field: 'budget',
          from: { period: 'daily', amountMinorUnits: 5000 },
          to: { period: 'daily', amountMinorUnits: 7500 },
        });
        expect((await campaignOnPlatform(b)).node.properties.budget, 'nothing changed yet').to.deep.equal({ dailyAmount: 5000 });
        const p = await page(asked.body.approvalId);
        const does = await p.locator('#approval-does').innerText();
        expect(does).to.contain('from $50.00 a day to $75.00 a day');
        expect(await texts(p, '#approval-amounts td')).to.include.members(['act_1101', '$75.00']);
        await approveInConsole(asked.body.approvalId, '$75.00');
        const after = await approval(asked.body.approvalId);
        expect(after).to.deep.include({ status: 'approved', decidedBy: 'Olive Owner' });
        expect(after.result).to.deep.include({ nodeId: b.campaignId, amountMinorUnits: 7500 });
        expect((await campaignOnPlatform(b)).node.properties.budget).to.deep.equal({ dailyAmount: 7500 });
        await delivered('approval.requested', asked.body.approvalId);
        await delivered('approval.decided', asked.body.approvalId, 'approved');
        const requested = hooks.received.find((r) => r.body.type === 'approval.requested' && r.body.data.approvalId === asked.body.approvalId)!;
        expect(requested.verifiedWith).to.deep.equal([0]);
        expect(requested.body.data).to.deep.include({ kind: 'live_budget', nodeId: b.campaignId, planFingerprint: asked.body.planFingerprint });
        await chatted(
          `API key: Ada agent asks to change a live budget (launch ${b.launchId}, node ${b.campaignId}), spending 75.00 USD on act_1101. Approval ${asked.body.approvalId}`,
        );
        await chatted(`Approval ${asked.body.approvalId} (change a live budget (launch ${b.launchId}, node ${b.campaignId})) was approved by Olive Owner.`);
      });

      it('a live status waits (live_status); decided over REST from a session it is stale after a change since (409, nothing sent); bearer credentials are refused with the console address', async () => {
        const b = live.status;
        const paused = await api()('PATCH', `/launches/${b.launchId}/nodes/${b.campaignId}`, { properties: { status: 'PAUSED' } });
        expect(paused.status, JSON.stringify(paused.body)).to.equal(202);
        expect(paused.body).to.deep.include({ kind: 'live_status', status: 'waiting', amounts: [] });
        expect(paused.body.plan.change).to.deep.include({ field: 'status', from: 'ACTIVE', to: 'PAUSED' });
        const p = await page(paused.body.approvalId);
        expect(await p.locator('#approval-does').innerText()).to.contain('from ACTIVE to PAUSED');
        // A bearer credential never decides, valid or not; the answer names the console page.
        for (const key of [w.key('acme', 'ci'), agent()]) {
          const byKey = await w.request('POST', `/v1/brands/${shoes}/approvals/${paused.body.approvalId}/decision`, {
            key,
            body: { decision: 'approve', planFingerprint: paused.body.planFingerprint },
          });
          expect(byKey.status, JSON.stringify(byKey.body)).to.equal(403);
          expect(byKey.body.error.code).to.equal('forbidden');
          expect(byKey.body.error.message).to.contain(`signed in to the console`).and.contain(paused.body.consoleUrl);
        }
        const anonymous = await w.request('POST', `/v1/brands/${shoes}/approvals/${paused.body.approvalId}/decision`, {
          body: { decision: 'approve', planFingerprint: paused.body.planFingerprint },
        });
        expect(anonymous.status, JSON.stringify(anonymous.body)).to.equal(401);
        const noToken = await decideFromSession(paused.body.approvalId, { decision: 'approve', planFingerprint: paused.body.planFingerprint }, 'omit');
        expect(noToken.status, JSON.stringify(noToken.body)).to.equal(403);
        expect(noToken.body.error.message).to.contain('X-CSRF-Token');
        // The session's cookie and token sent from another site's page (its Origin) decide nothing either.
        const cookie = (await olive.context.cookies(w.url)).find((c) => c.name === 'svc_session')!;
        const token = await olive.page.locator('input[name=csrf_token]').first().inputValue();
        const crossSite = await fetch(`${w.url}/v1/brands/${shoes}/approvals/${paused.body.approvalId}/decision`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', cookie: `svc_session=${cookie.value}`, 'x-csrf-token': token, origin: 'https://elsewhere.example' },
          body: JSON.stringify({ decision: 'approve', planFingerprint: paused.body.planFingerprint }),
        });
        expect(crossSite.status).to.equal(403);
        expect(((await crossSite.json()) as { error: { message: string } }).error.message).to.contain('https://elsewhere.example');
        expect((await approval(paused.body.approvalId)).status, 'nothing decided').to.equal('waiting');

        // Another approved change of the same campaign (its budget) changes what the status approval named.
        const budget = await api()(
          'POST',
          `/launches/${b.launchId}/nodes/${b.campaignId}/live-budget`,
          { level: 'CAMPAIGN', budgetType: 'daily', amount: 6000 },
          idem('b2'),
        );
        expect(budget.status).to.equal(202);
        const first = await decideFromSession(budget.body.approvalId, { decision: 'approve', planFingerprint: budget.body.planFingerprint });
        expect(first.status, JSON.stringify(first.body)).to.equal(200);
        expect(first.body).to.deep.include({ status: 'approved', decidedBy: 'Olive Owner' });

        const stale = await decideFromSession(paused.body.approvalId, { decision: 'approve', planFingerprint: paused.body.planFingerprint });
        expect(stale.status, JSON.stringify(stale.body)).to.equal(409);
        expect(stale.body.error.code).to.equal('stale_read');
        expect(stale.body.error.message).to.contain('nothing was done, and the approval is stale');
        expect((await approval(paused.body.approvalId)).status).to.equal('stale');
        const now = await campaignOnPlatform(b);
        expect(now.platform.status, 'nothing sent').to.equal('ACTIVE');
        await delivered('approval.decided', paused.body.approvalId, 'stale');
        // Asked again against the campaign as it is now, approved: the status is set on the ad platform.
        const again = await api()('PATCH', `/launches/${b.launchId}/nodes/${b.campaignId}`, { properties: { status: 'PAUSED' } });
        expect(again.status, JSON.stringify(again.body)).to.equal(202);
        expect(again.body.planFingerprint).to.not.equal(paused.body.planFingerprint);
        const done = await decideFromSession(again.body.approvalId, { decision: 'approve', planFingerprint: again.body.planFingerprint });
        expect(done.status, JSON.stringify(done.body)).to.equal(200);
        expect(done.body.result).to.deep.include({ id: b.campaignId });
        expect((await campaignOnPlatform(b)).platform.status).to.equal('PAUSED');
      });

      it('saving an automation that resumes waits (resume, its rule on the page); rejected, nothing is saved', async () => {
        const before = (await api()('GET', '/automations')).body.automations.length;
        const asked = await api()('POST', '/automations', {
          automationName: 'Pause and resume',
          accountId: 'act_1101',
          level: 'campaign',
          action: 'pause',
          status: 'PAUSED',
          resumeWhenClear: true,
          conditions: [{ metric: 'spend', window: 'today', operator: 'gt', value: 100000 }],
        });
        expect(asked.status, JSON.stringify(asked.body)).to.equal(202);
        expect(asked.body).to.deep.include({ kind: 'resume', status: 'waiting', amounts: [] });
        expect(asked.body.plan.rule).to.deep.include({ automationName: 'Pause and resume', resumeWhenClear: true });
        const p = await page(asked.body.approvalId);
        expect(await texts(p, '#approval-rule td')).to.include.members(['“Pause and resume” (new)', 'act_1101']);
        expect(await p.locator('#approval-does').innerText()).to.contain('resumes paused objects');
        await Promise.all([p.waitForURL(/notice=rejected/), p.click('#reject')]);
        expect((await approval(asked.body.approvalId)).status).to.equal('rejected');
        expect((await api()('GET', '/automations')).body.automations.length, 'nothing saved').to.equal(before);
        await delivered('approval.decided', asked.body.approvalId, 'rejected');
      });

      it('arming a money workflow waits (arm_workflow, each bound plan and its amounts); approved, it is armed', async () => {
        const draft = await buildLaunch(api(), { creativeId, title: 'Armed later' });
        const wf = await createWorkflow(w, w.key('acme', 'ci'), shoes, {
          workflowName: 'Morning publish',
          trigger: { kind: 'schedule', cron: '0 9 * * *', timezone: 'UTC' },
          nodes: [launchNode('publish', draft.launchId)],
        });
        const asked = await api()('POST', `/workflows/${wf.workflowId}/activate`, {});
        expect(asked.status, JSON.stringify(asked.body)).to.equal(202);
        expect(asked.body).to.deep.include({ kind: 'arm_workflow', status: 'waiting' });
        expect(asked.body.amounts).to.deep.equal([{ accountId: 'act_1101', currency: 'USD', amountMinorUnits: 5000, countedUsdCents: 5000 }]);
        expect(asked.body.plan.boundPlans[0]).to.deep.include({ nodeId: 'publish', launchId: draft.launchId });
        expect((await api()('GET', `/workflows/${wf.workflowId}`)).body.status, 'not armed yet').to.equal('inactive');
        const p = await page(asked.body.approvalId);
        expect(await texts(p, '#approval-steps td')).to.include.members(['publish', draft.launchId, '$50.00']);
        await approveInConsole(asked.body.approvalId, '$50.00');
        const armed = (await api()('GET', `/workflows/${wf.workflowId}`)).body;
        expect(armed.status).to.equal('active');
        expect((await approval(asked.body.approvalId)).result).to.deep.include({ status: 'active' });
      });

      it("an agent's approval of a review gate a launch step follows waits (review); approved by the owner, the run goes on", async () => {
        const draft = await buildLaunch(api(), { creativeId, title: 'Reviewed' });
        const ci = w.key('acme', 'ci');
        const wf = await createWorkflow(w, ci, shoes, {
          workflowName: 'Reviewed publish',
          nodes: [reviewNode('review'), launchNode('publish', draft.launchId)],
        });
        const executionId = await runWorkflow(w, ci, shoes, wf.workflowId);
        await waitForExecution(w, ci, shoes, wf.workflowId, executionId, (e) => e.status === 'waiting_review', 'the gate');
        const asked = await api()('POST', `/workflows/${wf.workflowId}/executions/${executionId}/reviews`, { nodeId: 'review', decision: 'approve' });
        expect(asked.status, JSON.stringify(asked.body)).to.equal(202);
        expect(asked.body).to.deep.include({ kind: 'review', status: 'waiting', launchId: draft.launchId });
        expect(asked.body.amounts).to.deep.equal([{ accountId: 'act_1101', currency: 'USD', amountMinorUnits: 5000, countedUsdCents: 5000 }]);
        const waiting = await waitForExecution(w, ci, shoes, wf.workflowId, executionId, (e) => e.status === 'waiting_review', 'still at the gate');
        expect(nodeOf(waiting, 'review').status).to.equal('waiting_review');
        const p = await page(asked.body.approvalId);
        expect(await p.locator('#approval-does').innerText()).to.contain(`launch ${draft.launchId}`);
        await approveInConsole(asked.body.approvalId, '$50.00');
        expect((await approval(asked.body.approvalId)).status).to.equal('approved');
        const done = await waitForExecution(
          w,
          ci,
          shoes,
          wf.workflowId,
          executionId,
          (e) => e.status === 'succeeded' || e.status === 'failed',
          'the run goes on',
          30_000,
        );
        expect(nodeOf(done, 'review').status).to.not.equal('waiting_review');
      });

      it('changing or running by hand an automation that resumes waits too (resume); one changed since its request is stale when approved', async () => {
        // Saved while the organization let keys act: an automation that resumes.
        await w.service.knex('organizations').update({ agent_publishes: 'direct' });
        const made = await api()('POST', '/automations', {
          automationName: 'Resumer',
          accountId: 'act_1101',
          level: 'campaign',
          action: 'pause',
          status: 'PAUSED',
          mode: 'shadow',
          resumeWhenClear: true,
          conditions: [{ metric: 'spend', window: 'today', operator: 'gt', value: 100000 }],
        });
        await w.service.knex('organizations').update({ agent_publishes: 'person' });
        expect(made.status, JSON.stringify(made.body)).to.equal(201);
        const id = made.body.automationId;
        const run = await api()('POST', `/automations/${id}/runs`, {});
        expect(run.status, JSON.stringify(run.body)).to.equal(202);
        expect(run.body).to.deep.include({ kind: 'resume', status: 'waiting' });
        expect(run.body.plan).to.deep.include({ operation: 'run-automation' });
        // The run by hand, approved, runs as the key that asked (a shadow rule acts on nothing).
        const ran = await decideFromSession(run.body.approvalId, { decision: 'approve', planFingerprint: run.body.planFingerprint });
        expect(ran.status, JSON.stringify(ran.body)).to.equal(200);
        expect(ran.body.result).to.deep.include({ automationId: id, trigger: 'manual' });
        const rename = await api()('PATCH', `/automations/${id}`, { automationName: 'Resumer, renamed' });
        const cool = await api()('PATCH', `/automations/${id}`, { cooldownMinutes: 120 });
        expect([rename.status, cool.status]).to.deep.equal([202, 202]);
        const first = await decideFromSession(cool.body.approvalId, { decision: 'approve', planFingerprint: cool.body.planFingerprint });
        expect(first.status, JSON.stringify(first.body)).to.equal(200);
        expect(first.body.result).to.deep.include({ cooldownMinutes: 120, automationName: 'Resumer' });
        // The rule the rename was asked against is not the rule now: nothing is saved.
        const stale = await decideFromSession(rename.body.approvalId, { decision: 'approve', planFingerprint: rename.body.planFingerprint });
        expect(stale.status, JSON.stringify(stale.body)).to.equal(409);
        expect(stale.body.error.details).to.deep.include({ status: 'stale' });
        expect((await api()('GET', `/automations/${id}`)).body.automationName).to.equal('Resumer');
      });

      it('saving an active money workflow waits (arm_workflow of save-workflow); approved, the definition is saved and armed', async () => {
        const ci = w.key('acme', 'ci');
        const draft = await buildLaunch(api(), { creativeId, title: 'Saved armed' });
        await w.service.knex('organizations').update({ agent_publishes: 'direct' });
        const wf = await createWorkflow(w, ci, shoes, {
          workflowName: 'Armed and saved',
          trigger: { kind: 'schedule', cron: '0 9 * * *', timezone: 'UTC' },
          nodes: [launchNode('publish', draft.launchId)],
        });
        const armed = await api(ci)('POST', `/workflows/${wf.workflowId}/activate`, {});
        await w.service.knex('organizations').update({ agent_publishes: 'person' });
        expect(armed.status, JSON.stringify(armed.body)).to.equal(200);
        const current = (await api()('GET', `/workflows/${wf.workflowId}`)).body;
        const body = {
          workflowName: 'Armed, renamed',
          type: current.type,
          trigger: current.trigger,
          nodes: current.nodes,
          edges: current.edges,
          version: current.version,
        };
        const asked = await api()('PUT', `/workflows/${wf.workflowId}`, body);
        expect(asked.status, JSON.stringify(asked.body)).to.equal(202);
        expect(asked.body).to.deep.include({ kind: 'arm_workflow', status: 'waiting' });
        expect(asked.body.plan).to.deep.include({ operation: 'save-workflow', workflowName: 'Armed, renamed' });
        expect((await api()('GET', `/workflows/${wf.workflowId}`)).body.workflowName, 'not saved yet').to.equal('Armed and saved');
        const done = await decideFromSession(asked.body.approvalId, { decision: 'approve', planFingerprint: asked.body.planFingerprint });
        expect(done.status, JSON.stringify(done.body)).to.equal(200);
        const saved = (await api()('GET', `/workflows/${wf.workflowId}`)).body;
        expect(saved).to.deep.include({ workflowName: 'Armed, renamed', status: 'active' });
      });

      it('an approval nobody decides is expired by the expire-approvals job: approval.decided expired to webhooks and chat; nothing moves', async () => {
        const b = live.budget;
        const asked = await api()(
          'POST',
          `/launches/${b.launchId}/nodes/${b.campaignId}/live-budget`,
          { level: 'CAMPAIGN', budgetType: 'daily', amount: 9900 },
          idem('exp'),
        );
        expect(asked.status).to.equal(202);
        await w.service
          .knex('approvals')
          .where({ id: asked.body.approvalId })
          .update({ expires_at: Date.now() - 1000 });
        // Read before the job runs, it already says expired (and cannot be decided).
        expect((await approval(asked.body.approvalId)).status).to.equal('expired');
        expect((await w.service.knex('approvals').where({ id: asked.body.approvalId }).first()).status).to.equal('waiting');
        await w.service.knex('jobs').where({ kind: 'expire-approvals' }).update({ run_at: Date.now() });
        await delivered('approval.decided', asked.body.approvalId, 'expired');
        expect((await w.service.knex('approvals').where({ id: asked.body.approvalId }).first()).status).to.equal('expired');
        await chatted(
          `Approval ${asked.body.approvalId} (change a live budget (launch ${b.launchId}, node ${b.campaignId})) was expired undecided (nothing was done).`,
        );
        expect((await campaignOnPlatform(b)).node.properties.budget).to.deep.equal({ dailyAmount: 7500 });
      });

      describe('MCP with URL-mode elicitation', () => {
        /** An SDK Client declaring elicitation.url; `onUrl` sees each question and answers it. */
        async function urlClient(onUrl: (params: ElicitRequest['params']) => Promise<{ action: 'accept' | 'decline' }>) {
          const client = await mcpClient(w.url, agent(), { capabilities: { elicitation: { url: {} } } });
          client.setRequestHandler(ElicitRequestSchema, async (request) => onUrl(request.params));
          return client;
        }

        it("sends the person to the approval's console page and waits for the decision: approved, the call answers what was carried out", async () => {
          const b = live.mcp;
          const asked: Array<ElicitRequest['params']> = [];
          let deciding: Promise<unknown> = Promise.resolve();
          const client = await urlClient(async (params) => {
            asked.push(params);
            const id = Number(
              String((params as { url: string }).url)
                .split('/')
                .pop(),
            );
            // The person opens the page and approves while the agent's call waits.
            deciding = (async () => {
              const a = await approval(id);
              return decideFromSession(id, { decision: 'approve', planFingerprint: a.planFingerprint });
            })();
            return { action: 'accept' };
          });
          try {
            const r = (await client.callTool({
              name: 'edit_live_campaign',
              arguments: {
                brandId: shoes,
                launchId: b.launchId,
                nodeId: b.campaignId,
                level: 'CAMPAIGN',
                budgetType: 'daily',
                amount: 8800,
                idempotencyKey: `mcp-${process.pid}-${Date.now()}`,
              },
            })) as ToolResult;
            expect(r.isError, JSON.stringify(r)).to.not.equal(true);
            expect(asked).to.have.length(1);
            const q = asked[0] as { mode: string; url: string; elicitationId: string; message: string };
            expect(q.mode).to.equal('url');
            expect(q.url).to.match(new RegExp(`/console/brands/${shoes}/approvals/\\d+$`));
            expect(q.elicitationId).to.match(/^approval-\d+$/);
            expect(q.message).to.contain('wants a person to decide');
            expect(((await deciding) as { status: number }).status).to.equal(200);
            expect(r.structuredContent).to.deep.include({ nodeId: b.campaignId, amountMinorUnits: 8800 });
            expect(r.content.map((c) => c.text).join('\n')).to.contain('Olive Owner approved approval');
            expect((await campaignOnPlatform(b)).node.properties.budget).to.deep.equal({ dailyAmount: 8800 });
          } finally {
            await client.close();
          }
        });

        it('with no decision within MCP_CONFIRM_TIMEOUT_S the call answers the approval still waiting, to be read later with get_approval', async () => {
          const b = live.mcpLate;
          const client = await urlClient(async () => ({ action: 'accept' }));
          try {
            const started = Date.now();
            const r = (await client.callTool({
              name: 'update_node',
              arguments: { brandId: shoes, launchId: b.launchId, nodeId: b.campaignId, properties: { status: 'PAUSED' } },
            })) as ToolResult;
            expect(Date.now() - started).to.be.at.least(7_000);
            expect(r.isError, JSON.stringify(r)).to.not.equal(true);
            expect(r.structuredContent).to.deep.include({ kind: 'live_status', status: 'waiting' });
            expect(r.content.map((c) => c.text).join('\n'))
              .to.contain('no decision came in time')
              .and.contain('get_approval');
            expect((await campaignOnPlatform(b)).platform.status).to.equal('ACTIVE');
          } finally {
            await client.close();
          }
        });
      });
    });
  }
});
