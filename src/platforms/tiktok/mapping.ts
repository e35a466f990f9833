// Between the port's platform-neutral shapes and TikTok's Business API: specs to create bodies,
// TikTok campaigns to PlatformCampaign. Budgets travel in currency units on TikTok and are
// converted to and from minor units by decimal digits, never by floating-point multiplication.
//
// Settings understood (camelCase, all optional; `platformFields` is merged raw into the body):
//   campaign: budgetOptimizeOn
//   adset:    optimizationGoal, billingEvent, bidAmount (minor units), placementType, placements,
//             targeting {locationIds (or countries), ageMin, ageMax, genders, interests, languages},
//             schedule {startTime, endTime}, promotedObject {pixelId, customEventType}
//   ad:       identityId, identityType, displayName, headline, primaryText, linkUrl, callToAction,
//             imageIds (or imageId), videoId

import type { Budget, ObjectSpec, OptionItem, PlatformCampaign, PlatformStatus } from '../port.js';
import { markedName, minorToDecimal, splitMarkedName, decimalToMinor } from '../live-http.js';
import type { TikTokParams } from './client.js';

/** Meta-style (platform-neutral) objectives to TikTok objective types; TikTok names pass through. */
const OBJECTIVES: Record<string, string> = {
  OUTCOME_TRAFFIC: 'TRAFFIC',
  OUTCOME_AWARENESS: 'REACH',
  OUTCOME_ENGAGEMENT: 'ENGAGEMENT',
  OUTCOME_LEADS: 'LEAD_GENERATION',
  OUTCOME_SALES: 'WEB_CONVERSIONS',
  OUTCOME_APP_PROMOTION: 'APP_PROMOTION',
  LINK_CLICKS: 'TRAFFIC',
  CONVERSIONS: 'WEB_CONVERSIONS',
  REACH: 'REACH',
  VIDEO_VIEWS: 'VIDEO_VIEWS',
};

const OPTIMIZATION_GOALS: Record<string, string> = {
  LINK_CLICKS: 'CLICK',
  LANDING_PAGE_VIEWS: 'CLICK',
  IMPRESSIONS: 'REACH',
  REACH: 'REACH',
  OFFSITE_CONVERSIONS: 'CONVERT',
  CONVERSIONS: 'CONVERT',
  LEAD_GENERATION: 'LEAD_GENERATION',
  THRUPLAY: 'VIDEO_VIEW',
  VIDEO_VIEWS: 'VIDEO_VIEW',
};

const BILLING_EVENTS: Record<string, string> = { IMPRESSIONS: 'CPM', LINK_CLICKS: 'CPC', CLICKS: 'CPC', THRUPLAY: 'CPV' };

const AGE_GROUPS: Array<[string, number, number]> = [
  ['AGE_13_17', 13, 17],
  ['AGE_18_24', 18, 24],
  ['AGE_25_34', 25, 34],
  ['AGE_35_44', 35, 44],
  ['AGE_45_54', 45, 54],
  ['AGE_55_100', 55, 100],
];

/** TikTok's objective type for a spec objective. */
export function objectiveType(objective: string | undefined): string {
  const key = (objective ?? 'OUTCOME_TRAFFIC').toUpperCase();
  return OBJECTIVES[key] ?? key;
}

export function operationStatus(status: 'ACTIVE' | 'PAUSED'): 'ENABLE' | 'DISABLE' {
  return status === 'ACTIVE' ? 'ENABLE' : 'DISABLE';
}

/** Budget fields of a create or update body. */
export function budgetFields(budget: Budget | null | undefined, digits: number): TikTokParams {
  if (!budget) return { budget_mode: 'BUDGET_MODE_INFINITE' };
  return { budget_mode: budget.period === 'daily' ? 'BUDGET_MODE_DAY' : 'BUDGET_MODE_TOTAL', budget: minorToDecimal(budget.amountMinorUnits, digits) };
}

function asRecord(value: unknown): Record<string, unknown> {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function defined(params: TikTokParams): TikTokParams {
  return Object.fromEntries(Object.entries(params).filter(([, v]) => v !== undefined && v !== null));
}

/** An ISO time as TikTok's "YYYY-MM-DD HH:MM:SS" (UTC). */
export function tiktokTime(value: unknown): string | undefined {
  if (typeof value !== 'string' || !value) return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? value : date.toISOString().slice(0, 19).replace('T', ' ');
}

/** TikTok's "YYYY-MM-DD HH:MM:SS" (UTC) as an ISO string. */
export function isoTime(value: unknown): string {
  if (typeof value !== 'string' || !value) return new Date(0).toISOString();
  const date = new Date(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/.test(value) ? `${value.replace(' ', 'T')}Z` : value);
  return Number.isNaN(date.getTime()) ? new Date(0).toISOString() : date.toISOString();
}

function ageGroups(min: unknown, max: unknown): string[] | undefined {
  if (min === undefined && max === undefined) return undefined;
  const low = Number(min ?? 13);
  const high = Number(max ?? 100);
  return AGE_GROUPS.filter(([, a, b]) => b >= low && a <= high).map(([name]) => name);
}

function genderOf(genders: unknown): string | undefined {
  if (!Array.isArray(genders) || genders.length !== 1) return genders === undefined ? undefined : 'GENDER_UNLIMITED';
  const g = String(genders[0]).toLowerCase();
  return g === 'male' || g === '1' ? 'GENDER_MALE' : g === 'female' || g === '2' ? 'GENDER_FEMALE' : 'GENDER_UNLIMITED';
}

/** Ad group fields from platform-neutral settings (only what the settings name). */
export function adgroupFields(s: Record<string, unknown>, digits: number): TikTokParams {
  const t = s.targeting === undefined ? undefined : asRecord(s.targeting);
  const schedule = s.schedule === undefined ? undefined : asRecord(s.schedule);
  const promoted = asRecord(s.promotedObject);
  const goal = typeof s.optimizationGoal === 'string' ? (OPTIMIZATION_GOALS[s.optimizationGoal] ?? s.optimizationGoal) : undefined;
  const billing = typeof s.billingEvent === 'string' ? (BILLING_EVENTS[s.billingEvent] ?? s.billingEvent) : undefined;
  return defined({
    placement_type: s.placementType ?? (s.placements ? 'PLACEMENT_TYPE_NORMAL' : undefined),
    placements: s.placements,
    location_ids: t ? (t.locationIds ?? t.countries) : undefined,
    age_groups: t ? ageGroups(t.ageMin, t.ageMax) : undefined,
    gender: t ? genderOf(t.genders) : undefined,
    interest_category_ids: t?.interests,
    languages: t?.languages,
    schedule_type: schedule ? (schedule.endTime ? 'SCHEDULE_START_END' : 'SCHEDULE_FROM_NOW') : undefined,
    schedule_start_time: schedule ? tiktokTime(schedule.startTime) : undefined,
    schedule_end_time: schedule ? tiktokTime(schedule.endTime) : undefined,
    optimization_goal: goal,
    billing_event: billing,
    bid_type: s.bidAmount !== undefined ? 'BID_TYPE_CUSTOM' : undefined,
    bid_price: typeof s.bidAmount === 'number' ? minorToDecimal(s.bidAmount, digits) : undefined,
    pixel_id: promoted.pixelId,
    optimization_event: promoted.customEventType,
  });
}

/** The body of /campaign/create/. */
export function campaignCreate(spec: ObjectSpec, digits: number): TikTokParams {
  const s = spec.settings ?? {};
  return {
    campaign_name: markedName(spec.name, spec.marker),
    objective_type: objectiveType(spec.objective),
    operation_status: operationStatus(spec.status),
    ...budgetFields(spec.budget, digits),
    ...defined({ budget_optimize_on: s.budgetOptimizeOn }),
    ...asRecord(s.platformFields),
  };
}

/** The body of /adgroup/create/ (parentId resolved). */
export function adgroupCreate(spec: ObjectSpec, digits: number): TikTokParams {
  const s = spec.settings ?? {};
  return {
    campaign_id: spec.parentId,
    adgroup_name: markedName(spec.name, spec.marker),
    operation_status: operationStatus(spec.status),
    placement_type: 'PLACEMENT_TYPE_AUTOMATIC',
    ...(spec.budget ? budgetFields(spec.budget, digits) : {}),
    ...adgroupFields(s, digits),
    ...asRecord(s.platformFields),
  };
}

/** Creative fields of an ad from settings (only what the settings name). */
export function creativeFields(s: Record<string, unknown>): TikTokParams {
  const imageIds = Array.isArray(s.imageIds) ? s.imageIds : s.imageId !== undefined ? [s.imageId] : undefined;
  const hasCreative = imageIds || s.videoId !== undefined;
  return defined({
    identity_id: s.identityId,
    identity_type: s.identityType ?? (s.identityId !== undefined ? 'CUSTOMIZED_USER' : undefined),
    display_name: s.displayName,
    ad_format: hasCreative ? (s.videoId !== undefined ? 'SINGLE_VIDEO' : 'SINGLE_IMAGE') : undefined,
    ad_text: s.primaryText ?? s.headline,
    call_to_action: s.callToAction,
    landing_page_url: s.linkUrl,
    image_ids: imageIds,
    video_id: s.videoId,
  });
}

/** One entry of the `creatives` array of /ad/create/. */
export function adCreative(spec: ObjectSpec): TikTokParams {
  const s = spec.settings ?? {};
  return { ad_name: markedName(spec.name, spec.marker), operation_status: operationStatus(spec.status), ...creativeFields(s), ...asRecord(s.platformFields) };
}

/** A TikTok campaign as the port's campaign, marker tag removed from the name. */
export function toCampaign(raw: Record<string, unknown>, digits: number): PlatformCampaign {
  const mode = String(raw.budget_mode ?? 'BUDGET_MODE_INFINITE');
  const amount = raw.budget === undefined || raw.budget === null ? 0 : decimalToMinor(raw.budget as string | number, digits);
  const budget: Budget | null =
    amount > 0 && mode !== 'BUDGET_MODE_INFINITE' ? { period: mode === 'BUDGET_MODE_TOTAL' ? 'lifetime' : 'daily', amountMinorUnits: amount } : null;
  const secondary = raw.secondary_status === undefined ? undefined : String(raw.secondary_status);
  const status: PlatformStatus = secondary?.endsWith('_DELETE') ? 'DELETED' : raw.operation_status === 'ENABLE' ? 'ACTIVE' : 'PAUSED';
  return {
    id: String(raw.campaign_id),
    name: splitMarkedName(String(raw.campaign_name ?? '')).name,
    status,
    effectiveStatus: secondary ?? String(raw.operation_status ?? status),
    objective: String(raw.objective_type ?? ''),
    budget,
    budgetLevel: budget ? 'campaign' : 'adset',
    createdAt: isoTime(raw.create_time),
  };
}

/** TikTok pixel events usable as optimization events. */
export const CONVERSION_EVENTS: OptionItem[] = [
  'COMPLETE_PAYMENT',
  'ADD_TO_CART',
  'INITIATE_ORDER',
  'ADD_PAYMENT_INFO',
  'FORM',
  'COMPLETE_REGISTRATION',
  'VIEW_CONTENT',
  'SEARCH',
  'SUBSCRIBE',
  'CONTACT',
].map((id) => ({ id, name: id.toLowerCase().replace(/_/g, ' ') }));
