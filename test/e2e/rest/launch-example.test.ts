// Replays the launch of docs/launches.md step by step over REST, with its three failure cases;
// the published campaign then shows in the live campaign list.

import { expect } from 'chai';
import { dialects } from '../../helpers/databases.js';
import { makePng } from '../../helpers/png.js';
import { startWorld, type World } from '../../helpers/world.js';
import { adProps, adsetProps, campaignProps, exampleWorld } from '../../helpers/example-world.js';

for (const dialect of dialects()) {
  describe(`launch example, step by step over REST (${dialect})`, function () {
    this.timeout(30_000);
    let w: World;
    let key: string;
    let brandId: number;
    let launchId: string;
    let campaignId: string;
    let adsetId: string;
    let adId: string;
    let creativeId: number;
    const api = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}, k = key) =>
      w.request(method, `/v1/brands/${brandId}${path}`, { key: k, body, headers });
    let n = 0;
    const idem = () => ({ 'Idempotency-Key': `example-${dialect}-${Date.now()}-${n++}` });

    before(async () => {
      w = await startWorld({ dialect, bootstrap: exampleWorld() });
      key = w.key('acme', 'ci');
      brandId = w.brandId('acme', 'shoes');
    });
    after(async () => w?.close());

    it('1. creates the launch', async () => {
      const reply = await api('POST', '/launches', { title: 'Spring sale' });
      expect(reply.status, JSON.stringify(reply.body)).to.equal(201);
      expect(reply.body).to.deep.include({ title: 'Spring sale', brandId, brandName: 'Shoes Co', accountId: 'act_1001' });
      expect(reply.body.id).to.be.a('string');
      launchId = reply.body.id;
    });

    it('2. uploads a creative as multipart form data', async () => {
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(makePng(1080, 1080))], { type: 'image/png' }), 'hero.png');
      const res = await fetch(`${w.url}/v1/brands/${brandId}/creatives`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form });
      const body = await res.json();
      expect(res.status, JSON.stringify(body)).to.equal(201);
      expect(body).to.deep.include({ name: 'hero.png', type: 'image', width: 1080, height: 1080 });
      expect(body.id).to.be.a('number');
      creativeId = body.id;
    });

    it('3. adds a campaign, an ad set and an ad', async () => {
      const c = await api('POST', `/launches/${launchId}/nodes`, { nodeType: 'campaign', properties: campaignProps });
      expect(c.status, JSON.stringify(c.body)).to.equal(201);
      expect(c.body).to.deep.include({ nodeType: 'campaign', parentId: null, status: 'draft' });
      expect(c.body.properties).to.deep.equal(campaignProps);
      campaignId = c.body.id;
      const s = await api('POST', `/launches/${launchId}/nodes`, { nodeType: 'adset', parentId: campaignId, properties: adsetProps });
      expect(s.status, JSON.stringify(s.body)).to.equal(201);
      expect(s.body.parentId).to.equal(campaignId);
      adsetId = s.body.id;
      const a = await api('POST', `/launches/${launchId}/nodes`, { nodeType: 'ad', parentId: adsetId, properties: adProps });
      expect(a.status, JSON.stringify(a.body)).to.equal(201);
      adId = a.body.id;
    });

    it('4. attaches the creative to the ad', async () => {
      const reply = await api('PATCH', `/launches/${launchId}/nodes/${adId}`, { creativeId });
      expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
      expect(reply.body.properties.creativeId).to.equal(creativeId);
    });

    it('7 (before publishing). a live budget edit on a draft node answers 409 conflict', async () => {
      const reply = await api(
        'POST',
        `/launches/${launchId}/nodes/${campaignId}/live-budget`,
        { level: 'CAMPAIGN', budgetType: 'daily', amount: 7000 },
        idem(),
      );
      expect(reply.status, JSON.stringify(reply.body)).to.equal(409);
      expect(reply.body.error.code).to.equal('conflict');
    });

    it('5. previews: the plan, the counted budget, counts, valid; nothing changes', async () => {
      const reply = await api('POST', `/launches/${launchId}/publish`, {}, idem());
      expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
      expect(reply.body).to.deep.include({ valid: true, confirmed: false, status: 'draft', counts: { campaigns: 1, adSets: 1, ads: 1 } });
      expect(reply.body.budget.countedMinorUnits).to.equal(5000);
      expect(reply.body.budget.ceiling).to.deep.equal({ limitMinorUnits: 50000, committedMinorUnits: 0, remainingMinorUnits: 50000 });
      expect(reply.body.plan.campaigns.map((c: any) => c.nodeId)).to.deep.equal([campaignId]);
      expect(reply.body.plan.adSets.map((c: any) => c.nodeId)).to.deep.equal([adsetId]);
      expect(reply.body.plan.ads.map((c: any) => c.nodeId)).to.deep.equal([adId]);
      const launch = await api('GET', `/launches/${launchId}`);
      expect(launch.body.status).to.equal('draft');
    });

    it('publishing with a key whose ceiling is too small answers 403 spend_ceiling_exceeded; nothing is published', async () => {
      const reply = await api('POST', `/launches/${launchId}/publish`, { confirm: true }, idem(), w.key('acme', 'small'));
      expect(reply.status, JSON.stringify(reply.body)).to.equal(403);
      expect(reply.body.error.code).to.equal('spend_ceiling_exceeded');
      expect(reply.body.error.message).to.contain('$40.00').and.contain('$0.00').and.contain('$50.00');
      const launch = await api('GET', `/launches/${launchId}`);
      expect(launch.body.status).to.equal('draft');
      expect(launch.body.campaigns[0].node.platformId).to.equal(null);
      const list = await api('GET', '/ad-accounts/act_1001/campaigns');
      expect(list.body.totalInAccount).to.equal(0);
    });

    it('a key without a ceiling gets 403 spend_ceiling_required', async () => {
      const reply = await api('POST', `/launches/${launchId}/publish`, { confirm: true }, idem(), w.key('acme', 'noceiling'));
      expect(reply.status).to.equal(403);
      expect(reply.body.error.code).to.equal('spend_ceiling_required');
    });

    it('publishing without an Idempotency-Key answers 400 idempotency_key_required', async () => {
      const reply = await api('POST', `/launches/${launchId}/publish`, { confirm: true });
      expect(reply.status).to.equal(400);
      expect(reply.body.error.code).to.equal('idempotency_key_required');
    });

    it('6. publishes: platform ids on every node, 5000 counted, the campaign in the live list', async () => {
      const reply = await api('POST', `/launches/${launchId}/publish`, { confirm: true }, idem());
      expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
      expect(reply.body).to.deep.include({ confirmed: true, status: 'published' });
      expect(reply.body.budget.ceiling).to.deep.equal({ limitMinorUnits: 50000, committedMinorUnits: 5000, remainingMinorUnits: 45000 });
      const launch = await api('GET', `/launches/${launchId}`);
      expect(launch.body.status).to.equal('published');
      const c = launch.body.campaigns[0];
      for (const node of [c.node, c.adSets[0].node, c.adSets[0].ads[0]]) {
        expect(node.status).to.equal('live');
        expect(node.platformId).to.match(/^1202\d{13}$/);
      }
      const list = await api('GET', '/ad-accounts/act_1001/campaigns');
      expect(list.body.campaigns).to.have.length(1);
      expect(list.body.campaigns[0]).to.deep.include({
        id: c.node.platformId,
        name: 'Spring - US',
        status: 'ACTIVE',
        budget: { period: 'daily', amountMinorUnits: 5000 },
        imported: true,
      });
    });

    it('7. edits the live budget: 7000 more counted, the list shows the new budget', async () => {
      const reply = await api(
        'POST',
        `/launches/${launchId}/nodes/${campaignId}/live-budget`,
        { level: 'CAMPAIGN', budgetType: 'daily', amount: 7000 },
        idem(),
      );
      expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
      expect(reply.body.budget).to.deep.equal({ period: 'daily', amountMinorUnits: 7000 });
      expect(reply.body.ceiling).to.deep.equal({ limitMinorUnits: 50000, committedMinorUnits: 12000, remainingMinorUnits: 38000 });
      const list = await api('GET', '/ad-accounts/act_1001/campaigns');
      expect(list.body.campaigns[0].budget).to.deep.equal({ period: 'daily', amountMinorUnits: 7000 });
    });

    it('a campaign with no budget and an ad set with no budget fails with "Launch validation failed: 1 issues."', async () => {
      const l = await api('POST', '/launches', { title: 'No budget' });
      const c = await api('POST', `/launches/${l.body.id}/nodes`, { nodeType: 'campaign', properties: { ...campaignProps, budget: undefined } });
      const s = await api('POST', `/launches/${l.body.id}/nodes`, { nodeType: 'adset', parentId: c.body.id, properties: adsetProps });
      const a = await api('POST', `/launches/${l.body.id}/nodes`, { nodeType: 'ad', parentId: s.body.id, properties: { ...adProps, creativeId } });
      expect(a.status).to.equal(201);
      for (const confirm of [false, true]) {
        const reply = await api('POST', `/launches/${l.body.id}/publish`, { confirm }, idem());
        expect(reply.status, JSON.stringify(reply.body)).to.equal(400);
        expect(reply.body.error.code).to.equal('validation_failed');
        expect(reply.body.error.message).to.equal('Launch validation failed: 1 issues.');
        expect(reply.body.error.details).to.have.length(1);
        expect(reply.body.error.details[0].field).to.equal(`adSets[${s.body.id}].budget.dailyAmount`);
        expect(reply.body.error.details[0].message).to.be.a('string').and.not.empty;
      }
    });
  });
}
