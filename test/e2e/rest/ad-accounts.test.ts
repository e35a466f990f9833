// The contract's live reads of an ad account, answered by the sandbox platform for accounts
// loaded by the bootstrap file: shapes, filters, required parameters, presets, sampling, 404s.

import { expect } from 'chai';
import { dialects } from '../../helpers/databases.js';
import { startWorld, type World } from '../../helpers/world.js';
import { SandboxPlatform } from '../../../src/platforms/sandbox/adapter.js';

const DAY = 86_400_000;

const world = (campaigns: unknown[]) => ({
  organizations: [
    {
      ref: 'acme',
      name: 'Acme',
      plan: 'agency',
      subscriptionStatus: 'active',
      users: [{ ref: 'olive', email: 'olive@reads.test', name: 'Olive', password: 'correct horse 1', role: 'owner' }],
      brands: [
        {
          ref: 'shoes',
          name: 'Shoes Co',
          adAccounts: [
            { platform: 'meta', accountId: 'act_1001', pageId: 'pg_1001', name: 'Shoes US', timezone: 'America/New_York', currency: 'USD' },
            { platform: 'meta', accountId: 'act_1002', pageId: 'pg_1002', name: 'Shoes EU', timezone: 'Europe/Berlin', currency: 'EUR' },
          ],
          sandbox: {
            campaigns,
            leadForms: [
              { accountId: 'act_1001', pageId: 'pg_1', id: 'lf_1', name: 'Spring signup' },
              { accountId: 'act_1001', pageId: 'pg_1', id: 'lf_2', name: 'Summer signup' },
              { accountId: 'act_1001', pageId: 'pg_1', id: 'lf_3', name: null },
              { accountId: 'act_1001', pageId: 'pg_2', id: 'lf_9', name: 'Other page form' },
            ],
            pages: [
              { accountId: 'act_1001', id: 'pg_1', name: 'Shoes Co Page' },
              { accountId: 'act_1001', id: 'pg_2', name: 'Shoes Outlet' },
            ],
            pixels: [{ accountId: 'act_1001', id: 'px_1', name: 'Shoes pixel' }],
            audiences: [
              { accountId: 'act_1001', id: 'aud_1', name: 'Buyers 180d', type: 'custom' },
              { accountId: 'act_1001', id: 'aud_2', name: 'Lookalike 1%', type: 'lookalike' },
            ],
          },
        },
        {
          ref: 'tok',
          name: 'Tok Co',
          adAccounts: [
            { platform: 'tiktok', accountId: 'biz_3001', identityId: 'idt_3001', identityType: 'CUSTOMIZED_USER', timezone: 'UTC', currency: 'USD' },
          ],
        },
        { ref: 'hats', name: 'Hats Co', adAccounts: [{ platform: 'meta', accountId: 'act_7007', pageId: 'pg_7007', timezone: 'UTC', currency: 'USD' }] },
      ],
      apiKeys: [
        { ref: 'ci', name: 'CI key', createdBy: 'olive', scopes: ['read', 'write'], surfaces: { api: true, mcp: true } },
        { ref: 'reader', name: 'Reader', scopes: ['read'], surfaces: { api: true, mcp: true } },
      ],
    },
  ],
});

const seeded = [
  {
    accountId: 'act_1001',
    id: '120210000000001',
    name: 'Prospecting - US',
    status: 'ACTIVE',
    objective: 'OUTCOME_SALES',
    budget: { period: 'daily', amountMinorUnits: 5000 },
  },
  { accountId: 'act_1001', id: '120210000000002', name: 'Retargeting - US', status: 'PAUSED', objective: 'OUTCOME_SALES', budget: null },
  {
    accountId: 'act_1001',
    id: '120210000000003',
    name: 'Brand awareness',
    status: 'ARCHIVED',
    objective: 'OUTCOME_AWARENESS',
    budget: { period: 'lifetime', amountMinorUnits: 100000 },
  },
  { accountId: 'act_1001', id: '120210000000004', name: 'PROSPECTING - CA', status: 'ACTIVE', objective: 'OUTCOME_TRAFFIC' },
  { accountId: 'act_1001', id: '120210000000005', name: 'Lead gen 100%_off', status: 'PAUSED', objective: 'OUTCOME_LEADS' },
  { accountId: 'act_1002', id: '120210000000009', name: 'EU launch', status: 'ACTIVE', objective: 'OUTCOME_SALES' },
];

for (const dialect of dialects()) {
  describe(`ad-account live reads (${dialect})`, function () {
    this.timeout(30_000);
    let w: World;
    let base: string;
    let key: string;
    before(async () => {
      w = await startWorld({ dialect, bootstrap: world(seeded) });
      key = w.key('acme', 'ci');
      base = `/v1/brands/${w.brandId('acme', 'shoes')}/ad-accounts`;
    });
    after(async () => w?.close());
    const get = (path: string, k = key) => w.request('GET', path, { key: k });

    describe('campaigns', () => {
      it('lists every campaign of the account, newest first, with the contract fields', async () => {
        const reply = await get(`${base}/act_1001/campaigns`);
        expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
        expect(Date.parse(reply.body.asOf)).to.be.closeTo(Date.now(), 60_000);
        expect(reply.body.totalInAccount).to.equal(5);
        expect(reply.body.matched).to.equal(5);
        expect(reply.body.nameQuery).to.equal(null);
        expect(reply.body.nextCursor).to.equal(null);
        expect(reply.body.campaigns.map((c: any) => c.id)).to.deep.equal([
          '120210000000005',
          '120210000000004',
          '120210000000003',
          '120210000000002',
          '120210000000001',
        ]);
        const first = reply.body.campaigns.find((c: any) => c.id === '120210000000001');
        expect(first).to.deep.include({
          name: 'Prospecting - US',
          status: 'ACTIVE',
          effective_status: 'ACTIVE',
          objective: 'OUTCOME_SALES',
          brandId: w.brandId('acme', 'shoes'),
          budget: { period: 'daily', amountMinorUnits: 5000 },
          budgetLevel: 'campaign',
          imported: false,
        });
        const adsetBudget = reply.body.campaigns.find((c: any) => c.id === '120210000000002');
        expect(adsetBudget.budget).to.equal(null);
        expect(adsetBudget.budgetLevel).to.equal('adset');
      });

      it('filters on repeated statusFilter values', async () => {
        const reply = await get(`${base}/act_1001/campaigns?statusFilter=ACTIVE&statusFilter=ARCHIVED`);
        expect(reply.status).to.equal(200);
        expect(reply.body.campaigns.map((c: any) => c.status).sort()).to.deep.equal(['ACTIVE', 'ACTIVE', 'ARCHIVED']);
        expect(reply.body.matched).to.equal(3);
        expect(reply.body.totalInAccount).to.equal(5);
      });

      it('matches nameQuery as a case-insensitive substring, wildcards taken literally', async () => {
        const reply = await get(`${base}/act_1001/campaigns?nameQuery=prospecting`);
        expect(reply.body.campaigns.map((c: any) => c.name).sort()).to.deep.equal(['PROSPECTING - CA', 'Prospecting - US']);
        expect(reply.body.nameQuery).to.equal('prospecting');
        expect(reply.body.matched).to.equal(2);
        const literal = await get(`${base}/act_1001/campaigns?nameQuery=${encodeURIComponent('0%_')}`);
        expect(literal.body.campaigns.map((c: any) => c.id)).to.deep.equal(['120210000000005']);
        const both = await get(`${base}/act_1001/campaigns?nameQuery=us&statusFilter=PAUSED`);
        expect(both.body.campaigns.map((c: any) => c.id)).to.deep.equal(['120210000000002']);
      });

      it('pages over the platform list with limit, each campaign once', async () => {
        const seen: string[] = [];
        let cursor: string | null = null;
        let pages = 0;
        do {
          const q: string = cursor ? `?limit=2&cursor=${encodeURIComponent(cursor)}` : '?limit=2';
          const reply: any = await get(`${base}/act_1001/campaigns${q}`);
          expect(reply.status).to.equal(200);
          expect(reply.body.campaigns.length).to.be.at.most(2);
          seen.push(...reply.body.campaigns.map((c: any) => c.id));
          cursor = reply.body.nextCursor;
          pages += 1;
        } while (cursor);
        expect(pages).to.equal(3);
        expect(new Set(seen).size).to.equal(5);
        expect(seen.length).to.equal(5);
      });

      it('refuses a cursor reused with other filters', async () => {
        const first = await get(`${base}/act_1001/campaigns?limit=2`);
        const reply = await get(`${base}/act_1001/campaigns?limit=2&nameQuery=us&cursor=${encodeURIComponent(first.body.nextCursor)}`);
        expect(reply.status).to.equal(400);
        expect(reply.body.error.message).to.equal('cursor is invalid or expired');
      });

      const bad: Array<[string, string, string]> = [
        ['statusFilter=DELETED', 'statusFilter[0]', 'invalid_value'],
        ['nameQuery=', 'nameQuery', 'too_small'],
        ['limit=101', 'limit', 'too_big'],
        ['colour=red', 'colour', 'unrecognized_key'],
      ];
      for (const [query, field, code] of bad) {
        it(`refuses ${query} with 400 naming ${field} (${code})`, async () => {
          const reply = await get(`${base}/act_1001/campaigns?${query}`);
          expect(reply.status).to.equal(400);
          expect(reply.body.error.code).to.equal('validation_failed');
          expect(reply.body.error.details).to.deep.include({ field, code, message: reply.body.error.details.find((d: any) => d.field === field)?.message });
        });
      }

      it('answers 404 for an account that is not one of the brand accounts', async () => {
        for (const account of ['act_7007', 'act_9999', 'biz_3001']) {
          const reply = await get(`${base}/${account}/campaigns`);
          expect(reply.status, account).to.equal(404);
          expect(reply.body.error.code).to.equal('not_found');
        }
      });

      it('serves a repeated read from the metrics cache with its original asOf', async () => {
        const first = await get(`${base}/act_1002/campaigns`);
        await w.service.knex('sandbox_objects').insert({
          platform: 'meta',
          account_id: 'act_1002',
          level: 'campaign',
          object_id: '120210000000077',
          parent_id: null,
          name: 'Made outside',
          name_lower: 'made outside',
          marker: null,
          status: 'ACTIVE',
          objective: 'OUTCOME_SALES',
          budget_period: null,
          budget_cents: null,
          settings: '{}',
          created_at: Date.now(),
          updated_at: Date.now(),
        });
        const second = await get(`${base}/act_1002/campaigns`);
        expect(second.body).to.deep.equal(first.body);
        expect(second.body.totalInAccount).to.equal(1);
      });
    });

    describe('lead forms', () => {
      it('lists the forms of the named page only', async () => {
        const reply = await get(`${base}/act_1001/lead-forms?pageId=pg_1`);
        expect(reply.status).to.equal(200);
        expect(reply.body).to.deep.equal({
          leadForms: [
            { id: 'lf_1', name: 'Spring signup' },
            { id: 'lf_2', name: 'Summer signup' },
            { id: 'lf_3', name: null },
          ],
          nextCursor: null,
        });
      });

      it('pages with limit', async () => {
        const page1 = await get(`${base}/act_1001/lead-forms?pageId=pg_1&limit=2`);
        expect(page1.body.leadForms.map((f: any) => f.id)).to.deep.equal(['lf_1', 'lf_2']);
        const page2 = await get(`${base}/act_1001/lead-forms?pageId=pg_1&limit=2&cursor=${encodeURIComponent(page1.body.nextCursor)}`);
        expect(page2.body).to.deep.equal({ leadForms: [{ id: 'lf_3', name: null }], nextCursor: null });
      });

      it('requires pageId', async () => {
        const reply = await get(`${base}/act_1001/lead-forms`);
        expect(reply.status).to.equal(400);
        expect(reply.body.error.details).to.deep.equal([{ field: 'pageId', code: 'invalid_type', message: 'is required' }]);
      });
    });

    describe('options', () => {
      const expectations: Array<[string, string[]]> = [
        ['pages', ['pg_1', 'pg_2']],
        ['pixels', ['px_1']],
        ['audiences', ['aud_1', 'aud_2']],
      ];
      for (const [type, ids] of expectations) {
        it(`lists ${type} loaded by the bootstrap file`, async () => {
          const reply = await get(`${base}/act_1001/options?optionType=${type}`);
          expect(reply.status).to.equal(200);
          expect(reply.body.optionType).to.equal(type);
          expect(reply.body.items.map((i: any) => i.id)).to.deep.equal(ids);
        });
      }

      it('searches interests and locations with query, case-insensitively', async () => {
        const interests = await get(`${base}/act_1001/options?optionType=interests&query=RUN`);
        expect(interests.body.items.map((i: any) => i.name)).to.deep.equal(['Running']);
        const locations = await get(`${base}/act_1001/options?optionType=locations&query=united`);
        expect(locations.body.items.map((i: any) => i.id)).to.deep.equal(['US', 'GB']);
        expect(locations.body.query).to.equal('united');
        const events = await get(`${base}/act_1001/options?optionType=conversionEvents`);
        expect(events.body.items.map((i: any) => i.id)).to.include('PURCHASE');
      });

      it('answers 422 capability_unsupported for pages on a TikTok account', async () => {
        const reply = await get(`/v1/brands/${w.brandId('acme', 'tok')}/ad-accounts/biz_3001/options?optionType=pages`);
        expect(reply.status).to.equal(422);
        expect(reply.body.error.code).to.equal('capability_unsupported');
      });

      it('requires a known optionType', async () => {
        expect((await get(`${base}/act_1001/options`)).body.error.details[0]).to.deep.include({ field: 'optionType', code: 'invalid_type' });
        expect((await get(`${base}/act_1001/options?optionType=videos`)).body.error.details[0]).to.deep.include({ field: 'optionType', code: 'invalid_value' });
      });
    });

    describe('overview', () => {
      before(async () => {
        // Twelve published launches, each with one campaign that has been live for three days.
        const past = Date.now() - 3 * DAY;
        const platform = new SandboxPlatform('meta', w.service.knex, () => past);
        const account = { platform: 'meta' as const, accountId: 'act_1001', timezone: 'America/New_York', currency: 'USD', accessToken: null };
        const org = w.seed.organizations.acme.id;
        for (let i = 1; i <= 12; i++) {
          const [ref] = await platform.createObjects(account, [
            {
              level: 'campaign',
              marker: `m${i}`,
              name: `Launch ${i}`,
              parentId: null,
              status: 'ACTIVE',
              objective: 'OUTCOME_SALES',
              budget: { period: 'daily', amountMinorUnits: 1000 * i },
              settings: {},
            },
          ]);
          const [launchId] = await w.service.knex('launches').insert({
            organization_id: org,
            brand_id: w.brandId('acme', 'shoes'),
            account_id: 'act_1001',
            title: `Launch ${i}`,
            status: 'published',
            created_at: past,
            updated_at: past,
            published_at: past + i * 1000,
          });
          await w.service.knex('launch_nodes').insert({
            id: `nd_ov_${i}`,
            launch_id: launchId,
            parent_id: null,
            node_type: 'campaign',
            account_id: 'act_1001',
            name: `Launch ${i}`,
            properties: '{}',
            platform_id: ref.id,
            status: 'live',
            created_at: past,
            updated_at: past,
          });
        }
      });

      it('rolls up only the 10 most recently published launches of the account', async () => {
        const reply = await get(`${base}/act_1001/overview?datePreset=last_7d`);
        expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
        expect(reply.body.launches).to.deep.equal({ sampled: 10, total: 12, sampleLimit: 10, campaigns: 10 });
        expect(reply.body.totals.spendMinorUnits).to.be.greaterThan(0);
        // Launches 3..12 are sampled: at most their daily budgets over the three live days.
        const ceiling = [3, 4, 5, 6, 7, 8, 9, 10, 11, 12].reduce((s, i) => s + 1000 * i * 4, 0);
        expect(reply.body.totals.spendMinorUnits).to.be.at.most(ceiling);
        expect(reply.body.currency).to.equal('USD');
        expect(reply.body.timezone).to.equal('America/New_York');
        const t = reply.body.totals;
        expect(t.ctr).to.be.closeTo((100 * t.clicks) / t.impressions, 0.01);
        expect(t.cpmMinorUnits).to.equal(Math.round((t.spendMinorUnits * 1000) / t.impressions));
      });

      it('counts nothing for an account without service launches', async () => {
        const reply = await get(`${base}/act_1002/overview?datePreset=maximum`);
        expect(reply.status).to.equal(200);
        expect(reply.body.launches).to.deep.equal({ sampled: 0, total: 0, sampleLimit: 10, campaigns: 0 });
        expect(reply.body.totals).to.deep.include({ spendMinorUnits: 0, impressions: 0, ctr: null, roas: null });
      });

      it('accepts every date preset and resolves last_Nd to end yesterday', async () => {
        const today = await get(`${base}/act_1001/overview`);
        expect(today.body.datePreset).to.equal('today');
        expect(today.body.window.since).to.equal(today.body.window.until);
        for (const preset of [
          'today',
          'yesterday',
          'this_week_sun_today',
          'last_7d',
          'last_14d',
          'last_28d',
          'last_30d',
          'last_90d',
          'this_month',
          'last_month',
          'maximum',
        ]) {
          const reply = await get(`${base}/act_1001/overview?datePreset=${preset}`);
          expect(reply.status, preset).to.equal(200);
          expect(reply.body.datePreset).to.equal(preset);
          expect(reply.body.window.since <= reply.body.window.until, preset).to.equal(true);
          if (preset.startsWith('last_') && preset.endsWith('d')) expect(reply.body.window.until < today.body.window.since, preset).to.equal(true);
        }
        const maximum = await get(`${base}/act_1001/overview?datePreset=maximum`);
        expect(maximum.body.window.until).to.equal(today.body.window.until);
        expect(maximum.body.window.since < today.body.window.since).to.equal(true);
      });

      it('answers the same numbers twice (deterministic delivery)', async () => {
        const a = await get(`${base}/act_1001/overview?datePreset=last_14d`);
        const b = await get(`${base}/act_1001/overview?datePreset=last_14d`);
        expect(a.body.totals).to.deep.equal(b.body.totals);
      });

      it('refuses lifetime and custom dates', async () => {
        const lifetime = await get(`${base}/act_1001/overview?datePreset=lifetime`);
        expect(lifetime.status).to.equal(400);
        expect(lifetime.body.error.details[0]).to.deep.include({ field: 'datePreset', code: 'invalid_value' });
        const custom = await get(`${base}/act_1001/overview?since=2026-01-01&until=2026-01-31`);
        expect(custom.status).to.equal(400);
        expect(custom.body.error.details.map((d: any) => d.code)).to.deep.equal(['unrecognized_key', 'unrecognized_key']);
      });
    });

    describe('naming convention', () => {
      it('shows default templates with rendered examples', async () => {
        const reply = await get(`${base}/act_1001/naming-convention`);
        expect(reply.status).to.equal(200);
        expect(reply.body.isDefault).to.equal(true);
        expect(reply.body.templates.campaign).to.equal('{brand} | {objective} | {country} | {date:YYYY-MM-DD}');
        expect(reply.body.examples.campaign).to.match(/^Shoes Co \| OUTCOME_SALES \| US \| \d{4}-\d{2}-\d{2}$/);
        expect(reply.body.variables.map((v: any) => v.name)).to.include.members(['brand', 'objective', 'date', 'index']);
      });

      it('sets templates per level and renders them', async () => {
        const put = await w.request('PUT', `${base}/act_1001/naming-convention`, { key, body: { ad: '{brand|slug}_{creative|upper}_{index}' } });
        expect(put.status, JSON.stringify(put.body)).to.equal(200);
        expect(put.body.isDefault).to.equal(false);
        expect(put.body.templates.ad).to.equal('{brand|slug}_{creative|upper}_{index}');
        expect(put.body.examples.ad).to.equal('shoes-co_HERO_1');
        expect(put.body.templates.campaign).to.equal('{brand} | {objective} | {country} | {date:YYYY-MM-DD}');
        const again = await get(`${base}/act_1001/naming-convention`);
        expect(again.body.templates).to.deep.equal(put.body.templates);
        const activity = await get(`/v1/brands/${w.brandId('acme', 'shoes')}/activity?accountId=act_1001`);
        expect(activity.body.activities[0]).to.deep.include({ action: 'naming_convention.updated', userName: 'API key: CI key' });
      });

      it('refuses unknown variables and unclosed braces, naming the level', async () => {
        const reply = await w.request('PUT', `${base}/act_1001/naming-convention`, { key, body: { campaign: '{brand} {colour}', adset: '{age' } });
        expect(reply.status).to.equal(400);
        expect(reply.body.error.details.map((d: any) => d.field)).to.deep.equal(['campaign', 'adset']);
        expect(reply.body.error.details[0].message).to.contain('unknown variable "colour"');
      });

      it('refuses an empty change and a read-only key', async () => {
        expect((await w.request('PUT', `${base}/act_1001/naming-convention`, { key, body: {} })).status).to.equal(400);
        const reader = await w.request('PUT', `${base}/act_1001/naming-convention`, { key: w.key('acme', 'reader'), body: { ad: '{name}' } });
        expect(reader.status).to.equal(403);
        expect(reader.body.error.details).to.deep.equal({ requiredScope: 'write' });
      });
    });
  });
}
