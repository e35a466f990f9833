// The mapping cases of the contract, in one brand ('mapped', Meta, UTC) whose launches published
// campaigns A to I, and a fake Keitaro server whose clicks of the last days make each case:
// A auto on sub3; B auto on sub3 in a shared tracker campaign; C ambiguous (two tracker campaigns);
// D auto on the fallback parameter tracker_campaign_id; E only the fallback, in a shared campaign
// (unmatched shared_campaign_without_sub3); F no clicks; G manual (wins over its sub3 clicks);
// H manual into a shared campaign without sub3 (not pushable); I auto into a campaign with automatic cost.

import type { Knex } from 'knex';
import type { KeitaroServer } from '../fakes/keitaro-server.js';
import { clicksEveryDay, seedLaunch } from './tracker-world.js';

const id = (n: number) => `1202100000002${String(n).padStart(2, '0')}`;
export const M = { A: id(1), B: id(2), C: id(3), D: id(4), E: id(5), F: id(6), G: id(7), H: id(8), I: id(9) };
export const NAMES: Record<keyof typeof M, string> = {
  A: 'Alpha',
  B: 'Bravo',
  C: 'Charlie',
  D: 'Delta',
  E: 'Echo',
  F: 'Foxtrot',
  G: 'Golf',
  H: 'Hotel',
  I: 'India',
};

export function mappingBootstrap(trackerUrl: string, apiKey: string) {
  const campaigns = Object.entries(M).map(([k, v]) => ({
    accountId: 'act_6001',
    id: v,
    name: NAMES[k as keyof typeof M],
    status: 'ACTIVE',
    objective: 'OUTCOME_SALES',
    budget: { period: 'daily', amountMinorUnits: 20_000 },
  }));
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
            ref: 'mapped',
            name: 'Mapped Co',
            adAccounts: [{ platform: 'meta', accountId: 'act_6001', pageId: 'pg_6001', name: 'Mapped', timezone: 'UTC', currency: 'USD', active: true }],
            sandbox: { campaigns },
            tracker: { apiKey, baseUrl: trackerUrl },
          },
          {
            ref: 'bare',
            name: 'Bare Co',
            adAccounts: [{ platform: 'meta', accountId: 'act_6002', pageId: 'pg_6002', name: 'Bare', timezone: 'UTC', currency: 'USD', active: true }],
          },
        ],
        apiKeys: [{ ref: 'ci', name: 'CI key', createdBy: 'olive', scopes: ['read', 'write', 'publish'], surfaces: { api: true, mcp: true }, brands: null }],
      },
    ],
  };
}

/** Fills the fake tracker and the brand's launches; campaigns deliver from three days ago. */
export async function seedMappingCases(knex: Knex, tracker: KeitaroServer, organizationId: number, brandId: number): Promise<void> {
  tracker.campaigns = [
    { id: 31, name: 'Alpha offer' },
    { id: 32, name: 'Shared offer' },
    { id: 33, name: 'Charlie one' },
    { id: 34, name: 'Charlie two' },
    { id: 35, name: 'Delta offer' },
    { id: 36, name: 'Golf clicks' },
    { id: 37, name: 'Manual pick' },
    { id: 38, name: 'Auto-cost offer', cost_auto: true },
  ];
  const today = new Date().toISOString().slice(0, 10);
  const from = new Date(Date.now() - 5 * 86_400_000).toISOString().slice(0, 10);
  clicksEveryDay(tracker, from, today, [
    { campaign_id: 31, sub_id_3: M.A, clicks: 100 },
    { campaign_id: 32, sub_id_3: M.B, clicks: 80 },
    { campaign_id: 32, ad_campaign_id: M.E, clicks: 30 },
    { campaign_id: 33, sub_id_3: M.C, clicks: 70 },
    { campaign_id: 34, sub_id_3: M.C, clicks: 20 },
    { campaign_id: 35, ad_campaign_id: M.D, clicks: 40 },
    { campaign_id: 36, sub_id_3: M.G, clicks: 25 },
    { campaign_id: 38, sub_id_3: M.I, clicks: 15 },
    // Clicks of a campaign the service never launched do not make anything shared or unmatched.
    { campaign_id: 31, sub_id_3: '999999999999999', clicks: 5 },
  ]);
  const past = Date.now() - 3 * 86_400_000;
  await seedLaunch(
    knex,
    organizationId,
    brandId,
    'act_6001',
    Object.entries(M).map(([k, v]) => ({ id: v, name: NAMES[k as keyof typeof M] })),
    past,
  );
  await knex('sandbox_status_events').whereIn('object_id', Object.values(M)).update({ at: past });
}
