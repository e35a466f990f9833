// Issue 52, item 5, against a real listening server on both dialects and in both platform modes
// (the sandbox, and live against the fake Meta Graph API): one rule for every address a person's ads
// carry. javascript:, file:, data:, credentialed, relative, host-less and over-long URLs are refused
// at save (an ad's linkUrl and display link, an ad set's app store page, a template's ads and ad
// sets, a creative's source URL, which is never fetched) and at preview (a draft saved before the
// rule fails validation on that field, and publishes nothing; a template saved before it makes no
// launch).

import crypto from 'node:crypto';
import { expect } from 'chai';
import { dialects } from '../../helpers/databases.js';
import { startWorld, type World } from '../../helpers/world.js';
import { brandApi, buildLaunch, idem, uploadCreative, type Api } from '../../helpers/launch-builders.js';
import { startFileServer, type FileServer } from '../../helpers/file-server.js';
import { HOSTILE_URLS } from '../../helpers/hostile.js';
import { FakeMetaServer } from '../../fakes/meta-server.js';

const liveWorld = (token: string) => ({
  organizations: [
    {
      ref: 'acme',
      name: 'Acme Live',
      plan: 'agency',
      subscriptionStatus: 'active',
      users: [{ ref: 'olive', email: 'olive@live.test', name: 'Olive Owner', password: 'correct horse 1', role: 'owner' }],
      brands: [
        {
          ref: 'shoes',
          name: 'Shoes Co',
          adAccounts: [
            {
              platform: 'meta',
              accountId: 'act_1001',
              name: 'Shoes US',
              timezone: 'America/New_York',
              currency: 'USD',
              accessToken: token,
              pageId: '100200300400',
            },
          ],
        },
      ],
      apiKeys: [
        {
          ref: 'ci',
          name: 'CI key',
          createdBy: 'olive',
          scopes: ['read', 'write', 'publish'],
          surfaces: { api: true, mcp: true },
          brands: null,
          publishCeilingDollars: 500,
        },
      ],
    },
  ],
});

for (const dialect of dialects()) {
  for (const mode of ['sandbox', 'live'] as const) {
    describe(`addresses an ad carries (${dialect}, ${mode})`, function () {
      this.timeout(90_000);
      let w: World;
      let api: Api;
      let shoes: number;
      let key: string;
      let creativeId: number;
      let meta: FakeMetaServer | undefined;
      let files: FileServer;
      let savedKey: string | undefined;

      before(async () => {
        files = await startFileServer({ '/hero.png': { type: 'image/png', body: 'never fetched' } });
        if (mode === 'live') {
          savedKey = process.env.TOKEN_ENCRYPTION_KEY;
          if (!savedKey) process.env.TOKEN_ENCRYPTION_KEY = crypto.randomBytes(32).toString('base64');
          meta = await FakeMetaServer.start();
          const token = meta.addAccount('act_1001');
          w = await startWorld({
            dialect,
            bootstrap: liveWorld(token),
            env: { PLATFORM_MODE: 'live', META_GRAPH_URL: meta.url, TOKEN_ENCRYPTION_KEY: process.env.TOKEN_ENCRYPTION_KEY!, WEBHOOK_ALLOW_PRIVATE: 'true' },
          });
        } else {
          w = await startWorld({ dialect, env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
        }
        shoes = w.brandId('acme', 'shoes');
        key = w.key('acme', 'ci');
        api = brandApi(w, key, shoes);
        creativeId = await uploadCreative(w, key, shoes);
      });
      after(async () => {
        await w?.close();
        await meta?.close();
        await files?.close();
        if (mode === 'live' && savedKey === undefined) delete process.env.TOKEN_ENCRYPTION_KEY;
      });

      it("refuses each at save as an ad's linkUrl (create) and display link (update), naming the field", async () => {
        const built = await buildLaunch(api, { creativeId, title: 'Addresses' });
        for (const [what, url] of HOSTILE_URLS) {
          const created = await api('POST', `/launches/${built.launchId}/nodes`, {
            nodeType: 'ad',
            parentId: built.adsetId,
            properties: { name: 'Bad link', creativeId, linkUrl: url },
          });
          expect(created.status, `${what}: ${JSON.stringify(created.body)}`).to.equal(400);
          expect(created.body.error.details.map((d: { field: string; code: string }) => `${d.field} ${d.code}`)).to.include('properties.linkUrl invalid_value');
          if (url.length <= 255) {
            const updated = await api('PATCH', `/launches/${built.launchId}/nodes/${built.adIds[0]}`, { properties: { displayUrl: url } });
            expect(updated.status, `${what}: ${JSON.stringify(updated.body)}`).to.equal(400);
            expect(updated.body.error.details[0]).to.include({ field: 'properties.displayUrl', code: 'invalid_value' });
          }
        }
        const tree = (await api('GET', `/launches/${built.launchId}`)).body;
        expect(tree.counts.ads, 'no ad was added').to.equal(1);
        const ok = await api('PATCH', `/launches/${built.launchId}/nodes/${built.adIds[0]}`, {
          properties: { linkUrl: 'http://shop.example.com/spring?utm=1' },
        });
        expect(ok.status, JSON.stringify(ok.body)).to.equal(200);
      });

      it("refuses each at save as an ad set's app store page (promotedObject.objectStoreUrl), naming the field", async () => {
        const built = await buildLaunch(api, { creativeId, title: 'Store pages' });
        for (const [what, url] of HOSTILE_URLS) {
          const r = await api('PATCH', `/launches/${built.launchId}/nodes/${built.adsetId}`, {
            properties: { promotedObject: { applicationId: '1234', objectStoreUrl: url } },
          });
          expect(r.status, `${what}: ${JSON.stringify(r.body)}`).to.equal(400);
          expect(r.body.error.details.map((d: { field: string; code: string }) => `${d.field} ${d.code}`)).to.include(
            'properties.promotedObject.objectStoreUrl invalid_value',
          );
        }
        const adSet = (await api('GET', `/launches/${built.launchId}`)).body.campaigns[0].adSets[0].node;
        expect(adSet.properties.promotedObject, 'nothing stored').to.equal(undefined);
      });

      it('says why: the scheme, the credentials, the missing host', async () => {
        const built = await buildLaunch(api, { creativeId, title: 'Why' });
        const why = async (linkUrl: string) =>
          (await api('PATCH', `/launches/${built.launchId}/nodes/${built.adIds[0]}`, { properties: { linkUrl } })).body.error.details.find(
            (d: { field: string }) => d.field === 'properties.linkUrl',
          ).message;
        expect(await why('javascript:alert(1)')).to.equal('must be an http or https URL; javascript: is not an address an ad may carry');
        expect(await why('https://user:secret@shop.example.com/')).to.equal('must not carry a user name or password');
        expect(await why('https:///spring')).to.equal('must be an absolute http or https URL with a host, e.g. https://shop.example.com/spring');
      });

      it("refuses each at preview and publish when a draft holds it (saved before the rule) as a linkUrl, a display link or an ad set's app store page: nothing is published", async () => {
        for (const [what, url] of HOSTILE_URLS) {
          const built = await buildLaunch(api, { creativeId, title: `Old draft ${what}` });
          const row = await w.service.knex('launch_nodes').where({ id: built.adIds[0] }).first('properties');
          await w.service
            .knex('launch_nodes')
            .where({ id: built.adIds[0] })
            .update({ properties: JSON.stringify({ ...JSON.parse(row.properties), linkUrl: url }) });
          const preview = await api('POST', `/launches/${built.launchId}/publish`, {}, idem('preview'));
          expect(preview.status, `${what}: ${JSON.stringify(preview.body)}`).to.equal(400);
          expect(preview.body.error.message).to.match(/^Launch validation failed: \d+ issues\.$/);
          expect(preview.body.error.details.map((d: { field: string }) => d.field)).to.include(`ads[${built.adIds[0]}].linkUrl`);
          const publish = await api('POST', `/launches/${built.launchId}/publish`, { confirm: true }, idem('publish'));
          expect(publish.status, what).to.equal(400);
          expect((await api('GET', `/launches/${built.launchId}`)).body.status, what).to.equal('draft');
        }
        // A display link and an ad set's app store page saved before the rule: refused at preview the same way.
        const old = await buildLaunch(api, { creativeId, title: 'Old draft, other addresses' });
        const setProps = async (id: string, more: Record<string, unknown>) => {
          const row = await w.service.knex('launch_nodes').where({ id }).first('properties');
          await w.service
            .knex('launch_nodes')
            .where({ id })
            .update({ properties: JSON.stringify({ ...JSON.parse(row.properties), ...more }) });
        };
        await setProps(old.adIds[0], { displayUrl: 'javascript:alert(1)' });
        await setProps(old.adsetId, { promotedObject: { applicationId: '1234', objectStoreUrl: 'https://user:secret@apps.example.com/app' } });
        const refused = await api('POST', `/launches/${old.launchId}/publish`, {}, idem('preview'));
        expect(refused.status, JSON.stringify(refused.body)).to.equal(400);
        const byField = Object.fromEntries(refused.body.error.details.map((d: { field: string; message: string }) => [d.field, d.message]));
        expect(byField[`ads[${old.adIds[0]}].displayUrl`]).to.equal('must be an http or https URL; javascript: is not an address an ad may carry');
        expect(byField[`adSets[${old.adsetId}].promotedObject.objectStoreUrl`]).to.equal('must not carry a user name or password');
        expect((await api('POST', `/launches/${old.launchId}/publish`, { confirm: true }, idem('publish'))).status).to.equal(400);
        expect((await api('GET', `/launches/${old.launchId}`)).body.status).to.equal('draft');

        const fine = await buildLaunch(api, { creativeId, title: 'Fine' });
        const preview = await api('POST', `/launches/${fine.launchId}/publish`, {}, idem('preview'));
        expect(preview.status, JSON.stringify(preview.body)).to.equal(200);
        expect(preview.body.valid).to.equal(true);
      });

      /** A structure template of one campaign, ad set and ad on act_1001, with `ad` and `adSet` merged into its ad and ad set. */
      const template = (ad: Record<string, unknown>, adSet: Record<string, unknown> = {}) => ({
        name: 'Links',
        config: {
          campaign: { name: 'C', objective: 'OUTCOME_TRAFFIC' },
          adSets: [{ name: 'S', optimizationGoal: 'LINK_CLICKS', ...adSet }],
          ads: [{ name: 'A', creativeId, headline: 'Spring', primaryText: 'Sale', callToAction: 'SHOP_NOW', ...ad }],
        },
        settings: { budget: { dailyAmount: 5000 } },
        audiences: [{ kind: 'targetingSet', name: 'US', targeting: { countries: ['US'] } }],
        accounts: ['act_1001'],
      });

      it("refuses each in a structure template's ads (linkUrl, display link) and ad sets (app store page) at save", async () => {
        for (const [what, url] of HOSTILE_URLS) {
          const fields = new Map<string, Record<string, unknown>>([
            ['config.ads[0].linkUrl', template({ linkUrl: url })],
            ['config.adSets[0].promotedObject.objectStoreUrl', template({}, { promotedObject: { applicationId: '1234', objectStoreUrl: url } })],
            ...(url.length <= 255 ? ([['config.ads[0].displayUrl', template({ displayUrl: url })]] as const) : []),
          ]);
          for (const [field, body] of fields) {
            const r = await w.request('POST', `/v1/brands/${shoes}/structure-templates`, { key, body });
            expect(r.status, `${what} in ${field}: ${JSON.stringify(r.body)}`).to.equal(400);
            expect(r.body.error.details.map((d: { field: string }) => d.field)).to.include(field);
          }
        }
      });

      it('refuses at apply a template that holds one (saved before the rule): no launch is made', async () => {
        const saved = await w.request('POST', `/v1/brands/${shoes}/structure-templates`, {
          key,
          body: { ...template({ linkUrl: 'https://shop.example.com/spring' }), status: 'READY' },
        });
        expect(saved.status, JSON.stringify(saved.body)).to.equal(201);
        const templateId = saved.body.templateId ?? saved.body.id;
        const row = await w.service.knex('structure_templates').where({ id: templateId }).first('config');
        const config = JSON.parse(row.config);
        config.ads[0].linkUrl = 'javascript:alert(1)';
        await w.service
          .knex('structure_templates')
          .where({ id: templateId })
          .update({ config: JSON.stringify(config) });
        const launches = async () => Number((await w.service.knex('launches').count({ n: '*' }).first())!.n);
        const launchesBefore = await launches();
        const applied = await w.request('POST', `/v1/brands/${shoes}/structure-templates/${templateId}/launches`, { key, body: {} });
        expect(applied.status, JSON.stringify(applied.body)).to.equal(400);
        expect(applied.body.error.code).to.equal('validation_failed');
        expect(JSON.stringify(applied.body.error.details)).to.contain('linkUrl').and.to.contain('javascript: is not an address an ad may carry');
        expect(await launches(), 'no launch made').to.equal(launchesBefore);
      });

      it("refuses each as the brand profile's website, naming the field, and copy generation leaves out a website saved before the rule", async () => {
        const profile = (website: string) => ({ voice: ['warm'], productDescription: 'Shoes', website, wordsToAvoid: [] });
        for (const [what, url] of HOSTILE_URLS) {
          const r = await w.request('PUT', `/v1/brands/${shoes}/profile`, { key, body: profile(url) });
          expect(r.status, `${what}: ${JSON.stringify(r.body)}`).to.equal(400);
          expect(r.body.error.details[0], what).to.include({ field: 'website' });
          expect(r.body.error.details[0].code, what).to.be.oneOf(['invalid_value', 'too_big']);
        }
        expect((await w.request('PUT', `/v1/brands/${shoes}/profile`, { key, body: profile('https://shop.example.com/') })).status).to.equal(200);
        // A profile saved before the rule: its website never reaches the ads' text.
        await w.service.knex('brand_profiles').where({ brand_id: shoes }).update({ website: 'javascript:alert(1)' });
        const copy = await w.request('POST', `/v1/brands/${shoes}/copies`, { key, body: { platform: 'meta' } });
        expect(copy.status, JSON.stringify(copy.body)).to.be.oneOf([200, 201]);
        expect(JSON.stringify(copy.body)).to.not.contain('javascript');
      });

      it("refuses each as a creative's source URL before any connection", async () => {
        for (const [what, url] of [
          ...HOSTILE_URLS,
          ['credentials on the file server', `http://user:pw@127.0.0.1:${files.port}/hero.png`],
          ['javascript: naming the file server', `javascript:fetch('${files.origin}/hero.png')`],
          ['a data: image', 'data:image/png;base64,AAAA'],
        ]) {
          const r = await w.request('POST', `/v1/brands/${shoes}/creatives`, { key, body: { url } });
          expect(r.status, `${what}: ${JSON.stringify(r.body)}`).to.equal(400);
          expect(r.body.error.details[0], what).to.include({ field: 'url', code: 'invalid_value' });
        }
        expect(files.seen, 'the file server was never called').to.deep.equal([]);
      });
    });
  }
}
