// What launch-campaign answers, preview or published: the plan of objects per level, the counts,
// and what the launch counts against the ceiling (per ad account, in US cents).

import crypto from 'node:crypto';
import type { ServiceContext } from '../catalogue/define.js';
import { ServiceError } from '../errors.js';
import { canonicalJson } from '../pagination/cursor.js';
import { countPerAccount, type Counted } from '../money/convert.js';
import { ceilingOf, type CeilingView } from './ceiling.js';
import { validationContextFor } from './context.js';
import { commitmentsOf, type LaunchRow, type NodeRow } from './store.js';
import { budgetOf, countsOf } from './tree.js';
import { advantagePlusOf, type AdvantagePlusView } from '../platforms/meta/advantage.js';
import type { PlatformName } from '../platforms/port.js';
import { campaignAmounts, validateLaunch, warningView, type Warning } from './validate.js';

/**
 * The plan's fingerprint: every node's place, level, account and properties (budgets included), so
 * any change to what would be published changes it; what publishing records (platform ids, live
 * status) does not. A preview answers it; a publish or budget edit that names it acts only on that plan.
 */
export function planFingerprint(nodes: NodeRow[]): string {
  const parts = nodes
    .map((n) => [n.id, n.parentId, n.nodeType, n.accountId, n.properties])
    .sort((a, b) => (String(a[0]) < String(b[0]) ? -1 : String(a[0]) > String(b[0]) ? 1 : 0));
  return crypto.createHash('sha256').update(canonicalJson(parts)).digest('base64url');
}

/** Throws 409 stale_read (nothing is done) when `expected` is given and the launch's plan is no longer the one it names. */
export function requirePlan(launchId: number, nodes: NodeRow[], expected: string | undefined, what: string): void {
  if (expected === undefined) return;
  const now = planFingerprint(nodes);
  if (now === expected) return;
  throw new ServiceError(
    'stale_read',
    `Launch ${launchId} changed since the plan ${expected.slice(0, 12)}... was previewed: ${what}. Preview it again and confirm the plan it shows.`,
    { reason: 'plan_changed', launchId: String(launchId), planFingerprint: now },
  );
}

/**
 * Each Meta campaign's Advantage+ view (platforms/meta/advantage.ts): from the launch alone, so the
 * sandbox and live previews say the same; null for a campaign of another platform or without an account.
 */
function advantagePlusOfCampaign(c: NodeRow, nodes: NodeRow[], platform: PlatformName | null): AdvantagePlusView | null {
  if (platform !== 'meta') return null;
  const adSets = nodes
    .filter((n) => n.parentId === c.id && n.nodeType === 'adset')
    .map((n) => ({ id: n.id, name: n.properties.name ?? null, properties: n.properties }));
  return advantagePlusOf(c.properties.objective, budgetOf(c.properties), adSets);
}

function planOf(nodes: NodeRow[], campaignAccounts: Map<string, string | null>, platforms: Map<string, PlatformName>) {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const campaignOf = (n: NodeRow): NodeRow => (n.parentId ? campaignOf(byId.get(n.parentId)!) : n);
  const item = (n: NodeRow) => {
    const c = campaignOf(n);
    return {
      nodeId: n.id,
      parentId: n.parentId,
      name: n.properties.name ?? null,
      accountId: campaignAccounts.get(c.id) ?? null,
      objective: c.properties.objective,
      status: n.nodeType === 'adset' ? 'ACTIVE' : (n.properties.status ?? 'ACTIVE'),
      budget: n.nodeType === 'ad' ? null : budgetOf(n.properties),
      platformId: n.platformId,
    };
  };
  return {
    campaigns: nodes
      .filter((n) => n.nodeType === 'campaign')
      .map((n) => {
        const accountId = campaignAccounts.get(n.id);
        return { ...item(n), advantagePlus: advantagePlusOfCampaign(n, nodes, accountId ? (platforms.get(accountId) ?? null) : null) };
      }),
    adSets: nodes.filter((n) => n.nodeType === 'adset').map(item),
    ads: nodes.filter((n) => n.nodeType === 'ad').map(item),
  };
}

/**
 * What publishing the launch counts against the ceiling: each ad account's total in its own
 * currency, converted to US cents and rounded up once per account (503 when a rate is missing).
 */
export async function countLaunch(
  ctx: ServiceContext<'platforms' | 'config'>,
  brandId: number,
  nodes: NodeRow[],
  campaignAccounts: Map<string, string | null>,
): Promise<Counted> {
  const parts = [];
  for (const c of campaignAmounts(nodes, campaignAccounts)) {
    const account = await ctx.platforms.account(ctx.db, brandId, c.accountId);
    parts.push({ accountId: c.accountId, currency: account.currency, amountMinorUnits: c.amountMinorUnits });
  }
  return countPerAccount(parts, ctx.config.fxRates);
}

/** What a published launch counted when it was published (its commitments), or null for commitments that predate currencies. */
async function countedAtPublish(ctx: ServiceContext, launchId: number): Promise<Counted | null> {
  const rows = await commitmentsOf(ctx.db, launchId, 'committed', 'publish');
  if (!rows.length || rows.some((r) => r.accountId === null)) return null;
  const accounts = rows.map((r) => ({
    accountId: r.accountId!,
    currency: r.currency!,
    amountMinorUnits: Number(r.amountMinorUnits),
    countedUsdCents: r.countedUsdCents,
  }));
  return { accounts, totalUsdCents: accounts.reduce((sum, a) => sum + a.countedUsdCents, 0) };
}

/** What a launch's preview says publishing it would do: its plan's fingerprint, the counts per level, and what it counts per ad account. */
export interface LaunchPlan {
  planFingerprint: string;
  counts: ReturnType<typeof countsOf>;
  accounts: Counted['accounts'];
  countedUsdCents: number;
}

/**
 * The plan launch-campaign's preview would show for launch `l` now, by the same builders (the
 * campaigns' accounts as validation resolves them, the amounts counted per account): what a
 * workflow's review gate records and shows. Throws as the preview does (503 without an FX rate).
 */
export async function launchPlan(ctx: ServiceContext<'platforms' | 'config' | 'trackers'>, l: LaunchRow, nodes: NodeRow[]): Promise<LaunchPlan> {
  const { campaignAccounts } = validateLaunch(nodes, await validationContextFor(ctx, l, nodes));
  const counted = await countLaunch(ctx, l.brandId, nodes, campaignAccounts);
  return { planFingerprint: planFingerprint(nodes), counts: countsOf(nodes), accounts: counted.accounts, countedUsdCents: counted.totalUsdCents };
}

/** The answer of launch-campaign: the launch's plan, counts, what it counts against the ceiling, and its warnings. */
export async function publishView(
  ctx: ServiceContext<'platforms' | 'config'>,
  l: LaunchRow,
  nodes: NodeRow[],
  campaignAccounts: Map<string, string | null>,
  warnings: Warning[],
  confirmed: boolean,
  ceiling?: CeilingView,
) {
  const counted = (l.status === 'published' ? await countedAtPublish(ctx, l.id) : null) ?? (await countLaunch(ctx, l.brandId, nodes, campaignAccounts));
  const platforms = new Map<string, PlatformName>();
  for (const accountId of new Set(campaignAccounts.values()))
    if (accountId) platforms.set(accountId, (await ctx.platforms.account(ctx.db, l.brandId, accountId)).platform);
  return {
    launchId: String(l.id),
    confirmed,
    valid: true,
    status: l.status,
    counts: countsOf(nodes),
    plan: planOf(nodes, campaignAccounts, platforms),
    planFingerprint: planFingerprint(nodes),
    budget: {
      countedMinorUnits: counted.totalUsdCents,
      countedUsdCents: counted.totalUsdCents,
      accounts: counted.accounts,
      ceiling: ceiling ?? (await ceilingOf(ctx.db, ctx.principal)),
    },
    warnings: warnings.map(warningView),
    publishedAt: l.publishedAt === null ? null : new Date(l.publishedAt).toISOString(),
  };
}
