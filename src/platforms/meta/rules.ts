// The Meta rules the generated specification leaves out (live-platforms.md, "What the specifications
// leave out" and "More rules the platforms enforce"), as the adapter sends them and launch validation
// checks them, in both modes: the Advantage+ audience flag, the DSA fields for the EU and its
// territories, lead forms, special ad categories, goals and what they need, bids, ages, countries Meta
// does not serve, and minimum budgets per optimization goal (the placements are in ../placements.ts,
// the ones removed by version in ./versions.ts).

/**
 * Member states of the European Union: an ad set targeting one names its beneficiary and payer
 * (Meta blog "New Marketing API requirements for ads targeting the EU", 2023).
 */
export const EU_COUNTRIES: ReadonlySet<string> = new Set([
  'AT', 'BE', 'BG', 'HR', 'CY', 'CZ', 'DK', 'EE', 'FI', 'FR', 'DE', 'GR', 'HU', 'IE',
  'IT', 'LV', 'LT', 'LU', 'MT', 'NL', 'PL', 'PT', 'RO', 'SK', 'SI', 'ES', 'SE',
]); // prettier-ignore

/**
 * The parts of the EU with a country code of their own, for which Meta asks the DSA fields like for
 * member states: the outermost regions (RE, GP, MQ, GF, YT, MF) and the Åland Islands (AX). Meta blog
 * 2023-05-16: ads "that target the EU, associated territories, or select global/worldwide". Overseas
 * countries and territories that are not EU territory (PM, BL, NC, PF, WF, TF, AW, CW, SX, BQ, GL, FO)
 * are not asked for: no Meta page lists them.
 */
export const EU_TERRITORIES: ReadonlySet<string> = new Set(['RE', 'GP', 'MQ', 'GF', 'YT', 'MF', 'AX']);

/** The EU member states and EU territories among `countries`. */
export const euCountries = (countries: unknown): string[] =>
  Array.isArray(countries) ? countries.filter((c) => EU_COUNTRIES.has(c) || EU_TERRITORIES.has(c)) : [];

/**
 * Where an ad set's targeting reaches the EU for the DSA: its EU countries and territories, and its
 * cities inside them (`cityCountry` gives a city key's country, when known).
 */
export function euPlaces(targeting: Record<string, unknown> | undefined, cityCountry: (key: string) => string | undefined): string[] {
  const t = targeting ?? {};
  const cities = Array.isArray(t.cities) ? t.cities.map(String).filter((k) => euCountries([cityCountry(k)]).length > 0) : [];
  return [...euCountries(t.countries), ...cities];
}

/** Countries Meta does not serve (Meta's sanctioned-countries policy; lfx-self-serve PR 1644). */
export const SANCTIONED_COUNTRIES: readonly string[] = ['IR', 'CU', 'KP', 'RU'];

/**
 * Countries a preview warns about rather than refuses: Syria (the US lifted its Syria sanctions in 2025;
 * no Meta page says whether Meta serves it now).
 */
export const UNCERTAIN_COUNTRIES: readonly string[] = ['SY'];

/**
 * Countries whose ad sets carry the verified beneficiary and payer identity ids Meta issued (codegen
 * AdSet `regional_regulated_categories`, `regional_regulation_identities`; RegionalRegulationIdentities
 * `singapore_universal_beneficiary`, `singapore_universal_payer`, `taiwan_universal_beneficiary`,
 * `taiwan_universal_payer`), with the category each declares. South Korea has no such field: never refused.
 */
export const REGIONAL_COUNTRIES: Readonly<Record<string, { category: string; beneficiary: string; payer: string }>> = {
  SG: { category: 'SINGAPORE_UNIVERSAL', beneficiary: 'singapore_universal_beneficiary', payer: 'singapore_universal_payer' },
  TW: { category: 'TAIWAN_UNIVERSAL', beneficiary: 'taiwan_universal_beneficiary', payer: 'taiwan_universal_payer' },
};

/** The countries of `countries` that need regional identities (REGIONAL_COUNTRIES). */
export const regionalCountries = (countries: unknown): string[] => (Array.isArray(countries) ? countries.filter((c) => REGIONAL_COUNTRIES[c]) : []);

/**
 * The billing events each goal may be billed by ("Optimization Goal and Billing Events"): IMPRESSIONS
 * for every goal, a goal's own event for the goals that have one. billing_event is always sent, IMPRESSIONS
 * when the ad set names none (php-business-sdk issue 311: leaving it out is "missing parameter").
 * APP_INSTALLS is never both (Marketing API v9.0 changelog: "You can still specify APP_INSTALLS under
 * billing_event or optimization_goal, but not both at the same time"): app installs bill by impressions.
 */
export function billingEventsFor(goal: string | undefined): string[] {
  return ['LINK_CLICKS', 'THRUPLAY', 'POST_ENGAGEMENT'].includes(goal ?? '') ? ['IMPRESSIONS', goal!] : ['IMPRESSIONS'];
}

/**
 * Special ad categories whose ad sets keep ages 18 to 65+ and every gender (Meta "Special Ad Categories",
 * targeting restrictions): housing, employment, credit (sent as FINANCIAL_PRODUCTS_SERVICES).
 */
export const UNNARROWED_CATEGORIES: readonly string[] = ['HOUSING', 'EMPLOYMENT', 'CREDIT', 'FINANCIAL_PRODUCTS_SERVICES'];

/** Whether targeting narrows ages (other than 18 to 65+) or genders (one of two). */
export function narrowsAgesOrGenders(t: Record<string, unknown> | undefined): boolean {
  const target = t ?? {};
  const ages = (target.ageMin !== undefined && target.ageMin !== 18) || (target.ageMax !== undefined && target.ageMax !== 65);
  const genders = Array.isArray(target.genders) && target.genders.length > 0 && target.genders.length < 2;
  return ages || genders;
}

/** Goals promoted by an app: they name it (promoted_object application_id and object_store_url). */
export const APP_GOALS: readonly string[] = ['APP_INSTALLS'];
/** Goals that count a pixel's event: they name both (promoted_object pixel_id and custom_event_type). */
export const CONVERSION_GOALS: readonly string[] = ['OFFSITE_CONVERSIONS', 'VALUE'];
/** Bid strategies that need the ad set's bid (bid_amount). */
export const CAPPED_BIDS: readonly string[] = ['LOWEST_COST_WITH_BID_CAP', 'COST_CAP'];

/**
 * Whether Advantage+ audience would widen what the targeting narrows: genders, or ages other than the
 * limits Meta keeps with it on (age_min 18 to 25, age_max 65; justwatch facebook-marketing-api-golang-sdk PR 83).
 */
export function advantageWidens(t: Record<string, unknown> | undefined): boolean {
  const target = t ?? {};
  const min = target.ageMin;
  const max = target.ageMax;
  const ages = (typeof min === 'number' && (min < 18 || min > 25)) || (typeof max === 'number' && max !== 65);
  const genders = Array.isArray(target.genders) && target.genders.length > 0 && target.genders.length < 2;
  return ages || genders;
}

/** What an ad set's targeting narrows that Advantage+ audience would widen: ages, genders, interests, audiences. */
export function narrowing(t: Record<string, unknown> | undefined): { agesOrGenders: boolean; any: boolean } {
  const target = t ?? {};
  const agesOrGenders = narrowsAgesOrGenders(target);
  const lists = ['interests', 'customAudiences'].some((k) => Array.isArray(target[k]) && (target[k] as unknown[]).length > 0);
  return { agesOrGenders, any: agesOrGenders || lists };
}

/**
 * targeting_automation.advantage_audience: the ad set's advantageAudience when set, else 0 when its
 * targeting narrows, else 1 (Meta's own default, said explicitly as v23.0 requires).
 */
export function advantageAudienceFlag(settings: Record<string, unknown>): 0 | 1 {
  if (typeof settings.advantageAudience === 'boolean') return settings.advantageAudience ? 1 : 0;
  return narrowing(settings.targeting as Record<string, unknown> | undefined).any ? 0 : 1;
}

/** Special ad categories as Meta takes them since January 2025: CREDIT is FINANCIAL_PRODUCTS_SERVICES. */
export function specialCategories(value: unknown): string[] {
  return Array.isArray(value) ? [...new Set(value.map((c) => (c === 'CREDIT' ? 'FINANCIAL_PRODUCTS_SERVICES' : String(c))))] : [];
}

/** Optimization goals of instant-form (lead ad) ad sets. */
export const LEAD_FORM_GOALS = ['LEAD_GENERATION', 'QUALITY_LEAD'];

/** An account's minimum daily budgets, minor units of its currency (AdAccount `minimum_budgets`). */
export interface MinimumBudgets {
  imp: number;
  highFreq: number;
  lowFreq: number;
  videoViews: number;
}

/**
 * The minimum an optimization goal's daily budget is held to: impressions and reach `imp`; link
 * clicks, landing page views, engagement `highFreq`; ThruPlay `videoViews`; conversions, leads, app
 * installs, value `lowFreq`.
 */
export function minimumFor(minimums: MinimumBudgets, goal: string | undefined): number {
  if (!goal || ['IMPRESSIONS', 'REACH', 'AD_RECALL_LIFT'].includes(goal)) return minimums.imp;
  if (goal === 'THRUPLAY') return minimums.videoViews;
  if (['LINK_CLICKS', 'LANDING_PAGE_VIEWS', 'POST_ENGAGEMENT', 'PAGE_LIKES', 'EVENT_RESPONSES'].includes(goal)) return minimums.highFreq;
  return minimums.lowFreq;
}

/** The sandbox's minimums per currency (minor units), like Meta's published ones; other currencies scale USD's. */
const SANDBOX_MINIMUMS: Record<string, MinimumBudgets> = {
  USD: { imp: 100, highFreq: 500, lowFreq: 2500, videoViews: 200 },
  EUR: { imp: 100, highFreq: 500, lowFreq: 2500, videoViews: 200 },
  GBP: { imp: 100, highFreq: 400, lowFreq: 2000, videoViews: 200 },
  JPY: { imp: 150, highFreq: 700, lowFreq: 3500, videoViews: 300 },
  KWD: { imp: 300, highFreq: 1500, lowFreq: 7500, videoViews: 600 },
};

/**
 * The sandbox's minimums for `currency`: its table, else none (only the service's own floor holds),
 * since an amount in an unknown currency cannot be told from one in dollars.
 */
export function sandboxMinimums(currency: string, bidAmount?: number): MinimumBudgets {
  const base = SANDBOX_MINIMUMS[currency] ?? { imp: 0, highFreq: 0, lowFreq: 0, videoViews: 0 };
  if (!bidAmount) return base;
  // With a manual bid, at least SANDBOX_BID_MULTIPLE bids a day (minimum_budgets read with bid_amount).
  const floor = bidAmount * SANDBOX_BID_MULTIPLE;
  return {
    imp: Math.max(base.imp, floor),
    highFreq: Math.max(base.highFreq, floor),
    lowFreq: Math.max(base.lowFreq, floor),
    videoViews: Math.max(base.videoViews, floor),
  };
}

/** The sandbox's daily minimum with a manual bid, in bids (Meta's minimums are read "with the bid_amount if use manual bid"). */
const SANDBOX_BID_MULTIPLE = 5;

/** An ad set's daily minimum in `facts`: with its bid when it has one and the minimums per bid were read. */
export function adSetMinimum(facts: Pick<MetaAccountFacts, 'minimumBudgets' | 'bidMinimums'>, goal: string | undefined, bidAmount: unknown): number {
  const byBid = typeof bidAmount === 'number' ? facts.bidMinimums?.get(bidAmount) : undefined;
  return minimumFor(byBid ?? facts.minimumBudgets, goal);
}

/** The Meta facts a launch is validated against per ad account: its minimum budgets and the DSA names it would send. */
export interface MetaAccountFacts {
  minimumBudgets: MinimumBudgets;
  /** The minimums with a manual bid, by bid (minor units): minimum_budgets read with bid_amount. */
  bidMinimums?: Map<number, MinimumBudgets>;
  /** The beneficiary and payer an EU ad set would carry (the account's, else Meta's defaults); null when neither says. */
  dsaBeneficiary: string | null;
  dsaPayor: string | null;
  /** The country of each targeted city key Meta's location search knows. */
  cityCountries?: Map<string, string>;
  /** Per lead ad Page asked about, whether it accepted Meta's lead ads terms (Page leadgen_tos_accepted); a Page not read is absent. */
  leadTermsAccepted?: Map<string, boolean>;
}

/** What metaAccountFacts is asked to read besides the minimums: DSA defaults, cities' countries, minimums per bid. */
export interface MetaFactsWanted {
  dsa: boolean;
  /** The Pages of the launch's lead ads: whether each accepted the lead ads terms is read (live). */
  leadPages?: string[];
  cities?: string[];
  bids?: number[];
}
