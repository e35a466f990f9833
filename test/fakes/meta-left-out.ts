// The rules Meta enforces that its generated specification leaves out (live-platforms.md, "What the
// specifications leave out" and "More rules the platforms enforce"), each with the source it comes
// from. The fake Graph API applies them to every create (and validate_only create) after the spec
// check: a refusal here is answered in Graph's error format, code 100 with the subcode and user title
// Meta gives where it gives one. What Meta changes without a word (a placement stripped, an ad enrolled
// in multi-advertiser ads) the fake changes too and records in `silentChanges`, which tests assert empty.
// A rule whose only source is a third party's public report says so beside it.

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
 * The parts of the EU with a country code of their own: the outermost regions (Réunion, Guadeloupe,
 * Martinique, French Guiana, Mayotte, Saint-Martin) and the Åland Islands, which Meta counts as the EU for
 * the DSA fields. Source: Meta blog 2023-05-16 (ads "that target the EU, associated territories, or select
 * global/worldwide"); which codes are EU territory: the contract's list (live-platforms.md, "DSA beyond the
 * member states"). Overseas countries and territories that are not EU territory (PM, BL, NC, PF, WF, TF,
 * AW, CW, SX, BQ, GL, FO) are not refused: no Meta page lists them.
 */
export const EU_TERRITORIES = ['RE', 'GP', 'MQ', 'GF', 'YT', 'MF', 'AX'];

/**
 * Countries Meta does not serve. Source: Meta's sanctioned-countries policy; third-party report:
 * linuxfoundation lfx-self-serve PR 1644 (enforced here like Meta's own). Syria is not among them: the
 * US lifted its Syria sanctions in 2025 and no Meta page says what Meta does now (the service warns).
 */
export const SANCTIONED_COUNTRIES = ['IR', 'CU', 'KP', 'RU'];

/**
 * Countries whose ad sets declare the ads' beneficiary and payer by Meta-verified identity ids, and the
 * category and identity fields each takes. Source: codegen AdSet `regional_regulated_categories` and
 * `regional_regulation_identities` (RegionalRegulationIdentities: singapore_universal_beneficiary,
 * singapore_universal_payer, taiwan_universal_beneficiary, taiwan_universal_payer); the category names as
 * Meta's refusal names them (third-party reports quoting "use the following value ...: TAIWAN_UNIVERSAL").
 * South Korea has no such field and needs nothing.
 */
export const REGIONAL_COUNTRIES: Record<string, { category: string; beneficiary: string; payer: string }> = {
  SG: { category: 'SINGAPORE_UNIVERSAL', beneficiary: 'singapore_universal_beneficiary', payer: 'singapore_universal_payer' },
  TW: { category: 'TAIWAN_UNIVERSAL', beneficiary: 'taiwan_universal_beneficiary', payer: 'taiwan_universal_payer' },
};

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
 * Positions Meta removed, by the version that removed them. Sources: Marketing API v24.0 (Facebook video
 * feeds "no longer available in Marketing API v24.0, and attempts to use it will result in errors",
 * facebook-nodejs-business-sdk 24.0.0 release notes); "Introducing Graph API v26.0 and Marketing API
 * v26.0" (2026-07-29): Instagram Explore removed in v26.0 ("returns errors if specified", Java SDK
 * v26.0.0 release notes), Messenger Stories "silently removed from messenger_positions" from v26.0 and
 * in every version from 2026-10-27. The subcode is the fake's.
 */
export const REMOVED_POSITIONS: Array<{ platform: string; position: string; sinceMajor: number; effect: 'error' | 'stripped'; everyVersionFrom?: string }> = [
  { platform: 'facebook', position: 'video_feeds', sinceMajor: 24, effect: 'error' },
  { platform: 'instagram', position: 'explore', sinceMajor: 26, effect: 'error' },
  { platform: 'messenger', position: 'story', sinceMajor: 26, effect: 'stripped', everyVersionFrom: '2026-10-27' },
];

/**
 * An ad set's targeting as Meta keeps it: positions Meta strips without a word (REMOVED_POSITIONS,
 * effect "stripped") taken out. Answers the targeting kept and what was stripped.
 */
export function stripRemovedPositions(
  targeting: Record<string, unknown>,
  version: number,
  now: number,
): { targeting: Record<string, unknown>; stripped: string[] } {
  const out = { ...targeting };
  const stripped: string[] = [];
  for (const r of REMOVED_POSITIONS.filter((x) => x.effect === 'stripped')) {
    if (version < r.sinceMajor && !(r.everyVersionFrom && now >= Date.parse(`${r.everyVersionFrom}T00:00:00Z`))) continue;
    const key = `${r.platform}_positions`;
    const list = out[key];
    if (Array.isArray(list) && list.includes(r.position)) {
      out[key] = list.filter((x) => x !== r.position);
      stripped.push(`${r.platform}:${r.position}`);
    }
  }
  return { targeting: out, stripped };
}

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
 * With a manual bid, the fake's minimums are at least this many bids a day. Source of the rule's shape:
 * AdAccount `minimum_budgets` takes `bid_amount` ("the bid_amount if use manual bid"); the multiple is the fake's.
 */
export const FAKE_BID_MULTIPLE = 5;

/** The fake's minimums for `currency`, raised for a manual bid (`bidAmount`, minor units) when there is one. */
export function fakeMinimums(currency: string, bidAmount?: unknown): { imp: number; high_freq: number; low_freq: number; video_views: number } {
  const base = FAKE_MINIMUM_BUDGETS[currency] ?? FAKE_MINIMUM_BUDGETS.USD;
  const bid = Number(bidAmount);
  if (bidAmount === undefined || !Number.isFinite(bid) || bid <= 0) return base;
  const floor = bid * FAKE_BID_MULTIPLE;
  return {
    imp: Math.max(base.imp, floor),
    high_freq: Math.max(base.high_freq, floor),
    low_freq: Math.max(base.low_freq, floor),
    video_views: Math.max(base.video_views, floor),
  };
}

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

/** What an ad set's rules need to know of its campaign, its account and the call. */
export interface AdsetContext {
  objective: string;
  currency: string;
  /** The campaign's daily budget (minor units) when it has one, and the goals of its other ad sets. */
  campaignDailyBudget: number | null;
  siblingGoals: string[];
  /** The campaign's lifetime budget (minor units) when it has one, and its bid strategy. */
  campaignLifetimeBudget?: number | null;
  campaignBidStrategy?: string;
  /** The major Graph version answering the call (an ended version is answered by the next one). */
  version?: number;
  /** The campaign's special ad categories (special_ad_categories as sent). */
  specialCategories?: string[];
  /** The country of a targeted city key (the fake's location table). */
  cityCountry?: (key: string) => string | undefined;
  /** When the call is made (ms), for schedules. */
  now?: number;
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
  // the EU", 2023; AdSet dsa_beneficiary, dsa_payor; error 100 subcodes 3858079 / 3858081), also for the
  // outermost regions and associated territories and for cities inside any of them (Meta blog 2023-05-16).
  const geo = record(targeting.geo_locations);
  const countries = Array.isArray(geo.countries) ? (geo.countries as unknown[]).map(String) : [];
  const cityCountries = (Array.isArray(geo.cities) ? (geo.cities as unknown[]) : []).map((c) => ctx.cityCountry?.(String(record(c).key)) ?? '');
  if ([...countries, ...cityCountries].some((c) => EU_COUNTRIES.includes(c) || EU_TERRITORIES.includes(c))) {
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
    // Positions Meta removed by version (REMOVED_POSITIONS): refused from their version on.
    const removed = (list as unknown[])
      .map(String)
      .find((x) => REMOVED_POSITIONS.some((r) => r.effect === 'error' && r.platform === platform && r.position === x && (ctx.version ?? 0) >= r.sinceMajor));
    if (removed !== undefined)
      return { field, message: `(#100) The ${platform} position ${removed} is no longer available in this version of the Marketing API` };
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

  const more = adsetMoreRules(p, ctx);
  if (more) return more;

  // Minimum budgets: a daily budget below the account's minimum for the goal, or a campaign budget
  // below the sum over its ad sets (AdAccount minimum_budgets; "Budget Is Too Low").
  const minimums = fakeMinimums(ctx.currency, p.bid_amount);
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
export function budgetUpdateLeftOut(dailyBudget: number, goals: string[], currency: string, bidAmount?: unknown): LeftOutRefusal | null {
  const minimums = fakeMinimums(currency, bidAmount);
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

const DAY_MS = 24 * 60 * 60 * 1000;

/** The days an ad set's schedule runs (end_time less start_time, else less `now`), rounded up; null without an end. */
export function scheduledDays(p: Record<string, unknown>, now: number): number | null {
  const time = (v: unknown) => (v === undefined || v === null ? NaN : /^\d+$/.test(String(v)) ? Number(v) * 1000 : Date.parse(String(v)));
  const end = time(p.end_time);
  if (Number.isNaN(end)) return null;
  const start = time(p.start_time);
  return Math.max(1, Math.ceil((end - (Number.isNaN(start) ? now : start)) / DAY_MS));
}

/** Goals whose ad sets are promoted by an app (AdSet promoted_object application_id, object_store_url). */
const APP_GOALS = ['APP_INSTALLS', 'APP_INSTALLS_AND_OFFSITE_CONVERSIONS'];
/** Goals that count a pixel's conversion event (promoted_object pixel_id, custom_event_type). */
const CONVERSION_GOALS = ['OFFSITE_CONVERSIONS', 'VALUE'];

/**
 * The ad set rules of live-platforms.md, "More rules the platforms enforce", each with its source.
 */
export function adsetMoreRules(p: Record<string, unknown>, ctx: AdsetContext): LeftOutRefusal | null {
  const targeting = record(p.targeting);
  const geo = record(targeting.geo_locations);
  const countries = Array.isArray(geo.countries) ? (geo.countries as unknown[]).map(String) : [];
  const goal = String(p.optimization_goal ?? '');
  const promoted = record(p.promoted_object);

  // Countries Meta will not serve (SANCTIONED_COUNTRIES; a third-party report, enforced like Meta's own).
  const sanctioned = countries.find((c) => SANCTIONED_COUNTRIES.includes(c));
  if (sanctioned)
    return { field: 'targeting.geo_locations.countries', message: `(#100) Ads cannot be delivered to ${sanctioned}: Meta does not serve ads there` };
  // Singapore and Taiwan: the category and the verified beneficiary and payer ids (REGIONAL_COUNTRIES).
  const categories = Array.isArray(p.regional_regulated_categories) ? (p.regional_regulated_categories as unknown[]).map(String) : [];
  const identities = record(p.regional_regulation_identities);
  for (const country of countries.filter((c) => REGIONAL_COUNTRIES[c])) {
    const r = REGIONAL_COUNTRIES[country];
    if (!categories.includes(r.category))
      return {
        field: 'regional_regulated_categories',
        message: `(#100) Ads targeting ${country} must declare the ads' beneficiary and payer: use the following value for regional_regulated_categories: ${r.category}`,
      };
    for (const key of [r.beneficiary, r.payer])
      if (!/^\d+$/.test(String(identities[key] ?? '')))
        return {
          field: `regional_regulation_identities.${key}`,
          message: `(#100) regional_regulation_identities.${key} must be a number: a verified identity id`,
        };
  }

  // Special ad categories narrow nothing (Meta "Special Ad Categories", targeting restrictions): an ad set of a
  // housing, employment or credit campaign keeps ages 18 to 65+ and every gender.
  const restricted = (ctx.specialCategories ?? []).filter((c) => ['HOUSING', 'EMPLOYMENT', 'FINANCIAL_PRODUCTS_SERVICES', 'CREDIT'].includes(c));
  if (restricted.length) {
    const narrowAges =
      (targeting.age_min !== undefined && Number(targeting.age_min) !== 18) || (targeting.age_max !== undefined && Number(targeting.age_max) !== 65);
    const genders = Array.isArray(targeting.genders) ? targeting.genders : [];
    if (narrowAges || genders.length === 1)
      return {
        field: narrowAges ? 'targeting.age_min' : 'targeting.genders',
        message: `(#100) Ads in the special ad category ${restricted.join(', ')} must target ages 18 to 65+ and all genders`,
        title: 'Targeting Not Allowed For Special Ad Category',
      };
  }

  // Ages (Basic targeting, https://developers.facebook.com/docs/marketing-api/audiences/reference/basic-targeting/:
  // age_max "must be 65 or lower", age_min at least 13).
  if (targeting.age_max !== undefined && Number(targeting.age_max) > 65)
    return { field: 'targeting.age_max', message: '(#100) targeting.age_max must be 65 or lower' };
  if (targeting.age_min !== undefined && Number(targeting.age_min) < 13)
    return { field: 'targeting.age_min', message: '(#100) targeting.age_min must be 13 or higher' };

  // What each goal needs (AdSet promoted_object; subcode 1815430 "Please select a promoted object"; a
  // conversion goal's event missing is subcode 1885154, third-party report pipeboard meta-ads-mcp issue 140).
  if (APP_GOALS.includes(goal) || ctx.objective === 'OUTCOME_APP_PROMOTION') {
    if (!promoted.application_id || !promoted.object_store_url)
      return {
        field: 'promoted_object',
        message: `(#100) An ad set optimizing for ${goal} must name its app: promoted_object.application_id and promoted_object.object_store_url`,
        subcode: 1815430,
        title: 'Please select a promoted object',
      };
  } else if (CONVERSION_GOALS.includes(goal)) {
    if (!promoted.pixel_id)
      return {
        field: 'promoted_object.pixel_id',
        message: `(#100) An ad set optimizing for ${goal} must name its pixel: promoted_object.pixel_id`,
        subcode: 1815430,
        title: 'Please select a promoted object',
      };
    if (!promoted.custom_event_type)
      return {
        field: 'promoted_object.custom_event_type',
        message: `(#100) An ad set optimizing for ${goal} must name the conversion event: promoted_object.custom_event_type`,
        subcode: 1885154,
      };
  }
  // Post engagement runs on a page's post (destination_type ON_POST, promoted_object.page_id); IMPRESSIONS is
  // not accepted with ON_POST (Marketing API v20.0 changelog, "Engagement ad sets").
  if (goal === 'POST_ENGAGEMENT') {
    if (p.destination_type !== 'ON_POST')
      return { field: 'destination_type', message: '(#100) An ad set optimizing for POST_ENGAGEMENT needs destination_type ON_POST' };
    if (!promoted.page_id)
      return { field: 'promoted_object.page_id', message: '(#100) An ad set optimizing for POST_ENGAGEMENT needs promoted_object.page_id', subcode: 1815430 };
  }
  if (goal === 'IMPRESSIONS' && p.destination_type === 'ON_POST')
    return { field: 'optimization_goal', message: '(#100) optimization_goal IMPRESSIONS is not available with destination_type ON_POST' };

  // Bids (AdSet bid_strategy, bid_amount; third-party report mureo issue 452): a bid cap or cost cap,
  // the ad set's own or its campaign's, needs the ad set's bid_amount.
  const strategy = String(p.bid_strategy ?? ctx.campaignBidStrategy ?? '');
  if ((strategy === 'LOWEST_COST_WITH_BID_CAP' || strategy === 'COST_CAP') && p.bid_amount === undefined)
    return { field: 'bid_amount', message: `(#100) bid_amount is required with bid strategy ${strategy}` };

  // Lifetime budgets (AdSet end_time: "Required when lifetime_budget is specified"; "About minimum budgets":
  // a lifetime budget's minimum is the daily minimum times the scheduled days).
  const now = ctx.now ?? Date.now();
  const lifetime = p.lifetime_budget !== undefined ? Number(p.lifetime_budget) : null;
  if ((lifetime !== null || ctx.campaignLifetimeBudget) && scheduledDays(p, now) === null)
    return { field: 'end_time', message: '(#100) end_time is required when the budget is a lifetime budget' };
  const minimums = fakeMinimums(ctx.currency, p.bid_amount);
  const days = scheduledDays(p, now) ?? 1;
  if (lifetime !== null && lifetime < minimums[minimumKind(goal)] * days)
    return {
      field: 'lifetime_budget',
      message: `(#100) The lifetime budget must be at least ${money(minimums[minimumKind(goal)] * days, ctx.currency)} for ${days} days of optimization goal ${goal}`,
      subcode: 1885272,
      title: 'Budget Is Too Low',
    };
  if (ctx.campaignLifetimeBudget && ctx.campaignLifetimeBudget < [...ctx.siblingGoals, goal].reduce((sum, g) => sum + minimums[minimumKind(g)], 0) * days)
    return {
      field: 'lifetime_budget',
      message: `(#100) The campaign's lifetime budget must be at least the daily minimums of its ad sets times ${days} days`,
      subcode: 1885272,
      title: 'Budget Is Too Low',
    };
  return null;
}

/**
 * A creative as Meta keeps it when it leaves out its enrolments: without contextual_multi_ads.enroll_status
 * an ad created since 2024-08-19 is opted in to multi-advertiser ads (Meta "Multi-advertiser ads"), and
 * each Advantage+ creative feature of its format it does not say (CREATIVE_FEATURES) Meta applies. Answers
 * what Meta would change without a word (empty when the creative says both).
 */
export function creativeDefaults(creative: Record<string, unknown>, version: number): string[] {
  if (creative.creative_id !== undefined) return [];
  const changed: string[] = [];
  if (!record(creative.contextual_multi_ads).enroll_status) changed.push('contextual_multi_ads.enroll_status set to OPT_IN (multi-advertiser ads)');
  for (const name of unsaidFeatures(creative, version))
    changed.push(`degrees_of_freedom_spec.creative_features_spec.${name} left to Meta's default (opted in)`);
  return changed;
}

/**
 * A daily-to-lifetime (or lifetime-to-daily) switch on a budget update: Meta keeps a budget's kind as
 * created ("About minimum budgets"; AdSet and Campaign daily_budget / lifetime_budget).
 */
export function budgetKindSwitch(current: { daily: boolean; lifetime: boolean }, params: Record<string, unknown>): LeftOutRefusal | null {
  if (current.daily && params.lifetime_budget !== undefined)
    return { field: 'lifetime_budget', message: '(#100) A daily budget cannot be changed into a lifetime budget' };
  if (current.lifetime && params.daily_budget !== undefined)
    return { field: 'daily_budget', message: '(#100) A lifetime budget cannot be changed into a daily budget' };
  return null;
}

/**
 * Creative fields Meta no longer takes, by the version that removed them, with Meta's refusal. Source:
 * Meta "Standard Enhancements for Advantage+ Creative": "Starting with Marketing API v22.0, opting in or
 * out of standard enhancements will no longer be available" (blog "Marketing API v22.0 Impacts to
 * Advantage+ Creative Enhancements", 2025-01-17: the bundle is deprecated "starting with MAPI V22.0 ...
 * and all subsequent versions"). The subcode 3858504 is what integrations record for the refusal
 * (third-party reports; no Meta page lists it).
 */
export const REMOVED_CREATIVE_FIELDS: Array<{ path: string[]; sinceMajor: number; subcode: number; message: string }> = [
  {
    path: ['degrees_of_freedom_spec', 'creative_features_spec', 'standard_enhancements'],
    sinceMajor: 22,
    subcode: 3858504,
    message:
      '(#100) The Standard Enhancements bundle is deprecated: starting with Marketing API v22.0, opt in or out of the individual Advantage+ creative features in creative_features_spec instead',
  },
];

/**
 * The Advantage+ creative features that made up the standard enhancements bundle, which a creative opts
 * out of one by one to run as written. Source: Meta "Standard Enhancements for Advantage+ Creative": "The
 * sub-features within the standard enhancement bundle for single image ads include image_template,
 * image_touchups, text_optimizations, and inline_comment. For single video ads, the sub-features are
 * video_auto_crop, text_optimizations, and inline_comment." From v27.0 product showcase
 * (`product_extensions`) is on unless opted out: "Introducing Graph API v27.0 and Marketing API v27.0"
 * (2026-11-04), "Marketing API - Product showcase: Starting in v27.0, ..."; Product Extensions for
 * Advantage+ Creative ("enroll_status ... OPT_IN or OPT_OUT").
 */
export const CREATIVE_FEATURES = {
  image: ['image_template', 'image_touchups', 'text_optimizations', 'inline_comment'],
  video: ['video_auto_crop', 'text_optimizations', 'inline_comment'],
  fromV27: ['product_extensions'],
};

/** A removed creative field `creative` carries for a call answered by `version`, as Meta refuses it; null when none. */
export function removedCreativeField(creative: Record<string, unknown>, version: number, prefix: string): LeftOutRefusal | null {
  for (const r of REMOVED_CREATIVE_FIELDS) {
    if (version < r.sinceMajor) continue;
    let value: unknown = creative;
    for (const key of r.path) value = record(value)[key];
    if (value !== undefined) return { field: `${prefix}${r.path.join('.')}`, message: r.message, subcode: r.subcode };
  }
  return null;
}

/**
 * Whether a creative says each Advantage+ creative feature of its format (CREATIVE_FEATURES) explicitly,
 * field by field, each `{enroll_status: OPT_IN | OPT_OUT}`; what it leaves to Meta's default (opted in), or
 * says wrongly. Applied to creatives with object_story_spec (an existing post is not enhanced).
 */
export function unsaidFeatures(creative: Record<string, unknown>, version: number): string[] {
  const story = record(creative.object_story_spec);
  if (!story.link_data && !story.video_data) return [];
  const features = record(record(creative.degrees_of_freedom_spec).creative_features_spec);
  const wanted = [...(story.video_data ? CREATIVE_FEATURES.video : CREATIVE_FEATURES.image), ...(version >= 27 ? CREATIVE_FEATURES.fromV27 : [])];
  return wanted.filter((name) => !['OPT_IN', 'OPT_OUT'].includes(String(record(features[name]).enroll_status)));
}

/**
 * Legacy Advantage+ shopping and app campaigns (`smart_promotion_type`) are refused. Source: Meta
 * "Advantage+ Campaign Experience for Sales, App, and Leads": "Beginning with v25.0, you will no longer be
 * able to use the Advantage+ shopping campaign (ASC) API with the smart_promotion_type=AUTOMATED_SHOPPING_ADS
 * field ... or the Advantage+ app campaign API with the smart_promotion_type=SMART_APP_PROMOTION field";
 * in every version from 2026-05-19 (the contract's date, live-platforms.md "Automated campaigns"; no Meta
 * page in the stored sources gives it). The message is the fake's own: Meta's wording is not published.
 */
export const LEGACY_ADVANTAGE_FROM = { major: 25, everyVersionFrom: '2026-05-19' };

export function legacyAdvantageLeftOut(params: Record<string, unknown>, version: number, now: number): LeftOutRefusal | null {
  if (params.smart_promotion_type === undefined) return null;
  if (version < LEGACY_ADVANTAGE_FROM.major && now < Date.parse(`${LEGACY_ADVANTAGE_FROM.everyVersionFrom}T00:00:00Z`)) return null;
  return {
    field: 'smart_promotion_type',
    message:
      '(#100) smart_promotion_type can no longer be used to create Advantage+ shopping or app campaigns: create the campaign with Advantage+ campaign budget, Advantage+ audience and Advantage+ placements',
  };
}

/** The first Graph version whose campaigns answer `advantage_state_info` (Node SDK 22.0.1, API version v22.0). */
export const ADVANTAGE_STATE_SINCE = 22;

/**
 * A campaign's `advantage_state_info` (codegen api_specs Campaign `advantage_state_info`, type
 * AdCampaignGroupAdvantageState: advantage_state, advantage_budget_state, advantage_audience_state,
 * advantage_placement_state; first generated in facebook-nodejs-business-sdk 22.0.1 @ea09752, v22.0), as
 * Meta "Advantage+ Campaign Experience for Sales, App, and Leads" describes it: the budget state is
 * ENABLED with a campaign budget (Advantage+ campaign budget), the audience state with Advantage+ audience
 * (targeting_automation.advantage_audience 1) on the ad sets, the placement state when no ad set narrows
 * its placements (Advantage+ placements: no publisher_platforms or positions); with all three ENABLED,
 * advantage_state names the Advantage+ campaign of its objective (ADVANTAGE_PLUS_SALES, _APP, _LEADS),
 * else DISABLED. The values ENABLED / DISABLED and ADVANTAGE_PLUS_* are as the guide and integrations'
 * reads show them. A third-party summary of the guide reads the audience state as on when at least one
 * ad set has Advantage+ audience; the contract says every ad set, and the fake follows the contract
 * (no Meta page in the stored sources settles it).
 */
export function advantageStateInfo(
  objective: string | undefined,
  campaignBudget: boolean,
  adsets: ReadonlyArray<{ targeting?: unknown }>,
): Record<'advantage_state' | 'advantage_budget_state' | 'advantage_audience_state' | 'advantage_placement_state', string> {
  const state = (on: boolean) => (on ? 'ENABLED' : 'DISABLED');
  const targetings = adsets.map((s) => record(s.targeting));
  const audience = targetings.length > 0 && targetings.every((t) => record(t.targeting_automation).advantage_audience === 1);
  const placements = targetings.length > 0 && targetings.every((t) => !Object.keys(t).some((k) => k === 'publisher_platforms' || k.endsWith('_positions')));
  const typed: Record<string, string> = {
    OUTCOME_SALES: 'ADVANTAGE_PLUS_SALES',
    OUTCOME_APP_PROMOTION: 'ADVANTAGE_PLUS_APP',
    OUTCOME_LEADS: 'ADVANTAGE_PLUS_LEADS',
  };
  return {
    advantage_state: campaignBudget && audience && placements && typed[objective ?? ''] ? typed[objective!] : 'DISABLED',
    advantage_budget_state: state(campaignBudget),
    advantage_audience_state: state(audience),
    advantage_placement_state: state(placements),
  };
}
