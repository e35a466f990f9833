// The Meta rules the generated specification leaves out (live-platforms.md, "What the specifications
// leave out"), as the adapter sends them and launch validation checks them, in both modes: the
// Advantage+ audience flag, the EU's DSA fields, lead forms, special ad categories and minimum
// budgets per optimization goal (the placements are in ../placements.ts).

/**
 * Member states of the European Union: an ad set targeting one names its beneficiary and payer
 * (Meta blog "New Marketing API requirements for ads targeting the EU", 2023).
 */
export const EU_COUNTRIES: ReadonlySet<string> = new Set([
  'AT', 'BE', 'BG', 'HR', 'CY', 'CZ', 'DK', 'EE', 'FI', 'FR', 'DE', 'GR', 'HU', 'IE',
  'IT', 'LV', 'LT', 'LU', 'MT', 'NL', 'PL', 'PT', 'RO', 'SK', 'SI', 'ES', 'SE',
]); // prettier-ignore

/** The EU member states among `countries`. */
export const euCountries = (countries: unknown): string[] => (Array.isArray(countries) ? countries.filter((c) => EU_COUNTRIES.has(c)) : []);

/** What an ad set's targeting narrows that Advantage+ audience would widen: ages, genders, interests, audiences. */
export function narrowing(t: Record<string, unknown> | undefined): { agesOrGenders: boolean; any: boolean } {
  const target = t ?? {};
  const ages = (target.ageMin !== undefined && target.ageMin !== 18) || (target.ageMax !== undefined && target.ageMax !== 65);
  const genders = Array.isArray(target.genders) && target.genders.length > 0 && target.genders.length < 2;
  const lists = ['interests', 'customAudiences'].some((k) => Array.isArray(target[k]) && (target[k] as unknown[]).length > 0);
  return { agesOrGenders: ages || genders, any: ages || genders || lists };
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
export function sandboxMinimums(currency: string): MinimumBudgets {
  return SANDBOX_MINIMUMS[currency] ?? { imp: 0, highFreq: 0, lowFreq: 0, videoViews: 0 };
}

/** The Meta facts a launch is validated against per ad account: its minimum budgets and the DSA names it would send. */
export interface MetaAccountFacts {
  minimumBudgets: MinimumBudgets;
  /** The beneficiary and payer an EU ad set would carry (the account's, else Meta's defaults); null when neither says. */
  dsaBeneficiary: string | null;
  dsaPayor: string | null;
}
