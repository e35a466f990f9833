// Launch validation of the Meta rules the generated specification leaves out (live-platforms.md,
// "What the specifications leave out" and "More rules the platforms enforce"), the same at preview and
// publish and in both modes: the Advantage+ audience flag, DSA names for the EU and its territories,
// placements (those removed by the configured Graph version), lead forms, special ad categories, what
// each goal needs, bids, ages, countries Meta does not serve, and minimum budgets (daily and lifetime).
// The facts per account come from the adapter (live: Meta; sandbox: its table).

import type { ServiceContext } from '../catalogue/define.js';
import type { AdAccount, RegionalIdentities } from '../platforms/port.js';
import { currencyDigits } from '../platforms/live-http.js';
import {
  APP_GOALS,
  CAPPED_BIDS,
  CONVERSION_GOALS,
  LEAD_FORM_GOALS,
  SANCTIONED_COUNTRIES,
  UNCERTAIN_COUNTRIES,
  UNNARROWED_CATEGORIES,
  narrowsAgesOrGenders,
  regionalCountries,
  adSetMinimum,
  advantageWidens,
  billingEventsFor,
  euPlaces,
  specialCategories,
  type MetaAccountFacts,
} from '../platforms/meta/rules.js';
import { removedPositionsAt } from '../platforms/meta/versions.js';
import { LEAD_TERMS_URL } from '../platforms/meta/errors.js';
import { RULE_SOURCES, type Say } from './rule-sources.js';
import { PLACEMENT_POSITIONS } from '../platforms/placements.js';
import { RULES } from './rules.js';
import type { NodeRow } from './store.js';
import { budgetOf } from './tree.js';

type Issue = (field: string, message: string) => void;
/** A warning: it does not block the publish; `source` says where the rule comes from. */
export type Warn = (field: string, message: string, source: string) => void;

/** A Meta ad account's facts with its currency, as validation reads them. */
export type MetaFacts = MetaAccountFacts & { currency: string };

/** The Meta ad account a campaign publishes to, as its rules need it. */
export interface MetaAccountView {
  id: string;
  currency: string;
  pageId: string | null;
  /** The verified identity ids per country that needs them (SG, TW), as the account stores them. */
  regionalIdentities?: RegionalIdentities | null;
}

/** The Graph version the service calls (META_GRAPH_URL) and the time, for the placements Meta removed by version. */
export interface GraphScope {
  version: string;
  now: number;
}

const DAY_MS = 24 * 60 * 60 * 1000;
/** A lead ad set's Page when it names none: its account's. */
const ACCOUNT_PAGE = '(account)';

/**
 * Per Meta ad account the tree's campaigns publish to, its facts: one adapter call per account (the
 * adapter keeps what it read). Meta's DSA defaults are asked for only where an ad set targets the EU,
 * the countries of the cities the ad sets target, and the minimums per manual bid the ad sets name.
 */
export async function metaFactsFor(
  ctx: ServiceContext<'platforms'>,
  brandId: number,
  nodes: NodeRow[],
  accountOf: (campaign: NodeRow) => string | null,
  platforms: Map<string, string>,
): Promise<Map<string, MetaFacts>> {
  const wanted = new Map<string, { dsa: boolean; cities: Set<string>; bids: Set<number>; leadPages: Set<string> }>();
  for (const c of nodes.filter((n) => n.nodeType === 'campaign')) {
    const accountId = accountOf(c);
    if (!accountId || platforms.get(accountId) !== 'meta') continue;
    const w = wanted.get(accountId) ?? { dsa: false, cities: new Set<string>(), bids: new Set<number>(), leadPages: new Set<string>() };
    for (const s of nodes.filter((n) => n.parentId === c.id)) {
      const t = s.properties.targeting ?? {};
      if (euPlaces(t, () => undefined).length) w.dsa = true;
      for (const city of Array.isArray(t.cities) ? t.cities : []) w.cities.add(String(city));
      if (typeof s.properties.bidAmount === 'number') w.bids.add(s.properties.bidAmount);
      if (s.properties.promotedObject?.leadFormId && s.properties.promotedObject?.pageId) w.leadPages.add(String(s.properties.promotedObject.pageId));
      else if (s.properties.promotedObject?.leadFormId) w.leadPages.add(ACCOUNT_PAGE);
    }
    // A city may lie in the EU: its country is read, and the DSA names with it.
    if (w.cities.size) w.dsa = true;
    wanted.set(accountId, w);
  }
  const out = new Map<string, MetaFacts>();
  for (const [accountId, w] of wanted) {
    const account = await ctx.platforms.account(ctx.db, brandId, accountId);
    const leadPages = [...w.leadPages].map((p) => (p === ACCOUNT_PAGE ? account.pageId : p)).filter((p): p is string => Boolean(p));
    const facts = ctx.platforms
      .adapterFor('meta')
      .metaAccountFacts?.(account, { dsa: w.dsa, cities: [...w.cities].sort(), bids: [...w.bids].sort(), ...(leadPages.length ? { leadPages } : {}) });
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

/** The days an ad set's schedule runs (from its start, else `now`, to its end), rounded up; null without an end. */
export function scheduledDays(schedule: { startTime?: string; endTime?: string } | undefined, now: number): number | null {
  const end = schedule?.endTime ? Date.parse(schedule.endTime) : NaN;
  if (Number.isNaN(end)) return null;
  const start = schedule?.startTime ? Date.parse(schedule.startTime) : now;
  return Math.max(1, Math.ceil((end - start) / DAY_MS));
}

/** The placement rules of one Meta ad set: Meta's own positions, none Meta removed in the version called, no automatic with positions. */
function placementIssues(at: string, placements: Record<string, any>, graph: GraphScope, issue: Issue): void {
  const positions: string[] = Array.isArray(placements.positions) ? placements.positions : [];
  const unknown = positions.filter((x) => !PLACEMENT_POSITIONS.meta.includes(x));
  if (unknown.length) {
    issue(
      `${at}.placements`,
      `${unknown.join(', ')} ${unknown.length > 1 ? 'are not Meta positions' : 'is not a Meta position'}; use ${PLACEMENT_POSITIONS.meta.join(', ')}`,
    );
    return;
  }
  const removed = removedPositionsAt(graph.version, graph.now).filter((r) => positions.includes(r.position));
  if (removed.length) {
    issue(
      `${at}.placements`,
      removed
        .map(
          (r) =>
            `${r.position} ${r.effect === 'error' ? 'is refused by' : 'is silently dropped by'} Meta since ${r.everyVersionFrom && r.effect === 'stripped' ? `${r.sinceVersion} (every version since ${r.everyVersionFrom})` : r.sinceVersion}; use ${r.instead}`,
        )
        .join('; '),
    );
  } else if (placements.automatic === true && positions.length)
    issue(`${at}.placements`, 'names positions with automatic true; drop the positions, or set automatic false to use only them');
}

/** The Meta rules of one ad set (`facts` absent: the account's facts are unknown, only the tree's own rules are checked). */
export function metaAdSetIssues(
  s: NodeRow,
  campaign: NodeRow,
  account: MetaAccountView | null,
  facts: MetaFacts | undefined,
  graph: GraphScope,
  issue: Issue,
  warn: Warn,
  say: Say,
): void {
  const at = `adSets[${s.id}]`;
  const p = s.properties;
  const t = p.targeting ?? {};
  const goal: string | undefined = p.optimizationGoal;
  const objective = campaign.properties.objective;
  const promoted = p.promotedObject ?? {};

  if (p.advantageAudience === true && advantageWidens(t))
    issue(
      `${at}.advantageAudience`,
      'is true while the targeting narrows genders, or ages beyond the limits Advantage+ audience keeps (ageMin 18 to 25, ageMax 65), which it treats as suggestions only; set it false, or widen them',
    );
  if (typeof t.ageMax === 'number' && t.ageMax > 65)
    issue(`${at}.targeting.ageMax`, `is ${t.ageMax}; Meta's ages end at 65, which means 65 and over: use 65 or less`);
  const unnarrowed = specialCategories(campaign.properties.specialAdCategories).filter((c) => UNNARROWED_CATEGORIES.includes(c));
  if (unnarrowed.length && narrowsAgesOrGenders(t))
    issue(
      `${at}.targeting`,
      `narrows ages or genders, which a ${unnarrowed.join(', ')} campaign may not (Meta "Special Ad Categories": ages 18 to 65+ and every gender); remove ageMin, ageMax and genders, or set 18, 65 and both`,
    );

  const countries: string[] = Array.isArray(t.countries) ? t.countries : [];
  const sanctioned = countries.filter((c) => SANCTIONED_COUNTRIES.includes(c));
  if (sanctioned.length)
    say(
      `${at}.targeting.countries`,
      `Meta does not serve ads in ${sanctioned.join(', ')}; remove ${sanctioned.length > 1 ? 'them' : 'it'}`,
      RULE_SOURCES.metaSanctioned,
    );
  const undeclared = regionalCountries(countries).filter((c) => !account?.regionalIdentities?.[c]);
  if (undeclared.length)
    issue(
      `${at}.targeting.countries`,
      `${undeclared.join(', ')} need${undeclared.length > 1 ? '' : 's'} the ads' beneficiary and payer as the identity ids Meta verified (regional_regulation_identities); ` +
        `set regionalIdentities ${undeclared.map((c) => `{"${c}": {"beneficiary", "payer"}}`).join(', ')} on ad account ${account?.id ?? 'of this campaign'} (update-ad-account), or remove ${undeclared.length > 1 ? 'them' : 'it'}`,
    );
  const uncertain = countries.filter((c) => UNCERTAIN_COUNTRIES.includes(c));
  if (uncertain.length)
    warn(
      `${at}.targeting.countries`,
      `${uncertain.join(', ')}: the US lifted its Syria sanctions in 2025 and no Meta page says whether Meta serves ads there now; Meta may refuse or not deliver`,
      RULE_SOURCES.metaSyria.source,
    );

  const eu = euPlaces(t, (key) => facts?.cityCountries?.get(key));
  if (eu.length && facts && !(facts.dsaBeneficiary && facts.dsaPayor))
    issue(
      `${at}.targeting.countries`,
      `${eu.join(', ')} ${eu.length > 1 ? 'are' : 'is'} in the EU or its territories, where Meta requires who benefits from and who pays for the ads; ` +
        `set dsaBeneficiary and dsaPayor on ad account ${account?.id ?? 'of this campaign'} (update-ad-account)`,
    );

  placementIssues(at, p.placements ?? {}, graph, issue);

  if (p.billingEvent !== undefined && !billingEventsFor(goal).includes(p.billingEvent))
    issue(`${at}.billingEvent`, `${p.billingEvent} does not go with optimizationGoal ${goal ?? '(none)'} on Meta; use ${billingEventsFor(goal).join(' or ')}`);
  if (p.frequencyCap !== undefined) issue(`${at}.frequencyCap`, 'is a TikTok setting (reach frequency); remove it for Meta');

  // What a goal needs is said only of a goal its objective takes (else the goal itself is the issue).
  const goalFits = Boolean(goal && RULES.meta.goals[objective ?? '']?.includes(goal));
  if (objective === 'OUTCOME_LEADS' && !promoted.leadFormId && !promoted.pixelId)
    issue(`${at}.promotedObject`, 'needs leadFormId (an instant form) or pixelId (leads on your website) for objective OUTCOME_LEADS');
  else if (LEAD_FORM_GOALS.includes(goal ?? '') && objective === 'OUTCOME_LEADS' && !promoted.leadFormId)
    issue(`${at}.promotedObject.leadFormId`, `is required with optimizationGoal ${goal}: the instant form its ads open`);
  else if (!goalFits) {
    // The goal is refused on its own field.
  } else if (APP_GOALS.includes(goal ?? '') || objective === 'OUTCOME_APP_PROMOTION') {
    if (!promoted.applicationId || !promoted.objectStoreUrl)
      issue(`${at}.promotedObject`, `needs applicationId and objectStoreUrl (the app and its store page) for ${goal ?? objective}`);
  } else if (CONVERSION_GOALS.includes(goal ?? '') && (!promoted.pixelId || !promoted.customEventType))
    say(
      `${at}.promotedObject`,
      `needs pixelId and customEventType (the pixel and the event it counts, e.g. PURCHASE) for optimizationGoal ${goal}; missing ${[!promoted.pixelId && 'pixelId', !promoted.customEventType && 'customEventType'].filter(Boolean).join(' and ')}`,
      promoted.pixelId ? RULE_SOURCES.metaConversionEvent : RULE_SOURCES.metaConversionPixel,
    );
  if (goalFits && goal === 'POST_ENGAGEMENT' && !promoted.pageId && !account?.pageId)
    issue(
      `${at}.promotedObject.pageId`,
      `is required with POST_ENGAGEMENT: the page whose posts run; set it here or pageId on ad account ${account?.id ?? ''} (update-ad-account)`,
    );
  if (promoted.leadFormId && objective !== 'OUTCOME_LEADS')
    issue(`${at}.promotedObject.leadFormId`, `is for OUTCOME_LEADS campaigns; this campaign's objective is ${objective ?? 'not set'}`);
  else if (promoted.leadFormId && !promoted.pageId && account && !account.pageId)
    issue(`${at}.promotedObject.pageId`, `is required: the page that owns the form; set it here or pageId on ad account ${account.id} (update-ad-account)`);
  else if (promoted.leadFormId && objective === 'OUTCOME_LEADS') {
    // Live: Meta refuses a lead ad whose Page has not accepted the lead ads terms (error 100, subcode 1815089).
    const page = String(promoted.pageId ?? account?.pageId ?? '');
    if (facts?.leadTermsAccepted?.get(page) === false)
      issue(
        `${at}.promotedObject.leadFormId`,
        `Facebook Page ${page} has not accepted Meta's lead ads terms (its leadgen_tos_accepted is false), so Meta would refuse its lead ads (error 100, subcode 1815089); an admin of the Page accepts them at ${LEAD_TERMS_URL}, then preview again`,
      );
  }

  const bidStrategy = campaign.properties.bidStrategy;
  if (CAPPED_BIDS.includes(bidStrategy) && p.bidAmount === undefined)
    issue(
      `${at}.bidAmount`,
      `is required with the campaign's bid strategy ${bidStrategy}: the bid (minor units) Meta caps at; set it, or use LOWEST_COST_WITHOUT_CAP`,
    );

  const own = budgetOf(p);
  // Below the service's own floor (RULES) the budget is already refused; the account's minimum is said above it.
  if (!facts || !account || !own || own.amountMinorUnits < RULES.meta.minAdSetBudget) return;
  const min = adSetMinimum(facts, goal, p.bidAmount);
  const days = own.period === 'lifetime' ? scheduledDays(p.schedule, graph.now) : 1;
  if (days === null) return;
  if (own.amountMinorUnits < min * days)
    issue(
      `${at}.budget`,
      own.period === 'daily'
        ? `is ${moneyText(own.amountMinorUnits, account.currency)} a day; Meta's minimum for ${goal ?? 'this ad set'}${typeof p.bidAmount === 'number' ? ` with a bid of ${moneyText(p.bidAmount, account.currency)}` : ''} on ad account ${account.id} is ${moneyText(min, account.currency)}; raise it`
        : `is ${moneyText(own.amountMinorUnits, account.currency)} for ${days} days; Meta's lifetime minimum for ${goal ?? 'this ad set'} on ad account ${account.id} is ${moneyText(min, account.currency)} a day, ${moneyText(min * days, account.currency)} in all; raise it or shorten the schedule`,
    );
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
  budget: { period: 'daily' | 'lifetime'; amountMinorUnits: number },
): Promise<string | null> {
  const sets = node.nodeType === 'adset' ? [node] : adSets;
  const bids = [...new Set(sets.map((s) => s.properties.bidAmount).filter((b): b is number => typeof b === 'number'))];
  const facts = await ctx.platforms.adapterFor('meta').metaAccountFacts?.(account, { dsa: false, bids });
  if (!facts) return null;
  // A lifetime budget's minimum is the daily one times the days each ad set is scheduled (Meta "About minimum budgets").
  const days = (s: NodeRow) => (budget.period === 'lifetime' ? (scheduledDays(s.properties.schedule, ctx.now()) ?? 1) : 1);
  const min = sets.reduce((sum: number, s) => sum + adSetMinimum(facts, s.properties.optimizationGoal, s.properties.bidAmount) * days(s), 0);
  const amount = budget.amountMinorUnits;
  if (amount >= min) return null;
  const what = node.nodeType === 'adset' ? (node.properties.optimizationGoal ?? 'this ad set') : `its ${adSets.length} ad sets`;
  return budget.period === 'lifetime'
    ? `is ${moneyText(amount, account.currency)} in all; Meta's lifetime minimum for ${what} over the days scheduled on ad account ${account.accountId} is ${moneyText(min, account.currency)}; raise it or shorten the schedule`
    : `is ${moneyText(amount, account.currency)} a day; Meta's minimum for ${what} on ad account ${account.accountId} is ${moneyText(min, account.currency)}`;
}

/** The Meta rules of one campaign: its budget against its ad sets' minimums (daily, or times their days), special ad categories. */
export function metaCampaignIssues(
  c: NodeRow,
  adSets: NodeRow[],
  account: { id: string; currency: string } | null,
  facts: MetaFacts | undefined,
  graph: GraphScope,
  issue: Issue,
): void {
  const at = `campaigns[${c.id}]`;
  const own = budgetOf(c.properties);
  if (facts && account && own && adSets.length && own.amountMinorUnits >= RULES.meta.minCampaignBudget) {
    const perDay = adSets.map((s) => adSetMinimum(facts, s.properties.optimizationGoal, s.properties.bidAmount));
    const days = adSets.map((s) => (own.period === 'lifetime' ? scheduledDays(s.properties.schedule, graph.now) : 1));
    const min = perDay.reduce((sum, m, i) => sum + m * (days[i] ?? 0), 0);
    if (days.every((d) => d !== null) && own.amountMinorUnits < min)
      issue(
        `${at}.budget`,
        own.period === 'daily'
          ? `is ${moneyText(own.amountMinorUnits, account.currency)} a day; Meta's minimum for its ${adSets.length} ad sets on ad account ${account.id} is ${moneyText(min, account.currency)}; raise it or use fewer ad sets`
          : `is ${moneyText(own.amountMinorUnits, account.currency)} in all; Meta's lifetime minimum for its ${adSets.length} ad sets over their scheduled days on ad account ${account.id} is ${moneyText(min, account.currency)}; raise it, use fewer ad sets or shorten them`,
      );
  }
  const categories = specialCategories(c.properties.specialAdCategories).filter((x) => x !== 'NONE');
  if (categories.length && adSets.some((s) => !s.properties.targeting?.countries?.length))
    issue(`${at}.specialAdCategories`, 'need the countries the ads run in (special_ad_category_country): give every ad set targeting.countries');
}
