// Workflows over REST against a real listening server: the contract's list, read and delete, whole-
// definition validation, version-guarded saves, every permission rule of the spec (publish scope,
// brand limits, the agent rule, OAuth tokens), runs as the credential that started or saved them
// (review gates, a revoked key refusing the whole run, the publish ceiling), and the triggers.

import { expect } from 'chai';
import { Webhook } from 'standardwebhooks';
import { dialects } from '../../helpers/databases.js';
import type { World } from '../../helpers/world.js';
import { startOAuthWorld, tokensFor } from '../../helpers/oauth.js';
import { WebhookReceiver } from '../../helpers/webhook-receiver.js';
import { brandApi, buildLaunch, uploadCreative } from '../../helpers/launch-builders.js';
import { waitUntil } from '../../helpers/launches.js';
import { inTransaction } from '../../../src/db/connection.js';
import { seedLiveLaunch } from '../../../src/launches/live-launch.js';
import { nextScheduledRun, scheduleRunAt } from '../../../src/workflows/schedule.js';
import {
  chatNode,
  createWorkflow,
  definition,
  finished,
  launchNode,
  newAutomation,
  newColumn,
  nodeOf,
  reviewNode,
  runWorkflow,
  waitForExecution,
  workflowWorld,
} from '../../helpers/workflows.js';

const ENV = { WEBHOOK_ALLOW_PRIVATE: 'true', AGENT_MODEL_URL: 'http://127.0.0.1:9999/v1' };

for (const dialect of dialects()) {
  describe(`workflows over REST (${dialect})`, function () {
    this.timeout(90_000);
    let w: World;
    let shoes: number;
    let hats: number;
    let key: (ref: string) => string;
    let olive: string;
    let chat: WebhookReceiver;
    const path = (brandId: number, rest = '') => `/v1/brands/${brandId}/workflows${rest}`;

    before(async () => {
      w = await startOAuthWorld(dialect, workflowWorld, ENV);
      shoes = w.brandId('acme', 'shoes');
      hats = w.brandId('acme', 'hats');
      key = (ref) => w.key('acme', ref);
      olive = (
        await tokensFor(
          w.url,
          { email: 'olive@acme.test', password: 'correct horse 1' },
          { resource: `${w.url}/v1`, scope: 'read write publish', scopes: ['read', 'write', 'publish'], spendLimit: '500' },
        )
      ).access_token;
      chat = await new WebhookReceiver().start('/chat');
    });
    after(async () => {
      await chat?.close();
      await w?.close();
    });

    const emit = (type: string, brandId: number, data: Record<string, unknown>) =>
      inTransaction(w.service.knex, (trx) => w.service.events.emit(trx, { organizationId: w.seed.organizations.acme.id, brandId, type, data }));

    describe('the contract', () => {
      it('lists workflows newest first with the summary fields, reads one, and pages with a cursor', async () => {
        const a = await createWorkflow(w, key('ci'), shoes, { workflowName: 'First', nodes: [reviewNode()] });
        const b = await createWorkflow(w, key('ci'), shoes, { workflowName: 'Second', type: 'launch_review', nodes: [reviewNode()] });
        expect(a.workflowId).to.be.a('number');
        expect(a).to.include({
          status: 'inactive',
          version: 1,
          runCount: 0,
          isRunning: false,
          lastRunAt: null,
          type: 'custom',
          runsAs: 'API key: CI key',
          hook: null,
        });
        const list = await w.request('GET', `${path(shoes)}?limit=1`, { key: key('ci') });
        expect(list.status).to.equal(200);
        expect(list.body.workflows[0]).to.include({
          workflowId: b.workflowId,
          workflowName: 'Second',
          type: 'launch_review',
          status: 'inactive',
          runCount: 0,
          isRunning: false,
        });
        expect(Object.keys(list.body.workflows[0])).to.include.members(['workflowId', 'workflowName', 'type', 'status', 'runCount', 'isRunning', 'lastRunAt']);
        const next = await w.request('GET', `${path(shoes)}?limit=1&cursor=${encodeURIComponent(list.body.nextCursor)}`, { key: key('ci') });
        expect(next.body.workflows[0].workflowId).to.equal(a.workflowId);
        const one = await w.request('GET', path(shoes, `/${a.workflowId}`), { key: key('writer') });
        expect(one.body.nodes).to.deep.equal([{ nodeId: 'review', kind: 'review', name: 'Review', settings: {} }]);
      });

      it('deletes a workflow permanently with its executions: {workflowId} as a string, then 404', async () => {
        const wf = await createWorkflow(w, key('ci'), shoes, { nodes: [chatNode('tell', chat.url)] });
        const exec = await runWorkflow(w, key('ci'), shoes, wf.workflowId);
        await waitForExecution(w, key('ci'), shoes, wf.workflowId, exec, finished, 'the run to finish');
        const gone = await w.request('DELETE', path(shoes, `/${wf.workflowId}`), { key: key('ci') });
        expect(gone.status).to.equal(200);
        expect(gone.body).to.deep.equal({ workflowId: String(wf.workflowId), deleted: true, executionsDeleted: 1 });
        expect((await w.request('GET', path(shoes, `/${wf.workflowId}`), { key: key('ci') })).status).to.equal(404);
        expect((await w.request('GET', path(shoes, `/${wf.workflowId}/executions/${exec}`), { key: key('ci') })).status).to.equal(404);
        expect(
          Number(
            (await w.service
              .knex('workflow_node_results')
              .where({ execution_id: Number(exec) })
              .count({ n: '*' })
              .first())!.n,
          ),
        ).to.equal(0);
      });

      it('reads an execution with its status and every node result, and lists executions newest first', async () => {
        const wf = await createWorkflow(w, key('ci'), shoes, { nodes: [chatNode('tell', chat.url, 'Hello from {{workflowName}}')] });
        const first = await runWorkflow(w, key('ci'), shoes, wf.workflowId);
        const done = await waitForExecution(w, key('ci'), shoes, wf.workflowId, first, finished, 'the run to finish');
        expect(done).to.include({ executionId: first, workflowId: wf.workflowId, status: 'succeeded', runsAs: 'API key: CI key', error: null });
        expect(done.startedAt).to.be.a('string');
        expect(done.finishedAt).to.be.a('string');
        expect(nodeOf(done, 'tell')).to.deep.include({ status: 'succeeded', error: null });
        expect(nodeOf(done, 'tell').result).to.include({ statusCode: 200, text: 'Hello from Test workflow' });
        const second = await runWorkflow(w, key('ci'), shoes, wf.workflowId);
        await waitForExecution(w, key('ci'), shoes, wf.workflowId, second, finished, 'the second run');
        const list = await w.request('GET', path(shoes, `/${wf.workflowId}/executions`), { key: key('ci') });
        expect(list.body.executions.map((e: any) => e.executionId)).to.deep.equal([second, first]);
        const summary = (await w.request('GET', path(shoes, `/${wf.workflowId}`), { key: key('ci') })).body;
        expect(summary).to.include({ runCount: 2, isRunning: false });
        expect(summary.lastRunAt).to.be.a('string');
      });
    });

    describe('definitions', () => {
      const cases: Array<[string, Record<string, unknown>, string[]]> = [
        ['an unknown kind', { nodes: [{ nodeId: 'a', kind: 'teleport', settings: {} }] }, ['nodes[a].kind']],
        ['a missing setting', { nodes: [{ nodeId: 'go', kind: 'launch', settings: {} }] }, ['nodes[go].settings.launchId']],
        [
          'a cycle',
          {
            nodes: [reviewNode('a'), reviewNode('b'), reviewNode('c')],
            edges: [
              { from: 'a', to: 'b' },
              { from: 'b', to: 'c' },
              { from: 'c', to: 'b' },
            ],
          },
          ['nodes[b]'],
        ],
        ['an unreachable node', { nodes: [reviewNode('a'), reviewNode('b'), reviewNode('lost')], edges: [{ from: 'a', to: 'b' }] }, ['nodes[lost]']],
        ['an edge to a missing node', { nodes: [reviewNode('a')], edges: [{ from: 'a', to: 'nowhere' }] }, ['edges[0].to']],
        [
          'a chat webhook that is not a URL',
          { nodes: [{ nodeId: 'c', kind: 'chat', settings: { message: 'hi', webhookUrl: 'not a url' } }] },
          ['nodes[c].settings.webhookUrl'],
        ],
        ['a schedule without a time zone', { trigger: { kind: 'schedule', cron: '0 9 * * 1' }, nodes: [reviewNode()] }, ['trigger.timezone']],
        ['a bad cron', { trigger: { kind: 'schedule', cron: '99 * * * *', timezone: 'Europe/Paris' }, nodes: [reviewNode()] }, ['trigger.cron']],
      ];
      for (const [what, d, fields] of cases) {
        it(`refuses ${what} with validation_failed naming the node`, async () => {
          const r = await w.request('POST', path(shoes), { key: key('ci'), body: definition(d as any) });
          expect(r.status, JSON.stringify(r.body)).to.equal(400);
          expect(r.body.error.code).to.equal('validation_failed');
          expect(r.body.error.details.map((i: any) => i.field)).to.include.members(fields);
        });
      }

      it('guards saves with version: a stale version answers 409 stale_read and changes nothing', async () => {
        const wf = await createWorkflow(w, key('ci'), shoes, { nodes: [reviewNode()] });
        const body = { ...definition({ workflowName: 'Renamed', nodes: [reviewNode()] }), version: 1 };
        const saved = await w.request('PUT', path(shoes, `/${wf.workflowId}`), { key: key('ci'), body });
        expect(saved.status, JSON.stringify(saved.body)).to.equal(200);
        expect(saved.body).to.include({ version: 2, workflowName: 'Renamed' });
        const stale = await w.request('PUT', path(shoes, `/${wf.workflowId}`), { key: key('ci'), body: { ...body, workflowName: 'Lost update' } });
        expect(stale.status).to.equal(409);
        expect(stale.body.error.code).to.equal('stale_read');
        expect((await w.request('GET', path(shoes, `/${wf.workflowId}`), { key: key('ci') })).body.workflowName).to.equal('Renamed');
      });
    });

    describe('who may do what', () => {
      it('saving a workflow with a launch, pause, budget or agent step needs publish (403 insufficient_scope, requiredScope publish)', async () => {
        const steps = [
          launchNode('go', '1'),
          { nodeId: 'p', kind: 'pause', settings: { launchId: '1', nodeId: 'c1' } },
          { nodeId: 'b', kind: 'budget', settings: { launchId: '1', nodeId: 'c1', amount: 5000 } },
          { nodeId: 'ag', kind: 'agent', settings: { instruction: 'Publish it' } },
        ];
        for (const step of steps) {
          const r = await w.request('POST', path(shoes), { key: key('writer'), body: definition({ nodes: [step] }) });
          expect(r.status, `${step.kind}: ${JSON.stringify(r.body)}`).to.equal(403);
          expect(r.body.error).to.deep.include({ code: 'insufficient_scope', details: { requiredScope: 'publish' } });
        }
        const quiet = await w.request('POST', path(shoes), { key: key('writer'), body: definition({ nodes: [reviewNode(), chatNode('c', chat.url)] }) });
        expect(quiet.status, 'review and chat need only write').to.equal(201);
      });

      it('activating or running a workflow with an acting step needs publish', async () => {
        const wf = await createWorkflow(w, key('ci'), shoes, { nodes: [launchNode('go', '$trigger.launchId')] });
        for (const [verb, rest] of [
          ['activate', '/activate'],
          ['run', '/runs'],
        ] as const) {
          const r = await w.request('POST', path(shoes, `/${wf.workflowId}${rest}`), { key: key('writer'), body: {} });
          expect(r.status, verb).to.equal(403);
          expect(r.body.error).to.deep.include({ code: 'insufficient_scope', details: { requiredScope: 'publish' } });
        }
        const saved = await w.request('PUT', path(shoes, `/${wf.workflowId}`), {
          key: key('writer'),
          body: { ...definition({ nodes: [launchNode('go', '2')] }), version: 1 },
        });
        expect(saved.status).to.equal(403);
        expect((await w.request('POST', path(shoes, `/${wf.workflowId}/activate`), { key: key('ci'), body: {} })).body.status).to.equal('active');
      });

      it("a brand-limited key reaches only its brands' workflows: another brand's or a cross-brand one answers 404", async () => {
        const own = await createWorkflow(w, key('ci'), shoes, { workflowName: 'Shoes only', nodes: [reviewNode()] });
        const cross = await createWorkflow(w, key('ci'), shoes, {
          workflowName: 'Reaches hats',
          nodes: [launchNode('go', '$trigger.launchId', { brandId: hats })],
        });
        const other = await createWorkflow(w, key('ci'), hats, { workflowName: 'Hats', nodes: [reviewNode()] });
        expect(cross.reachBrandIds).to.deep.equal([shoes, hats].sort((a, b) => a - b));
        const limited = key('limited');
        expect((await w.request('GET', path(shoes, `/${own.workflowId}`), { key: limited })).status).to.equal(200);
        expect((await w.request('GET', path(shoes, `/${cross.workflowId}`), { key: limited })).status).to.equal(404);
        expect((await w.request('GET', path(shoes, `/${other.workflowId}`), { key: limited })).status, "another brand's id under its own brand").to.equal(404);
        expect((await w.request('DELETE', path(shoes, `/${cross.workflowId}`), { key: limited })).status).to.equal(404);
        const offBrand = await w.request('GET', path(hats), { key: limited });
        expect(offBrand.status).to.equal(403);
        expect(offBrand.body.error.code).to.equal('brand_not_allowed');
        const listed = (await w.request('GET', `${path(shoes)}?limit=100`, { key: limited })).body.workflows.map((x: any) => x.workflowId);
        expect(listed).to.include(own.workflowId);
        expect(listed).not.to.include(cross.workflowId);
      });

      it('a brand-limited key cannot save a step reaching beyond its brands (400 validation_failed on the field naming the brand)', async () => {
        const r = await w.request('POST', path(shoes), {
          key: key('limitedPub'),
          body: definition({ nodes: [launchNode('go', '$trigger.launchId', { brandId: hats })] }),
        });
        expect(r.status).to.equal(400);
        expect(r.body.error.code).to.equal('validation_failed');
        expect(r.body.error.details.map((d: any) => d.field)).to.deep.equal(['nodes[go].settings.brandId']);
        const agent = await w.request('POST', path(shoes), {
          key: key('limitedPub'),
          body: definition({ nodes: [{ nodeId: 'ag', kind: 'agent', settings: { instruction: 'x', brandIds: [shoes, hats] } }] }),
        });
        expect(agent.status).to.equal(400);
        expect(agent.body.error.details.map((d: any) => d.field)).to.deep.equal(['nodes[ag].settings.brandIds[1]']);
      });

      it("a brand-limited key may save an agent step only in a workflow created with an API key; a person's workflow answers 403 forbidden", async () => {
        const agent = { nodeId: 'ag', kind: 'agent', name: 'Agent', settings: { instruction: 'Publish the launch' } };
        const persons = await createWorkflow(w, olive, shoes, { nodes: [reviewNode()] });
        expect(persons.runsAs).to.equal('Olive Owner');
        const refused = await w.request('PUT', path(shoes, `/${persons.workflowId}`), {
          key: key('limitedPub'),
          body: { ...definition({ nodes: [reviewNode(), agent] }), version: 1 },
        });
        expect(refused.status, JSON.stringify(refused.body)).to.equal(403);
        expect(refused.body.error.code).to.equal('forbidden');
        const keys = await createWorkflow(w, key('ci'), shoes, { nodes: [reviewNode()] });
        const allowed = await w.request('PUT', path(shoes, `/${keys.workflowId}`), {
          key: key('limitedPub'),
          body: { ...definition({ nodes: [reviewNode(), agent] }), version: 1 },
        });
        expect(allowed.status, JSON.stringify(allowed.body)).to.equal(200);
        expect(allowed.body.runsAs).to.equal('API key: Shoes publisher');
        const created = await w.request('POST', path(shoes), { key: key('limitedPub'), body: definition({ nodes: [agent] }) });
        expect(created.status).to.equal(201);
      });

      it('OAuth tokens and unlimited keys see every workflow, cross-brand ones included', async () => {
        const cross = await createWorkflow(w, key('limitedPub'), shoes, { workflowName: 'Limited made it', nodes: [reviewNode()] });
        const wide = await createWorkflow(w, key('ci'), shoes, { workflowName: 'Wide', nodes: [launchNode('go', '$trigger.launchId', { brandId: hats })] });
        for (const credential of [olive, key('ci'), key('writer')]) {
          const listed = (await w.request('GET', `${path(shoes)}?limit=100`, { key: credential })).body.workflows.map((x: any) => x.workflowId);
          expect(listed).to.include.members([cross.workflowId, wide.workflowId]);
          expect((await w.request('GET', path(shoes, `/${wide.workflowId}`), { key: credential })).status).to.equal(200);
        }
      });
    });

    describe('runs', () => {
      it("a review gate waits, is refused to the run's author (its key, another key of theirs, their OAuth token: 403 forbidden) and approved by another person", async () => {
        const wf = await createWorkflow(w, key('ci'), shoes, {
          workflowName: 'Gate',
          nodes: [reviewNode('review'), chatNode('tell', chat.url, '{{workflowName}} approved')],
        });
        const exec = await runWorkflow(w, key('ci'), shoes, wf.workflowId);
        const waiting = await waitForExecution(w, key('ci'), shoes, wf.workflowId, exec, (e) => e.status === 'waiting_review', 'the gate to wait');
        expect(nodeOf(waiting, 'review').status).to.equal('waiting_review');
        expect(nodeOf(waiting, 'tell').status).to.equal('pending');
        const requested = await w.service.knex('events').where({ type: 'workflow.review.requested' }).orderBy('id', 'desc').first();
        expect(JSON.parse(requested.data)).to.deep.equal({ brandId: shoes, workflowId: wf.workflowId, executionId: exec, nodeId: 'review' });

        const reviews = path(shoes, `/${wf.workflowId}/executions/${exec}/reviews`);
        const own = await w.request('POST', reviews, { key: key('ci'), body: { nodeId: 'review', decision: 'approve' } });
        expect(own.status).to.equal(403);
        expect(own.body.error.code).to.equal('forbidden');
        // The run's person is Olive, who created the CI key: her other key and her OAuth token are Olive too.
        const runRow = await w.service.knex('workflow_executions').where({ id: exec }).first('runner_user_id');
        expect(Number(runRow.runner_user_id)).to.equal(w.seed.organizations.acme.users.olive.id);
        for (const [credential, what] of [
          [key('small'), 'a second key Olive created'],
          [olive, "Olive's OAuth token"],
        ] as const) {
          const again = await w.request('POST', reviews, { key: credential, body: { nodeId: 'review', decision: 'approve' } });
          expect(again.status, what).to.equal(403);
          expect(again.body.error.code, what).to.equal('forbidden');
        }
        expect(nodeOf((await w.request('GET', path(shoes, `/${wf.workflowId}/executions/${exec}`), { key: key('ci') })).body, 'review').status).to.equal(
          'waiting_review',
        );
        const before = chat.received.length;
        const approved = await w.request('POST', reviews, { key: key('ci2'), body: { nodeId: 'review', decision: 'approve', comment: 'Looks good' } });
        expect(approved.status, JSON.stringify(approved.body)).to.equal(200);
        expect(nodeOf(approved.body, 'review').result).to.include({ decision: 'approve', reviewer: 'API key: Reviewer key', comment: 'Looks good' });
        const done = await waitForExecution(w, key('ci'), shoes, wf.workflowId, exec, finished, 'the run to finish');
        expect(done.status).to.equal('succeeded');
        await waitUntil(() => chat.received.length > before, 'the chat message');
        expect(chat.received.at(-1)!.body).to.deep.equal({ text: 'Gate approved' });
        const again = await w.request('POST', reviews, { key: key('ci2'), body: { nodeId: 'review', decision: 'reject' } });
        expect(again.status).to.equal(409);
        const finishedEvent = await w.service.knex('events').where({ type: 'workflow.execution.finished' }).orderBy('id', 'desc').first();
        expect(JSON.parse(finishedEvent.data)).to.deep.equal({ brandId: shoes, workflowId: wf.workflowId, executionId: exec, status: 'succeeded' });
      });

      it('a person may not review their own run (403 forbidden, with their token or a key they created); a rejection ends the run canceled', async () => {
        const wf = await createWorkflow(w, olive, shoes, { nodes: [reviewNode('review'), chatNode('tell', chat.url)] });
        const exec = await runWorkflow(w, olive, shoes, wf.workflowId);
        await waitForExecution(w, olive, shoes, wf.workflowId, exec, (e) => e.status === 'waiting_review', 'the gate to wait');
        const reviews = path(shoes, `/${wf.workflowId}/executions/${exec}/reviews`);
        const own = await w.request('POST', reviews, { key: olive, body: { nodeId: 'review', decision: 'approve' } });
        expect(own.status).to.equal(403);
        expect(own.body.error.code).to.equal('forbidden');
        const ownKey = await w.request('POST', reviews, { key: key('ci'), body: { nodeId: 'review', decision: 'approve' } });
        expect(ownKey.status, 'a key Olive created is Olive').to.equal(403);
        const rejected = await w.request('POST', reviews, { key: key('ci2'), body: { nodeId: 'review', decision: 'reject' } });
        expect(rejected.status).to.equal(200);
        const done = await waitForExecution(w, olive, shoes, wf.workflowId, exec, finished, 'the run to end');
        expect(done.status).to.equal('canceled');
        expect(nodeOf(done, 'review').status).to.equal('rejected');
        expect(nodeOf(done, 'tell').status).to.equal('canceled');
      });

      it("a launch step publishes as the run's key (activity shows API key: <name>) and a step past its ceiling is refused with nothing published", async () => {
        const api = brandApi(w, key('ci'), shoes);
        const creativeId = await uploadCreative(w, key('ci'), shoes);
        const ok = await buildLaunch(api, { creativeId, title: 'Workflow launch' });
        const wf = await createWorkflow(w, key('ci'), shoes, { nodes: [launchNode('go', ok.launchId)] });
        const exec = await runWorkflow(w, key('ci'), shoes, wf.workflowId);
        const done = await waitForExecution(w, key('ci'), shoes, wf.workflowId, exec, finished, 'the launch run');
        expect(done.status, JSON.stringify(done)).to.equal('succeeded');
        expect(nodeOf(done, 'go').result.answer).to.include({ launchId: ok.launchId, status: 'published' });
        const activity = await api('GET', '/activity?limit=100&entityId=' + ok.campaignId);
        expect(activity.body.activities.find((a: any) => a.action === 'campaign.published').userName).to.equal('API key: CI key');

        const big = await buildLaunch(api, { creativeId, title: 'Too big for the small key' });
        const small = await createWorkflow(w, key('small'), shoes, { nodes: [launchNode('go', big.launchId)] });
        const refused = await runWorkflow(w, key('small'), shoes, small.workflowId);
        const failed = await waitForExecution(w, key('small'), shoes, small.workflowId, refused, finished, 'the refused run');
        expect(failed.status).to.equal('failed');
        expect(nodeOf(failed, 'go').error.code).to.equal('spend_ceiling_exceeded');
        expect((await api('GET', `/launches/${big.launchId}`)).body.status).not.to.equal('published');
      });

      it("checks a step's references again when it runs, and says which one went away; nothing is done", async () => {
        const api = brandApi(w, key('ci'), shoes);
        const template = await api('POST', '/structure-templates', {
          name: 'Gone soon',
          config: {
            campaign: { name: '{brand}', objective: 'OUTCOME_TRAFFIC' },
            adSets: [{ name: '{audience}', optimizationGoal: 'LINK_CLICKS', billingEvent: 'IMPRESSIONS', targeting: { countries: ['US'] } }],
            ads: [{ name: 'Hero', headline: 'Spring', primaryText: 'Sale', linkUrl: 'https://shop.example.com/', callToAction: 'SHOP_NOW' }],
          },
          audiences: [{ kind: 'targetingSet', name: 'Broad', targeting: { ageMin: 25, ageMax: 45 } }],
          accounts: ['act_1001'],
          scope: 'single',
          status: 'READY',
        });
        expect(template.status, JSON.stringify(template.body)).to.equal(201);
        const templateId = template.body.templateId;
        const wf = await createWorkflow(w, key('ci'), shoes, { nodes: [{ nodeId: 't', kind: 'apply_template', name: 'Apply', settings: { templateId } }] });
        expect((await api('DELETE', `/structure-templates/${templateId}`)).status).to.equal(200);
        const launchesBefore = (await api('GET', '/launches?limit=100')).body.batches.length;
        const exec = await runWorkflow(w, key('ci'), shoes, wf.workflowId);
        const done = await waitForExecution(w, key('ci'), shoes, wf.workflowId, exec, finished, 'the run to end');
        expect(done.status).to.equal('failed');
        const error = nodeOf(done, 't').error;
        expect(error.code).to.equal('not_found');
        expect(error.message).to.include('nodes[t].settings.templateId');
        expect(error.message).to.include(`structure template ${templateId}`);
        expect(error.message).to.include('went away');
        expect(error.details).to.deep.equal([
          {
            field: 'nodes[t].settings.templateId',
            code: 'invalid_value',
            message: `names structure template ${templateId}, which does not exist in brand ${shoes} or is out of this credential's reach`,
          },
        ]);
        expect((await api('GET', '/launches?limit=100')).body.batches.length).to.equal(launchesBefore);
      });

      it('a run of a revoked key is refused whole: nothing runs (started by its trigger, or revoked between steps)', async () => {
        const api = brandApi(w, key('ci'), shoes);
        const creativeId = await uploadCreative(w, key('ci'), shoes);
        const launch = await buildLaunch(api, { creativeId, title: 'Never published' });
        const columnId = await newColumn(w, key('ci'), shoes, 'Revoked runs');
        const triggered = await createWorkflow(w, key('doomed'), shoes, {
          trigger: { kind: 'pipeline_stage', columnId },
          nodes: [chatNode('tell', chat.url), launchNode('go', '$trigger.launchId')],
        });
        const gated = await createWorkflow(w, key('doomed'), shoes, { nodes: [reviewNode('review'), launchNode('go', launch.launchId)] });
        expect((await w.request('POST', path(shoes, `/${triggered.workflowId}/activate`), { key: key('doomed'), body: {} })).status).to.equal(200);
        const exec = await runWorkflow(w, key('doomed'), shoes, gated.workflowId);
        await waitForExecution(w, key('ci'), shoes, gated.workflowId, exec, (e) => e.status === 'waiting_review', 'the gate');

        await w.service.knex('api_keys').where({ id: w.seed.organizations.acme.apiKeys.doomed.id }).update({ revoked_at: Date.now() });
        const before = chat.received.length;
        await emit('pipeline.card.moved', shoes, {
          brandId: shoes,
          cardId: 1,
          launchId: launch.launchId,
          fromColumnId: null,
          toColumnId: columnId,
          movedBy: 'API key: CI key',
          canPublish: true,
        });
        let refused: Record<string, any> = {};
        await waitUntil(
          async () => {
            const list = await w.request('GET', path(shoes, `/${triggered.workflowId}/executions`), { key: key('ci') });
            refused = list.body.executions[0] ?? {};
            return finished(refused);
          },
          'the triggered run to be refused',
          15_000,
          100,
        );
        expect(refused.status).to.equal('failed');
        expect(refused.error.code).to.equal('unauthenticated');
        expect(refused.runsAs).to.equal('API key: Doomed key');
        expect(refused.nodes.map((n: any) => n.status)).to.deep.equal(['canceled', 'canceled']);

        const approved = await w.request('POST', path(shoes, `/${gated.workflowId}/executions/${exec}/reviews`), {
          key: key('ci'),
          body: { nodeId: 'review', decision: 'approve' },
        });
        expect(approved.status).to.equal(200);
        const done = await waitForExecution(w, key('ci'), shoes, gated.workflowId, exec, finished, 'the gated run to end');
        expect(done.status).to.equal('failed');
        expect(done.error.code).to.equal('unauthenticated');
        expect(nodeOf(done, 'go').status).to.equal('canceled');
        expect(chat.received.length).to.equal(before);
        expect((await api('GET', `/launches/${launch.launchId}`)).body.status).to.equal('draft');
      });
      it('checks the key when each step runs: a key whose brands changed since it saved is refused the step, and nothing is published', async () => {
        const api = brandApi(w, key('ci'), shoes);
        const launch = await buildLaunch(api, { creativeId: await uploadCreative(w, key('ci'), shoes), title: 'Brand moved' });
        const columnId = await newColumn(w, key('ci'), shoes, 'Brand moved');
        const wf = await createWorkflow(w, key('limitedPub'), shoes, {
          trigger: { kind: 'pipeline_stage', columnId },
          nodes: [launchNode('go', '$trigger.launchId')],
        });
        await w.request('POST', path(shoes, `/${wf.workflowId}/activate`), { key: key('limitedPub'), body: {} });
        const keyId = w.seed.organizations.acme.apiKeys.limitedPub.id;
        await w.service.knex('api_key_brands').where({ api_key_id: keyId }).update({ brand_id: hats });
        try {
          await emit('pipeline.card.moved', shoes, {
            brandId: shoes,
            cardId: 9,
            launchId: launch.launchId,
            fromColumnId: null,
            toColumnId: columnId,
            movedBy: 'API key: CI key',
            canPublish: true,
          });
          let exec: Record<string, any> = {};
          await waitUntil(
            async () => {
              exec = (await w.request('GET', path(shoes, `/${wf.workflowId}/executions`), { key: key('ci') })).body.executions[0] ?? {};
              return finished(exec);
            },
            'the run to end',
            15_000,
            100,
          );
          expect(exec.status).to.equal('failed');
          expect(nodeOf(exec, 'go').error.code).to.equal('brand_not_allowed');
          expect((await api('GET', `/launches/${launch.launchId}`)).body.status).to.equal('draft');
        } finally {
          await w.service.knex('api_key_brands').where({ api_key_id: keyId }).update({ brand_id: shoes });
        }
      });

      it("refuses the whole run when the organization's plan no longer admits the key", async () => {
        const automationId = await newAutomation(w, key('ci'), shoes, 'act_1001', 'Plan watch');
        const wf = await createWorkflow(w, key('ci'), shoes, { trigger: { kind: 'monitor', automationId }, nodes: [chatNode('tell', chat.url)] });
        await w.request('POST', path(shoes, `/${wf.workflowId}/activate`), { key: key('ci'), body: {} });
        const org = w.seed.organizations.acme.id;
        await w.service.knex('organizations').where({ id: org }).update({ subscription_status: 'past_due' });
        try {
          const before = chat.received.length;
          await emit('automation.triggered', shoes, {
            brandId: shoes,
            automationId,
            runId: 1,
            objectId: 'c1',
            level: 'campaign',
            action: 'paused',
            mode: 'live',
          });
          let exec: Record<string, any> = {};
          await waitUntil(
            async () => {
              exec = (await w.service.knex('workflow_executions').where({ workflow_id: wf.workflowId }).first()) ?? {};
              return exec.status === 'failed';
            },
            'the refused run',
            15_000,
            100,
          );
          expect(JSON.parse(exec.error).code).to.equal('plan_required');
          expect(chat.received.length).to.equal(before);
        } finally {
          await w.service.knex('organizations').where({ id: org }).update({ subscription_status: 'active' });
        }
      });
    });

    describe('triggers', () => {
      it('a pipeline stage starts the workflows on the entered column, and the workflow the event names, once per event', async () => {
        const columnId = await newColumn(w, key('ci'), shoes, 'Stage');
        const onColumn = await createWorkflow(w, key('ci'), shoes, {
          trigger: { kind: 'pipeline_stage', columnId },
          nodes: [chatNode('tell', chat.url, 'Card for {{launchId}}')],
        });
        const linked = await createWorkflow(w, key('ci'), shoes, { nodes: [chatNode('tell', chat.url, 'Linked {{launchId}}')] });
        expect((await w.request('POST', path(shoes, `/${onColumn.workflowId}/activate`), { key: key('ci'), body: {} })).status).to.equal(200);
        await emit('pipeline.card.moved', shoes, {
          brandId: shoes,
          cardId: 5,
          launchId: '42',
          fromColumnId: null,
          toColumnId: columnId,
          workflowId: linked.workflowId,
        });
        await emit('pipeline.card.moved', shoes, { brandId: shoes, cardId: 6, launchId: '43', fromColumnId: null, toColumnId: columnId + 1 });
        for (const wf of [onColumn, linked]) {
          await waitUntil(
            async () => (await w.request('GET', path(shoes, `/${wf.workflowId}`), { key: key('ci') })).body.runCount === 1,
            `a run of ${wf.workflowName}`,
            15_000,
            100,
          );
        }
        const exec = (await w.request('GET', path(shoes, `/${onColumn.workflowId}/executions`), { key: key('ci') })).body.executions[0];
        const done = await waitForExecution(w, key('ci'), shoes, onColumn.workflowId, exec.executionId, finished, 'the card run');
        expect(done.trigger).to.include({ kind: 'pipeline_stage', launchId: '42', toColumnId: columnId });
        expect(nodeOf(done, 'tell').result.text).to.equal('Card for 42');
        // Reading the same events again starts nothing more.
        await new Promise((r) => setTimeout(r, 4500));
        expect((await w.request('GET', path(shoes, `/${onColumn.workflowId}`), { key: key('ci') })).body.runCount).to.equal(1);
      });

      it('a monitor trigger starts when its automation fires', async () => {
        const automationId = await newAutomation(w, key('ci'), shoes, 'act_1001', 'Monitor watch');
        const wf = await createWorkflow(w, key('ci'), shoes, { trigger: { kind: 'monitor', automationId }, nodes: [chatNode('tell', chat.url)] });
        await emit('automation.triggered', shoes, {
          brandId: shoes,
          automationId,
          runId: 1,
          objectId: 'c1',
          level: 'campaign',
          action: 'paused',
          mode: 'live',
        });
        await new Promise((r) => setTimeout(r, 3000));
        expect((await w.request('GET', path(shoes, `/${wf.workflowId}`), { key: key('ci') })).body.runCount, 'inactive: not armed').to.equal(0);
        await w.request('POST', path(shoes, `/${wf.workflowId}/activate`), { key: key('ci'), body: {} });
        await emit('automation.triggered', shoes, {
          brandId: shoes,
          automationId,
          runId: 2,
          objectId: 'c1',
          level: 'campaign',
          action: 'paused',
          mode: 'live',
        });
        await waitUntil(
          async () => (await w.request('GET', path(shoes, `/${wf.workflowId}`), { key: key('ci') })).body.runCount === 1,
          'the monitor run',
          15_000,
          100,
        );
        const exec = (await w.request('GET', path(shoes, `/${wf.workflowId}/executions`), { key: key('ci') })).body.executions[0];
        expect(exec.trigger).to.include({ kind: 'monitor', automationId });
      });

      it("a monitor trigger never crosses brands: it cannot be saved on another brand's automation, and such an event starts nothing", async () => {
        const hatsRule = await newAutomation(w, key('ci'), hats, 'act_1002', 'Hats watch');
        // Saving: a brand-limited key and an unlimited one alike get 400 on trigger.automationId.
        for (const credential of [key('limitedPub'), key('ci')]) {
          const r = await w.request('POST', path(shoes), {
            key: credential,
            body: definition({ trigger: { kind: 'monitor', automationId: hatsRule }, nodes: [chatNode('tell', chat.url)] }),
          });
          expect(r.status, JSON.stringify(r.body)).to.equal(400);
          expect(r.body.error.details.map((d: any) => d.field)).to.deep.equal(['trigger.automationId']);
        }
        // A shoes workflow whose stored trigger names the hats automation (as one saved before this rule could be) stays still when it fires.
        const stale = await createWorkflow(w, key('limitedPub'), shoes, {
          trigger: { kind: 'monitor', automationId: await newAutomation(w, key('ci'), shoes, 'act_1001', 'Shoes watch') },
          nodes: [chatNode('tell', chat.url)],
        });
        await w.service
          .knex('workflows')
          .where({ id: stale.workflowId })
          .update({ trigger: JSON.stringify({ kind: 'monitor', automationId: hatsRule }), trigger_automation_id: hatsRule });
        await w.request('POST', path(shoes, `/${stale.workflowId}/activate`), { key: key('limitedPub'), body: {} });
        const own = await createWorkflow(w, key('ci'), hats, { trigger: { kind: 'monitor', automationId: hatsRule }, nodes: [chatNode('tell', chat.url)] });
        await w.request('POST', path(hats, `/${own.workflowId}/activate`), { key: key('ci'), body: {} });
        await emit('automation.triggered', hats, {
          brandId: hats,
          automationId: hatsRule,
          runId: 1,
          objectId: 'c1',
          level: 'campaign',
          action: 'notified',
          mode: 'live',
        });
        await waitUntil(
          async () => (await w.request('GET', path(hats, `/${own.workflowId}`), { key: key('ci') })).body.runCount === 1,
          "the hats workflow's run",
          15_000,
          100,
        );
        // The trigger pass that started the hats run has read the event: the shoes workflow was passed over.
        await new Promise((r) => setTimeout(r, 2500));
        expect((await w.request('GET', path(shoes, `/${stale.workflowId}`), { key: key('ci') })).body.runCount).to.equal(0);
      });

      it('a brand-limited key cannot link a column to a workflow reaching another brand (400 on workflowId)', async () => {
        const wide = await createWorkflow(w, key('ci'), shoes, {
          workflowName: 'Reaches hats',
          nodes: [launchNode('go', '$trigger.launchId', { brandId: hats })],
        });
        const narrow = await createWorkflow(w, key('ci'), shoes, { workflowName: 'Shoes only', nodes: [reviewNode()] });
        const columns = `/v1/brands/${shoes}/pipeline/columns`;
        const refused = await w.request('POST', columns, { key: key('limitedPub'), body: { name: 'Across', workflowId: wide.workflowId } });
        expect(refused.status, JSON.stringify(refused.body)).to.equal(400);
        expect(refused.body.error.details.map((d: any) => d.field)).to.deep.equal(['workflowId']);
        const allowed = await w.request('POST', columns, { key: key('limitedPub'), body: { name: 'Within', workflowId: narrow.workflowId } });
        expect(allowed.status, JSON.stringify(allowed.body)).to.equal(201);
        const unlimited = await w.request('POST', columns, { key: key('ci'), body: { name: 'Across, by an unlimited key', workflowId: wide.workflowId } });
        expect(unlimited.status, JSON.stringify(unlimited.body)).to.equal(201);
      });

      it('a monitor trigger starts when a real automation fires on a campaign spending with no results', async () => {
        const [burner] = (
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
        const rule = await w.request('POST', `/v1/brands/${shoes}/automations`, {
          key: key('ci'),
          body: {
            automationName: 'Burner watch',
            accountId: 'act_1001',
            level: 'campaign',
            objectIds: [burner.objectId],
            action: 'notify',
            frequency: 'daily',
            dailyHour: 6,
            conditions: [
              { metric: 'spend', window: 'yesterday', operator: 'gt', value: 100 },
              { metric: 'results', window: 'yesterday', operator: 'lt', value: 1 },
            ],
          },
        });
        expect(rule.status, JSON.stringify(rule.body)).to.equal(201);
        const automationId = rule.body.automationId;
        const told = await new WebhookReceiver().start('/monitor-chat');
        const wf = await createWorkflow(w, key('ci'), shoes, { trigger: { kind: 'monitor', automationId }, nodes: [chatNode('tell', told.url)] });
        await w.request('POST', path(shoes, `/${wf.workflowId}/activate`), { key: key('ci'), body: {} });
        const fired = await w.request('POST', `/v1/brands/${shoes}/automations/${automationId}/runs`, { key: key('ci'), body: {} });
        expect(fired.status, JSON.stringify(fired.body)).to.equal(201);
        expect(fired.body.objects.find((o: any) => o.objectId === burner.objectId)).to.include({ matched: true, action: 'notified' });
        await waitUntil(
          async () => (await w.request('GET', path(shoes, `/${wf.workflowId}`), { key: key('ci') })).body.runCount === 1,
          'the monitor run',
          15_000,
          100,
        );
        const exec = (await w.request('GET', path(shoes, `/${wf.workflowId}/executions`), { key: key('ci') })).body.executions[0];
        expect(exec.trigger).to.include({ kind: 'monitor', automationId });
        const done = await waitForExecution(w, key('ci'), shoes, wf.workflowId, exec.executionId, finished, 'the monitor run to end');
        expect(done.status).to.equal('succeeded');
        expect(told.received.length).to.equal(1);
        await told.close();
      });

      it('a schedule starts a run when its time comes, once, and moves to the next time in its time zone', async () => {
        const wf = await createWorkflow(w, key('ci'), shoes, {
          trigger: { kind: 'schedule', cron: '0 9 * * *', timezone: 'Europe/Paris' },
          nodes: [chatNode('tell', chat.url)],
        });
        await w.request('POST', path(shoes, `/${wf.workflowId}/activate`), { key: key('ci'), body: {} });
        const next = await nextScheduledRun(w.service.knex, wf.workflowId);
        const local = new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Paris', hour: '2-digit', minute: '2-digit', hour12: false }).format(
          new Date(Number(next)),
        );
        expect(local).to.equal('09:00');
        // The time comes: the schedule's job is due a second ago, for the run of that time.
        const due = Date.now() - 1000;
        await scheduleRunAt(w.service.knex, wf.workflowId, due, Date.now());
        await waitUntil(
          async () => (await w.request('GET', path(shoes, `/${wf.workflowId}`), { key: key('ci') })).body.runCount === 1,
          'the scheduled run',
          15_000,
          100,
        );
        await waitUntil(async () => Number(await nextScheduledRun(w.service.knex, wf.workflowId)) > Date.now(), 'the next scheduled time', 15_000, 100);
        const exec = (await w.request('GET', path(shoes, `/${wf.workflowId}/executions`), { key: key('ci') })).body.executions[0];
        expect(exec.trigger).to.deep.equal({ kind: 'schedule', scheduledFor: new Date(due).toISOString() });
        // Deactivated, it has no next time; activated again, the next 09:00 in Paris.
        await w.request('POST', path(shoes, `/${wf.workflowId}/deactivate`), { key: key('ci'), body: {} });
        expect(await nextScheduledRun(w.service.knex, wf.workflowId)).to.equal(null);
        await w.request('POST', path(shoes, `/${wf.workflowId}/activate`), { key: key('ci'), body: {} });
        const rearmed = Number(await nextScheduledRun(w.service.knex, wf.workflowId));
        expect(rearmed).to.be.greaterThan(Date.now());
        expect(
          new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Paris', hour: '2-digit', minute: '2-digit', hour12: false }).format(new Date(rearmed)),
        ).to.equal('09:00');
        expect((await w.request('GET', path(shoes, `/${wf.workflowId}`), { key: key('ci') })).body.runCount).to.equal(1);
      });

      it('a video-review hook shows its secret once, takes messages signed with it (once per webhook-id) and refuses others', async () => {
        const wf = await createWorkflow(w, key('ci'), shoes, { trigger: { kind: 'video_review' }, nodes: [chatNode('tell', chat.url)] });
        expect(wf.hook.secret).to.match(/^whsec_/);
        expect(wf.hook.url).to.equal(`${w.url}/v1/workflow-hooks/${wf.hook.hookId}`);
        expect((await w.request('GET', path(shoes, `/${wf.workflowId}`), { key: key('ci') })).body.hook).to.deep.equal({
          hookId: wf.hook.hookId,
          url: wf.hook.url,
        });
        const send = async (secret: string, id: string, payload: unknown) => {
          const body = JSON.stringify(payload);
          const at = new Date();
          const signature = new Webhook(secret).sign(id, at, body);
          const res = await fetch(wf.hook.url, {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              'webhook-id': id,
              'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
              'webhook-signature': signature,
            },
            body,
          });
          return { status: res.status, body: await res.json() };
        };
        const inactive = await send(wf.hook.secret, 'msg_1', { type: 'asset.approved' });
        expect(inactive.status).to.equal(409);
        await w.request('POST', path(shoes, `/${wf.workflowId}/activate`), { key: key('ci'), body: {} });
        const first = await send(wf.hook.secret, 'msg_2', { type: 'asset.approved', assetId: 'vid_9' });
        expect(first.status, JSON.stringify(first.body)).to.equal(202);
        const again = await send(wf.hook.secret, 'msg_2', { type: 'asset.approved', assetId: 'vid_9' });
        expect(again).to.deep.equal({ status: 200, body: { executionId: first.body.executionId, status: again.body.status, duplicate: true } });
        const forged = await send('whsec_' + Buffer.alloc(32, 7).toString('base64'), 'msg_3', { type: 'asset.approved' });
        expect(forged.status).to.equal(401);
        expect(forged.body.error.code).to.equal('unauthenticated');
        const done = await waitForExecution(w, key('ci'), shoes, wf.workflowId, first.body.executionId, finished, 'the hook run');
        expect(done.trigger).to.deep.include({ kind: 'video_review', messageId: 'msg_2', payload: { type: 'asset.approved', assetId: 'vid_9' } });
        expect(done.runsAs).to.equal('API key: CI key');
      });
    });
  });
}
