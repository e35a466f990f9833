// Issue 52, item 5, against a real listening server on both dialects and in both platform modes
// (the sandbox, and live against the fake Meta Graph API): one rule for every address a person's ads
// carry. javascript:, file:, data:, credentialed, relative and host-less URLs are refused at save (an
// ad's linkUrl and display link, a template's ads, a creative's source URL, which is never fetched)
// and at preview (a draft saved before the rule fails validation on that field, and publishes
// nothing).

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

      it('refuses each at preview and publish when a draft holds it (saved before the rule): nothing is published', async () => {
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
        const fine = await buildLaunch(api, { creativeId, title: 'Fine' });
        const preview = await api('POST', `/launches/${fine.launchId}/publish`, {}, idem('preview'));
        expect(preview.status, JSON.stringify(preview.body)).to.equal(200);
        expect(preview.body.valid).to.equal(true);
      });

      if (mode === 'sandbox') {
        it("refuses each in a structure template's ads at save", async () => {
          for (const [what, url] of HOSTILE_URLS.filter(([, u]) => u.length <= 2000)) {
            const r = await w.request('POST', `/v1/brands/${shoes}/structure-templates`, {
              key,
              body: {
                name: 'Links',
                config: {
                  campaign: { name: 'C', objective: 'OUTCOME_TRAFFIC' },
                  adSets: [{ name: 'S', optimizationGoal: 'LINK_CLICKS' }],
                  ads: [{ name: 'A', linkUrl: url }],
                },
                settings: { budget: { dailyAmount: 5000 } },
                audiences: [{ kind: 'targetingSet', name: 'US', targeting: { countries: ['US'] } }],
                accounts: ['act_1001'],
              },
            });
            expect(r.status, `${what}: ${JSON.stringify(r.body)}`).to.equal(400);
            expect(r.body.error.details.map((d: { field: string }) => d.field)).to.include('config.ads[0].linkUrl');
          }
        });

        it("refuses a creative's source URL with credentials or another scheme before any connection", async () => {
          for (const url of [`http://user:pw@127.0.0.1:${files.port}/hero.png`, `javascript:fetch('${files.origin}/hero.png')`, `data:image/png;base64,AAAA`]) {
            const r = await w.request('POST', `/v1/brands/${shoes}/creatives`, { key, body: { url } });
            expect(r.status, `${url}: ${JSON.stringify(r.body)}`).to.equal(400);
            expect(r.body.error.details[0]).to.include({ field: 'url', code: 'invalid_value' });
          }
          expect(files.seen, 'the file server was never called').to.deep.equal([]);
        });
      }
    });
  }
}
