// The pipeline board tests' world and helpers: a brand with a publishing column, keys with and
// without the publish scope, and reads of what the board changed in storage (events, the ledger).

import type { World } from './world.js';

/** One agency organization: shoes (sandbox act_1001) and hats; keys with and without publish. */
export const boardWorld = {
  organizations: [
    {
      ref: 'acme',
      name: 'Acme Agency',
      plan: 'agency',
      subscriptionStatus: 'active',
      users: [{ ref: 'olive', email: 'olive@acme.test', name: 'Olive Owner', password: 'correct horse 1', role: 'owner' }],
      brands: [
        {
          ref: 'shoes',
          name: 'Shoes Co',
          adAccounts: [
            { platform: 'meta', accountId: 'act_1001', pageId: 'pg_1001', name: 'Shoes US', timezone: 'America/New_York', currency: 'USD', active: true },
          ],
        },
        {
          ref: 'hats',
          name: 'Hats Co',
          adAccounts: [{ platform: 'meta', accountId: 'act_1002', pageId: 'pg_1002', name: 'Hats US', timezone: 'UTC', currency: 'USD', active: true }],
        },
      ],
      apiKeys: [
        // $100 ceiling: one 5000-cent publish fits, a 6000-cent one after it does not.
        {
          ref: 'ci',
          name: 'CI key',
          createdBy: 'olive',
          scopes: ['read', 'write', 'publish'],
          surfaces: { api: true, mcp: true },
          brands: null,
          publishCeilingDollars: 100,
        },
        { ref: 'editor', name: 'Board editor', createdBy: 'olive', scopes: ['read', 'write'], surfaces: { api: true, mcp: true }, brands: null },
        { ref: 'reader', name: 'Reader', createdBy: 'olive', scopes: ['read'], surfaces: { api: true, mcp: true }, brands: null },
        {
          ref: 'hatsOnly',
          name: 'Hats only',
          createdBy: 'olive',
          scopes: ['read', 'write', 'publish'],
          surfaces: { api: true, mcp: true },
          brands: ['hats'],
          publishCeilingDollars: 100,
        },
      ],
    },
    {
      ref: 'other',
      name: 'Other Agency',
      plan: 'agency',
      subscriptionStatus: 'active',
      brands: [{ ref: 'rival', name: 'Rival Co', adAccounts: [] }],
      apiKeys: [{ ref: 'otherKey', name: 'Other key', scopes: ['read', 'write'], surfaces: { api: true, mcp: true } }],
    },
  ],
};

/** The key's committed total (cents), read from its ledger row. */
export async function committedCents(w: World, org: string, ref: string): Promise<number> {
  const row = await w.service.knex('api_keys').where({ id: w.seed.organizations[org].apiKeys[ref].id }).first('committed_cents');
  return Number(row.committed_cents);
}

/** Events of a type written for a brand, oldest first, with their data parsed. */
export async function eventsOf(w: World, type: string, brandId: number): Promise<Array<Record<string, any>>> {
  const rows = await w.service.knex('events').where({ type, brand_id: brandId }).orderBy('id');
  return rows.map((r: Record<string, any>) => JSON.parse(r.data));
}

/** The spend commitments of a launch, by state. */
export async function commitmentStates(w: World, launchId: string): Promise<string[]> {
  const rows = await w.service
    .knex('spend_commitments')
    .where({ launch_id: Number(launchId) })
    .orderBy('id')
    .select('state');
  return rows.map((r: Record<string, any>) => r.state);
}
