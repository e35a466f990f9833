// What the sandbox refuses at create, because the real platforms refuse it (docs/platforms.md): an ad
// without its page (Meta) or identity (TikTok), a TikTok ad without its file, a creative reference
// the account never received, a budget at both levels or at neither, text over the platforms'
// limits, and countries that are not ISO 3166-1 alpha-2 codes; and what TikTok's Smart+ endpoints refuse
// (../tiktok/smart-plus.ts): an objective Smart+ does not run, an image ad, a property Smart+ does not take.

import { COPY_LIMITS, textLength } from '../text-limits.js';
import { ISO_COUNTRIES } from '../countries.js';
import { PlatformError, type Budget, type ObjectSpec, type PlatformName } from '../port.js';
import { SMART_PLUS_IGNORES, SMART_PLUS_OBJECTIVES, isSmartPlus } from '../tiktok/smart-plus.js';

const IDENTITY_TYPES = new Set(['CUSTOMIZED_USER', 'TT_USER', 'BC_AUTH_TT', 'AUTH_CODE']);

/** What the refusal of one spec may need to know about the platform's objects. */
export interface CreateFacts {
  /** Budget of each known campaign by id (null: its ad sets carry the budget). */
  campaignBudgets: Map<string, Budget | null>;
  /** Creative references the account holds. */
  creatives: Set<string>;
}

const refuse = (field: string, message: string) => new PlatformError('invalid_request', message, { field });

/** The countries of `countries` that are not ISO 3166-1 alpha-2 codes: the sandbox targets every real country. */
export function nonCountries(countries: string[]): string[] {
  return countries.filter((c) => !ISO_COUNTRIES.has(c));
}

/** Why TikTok's Smart+ endpoints would refuse `spec` (smart_plus_*_create.yml), or null. */
function smartPlusRefusal(spec: ObjectSpec): PlatformError | null {
  const s = spec.settings ?? {};
  if (spec.level === 'campaign' && spec.objective !== undefined && !SMART_PLUS_OBJECTIVES.includes(spec.objective))
    return refuse('objective', `objective_type: Must be one of ${SMART_PLUS_OBJECTIVES.join(', ')}.`);
  for (const rule of SMART_PLUS_IGNORES)
    if (rule.level === spec.level && s[rule.property] !== undefined) return refuse(rule.property, `Not sent to Smart+: ${rule.why}.`);
  if (spec.level === 'ad' && spec.creative?.type === 'image')
    return refuse('creativeId', 'creative_info.ad_format: Must be one of CAROUSEL_ADS, CATALOG_CAROUSEL, SINGLE_VIDEO.');
  return null;
}

/**
 * Why the platform would refuse to create `spec`, or null when it would take it. `smartPlusAllowed`: the
 * account is on TikTok's Smart+ allowlist (a Smart+ create for one that is not is refused as TikTok does).
 */
export function refusalOf(platform: PlatformName, spec: ObjectSpec, facts: CreateFacts, smartPlusAllowed = false): PlatformError | null {
  const s = spec.settings ?? {};
  if (platform === 'tiktok' && isSmartPlus(spec)) {
    if (!smartPlusAllowed) return refuse('smartPlus', 'No permission: this advertiser is not on the allowlist for Smart+.');
    const smart = smartPlusRefusal(spec);
    if (smart) return smart;
  }
  if (spec.level === 'adset') {
    const campaignBudget = spec.parentId ? facts.campaignBudgets.get(spec.parentId) : undefined;
    if (campaignBudget !== undefined) {
      if (campaignBudget && spec.budget) return refuse('budget', 'The campaign has a budget; its ad sets may not have one too (budget at one level).');
      if (!campaignBudget && !spec.budget) return refuse('budget', 'The campaign has no budget; each of its ad sets needs one.');
    }
    const countries = (s.targeting as { countries?: string[] } | undefined)?.countries ?? [];
    const unknown = nonCountries(countries);
    if (unknown.length) return refuse('targeting.countries', `Unknown country codes: ${unknown.join(', ')}.`);
    return null;
  }
  if (spec.level !== 'ad') return null;
  if (spec.creative && !facts.creatives.has(spec.creative.ref))
    return refuse('creative', `No creative ${spec.creative.ref} was uploaded to this ad account; upload it first.`);
  const text = (key: string) => (typeof s[key] === 'string' ? (s[key] as string) : undefined);
  if (platform === 'meta') {
    if (!text('pageId')) return refuse('pageId', 'object_story_spec needs page_id: the Facebook Page the ad runs as.');
    for (const [key, limit] of [
      ['headline', COPY_LIMITS.meta.headlines],
      ['primaryText', COPY_LIMITS.meta.primaryTexts],
      ['description', COPY_LIMITS.meta.descriptions],
    ] as const) {
      const value = text(key);
      if (value !== undefined && textLength(value) > limit) return refuse(key, `${key} is ${textLength(value)} characters; at most ${limit}.`);
    }
    return null;
  }
  if (!text('identityId') || !IDENTITY_TYPES.has(text('identityType') ?? ''))
    return refuse('identityId', 'identity_id and identity_type (CUSTOMIZED_USER, TT_USER, BC_AUTH_TT, AUTH_CODE) are required.');
  if (!spec.creative) return refuse('creative', 'A single-image or single-video ad needs its image_ids or video_id.');
  const adText = text('primaryText') ?? text('headline') ?? '';
  if (textLength(adText) < 1 || textLength(adText) > COPY_LIMITS.tiktok.primaryTexts)
    return refuse('primaryText', `ad_text must be 1 to ${COPY_LIMITS.tiktok.primaryTexts} characters.`);
  return null;
}
