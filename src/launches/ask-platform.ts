// Asking the platform (live-platforms.md, "Asking the platform"): where an adapter can validate a create
// without doing it (Meta validate_only), a preview asks about each campaign create and a publish asks
// about all of a level's creates before it creates any of them. A refusal is an issue on that node's
// field, in Meta's own words with its code and subcode; nothing is created.

import { validationFailed, type FieldIssue } from '../errors.js';
import type { BrandAdAccount } from '../platforms/registry.js';
import type { ObjectSpec, PlatformAdapter, PlatformError } from '../platforms/port.js';
import type { ServiceContext } from '../catalogue/define.js';
import type { NodeRow } from './store.js';
import { childrenOf } from './tree.js';
import { specOf, fromTree } from './platform-specs.js';

/** How validation names the nodes of each level. */
const COLLECTION = { campaign: 'campaigns', adset: 'adSets', ad: 'ads' } as const;
const LEVEL_WORDS = { campaign: 'campaigns', adset: 'ad sets', ad: 'ads' } as const;

/** A platform's refusal as a validation issue on its node (the property it blames, when it names one). */
export function refusalIssue(node: NodeRow, err: PlatformError): FieldIssue {
  const level = node.nodeType as keyof typeof COLLECTION;
  const code = err.extra.platformCode !== undefined ? `code ${err.extra.platformCode}` : null;
  const subcode = err.extra.platformSubcode !== undefined ? `subcode ${err.extra.platformSubcode}` : null;
  const said = [code, subcode].filter(Boolean).join(', ');
  return {
    field: `${COLLECTION[level]}[${node.id}]${err.extra.field ? `.${err.extra.field}` : ''}`,
    code: 'platform_refused',
    message: `the ad platform refused it when asked to validate it: ${err.message}${said ? ` (${said})` : ''}`,
  };
}

/**
 * At preview, each campaign create on an account whose platform validates without creating (Meta), asked
 * in one round trip per account: the issues of the refused ones. Campaigns of other platforms, or on an
 * account the preview's own validation already refused, are not asked.
 */
export async function askAboutCampaigns(
  ctx: ServiceContext<'platforms'>,
  brandId: number,
  nodes: NodeRow[],
  campaignAccounts: Map<string, string | null>,
): Promise<FieldIssue[]> {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const kids = childrenOf(nodes);
  const byAccount = new Map<string, NodeRow[]>();
  for (const c of kids.get(null) ?? []) {
    const accountId = campaignAccounts.get(c.id);
    if (accountId) byAccount.set(accountId, [...(byAccount.get(accountId) ?? []), c]);
  }
  const issues: FieldIssue[] = [];
  for (const [accountId, campaigns] of byAccount) {
    const account = await ctx.platforms.account(ctx.db, brandId, accountId);
    const adapter = ctx.platforms.adapterFor(account.platform);
    if (!adapter.validateCreates) continue;
    const specs = campaigns.map((c) => specOf(c, null, account, c.properties.objective, null, 1, false, fromTree(c, byId, kids)));
    const refusals = await adapter.validateCreates(account, specs);
    refusals.forEach((r, i) => r && issues.push(refusalIssue(campaigns[i], r)));
  }
  return issues;
}

/**
 * Before a publish creates a level's objects on an account (their parents created), asks the platform
 * about every one of them in as few round trips as it allows; when it refuses any, throws 400
 * validation_failed naming each refused node, and nothing of the level is created (the publish then
 * rolls back what exists, as any failed publish does).
 */
export async function askBeforeCreating(
  adapter: PlatformAdapter,
  account: BrandAdAccount,
  level: 'adset' | 'ad',
  nodes: NodeRow[],
  specs: ObjectSpec[],
): Promise<void> {
  if (!adapter.validateCreates || !specs.length) return;
  const refusals = await adapter.validateCreates(account, specs);
  const issues = refusals.flatMap((r, i) => (r ? [refusalIssue(nodes[i], r)] : []));
  if (issues.length)
    throw validationFailed(
      issues,
      `The ad platform refused ${issues.length} of the launch's ${LEVEL_WORDS[level]} on ${account.accountId} when asked to validate them: none of its ${LEVEL_WORDS[level]} was created and the publish was rolled back.`,
    );
}
