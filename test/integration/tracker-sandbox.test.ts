// The built-in simulated tracker (baseUrl `sandbox:`), on every storage dialect: a campaign
// published through the service shows up automatically mapped on sub3 to its ad account's tracker
// campaign with deterministic clicks, and a push run (202 at once, carried out by the push job) sets
// its cost in the simulator.

import { expect } from 'chai';
import { dialects } from '../helpers/databases.js';
import { startWorld, type World } from '../helpers/world.js';
import { brandApi, buildLaunch, idem, publish, uploadCreative } from '../helpers/launch-builders.js';
import { runToEnd } from '../helpers/tracker-world.js';

for (const dialect of dialects()) {
  describe(`sandbox click tracker (${dialect})`, function () {
    this.timeout(90_000);
    let w: World;
    let ci: string;
    let shoes: number;

    before(async () => {
      w = await startWorld({ dialect });
      ci = w.key('acme', 'ci');
      shoes = w.brandId('acme', 'shoes');
    });
    after(async () => w?.close());

    it('maps a published campaign on sub3 with deterministic clicks, and a push sets its cost', async () => {
      const connect = await w.request('PUT', `/v1/brands/${shoes}/integrations/tracker`, {
        key: ci,
        body: { baseUrl: 'sandbox:', apiKey: 'sandbox-key-abcd' },
      });
      expect(connect.status, JSON.stringify(connect.body)).to.equal(200);
      expect(connect.body).to.deep.include({ connected: true, baseUrl: 'sandbox:', apiKeyLast4: 'abcd' });
      const api = brandApi(w, ci, shoes);
      const built = await buildLaunch(api, { creativeId: await uploadCreative(w, ci, shoes), ad: { urlTags: 'sub3={{campaign.id}}' } });
      const preview = await api('POST', `/launches/${built.launchId}/publish`, {}, idem('preview'));
      expect(preview.body.warnings).to.deep.equal([]);
      const published = await publish(api, built.launchId);
      expect(published.status, JSON.stringify(published.body)).to.equal(200);
      const platformId = (
        await w.service
          .knex('launch_nodes')
          .where({ launch_id: Number(built.launchId), node_type: 'campaign' })
          .first()
      ).platform_id;

      const first = await w.request('GET', `/v1/brands/${shoes}/integrations/tracker/mappings`, { key: ci });
      expect(first.status, JSON.stringify(first.body)).to.equal(200);
      const again = await w.request('GET', `/v1/brands/${shoes}/integrations/tracker/mappings`, { key: ci });
      expect(again.body.mappings).to.have.length(1);
      expect(again.body.mappings[0]).to.deep.include({
        providerCampaignId: platformId,
        trackerCampaignName: 'Shoes US offers',
        source: 'auto',
        matchedOn: 'sub3',
        pushable: true,
      });
      expect(again.body.trackerCampaigns).to.deep.equal([{ id: again.body.mappings[0].trackerCampaignId, title: 'Shoes US offers', autoCostUpdate: false }]);

      await w.request('PUT', `/v1/brands/${shoes}/integrations/tracker/push`, { key: ci, body: { enabled: true, requestIntervalSeconds: 0 } });
      const started = await w.request('POST', `/v1/brands/${shoes}/integrations/tracker/push/runs`, { key: ci, body: {} });
      expect(started.status, JSON.stringify(started.body)).to.equal(202);
      expect(started.body).to.deep.include({ status: 'running', trigger: 'manual', finishedAt: null });
      const run = await runToEnd(w, ci, shoes, started.body.runId);
      expect(run).to.deep.include({ status: 'succeeded', error: null });
      expect(run.progress.done).to.equal(run.progress.total);
      const today = run.pushed.find((p: any) => !p.final);
      const stored = await w.service.knex('sandbox_tracker_costs').where({ brand_id: shoes, start_date: today.date }).first();
      expect(stored).to.deep.include({
        tracker_campaign_id: today.trackerCampaignId,
        cost: today.cost,
        currency: 'USD',
        timezone: 'America/New_York',
        sub_id_3: '',
      });
    });

    it("with a tracker connected, the publish preview warns about ads without the platform's sub3 campaign macro", async () => {
      const api = brandApi(w, ci, shoes);
      const built = await buildLaunch(api, { creativeId: await uploadCreative(w, ci, shoes), ad: { urlTags: 'utm_source=meta&sub3={{ad.id}}' } });
      const preview = await api('POST', `/launches/${built.launchId}/publish`, {}, idem('preview2'));
      expect(preview.status).to.equal(200);
      expect(preview.body.warnings).to.have.length(1);
      expect(preview.body.warnings[0].message).to.contain('sub3={{campaign.id}}');
    });
  });
}
