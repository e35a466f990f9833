// A world for the click-tracker tests: two brands in two time zones (New York, USD, Meta; Tokyo,
// JPY, TikTok) connected to one fake Keitaro server, their live service campaigns in the sandbox
// ad platform (delivering since three days before `start`), and a fixed clock the injected sleep moves.

import type { Knex } from 'knex';
import { KeitaroServer } from '../fakes/keitaro-server.js';

export const C1 = '120210000000101';
export const C2 = '120210000000102';
export const C3 = '1700000000000000301';
/** Campaigns of the tracker: 11 receives C1 and C2 (on sub3), 21 receives C3. */
export const EAST_CAMPAIGN = 11;
export const TOKYO_CAMPAIGN = 21;

export function trackerBootstrap(trackerUrl: string, apiKey: string) {
  const campaign = (accountId: string, id: string, name: string, amount: number) => ({
    accountId,
    id,
    name,
    status: 'ACTIVE',
    objective: 'OUTCOME_SALES',
    budget: { period: 'daily', amountMinorUnits: amount },
  });
  return {
    organizations: [
      {
        ref: 'acme',
        name: 'Acme Agency',
        plan: 'agency',
        subscriptionStatus: 'active',
        users: [
          { ref: 'olive', email: 'olive@acme.test', name: 'Olive Owner', password: 'correct horse 1', role: 'owner' },
          { ref: 'adam', email: 'adam@acme.test', name: 'Adam Admin', password: 'correct horse 3', role: 'admin' },
          { ref: 'mia', email: 'mia@acme.test', name: 'Mia Member', password: 'correct horse 2', role: 'member', brands: null },
        ],
        brands: [
          {
            ref: 'east',
            name: 'East Co',
            adAccounts: [
              { platform: 'meta', accountId: 'act_5001', pageId: 'pg_5001', name: 'East US', timezone: 'America/New_York', currency: 'USD', active: true },
            ],
            sandbox: { campaigns: [campaign('act_5001', C1, 'Prospecting', 50_000), campaign('act_5001', C2, 'Retargeting', 30_000)] },
            tracker: { apiKey, baseUrl: trackerUrl },
          },
          {
            ref: 'tokyo',
            name: 'Tokyo KK',
            adAccounts: [
              {
                platform: 'tiktok',
                accountId: 'biz_5002',
                identityId: 'idt_5002',
                identityType: 'CUSTOMIZED_USER',
                name: 'Tokyo JP',
                timezone: 'Asia/Tokyo',
                currency: 'JPY',
                active: true,
              },
            ],
            sandbox: { campaigns: [campaign('biz_5002', C3, 'Tokyo launch', 800_000)] },
            tracker: { apiKey, baseUrl: trackerUrl },
          },
          {
            ref: 'bare',
            name: 'Bare Co',
            adAccounts: [{ platform: 'meta', accountId: 'act_5003', pageId: 'pg_5003', name: 'Bare', timezone: 'UTC', currency: 'USD', active: true }],
          },
        ],
        apiKeys: [{ ref: 'ci', name: 'CI key', createdBy: 'olive', scopes: ['read', 'write', 'publish'], surfaces: { api: true, mcp: true }, brands: null }],
      },
    ],
  };
}

/** Records live campaigns published by a launch of the brand (what a real publish leaves behind). */
export async function seedLaunch(
  knex: Knex,
  organizationId: number,
  brandId: number,
  accountId: string,
  campaigns: Array<{ id: string; name: string }>,
  at: number,
): Promise<void> {
  const [launchId] = await knex('launches').insert({
    organization_id: organizationId,
    brand_id: brandId,
    account_id: accountId,
    title: `Launch of ${accountId}`,
    status: 'published',
    created_at: at,
    updated_at: at,
    published_at: at,
  });
  for (const [i, c] of campaigns.entries()) {
    await knex('launch_nodes').insert({
      id: `n${launchId}c${i}`,
      launch_id: Number(launchId),
      parent_id: null,
      node_type: 'campaign',
      account_id: accountId,
      name: c.name,
      properties: JSON.stringify({ name: c.name }),
      platform_id: c.id,
      status: 'live',
      created_at: at,
      updated_at: at,
    });
  }
}

/** Clicks of the fake tracker for every day from `from` to `to`. */
export function clicksEveryDay(
  server: KeitaroServer,
  from: string,
  to: string,
  rows: Array<{ campaign_id: number; sub_id_3?: string; ad_campaign_id?: string; clicks: number }>,
): void {
  for (let d = from; d <= to; d = new Date(Date.parse(`${d}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10)) {
    for (const r of rows)
      server.clicks.push({
        date: d,
        campaign_id: r.campaign_id,
        sub_id_3: r.sub_id_3 ?? '',
        ad_campaign_id: r.ad_campaign_id ?? '',
        clicks: r.clicks,
        revenue: r.clicks * 0.5,
      });
  }
}

/** Reads a push run over REST until it ends (the brand's push job carries it out in the background); answers the ended run. */
export async function runToEnd(
  w: { request: (method: string, path: string, opts?: { key?: string }) => Promise<{ status: number; body: any }> },
  key: string,
  brandId: number,
  runId: number,
): Promise<any> {
  for (let i = 0; i < 400; i++) {
    const got = await w.request('GET', `/v1/brands/${brandId}/integrations/tracker/push/runs/${runId}`, { key });
    if (got.status !== 200) throw new Error(`get-tracker-push-run answered ${got.status}: ${JSON.stringify(got.body)}`);
    if (got.body.status !== 'running') return got.body;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`push run ${runId} did not end within 20 s`);
}
