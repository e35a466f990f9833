// The read operations the console needed, over REST like any other: list-ad-accounts (every account
// of a brand), preview-launch (launch-campaign's checks and money with the read scope, changing
// nothing), list-workflow-reviews (every run waiting at a gate, whether the caller may decide, the
// steps an approval lets go on, paged), and list-activity's entityType and action filters.

import { expect } from 'chai';
import { dialects } from '../../helpers/databases.js';
import { startWorld, type World } from '../../helpers/world.js';
import { BrandClient } from '../../helpers/launches.js';
import { consoleWorld, waitFor } from '../../helpers/console.js';

const world = structuredClone(consoleWorld);
(world.organizations[0].apiKeys as Array<Record<string, unknown>>).push(
  { ref: 'reader', name: 'Reader', createdBy: 'olive', scopes: ['read'], surfaces: { api: true, mcp: true }, brands: null },
  { ref: 'teaOnly', name: 'Tea only', createdBy: 'olive', scopes: ['read'], surfaces: { api: true, mcp: true }, brands: ['tea'] },
);
// A second account on Shoes, attached after the first.
world.organizations[0].brands[0].adAccounts.push({
  platform: 'meta',
  accountId: 'act_1102',
  pageId: 'pg_1102',
  name: 'Shoes EU',
  timezone: 'Europe/Paris',
  currency: 'EUR',
  active: true,
});

for (const dialect of dialects()) {
  describe(`Console reads over REST (${dialect})`, function () {
    this.timeout(60_000);
    let w: World;
    let shoes: number;
    let tea: number;
    const as = (key: string) => (method: string, path: string, body?: unknown) => w.request(method, `/v1${path}`, { key: w.key('acme', key), body });

    before(async () => {
      // No FX rate for JPY: a yen launch's preview says so instead of failing.
      w = await startWorld({ dialect, bootstrap: world, env: { FX_RATES: 'EUR=1.08' } });
      shoes = w.brandId('acme', 'shoes');
      tea = w.brandId('acme', 'tea');
    });
    after(async () => {
      await w?.close();
    });

    it("list-ad-accounts lists every account of the brand in the order attached, with the brand's name; another brand of a limited key is refused", async () => {
      const r = await as('reader')('GET', `/brands/${shoes}/ad-accounts`);
      expect(r.status, JSON.stringify(r.body)).to.equal(200);
      expect(r.body.brandName).to.equal('Shoes Co');
      expect(r.body.adAccounts.map((a: { accountId: string; currency: string; timezone: string }) => [a.accountId, a.currency, a.timezone])).to.deep.equal([
        ['act_1101', 'USD', 'America/New_York'],
        ['act_1102', 'EUR', 'Europe/Paris'],
      ]);
      expect(r.body.nextCursor).to.equal(null);
      const refused = await as('teaOnly')('GET', `/brands/${shoes}/ad-accounts`);
      expect([refused.status, refused.body.error.code]).to.deep.equal([403, 'brand_not_allowed']);
      expect((await as('reader')('GET', '/brands/999999/ad-accounts')).status).to.equal(404);
      const unknown = await as('reader')('GET', `/brands/${shoes}/ad-accounts?limit=5`);
      expect([unknown.status, unknown.body.error.details[0].code]).to.deep.equal([400, 'unrecognized_key']);
    });

    it('preview-launch answers the issues as a list and the money with the read scope alone, and changes nothing', async () => {
      const ci = new BrandClient(w.url, w.key('acme', 'ci'), tea);
      const launch = (await ci.api('POST', '/launches', { title: 'Matcha week' })).body;
      const campaign = (
        await ci.api('POST', `/launches/${launch.id}/nodes`, {
          nodeType: 'campaign',
          properties: { name: 'Matcha', objective: 'OUTCOME_TRAFFIC', budget: { dailyAmount: 14000 } },
        })
      ).body;
      await ci.api('POST', `/launches/${launch.id}/nodes`, {
        nodeType: 'adset',
        parentId: campaign.id,
        properties: { name: 'JP', optimizationGoal: 'LINK_CLICKS', billingEvent: 'IMPRESSIONS' },
      });
      const before = (await ci.launch(launch.id)).body;
      const r = await as('reader')('GET', `/brands/${tea}/launches/${launch.id}/preview`);
      expect(r.status, JSON.stringify(r.body)).to.equal(200);
      expect(r.body).to.include({ launchId: launch.id, status: 'draft', valid: false });
      expect(r.body.counts).to.deep.equal({ campaigns: 1, adSets: 1, ads: 0 });
      const fields = r.body.issues.map((i: { field: string }) => i.field);
      const adSetId = before.campaigns[0].adSets[0].node.id;
      expect(fields).to.include(`adSets[${adSetId}].targeting.countries`);
      for (const i of r.body.issues) expect(i.message).to.be.a('string').and.not.equal('');
      // No JPY rate: the amount is shown, what it counts is null (publishing would answer 503).
      expect(r.body.budget).to.deep.equal({
        accounts: [{ accountId: 'act_3101', currency: 'JPY', amountMinorUnits: 14000, countedUsdCents: null }],
        countedUsdCents: null,
      });
      expect(r.body.planFingerprint).to.be.a('string').with.length.greaterThan(20);
      // launch-campaign's own preview needs publish; this one does not. Nothing changed.
      const publishPreview = await w.request('POST', `/v1/brands/${tea}/launches/${launch.id}/publish`, {
        key: w.key('acme', 'reader'),
        body: {},
        headers: { 'Idempotency-Key': 'p1' },
      });
      expect(publishPreview.body.error.code).to.equal('insufficient_scope');
      expect((await ci.launch(launch.id)).body).to.deep.equal(before);
      // The same fingerprint launch-campaign's preview answers for the same plan.
      await ci.api('PATCH', `/launches/${launch.id}/nodes/${adSetId}`, { properties: { targeting: { countries: ['JP'] } } });
      const valid = (await as('reader')('GET', `/brands/${tea}/launches/${launch.id}/preview`)).body;
      const again = (await as('reader')('GET', `/brands/${tea}/launches/${launch.id}/preview`)).body;
      expect(valid.planFingerprint).to.equal(again.planFingerprint).and.not.equal(r.body.planFingerprint);
      expect((await as('teaOnly')('GET', `/brands/${shoes}/launches/${launch.id}/preview`)).status).to.equal(403);
      expect((await as('reader')('GET', `/brands/${shoes}/launches/${launch.id}/preview`)).status).to.equal(404);
    });

    it('list-workflow-reviews lists the runs waiting at a gate, says who may decide, and pages', async () => {
      const agent = new BrandClient(w.url, w.key('acme', 'agent'), shoes);
      const launch = (await agent.api('POST', '/launches', { title: 'Review me' })).body;
      const workflow = (
        await agent.api('POST', '/workflows', {
          workflowName: 'Launch review',
          trigger: { kind: 'manual' },
          nodes: [
            { nodeId: 'review', kind: 'review', name: 'Approve the plan', settings: { timeoutHours: 48 } },
            { nodeId: 'publish', kind: 'launch', name: 'Publish', settings: { launchId: '$trigger.launchId' } },
          ],
          edges: [{ from: 'review', to: 'publish' }],
        })
      ).body;
      const runs: number[] = [];
      for (let i = 0; i < 2; i++) runs.push((await agent.api('POST', `/workflows/${workflow.workflowId}/runs`, { launchId: launch.id })).body.executionId);
      await waitFor(async () => (await as('ci')('GET', `/brands/${shoes}/workflow-reviews`)).body.reviews.length === 2, 'both runs at their gate');

      const owner = (await as('ci')('GET', `/brands/${shoes}/workflow-reviews`)).body;
      expect(owner.reviews.map((r: { executionId: number }) => r.executionId)).to.deep.equal([...runs].reverse());
      const first = owner.reviews[0];
      expect(first).to.include({
        workflowId: workflow.workflowId,
        workflowName: 'Launch review',
        nodeId: 'review',
        nodeName: 'Approve the plan',
        startedBy: 'API key: Ada agent',
        mayDecide: true,
        reason: null,
      });
      expect(first.nextSteps).to.deep.equal([{ nodeId: 'publish', kind: 'launch', name: 'Publish', launchId: launch.id }]);
      expect(Date.parse(first.deadlineAt) - Date.parse(first.waitingSince)).to.be.closeTo(48 * 3600_000, 5_000);
      expect(first.execution).to.include({ executionId: runs[1], status: 'waiting_review' });

      // The agent key's creator is the runs' author: she may not decide, and REST's review says the same.
      const author = (await as('agent')('GET', `/brands/${shoes}/workflow-reviews`)).body.reviews[0];
      expect(author.mayDecide).to.equal(false);
      expect(author.reason).to.include('may not review its own run');
      const refused = await as('agent')('POST', `/brands/${shoes}/workflows/${workflow.workflowId}/executions/${runs[0]}/reviews`, {
        nodeId: 'review',
        decision: 'approve',
      });
      expect([refused.status, refused.body.error.message]).to.deep.equal([403, author.reason]);

      const page1 = (await as('ci')('GET', `/brands/${shoes}/workflow-reviews?limit=1`)).body;
      expect(page1.reviews.map((r: { executionId: number }) => r.executionId)).to.deep.equal([runs[1]]);
      const page2 = (await as('ci')('GET', `/brands/${shoes}/workflow-reviews?limit=1&cursor=${encodeURIComponent(page1.nextCursor)}`)).body;
      expect(page2.reviews.map((r: { executionId: number }) => r.executionId)).to.deep.equal([runs[0]]);
      expect(page2.nextCursor).to.equal(null);

      const rejected = await as('ci')('POST', `/brands/${shoes}/workflows/${workflow.workflowId}/executions/${runs[1]}/reviews`, {
        nodeId: 'review',
        decision: 'reject',
      });
      expect(rejected.status).to.equal(200);
      expect((await as('ci')('GET', `/brands/${shoes}/workflow-reviews`)).body.reviews.map((r: { executionId: number }) => r.executionId)).to.deep.equal([
        runs[0],
      ]);
      expect((await as('teaOnly')('GET', `/brands/${tea}/workflow-reviews`)).body.reviews).to.deep.equal([]);
    });

    it('list-activity filters by entityType and action, and refuses a value it does not know', async () => {
      const all = (await as('reader')('GET', `/brands/${tea}/activity?days=1&limit=100`)).body.activities;
      expect(all.length).to.be.greaterThan(0);
      const launches = (await as('reader')('GET', `/brands/${tea}/activity?days=1&entityType=unknown&action=launch.created`)).body.activities;
      expect(launches.length).to.be.greaterThan(0);
      expect(launches).to.deep.equal(all.filter((e: { entityType: string; action: string }) => e.entityType === 'unknown' && e.action === 'launch.created'));
      const none = (await as('reader')('GET', `/brands/${tea}/activity?days=1&entityType=ad`)).body.activities;
      expect(none).to.deep.equal(all.filter((e: { entityType: string }) => e.entityType === 'ad'));
      const bad = await as('reader')('GET', `/brands/${tea}/activity?entityType=launch`);
      expect([bad.status, bad.body.error.code, bad.body.error.details[0].field]).to.deep.equal([400, 'validation_failed', 'entityType']);
      const badAction = await as('reader')('GET', `/brands/${tea}/activity?action=${encodeURIComponent('x y')}`);
      expect([badAction.status, badAction.body.error.details[0].field]).to.deep.equal([400, 'action']);
    });
  });
}
