// Asking the platform (live-platforms.md, "Asking the platform"): where an adapter can validate a create
// without doing it (Meta validate_only), a preview asks about each campaign create and a publish asks
// about all of a level's creates before it creates any of them; where it has tools instead (TikTok's
// URL tool), a preview asks them about the launch's objects. A refusal is an issue on that node's
// field, in the platform's own words (Meta's with its code and subcode); nothing is created.

import { validationFailed, type FieldIssue } from '../errors.js';
import { serviceErrorOf, type BrandAdAccount } from '../platforms/registry.js';
import { needsOwnerFix } from '../platforms/meta/errors.js';
import type { ObjectSpec, PlatformAdapter, PlatformError } from '../platforms/port.js';
import type { ServiceContext } from '../catalogue/define.js';
import type { NodeRow } from './store.js';
import { childrenOf } from './tree.js';
import { specOf, fromTree } from './platform-specs.js';

/** How validation names the nodes of each level. */
const COLLECTION = { campaign: 'campaigns', adset: 'adSets', ad: 'ads' } as const;
const LEVEL_WORDS = { campaign: 'campaigns', adset: 'ad sets', ad: 'ads' } as const;

/**
 * A refusal only the Meta app's or the Page's owner can fix (app in development mode, lead ads terms not
 * accepted) is no node's issue: it answers 422 unprocessable saying the fix, naming the account or Page.
 */
function ownerFixFirst(refusals: Array<PlatformError | null>): void {
  const owner = refusals.find((r): r is PlatformError => r !== null && needsOwnerFix(r));
  if (owner) throw serviceErrorOf(owner);
}

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
 * At preview, what each account's platform can say before anything exists: each campaign create where it
 * validates without creating (Meta, one round trip per account), and every object of the account's
 * campaigns where it has tools that judge them (TikTok: one /tool/url_validate/ per distinct landing
 * page). The issues of the refused ones. Campaigns on an account the preview's own validation already
 * refused are not asked about (the caller asks only when it found no issue).
 */
export async function askAtPreview(
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
  const ask = async (asked: NodeRow[], question: Promise<Array<PlatformError | null>>) => {
    const answers = await question;
    ownerFixFirst(answers);
    answers.forEach((r, i) => r && issues.push(refusalIssue(asked[i], r)));
  };
  for (const [accountId, campaigns] of byAccount) {
    const account = await ctx.platforms.account(ctx.db, brandId, accountId);
    const adapter = ctx.platforms.adapterFor(account.platform);
    const specOfNode = (n: NodeRow, objective: string | undefined) => specOf(n, null, account, objective, null, 1, false, fromTree(n, byId, kids));
    if (adapter.validateCreates)
      await ask(
        campaigns,
        adapter.validateCreates(
          account,
          campaigns.map((c) => specOfNode(c, c.properties.objective)),
        ),
      );
    if (adapter.validateWithTools) {
      // Every object under the account's campaigns, each with its campaign's objective.
      const asked = campaigns.flatMap((c) => [c, ...(kids.get(c.id) ?? []).flatMap((s) => [s, ...(kids.get(s.id) ?? [])])].map((n) => ({ n, c })));
      await ask(
        asked.map(({ n }) => n),
        adapter.validateWithTools(
          account,
          asked.map(({ n, c }) => specOfNode(n, c.properties.objective)),
        ),
      );
    }
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
  ownerFixFirst(refusals);
  const issues = refusals.flatMap((r, i) => (r ? [refusalIssue(nodes[i], r)] : []));
  if (issues.length)
    throw validationFailed(
      issues,
      `The ad platform refused ${issues.length} of the launch's ${LEVEL_WORDS[level]} on ${account.accountId} when asked to validate them: none of its ${LEVEL_WORDS[level]} was created and the publish was rolled back.`,
    );
}
