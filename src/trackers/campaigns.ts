// The service campaigns of a brand: campaigns its launches published (live, with an ad platform id).

import type { Knex } from 'knex';
import type { PlatformName } from '../platforms/port.js';

export interface ServiceCampaign {
  providerCampaignId: string;
  name: string;
  accountId: string;
  provider: PlatformName;
}

/** Every live campaign the brand's launches put on an ad platform, oldest first. */
export async function serviceCampaigns(db: Knex | Knex.Transaction, brandId: number): Promise<ServiceCampaign[]> {
  const rows = await db('launch_nodes as n')
    .join('launches as l', 'l.id', 'n.launch_id')
    .join('ad_accounts as a', function () {
      this.on('a.brand_id', '=', 'l.brand_id').andOn('a.account_id', '=', db.raw('coalesce(n.account_id, l.account_id)'));
    })
    .where({ 'l.brand_id': brandId, 'n.node_type': 'campaign', 'n.status': 'live' })
    .whereNotNull('n.platform_id')
    .orderBy(['l.id', 'n.created_at', 'n.id'])
    .select('n.platform_id', 'n.name', 'n.properties', 'a.account_id', 'a.platform');
  const seen = new Set<string>();
  const out: ServiceCampaign[] = [];
  for (const r of rows) {
    if (seen.has(r.platform_id)) continue;
    seen.add(r.platform_id);
    let name = r.name as string | null;
    if (!name) {
      try {
        name = (JSON.parse(r.properties) as { name?: string }).name ?? null;
      } catch {
        name = null;
      }
    }
    out.push({ providerCampaignId: r.platform_id, name: name ?? r.platform_id, accountId: r.account_id, provider: r.platform });
  }
  return out;
}
