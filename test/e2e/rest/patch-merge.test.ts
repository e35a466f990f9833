// Every PATCH operation over REST changes only what its body sends: object-valued fields merge
// key by key as a JSON merge patch (RFC 7396), a null with a meaning of its own is kept (brandIds,
// objectIds, description, a guard minimum), a null on something that cannot be left out answers
// 400 naming the field, and a refused PATCH changes nothing.

import { expect } from 'chai';
import { dialects } from '../../helpers/databases.js';
import { addNode, brandApi, createLaunch, uploadCreative, type Api } from '../../helpers/launch-builders.js';
import { adsetProps, campaignProps } from '../../helpers/example-world.js';
import { templateBody, templatesWorld } from '../../helpers/structure-templates.js';
import { startWorld, type Reply, type World } from '../../helpers/world.js';
import { reviewNode } from '../../helpers/workflows.js';

const ok = (r: Reply) => {
  expect(r.status, JSON.stringify(r.body)).to.be.oneOf([200, 201]);
  return r.body;
};

/** The fields of a 400 validation_failed answer. */
const refused = (r: Reply) => {
  expect(r.status, JSON.stringify(r.body)).to.equal(400);
  expect(r.body.error.code).to.equal('validation_failed');
  return r.body.error.details.map((d: { field: string }) => d.field);
};

const without = (o: Record<string, unknown>, ...keys: string[]) => Object.fromEntries(Object.entries(o).filter(([k]) => !keys.includes(k)));

for (const dialect of dialects()) {
  describe(`PATCH merges what it is sent, on every PATCH operation (${dialect})`, function () {
    this.timeout(60_000);
    let w: World;
    let ci: string;
    let agency: Api;
    let shoes: Api;
    let creativeId: number;

    before(async () => {
      w = await startWorld({ dialect, bootstrap: templatesWorld(), env: { WEBHOOK_ALLOW_PRIVATE: 'true', JOBS: 'off' } });
      ci = w.key('acme', 'ci');
      agency = brandApi(w, ci, w.brandId('acme', 'agency'));
      shoes = brandApi(w, ci, w.brandId('acme', 'shoes'));
      creativeId = await uploadCreative(w, ci, w.brandId('acme', 'agency'));
    });
    after(async () => w?.close());

    it('edit-structure-template: settings and config merge key by key; lists replace; null removes or is refused', async () => {
      const t = ok(await agency('POST', '/structure-templates', templateBody(creativeId, { status: 'DRAFT' })));
      const path = `/structure-templates/${t.templateId}`;
      expect(t.settings).to.deep.equal({ budget: { dailyAmount: 5000 }, startOffsetDays: 2 });

      let now = ok(await agency('PATCH', path, { settings: { budget: { dailyAmount: 8000 } } }));
      expect(now.settings).to.deep.equal({ budget: { dailyAmount: 8000 }, startOffsetDays: 2 });
      now = ok(await agency('PATCH', path, { settings: { durationDays: 30, startOffsetDays: null } }));
      expect(now.settings).to.deep.equal({ budget: { dailyAmount: 8000 }, durationDays: 30 });

      now = ok(await agency('PATCH', path, { config: { campaign: { objective: 'OUTCOME_SALES' } } }));
      expect(now.config.campaign).to.deep.equal({ ...t.config.campaign, objective: 'OUTCOME_SALES' });
      expect(now.config.adSets).to.deep.equal(t.config.adSets);
      expect(now.config.ads).to.deep.equal(t.config.ads);
      now = ok(await agency('PATCH', path, { config: { adSets: [{ name: 'One', optimizationGoal: 'LINK_CLICKS' }] } }));
      expect(now.config.adSets).to.deep.equal([{ name: 'One', optimizationGoal: 'LINK_CLICKS' }]);
      expect(now.config.campaign.objective).to.equal('OUTCOME_SALES');
      expect(now.name).to.equal(t.name);
      expect(now.audiences).to.deep.equal(t.audiences);

      const before = ok(await agency('GET', path));
      expect(refused(await agency('PATCH', path, { settings: { budget: { dailyAmount: null } } }))).to.deep.equal(['settings.budget.dailyAmount']);
      expect(refused(await agency('PATCH', path, { settings: null }))).to.deep.equal(['settings']);
      expect(refused(await agency('PATCH', path, { name: null }))).to.deep.equal(['name']);
      expect(refused(await agency('PATCH', path, { config: { ads: null } }))).to.deep.equal(['config.ads']);
      expect(refused(await agency('PATCH', path, { settings: { colour: 'red' } }))).to.deep.equal(['settings.colour']);
      expect(ok(await agency('GET', path))).to.deep.equal(before);
    });

    it('update-automation: guard merges (a null minimum stays null), objectIds null is every object, lists replace', async () => {
      const a = ok(
        await shoes('POST', '/automations', {
          automationName: 'Guarded',
          accountId: 'act_1001',
          level: 'campaign',
          action: 'notify',
          frequency: 'hourly',
          mode: 'shadow',
          conditions: [{ metric: 'spend', window: 'today', operator: 'gt', value: 100 }],
          guard: { minImpressions: 500, minSpend: 1000 },
        }),
      );
      const path = `/automations/${a.automationId}`;
      let now = ok(await shoes('PATCH', path, { guard: { minSpend: 2000 } }));
      expect(now.guard).to.deep.equal({ minImpressions: 500, minSpend: 2000 });
      expect(without(now, 'guard', 'updatedAt', 'nextRunAt')).to.deep.equal(without(a, 'guard', 'updatedAt', 'nextRunAt'));
      now = ok(await shoes('PATCH', path, { guard: { minImpressions: null } }));
      expect(now.guard).to.deep.equal({ minImpressions: null, minSpend: 2000 });
      now = ok(await shoes('PATCH', path, { conditions: [{ metric: 'clicks', window: 'yesterday', operator: 'lt', value: 5 }] }));
      expect(now.conditions).to.deep.equal([{ metric: 'clicks', window: 'yesterday', operator: 'lt', value: 5 }]);
      now = ok(await shoes('PATCH', path, { objectIds: null, mode: 'live' }));
      expect(now).to.deep.include({ objectIds: null, mode: 'live' });
      expect(now.guard).to.deep.equal({ minImpressions: null, minSpend: 2000 });
      expect(refused(await shoes('PATCH', path, { automationName: null }))).to.deep.equal(['automationName']);
      expect(refused(await shoes('PATCH', path, { guard: null }))).to.deep.equal(['guard']);
      expect(refused(await shoes('PATCH', path, { guard: { minSpend: 'lots' } }))).to.deep.equal(['guard.minSpend']);
      expect(ok(await shoes('GET', path)).guard).to.deep.equal({ minImpressions: null, minSpend: 2000 });
    });

    it('set-automation-status: status is required, so null is refused', async () => {
      const a = ok(
        await shoes('POST', '/automations', {
          automationName: 'Status',
          accountId: 'act_1001',
          level: 'campaign',
          action: 'notify',
          frequency: 'hourly',
          conditions: [{ metric: 'spend', window: 'today', operator: 'gt', value: 100 }],
        }),
      );
      expect(refused(await shoes('PATCH', `/automations/${a.automationId}/status`, { status: null }))).to.deep.equal(['status']);
      const paused = ok(await shoes('PATCH', `/automations/${a.automationId}/status`, { status: 'PAUSED' }));
      expect(without(paused, 'status', 'updatedAt', 'nextRunAt')).to.deep.equal(without(a, 'status', 'updatedAt', 'nextRunAt'));
    });

    it('update-node: properties merge into the node settings, nested objects too; null removes a setting', async () => {
      const launchId = await createLaunch(shoes, 'Merge');
      const campaign = await addNode(shoes, launchId, 'campaign', campaignProps);
      const adset = await addNode(shoes, launchId, 'adset', adsetProps, campaign);
      let node = ok(await shoes('PATCH', `/launches/${launchId}/nodes/${adset}`, { properties: { targeting: { ageMin: 21 } } }));
      expect(node.properties).to.deep.equal({ ...adsetProps, targeting: { ...adsetProps.targeting, ageMin: 21 } });
      node = ok(await shoes('PATCH', `/launches/${launchId}/nodes/${adset}`, { properties: { schedule: null, targeting: { ageMax: null } } }));
      expect(node.properties).to.deep.equal({ ...without(adsetProps, 'schedule'), targeting: { countries: ['US'], ageMin: 21 } });
      node = ok(await shoes('PATCH', `/launches/${launchId}/nodes/${campaign}`, { properties: { budget: { dailyAmount: 7000 } } }));
      expect(node.properties).to.deep.equal({ ...campaignProps, budget: { dailyAmount: 7000 } });
      expect(refused(await shoes('PATCH', `/launches/${launchId}/nodes/${campaign}`, { properties: null }))).to.deep.equal(['properties']);
    });

    it('update-launch: only the fields sent change; description null clears it; title null is refused', async () => {
      const launchId = await createLaunch(shoes, 'Title', 'A description');
      let l = ok(await shoes('PATCH', `/launches/${launchId}`, { title: 'New title' }));
      expect(l).to.deep.include({ title: 'New title', description: 'A description' });
      l = ok(await shoes('PATCH', `/launches/${launchId}`, { description: null }));
      expect(l).to.deep.include({ title: 'New title', description: null });
      expect(refused(await shoes('PATCH', `/launches/${launchId}`, { title: null }))).to.deep.equal(['title']);
    });

    it('update-webhook-endpoint: only the fields sent change; brandIds null is every brand; url null is refused', async () => {
      const create = await w.request('POST', '/v1/webhook-endpoints', {
        key: ci,
        body: { url: 'http://127.0.0.1:9999/hook', events: ['launch.published'], description: 'ops', brandIds: [w.brandId('acme', 'shoes')] },
      });
      const e = ok(create);
      const path = `/v1/webhook-endpoints/${e.endpointId}`;
      let now = ok(await w.request('PATCH', path, { key: ci, body: { description: 'on call' } }));
      expect(without(now, 'updatedAt')).to.deep.equal({ ...without(e, 'updatedAt', 'secret'), description: 'on call' });
      now = ok(await w.request('PATCH', path, { key: ci, body: { brandIds: null } }));
      expect(now).to.deep.include({ brandIds: null, description: 'on call', url: e.url });
      expect(refused(await w.request('PATCH', path, { key: ci, body: { url: null } }))).to.deep.equal(['url']);
    });

    it('update-pipeline-column and move-pipeline-card: only the fields sent change; workflowId null unlinks; required fields refuse null', async () => {
      const workflow = ok(await shoes('POST', '/workflows', { workflowName: 'Review gate', trigger: { kind: 'manual' }, nodes: [reviewNode()], edges: [] }));
      const col = ok(await shoes('POST', '/pipeline/columns', { name: 'Review', workflowId: workflow.workflowId, publishes: false }));
      let now = ok(await shoes('PATCH', `/pipeline/columns/${col.columnId}`, { name: 'In review' }));
      expect(without(now, 'updatedAt')).to.deep.equal({ ...without(col, 'updatedAt'), name: 'In review' });
      now = ok(await shoes('PATCH', `/pipeline/columns/${col.columnId}`, { workflowId: null }));
      expect(now).to.deep.include({ name: 'In review', workflowId: null, publishes: false });
      expect(refused(await shoes('PATCH', `/pipeline/columns/${col.columnId}`, { publishes: null }))).to.deep.equal(['publishes']);

      const launchId = await createLaunch(shoes, 'On the board');
      const card = ok(await shoes('POST', '/pipeline/cards', { launchId, columnId: col.columnId }));
      const moved = ok(await shoes('PATCH', `/pipeline/cards/${card.cardId}`, { title: 'Renamed card', version: card.version }));
      expect(moved).to.deep.include({ title: 'Renamed card', columnId: col.columnId, version: card.version + 1 });
      expect(refused(await shoes('PATCH', `/pipeline/cards/${card.cardId}`, { title: 'x', version: null }))).to.deep.equal(['version']);
    });
  });
}
