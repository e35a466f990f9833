// TikTok's rules beyond its generated specification (live-platforms.md, "More rules the platforms
// enforce"), as the adapter sends them and launch validation checks them, in both modes: text counted
// as TikTok counts it, age buckets, USD converted at the FX_RATES rate (for a currency missing from the
// floors of ./budgets.ts), TikTok's own conversion events, and which objectives take a pixel.

import type { FxRates } from '../../money/fx-rates.js';
import { currencyDigits } from '../live-http.js';

/** Chinese and Japanese characters, which TikTok counts twice (AdcreateCreatives ad_text: "Each word in Chinese or Japanese counts as two characters"). */
const DOUBLE_WIDTH = /[\p{Script=Han}\u3000-\u30ff\u31f0-\u31ff\uff00-\uffef]/u;
/** Korean characters, which TikTok counts twice in names (display_name: "1-40 English characters, or 1-20 Chinese/Japanese/Korean characters"). */
const HANGUL = /[\p{Script=Hangul}]/u;

/**
 * A text's length as TikTok counts it: a Chinese or Japanese character counts two in ad text; in a name
 * (display names, and campaign, ad group and ad names) a Korean one does too.
 */
export function tiktokLength(text: string, kind: 'text' | 'name' = 'text'): number {
  let n = 0;
  for (const ch of text) n += DOUBLE_WIDTH.test(ch) || (kind === 'name' && HANGUL.test(ch)) ? 2 : 1;
  return n;
}

/** The longest campaign, ad group or ad name TikTok takes, as it counts it (CampaignCreateBody campaign_name: "Character limit is 512 and cannot contain emoji"). */
export const NAME_MAX = 512;

/** Frequency caps TikTok takes (AdgroupCreateBody frequency: "1 <= frequency <= frequency_schedule * 3"; frequency_schedule: "1 <= frequency_schedule <= 7"). */
export const FREQUENCY_DAYS_MAX = 7;
export const FREQUENCY_PER_DAY_MAX = 3;

/** TikTok's age groups (AdgroupCreateBody age_groups): [name, first age, last age]; 55+ runs to 100. */
export const AGE_BUCKETS: ReadonlyArray<readonly [string, number, number]> = [
  ['AGE_13_17', 13, 17],
  ['AGE_18_24', 18, 24],
  ['AGE_25_34', 25, 34],
  ['AGE_35_44', 35, 44],
  ['AGE_45_54', 45, 54],
  ['AGE_55_100', 55, 100],
];

/**
 * An ad set's ages as TikTok's range: ageMin alone starts its range (18 when unset: TikTok's adults),
 * ageMax 65 or more (65 means "65 and over", Meta's convention the service keeps) or unset runs to 100.
 */
export function tiktokAgeRange(ageMin: unknown, ageMax: unknown): { min: number; max: number } {
  const min = typeof ageMin === 'number' ? ageMin : 18;
  const max = typeof ageMax === 'number' && ageMax < 65 ? ageMax : 100;
  return { min, max };
}

/** The age groups a range covers; every bucket that touches it (a range that is no union of buckets runs wider). */
export function ageGroupsOf(ageMin: unknown, ageMax: unknown): string[] {
  const { min, max } = tiktokAgeRange(ageMin, ageMax);
  return AGE_BUCKETS.filter(([, a, b]) => b >= min && a <= max).map(([name]) => name);
}

/**
 * Whether TikTok would run an ad set's ages as asked: a range that is a union of its buckets. Else
 * the nearest ranges that are (the buckets inside it, and the buckets it touches), as "min-max" text.
 */
export function ageRangeIssue(ageMin: unknown, ageMax: unknown): { runsAs: string; inside: string | null } | null {
  const { min, max } = tiktokAgeRange(ageMin, ageMax);
  const starts = AGE_BUCKETS.some(([, a]) => a === min);
  const ends = AGE_BUCKETS.some(([, , b]) => b === max);
  if (starts && ends) return null;
  const label = (a: number, b: number) => (b >= 100 ? `${a}+` : `${a}-${b}`);
  const touched = AGE_BUCKETS.filter(([, a, b]) => b >= min && a <= max);
  const inside = AGE_BUCKETS.filter(([, a, b]) => a >= min && b <= max);
  return {
    runsAs: label(touched[0][1], touched[touched.length - 1][2]),
    inside: inside.length ? label(inside[0][1], inside[inside.length - 1][2]) : null,
  };
}

/**
 * `usd` dollars in minor units of `currency` at the FX_RATES rate, rounded up to the currency's unit
 * (a minimum must not come out lower than TikTok's); null when FX_RATES has no rate for it.
 */
export function usdMinimumIn(usd: number, currency: string, rates: FxRates): number | null {
  const rate = rates.get(currency);
  if (!rate) return null;
  // usd / (units / 10^scale) dollars per unit, in minor units, rounded up, in whole numbers throughout.
  const numerator = BigInt(usd) * 10n ** BigInt(currencyDigits(currency)) * 10n ** BigInt(rate.scale);
  return Number((numerator + rate.units - 1n) / rate.units);
}

/**
 * TikTok's conversion events as its ad groups name them (optimization_event: the ExternalAction enum of the
 * SDK's smart_plus_adgroup_create.yml @f809c39, its website events): a Meta name such as PURCHASE is none.
 */
export const TIKTOK_EVENTS: readonly string[] = [
  'SHOPPING',
  'ON_WEB_CART',
  'ON_WEB_ORDER',
  'INITIATE_ORDER',
  'ADD_PAYMENT_INFO',
  'ON_WEB_REGISTER',
  'ON_WEB_DETAIL',
  'ON_WEB_SEARCH',
  'ON_WEB_SUBSCRIBE',
  'ON_WEB_ADD_TO_WISHLIST',
  'FORM',
  'BUTTON',
  'CONSULT',
  'PAGE_VIEW',
  'LANDING_PAGE_VIEW',
  'START_TRIAL',
  'SUBSCRIBE',
];

/** Meta's standard events and the TikTok event that counts the same thing, for a message that says what to use. */
export const TIKTOK_EVENT_FOR_META: Record<string, string> = {
  PURCHASE: 'SHOPPING',
  ADD_TO_CART: 'ON_WEB_CART',
  INITIATED_CHECKOUT: 'INITIATE_ORDER',
  ADD_PAYMENT_INFO: 'ADD_PAYMENT_INFO',
  LEAD: 'FORM',
  COMPLETE_REGISTRATION: 'ON_WEB_REGISTER',
  CONTENT_VIEW: 'ON_WEB_DETAIL',
  VIEW_CONTENT: 'ON_WEB_DETAIL',
  SEARCH: 'ON_WEB_SEARCH',
  SUBSCRIBE: 'ON_WEB_SUBSCRIBE',
  CONTACT: 'CONSULT',
  START_TRIAL: 'START_TRIAL',
};

/**
 * The objectives whose ad groups take a pixel: web conversions, product sales, and lead generation
 * through a website form (smart_plus yml optimization_event FORM; amekala ads-mcp validity matrix).
 */
export const PIXEL_OBJECTIVES: readonly string[] = ['WEB_CONVERSIONS', 'PRODUCT_SALES', 'LEAD_GENERATION'];

/** TikTok's special industries of the service's special ad categories (CampaignCreateBody special_industries). */
export const SPECIAL_INDUSTRIES: readonly string[] = ['CREDIT', 'EMPLOYMENT', 'HOUSING'];

/** Features an ad account must be allowlisted for, and the placement that needs it. */
export const ALLOWLISTED_PLACEMENT = 'PLACEMENT_GLOBAL_APP_BUNDLE';
