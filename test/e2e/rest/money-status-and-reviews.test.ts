// Issue 52, items 1 and 2, over REST against a real listening server, on both dialects: a live
// object's status is money (update-node that changes the status of a published campaign, ad set or
// ad needs `publish`: without it 403 insufficient_scope and nothing reaches the ad platform; drafts
// stay `write`), and a reviewer approves the plan they were shown (the run records the plan of the launch
// or budget step after its review gate; an approval after the launch changed answers 409 stale_read
// with the current plan and leaves the gate pending; an approval naming the current planFingerprint
// publishes that plan). The svc command line meets the same rules (it is a REST client): a live
// status refused, a draft's changed, a changed plan refused and the current one approved.

import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { projectPath } from '../../../src/paths.js';
import { dialects } from '../../helpers/databases.js';
import type { World } from '../../helpers/world.js';
import { startWorld } from '../../helpers/world.js';
import { brandApi, buildLaunch, idem, publish, uploadCreative } from '../../helpers/launch-builders.js';
import { createWorkflow, finished, launchNode, nodeOf, reviewNode, runWorkflow, waitForExecution, workflowWorld } from '../../helpers/workflows.js';

for (const dialect of dialects()) {
  describe(`live status and reviewed plans over REST (${dialect})`, function () {
    this.timeout(90_000);
    let w: World;
    let shoes: number;
    let creativeId: number;
    const key = (ref: string) => w.key('acme', ref);
    const api = (ref = 'ci') => brandApi(w, key(ref), shoes);

    before(async () => {
      // Room under the ceiling for every publish of the file.
      const world = structuredClone(workflowWorld);
      for (const k of world.organizations[0].apiKeys) if ('publishCeilingDollars' in k) k.publishCeilingDollars = 100_000;
      w = await startWorld({ dialect, bootstrap: world, env: { RATE_LIMIT_PER_MINUTE: '100000' } });
      shoes = w.brandId('acme', 'shoes');
      creativeId = await uploadCreative(w, key('ci'), shoes);
    });
    after(async () => w?.close());

    /** The campaign's status on the (sandbox) ad platform, by its platform id. */
    async function platformStatus(platformId: string): Promise<string> {
      const r = await api()('GET', `/ad-accounts/act_1001/campaigns?limit=100`);
      expect(r.status, JSON.stringify(r.body)).to.equal(200);
      return r.body.campaigns.find((c: { id: string }) => c.id === platformId)?.status;
    }

    /** The svc command line run with `args` as key `ref` (the read+write key unless named), in a home of its own. */
    async function svc(args: string[], ref = 'writer'): Promise<{ code: number | null; stdout: string; stderr: string }> {
      const home = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-cli-home-'));
      try {
        return await new Promise((resolve) =>
          execFile(
            process.execPath,
            [projectPath('dist', 'surfaces', 'cli', 'svc.js'), ...args],
            { env: { PATH: process.env.PATH ?? '', HOME: home, SVC_BASE_URL: w.url, SVC_API_KEY: key(ref) } },
            (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
          ),
        );
      } finally {
        fs.rmSync(home, { recursive: true, force: true });
      }
    }

    const activity = async (entityId: string) =>
      ((await api()('GET', `/activity?limit=100&entityId=${entityId}`)).body.activities as Array<{ action: string; userName: string }>).map(
        (a) => `${a.action} by ${a.userName}`,
      );

    describe('a live status needs publish', () => {
      it('a read+write key cannot set a paused live campaign ACTIVE (403 insufficient_scope, requiredScope publish); nothing reaches the platform', async () => {
        const built = await buildLaunch(api(), { creativeId, title: 'Paused by its owner' });
        await publish(api(), built.launchId);
        const campaign = (await api()('GET', `/launches/${built.launchId}`)).body.campaigns[0].node;
        const paused = await api()('PATCH', `/launches/${built.launchId}/nodes/${built.campaignId}`, { properties: { status: 'PAUSED' } });
        expect(paused.status, JSON.stringify(paused.body)).to.equal(200);
        expect(await platformStatus(campaign.platformId)).to.equal('PAUSED');

        const refused = await api('writer')('PATCH', `/launches/${built.launchId}/nodes/${built.campaignId}`, { properties: { status: 'ACTIVE' } });
        expect(refused.status, JSON.stringify(refused.body)).to.equal(403);
        expect(refused.body.error.code).to.equal('insufficient_scope');
        expect(refused.body.error.details).to.deep.equal({ requiredScope: 'publish' });
        expect(refused.body.error.message).to.contain('needs the "publish" scope');
        expect(await platformStatus(campaign.platformId), 'the platform still holds it paused').to.equal('PAUSED');
        expect(await activity(built.campaignId)).to.not.include('campaign.activated by API key: Writer');
        const node = (await api()('GET', `/launches/${built.launchId}`)).body.campaigns[0].node;
        expect(node.properties.status).to.equal('PAUSED');

        // A key holding publish sets it going again, and activity says who.
        const resumed = await api()('PATCH', `/launches/${built.launchId}/nodes/${built.campaignId}`, { properties: { status: 'ACTIVE' } });
        expect(resumed.status, JSON.stringify(resumed.body)).to.equal(200);
        expect(await platformStatus(campaign.platformId)).to.equal('ACTIVE');
        expect(await activity(built.campaignId)).to.include('campaign.activated by API key: CI key');
      });

      it('the same rule holds from the command line: svc update-node by the read+write key exits 3 with insufficient_scope, nothing sent; on a draft it exits 0', async () => {
        const built = await buildLaunch(api(), { creativeId, title: 'From the CLI' });
        await publish(api(), built.launchId);
        const platformId = (await api()('GET', `/launches/${built.launchId}`)).body.campaigns[0].node.platformId;
        const run = await svc([
          'update-node',
          '--brand-id',
          String(shoes),
          '--launch-id',
          built.launchId,
          '--node-id',
          built.campaignId,
          '--data',
          JSON.stringify({ properties: { status: 'PAUSED' } }),
        ]);
        expect(run.code, run.stderr).to.equal(3);
        expect(run.stderr).to.contain('insufficient_scope');
        expect(await platformStatus(platformId)).to.equal('ACTIVE');
        // A draft's status is no money: the same key changes it from the command line (write).
        const draft = await buildLaunch(api(), { creativeId, title: 'A CLI draft' });
        const drafted = await svc([
          'update-node',
          '--brand-id',
          String(shoes),
          '--launch-id',
          draft.launchId,
          '--node-id',
          draft.campaignId,
          '--data',
          JSON.stringify({ properties: { status: 'PAUSED' } }),
        ]);
        expect(drafted.code, drafted.stderr).to.equal(0);
        expect(JSON.parse(drafted.stdout).properties.status).to.equal('PAUSED');
      });

      it('an ad set and an ad the platform holds are money too: 403 insufficient_scope for the read+write key, their status unchanged', async () => {
        const built = await buildLaunch(api(), { creativeId, title: 'Live children' });
        await publish(api(), built.launchId);
        for (const nodeId of [built.adsetId, built.adIds[0]]) {
          const refused = await api('writer')('PATCH', `/launches/${built.launchId}/nodes/${nodeId}`, { properties: { status: 'PAUSED' } });
          expect(refused.status, JSON.stringify(refused.body)).to.equal(403);
          expect(refused.body.error).to.deep.include({ code: 'insufficient_scope', details: { requiredScope: 'publish' } });
        }
        const tree = (await api()('GET', `/launches/${built.launchId}`)).body;
        const adSet = tree.campaigns[0].adSets[0];
        expect(adSet.node.properties.status, 'the ad set').to.not.equal('PAUSED');
        expect(adSet.ads[0].properties.status, 'the ad').to.not.equal('PAUSED');
        expect(await activity(built.adsetId)).to.not.include('adset.paused by API key: Writer');
        // The same change by a key holding publish goes through.
        const paused = await api()('PATCH', `/launches/${built.launchId}/nodes/${built.adIds[0]}`, { properties: { status: 'PAUSED' } });
        expect(paused.status, JSON.stringify(paused.body)).to.equal(200);
      });

      it("the same key still changes a draft's status (write)", async () => {
        const built = await buildLaunch(api(), { creativeId, title: 'Still a draft' });
        const r = await api('writer')('PATCH', `/launches/${built.launchId}/nodes/${built.adIds[0]}`, { properties: { status: 'PAUSED' } });
        expect(r.status, JSON.stringify(r.body)).to.equal(200);
        expect(r.body.properties.status).to.equal('PAUSED');
      });

      it("with planFingerprint, a live status change makes only the change it was answered for (a preview's or another status's: 409 stale_read with the change's own, nothing sent)", async () => {
        const built = await buildLaunch(api(), { creativeId, title: 'Bound status' });
        await publish(api(), built.launchId);
        const platformId = (await api()('GET', `/launches/${built.launchId}`)).body.campaigns[0].node.platformId;
        const preview = await api()('POST', `/launches/${built.launchId}/publish`, {}, idem('preview'));
        expect(preview.status, JSON.stringify(preview.body)).to.equal(200);
        const path = `/launches/${built.launchId}/nodes/${built.campaignId}`;
        // A launch preview's fingerprint never stands for a live change.
        const byPreview = await api()('PATCH', path, { properties: { status: 'PAUSED' }, planFingerprint: preview.body.planFingerprint });
        expect(byPreview.status, JSON.stringify(byPreview.body)).to.equal(409);
        expect(byPreview.body.error.code).to.equal('stale_read');
        const change = byPreview.body.error.details;
        expect(change.planFingerprint).to.be.a('string').and.not.equal(preview.body.planFingerprint);
        expect(change.change).to.deep.equal({
          launchId: built.launchId,
          nodeId: built.campaignId,
          level: 'campaign',
          field: 'status',
          from: 'ACTIVE',
          to: 'PAUSED',
        });
        expect(await platformStatus(platformId)).to.equal('ACTIVE');
        // The fingerprint of "pause" does not set ACTIVE (or anything else).
        const other = await api()('PATCH', path, { properties: { status: 'ACTIVE' }, planFingerprint: change.planFingerprint });
        expect(other.status, JSON.stringify(other.body)).to.equal(409);
        expect(other.body.error.details.planFingerprint).to.not.equal(change.planFingerprint);
        const bound = await api()('PATCH', path, { properties: { status: 'PAUSED' }, planFingerprint: change.planFingerprint });
        expect(bound.status, JSON.stringify(bound.body)).to.equal(200);
        expect(await platformStatus(platformId)).to.equal('PAUSED');
        // Made: the node is no longer what that fingerprint was shown for.
        const again = await api()('PATCH', path, { properties: { status: 'PAUSED' }, planFingerprint: change.planFingerprint });
        expect(again.status, JSON.stringify(again.body)).to.equal(409);
      });
    });

    describe('a review approves the plan it was shown', () => {
      /** A run of review → launch of a fresh $50 draft, waiting at its gate; answers the ids and the waiting execution. */
      async function waitingRun(title: string) {
        const built = await buildLaunch(api(), { creativeId, title });
        const wf = await createWorkflow(w, key('ci'), shoes, { nodes: [reviewNode('review'), launchNode('go', built.launchId)] });
        const exec = await runWorkflow(w, key('ci'), shoes, wf.workflowId);
        const waiting = await waitForExecution(w, key('ci'), shoes, wf.workflowId, exec, (e) => e.status === 'waiting_review', 'the gate to wait');
        return { built, workflowId: wf.workflowId as number, exec, waiting };
      }
      const reviews = (workflowId: number, exec: number) => `/v1/brands/${shoes}/workflows/${workflowId}/executions/${exec}/reviews`;
      const preview = async (launchId: string) => {
        const r = await api()('POST', `/launches/${launchId}/publish`, {}, idem('preview'));
        expect(r.status, JSON.stringify(r.body)).to.equal(200);
        return r.body;
      };

      it('the gate records the plan of the launch step after it, as the preview shows it, on get and list', async () => {
        const { built, workflowId, exec, waiting } = await waitingRun('Plan shown');
        const shown = await preview(built.launchId);
        const plan = nodeOf(waiting, 'review').plan;
        expect(plan).to.deep.include({
          stepNodeId: 'go',
          kind: 'launch',
          launchId: built.launchId,
          planFingerprint: shown.planFingerprint,
          counts: { campaigns: 1, adSets: 1, ads: 1 },
          accounts: [{ accountId: 'act_1001', currency: 'USD', amountMinorUnits: 5000, countedUsdCents: 5000 }],
          countedUsdCents: 5000,
          problem: null,
        });
        expect(Date.parse(plan.recordedAt)).to.be.a('number').and.not.NaN;
        expect(nodeOf(waiting, 'review').result, 'nothing decided yet').to.equal(null);
        expect(nodeOf(waiting, 'go'), 'steps other than reviews carry no plan').to.not.have.property('plan');
        const listed = await w.request('GET', `/v1/brands/${shoes}/workflows/${workflowId}/executions`, { key: key('ci') });
        expect(
          nodeOf(
            listed.body.executions.find((e: { executionId: number }) => e.executionId === exec),
            'review',
          ).plan,
        ).to.deep.equal(plan);
      });

      it('an approval after the budget was raised answers 409 stale_read with the current plan; the gate stays pending, nothing is published', async () => {
        const { built, workflowId, exec } = await waitingRun('Raised while waiting');
        // Another key raises the draft's budget from $50 to $400 while the gate waits.
        const raised = await api('writer')('PATCH', `/launches/${built.launchId}/nodes/${built.campaignId}`, {
          properties: { budget: { dailyAmount: 40000 } },
        });
        expect(raised.status, JSON.stringify(raised.body)).to.equal(200);
        const now = await preview(built.launchId);

        const approved = await w.request('POST', reviews(workflowId, exec), { key: key('ci2'), body: { nodeId: 'review', decision: 'approve' } });
        expect(approved.status, JSON.stringify(approved.body)).to.equal(409);
        expect(approved.body.error.code).to.equal('stale_read');
        expect(approved.body.error.details.planFingerprint).to.equal(now.planFingerprint);
        expect(approved.body.error.details.plan).to.deep.include({ countedUsdCents: 40000, launchId: built.launchId, stepNodeId: 'go' });
        const still = (await w.request('GET', `/v1/brands/${shoes}/workflows/${workflowId}/executions/${exec}`, { key: key('ci') })).body;
        expect(still.status).to.equal('waiting_review');
        expect(nodeOf(still, 'review').status).to.equal('waiting_review');
        expect(nodeOf(still, 'review').plan.countedUsdCents, 'the recorded plan is still the one shown').to.equal(5000);
        expect((await api()('GET', `/launches/${built.launchId}`)).body.status).to.equal('draft');

        // A fingerprint that is neither: refused the same way.
        const wrong = await w.request('POST', reviews(workflowId, exec), {
          key: key('ci2'),
          body: { nodeId: 'review', decision: 'approve', planFingerprint: nodeOf(still, 'review').plan.planFingerprint },
        });
        expect(wrong.status, JSON.stringify(wrong.body)).to.equal(409);

        // Approving the plan now shown publishes exactly that plan.
        const again = await w.request('POST', reviews(workflowId, exec), {
          key: key('ci2'),
          body: { nodeId: 'review', decision: 'approve', planFingerprint: approved.body.error.details.planFingerprint },
        });
        expect(again.status, JSON.stringify(again.body)).to.equal(200);
        expect(nodeOf(again.body, 'review').plan).to.deep.include({ planFingerprint: now.planFingerprint, countedUsdCents: 40000 });
        expect(nodeOf(again.body, 'review').result).to.include({ decision: 'approve', reviewer: 'API key: Reviewer key' });
        const done = await waitForExecution(w, key('ci'), shoes, workflowId, exec, finished, 'the run to finish');
        expect(done.status, JSON.stringify(done)).to.equal('succeeded');
        expect(nodeOf(done, 'go').result.answer).to.deep.include({ status: 'published', planFingerprint: now.planFingerprint });
        expect(nodeOf(done, 'go').result.answer.budget.countedUsdCents).to.equal(40000);
      });

      it('the same from the command line: svc review-workflow-step of a changed plan exits 4 with stale_read and the current plan; with --plan-fingerprint of it, approved and published', async () => {
        const { built, workflowId, exec } = await waitingRun('Raised, CLI');
        await api('writer')('PATCH', `/launches/${built.launchId}/nodes/${built.campaignId}`, { properties: { budget: { dailyAmount: 30000 } } });
        const now = await preview(built.launchId);
        const review = [
          'review-workflow-step',
          '--brand-id',
          String(shoes),
          '--workflow-id',
          String(workflowId),
          '--execution-id',
          String(exec),
          '--node-id',
          'review',
          '--decision',
          'approve',
        ];
        const stale = await svc(review, 'ci2');
        expect(stale.code, stale.stderr).to.equal(4);
        const error = JSON.parse(stale.stderr).error;
        expect(error.code).to.equal('stale_read');
        expect(error.details.planFingerprint).to.equal(now.planFingerprint);
        expect(error.details.plan).to.deep.include({ countedUsdCents: 30000 });
        const still = (await w.request('GET', `/v1/brands/${shoes}/workflows/${workflowId}/executions/${exec}`, { key: key('ci') })).body;
        expect(nodeOf(still, 'review').status).to.equal('waiting_review');
        expect((await api()('GET', `/launches/${built.launchId}`)).body.status).to.equal('draft');

        // The = form: a fingerprint is base64url and may start with '-', which a separate argument would read as a flag.
        const approved = await svc([...review, `--plan-fingerprint=${now.planFingerprint}`], 'ci2');
        expect(approved.code, approved.stderr).to.equal(0);
        expect(nodeOf(JSON.parse(approved.stdout), 'review').plan).to.deep.include({ planFingerprint: now.planFingerprint, countedUsdCents: 30000 });
        const done = await waitForExecution(w, key('ci'), shoes, workflowId, exec, finished, 'the run to finish');
        expect(done.status, JSON.stringify(done)).to.equal('succeeded');
        expect((await api()('GET', `/launches/${built.launchId}`)).body.status).to.equal('published');
      });

      it('an unchanged plan is approved as recorded and published', async () => {
        const first = await waitingRun('Unchanged');
        const ok = await w.request('POST', reviews(first.workflowId, first.exec), { key: key('ci2'), body: { nodeId: 'review', decision: 'approve' } });
        expect(ok.status, JSON.stringify(ok.body)).to.equal(200);
        const done = await waitForExecution(w, key('ci'), shoes, first.workflowId, first.exec, finished, 'the run to finish');
        expect(done.status).to.equal('succeeded');
        expect((await api()('GET', `/launches/${first.built.launchId}`)).body.status).to.equal('published');
      });

      it('a budget step after the gate: the plan is the live node, its account and the step amount', async () => {
        const built = await buildLaunch(api(), { creativeId, title: 'Live budget plan' });
        await publish(api(), built.launchId);
        const wf = await createWorkflow(w, key('ci'), shoes, {
          nodes: [
            reviewNode('review'),
            { nodeId: 'raise', kind: 'budget', name: 'Raise', settings: { launchId: built.launchId, nodeId: built.campaignId, amount: 7500 } },
          ],
        });
        const exec = await runWorkflow(w, key('ci'), shoes, wf.workflowId);
        const waiting = await waitForExecution(w, key('ci'), shoes, wf.workflowId, exec, (e) => e.status === 'waiting_review', 'the gate to wait');
        const plan = nodeOf(waiting, 'review').plan;
        // A budget step binds its own live change, never the launch's plan.
        expect(plan.planFingerprint)
          .to.be.a('string')
          .and.not.equal((await preview(built.launchId)).planFingerprint);
        expect(plan).to.deep.include({
          stepNodeId: 'raise',
          kind: 'budget',
          launchId: built.launchId,
          counts: null,
          accounts: [{ accountId: 'act_1001', currency: 'USD', amountMinorUnits: 7500, countedUsdCents: 7500 }],
          countedUsdCents: 7500,
        });
      });

      it('a gate no money step follows records no plan (null)', async () => {
        const wf = await createWorkflow(w, key('ci'), shoes, { nodes: [reviewNode('review')] });
        const exec = await runWorkflow(w, key('ci'), shoes, wf.workflowId);
        const waiting = await waitForExecution(w, key('ci'), shoes, wf.workflowId, exec, (e) => e.status === 'waiting_review', 'the gate to wait');
        expect(nodeOf(waiting, 'review').plan).to.equal(null);
      });

      it('run-workflow with planFingerprint binds the run to the plan shown (changed since: 409 stale_read, no run)', async () => {
        const built = await buildLaunch(api(), { creativeId, title: 'Run bound' });
        const wf = await createWorkflow(w, key('ci'), shoes, { nodes: [launchNode('go', built.launchId)] });
        const runs = `/v1/brands/${shoes}/workflows/${wf.workflowId}/runs`;
        const stale = await w.request('POST', runs, { key: key('ci'), body: { planFingerprint: 'stale' } });
        expect(stale.status, JSON.stringify(stale.body)).to.equal(409);
        expect(stale.body.error.code).to.equal('stale_read');
        const shown = await preview(built.launchId);
        expect(stale.body.error.details.planFingerprint).to.equal(shown.planFingerprint);
        const listed = await w.request('GET', `/v1/brands/${shoes}/workflows/${wf.workflowId}/executions`, { key: key('ci') });
        expect(listed.body.executions, 'no run started').to.have.length(0);
        const started = await w.request('POST', runs, { key: key('ci'), body: { planFingerprint: shown.planFingerprint } });
        expect(started.status, JSON.stringify(started.body)).to.equal(202);
        const done = await waitForExecution(w, key('ci'), shoes, wf.workflowId, started.body.executionId, finished, 'the run to finish');
        expect(done.status, JSON.stringify(done)).to.equal('succeeded');
      });
    });
  });
}
