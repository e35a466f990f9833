// TikTok's Upgraded Smart+ campaigns (live-platforms.md, "Automated campaigns"): a TikTok campaign node
// with `properties.smartPlus: true` is published through /smart_plus/campaign/, /smart_plus/adgroup/
// and /smart_plus/ad/ (create, update, status/update, get), whose bodies are described only by the SDK's
// yml_files/smart_plus_*.yml (tiktok/tiktok-business-api-sdk @f809c39). This module builds those bodies
// from the same specs the classic endpoints take, and says what Smart+ takes and what it decides itself:
//   - the campaign: a campaign budget is budget optimization with BUDGET_MODE_DYNAMIC_DAILY_BUDGET (daily)
//     or BUDGET_MODE_TOTAL (lifetime), the only valid keys of its budget_mode (BUDGET_MODE_DAY is not);
//     the objective is WEB_CONVERSIONS, LEAD_GENERATION or APP_PROMOTION (its objective_type);
//   - the ad group: its targeting travels in targeting_spec; placements are sent only when named
//     (else Smart+ places the ads itself); it has no frequency, frequency_schedule or pacing at create;
//   - the ad: one per create (no bulk creatives, no request_id), a video (creative_info.ad_format
//     SINGLE_VIDEO; no SINGLE_IMAGE), its texts, call to action and landing page as lists; no display name
//     (the identity's own name shows).
// request_id is read as an int64 (x-open-convert int64(%s)), so it is digits derived from the node id and
// the attempt: the same on a resent create, new for the next attempt.

import crypto from 'node:crypto';
import type { AdAccount, ObjectSpec } from '../port.js';
import { PlatformError } from '../port.js';
import { minorToDecimal } from '../live-http.js';
import type { TikTokParams } from './client.js';
import { adgroupFields, callToActionOf, landingUrl, objectiveType, promotionType, tiktokTime } from './mapping.js';

/** smart_plus_campaign_create.yml objective_type: its valid keys. */
export const SMART_PLUS_OBJECTIVES: readonly string[] = ['WEB_CONVERSIONS', 'LEAD_GENERATION', 'APP_PROMOTION'];

/** What an ad group property becomes in smart_plus_adgroup_create.yml targeting_spec (the classic body has them at its top). */
const TARGETING_SPEC = ['location_ids', 'age_groups', 'gender', 'interest_category_ids', 'languages', 'audience_ids', 'excluded_audience_ids'];

/**
 * The properties of the service that Smart+ does not take, each with why (the yml file that lacks its
 * field), for validation: a launch that names one would not run as written.
 */
export const SMART_PLUS_IGNORES: ReadonlyArray<{ level: 'adset' | 'ad'; property: string; why: string }> = [
  {
    level: 'adset',
    property: 'frequencyCap',
    why: 'Smart+ sets how often a person sees the ads itself: /smart_plus/adgroup/create/ takes no frequency or frequency_schedule (smart_plus_adgroup_create.yml)',
  },
  {
    level: 'ad',
    property: 'displayName',
    why: "a Smart+ ad shows its identity's own name: /smart_plus/ad/create/ takes no display_name (smart_plus_ad_create.yml)",
  },
];

/** Whether a spec belongs to a Smart+ campaign (the campaign's property, carried to its ad groups and ads by the publish). */
export function isSmartPlus(spec: Pick<ObjectSpec, 'settings'>): boolean {
  return spec.settings?.smartPlus === true;
}

/**
 * The create's request_id as Smart+ reads it (int64): 18 digits of the SHA-256 of the node id and, past
 * the first attempt, the attempt, so a resent create carries the same key and a new attempt a new one.
 */
export function smartPlusRequestId(spec: Pick<ObjectSpec, 'marker' | 'attempt'>): string {
  const key = spec.attempt && spec.attempt > 1 ? `${spec.marker}.${spec.attempt}` : spec.marker;
  const n = BigInt(`0x${crypto.createHash('sha256').update(key).digest('hex').slice(0, 15)}`);
  return (n % 10n ** 18n).toString().padStart(18, '1');
}

function asRecord(value: unknown): Record<string, unknown> {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** The body of /smart_plus/campaign/create/ (smart_plus_campaign_create.yml). */
export function smartCampaignCreate(spec: ObjectSpec, digits: number): TikTokParams {
  const s = spec.settings ?? {};
  const objective = objectiveType(spec.objective);
  if (!SMART_PLUS_OBJECTIVES.includes(objective))
    throw new PlatformError(
      'invalid_request',
      `TikTok Smart+ campaign "${spec.name}" cannot run objective ${objective}; Smart+ takes ${SMART_PLUS_OBJECTIVES.join(', ')}.`,
      {
        field: 'objective',
      },
    );
  const industries = (Array.isArray(s.specialAdCategories) ? s.specialAdCategories.map(String) : []).filter((c) =>
    ['CREDIT', 'EMPLOYMENT', 'HOUSING'].includes(c),
  );
  return {
    campaign_name: spec.name,
    objective_type: objective,
    // Created DISABLE: finishPublish enables it once everything under it exists.
    operation_status: 'DISABLE',
    budget_optimize_on: Boolean(spec.budget),
    ...(spec.budget
      ? {
          budget_mode: spec.budget.period === 'daily' ? 'BUDGET_MODE_DYNAMIC_DAILY_BUDGET' : 'BUDGET_MODE_TOTAL',
          budget: minorToDecimal(spec.budget.amountMinorUnits, digits),
        }
      : {}),
    ...(industries.length ? { special_industries: industries } : {}),
    request_id: smartPlusRequestId(spec),
    ...asRecord(s.platformFields),
  };
}

/** The body of /smart_plus/adgroup/create/ (parentId resolved, countries resolved to `locationIds`). */
export function smartAdgroupCreate(spec: ObjectSpec, digits: number, locationIds?: string[], now = Date.now()): TikTokParams {
  const s = spec.settings ?? {};
  const flat = adgroupFields(s, digits, locationIds);
  const targeting = Object.fromEntries(TARGETING_SPEC.filter((k) => flat[k] !== undefined).map((k) => [k, flat[k]]));
  const top = Object.fromEntries(Object.entries(flat).filter(([k]) => !TARGETING_SPEC.includes(k)));
  const promotion = promotionType(spec.objective, asRecord(s.promotedObject));
  return {
    campaign_id: spec.parentId,
    adgroup_name: spec.name,
    // Created DISABLE whatever its status; finishPublish enables it.
    operation_status: 'DISABLE',
    optimization_goal: 'CONVERT',
    billing_event: 'OCPM',
    schedule_type: 'SCHEDULE_FROM_NOW',
    schedule_start_time: tiktokTime(new Date(now).toISOString()),
    bid_type: 'BID_TYPE_NO_BID',
    ...(promotion ? { promotion_type: promotion } : {}),
    ...(spec.budget
      ? { budget_mode: spec.budget.period === 'daily' ? 'BUDGET_MODE_DAY' : 'BUDGET_MODE_TOTAL', budget: minorToDecimal(spec.budget.amountMinorUnits, digits) }
      : {}),
    ...top,
    targeting_spec: targeting,
    request_id: smartPlusRequestId(spec),
    ...asRecord(s.platformFields),
  };
}

/** A Smart+ ad's texts, call to action and landing page as smart_plus_ad_create.yml lists them (only what the settings name). */
export function smartAdFields(s: Record<string, unknown>): TikTokParams {
  const text = s.primaryText ?? s.headline;
  const cta = callToActionOf(s.callToAction);
  return {
    ...(typeof text === 'string' ? { ad_text_list: [{ ad_text: text }] } : {}),
    ...(typeof cta === 'string' ? { call_to_action_list: [{ call_to_action: cta }] } : {}),
    ...(typeof s.linkUrl === 'string' ? { landing_page_url_list: [{ landing_page_url: landingUrl(s.linkUrl, s.urlTags) }] } : {}),
  };
}

/** The body of /smart_plus/ad/create/: one ad, its video and identity in creative_list. */
export function smartAdCreate(spec: ObjectSpec, account: AdAccount | null = null): TikTokParams {
  const s = spec.settings ?? {};
  const creative = spec.creative;
  if (!creative || creative.type !== 'video')
    throw new PlatformError('invalid_request', `TikTok Smart+ ad "${spec.name}" needs a video: Smart+ ads are SINGLE_VIDEO (no single image).`, {
      field: 'creativeId',
    });
  const identityId = s.identityId ?? account?.identityId ?? null;
  const identityType = s.identityType ?? account?.identityType ?? null;
  if (!identityId || !identityType)
    throw new PlatformError('invalid_request', `TikTok ad "${spec.name}" needs an identity (identityId and identityType) to speak as.`, {
      field: 'identityId',
    });
  if (identityType === 'BC_AUTH_TT' && !account?.identityBcId)
    throw new PlatformError('invalid_request', `TikTok ad "${spec.name}" runs as a BC_AUTH_TT identity, which needs its ad account's identityBcId.`, {
      field: 'identityId',
    });
  return {
    adgroup_id: spec.parentId,
    ad_name: spec.name,
    // Created DISABLE whatever its status (its default is ENABLE); finishPublish enables it.
    operation_status: 'DISABLE',
    creative_list: [
      {
        creative_info: {
          ad_format: 'SINGLE_VIDEO',
          video_info: { video_id: creative.ref },
          identity_id: String(identityId),
          identity_type: String(identityType),
          ...(identityType === 'BC_AUTH_TT' ? { identity_authorized_bc_id: account!.identityBcId } : {}),
        },
      },
    ],
    ...smartAdFields(s),
    ...asRecord(s.platformFields),
  };
}
