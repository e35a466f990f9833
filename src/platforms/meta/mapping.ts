// Between the port's platform-neutral shapes and the Graph Marketing API's: object specs to create
// parameters, Graph campaigns to PlatformCampaign, insights rows to minor-unit totals.
//
// Settings understood (camelCase, all optional; `platformFields` is merged raw into the request):
//   campaign: specialAdCategories, bidStrategy (sent with a campaign budget; else its ad sets carry it),
//             buyingType, adSetBudgetSharing (with no campaign budget), adSetCountries (the countries its ad
//             sets target: special_ad_category_country)
//   adset:    optimizationGoal, billingEvent (IMPRESSIONS when unset: billing_event is always sent),
//             bidStrategy (its campaign's, without a campaign budget), bidAmount (minor units), destinationType,
//             targeting {countries, regions, cities, ageMin, ageMax, genders, interests, customAudiences,
//             excludedAudiences}, advantageAudience, placements {automatic, positions},
//             schedule {startTime, endTime}, promotedObject {pixelId, customEventType, pageId, leadFormId,
//             applicationId, objectStoreUrl}, pageId (the account's, for a lead form or post engagement),
//             dsaBeneficiary, dsaPayor, regionalIdentities (resolved by the adapter from the account)
//   ad, creative: pageId, instagramUserId, postId, headline, primaryText, description, linkUrl, displayUrl,
//             callToAction, leadFormId (its ad set's), platformCreativeId (ads only), urlTags,
//             multiAdvertiserAds; the uploaded creative is ObjectSpec.creative
// Ads carry their creative inline (object_story_spec, or object_story_id for an existing post) unless
// platformCreativeId names one; every creative says its multi-advertiser enrolment and each Advantage+
// creative feature of its format explicitly. Names are sent as given; the service's marker travels as an ad label.

import type { Budget, Insights, ObjectLevel, ObjectSpec, OptionItem, PlatformCampaign, PlatformStatus } from '../port.js';
import { decimalToMinor, splitMarkedName } from '../live-http.js';
import { REGIONAL_COUNTRIES, advantageAudienceFlag, regionalCountries, specialCategories } from './rules.js';
import { ADVANTAGE_STATE_SINCE_MAJOR, advantageStateInfoOf } from './advantage.js';

export type GraphParams = Record<string, unknown>;

/** The account edge each level is created on and listed from. */
export const EDGES: Record<ObjectLevel, string> = { campaign: 'campaigns', adset: 'adsets', ad: 'ads', creative: 'adcreatives' };

export const CAMPAIGN_FIELDS = 'id,name,status,effective_status,objective,daily_budget,lifetime_budget,created_time';

/** The campaign fields read at Graph version `major`: CAMPAIGN_FIELDS, and Meta's advantage_state_info where the version has it (./advantage.ts). */
export function campaignFields(major: number): string {
  return major >= ADVANTAGE_STATE_SINCE_MAJOR ? `${CAMPAIGN_FIELDS},advantage_state_info` : CAMPAIGN_FIELDS;
}

/** Effective statuses of campaigns that are listed (everything but deleted). */
export const LISTED_EFFECTIVE = ['ACTIVE', 'PAUSED', 'ARCHIVED', 'IN_PROCESS', 'WITH_ISSUES'];

const EFFECTIVE_OF: Record<PlatformStatus, string[]> = {
  ACTIVE: ['ACTIVE', 'IN_PROCESS', 'WITH_ISSUES'],
  PAUSED: ['PAUSED'],
  ARCHIVED: ['ARCHIVED'],
  DELETED: [],
};

/** Effective statuses matching the port's status filter; null when no filter was asked. */
export function effectiveStatusesFor(statuses: PlatformStatus[] | undefined): string[] | null {
  if (!statuses?.length) return null;
  return [...new Set(statuses.flatMap((s) => EFFECTIVE_OF[s] ?? []))];
}

function asRecord(value: unknown): Record<string, unknown> {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function definedEntries(params: GraphParams): GraphParams {
  return Object.fromEntries(Object.entries(params).filter(([, v]) => v !== undefined && v !== null));
}

function minorUnits(value: unknown): number | null {
  const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value : '';
  if (!/^\d+$/.test(text)) return null;
  const n = Number(text);
  return n > 0 ? n : null;
}

/** Graph's time format ("2030-01-15T05:00:00+0000") as an ISO string. */
export function isoTime(value: unknown): string {
  if (typeof value !== 'string') return new Date(0).toISOString();
  const date = new Date(value.replace(/([+-]\d{2})(\d{2})$/, '$1:$2'));
  return Number.isNaN(date.getTime()) ? new Date(0).toISOString() : date.toISOString();
}

/** A Graph campaign (campaignFields) as the port's campaign, marker tag removed from the name; Meta's advantage_state_info as read (null when not). */
export function toCampaign(raw: Record<string, unknown>): PlatformCampaign {
  const daily = minorUnits(raw.daily_budget);
  const lifetime = minorUnits(raw.lifetime_budget);
  const budget: Budget | null = daily ? { period: 'daily', amountMinorUnits: daily } : lifetime ? { period: 'lifetime', amountMinorUnits: lifetime } : null;
  const status = String(raw.status ?? 'PAUSED') as PlatformStatus;
  return {
    id: String(raw.id),
    name: splitMarkedName(String(raw.name ?? '')).name,
    status,
    effectiveStatus: String(raw.effective_status ?? status),
    objective: String(raw.objective ?? ''),
    budget,
    budgetLevel: budget ? 'campaign' : 'adset',
    createdAt: isoTime(raw.created_time),
    advantageStateInfo: advantageStateInfoOf(raw.advantage_state_info),
  };
}

function budgetParams(budget: Budget | null | undefined): GraphParams {
  if (!budget) return {};
  return budget.period === 'daily' ? { daily_budget: String(budget.amountMinorUnits) } : { lifetime_budget: String(budget.amountMinorUnits) };
}

/** Graph params of a budget change. */
export function budgetChange(budget: Budget): GraphParams {
  return budgetParams(budget);
}

const idList = (value: unknown) => (Array.isArray(value) && value.length ? value.map((id) => ({ id: String(id) })) : undefined);

/**
 * Placements as publisher_platforms plus <platform>_positions from `<platform>:<position>` names;
 * nothing (Meta's automatic placements) when automatic or none are named.
 */
function placementsOf(value: unknown): GraphParams {
  const p = asRecord(value);
  const positions = Array.isArray(p.positions) ? p.positions.map(String) : [];
  if (p.automatic === true || !positions.length) return {};
  const out: Record<string, string[]> = {};
  for (const name of positions) {
    const [platform, position] = name.split(':');
    (out[`${platform}_positions`] ??= []).push(position);
  }
  return { publisher_platforms: [...new Set(positions.map((n) => n.split(':')[0]))], ...out };
}

function targetingOf(s: Record<string, unknown>): GraphParams | undefined {
  const value = s.targeting;
  if (value === undefined) return undefined;
  const t = asRecord(value);
  const geo = definedEntries({
    countries: Array.isArray(t.countries) ? t.countries : undefined,
    regions: Array.isArray(t.regions) ? t.regions.map((key) => ({ key: String(key) })) : undefined,
    cities: Array.isArray(t.cities) ? t.cities.map((key) => ({ key: String(key) })) : undefined,
  });
  const genders = Array.isArray(t.genders)
    ? t.genders.map((g) => (g === 'male' ? 1 : g === 'female' ? 2 : Number(g))).filter((g) => g === 1 || g === 2)
    : undefined;
  return definedEntries({
    geo_locations: Object.keys(geo).length ? geo : undefined,
    age_min: t.ageMin,
    age_max: t.ageMax,
    genders: genders?.length ? genders : undefined,
    flexible_spec: Array.isArray(t.interests) && t.interests.length ? [{ interests: t.interests.map((id) => ({ id: String(id) })) }] : undefined,
    custom_audiences: idList(t.customAudiences),
    excluded_custom_audiences: idList(t.excludedAudiences),
    ...placementsOf(s.placements),
    // Said explicitly on every ad set since v23.0: 0 keeps the targeting as written.
    targeting_automation: { advantage_audience: advantageAudienceFlag(s) },
  });
}

function adsetParams(s: Record<string, unknown>, creating: boolean): GraphParams {
  const schedule = asRecord(s.schedule);
  // An instant-form (lead ad) set: destination ON_AD, promoted by the page that owns the form. Post
  // engagement: destination ON_POST, promoted by the page whose posts run (AdSet promoted_object).
  const postEngagement = s.optimizationGoal === 'POST_ENGAGEMENT';
  const promoted = s.promotedObject === undefined && !(creating && postEngagement) ? undefined : asRecord(s.promotedObject);
  const leadForm = Boolean(promoted?.leadFormId);
  return definedEntries({
    optimization_goal: s.optimizationGoal,
    // Always said on a create: Meta refuses an ad set without one ("missing parameter").
    billing_event: s.billingEvent ?? (creating ? 'IMPRESSIONS' : undefined),
    bid_strategy: s.bidStrategy,
    bid_amount: s.bidAmount,
    destination_type: leadForm ? 'ON_AD' : postEngagement ? 'ON_POST' : s.destinationType,
    targeting: targetingOf(s),
    start_time: schedule.startTime,
    end_time: schedule.endTime,
    promoted_object: promoted
      ? definedEntries({
          pixel_id: promoted.pixelId,
          custom_event_type: promoted.customEventType,
          application_id: promoted.applicationId,
          object_store_url: promoted.objectStoreUrl,
          page_id: promoted.pageId ?? (leadForm || postEngagement ? s.pageId : undefined),
        })
      : undefined,
    dsa_beneficiary: s.dsaBeneficiary,
    dsa_payor: s.dsaPayor,
    ...regionalParams(s),
  });
}

/** Singapore and Taiwan: each targeted country's category and its verified identities (settings.regionalIdentities, the account's). */
function regionalParams(s: Record<string, unknown>): GraphParams {
  const countries = regionalCountries(asRecord(s.targeting).countries);
  const identities = asRecord(s.regionalIdentities);
  const declared = countries.filter((c) => identities[c]);
  if (!declared.length) return {};
  return {
    regional_regulated_categories: declared.map((c) => REGIONAL_COUNTRIES[c].category),
    regional_regulation_identities: Object.fromEntries(
      declared.flatMap((c) => {
        const own = asRecord(identities[c]);
        return [
          [REGIONAL_COUNTRIES[c].beneficiary, String(own.beneficiary)],
          [REGIONAL_COUNTRIES[c].payer, String(own.payer)],
        ];
      }),
    ),
  };
}

/** Graph parameters (blame_field_specs, first part) and the node property each comes from. */
const PROPERTY_OF_PARAM: Record<string, string> = {
  name: 'name',
  objective: 'objective',
  daily_budget: 'budget',
  lifetime_budget: 'budget',
  special_ad_categories: 'specialAdCategories',
  special_ad_category_country: 'specialAdCategories',
  bid_strategy: 'bidStrategy',
  optimization_goal: 'optimizationGoal',
  billing_event: 'billingEvent',
  bid_amount: 'bidAmount',
  promoted_object: 'promotedObject',
  destination_type: 'promotedObject',
  start_time: 'schedule.startTime',
  end_time: 'schedule.endTime',
  dsa_beneficiary: 'targeting.countries',
  dsa_payor: 'targeting.countries',
  regional_regulated_categories: 'targeting.countries',
  regional_regulation_identities: 'targeting.countries',
  'targeting.age_min': 'targeting.ageMin',
  'targeting.age_max': 'targeting.ageMax',
  'targeting.genders': 'targeting.genders',
  'targeting.geo_locations': 'targeting.countries',
  'targeting.custom_audiences': 'targeting.customAudiences',
  'targeting.excluded_custom_audiences': 'targeting.excludedAudiences',
  'targeting.flexible_spec': 'targeting.interests',
  'targeting.targeting_automation': 'advantageAudience',
  'targeting.publisher_platforms': 'placements',
};

/**
 * The node property a Graph refusal blames (its blame_field_specs or "Param x"), as launch validation
 * names fields: `budget`, `targeting.countries`, `placements`...; null when it blames none the node has.
 */
export function propertyOfGraphField(field: string | undefined): string | null {
  if (!field) return null;
  const parts = field.replace(/\[(\w+)\]/g, '.$1').split('.');
  for (let n = parts.length; n > 0; n--) {
    const hit = PROPERTY_OF_PARAM[parts.slice(0, n).join('.')];
    if (hit) return hit;
  }
  if (parts[0] === 'targeting' && /_positions$/.test(parts[1] ?? '')) return 'placements';
  if (parts[0] === 'creative' || parts[0] === 'object_story_spec') return null;
  return null;
}

/** The ad label carrying the service's marker (Ad Labels: https://developers.facebook.com/docs/marketing-api/reference/ad-label/). */
export function markerLabel(marker: string): string {
  return `svc:${marker}`;
}

/** The marker an ad label carries, or null for a label the service did not set. */
export function markerOfLabel(name: unknown): string | null {
  return typeof name === 'string' && name.startsWith('svc:') ? name.slice(4) : null;
}

/** The tag that reports the campaign id to the tracker, added to the ad's own url_tags. */
export const SUB3_TAG = 'sub3={{campaign.id}}';

/** The ad's url_tags with sub3 added, unless the ad already sets sub3 itself. */
export function urlTagsOf(own: unknown): string {
  const tags = typeof own === 'string' ? own.replace(/^[?&]+/, '').trim() : '';
  if (/(^|&)sub3=/.test(tags)) return tags;
  return tags ? `${tags}&${SUB3_TAG}` : SUB3_TAG;
}

type Creative = ObjectSpec['creative'];

/**
 * The Advantage+ creative features a creative opts out of one by one, by its format: the ones that made
 * up the standard enhancements bundle (Meta "Standard Enhancements for Advantage+ Creative": "The
 * sub-features within the standard enhancement bundle for single image ads include image_template,
 * image_touchups, text_optimizations, and inline_comment. For single video ads, the sub-features are
 * video_auto_crop, text_optimizations, and inline_comment"). An existing post's format is not known
 * here: it says the features both formats share.
 */
export const CREATIVE_FEATURES: Record<'image' | 'video' | 'post', readonly string[]> = {
  image: ['image_template', 'image_touchups', 'text_optimizations', 'inline_comment'],
  video: ['video_auto_crop', 'text_optimizations', 'inline_comment'],
  post: ['text_optimizations', 'inline_comment'],
};

/** Features a version turns on unless a creative opts out, from the version that did (product showcase: v27.0 blog, Node SDK 27.0.0). */
export const FEATURES_FROM_VERSION: ReadonlyArray<{ feature: string; sinceMajor: number }> = [{ feature: 'product_extensions', sinceMajor: 27 }];

/**
 * What a creative says of its enrolments, explicitly (an ad created without them is opted in: Meta
 * "Multi-advertiser ads", 2024-08-19; Advantage+ creative features are Meta's defaults): multi-advertiser
 * ads as the ad's multiAdvertiserAds says (else out), and each Advantage+ creative feature of its format
 * out, one by one, with those the called Graph version (its major number) adds. The standard_enhancements
 * bundle is never sent: Meta stopped taking it in v22.0 (the ledger, ./ledger.ts).
 */
export function enrolments(s: Record<string, unknown>, format: keyof typeof CREATIVE_FEATURES, major: number): GraphParams {
  const features = [...CREATIVE_FEATURES[format], ...FEATURES_FROM_VERSION.filter((f) => major >= f.sinceMajor).map((f) => f.feature)];
  return {
    contextual_multi_ads: { enroll_status: s.multiAdvertiserAds === true ? 'OPT_IN' : 'OPT_OUT' },
    degrees_of_freedom_spec: { creative_features_spec: Object.fromEntries(features.map((f) => [f, { enroll_status: 'OPT_OUT' }])) },
  };
}

/** The inline creative spec of an ad or creative: an existing post, or an object_story_spec with its media. */
function creativeSpec(name: string, s: Record<string, unknown>, creative: Creative, major: number): GraphParams {
  const tags = urlTagsOf(s.urlTags);
  if (s.postId !== undefined && s.postId !== null && s.postId !== '') {
    const post = String(s.postId);
    return { name, url_tags: tags, object_story_id: post.includes('_') ? post : `${String(s.pageId)}_${post}`, ...enrolments(s, 'post', major) };
  }
  // A lead ad's button opens its ad set's instant form (call_to_action.value.lead_gen_form_id).
  const form = s.leadFormId ? String(s.leadFormId) : null;
  const value = definedEntries({ link: s.linkUrl, lead_gen_form_id: form ?? undefined });
  const cta = s.callToAction || form ? { type: s.callToAction ?? 'SIGN_UP', ...(Object.keys(value).length ? { value } : {}) } : undefined;
  const video = creative?.type === 'video' ? creative : null;
  const thumbnail = video?.thumbnailRef ?? null;
  const story = video
    ? {
        video_data: definedEntries({
          video_id: video.ref,
          message: s.primaryText,
          title: s.headline,
          link_description: s.description,
          // A thumbnail is an image hash (uploaded) or the URL Graph gave for the video's picture.
          ...(thumbnail && /^https?:/.test(thumbnail) ? { image_url: thumbnail } : { image_hash: thumbnail ?? undefined }),
          call_to_action: cta ?? (s.linkUrl ? { type: 'LEARN_MORE', value: { link: s.linkUrl } } : undefined),
        }),
      }
    : {
        link_data: definedEntries({
          // An instant-form ad without a website links to Meta's placeholder, as Ads Manager does.
          link: s.linkUrl ?? (form ? 'https://fb.me/' : undefined),
          caption: s.displayUrl,
          message: s.primaryText,
          name: s.headline,
          description: s.description,
          image_hash: creative?.type === 'image' ? creative.ref : undefined,
          call_to_action: cta,
        }),
      };
  return definedEntries({
    name,
    url_tags: tags,
    object_story_spec: definedEntries({ page_id: s.pageId, instagram_user_id: s.instagramUserId ?? s.instagramActorId, ...story }),
    ...enrolments(s, video ? 'video' : 'image', major),
  });
}

/** Whether settings change an ad's creative (its copy, link, page, post or tags). */
export function hasCreativeSettings(s: Record<string, unknown>): boolean {
  return ['pageId', 'postId', 'headline', 'primaryText', 'description', 'linkUrl', 'callToAction', 'urlTags', 'multiAdvertiserAds'].some(
    (k) => s[k] !== undefined,
  );
}

/** Parameters of a create on the account edge of `spec.level` (parentId already resolved), for Graph version `major`. */
export function createParams(spec: ObjectSpec, major: number): GraphParams {
  const s = spec.settings ?? {};
  const name = spec.name;
  const adlabels = [{ name: markerLabel(spec.marker) }];
  const raw = asRecord(s.platformFields);
  switch (spec.level) {
    case 'campaign':
      return {
        name,
        objective: spec.objective ?? 'OUTCOME_TRAFFIC',
        status: spec.status,
        special_ad_categories: specialCategories(s.specialAdCategories),
        // Categories other than NONE name the countries the ads run in.
        ...(specialCategories(s.specialAdCategories).some((c) => c !== 'NONE') && Array.isArray(s.adSetCountries)
          ? { special_ad_category_country: s.adSetCountries }
          : {}),
        adlabels,
        // A bid strategy is the campaign's with a campaign budget; without one each ad set carries it.
        ...definedEntries({ bid_strategy: spec.budget ? s.bidStrategy : undefined, buying_type: s.buyingType }),
        // Without a campaign budget, v24+ wants to hear whether the ad sets share theirs.
        ...(spec.budget ? budgetParams(spec.budget) : { is_adset_budget_sharing_enabled: s.adSetBudgetSharing === true }),
        ...raw,
      };
    case 'adset':
      return { name, campaign_id: spec.parentId, status: spec.status, adlabels, ...adsetParams(s, true), ...budgetParams(spec.budget), ...raw };
    case 'ad':
      return {
        name,
        adset_id: spec.parentId,
        status: spec.status,
        adlabels,
        creative: s.platformCreativeId ? { creative_id: String(s.platformCreativeId) } : creativeSpec(`${spec.name} creative`, s, spec.creative ?? null, major),
        ...raw,
      };
    case 'creative':
      return { ...creativeSpec(name, s, spec.creative ?? null, major), adlabels, ...raw };
  }
}

/** Parameters of an update from changed settings (only what the settings name), for Graph version `major`. */
export function updateParams(level: ObjectLevel, settings: Record<string, unknown>, major: number): GraphParams {
  const raw = asRecord(settings.platformFields);
  if (level === 'adset') return { ...adsetParams(settings, false), ...raw };
  if (level === 'campaign')
    return {
      ...definedEntries({
        bid_strategy: settings.bidStrategy,
        special_ad_categories: settings.specialAdCategories === undefined ? undefined : specialCategories(settings.specialAdCategories),
      }),
      ...raw,
    };
  if (level === 'ad') {
    const creative = settings.platformCreativeId
      ? { creative_id: String(settings.platformCreativeId) }
      : hasCreativeSettings(settings)
        ? creativeSpec('creative', settings, null, major)
        : undefined;
    return { ...definedEntries({ creative }), ...raw };
  }
  return raw;
}

const PURCHASE_TYPES = ['omni_purchase', 'purchase', 'offsite_conversion.fb_pixel_purchase'];
const LEAD_TYPES = ['lead', 'onsite_conversion.lead_grouped', 'offsite_conversion.fb_pixel_lead'];

export const INSIGHT_FIELDS = 'campaign_id,spend,impressions,clicks,actions,action_values';

/** The value of the first of `types` an action list reports (Graph reports one event under several names). */
function firstAction(list: unknown, types: string[]): string | undefined {
  if (!Array.isArray(list)) return undefined;
  for (const type of types) {
    const hit = list.find((a) => (a as { action_type?: string })?.action_type === type) as { value?: unknown } | undefined;
    if (hit && hit.value !== undefined) return String(hit.value);
  }
  return undefined;
}

function count(value: unknown): number {
  const n = Number(value ?? 0);
  return Number.isFinite(n) ? Math.round(n) : 0;
}

/**
 * One insights row in minor units. Results are purchases plus leads, each counted once under its
 * preferred name; revenue is the purchase value.
 */
export function rowInsights(row: Record<string, unknown>, digits: number): Insights {
  const purchases = firstAction(row.actions, PURCHASE_TYPES);
  const leads = firstAction(row.actions, LEAD_TYPES);
  const revenue = firstAction(row.action_values, PURCHASE_TYPES);
  return {
    spendMinorUnits: row.spend === undefined ? 0 : decimalToMinor(String(row.spend), digits),
    impressions: count(row.impressions),
    clicks: count(row.clicks),
    results: count(purchases) + count(leads),
    revenueMinorUnits: revenue === undefined ? 0 : decimalToMinor(revenue, digits),
  };
}

/** Meta's standard conversion events (promoted_object.custom_event_type). */
export const CONVERSION_EVENTS: OptionItem[] = [
  'PURCHASE',
  'ADD_TO_CART',
  'INITIATED_CHECKOUT',
  'ADD_PAYMENT_INFO',
  'LEAD',
  'COMPLETE_REGISTRATION',
  'CONTENT_VIEW',
  'SEARCH',
  'SUBSCRIBE',
  'START_TRIAL',
  'CONTACT',
].map((id) => ({ id, name: id.toLowerCase().replace(/_/g, ' ') }));
