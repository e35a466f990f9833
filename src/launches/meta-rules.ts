// Launch validation of the Meta rules the generated specification leaves out (live-platforms.md,
// "What the specifications leave out"), the same at preview and publish and in both modes: the
// Advantage+ audience flag, DSA names for EU ad sets, placements, lead forms, special ad categories
// and minimum budgets. The facts per account come from the adapter (live: Meta; sandbox: its table).

import type { ServiceContext } from '../catalogue/define.js';
import type { AdAccount } from '../platforms/port.js';
import { currencyDigits } from '../platforms/live-http.js';
import { LEAD_FORM_GOALS, euCountries, minimumFor, narrowing, specialCategories, type MetaAccountFacts } from '../platforms/meta/rules.js';
import { PLACEMENT_POSITIONS } from '../platforms/placements.js';
import { RULES } from './rules.js';
import type { NodeRow } from './store.js';
import { budgetOf } from './tree.js';

type Issue = (field: string, message: string) => void;

/** A Meta ad account's facts with its currency, as validation reads them. */
export type MetaFacts = MetaAccountFacts & { currency: string };

/**
 * Per Meta ad account the tree's campaigns publish to, its facts: one adapter call per account (the
 * adapter keeps what it read). Meta's DSA defaults are asked for only where an ad set targets the EU.
 */
export async function metaFactsFor(
  ctx: ServiceContext<'platforms'>,
  brandId: number,
  nodes: NodeRow[],
  accountOf: (campaign: NodeRow) => string | null,
  platforms: Map<string, string>,
): Promise<Map<string, MetaFacts>> {
  const wanted = new Map<string, boolean>();
  for (const c of nodes.filter((n) => n.nodeType === 'campaign')) {
    const accountId = accountOf(c);
    if (!accountId || platforms.get(accountId) !== 'meta') continue;
    const eu = nodes.some((s) => s.parentId === c.id && euCountries(s.properties.targeting?.countries).length > 0);
    wanted.set(accountId, (wanted.get(accountId) ?? false) || eu);
  }
  const out = new Map<string, MetaFacts>();
  for (const [accountId, dsa] of wanted) {
    const account = await ctx.platforms.account(ctx.db, brandId, accountId);
    const facts = ctx.platforms.adapterFor('meta').metaAccountFacts?.(account, dsa);
    if (facts) out.set(accountId, { ...(await facts), currency: account.currency });
  }
  return out;
}

/** An amount of minor units in the currency's own notation ("$5.00", "¥700"). */
export function moneyText(minor: number, currency: string): string {
  const digits = currencyDigits(currency);
  try {
    return new Intl.NumberFormat('en-US', { style: 'currency', currency }).format(minor / 10 ** digits);
  } catch {
    return `${(minor / 10 ** digits).toFixed(digits)} ${currency}`;
  }
}

/** The Meta rules of one ad set (`facts` absent: the account's facts are unknown, only the tree's own rules are checked). */
export function metaAdSetIssues(
  s: NodeRow,
  campaign: NodeRow,
  account: { id: string; currency: string; pageId: string | null } | null,
  facts: MetaFacts | undefined,
  issue: Issue,
): void {
  const at = `adSets[${s.id}]`;
  const p = s.properties;
  const t = p.targeting ?? {};
  if (p.advantageAudience === true && narrowing(t).agesOrGenders)
    issue(
      `${at}.advantageAudience`,
      'is true while the targeting narrows ages or genders, which Advantage+ audience treats as suggestions only; set it false or widen ages to 18-65 and both genders',
    );

  const eu = euCountries(t.countries);
  if (eu.length && facts && !(facts.dsaBeneficiary && facts.dsaPayor))
    issue(
      `${at}.targeting.countries`,
      `${eu.join(', ')} ${eu.length > 1 ? 'are' : 'is'} in the EU, where Meta requires who benefits from and who pays for the ads; ` +
        `set dsaBeneficiary and dsaPayor on ad account ${account?.id ?? 'of this campaign'} (update-ad-account)`,
    );

  const placements = p.placements ?? {};
  const positions: string[] = Array.isArray(placements.positions) ? placements.positions : [];
  const unknown = positions.filter((x) => !PLACEMENT_POSITIONS.meta.includes(x));
  if (unknown.length)
    issue(
      `${at}.placements`,
      `${unknown.join(', ')} ${unknown.length > 1 ? 'are not Meta positions' : 'is not a Meta position'}; use ${PLACEMENT_POSITIONS.meta.join(', ')}`,
    );
  else if (placements.automatic === true && positions.length)
    issue(`${at}.placements`, 'names positions with automatic true; drop the positions, or set automatic false to use only them');

  const objective = campaign.properties.objective;
  const promoted = p.promotedObject ?? {};
  if (objective === 'OUTCOME_LEADS' && !promoted.leadFormId && !promoted.pixelId)
    issue(`${at}.promotedObject`, 'needs leadFormId (an instant form) or pixelId (leads on your website) for objective OUTCOME_LEADS');
  else if (LEAD_FORM_GOALS.includes(p.optimizationGoal) && objective === 'OUTCOME_LEADS' && !promoted.leadFormId)
    issue(`${at}.promotedObject.leadFormId`, `is required with optimizationGoal ${p.optimizationGoal}: the instant form its ads open`);
  if (promoted.leadFormId && objective !== 'OUTCOME_LEADS')
    issue(`${at}.promotedObject.leadFormId`, `is for OUTCOME_LEADS campaigns; this campaign's objective is ${objective ?? 'not set'}`);
  else if (promoted.leadFormId && !promoted.pageId && account && !account.pageId)
    issue(`${at}.promotedObject.pageId`, `is required: the page that owns the form; set it here or pageId on ad account ${account.id} (update-ad-account)`);

  const own = budgetOf(p);
  // Below the service's own floor (RULES) the budget is already refused; the account's minimum is said above it.
  if (facts && account && own?.period === 'daily' && own.amountMinorUnits >= RULES.meta.minAdSetBudget) {
    const min = minimumFor(facts.minimumBudgets, p.optimizationGoal);
    if (own.amountMinorUnits < min)
      issue(
        `${at}.budget`,
        `is ${moneyText(own.amountMinorUnits, account.currency)} a day; Meta's minimum for ${p.optimizationGoal ?? 'this ad set'} on ad account ${account.id} is ${moneyText(min, account.currency)}; raise it`,
      );
  }
}

/**
 * A live daily budget change on Meta against the account's minimum (read as at preview): an ad set's
 * for its goal, a campaign's for the sum over its ad sets. The message naming the minimum, or null.
 */
export async function metaLiveBudgetIssue(
  ctx: ServiceContext<'platforms'>,
  account: AdAccount,
  node: NodeRow,
  adSets: NodeRow[],
  amount: number,
): Promise<string | null> {
  const facts = await ctx.platforms.adapterFor('meta').metaAccountFacts?.(account, false);
  if (!facts) return null;
  const goals = node.nodeType === 'adset' ? [node.properties.optimizationGoal] : adSets.map((s) => s.properties.optimizationGoal);
  const min = goals.reduce((sum: number, g) => sum + minimumFor(facts.minimumBudgets, g), 0);
  if (amount >= min) return null;
  const what = node.nodeType === 'adset' ? (node.properties.optimizationGoal ?? 'this ad set') : `its ${adSets.length} ad sets`;
  return `is ${moneyText(amount, account.currency)} a day; Meta's minimum for ${what} on ad account ${account.accountId} is ${moneyText(min, account.currency)}`;
}

/** The Meta rules of one campaign: its budget against its ad sets' minimums, special ad categories. */
export function metaCampaignIssues(
  c: NodeRow,
  adSets: NodeRow[],
  account: { id: string; currency: string } | null,
  facts: MetaFacts | undefined,
  issue: Issue,
): void {
  const at = `campaigns[${c.id}]`;
  const own = budgetOf(c.properties);
  if (facts && account && own?.period === 'daily' && adSets.length && own.amountMinorUnits >= RULES.meta.minCampaignBudget) {
    const min = adSets.reduce((sum, s) => sum + minimumFor(facts.minimumBudgets, s.properties.optimizationGoal), 0);
    if (own.amountMinorUnits < min)
      issue(
        `${at}.budget`,
        `is ${moneyText(own.amountMinorUnits, account.currency)} a day; Meta's minimum for its ${adSets.length} ad sets on ad account ${account.id} is ${moneyText(min, account.currency)}; raise it or use fewer ad sets`,
      );
  }
  const categories = specialCategories(c.properties.specialAdCategories).filter((x) => x !== 'NONE');
  if (categories.length && adSets.some((s) => !s.properties.targeting?.countries?.length))
    issue(`${at}.specialAdCategories`, 'need the countries the ads run in (special_ad_category_country): give every ad set targeting.countries');
}
