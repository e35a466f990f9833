// A sandbox brand for performance reports: campaigns (with ad sets and ads) created on the sandbox
// platform ten days ago, one of them published by a launch, so reports have days, levels and a
// launch to narrow to.

import type { Knex } from 'knex';
import { SandboxPlatform } from '../../src/platforms/sandbox/adapter.js';
import type { AdAccount, ObjectSpec } from '../../src/platforms/port.js';

const DAY = 86_400_000;

export const insightsBootstrap = (tracker?: { baseUrl: string; apiKey: string }) => ({
  organizations: [
    {
      ref: 'acme',
      name: 'Acme',
      plan: 'agency',
      subscriptionStatus: 'active',
      users: [{ ref: 'olive', email: 'olive@reports.test', name: 'Olive', password: 'correct horse 1', role: 'owner' }],
      brands: [
        {
          ref: 'shoes',
          name: 'Shoes Co',
          adAccounts: [
            { platform: 'meta', accountId: 'act_1001', pageId: 'pg_1001', name: 'Shoes US', timezone: 'America/New_York', currency: 'USD' },
            { platform: 'meta', accountId: 'act_1002', pageId: 'pg_1002', name: 'Shoes EU', timezone: 'America/New_York', currency: 'EUR' },
          ],
          ...(tracker ? { tracker } : {}),
        },
        { ref: 'hats', name: 'Hats Co', adAccounts: [{ platform: 'meta', accountId: 'act_7007', pageId: 'pg_7007', timezone: 'UTC', currency: 'USD' }] },
      ],
      apiKeys: [{ ref: 'ci', name: 'CI key', createdBy: 'olive', scopes: ['read', 'write'], surfaces: { api: true, mcp: true } }],
    },
  ],
});

export interface SeededReport {
  /** Campaign ids in the order created (the first is the launch's); ad set and ad ids in id order, as reports list them. */
  campaigns: string[];
  adsets: string[];
  ads: string[];
  launchId: number;
}

/** Three campaigns of two ad sets of two ads each, live since ten days ago; campaign 1 published by a launch. */
export async function seedReportObjects(knex: Knex, organizationId: number, brandId: number, accountId = 'act_1001'): Promise<SeededReport> {
  const past = Date.now() - 10 * DAY;
  const platform = new SandboxPlatform('meta', knex, () => past);
  const account: AdAccount = { platform: 'meta', accountId, timezone: 'America/New_York', currency: 'USD', accessToken: null };
  const out: SeededReport = { campaigns: [], adsets: [], ads: [], launchId: 0 };
  // The sandbox takes parents by id: each level is created once its parents exist.
  for (let i = 1; i <= 3; i++) {
    const [campaign] = await platform.createObjects(account, [
      {
        level: 'campaign',
        marker: `c${i}`,
        name: `Campaign ${i}`,
        parentId: null,
        status: 'ACTIVE',
        objective: 'OUTCOME_SALES',
        budget: { period: 'daily', amountMinorUnits: 3000 * i },
        settings: {},
      },
    ]);
    out.campaigns.push(campaign.id);
    for (let j = 1; j <= 2; j++) {
      const [adset] = await platform.createObjects(account, [
        { level: 'adset', marker: `c${i}s${j}`, name: `Ad set ${i}.${j}`, parentId: campaign.id, status: 'ACTIVE', settings: {} },
      ]);
      out.adsets.push(adset.id);
      const specs: ObjectSpec[] = [1, 2].map((k) => ({
        level: 'ad',
        marker: `c${i}s${j}a${k}`,
        name: `Ad ${i}.${j}.${k}`,
        parentId: adset.id,
        status: 'ACTIVE',
        settings: { pageId: 'pg_1001' },
      }));
      for (const ad of await platform.createObjects(account, specs)) out.ads.push(ad.id);
    }
  }
  const byId = (a: string, b: string) => (a < b ? -1 : 1);
  out.adsets.sort(byId);
  out.ads.sort(byId);
  // Launch 1 published campaign 1; launch 2 the other two: every campaign is a live object of the service.
  const launches: number[] = [];
  for (const [k, ids] of [[out.campaigns[0]], out.campaigns.slice(1)].entries()) {
    const [launchId] = await knex('launches').insert({
      organization_id: organizationId,
      brand_id: brandId,
      account_id: accountId,
      title: `Launch ${k + 1}`,
      status: 'published',
      created_at: past,
      updated_at: past,
      published_at: past,
    });
    launches.push(Number(launchId));
    for (const id of ids) {
      await knex('launch_nodes').insert({
        id: `nd_report_${accountId}_${id}`,
        launch_id: launchId,
        parent_id: null,
        node_type: 'campaign',
        account_id: accountId,
        name: `Campaign ${out.campaigns.indexOf(id) + 1}`,
        properties: '{}',
        platform_id: id,
        status: 'live',
        created_at: past,
        updated_at: past,
      });
    }
  }
  const launchId = launches[0];
  out.launchId = Number(launchId);
  return out;
}
