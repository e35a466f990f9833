// Between the port's platform-neutral shapes and TikTok's Business API: specs to create bodies,
// TikTok campaigns to PlatformCampaign. Budgets travel in currency units on TikTok and are
// converted to and from minor units by decimal digits, never by floating-point multiplication.
// Names go as the launch gives them; the node id travels as the create's `request_id`.
//
// Settings understood (camelCase, all optional; `platformFields` is merged raw into the body):
//   adset:    optimizationGoal, billingEvent, bidAmount (minor units: conversion_bid_price on an OCPM
//             ad group, else bid_price), placements {automatic, positions}, targeting {locationIds (or
//             countries, resolved to region ids by the adapter), ageMin, ageMax (TikTok's age groups;
//             ageMax alone starts at 18), genders, interests, languages, customAudiences, excludedAudiences},
//             schedule {startTime, endTime}, promotedObject {pixelId, customEventType (TikTok's event
//             names), leadFormId}, frequencyCap {impressions, days} (frequency, frequency_schedule)
//   ad:       identityId, identityType (else the account's; a BC_AUTH_TT identity with the account's
//             Business Center), displayName (else the brand's name; never cut), headline, primaryText,
//             linkUrl, urlTags, callToAction; the creative is ObjectSpec.creative
//
// Ad groups and ads are created DISABLE and enabled when the publish ends (TikTokAdapter.finishPublish):
// TikTok ignores a campaign create's operation_status (allowlist-only), so a campaign is live from its create.

import type { AdAccount, Budget, ObjectSpec, OptionItem, PlatformCampaign, PlatformStatus } from '../port.js';
import { PlatformError } from '../port.js';
import { minorToDecimal, decimalToMinor } from '../live-http.js';
import type { TikTokParams } from './client.js';
import { PLACEMENT_POSITIONS } from '../placements.js';
import { TIKTOK_EVENTS, ageGroupsOf, tiktokLength } from './rules.js';

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

/** The billing event TikTok bills each optimization goal by (Adgroup Create: billing_event follows optimization_goal). */
const BILLING_FOR_GOAL: Record<string, string> = {
  CLICK: 'CPC',
  REACH: 'CPM',
  SHOW: 'CPM',
  CONVERT: 'OCPM',
  VALUE: 'OCPM',
  LEAD_GENERATION: 'OCPM',
  VIDEO_VIEW: 'CPV',
  ENGAGED_VIEW: 'CPV',
};

/**
 * The campaign-level optimization goal a budget-optimized campaign of each objective carries
 * (CampaignCreateBody optimization_goal: "Required when Campaign Budget Optimization is enabled. Allowed
 * values: CONVERT, INSTALL, VALUE, IN_APP_EVENT and LEAD_GENERATION"); other objectives take none.
 */
export const CAMPAIGN_GOALS: Record<string, string> = { WEB_CONVERSIONS: 'CONVERT', LEAD_GENERATION: 'LEAD_GENERATION', APP_PROMOTION: 'INSTALL' };

/** Objectives whose ad groups need no promotion_type (AdgroupCreateBody promotion_type). */
export const NO_PROMOTION_TYPE = ['REACH', 'VIDEO_VIEWS', 'ENGAGEMENT'];

/** TikTok's placements: what `placements.positions` may name for a TikTok ad set. */
export const TIKTOK_PLACEMENTS = PLACEMENT_POSITIONS.tiktok;

/** The longest display name TikTok shows on an ad (AdcreateCreatives display_name). */
export const DISPLAY_NAME_MAX = 40;

/** TikTok's objective type for a spec objective. */
export function objectiveType(objective: string | undefined): string {
  const key = (objective ?? 'OUTCOME_TRAFFIC').toUpperCase();
  return OBJECTIVES[key] ?? key;
}

export function operationStatus(status: 'ACTIVE' | 'PAUSED'): 'ENABLE' | 'DISABLE' {
  return status === 'ACTIVE' ? 'ENABLE' : 'DISABLE';
}

/** Budget fields of a create body: a budget is daily or lifetime; none is BUDGET_MODE_INFINITE. */
export function budgetFields(budget: Budget | null | undefined, digits: number): TikTokParams {
  if (!budget) return { budget_mode: 'BUDGET_MODE_INFINITE' };
  return { budget_mode: budgetMode(budget), budget: minorToDecimal(budget.amountMinorUnits, digits) };
}

/** TikTok's budget mode of a budget. */
export function budgetMode(budget: Budget): 'BUDGET_MODE_DAY' | 'BUDGET_MODE_TOTAL' {
  return budget.period === 'daily' ? 'BUDGET_MODE_DAY' : 'BUDGET_MODE_TOTAL';
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

/** An ad set's ages as TikTok's age groups (validation refuses a range they would widen); none named: none sent. */
function ageGroups(min: unknown, max: unknown): string[] | undefined {
  if (min === undefined && max === undefined) return undefined;
  return ageGroupsOf(min, max);
}

function genderOf(genders: unknown): string | undefined {
  if (!Array.isArray(genders) || genders.length !== 1) return genders === undefined ? undefined : 'GENDER_UNLIMITED';
  const g = String(genders[0]).toLowerCase();
  return g === 'male' || g === '1' ? 'GENDER_MALE' : g === 'female' || g === '2' ? 'GENDER_FEMALE' : 'GENDER_UNLIMITED';
}

/**
 * TikTok's placements of an ad set's `placements`: `automatic` (or no positions) is
 * PLACEMENT_TYPE_AUTOMATIC, else PLACEMENT_TYPE_NORMAL with the positions as a list of names.
 */
export function placementFields(placements: unknown): TikTokParams {
  if (placements === undefined) return {};
  const p = asRecord(placements);
  const positions = Array.isArray(p.positions) ? p.positions.map(String) : [];
  return p.automatic === true || !positions.length
    ? { placement_type: 'PLACEMENT_TYPE_AUTOMATIC' }
    : { placement_type: 'PLACEMENT_TYPE_NORMAL', placements: positions };
}

/**
 * An ad group's promotion_type (AdgroupCreateBody: required unless the objective is REACH, VIDEO_VIEWS or
 * ENGAGEMENT): LEAD_GENERATION for an instant form, else WEBSITE (the service's ads link to a web page).
 */
export function promotionType(objective: string | undefined, promoted: Record<string, unknown> = {}): string | undefined {
  const type = objectiveType(objective);
  if (NO_PROMOTION_TYPE.includes(type)) return undefined;
  return promoted.leadFormId !== undefined && type === 'LEAD_GENERATION' ? 'LEAD_GENERATION' : 'WEBSITE';
}

/**
 * Ad group fields from platform-neutral settings (only what the settings name). `locationIds`: the
 * region tool's ids for the targeting's countries, resolved by the adapter.
 */
export function adgroupFields(s: Record<string, unknown>, digits: number, locationIds?: string[]): TikTokParams {
  const t = s.targeting === undefined ? undefined : asRecord(s.targeting);
  const schedule = s.schedule === undefined ? undefined : asRecord(s.schedule);
  const promoted = asRecord(s.promotedObject);
  const goal = typeof s.optimizationGoal === 'string' ? (OPTIMIZATION_GOALS[s.optimizationGoal] ?? s.optimizationGoal) : undefined;
  const billing =
    goal && BILLING_FOR_GOAL[goal]
      ? BILLING_FOR_GOAL[goal]
      : typeof s.billingEvent === 'string'
        ? (BILLING_EVENTS[s.billingEvent] ?? s.billingEvent)
        : undefined;
  const cap = s.frequencyCap === undefined ? undefined : asRecord(s.frequencyCap);
  // AdgroupCreateBody conversion_bid_price: "Required when billing_event = OCPM and bid_type = BID_TYPE_CUSTOM".
  const bid = typeof s.bidAmount === 'number' ? minorToDecimal(s.bidAmount, digits) : undefined;
  return defined({
    ...placementFields(s.placements),
    location_ids: t ? (Array.isArray(t.locationIds) ? t.locationIds.map(String) : locationIds) : undefined,
    age_groups: t ? ageGroups(t.ageMin, t.ageMax) : undefined,
    gender: t ? genderOf(t.genders) : undefined,
    interest_category_ids: t?.interests,
    languages: t?.languages,
    audience_ids: t?.customAudiences,
    excluded_audience_ids: t?.excludedAudiences,
    schedule_type: schedule ? (schedule.endTime ? 'SCHEDULE_START_END' : 'SCHEDULE_FROM_NOW') : undefined,
    schedule_start_time: schedule ? tiktokTime(schedule.startTime) : undefined,
    schedule_end_time: schedule ? tiktokTime(schedule.endTime) : undefined,
    optimization_goal: goal,
    billing_event: billing,
    bid_type: s.bidAmount !== undefined ? 'BID_TYPE_CUSTOM' : undefined,
    bid_price: billing !== 'OCPM' ? bid : undefined,
    conversion_bid_price: billing === 'OCPM' ? bid : undefined,
    pixel_id: promoted.pixelId,
    optimization_event: promoted.customEventType,
    frequency: cap?.impressions,
    frequency_schedule: cap?.days,
  });
}

/**
 * The body of /campaign/create/. A campaign budget is campaign budget optimization (the campaign holds
 * the budget and its ad groups none); without one the ad groups hold theirs (BUDGET_MODE_INFINITE).
 */
export function campaignCreate(spec: ObjectSpec, digits: number): TikTokParams {
  const s = spec.settings ?? {};
  const objective = objectiveType(spec.objective);
  const cbo = Boolean(spec.budget);
  const industries = (Array.isArray(s.specialAdCategories) ? s.specialAdCategories.map(String) : []).filter((c) =>
    ['CREDIT', 'EMPLOYMENT', 'HOUSING'].includes(c),
  );
  // CampaignCreateBody budget_mode: "When Campaign Budget Optimization is enabled, only BUDGET_MODE_DAY is supported".
  if (spec.budget && spec.budget.period !== 'daily')
    throw new PlatformError('invalid_request', `TikTok campaign "${spec.name}" cannot hold a lifetime budget: budget optimization takes a daily one.`, {
      field: 'budget',
    });
  return {
    campaign_name: spec.name,
    objective_type: objective,
    // Allowlist-only: TikTok ignores it and starts the campaign ENABLE; finishPublish sets the status the launch gives.
    operation_status: operationStatus(spec.status),
    // Said explicitly: its documented default differs between the campaign and ad-group pages.
    budget_optimize_on: cbo,
    ...(cbo && CAMPAIGN_GOALS[objective] ? { optimization_goal: CAMPAIGN_GOALS[objective] } : {}),
    ...budgetFields(spec.budget, digits),
    // TikTok's ad categories (validation refuses ISSUES_ELECTIONS_POLITICS, which TikTok does not run).
    ...(industries.length ? { special_industries: industries } : {}),
    request_id: spec.marker,
    ...asRecord(s.platformFields),
  };
}

/** The body of /adgroup/create/ (parentId resolved, countries resolved to `locationIds`). */
export function adgroupCreate(spec: ObjectSpec, digits: number, locationIds?: string[], now = Date.now()): TikTokParams {
  const s = spec.settings ?? {};
  const fields = adgroupFields(s, digits, locationIds);
  const promotion = promotionType(spec.objective, asRecord(s.promotedObject));
  return {
    campaign_id: spec.parentId,
    adgroup_name: spec.name,
    // Created DISABLE whatever its status: its campaign is live from its create; finishPublish enables it.
    operation_status: 'DISABLE',
    placement_type: 'PLACEMENT_TYPE_AUTOMATIC',
    pacing: 'PACING_MODE_SMOOTH',
    optimization_goal: 'CLICK',
    billing_event: 'CPC',
    schedule_type: 'SCHEDULE_FROM_NOW',
    schedule_start_time: tiktokTime(new Date(now).toISOString()),
    // Required under campaign budget optimization; the lowest cost unless the ad set names a bid.
    bid_type: 'BID_TYPE_NO_BID',
    ...(promotion ? { promotion_type: promotion } : {}),
    ...(spec.budget ? budgetFields(spec.budget, digits) : {}),
    ...fields,
    request_id: spec.marker,
    ...asRecord(s.platformFields),
  };
}

/** The landing URL with the ad's URL tags carried in and `sub3=__CAMPAIGN_ID__` (TikTok's campaign id macro); its other parameters kept. */
export function landingUrl(link: string, urlTags?: unknown): string {
  const hashAt = link.indexOf('#');
  const hash = hashAt >= 0 ? link.slice(hashAt) : '';
  const base = hashAt >= 0 ? link.slice(0, hashAt) : link;
  const queryAt = base.indexOf('?');
  const path = queryAt >= 0 ? base.slice(0, queryAt) : base;
  const pairs = [
    ...(queryAt >= 0 ? base.slice(queryAt + 1).split('&') : []),
    ...(typeof urlTags === 'string' ? urlTags.replace(/^[?&]+/, '').split('&') : []),
  ].filter((p) => p && !/^sub3(=|$)/.test(p));
  return `${path}?${[...pairs, 'sub3=__CAMPAIGN_ID__'].join('&')}${hash}`;
}

/** Who an ad speaks as: what its settings say (the publish resolves them), else its account's. */
function identityOf(s: Record<string, unknown>, account: AdAccount | null): { identityId: string | null; identityType: string | null } {
  const id = s.identityId ?? account?.identityId ?? null;
  const type = s.identityType ?? account?.identityType ?? null;
  return { identityId: id === null ? null : String(id), identityType: type === null ? null : String(type) };
}

/**
 * The service's calls to action as TikTok names them (Appendix: Enumeration, call_to_action): TikTok has
 * no "get offer" and no button-less ad, so GET_OFFER becomes LEARN_MORE (TikTok's default) and NO_BUTTON
 * sends none.
 */
const CALLS_TO_ACTION: Record<string, string | undefined> = {
  DOWNLOAD: 'DOWNLOAD_NOW',
  WATCH_MORE: 'WATCH_NOW',
  GET_OFFER: 'LEARN_MORE',
  NO_BUTTON: undefined,
};

/** A call to action as TikTok names it (CALLS_TO_ACTION); undefined for NO_BUTTON. */
export function callToActionOf(value: unknown): unknown {
  return typeof value === 'string' && value in CALLS_TO_ACTION ? CALLS_TO_ACTION[value] : value;
}

/** A display name as sent: trimmed, never cut (validation refuses one over TikTok's 40, counted as TikTok counts); undefined when blank. */
export function displayNameOf(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  return value.trim() || undefined;
}

/** Creative fields of an ad from settings (only what the settings name). */
export function creativeFields(s: Record<string, unknown>): TikTokParams {
  return defined({
    identity_id: s.identityId,
    identity_type: s.identityType,
    display_name: displayNameOf(s.displayName),
    ad_text: s.primaryText ?? s.headline,
    call_to_action: callToActionOf(s.callToAction),
    landing_page_url: typeof s.linkUrl === 'string' ? landingUrl(s.linkUrl, s.urlTags) : undefined,
  });
}

/** The landing_page_url an ad's create would carry (its URL tags and sub3 in, `platformFields` last as in adCreative); undefined without one. */
export function landingPageOf(s: Record<string, unknown>): string | undefined {
  const url = { ...creativeFields(s), ...asRecord(s.platformFields) }.landing_page_url;
  return typeof url === 'string' ? url : undefined;
}

/** One entry of the `creatives` array of /ad/create/: its format from the uploaded creative, its identity, its landing URL with sub3. */
export function adCreative(spec: ObjectSpec, account: AdAccount | null = null): TikTokParams {
  const s = spec.settings ?? {};
  const creative = spec.creative;
  if (!creative)
    throw new PlatformError('invalid_request', `TikTok ad "${spec.name}" needs an image or a video: TikTok has no ad without one.`, { field: 'creativeId' });
  if (creative.type === 'video' && !creative.thumbnailRef)
    throw new PlatformError('invalid_request', `TikTok video ad "${spec.name}" needs the video's cover image.`, { field: 'creativeId' });
  const { identityId, identityType } = identityOf(s, account);
  if (!identityId || !identityType)
    throw new PlatformError('invalid_request', `TikTok ad "${spec.name}" needs an identity (identityId and identityType) to speak as.`, {
      field: 'identityId',
    });
  const fields = creativeFields(s);
  // AdcreateCreatives call_to_action: "For TikTok ads, either this field or call_to_action_id must be specified".
  if (fields.call_to_action === undefined)
    throw new PlatformError('invalid_request', `TikTok ad "${spec.name}" needs a call to action (callToAction other than NO_BUTTON).`, {
      field: 'callToAction',
    });
  // A landing-page ad shows a display name: the ad's, else its brand's (1-40 characters).
  const displayName = fields.landing_page_url === undefined ? undefined : (fields.display_name ?? displayNameOf(account?.brandName));
  if (fields.landing_page_url !== undefined && !displayName)
    throw new PlatformError('invalid_request', `TikTok ad "${spec.name}" links to a page and needs a display name (displayName, 1-40 characters).`, {
      field: 'displayName',
    });
  // Never cut: a name over TikTok's 40 (Chinese, Japanese and Korean characters counting two) is refused unsent.
  if (displayName && tiktokLength(String(displayName), 'name') > DISPLAY_NAME_MAX)
    throw new PlatformError(
      'invalid_request',
      `TikTok ad "${spec.name}" would show the display name "${String(displayName)}", ${tiktokLength(String(displayName), 'name')} characters as TikTok counts them; at most ${DISPLAY_NAME_MAX}.`,
      { field: 'displayName' },
    );
  // AdcreateCreatives identity_authorized_bc_id: "Required when identity_type is BC_AUTH_TT".
  if (identityType === 'BC_AUTH_TT' && !account?.identityBcId)
    throw new PlatformError('invalid_request', `TikTok ad "${spec.name}" runs as a BC_AUTH_TT identity, which needs its ad account's identityBcId.`, {
      field: 'identityId',
    });
  return {
    ad_name: spec.name,
    // Created DISABLE whatever its status: its campaign is live from its create; finishPublish enables it.
    operation_status: 'DISABLE',
    ...fields,
    ...(displayName ? { display_name: displayName } : {}),
    identity_id: identityId,
    identity_type: identityType,
    ...(identityType === 'BC_AUTH_TT' ? { identity_authorized_bc_id: account!.identityBcId } : {}),
    ...(creative.type === 'image'
      ? { ad_format: 'SINGLE_IMAGE', image_ids: [creative.ref] }
      : { ad_format: 'SINGLE_VIDEO', video_id: creative.ref, image_ids: [creative.thumbnailRef] }),
    ...asRecord(s.platformFields),
  };
}

/** A TikTok campaign as the port's campaign. */
export function toCampaign(raw: Record<string, unknown>, digits: number): PlatformCampaign {
  const mode = String(raw.budget_mode ?? 'BUDGET_MODE_INFINITE');
  const amount = raw.budget === undefined || raw.budget === null ? 0 : decimalToMinor(raw.budget as string | number, digits);
  const budget: Budget | null =
    amount > 0 && mode !== 'BUDGET_MODE_INFINITE' ? { period: mode === 'BUDGET_MODE_TOTAL' ? 'lifetime' : 'daily', amountMinorUnits: amount } : null;
  const secondary = raw.secondary_status === undefined ? undefined : String(raw.secondary_status);
  const status: PlatformStatus = secondary?.endsWith('_DELETE') ? 'DELETED' : raw.operation_status === 'ENABLE' ? 'ACTIVE' : 'PAUSED';
  return {
    id: String(raw.campaign_id),
    name: String(raw.campaign_name ?? ''),
    status,
    effectiveStatus: secondary ?? String(raw.operation_status ?? status),
    objective: String(raw.objective_type ?? ''),
    budget,
    budgetLevel: budget ? 'campaign' : 'adset',
    createdAt: isoTime(raw.create_time),
  };
}

/** TikTok's conversion events as its ad groups take them (optimization_event): what listOptions answers. */
export const CONVERSION_EVENTS: OptionItem[] = TIKTOK_EVENTS.map((id) => ({ id, name: id.toLowerCase().replace(/_/g, ' ') }));
