// Structure templates over REST: lifecycle, PATCH of each field, audiences required, apply to two
// ad accounts of one brand producing a launch that publishes in the sandbox, the template fields
// named when the tree would not validate, DRAFT refused, and NEEDS_ATTENTION once an ad account or
// audience it names is gone.

import { expect } from 'chai';
import { dialects } from '../../helpers/databases.js';
import { templateBody, templatesWorld } from '../../helpers/structure-templates.js';
import { startWorld, type World } from '../../helpers/world.js';
import { brandApi, idem, publish, uploadCreative, type Api } from '../../helpers/launch-builders.js';

for (const dialect of dialects()) {
  describe(`structure templates over REST (${dialect})`, function () {
    this.timeout(60_000);
    let w: World;
    let api: Api;
    let brandId: number;
    let creativeId: number;

    before(async () => {
      w = await startWorld({ dialect, bootstrap: templatesWorld() });
      brandId = w.brandId('acme', 'agency');
      api = brandApi(w, w.key('acme', 'ci'), brandId);
      creativeId = await uploadCreative(w, w.key('acme', 'ci'), brandId, 'hero.png');
    });
    after(async () => w?.close());

    it('creates, lists newest first, reads and deletes a template', async () => {
      const a = await api('POST', '/structure-templates', templateBody(creativeId, { name: 'First', status: undefined }));
      expect(a.status, JSON.stringify(a.body)).to.equal(201);
      expect(a.body).to.deep.include({ name: 'First', status: 'DRAFT', statusReasons: [], scope: 'multiple', accounts: ['act_3001', 'act_3002'], brandId });
      const b = await api('POST', '/structure-templates', templateBody(creativeId, { name: 'Second' }));
      const page = await api('GET', '/structure-templates?limit=1');
      expect(page.body.structureTemplates.map((t: any) => t.name)).to.deep.equal(['Second']);
      const next = await api('GET', `/structure-templates?limit=1&cursor=${encodeURIComponent(page.body.nextCursor)}`);
      expect(next.body.structureTemplates.map((t: any) => t.name)).to.deep.equal(['First']);
      const got = await api('GET', `/structure-templates/${a.body.templateId}`);
      expect(got.body).to.deep.equal(a.body);
      const gone = await api('DELETE', `/structure-templates/${a.body.templateId}`);
      expect(gone.body).to.deep.equal({ templateId: a.body.templateId, deleted: true });
      expect((await api('GET', `/structure-templates/${a.body.templateId}`)).status).to.equal(404);
      await api('DELETE', `/structure-templates/${b.body.templateId}`);
    });

    it('requires at least one audience to save, and what each audience kind needs', async () => {
      const table: Array<[Record<string, unknown>, string, string]> = [
        [{ audiences: [] }, 'audiences', 'too_small'],
        [{ audiences: undefined }, 'audiences', 'invalid_type'],
        [{ audiences: [{ kind: 'customAudience', name: 'No id' }] }, 'audiences[0].audienceId', 'invalid_value'],
        [{ audiences: [{ kind: 'targetingSet', name: 'Nothing' }] }, 'audiences[0].targeting', 'invalid_value'],
        [{ accounts: ['act_9001'] }, 'accounts[0]', 'invalid_value'],
        [{ scope: 'single' }, 'scope', 'invalid_value'],
        [
          { config: { ...templateBody(creativeId).config, campaign: { name: '{nope}', objective: 'OUTCOME_TRAFFIC', accountId: 'act_3001' } } },
          'config.campaign.name',
          'invalid_value',
        ],
        [
          { config: { ...templateBody(creativeId).config, campaign: { objective: 'OUTCOME_TRAFFIC', accountId: 'act_3001' } } },
          'config.campaign.accountId',
          'invalid_value',
        ],
        [{ config: { ...templateBody(creativeId).config, ads: [{ creativeId: 999999 }] } }, 'config.ads[0].creativeId', 'invalid_value'],
        [{ colour: 'red' }, 'colour', 'unrecognized_key'],
      ];
      for (const [over, field, code] of table) {
        const res = await api('POST', '/structure-templates', templateBody(creativeId, over));
        expect(res.status, field).to.equal(400);
        expect(
          res.body.error.details.map((d: any) => [d.field, d.code]),
          field,
        ).to.deep.include([field, code]);
      }
    });

    it('changes only the fields sent, for each field, and validates a new config before saving', async () => {
      const t = (await api('POST', '/structure-templates', templateBody(creativeId, { status: 'DRAFT' }))).body;
      const path = `/structure-templates/${t.templateId}`;
      // Each change, and what the field holds afterwards: settings merge key by key (RFC 7396).
      const changes: Array<[Record<string, unknown>, Record<string, unknown>?]> = [
        [{ name: 'Renamed' }],
        [{ config: { ...t.config, campaign: { ...t.config.campaign, objective: 'OUTCOME_SALES' } } }],
        [{ audiences: [{ kind: 'targetingSet', name: 'Teens', targeting: { ageMin: 18, ageMax: 19 } }] }],
        [{ settings: { budget: { dailyAmount: 9000 } } }, { settings: { budget: { dailyAmount: 9000 }, startOffsetDays: 2 } }],
        [{ accounts: ['act_3001'] }],
        [{ scope: 'single' }],
        [{ status: 'READY' }],
      ];
      let expected = t;
      for (const [change, after = change] of changes) {
        const res = await api('PATCH', path, change);
        expect(res.status, JSON.stringify(res.body)).to.equal(200);
        const { updatedAt: _u, ...rest } = res.body;
        const { updatedAt: _e, ...exp } = { ...expected, ...after };
        expect(rest, Object.keys(change)[0]).to.deep.equal(exp);
        expected = res.body;
      }
      const bad = await api('PATCH', path, { config: { ...t.config, adSets: [{ name: '{bogus|upper}' }], ads: [] } });
      expect(bad.status, JSON.stringify(bad.body)).to.equal(400);
      expect(bad.body.error.details.map((d: any) => d.field)).to.include.members(['config.ads']);
      const bad2 = await api('PATCH', path, { config: { ...t.config, adSets: [{ name: '{bogus}' }] } });
      expect(bad2.body.error.details.map((d: any) => d.field)).to.deep.equal(['config.adSets[0].name']);
      const twoOnSingle = await api('PATCH', path, { accounts: ['act_3001', 'act_3002'] });
      expect(twoOnSingle.body.error.details.map((d: any) => d.field)).to.deep.equal(['accounts']);
      const empty = await api('PATCH', path, {});
      expect(empty.status, JSON.stringify(empty.body)).to.equal(400);
      expect((await api('GET', path)).body).to.deep.equal(expected);
    });

    it('applies a READY template to two ad accounts: one draft launch that publishes in the sandbox', async () => {
      const t = (await api('POST', '/structure-templates', templateBody(creativeId))).body;
      const applied = await api('POST', `/structure-templates/${t.templateId}/launches`, {}, idem('apply'));
      expect(applied.status, JSON.stringify(applied.body)).to.equal(201);
      // 2 accounts × (1 campaign, 1 ad set × 2 audiences, 2 ads each).
      expect(applied.body).to.deep.include({ templateId: t.templateId, status: 'draft', campaigns: 2, adSets: 4, ads: 8, title: 'Prospecting' });
      const launch = (await api('GET', `/launches/${applied.body.launchId}`)).body;
      expect(launch.campaigns.map((c: any) => c.node.properties.name)).to.deep.equal([
        'Agency Brand | Agency US | OUTCOME_TRAFFIC',
        'Agency Brand | Agency EU | OUTCOME_TRAFFIC',
      ]);
      expect(launch.campaigns.map((c: any) => c.node.accountId)).to.deep.equal(['act_3001', 'act_3002']);
      const [broad, lookalike] = launch.campaigns[0].adSets;
      expect(broad.node.properties.name).to.equal('Broad 25-45 | US | 25-45');
      expect(broad.node.properties.targeting).to.deep.equal({ countries: ['US'], ageMin: 25, ageMax: 45 });
      expect(lookalike.node.properties.targeting).to.deep.equal({ countries: ['US'], ageMin: 18, ageMax: 65, customAudiences: ['aud_lookalike'] });
      expect(launch.campaigns[0].node.properties.budget).to.deep.equal({ dailyAmount: 5000 });
      expect(Date.parse(broad.node.properties.schedule.startTime) - Date.now()).to.be.within(2 * 86400_000 - 60_000, 2 * 86400_000);
      expect(broad.ads.map((a: any) => a.properties.name)).to.deep.equal(['hero.png v1', 'hero.png | image | v2']);
      const published = await publish(api, applied.body.launchId);
      expect(published.body).to.deep.include({ status: 'published', counts: { campaigns: 2, adSets: 4, ads: 8 } });
      expect(published.body.budget.countedMinorUnits).to.equal(10000);
      const live = await w.service.knex('sandbox_objects').whereIn('account_id', ['act_3001', 'act_3002']).where({ level: 'campaign' }).pluck('account_id');
      expect(live.sort()).to.deep.equal(['act_3001', 'act_3002']);
    });

    it('refuses a DRAFT template with 409 conflict, and names the template fields that would not validate', async () => {
      const draft = (await api('POST', '/structure-templates', templateBody(creativeId, { status: 'DRAFT' }))).body;
      const refused = await api('POST', `/structure-templates/${draft.templateId}/launches`, {});
      expect(refused.status).to.equal(409);
      expect(refused.body.error.code).to.equal('conflict');
      const before = (await api('GET', '/launches')).body.batches.length;
      const bad = (
        await api(
          'POST',
          '/structure-templates',
          templateBody(creativeId, {
            settings: { budget: { dailyAmount: 50 } },
            config: { ...templateBody(creativeId).config, adSets: [{ optimizationGoal: 'APP_INSTALLS', targeting: {} }] },
            audiences: [{ kind: 'targetingSet', name: 'Broad', targeting: { ageMin: 30, ageMax: 20 } }],
          }),
        )
      ).body;
      const res = await api('POST', `/structure-templates/${bad.templateId}/launches`, {});
      expect(res.status).to.equal(400);
      expect(res.body.error.code).to.equal('validation_failed');
      const fields = res.body.error.details.map((d: any) => d.field);
      expect(fields).to.have.members([
        'settings.budget.dailyAmount',
        'config.adSets[0].optimizationGoal',
        'config.adSets[0].targeting.countries',
        'audiences[0].targeting.ageMin',
      ]);
      expect(res.body.error.details.find((d: any) => d.field === 'settings.budget.dailyAmount').message).to.match(
        /at least 100 \(minor units of the ad account's currency\) on meta \(ad accounts act_3001, act_3002\)/,
      );
      expect((await api('GET', '/launches')).body.batches.length).to.equal(before);
    });

    it("applies a template to a TikTok account: TikTok's rules name the template fields, and the fixed template publishes", async () => {
      const tokBrand = w.brandId('acme', 'tokagency');
      const tok = brandApi(w, w.key('acme', 'ci'), tokBrand);
      const image = await uploadCreative(w, w.key('acme', 'ci'), tokBrand, 'hero.png');
      const base = templateBody(image, { accounts: ['biz_3101'], audiences: [{ kind: 'targetingSet', name: 'Broad', targeting: {} }] });
      const config = {
        campaign: { name: '{brand} | {objective}', objective: 'TRAFFIC' },
        adSets: [{ name: '{audience}', optimizationGoal: 'CLICK', targeting: { countries: ['US'] } }],
        ads: [{ ...base.config.ads[0], callToAction: undefined }, base.config.ads[1]],
      };
      const broken = (await tok('POST', '/structure-templates', { ...base, config })).body;
      const refused = await tok('POST', `/structure-templates/${broken.templateId}/launches`, {});
      expect(refused.status, JSON.stringify(refused.body)).to.equal(400);
      const issues: Array<{ field: string; message: string }> = refused.body.error.details;
      expect(issues.map((d) => d.field).sort()).to.deep.equal(['config.ads[0].callToAction', 'config.ads[0].creativeId', 'config.ads[1].creativeId']);
      expect(issues.find((d) => d.field === 'config.ads[1].creativeId')!.message).to.match(/placements\.positions to PLACEMENT_PANGLE/);
      // A call to action on every ad and the image ads placed outside TikTok's in-feed placement.
      const fixed = (
        await tok('POST', '/structure-templates', {
          ...base,
          config: { ...config, ads: base.config.ads },
          // PLACEMENT_GLOBAL_APP_BUNDLE is allowlist-only, and this account is not allowlisted.
          settings: { ...base.settings, placements: { positions: ['PLACEMENT_PANGLE'] } },
        })
      ).body;
      const applied = await tok('POST', `/structure-templates/${fixed.templateId}/launches`, {}, idem('apply-tok'));
      expect(applied.status, JSON.stringify(applied.body)).to.equal(201);
      const published = await publish(tok, applied.body.launchId);
      expect(published.body).to.deep.include({ status: 'published', counts: { campaigns: 1, adSets: 1, ads: 2 } });
    });

    it('sets NEEDS_ATTENTION, with the reason, once an ad account it names is removed, and refuses to apply', async () => {
      const t = (await api('POST', '/structure-templates', templateBody(creativeId, { accounts: ['act_3001', 'act_3003'] }))).body;
      expect(t.status).to.equal('READY');
      // There is no operation that removes an ad account: an operator removes the row.
      await w.service.knex('ad_accounts').where({ brand_id: brandId, account_id: 'act_3003' }).delete();
      const got = await api('GET', `/structure-templates/${t.templateId}`);
      expect(got.body.status).to.equal('NEEDS_ATTENTION');
      expect(got.body.statusReasons).to.deep.equal([
        { field: 'accounts[1]', message: 'ad account act_3003 no longer exists in this brand; remove it from accounts' },
      ]);
      const listed = (await api('GET', '/structure-templates?status=NEEDS_ATTENTION')).body.structureTemplates;
      expect(listed.map((x: any) => x.templateId)).to.include(t.templateId);
      const apply = await api('POST', `/structure-templates/${t.templateId}/launches`, {});
      expect(apply.status).to.equal(409);
      expect(apply.body.error.details.reasons[0].field).to.equal('accounts[1]');
      // READY while the account is still named keeps it NEEDS_ATTENTION; removing it and setting READY applies again.
      const still = await api('PATCH', `/structure-templates/${t.templateId}`, { status: 'READY' });
      expect(still.body.status).to.equal('NEEDS_ATTENTION');
      const fixed = await api('PATCH', `/structure-templates/${t.templateId}`, { accounts: ['act_3001'], status: 'READY' });
      expect(fixed.body).to.deep.include({ status: 'READY', statusReasons: [] });
      expect((await api('POST', `/structure-templates/${t.templateId}/launches`, {})).status).to.equal(201);
    });

    it('sets NEEDS_ATTENTION when a custom audience it names is gone from an ad account', async () => {
      const t = (await api('POST', '/structure-templates', templateBody(creativeId, { accounts: ['act_3002'], scope: 'single' }))).body;
      await w.service.knex('sandbox_assets').where({ account_id: 'act_3002', kind: 'audiences' }).delete();
      const got = await api('GET', `/structure-templates/${t.templateId}`);
      expect(got.body.status).to.equal('NEEDS_ATTENTION');
      expect(got.body.statusReasons).to.deep.equal([
        { field: 'audiences[1].audienceId', message: 'audience aud_lookalike ("Lookalike") no longer exists in ad account act_3002' },
      ]);
    });
  });
}
