// The rules Meta enforces that its generated specification leaves out (live-platforms.md, "What the
// specifications leave out"), each with the source it comes from. The fake Graph API applies them to
// every create after the spec check: a refusal here is answered in Graph's error format, code 100
// with the subcode and user title Meta gives where it gives one.

/** A refusal of a left-out rule: the field (blame_field_specs), Graph's message, and Meta's subcode and user title. */
export interface LeftOutRefusal {
  field: string;
  message: string;
  subcode?: number;
  title?: string;
}

/** Parsed JSON parameter as a record (empty when absent or not an object). */
function record(value: unknown): Record<string, unknown> {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/**
 * Member states of the European Union, whose targeting needs the DSA fields. Source: Meta blog "New
 * Marketing API requirements for ads targeting the EU" (2023) and the AdSet reference
 * (`dsa_beneficiary`, `dsa_payor`: "required for ads targeting the EU").
 */
export const EU_COUNTRIES = [
  'AT', 'BE', 'BG', 'HR', 'CY', 'CZ', 'DK', 'EE', 'FI', 'FR', 'DE', 'GR', 'HU', 'IE',
  'IT', 'LV', 'LT', 'LU', 'MT', 'NL', 'PL', 'PT', 'RO', 'SK', 'SI', 'ES', 'SE',
]; // prettier-ignore

/**
 * Positions per publisher platform, by Meta's names. Source: Targeting spec "Placement"
 * (https://developers.facebook.com/docs/marketing-api/audiences/reference/placement-targeting/).
 */
export const META_POSITIONS: Record<string, string[]> = {
  facebook: ['feed', 'right_hand_column', 'marketplace', 'video_feeds', 'story', 'search', 'instream_video', 'facebook_reels', 'profile_feed', 'notification'],
  instagram: ['stream', 'story', 'explore', 'explore_home', 'reels', 'profile_feed', 'ig_search', 'profile_reels'],
  audience_network: ['classic', 'rewarded_video'],
  messenger: ['messenger_home', 'sponsored_messages', 'story'],
};

/**
 * An account's minimum daily budgets (minor units) as the `minimum_budgets` edge answers them. Source:
 * AdAccount `minimum_budgets` edge (MinimumBudget: `min_daily_budget_imp`, `_high_freq`, `_low_freq`,
 * `_video_views`) and "Budget Is Too Low" (Meta Business Help Center, minimum daily budgets). The
 * amounts are the fake's: what a test asserts against (USD link clicks $5.00).
 */
export const FAKE_MINIMUM_BUDGETS: Record<string, { imp: number; high_freq: number; low_freq: number; video_views: number }> = {
  USD: { imp: 100, high_freq: 500, low_freq: 2500, video_views: 200 },
  EUR: { imp: 100, high_freq: 500, low_freq: 2500, video_views: 200 },
  GBP: { imp: 100, high_freq: 400, low_freq: 2000, video_views: 200 },
  JPY: { imp: 150, high_freq: 700, low_freq: 3500, video_views: 300 },
  KWD: { imp: 300, high_freq: 1500, low_freq: 7500, video_views: 600 },
};

/**
 * The minimum an optimization goal's daily budget is held to. Source: "Budget Is Too Low" and the
 * `minimum_budgets` edge: impressions-based goals `imp`, frequent events `high_freq`, rare events
 * `low_freq`, ThruPlay `video_views`.
 */
export function minimumKind(goal: string): 'imp' | 'high_freq' | 'low_freq' | 'video_views' {
  if (['IMPRESSIONS', 'REACH', 'AD_RECALL_LIFT'].includes(goal)) return 'imp';
  if (goal === 'THRUPLAY') return 'video_views';
  if (
    [
      'LINK_CLICKS',
      'LANDING_PAGE_VIEWS',
      'POST_ENGAGEMENT',
      'PAGE_LIKES',
      'EVENT_RESPONSES',
      'PROFILE_VISIT',
      'VISIT_INSTAGRAM_PROFILE',
      'REMINDERS_SET',
    ].includes(goal)
  )
    return 'high_freq';
  return 'low_freq';
}

const DIGITS: Record<string, number> = { JPY: 0, KWD: 3 };
const money = (minor: number, currency: string) => `${(minor / 10 ** (DIGITS[currency] ?? 2)).toFixed(DIGITS[currency] ?? 2)} ${currency}`;

/**
 * Special ad categories on a campaign create. Source: Special Ad Category reference
 * (https://developers.facebook.com/docs/marketing-api/audiences/special-ad-category/): categories
 * other than NONE need `special_ad_category_country`; CREDIT was replaced by
 * FINANCIAL_PRODUCTS_SERVICES (Marketing API changelog, January 2025).
 */
export function campaignLeftOut(params: Record<string, unknown>): LeftOutRefusal | null {
  const categories = Array.isArray(params.special_ad_categories) ? params.special_ad_categories.map(String) : [];
  if (categories.includes('CREDIT')) {
    return { field: 'special_ad_categories', message: '(#100) Special ad category CREDIT is no longer supported: use FINANCIAL_PRODUCTS_SERVICES' };
  }
  const countries = Array.isArray(params.special_ad_category_country) ? params.special_ad_category_country : [];
  if (categories.some((c) => c !== 'NONE') && !countries.length) {
    return {
      field: 'special_ad_category_country',
      message: '(#100) A campaign with special ad categories must set special_ad_category_country: the countries its ads run in',
    };
  }
  return null;
}

/** What an ad set's rules need to know of its campaign and account. */
export interface AdsetContext {
  objective: string;
  currency: string;
  /** The campaign's daily budget (minor units) when it has one, and the goals of its other ad sets. */
  campaignDailyBudget: number | null;
  siblingGoals: string[];
}

/**
 * The ad set rules the specification leaves out, `p` its parameters parsed. Sources beside each.
 */
export function adsetLeftOut(p: Record<string, unknown>, ctx: AdsetContext): LeftOutRefusal | null {
  const targeting = record(p.targeting);
  const goal = String(p.optimization_goal ?? '');

  // Advantage+ audience: since v23.0 every ad set create says targeting_automation.advantage_audience,
  // 0 or 1 (Meta Advantage+ audience reference; Marketing API changelog v23.0; blog "Changes to
  // Advantage+ audience behaviours", 2025-06-13: "Advantage Audience Flag Required").
  const flag = record(targeting.targeting_automation).advantage_audience;
  if (flag !== 0 && flag !== 1) {
    return {
      field: 'targeting.targeting_automation.advantage_audience',
      message: '(#100) targeting.targeting_automation.advantage_audience must be set to 0 or 1 explicitly',
      title: 'Advantage Audience Flag Required',
    };
  }

  // EU ads name who benefits and who pays (Meta blog "New Marketing API requirements for ads targeting
  // the EU", 2023; AdSet dsa_beneficiary, dsa_payor; error 100 subcodes 3858079 / 3858081).
  const countries = Array.isArray(record(targeting.geo_locations).countries) ? (record(targeting.geo_locations).countries as unknown[]).map(String) : [];
  if (countries.some((c) => EU_COUNTRIES.includes(c))) {
    if (typeof p.dsa_beneficiary !== 'string' || !p.dsa_beneficiary.trim())
      return {
        field: 'dsa_beneficiary',
        message: '(#100) Ads targeting the European Union must name the beneficiary: dsa_beneficiary is required',
        subcode: 3858079,
        title: 'Beneficiary Required For EU Ads',
      };
    if (typeof p.dsa_payor !== 'string' || !p.dsa_payor.trim())
      return {
        field: 'dsa_payor',
        message: '(#100) Ads targeting the European Union must name the payer: dsa_payor is required',
        subcode: 3858081,
        title: 'Payer Required For EU Ads',
      };
  }

  // Audiences are lists of {id} (Targeting spec custom_audiences, excluded_custom_audiences: RawCustomAudience).
  for (const key of ['custom_audiences', 'excluded_custom_audiences']) {
    const list = targeting[key];
    if (list === undefined) continue;
    if (!Array.isArray(list) || list.some((a) => !/^\d+$/.test(String(record(a).id ?? ''))))
      return { field: `targeting.${key}`, message: `(#100) targeting.${key} must be a list of {id} naming custom audiences of the ad account` };
  }

  // Placements: publisher_platforms plus <platform>_positions, by Meta's names; positions only for a
  // listed platform (Targeting spec "Placement",
  // https://developers.facebook.com/docs/marketing-api/audiences/reference/placement-targeting/).
  const platforms = targeting.publisher_platforms;
  if (platforms !== undefined) {
    const unknown = !Array.isArray(platforms) ? 'publisher_platforms' : platforms.map(String).find((x) => !META_POSITIONS[x]);
    if (unknown) return { field: 'targeting.publisher_platforms', message: `(#100) ${unknown} is not a publisher platform` };
  }
  for (const [platform, positions] of Object.entries(META_POSITIONS)) {
    const list = targeting[`${platform}_positions`];
    if (list === undefined) continue;
    const field = `targeting.${platform}_positions`;
    if (!Array.isArray(platforms) || !platforms.includes(platform))
      return { field, message: `(#100) ${field} needs ${platform} in targeting.publisher_platforms` };
    const bad = Array.isArray(list) ? list.map(String).find((x) => !positions.includes(x)) : String(list);
    if (bad !== undefined) return { field, message: `(#100) ${bad} is not a position of ${platform}; use one of ${positions.join(', ')}` };
  }

  // Lead ads: an instant-form ad set of an OUTCOME_LEADS campaign (LEAD_GENERATION, QUALITY_LEAD) is
  // created with destination_type ON_AD and promoted_object.page_id (lead ad reference,
  // https://developers.facebook.com/docs/marketing-api/guides/lead-ads/create/).
  if (ctx.objective === 'OUTCOME_LEADS' && ['LEAD_GENERATION', 'QUALITY_LEAD'].includes(goal)) {
    if (p.destination_type !== 'ON_AD')
      return { field: 'destination_type', message: `(#100) An ad set optimizing for ${goal} needs destination_type ON_AD (instant forms)` };
    if (!record(p.promoted_object).page_id)
      return { field: 'promoted_object.page_id', message: '(#100) A lead ad set needs promoted_object.page_id: the page that owns its forms' };
  }

  // Minimum budgets: a daily budget below the account's minimum for the goal, or a campaign budget
  // below the sum over its ad sets (AdAccount minimum_budgets; "Budget Is Too Low").
  const minimums = FAKE_MINIMUM_BUDGETS[ctx.currency] ?? FAKE_MINIMUM_BUDGETS.USD;
  const min = minimums[minimumKind(goal)];
  if (p.daily_budget !== undefined && Number(p.daily_budget) < min)
    return {
      field: 'daily_budget',
      message: `(#100) The daily budget must be at least ${money(min, ctx.currency)} for optimization goal ${goal}`,
      subcode: 1885272,
      title: 'Budget Is Too Low',
    };
  if (ctx.campaignDailyBudget !== null) {
    const sum = [...ctx.siblingGoals, goal].reduce((s, g) => s + minimums[minimumKind(g)], 0);
    if (ctx.campaignDailyBudget < sum)
      return {
        field: 'daily_budget',
        message: `(#100) The campaign's daily budget must be at least ${money(sum, ctx.currency)} for its ad sets`,
        subcode: 1885272,
        title: 'Budget Is Too Low',
      };
  }
  return null;
}

/**
 * A daily budget change (POST on the campaign or ad set) below the account's minimum: an ad set's for
 * its goal, a campaign's for the sum over its ad sets (minimum_budgets; "Budget Is Too Low").
 */
export function budgetUpdateLeftOut(dailyBudget: number, goals: string[], currency: string): LeftOutRefusal | null {
  const minimums = FAKE_MINIMUM_BUDGETS[currency] ?? FAKE_MINIMUM_BUDGETS.USD;
  const min = goals.reduce((s, g) => s + minimums[minimumKind(g)], 0);
  if (dailyBudget >= min) return null;
  return {
    field: 'daily_budget',
    message: `(#100) The daily budget must be at least ${money(min, currency)}`,
    subcode: 1885272,
    title: 'Budget Is Too Low',
  };
}

/**
 * An ad's creative in an instant-form ad set (destination_type ON_AD) carries the form in
 * call_to_action.value.lead_gen_form_id; else error subcode 3390001 "Missing Lead Form" (lead ad
 * reference, https://developers.facebook.com/docs/marketing-api/guides/lead-ads/create/).
 */
export function adLeftOut(adset: Record<string, unknown>, creative: Record<string, unknown>, prefix: string): LeftOutRefusal | null {
  if (adset.destination_type !== 'ON_AD' || creative.creative_id !== undefined) return null;
  const story = record(creative.object_story_spec);
  const cta = record(record(story.link_data).call_to_action ?? record(story.video_data).call_to_action);
  if (record(cta.value).lead_gen_form_id) return null;
  const part = story.video_data ? 'video_data' : 'link_data';
  return {
    field: `${prefix}object_story_spec.${part}.call_to_action.value.lead_gen_form_id`,
    message: '(#100) An ad in an instant-form ad set needs its lead form: call_to_action.value.lead_gen_form_id',
    subcode: 3390001,
    title: 'Missing Lead Form',
  };
}
