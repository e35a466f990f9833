// The click-tracker integration over REST against a fake Keitaro server: the contract's mapping list
// (automatic on sub3 and on the fallback parameter, manual, ambiguous, shared campaigns, no clicks),
// PUT of a mapping answering the full list, the connection showing only the key's last four
// characters, and the role rules (members read, only owner or admin change: 403 forbidden;
// PUT .../push before a tracker is connected: 409 conflict).

import { expect } from 'chai';
import { dialects } from '../../helpers/databases.js';
import { startWorld, type World } from '../../helpers/world.js';
import { startOAuthWorld, tokensFor } from '../../helpers/oauth.js';
import { KeitaroServer } from '../../fakes/keitaro-server.js';
import { M, NAMES, mappingBootstrap, seedMappingCases } from '../../helpers/tracker-mapping-world.js';

const KEY = 'kt_rest_key_7781';
const mia = { email: 'mia@acme.test', password: 'correct horse 2' };
const olive = { email: 'olive@acme.test', password: 'correct horse 1' };
const adam = { email: 'adam@acme.test', password: 'correct horse 3' };

for (const dialect of dialects()) {
  describe(`click tracker over REST (${dialect})`, function () {
    this.timeout(90_000);
    let w: World;
    let tracker: KeitaroServer;
    let ci: string;
    let brand: number;
    let bare: number;
    const tokens: Record<string, string> = {};
    const base = () => `/v1/brands/${brand}/integrations/tracker`;

    before(async () => {
      tracker = await new KeitaroServer(KEY).start();
      // Default settings: the bootstrap file's tracker is the operator's address, called as given.
      w = await startOAuthWorld(dialect, mappingBootstrap(tracker.url, KEY), { JOBS: 'off' });
      ci = w.key('acme', 'ci');
      brand = w.brandId('acme', 'mapped');
      bare = w.brandId('acme', 'bare');
      await seedMappingCases(w.service.knex, tracker, w.seed.organizations.acme.id, brand);
      for (const [name, person] of Object.entries({ mia, olive, adam })) {
        tokens[name] = (await tokensFor(w.url, person, { resource: `${w.url}/v1`, scope: 'read write' })).access_token;
      }
    });
    after(async () => {
      await w?.close();
      await tracker?.close();
    });

    it("GET the connection: baseUrl and the key's last four characters, never the key", async () => {
      const got = await w.request('GET', base(), { key: tokens.mia });
      expect(got.status).to.equal(200);
      expect(got.body).to.deep.include({ brandId: brand, connected: true, baseUrl: tracker.url, apiKeyLast4: '7781' });
      expect(JSON.stringify(got.body)).to.not.contain(KEY);
      const none = await w.request('GET', `/v1/brands/${bare}/integrations/tracker`, { key: ci });
      expect(none.body).to.deep.include({ connected: false, baseUrl: null, apiKeyLast4: null });
    });

    it('a member reads the mapping list: automatic (sub3 and tracker_campaign_id), ambiguous, shared, no clicks, automatic cost', async () => {
      const got = await w.request('GET', `${base()}/mappings`, { key: tokens.mia });
      expect(got.status, JSON.stringify(got.body)).to.equal(200);
      const body = got.body;
      expect(body.brandId).to.equal(brand);
      expect(body.trackerCampaigns).to.deep.include({ id: '38', title: 'Auto-cost offer', autoCostUpdate: true });
      expect(body.trackerCampaigns).to.deep.include({ id: '31', title: 'Alpha offer', autoCostUpdate: false });
      const byId = new Map<string, any>(body.mappings.map((m: any) => [m.providerCampaignId, m]));
      const pick = (m: any) => ({
        trackerCampaignId: m.trackerCampaignId,
        trackerCampaignName: m.trackerCampaignName,
        source: m.source,
        matchedOn: m.matchedOn,
        pushable: m.pushable,
        skipReason: m.skipReason,
      });
      expect(pick(byId.get(M.A))).to.deep.equal({
        trackerCampaignId: '31',
        trackerCampaignName: 'Alpha offer',
        source: 'auto',
        matchedOn: 'sub3',
        pushable: true,
        skipReason: null,
      });
      expect(pick(byId.get(M.B))).to.deep.equal({
        trackerCampaignId: '32',
        trackerCampaignName: 'Shared offer',
        source: 'auto',
        matchedOn: 'sub3',
        pushable: true,
        skipReason: null,
      });
      expect(pick(byId.get(M.D))).to.deep.equal({
        trackerCampaignId: '35',
        trackerCampaignName: 'Delta offer',
        source: 'auto',
        matchedOn: 'tracker_campaign_id',
        pushable: true,
        skipReason: null,
      });
      expect(pick(byId.get(M.G))).to.deep.equal({
        trackerCampaignId: '36',
        trackerCampaignName: 'Golf clicks',
        source: 'auto',
        matchedOn: 'sub3',
        pushable: true,
        skipReason: null,
      });
      expect(pick(byId.get(M.I))).to.deep.equal({
        trackerCampaignId: '38',
        trackerCampaignName: 'Auto-cost offer',
        source: 'auto',
        matchedOn: 'sub3',
        pushable: false,
        skipReason: 'auto_cost_update',
      });
      expect(byId.get(M.A)).to.deep.include({ svcCampaignName: NAMES.A, provider: 'meta', updatedByUserId: 0 });
      expect(byId.get(M.A).updatedAt).to.be.a('string');
      const unmatched = new Map<string, any>(body.unmatched.map((u: any) => [u.providerCampaignId, u]));
      expect(unmatched.get(M.C)).to.deep.equal({
        providerCampaignId: M.C,
        svcCampaignName: NAMES.C,
        provider: 'meta',
        reason: 'ambiguous',
        candidates: [
          { trackerCampaignId: '33', trackerCampaignName: 'Charlie one', clicks: 420 },
          { trackerCampaignId: '34', trackerCampaignName: 'Charlie two', clicks: 120 },
        ],
      });
      expect(unmatched.get(M.E)).to.deep.equal({
        providerCampaignId: M.E,
        svcCampaignName: NAMES.E,
        provider: 'meta',
        reason: 'shared_campaign_without_sub3',
        candidates: [{ trackerCampaignId: '32', trackerCampaignName: 'Shared offer', clicks: 180 }],
      });
      expect(unmatched.get(M.F)).to.deep.equal({ providerCampaignId: M.F, svcCampaignName: NAMES.F, provider: 'meta', reason: 'no_clicks', candidates: [] });
      // H has no clicks at all: unmatched until a manual mapping.
      expect(unmatched.get(M.H)).to.deep.include({ reason: 'no_clicks' });
      expect([...unmatched.keys()].sort()).to.deep.equal([M.C, M.E, M.F, M.H].sort());
      // The push reads the same list.
      const push = await w.request('GET', `${base()}/push`, { key: tokens.mia });
      expect(push.status).to.equal(200);
      expect(push.body).to.deep.include({ brandId: brand, connected: true, enabled: false, disabledReason: null, unmatchedCount: 0 });
    });

    it('a manual mapping wins, answers the full list, and null removes it; into a shared campaign without sub3 it is not pushable', async () => {
      const manual = await w.request('PUT', `${base()}/mappings/${M.G}`, { key: tokens.olive, body: { trackerCampaignId: '37' } });
      expect(manual.status, JSON.stringify(manual.body)).to.equal(200);
      const g = manual.body.mappings.find((m: any) => m.providerCampaignId === M.G);
      expect(g).to.deep.include({
        trackerCampaignId: '37',
        trackerCampaignName: 'Manual pick',
        source: 'manual',
        matchedOn: 'tracker_campaign_id',
        pushable: true,
        skipReason: null,
      });
      expect(g.updatedByUserId).to.equal(w.seed.organizations.acme.users.olive.id);
      expect(manual.body.unmatched.map((u: any) => u.providerCampaignId)).to.include(M.C);

      const shared = await w.request('PUT', `${base()}/mappings/${M.H}`, { key: ci, body: { trackerCampaignId: '32' } });
      expect(shared.status).to.equal(200);
      expect(shared.body.mappings.find((m: any) => m.providerCampaignId === M.H)).to.deep.include({
        trackerCampaignId: '32',
        source: 'manual',
        pushable: false,
        skipReason: 'shared_campaign_without_sub3',
      });
      expect(shared.body.unmatched.map((u: any) => u.providerCampaignId)).to.not.include(M.H);

      const removed = await w.request('PUT', `${base()}/mappings/${M.G}`, { key: tokens.adam, body: { trackerCampaignId: null } });
      expect(removed.status).to.equal(200);
      expect(removed.body.mappings.find((m: any) => m.providerCampaignId === M.G)).to.deep.include({ trackerCampaignId: '36', source: 'auto' });
    });

    it('PUT of a mapping: 404 for a campaign the brand did not launch, 422 for a tracker campaign that does not exist, 400 without trackerCampaignId', async () => {
      const missing = await w.request('PUT', `${base()}/mappings/120299999999999`, { key: ci, body: { trackerCampaignId: '31' } });
      expect(missing.status).to.equal(404);
      expect(missing.body.error.code).to.equal('not_found');
      const unknown = await w.request('PUT', `${base()}/mappings/${M.C}`, { key: ci, body: { trackerCampaignId: '404' } });
      expect(unknown.status).to.equal(422);
      expect(unknown.body.error.code).to.equal('unprocessable');
      const bad = await w.request('PUT', `${base()}/mappings/${M.C}`, { key: ci, body: {} });
      expect(bad.status).to.equal(400);
      expect(bad.body.error.code).to.equal('validation_failed');
    });

    const changes = [
      { what: 'PUT a mapping', method: 'PUT', path: () => `${base()}/mappings/${M.C}`, body: { trackerCampaignId: '33' } },
      { what: 'PUT the push', method: 'PUT', path: () => `${base()}/push`, body: { enabled: true } },
      { what: 'run a push cycle', method: 'POST', path: () => `${base()}/push/runs`, body: {} },
      { what: 'connect the tracker', method: 'PUT', path: () => base(), body: { baseUrl: 'http://127.0.0.1:9', apiKey: 'kt_member_try_0000' } },
      { what: 'disconnect the tracker', method: 'DELETE', path: () => base(), body: undefined },
    ];
    for (const c of changes) {
      it(`a member may not ${c.what}: 403 forbidden, nothing changed`, async () => {
        const reply = await w.request(c.method, c.path(), { key: tokens.mia, body: c.body });
        expect(reply.status).to.equal(403);
        expect(reply.body.error.code).to.equal('forbidden');
        expect(reply.body.error.message).to.match(/owner or admin/);
        const conn = await w.request('GET', base(), { key: ci });
        expect(conn.body).to.deep.include({ connected: true, apiKeyLast4: '7781' });
      });
    }

    it('PUT .../push before a tracker is connected: 409 conflict; reading the push of that brand says connected: false', async () => {
      const put = await w.request('PUT', `/v1/brands/${bare}/integrations/tracker/push`, { key: tokens.olive, body: { enabled: true } });
      expect(put.status).to.equal(409);
      expect(put.body.error.code).to.equal('conflict');
      expect(put.body.error.message).to.match(/connect/);
      const mappings = await w.request('GET', `/v1/brands/${bare}/integrations/tracker/mappings`, { key: ci });
      expect(mappings.status).to.equal(409);
      const got = await w.request('GET', `/v1/brands/${bare}/integrations/tracker/push`, { key: tokens.mia });
      expect(got.body).to.deep.include({ connected: false, enabled: false });
    });

    it('an owner turns the push on and runs a cycle: pushable mappings are set, the rest skipped with their reason', async () => {
      const on = await w.request('PUT', `${base()}/push`, { key: tokens.olive, body: { enabled: true, requestIntervalSeconds: 0 } });
      expect(on.status).to.equal(200);
      expect(on.body).to.deep.include({ enabled: true, disabledReason: null, connected: true });
      const started = await w.request('POST', `${base()}/push/runs`, { key: ci, body: {} });
      expect(started.status, JSON.stringify(started.body)).to.equal(202);
      expect(started.body).to.deep.include({ brandId: brand, status: 'running', trigger: 'manual', finishedAt: null, pushed: [], skipped: [], error: null });
      expect(started.body.runId).to.be.a('number');
      // While a run goes on, asking again answers that run.
      const again = await w.request('POST', `${base()}/push/runs`, { key: ci, body: {} });
      expect(again.body.runId).to.equal(started.body.runId);
      expect(tracker.costUpdates).to.have.length(0);
      // The brand's push job carries the run out (the worker is driven by hand here).
      await w.service.jobs.drain();
      const run = await w.request('GET', `${base()}/push/runs/${started.body.runId}`, { key: tokens.mia });
      expect(run.status, JSON.stringify(run.body)).to.equal(200);
      expect(run.body).to.deep.include({ runId: started.body.runId, status: 'succeeded', trigger: 'manual', error: null });
      // Every cost update planned was sent: today's and, the first time, yesterday's final spend.
      expect(run.body.progress).to.deep.equal({ done: run.body.pushed.length, total: run.body.pushed.length });
      const today = run.body.pushed.filter((p: any) => !p.final);
      expect(today.map((p: any) => p.providerCampaignId).sort()).to.deep.equal([M.A, M.B, M.D, M.G].sort());
      expect(Object.keys(today[0]).sort()).to.deep.equal(['cost', 'currency', 'date', 'final', 'providerCampaignId', 'timezone', 'trackerCampaignId']);
      expect(run.body.skipped).to.deep.include({ providerCampaignId: M.H, reason: 'shared_campaign_without_sub3' });
      expect(run.body.skipped).to.deep.include({ providerCampaignId: M.I, reason: 'auto_cost_update' });
      const setting = await w.request('GET', `${base()}/push`, { key: ci });
      expect(setting.body).to.deep.include({ lastCampaignsPushed: 4, unmatchedCount: 3 });
      expect(tracker.costUpdates.find((r) => r.body.filters?.sub_id_3 === M.A)).to.equal(undefined);
      const missing = await w.request('GET', `${base()}/push/runs/999999`, { key: ci });
      expect(missing.status).to.equal(404);
      const b = tracker.costUpdates.find((r) => r.body.filters?.sub_id_3 === M.B)!;
      expect(b.apiKey).to.equal(KEY);
      expect(b.body).to.deep.include({ currency: 'USD', timezone: 'UTC' });
    });
  });

  describe(`click tracker addresses (${dialect})`, function () {
    this.timeout(60_000);
    let w: World;
    let tracker: KeitaroServer;

    before(async () => {
      tracker = await new KeitaroServer(KEY).start();
      w = await startWorld({ dialect, env: { JOBS: 'off' } });
    });
    after(async () => {
      await w?.close();
      await tracker?.close();
    });

    it('refuses a tracker on a loopback, private or plain-http address without WEBHOOK_ALLOW_PRIVATE, before any request; sandbox: is always taken', async () => {
      const path = `/v1/brands/${w.brandId('acme', 'shoes')}/integrations/tracker`;
      for (const baseUrl of [tracker.url, 'https://10.1.2.3', 'https://localhost:8443', 'http://tracker.example.com']) {
        const refused = await w.request('PUT', path, { key: w.key('acme', 'ci'), body: { baseUrl, apiKey: 'kt_key_0001' } });
        expect(refused.status, baseUrl).to.equal(400);
        expect(
          refused.body.error.details.map((d: any) => `${d.field}:${d.code}`),
          baseUrl,
        ).to.deep.equal(['baseUrl:invalid_value']);
      }
      expect(tracker.requests).to.deep.equal([]);
      const still = await w.request('GET', path, { key: w.key('acme', 'ci') });
      expect(still.body.connected).to.equal(false);
      const accepted = await w.request('PUT', path, { key: w.key('acme', 'ci'), body: { baseUrl: 'https://tracker.example.com', apiKey: 'kt_key_0001' } });
      expect(accepted.status, JSON.stringify(accepted.body)).to.equal(200);
      expect(accepted.body).to.deep.include({ connected: true, baseUrl: 'https://tracker.example.com', apiKeyLast4: '0001' });
      const simulated = await w.request('PUT', path, { key: w.key('acme', 'ci'), body: { baseUrl: 'sandbox:', apiKey: 'kt_key_0002' } });
      expect(simulated.status, JSON.stringify(simulated.body)).to.equal(200);
      expect(simulated.body).to.deep.include({ connected: true, baseUrl: 'sandbox:' });
    });
  });
}
