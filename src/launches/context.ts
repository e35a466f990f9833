// What validation and publishing need to know about a launch's brand: its ad accounts, who their
// ads speak as and what their platforms granted them, the countries their platforms cannot target
// (per ad set: TikTok's regions depend on its objective and placements), the platforms' minimums and
// Graph version, the creatives and copy its ads name, and whether the click tracker is connected.

import type { ServiceContext } from '../catalogue/define.js';
import { adAccountsOf, brandNameOf } from '../brands/store.js';
import { copyPlatforms } from '../copy/store.js';
import { creativesAmong, type CreativeRow } from '../creatives/store.js';
import type { LaunchRow, NodeRow } from './store.js';
import type { ValidationContext } from './validate.js';
import { metaFactsFor } from './meta-rules.js';

/** The numeric ids the nodes' properties name under `key` (creativeId, copyGenerationId), each once. */
const idsNamed = (nodes: NodeRow[], key: string) => [...new Set(nodes.map((n) => n.properties[key]).filter((id): id is number => typeof id === 'number'))];

/**
 * Per ad set (node id), the countries it names that its platform cannot target for it: one adapter call
 * per ad account, objective and placements (the adapters keep what they looked up).
 */
async function untargetable(
  ctx: ServiceContext<'platforms'>,
  brandId: number,
  nodes: NodeRow[],
  accountOf: (campaign: NodeRow) => string | null,
  known: Set<string>,
): Promise<Map<string, Set<string>>> {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const groups = new Map<string, { accountId: string; scope: { objective?: string; placements?: unknown }; countries: Set<string>; adSets: string[] }>();
  for (const s of nodes.filter((n) => n.nodeType === 'adset' && n.parentId)) {
    const campaign = byId.get(s.parentId!);
    const accountId = campaign ? accountOf(campaign) : null;
    const countries: unknown = s.properties.targeting?.countries;
    if (!accountId || !known.has(accountId) || !Array.isArray(countries) || !countries.length) continue;
    const scope = { objective: campaign!.properties.objective, placements: s.properties.placements };
    const key = JSON.stringify([accountId, scope]);
    const group = groups.get(key) ?? { accountId, scope, countries: new Set<string>(), adSets: [] as string[] };
    for (const c of countries) if (typeof c === 'string') group.countries.add(c);
    group.adSets.push(s.id);
    groups.set(key, group);
  }
  const out = new Map<string, Set<string>>();
  for (const group of groups.values()) {
    const account = await ctx.platforms.account(ctx.db, brandId, group.accountId);
    const unknown = new Set(await ctx.platforms.adapterFor(account.platform).unknownCountries(account, [...group.countries].sort(), group.scope));
    for (const id of group.adSets) out.set(id, unknown);
  }
  return out;
}

/** The brand facts validateLaunch checks a tree against. */
export async function validationContextFor(
  ctx: ServiceContext<'trackers' | 'platforms'>,
  launch: Pick<LaunchRow, 'brandId' | 'accountId'>,
  nodes: NodeRow[],
): Promise<ValidationContext> {
  const accounts = await adAccountsOf(ctx.db, launch.brandId);
  const defaultAccountId = launch.accountId ?? (accounts.length === 1 ? accounts[0].accountId : null);
  const creatives = await creativesAmong(ctx.db, launch.brandId, idsNamed(nodes, 'creativeId'));
  const copies = await copyPlatforms(ctx.db, launch.brandId, idsNamed(nodes, 'copyGenerationId'));
  const tracker = await ctx.trackers.stored(ctx.db, launch.brandId);
  const known = new Set(accounts.map((a) => a.accountId));
  const accountOf = (campaign: NodeRow): string | null => campaign.properties.accountId ?? defaultAccountId;
  return {
    accounts: new Map(accounts.map((a) => [a.accountId, a.platform])),
    speakers: new Map(
      accounts.map((a) => [
        a.accountId,
        {
          pageId: a.pageId,
          instagramUserId: a.instagramUserId,
          identityId: a.identityId,
          identityType: a.identityType,
          identityBcId: a.identityBcId,
          allowlisted: a.allowlisted,
          regionalIdentities: a.regionalIdentities,
          smartPlusAllowed: a.smartPlusAllowed,
        },
      ]),
    ),
    unknownCountries: await untargetable(ctx, launch.brandId, nodes, accountOf, known),
    metaFacts: await metaFactsFor(ctx, launch.brandId, nodes, accountOf, new Map(accounts.map((a) => [a.accountId, a.platform]))),
    graphVersion: ctx.platforms.graphVersion,
    platformAsks: ctx.platforms.mode === 'live',
    tiktokCurrencies: new Map(accounts.filter((a) => a.platform === 'tiktok').map((a) => [a.accountId, a.currency])),
    tiktokMinimums: new Map(accounts.filter((a) => a.platform === 'tiktok').map((a) => [a.accountId, ctx.platforms.tiktokMinimums(a.currency)])),
    brandName: accounts.some((a) => a.platform === 'tiktok') ? await brandNameOf(ctx.db, launch.brandId) : null,
    defaultAccountId,
    creativeIds: new Set(creatives.map((c) => c.id)),
    imageCreativeIds: new Set(creatives.filter((c) => c.type === 'image').map((c) => c.id)),
    copies,
    trackerConnected: Boolean(tracker),
    now: ctx.now(),
  };
}

/** The creative rows the ads name, by id: what the publish uploads to each ad account. */
export async function creativesFor(ctx: ServiceContext, brandId: number, nodes: NodeRow[]): Promise<Map<number, CreativeRow>> {
  const rows = await creativesAmong(ctx.db, brandId, idsNamed(nodes, 'creativeId'));
  return new Map(rows.map((c) => [c.id, c]));
}
