// Rules on profit: a condition on roas (or revenue, profit, trackerConversions) saves only at
// level campaign on a brand with a tracker connected (400 naming conditions[i].metric otherwise);
// a shadow run reads the tracker once for all its campaigns and reports the ones it would pause;
// with the tracker down every object is skipped tracker_unavailable and nothing changes.

import { expect } from 'chai';
import { dialects } from '../../helpers/databases.js';
import { startWorld, type World } from '../../helpers/world.js';
import { insightsBootstrap, seedReportObjects, type SeededReport } from '../../helpers/insights-world.js';
import { KeitaroServer } from '../../fakes/keitaro-server.js';
import { addDays, localDate } from '../../../src/time/zones.js';

const KEY = 'kt_rules_key_0077';
const ROAS_BELOW_1 = [{ metric: 'roas', window: 'last_3d', operator: 'lt', value: 1 }];

for (const dialect of dialects()) {
  describe(`automations on profit (${dialect})`, function () {
    this.timeout(60_000);
    let w: World;
    let tracker: KeitaroServer;
    let seeded: SeededReport;
    const api = (method: string, path: string, body?: unknown, brand = 'shoes') =>
      w.request(method, `/v1/brands/${w.brandId('acme', brand)}${path}`, { key: w.key('acme', 'ci'), body });
    const reports = () => tracker.requests.filter((r) => r.path === '/report/build');
    const rule = (extra: Record<string, unknown> = {}) => ({
      automationName: 'ROAS under 1',
      accountId: 'act_1001',
      level: 'campaign',
      conditions: ROAS_BELOW_1,
      action: 'pause',
      frequency: 'daily',
      dailyHour: 6,
      mode: 'shadow',
      ...extra,
    });

    before(async () => {
      tracker = await new KeitaroServer(KEY).start();
      w = await startWorld({ dialect, bootstrap: insightsBootstrap({ baseUrl: tracker.url, apiKey: KEY }), env: { JOBS: 'off' } });
      seeded = await seedReportObjects(w.service.knex, w.seed.organizations.acme.id, w.brandId('acme', 'shoes'));
      const today = localDate(Date.now(), 'America/New_York');
      tracker.campaigns = [{ id: 31, name: 'Offer' }];
      // Campaign 1 earned far more than it can have spent in three days; the others earned nothing.
      tracker.clicks = [
        { date: addDays(today, -2), campaign_id: 31, sub_id_3: seeded.campaigns[0], ad_campaign_id: '', clicks: 50, conversions: 5, revenue: 5000 },
      ];
    });
    after(async () => {
      await w?.close();
      await tracker?.close();
    });

    it('saves a roas rule only at level campaign and only on a brand with a tracker connected', async () => {
      const adset = await api('POST', '/automations', rule({ level: 'adset' }));
      expect(adset.status).to.equal(400);
      expect(adset.body.error.details).to.deep.include({
        field: 'conditions[0].metric',
        code: 'invalid_value',
        message: 'roas comes from the click tracker, by campaign: use level campaign',
      });
      const noTracker = await api(
        'POST',
        '/automations',
        rule({ accountId: 'act_7007', conditions: [{ metric: 'profit', window: 'yesterday', operator: 'lt', value: 0 }] }),
        'hats',
      );
      expect(noTracker.status).to.equal(400);
      expect(noTracker.body.error.details.map((d: any) => d.field)).to.deep.equal(['conditions[0].metric']);
      expect(noTracker.body.error.details[0].message).to.match(/no(ne)? .*connected|none connected/);
      const ok = await api('POST', '/automations', rule());
      expect(ok.status, JSON.stringify(ok.body)).to.equal(201);
      expect(ok.body.conditions).to.deep.equal(ROAS_BELOW_1);
      const moved = await api('PATCH', `/automations/${ok.body.automationId}`, { level: 'ad' });
      expect(moved.status).to.equal(400);
      expect(moved.body.error.details.map((d: any) => d.field)).to.include('conditions[0].metric');
      await api('DELETE', `/automations/${ok.body.automationId}`);
    });

    it('a shadow run reads the tracker once and reports the campaigns it would pause', async () => {
      const created = await api(
        'POST',
        '/automations',
        rule({ conditions: [...ROAS_BELOW_1, { metric: 'trackerConversions', window: 'last_3d', operator: 'lt', value: 2 }] }),
      );
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      const before = reports().length;
      const run = await api('POST', `/automations/${created.body.automationId}/runs`);
      expect(run.status, JSON.stringify(run.body)).to.equal(201);
      expect(reports().length - before).to.equal(1);
      expect(reports()[reports().length - 1].body.filters[0].expression.sort()).to.deep.equal([...seeded.campaigns].sort());
      const byId = new Map(run.body.objects.map((o: any) => [o.objectId, o]));
      const earner: any = byId.get(seeded.campaigns[0]);
      expect(earner).to.include({ matched: false, action: 'none', skipReason: null });
      expect(earner.metrics.last_3d.roas).to.be.greaterThan(1);
      expect(earner.metrics.last_3d.trackerConversions).to.equal(5);
      for (const id of seeded.campaigns.slice(1)) {
        const o: any = byId.get(id);
        expect(o, id).to.include({ matched: true, intended: 'pause', action: 'none', skipReason: 'shadow' });
        expect(o.metrics.last_3d.roas).to.equal(0);
      }
      // Nothing was paused on the platform: a shadow run changes nothing.
      const statuses = await w.service.knex('sandbox_objects').whereIn('object_id', seeded.campaigns).pluck('status');
      expect(statuses).to.deep.equal(['ACTIVE', 'ACTIVE', 'ACTIVE']);
      await api('DELETE', `/automations/${created.body.automationId}`);
    });

    it('with the tracker down, every object is skipped tracker_unavailable and nothing is changed', async () => {
      const created = await api('POST', '/automations', rule({ mode: 'live' }));
      expect(created.status).to.equal(201);
      tracker.faults.push({ status: 503, path: /report/ });
      const run = await api('POST', `/automations/${created.body.automationId}/runs`);
      expect(run.status, JSON.stringify(run.body)).to.equal(201);
      expect(run.body.objects).to.have.length(3);
      for (const o of run.body.objects) expect(o).to.include({ matched: false, action: 'none', skipReason: 'tracker_unavailable' });
      const statuses = await w.service.knex('sandbox_objects').whereIn('object_id', seeded.campaigns).pluck('status');
      expect(statuses).to.deep.equal(['ACTIVE', 'ACTIVE', 'ACTIVE']);
      // The tracker back: the live rule pauses the campaigns that made no money.
      const next = await api('POST', `/automations/${created.body.automationId}/runs`);
      expect(
        next.body.objects
          .filter((o: any) => o.action === 'paused')
          .map((o: any) => o.objectId)
          .sort(),
      ).to.deep.equal(seeded.campaigns.slice(1).sort());
    });
  });
}
