// Who an ad account's ads speak as (docs/platforms.md): get-ad-account and update-ad-account over
// REST (fields, merge patch, owner or admin only, the other platform's fields refused), the brand
// list's rows unchanged, and launch validation naming the missing page or identity at preview.

import { expect } from 'chai';
import { dialects } from '../../helpers/databases.js';
import type { World } from '../../helpers/world.js';
import { startOAuthWorld, tokensFor } from '../../helpers/oauth.js';
import { brandApi, buildLaunch, uploadCreative } from '../../helpers/launch-builders.js';

const olive = { email: 'olive@speak.test', password: 'correct horse 1' };
const adam = { email: 'adam@speak.test', password: 'correct horse 3' };
const mia = { email: 'mia@speak.test', password: 'correct horse 2' };

const world = {
  organizations: [
    {
      ref: 'acme',
      name: 'Acme Speakers',
      plan: 'agency',
      subscriptionStatus: 'active',
      users: [
        { ref: 'olive', name: 'Olive Owner', role: 'owner', ...olive },
        { ref: 'adam', name: 'Adam Admin', role: 'admin', ...adam },
        { ref: 'mia', name: 'Mia Member', role: 'member', brands: null, ...mia },
      ],
      brands: [
        {
          ref: 'shoes',
          name: 'Shoes Co',
          adAccounts: [{ platform: 'meta', accountId: 'act_1001', pageId: '100200300400', name: 'Shoes US', timezone: 'America/New_York', currency: 'USD' }],
        },
        { ref: 'bare', name: 'Bare Co', adAccounts: [{ platform: 'meta', accountId: 'act_1002', name: 'Bare US', timezone: 'UTC', currency: 'USD' }] },
        { ref: 'tok', name: 'Tok Co', adAccounts: [{ platform: 'tiktok', accountId: 'biz_3001', name: 'Tok US', timezone: 'UTC', currency: 'EUR' }] },
      ],
      apiKeys: [
        { ref: 'ci', name: 'CI key', createdBy: 'olive', scopes: ['read', 'write', 'publish'], surfaces: { api: true, mcp: true }, publishCeilingDollars: 500 },
        { ref: 'reader', name: 'Reader', createdBy: 'olive', scopes: ['read'], surfaces: { api: true, mcp: true } },
      ],
    },
  ],
};

for (const dialect of dialects()) {
  describe(`ad accounts: page and identity over REST (${dialect})`, function () {
    this.timeout(90_000);
    let w: World;
    let ci: string;
    const tokens: Record<string, string> = {};
    const path = (brand: string, accountId: string) => `/v1/brands/${w.brandId('acme', brand)}/ad-accounts/${accountId}`;

    before(async () => {
      w = await startOAuthWorld(dialect, world, { JOBS: 'off' });
      ci = w.key('acme', 'ci');
      for (const [name, person] of Object.entries({ olive, adam, mia })) {
        tokens[name] = (await tokensFor(w.url, person, { resource: `${w.url}/v1`, scope: 'read write' })).access_token;
      }
    });
    after(async () => w?.close());

    it('get-ad-account answers the platform, name, currency, time zone and who its ads speak as (null when unset), with scope read', async () => {
      const meta = await w.request('GET', path('shoes', 'act_1001'), { key: w.key('acme', 'reader') });
      expect(meta.status, JSON.stringify(meta.body)).to.equal(200);
      expect(meta.body).to.deep.equal({
        brandId: w.brandId('acme', 'shoes'),
        accountId: 'act_1001',
        platform: 'meta',
        name: 'Shoes US',
        currency: 'USD',
        timezone: 'America/New_York',
        active: true,
        pageId: '100200300400',
        instagramUserId: null,
        identityId: null,
        identityType: null,
        dsaBeneficiary: null,
        dsaPayor: null,
        identityBcId: null,
        allowlisted: [],
        declaredCountries: [],
        regionalIdentities: null,
        smartPlusAllowed: false,
      });
      const tok = await w.request('GET', path('tok', 'biz_3001'), { key: ci });
      expect(tok.body).to.deep.include({ platform: 'tiktok', currency: 'EUR', identityId: null, identityType: null, pageId: null });
    });

    it('an account of another brand answers 404, as does one the brand does not have', async () => {
      const other = await w.request('GET', `/v1/brands/${w.brandId('acme', 'shoes')}/ad-accounts/biz_3001`, { key: ci });
      expect(other.status).to.equal(404);
      expect(other.body.error.code).to.equal('not_found');
      const patch = await w.request('PATCH', `/v1/brands/${w.brandId('acme', 'shoes')}/ad-accounts/act_9999`, { key: ci, body: { pageId: '1' } });
      expect(patch.status).to.equal(404);
    });

    it('update-ad-account merges: fields sent replace, null clears, fields not sent stay; the next read and the brand list agree', async () => {
      const set = await w.request('PATCH', path('shoes', 'act_1001'), { key: ci, body: { instagramUserId: '17841400000000001' } });
      expect(set.status, JSON.stringify(set.body)).to.equal(200);
      expect(set.body).to.deep.include({ pageId: '100200300400', instagramUserId: '17841400000000001' });
      const cleared = await w.request('PATCH', path('shoes', 'act_1001'), { key: tokens.adam, body: { instagramUserId: null } });
      expect(cleared.status, JSON.stringify(cleared.body)).to.equal(200);
      expect(cleared.body).to.deep.include({ pageId: '100200300400', instagramUserId: null });
      expect((await w.request('GET', path('shoes', 'act_1001'), { key: ci })).body).to.deep.include({ pageId: '100200300400', instagramUserId: null });
      const brands = await w.request('GET', '/v1/brands', { key: ci });
      for (const row of brands.body.accounts)
        expect(Object.keys(row).sort()).to.deep.equal(['accountId', 'accountName', 'active', 'brandId', 'brandName', 'connected', 'organizationId']);
    });

    it("a Meta account's DSA beneficiary and payer are set, cleared with null, and refused on a TikTok account", async () => {
      const set = await w.request('PATCH', path('shoes', 'act_1001'), { key: ci, body: { dsaBeneficiary: 'Shoes GmbH', dsaPayor: 'Shoes Holding AG' } });
      expect(set.status, JSON.stringify(set.body)).to.equal(200);
      expect(set.body).to.deep.include({ pageId: '100200300400', dsaBeneficiary: 'Shoes GmbH', dsaPayor: 'Shoes Holding AG' });
      const cleared = await w.request('PATCH', path('shoes', 'act_1001'), { key: ci, body: { dsaPayor: null } });
      expect(cleared.body).to.deep.include({ dsaBeneficiary: 'Shoes GmbH', dsaPayor: null });
      expect((await w.request('GET', path('shoes', 'act_1001'), { key: ci })).body).to.deep.include({ dsaBeneficiary: 'Shoes GmbH', dsaPayor: null });
      await w.request('PATCH', path('shoes', 'act_1001'), { key: ci, body: { dsaBeneficiary: null } });
      const onTok = await w.request('PATCH', path('tok', 'biz_3001'), { key: ci, body: { dsaBeneficiary: 'Tok Ltd' } });
      expect(onTok.status).to.equal(400);
      expect(onTok.body.error.details[0]).to.deep.include({ field: 'dsaBeneficiary' });
    });

    it("what the platform granted an account: a TikTok identity's Business Center, allowlisted features and declared countries, set, read and cleared; identityBcId refused on Meta", async () => {
      const set = await w.request('PATCH', path('tok', 'biz_3001'), {
        key: ci,
        body: { identityBcId: '7400000000000000001', allowlisted: ['PLACEMENT_GLOBAL_APP_BUNDLE'], declaredCountries: ['SG'] },
      });
      expect(set.status, JSON.stringify(set.body)).to.equal(200);
      expect(set.body).to.deep.include({ identityBcId: '7400000000000000001', allowlisted: ['PLACEMENT_GLOBAL_APP_BUNDLE'], declaredCountries: ['SG'] });
      expect((await w.request('GET', path('tok', 'biz_3001'), { key: ci })).body).to.deep.include({
        identityBcId: '7400000000000000001',
        allowlisted: ['PLACEMENT_GLOBAL_APP_BUNDLE'],
        declaredCountries: ['SG'],
      });
      const cleared = await w.request('PATCH', path('tok', 'biz_3001'), { key: ci, body: { identityBcId: null, allowlisted: null, declaredCountries: [] } });
      expect(cleared.body).to.deep.include({ identityBcId: null, allowlisted: [], declaredCountries: [] });
      const meta = await w.request('PATCH', path('shoes', 'act_1001'), { key: ci, body: { declaredCountries: ['KR'] } });
      expect(meta.body).to.deep.include({ declaredCountries: ['KR'] });
      await w.request('PATCH', path('shoes', 'act_1001'), { key: ci, body: { declaredCountries: null } });
      const bc = await w.request('PATCH', path('shoes', 'act_1001'), { key: ci, body: { identityBcId: '1' } });
      expect(bc.status).to.equal(400);
      expect(bc.body.error.details[0]).to.deep.include({ field: 'identityBcId' });
      const badCountry = await w.request('PATCH', path('shoes', 'act_1001'), { key: ci, body: { declaredCountries: ['Singapore'] } });
      expect(badCountry.status).to.equal(400);
    });

    it("a Meta account's regional identities (SG, TW) and a TikTok account's Smart+ permission are set, read and cleared; each refused on the other platform and in a wrong shape", async () => {
      const ids = { SG: { beneficiary: '900000000000001', payer: '900000000000002' } };
      const set = await w.request('PATCH', path('shoes', 'act_1001'), { key: ci, body: { regionalIdentities: ids } });
      expect(set.status, JSON.stringify(set.body)).to.equal(200);
      expect(set.body).to.deep.include({ regionalIdentities: ids, smartPlusAllowed: false });
      expect((await w.request('GET', path('shoes', 'act_1001'), { key: ci })).body.regionalIdentities).to.deep.equal(ids);
      for (const bad of [{ KR: ids.SG }, { SG: { beneficiary: 'Shoes Co', payer: '1' } }, { SG: { beneficiary: '1' } }]) {
        const refused = await w.request('PATCH', path('shoes', 'act_1001'), { key: ci, body: { regionalIdentities: bad } });
        expect(refused.status, JSON.stringify(bad)).to.equal(400);
        expect(refused.body.error.details[0].field).to.match(/^regionalIdentities/);
      }
      expect((await w.request('GET', path('shoes', 'act_1001'), { key: ci })).body.regionalIdentities, 'nothing changed').to.deep.equal(ids);
      const cleared = await w.request('PATCH', path('shoes', 'act_1001'), { key: ci, body: { regionalIdentities: null } });
      expect(cleared.body.regionalIdentities).to.equal(null);
      const onTok = await w.request('PATCH', path('tok', 'biz_3001'), { key: ci, body: { regionalIdentities: ids } });
      expect(onTok.status).to.equal(400);
      expect(onTok.body.error.details[0]).to.deep.include({ field: 'regionalIdentities' });

      const smart = await w.request('PATCH', path('tok', 'biz_3001'), { key: ci, body: { smartPlusAllowed: true } });
      expect(smart.status, JSON.stringify(smart.body)).to.equal(200);
      expect((await w.request('GET', path('tok', 'biz_3001'), { key: ci })).body.smartPlusAllowed).to.equal(true);
      expect((await w.request('PATCH', path('tok', 'biz_3001'), { key: ci, body: { smartPlusAllowed: false } })).body.smartPlusAllowed).to.equal(false);
      const onMeta = await w.request('PATCH', path('shoes', 'act_1001'), { key: ci, body: { smartPlusAllowed: true } });
      expect(onMeta.status).to.equal(400);
      expect(onMeta.body.error.details[0]).to.deep.include({ field: 'smartPlusAllowed' });
    });

    it('a TikTok identity is set as identityId with identityType; one without the other answers 400 naming the missing one', async () => {
      const half = await w.request('PATCH', path('tok', 'biz_3001'), { key: tokens.olive, body: { identityId: '7000000000000000001' } });
      expect(half.status).to.equal(400);
      expect(half.body.error.details.map((d: { field: string }) => d.field)).to.deep.equal(['identityType']);
      const badType = await w.request('PATCH', path('tok', 'biz_3001'), { key: ci, body: { identityId: '70001', identityType: 'PAGE' } });
      expect(badType.status).to.equal(400);
      expect(badType.body.error.details[0].field).to.equal('identityType');
      const both = await w.request('PATCH', path('tok', 'biz_3001'), { key: ci, body: { identityId: '7000000000000000001', identityType: 'BC_AUTH_TT' } });
      expect(both.status, JSON.stringify(both.body)).to.equal(200);
      expect(both.body).to.deep.include({ identityId: '7000000000000000001', identityType: 'BC_AUTH_TT' });
    });

    it("the other platform's fields are refused with a message saying what the account takes; nothing changes", async () => {
      const onMeta = await w.request('PATCH', path('shoes', 'act_1001'), { key: ci, body: { identityId: '1', identityType: 'TT_USER', pageId: '555' } });
      expect(onMeta.status).to.equal(400);
      expect(onMeta.body.error.details.map((d: { field: string }) => d.field).sort()).to.deep.equal(['identityId', 'identityType']);
      expect(onMeta.body.error.details[0].message).to.match(/TikTok field.*pageId/);
      const onTok = await w.request('PATCH', path('tok', 'biz_3001'), { key: ci, body: { pageId: '555' } });
      expect(onTok.status).to.equal(400);
      expect(onTok.body.error.details[0]).to.deep.include({ field: 'pageId' });
      expect(onTok.body.error.details[0].message).to.match(/Meta field.*identityId/);
      expect((await w.request('GET', path('shoes', 'act_1001'), { key: ci })).body.pageId).to.equal('100200300400');
    });

    it('a member may not change it: 403 forbidden naming owner or admin; a read key gets 403 for scope; nothing changes', async () => {
      const member = await w.request('PATCH', path('shoes', 'act_1001'), { key: tokens.mia, body: { pageId: '999' } });
      expect(member.status).to.equal(403);
      expect(member.body.error.code).to.equal('forbidden');
      expect(member.body.error.message).to.match(/owner or admin/);
      const reader = await w.request('PATCH', path('shoes', 'act_1001'), { key: w.key('acme', 'reader'), body: { pageId: '999' } });
      expect(reader.status).to.equal(403);
      expect((await w.request('GET', path('shoes', 'act_1001'), { key: tokens.mia })).body.pageId).to.equal('100200300400');
    });

    it('an ad with no page fails preview on ads[<nodeId>].pageId until the account (or the ad) names one', async () => {
      const api = brandApi(w, ci, w.brandId('acme', 'bare'));
      const creativeId = await uploadCreative(w, ci, w.brandId('acme', 'bare'));
      const built = await buildLaunch(api, { title: 'No page', creativeId });
      const preview = () => api('POST', `/launches/${built.launchId}/publish`, {}, { 'Idempotency-Key': `pv-${Math.random()}` });
      const refused = await preview();
      expect(refused.status, JSON.stringify(refused.body)).to.equal(400);
      expect(refused.body.error.message).to.equal('Launch validation failed: 1 issues.');
      expect(refused.body.error.details[0].field).to.equal(`ads[${built.adIds[0]}].pageId`);
      expect(refused.body.error.details[0].message).to.match(/Facebook Page.*act_1002/);
      expect((await w.request('PATCH', path('bare', 'act_1002'), { key: ci, body: { pageId: '100200300401' } })).status).to.equal(200);
      const valid = await preview();
      expect(valid.status, JSON.stringify(valid.body)).to.equal(200);
      expect(valid.body.valid).to.equal(true);
    });

    it('a TikTok ad with no identity fails preview on ads[<nodeId>].identityId', async () => {
      const api = brandApi(w, ci, w.brandId('acme', 'tok'));
      await w.request('PATCH', path('tok', 'biz_3001'), { key: ci, body: { identityId: null, identityType: null } });
      const creativeId = await uploadCreative(w, ci, w.brandId('acme', 'tok'));
      const built = await buildLaunch(api, {
        title: 'No identity',
        creativeId,
        campaign: { objective: 'TRAFFIC', budget: { dailyAmount: 5000 } },
        // An image ad runs outside TikTok's in-feed placement.
        adset: { optimizationGoal: 'CLICK', placements: { positions: ['PLACEMENT_PANGLE'] } },
      });
      const refused = await api('POST', `/launches/${built.launchId}/publish`, {}, { 'Idempotency-Key': 'tok-preview' });
      expect(refused.status, JSON.stringify(refused.body)).to.equal(400);
      expect(refused.body.error.details.map((d: { field: string }) => d.field)).to.deep.equal([`ads[${built.adIds[0]}].identityId`]);
    });
  });
}
