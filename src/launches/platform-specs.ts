// What a node becomes on its ad platform: its ObjectSpec (level, marker, name, parent, status, budget,
// settings), with what it takes from the tree around it and who its ads speak as. Publishing creates
// these; a preview asks the platform about them before anything is created (ask-platform.ts).

import type { BrandAdAccount } from '../platforms/registry.js';
import type { ObjectSpec } from '../platforms/port.js';
import type { NodeRow } from './store.js';
import { budgetOf } from './tree.js';
import type { AdCreative } from './creative-uploads.js';

/**
 * The node's properties as the adapter's settings. An ad speaks as its own page or identity, else its
 * account's (a Meta identity never goes to TikTok, nor the reverse).
 */
export function settingsOf(node: NodeRow, account: BrandAdAccount): Record<string, unknown> {
  const { name: _n, budget: _b, objective: _o, status: _s, accountId: _a, ...rest } = node.properties;
  if (node.nodeType !== 'ad') return rest;
  const own = rest.pageId !== undefined || rest.identityId !== undefined;
  const speaker =
    account.platform === 'meta'
      ? { pageId: rest.pageId ?? account.pageId ?? null, instagramUserId: (own ? rest.instagramUserId : account.instagramUserId) ?? null }
      : { identityId: rest.identityId ?? account.identityId ?? null, identityType: (own ? rest.identityType : account.identityType) ?? null };
  // Unset ones are left out, not sent as null.
  return { ...rest, ...Object.fromEntries(Object.entries(speaker).filter(([, v]) => v !== null && v !== undefined)) };
}

/**
 * What a node's settings take from the tree around it: a campaign the countries its ad sets target
 * (Meta special_ad_category_country), an ad set its campaign's bid strategy when the campaign holds no
 * budget (Meta takes it on the ad sets then), an ad its ad set's lead form (Meta lead_gen_form_id). An ad
 * set and an ad of a TikTok Smart+ campaign carry `smartPlus: true`: the adapter creates them through
 * the Smart+ endpoints.
 */
export function fromTree(node: NodeRow, byId: Map<string, NodeRow>, kids: Map<string | null, NodeRow[]>): Record<string, unknown> {
  if (node.nodeType === 'campaign') {
    const countries = (kids.get(node.id) ?? []).flatMap((s) => (Array.isArray(s.properties.targeting?.countries) ? s.properties.targeting.countries : []));
    return countries.length ? { adSetCountries: [...new Set(countries)].sort() } : {};
  }
  if (node.nodeType === 'adset') {
    const campaign = node.parentId ? byId.get(node.parentId) : undefined;
    const strategy = campaign && !budgetOf(campaign.properties) ? campaign.properties.bidStrategy : undefined;
    return { ...(strategy ? { bidStrategy: strategy } : {}), ...(campaign?.properties.smartPlus === true ? { smartPlus: true } : {}) };
  }
  if (node.nodeType !== 'ad' || !node.parentId) return {};
  const adSet = byId.get(node.parentId);
  const leadFormId = adSet?.properties.promotedObject?.leadFormId;
  const smartPlus = adSet?.parentId ? byId.get(adSet.parentId)?.properties.smartPlus === true : false;
  return { ...(leadFormId ? { leadFormId } : {}), ...(smartPlus ? { smartPlus: true } : {}) };
}

/** A node as what its platform creates: parent resolved to `parentPlatformId`, the ad's creative already on the account. */
export function specOf(
  node: NodeRow,
  parentPlatformId: string | null,
  account: BrandAdAccount,
  objective: string | undefined,
  creatives: Map<number, AdCreative> | null,
  attempt: number,
  mayExist: boolean,
  tree: Record<string, unknown> = {},
): ObjectSpec {
  const p = node.properties;
  const status = node.nodeType === 'campaign' ? 'PAUSED' : node.nodeType === 'ad' ? (p.status ?? 'ACTIVE') : 'ACTIVE';
  return {
    level: node.nodeType,
    marker: node.id,
    attempt,
    mayExist,
    name: p.name ?? node.id,
    parentId: parentPlatformId,
    status,
    objective,
    budget: node.nodeType === 'ad' ? null : budgetOf(p),
    settings: { ...settingsOf(node, account), ...tree },
    ...(node.nodeType === 'ad' ? { creative: typeof p.creativeId === 'number' ? (creatives?.get(p.creativeId) ?? null) : null } : {}),
  };
}
