// What validation and publishing need to know about a launch's brand: its ad accounts and who their
// ads speak as, the countries their platforms cannot target, the creatives and copy its ads name,
// and whether the click tracker is connected.

import type { ServiceContext } from '../catalogue/define.js';
import { adAccountsOf } from '../brands/store.js';
import { copyPlatforms } from '../copy/store.js';
import { creativesAmong, type CreativeRow } from '../creatives/store.js';
import type { LaunchRow, NodeRow } from './store.js';
import type { ValidationContext } from './validate.js';
import { metaFactsFor } from './meta-rules.js';

/** The numeric ids the nodes' properties name under `key` (creativeId, copyGenerationId), each once. */
const idsNamed = (nodes: NodeRow[], key: string) => [...new Set(nodes.map((n) => n.properties[key]).filter((id): id is number => typeof id === 'number'))];

/**
 * Per ad account the tree's campaigns publish to, the countries its ad sets name that the platform
 * cannot target: one adapter call per account (the adapters keep what they looked up).
 */
async function untargetable(
  ctx: ServiceContext<'platforms'>,
  brandId: number,
  nodes: NodeRow[],
  accountOf: (campaign: NodeRow) => string | null,
  known: Set<string>,
): Promise<Map<string, Set<string>>> {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const wanted = new Map<string, Set<string>>();
  for (const s of nodes.filter((n) => n.nodeType === 'adset' && n.parentId)) {
    const campaign = byId.get(s.parentId!);
    const accountId = campaign ? accountOf(campaign) : null;
    const countries: unknown = s.properties.targeting?.countries;
    if (!accountId || !known.has(accountId) || !Array.isArray(countries) || !countries.length) continue;
    const set = wanted.get(accountId) ?? new Set<string>();
    for (const c of countries) if (typeof c === 'string') set.add(c);
    wanted.set(accountId, set);
  }
  const out = new Map<string, Set<string>>();
  for (const [accountId, countries] of wanted) {
    const account = await ctx.platforms.account(ctx.db, brandId, accountId);
    out.set(accountId, new Set(await ctx.platforms.adapterFor(account.platform).unknownCountries(account, [...countries].sort())));
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
      accounts.map((a) => [a.accountId, { pageId: a.pageId, instagramUserId: a.instagramUserId, identityId: a.identityId, identityType: a.identityType }]),
    ),
    unknownCountries: await untargetable(ctx, launch.brandId, nodes, accountOf, known),
    metaFacts: await metaFactsFor(ctx, launch.brandId, nodes, accountOf, new Map(accounts.map((a) => [a.accountId, a.platform]))),
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
