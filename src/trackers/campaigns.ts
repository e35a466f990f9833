// The service campaigns of a brand: campaigns its launches published (live, with an ad platform id).

import type { Knex } from 'knex';
import { adAccountsOf } from '../brands/store.js';
import { liveCampaignsOf } from '../launches/store.js';
import type { PlatformName } from '../platforms/port.js';

export interface ServiceCampaign {
  providerCampaignId: string;
  name: string;
  accountId: string;
  provider: PlatformName;
}

/** Every live campaign the brand's launches put on one of its ad accounts, oldest first. */
export async function serviceCampaigns(db: Knex | Knex.Transaction, brandId: number): Promise<ServiceCampaign[]> {
  const [live, accounts] = await Promise.all([liveCampaignsOf(db, brandId), adAccountsOf(db, brandId)]);
  const platformOf = new Map(accounts.map((a) => [a.accountId, a.platform]));
  const seen = new Set<string>();
  const out: ServiceCampaign[] = [];
  for (const { node, accountId } of live) {
    const provider = accountId === null ? undefined : platformOf.get(accountId);
    if (!provider || !accountId || !node.platformId || seen.has(node.platformId)) continue;
    seen.add(node.platformId);
    const name: string | null = node.name || (node.properties.name ?? null);
    out.push({ providerCampaignId: node.platformId, name: name ?? node.platformId, accountId, provider });
  }
  return out;
}
