// Launch validation of the TikTok rules of live-platforms.md, "More rules the platforms enforce", the
// same at preview and publish and in both modes: minimums in USD converted with FX_RATES (lifetime ones
// times the scheduled days), ages in TikTok's buckets, special industries' targeting, TikTok's own
// conversion events and where a pixel goes, reach frequency, the allowlisted placement, Business Center
// identities and text counted as TikTok counts it. What TikTok would widen, cut or drop is refused here.

import { moneyText, scheduledDays } from './meta-rules.js';
import { RULES } from './rules.js';
import type { NodeRow } from './store.js';
import { budgetOf } from './tree.js';
import {
  ALLOWLISTED_PLACEMENT,
  MIN_ADGROUP_USD,
  MIN_CAMPAIGN_USD,
  PIXEL_OBJECTIVES,
  SPECIAL_INDUSTRIES,
  TIKTOK_EVENTS,
  TIKTOK_EVENT_FOR_META,
  ageRangeIssue,
  tiktokLength,
} from '../platforms/tiktok/rules.js';
import { DISPLAY_NAME_MAX } from '../platforms/tiktok/mapping.js';

type Issue = (field: string, message: string) => void;

/** What the TikTok rules need to know of a campaign's ad account. */
export interface TikTokAccountView {
  id: string;
  currency: string;
  /** TikTok's minimums in the account's minor units (FX_RATES); null when FX_RATES has no rate for its currency. */
  minimums: { adSet: number; campaign: number } | null;
  identityType: string | null;
  identityBcId: string | null;
  allowlisted: string[];
  /** The brand's name: a landing-page ad's display name when the ad names none. */
  brandName: string | null;
}

/** The TikTok rules of one campaign and what is under it. */
export function tiktokMoreIssues(
  campaign: NodeRow,
  adSets: NodeRow[],
  kids: Map<string | null, NodeRow[]>,
  account: TikTokAccountView | null,
  now: number,
  issue: Issue,
): void {
  const objective: string | undefined = campaign.properties.objective;
  const min = account?.minimums ?? null;
  const money = (minor: number) => moneyText(minor, account?.currency ?? 'USD');
  const own = budgetOf(campaign.properties);
  // Below the service's own floor (RULES) the budget is already refused; TikTok's minimum is said above it.
  if (own && min && own.period === 'daily' && own.amountMinorUnits >= RULES.tiktok.minCampaignBudget && own.amountMinorUnits < min.campaign)
    issue(
      `campaigns[${campaign.id}].budget`,
      `is ${money(own.amountMinorUnits)} a day; TikTok's minimum for a campaign budget is USD ${MIN_CAMPAIGN_USD}, ${money(min.campaign)} at the FX_RATES rate; raise it`,
    );
  const industries = (Array.isArray(campaign.properties.specialAdCategories) ? campaign.properties.specialAdCategories : []).filter((c: string) =>
    SPECIAL_INDUSTRIES.includes(c),
  );

  for (const s of adSets) {
    const at = `adSets[${s.id}]`;
    const p = s.properties;
    const t = p.targeting ?? {};
    const budget = budgetOf(p);
    if (budget && min && budget.amountMinorUnits >= RULES.tiktok.minAdSetBudget) {
      const days = budget.period === 'lifetime' ? scheduledDays(p.schedule, now) : 1;
      if (days !== null && budget.amountMinorUnits < min.adSet * days)
        issue(
          `${at}.budget`,
          budget.period === 'daily'
            ? `is ${money(budget.amountMinorUnits)} a day; TikTok's minimum for an ad group is USD ${MIN_ADGROUP_USD}, ${money(min.adSet)} at the FX_RATES rate; raise it`
            : `is ${money(budget.amountMinorUnits)} for ${days} days; TikTok's lifetime minimum is USD ${MIN_ADGROUP_USD} a day (${money(min.adSet)} at the FX_RATES rate), ${money(min.adSet * days)} in all; raise it or shorten the schedule`,
        );
    }
    const ages = ageRangeIssue(t.ageMin, t.ageMax);
    if (ages)
      issue(
        `${at}.targeting`,
        `ages ${t.ageMin ?? 18}-${t.ageMax ?? 'and over'} are not a union of TikTok's age groups (13-17, 18-24, 25-34, 35-44, 45-54, 55+): TikTok would run them as ${ages.runsAs}; ` +
          `set ageMin and ageMax to ${ages.inside ? `${ages.inside} or ` : ''}${ages.runsAs}`,
      );
    if (industries.length) {
      const narrowAges = (typeof t.ageMin === 'number' && t.ageMin !== 18) || (typeof t.ageMax === 'number' && t.ageMax < 65);
      const narrowGenders = Array.isArray(t.genders) && t.genders.length === 1;
      if (narrowAges || narrowGenders)
        issue(
          `${at}.targeting`,
          `TikTok widens the ad groups of a ${industries.join(', ')} campaign to ages 18 and over and all genders; target ageMin 18, no ageMax below 65 and both genders (or no genders), so it runs as written`,
        );
    }
    const promoted = p.promotedObject ?? {};
    if (promoted.customEventType !== undefined && !TIKTOK_EVENTS.includes(promoted.customEventType)) {
      const tiktok = TIKTOK_EVENT_FOR_META[promoted.customEventType];
      issue(
        `${at}.promotedObject`,
        `customEventType ${promoted.customEventType} is not a TikTok event${tiktok ? ` (TikTok calls it ${tiktok})` : ''}; use one of ${TIKTOK_EVENTS.join(', ')}`,
      );
    }
    if (promoted.pixelId !== undefined && !PIXEL_OBJECTIVES.includes(objective ?? ''))
      issue(`${at}.promotedObject`, `pixelId is for TikTok's web conversion ad groups; objective ${objective ?? '(none)'} takes none: remove it`);
    else if (objective === 'WEB_CONVERSIONS' && ['CONVERT', 'VALUE'].includes(p.optimizationGoal) && (!promoted.pixelId || !promoted.customEventType))
      issue(`${at}.promotedObject`, `needs pixelId and customEventType (a TikTok event such as SHOPPING) for optimizationGoal ${p.optimizationGoal}`);
    if (objective === 'REACH' && !p.frequencyCap)
      issue(`${at}.frequencyCap`, 'is required on TikTok for REACH: how many impressions per person in how many days, e.g. { impressions: 3, days: 7 }');
    else if (p.frequencyCap && objective !== 'REACH')
      issue(`${at}.frequencyCap`, `is for TikTok REACH ad groups; objective ${objective ?? '(none)'} takes none: remove it`);
    const positions: string[] = Array.isArray(p.placements?.positions) ? p.placements.positions : [];
    if (positions.includes(ALLOWLISTED_PLACEMENT) && !(account?.allowlisted ?? []).includes(ALLOWLISTED_PLACEMENT))
      issue(
        `${at}.placements`,
        `${ALLOWLISTED_PLACEMENT} is allowlist-only; ad account ${account?.id ?? 'of this campaign'} is not allowlisted for it (add it to allowlisted with update-ad-account once TikTok grants it), or remove it`,
      );
    for (const key of ['applicationId', 'objectStoreUrl'] as const)
      if (promoted[key] !== undefined) issue(`${at}.promotedObject.${key}`, 'is a Meta setting (app installs); remove it for TikTok');

    for (const a of kids.get(s.id) ?? []) {
      const aat = `ads[${a.id}]`;
      const ap = a.properties;
      const identityType = ap.identityType ?? (ap.identityId === undefined ? account?.identityType : null);
      if (identityType === 'BC_AUTH_TT' && !account?.identityBcId)
        issue(
          `${aat}.identityId`,
          `is a BC_AUTH_TT identity, which TikTok takes with its Business Center: set identityBcId on ad account ${account?.id ?? 'of this campaign'} (update-ad-account)`,
        );
      if (typeof ap.displayName === 'string' && ap.displayName.trim() && tiktokLength(ap.displayName) > DISPLAY_NAME_MAX)
        issue(
          `${aat}.displayName`,
          `is ${tiktokLength(ap.displayName)} characters as TikTok counts them (Chinese and Japanese characters count two); at most ${DISPLAY_NAME_MAX}: shorten it`,
        );
      else if (ap.displayName === undefined && ap.linkUrl && account?.brandName && tiktokLength(account.brandName) > DISPLAY_NAME_MAX)
        issue(
          `${aat}.displayName`,
          `is required: the brand's name, shown when an ad names none, is ${tiktokLength(account.brandName)} characters as TikTok counts them, over its ${DISPLAY_NAME_MAX}; set a shorter displayName`,
        );
      if (ap.multiAdvertiserAds !== undefined) issue(`${aat}.multiAdvertiserAds`, 'is a Meta setting; remove it for TikTok');
    }
  }
}
