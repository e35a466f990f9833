// Launch validation of the TikTok rules of live-platforms.md, "More rules the platforms enforce", the
// same at preview and publish and in both modes: minimums per currency (../platforms/tiktok/budgets.ts;
// USD converted with FX_RATES only for a currency missing there; lifetime ones times the scheduled days), ages in TikTok's buckets, special industries' targeting, TikTok's own
// conversion events and where a pixel goes, reach frequency, the allowlisted placement, Business Center
// identities and text counted as TikTok counts it. What TikTok would widen, cut or drop is refused here.

import { moneyText, scheduledDays, type Warn } from './meta-rules.js';
import { MANUAL_CUTOFF, MANUAL_CUTOFF_OBJECTIVES, MANUAL_CUTOFF_WARN_FROM, RULE_SOURCES, type Say } from './rule-sources.js';
import { RULES } from './rules.js';
import type { NodeRow } from './store.js';
import { budgetOf } from './tree.js';
import { MIN_ADGROUP_USD, MIN_CAMPAIGN_USD, floorOrigin, type Floor } from '../platforms/tiktok/budgets.js';
import {
  ALLOWLISTED_PLACEMENT,
  PIXEL_OBJECTIVES,
  SPECIAL_INDUSTRIES,
  TIKTOK_EVENTS,
  TIKTOK_EVENT_FOR_META,
  FREQUENCY_DAYS_MAX,
  FREQUENCY_PER_DAY_MAX,
  NAME_MAX,
  ageRangeIssue,
  tiktokLength,
} from '../platforms/tiktok/rules.js';
import { hasEmoji } from '../platforms/text-limits.js';
import { DISPLAY_NAME_MAX } from '../platforms/tiktok/mapping.js';

type Issue = (field: string, message: string) => void;

/**
 * A campaign, ad group or ad name TikTok refuses (CampaignCreateBody campaign_name, AdgroupCreateBody
 * adgroup_name, AdcreateCreatives ad_name: "Character limit is 512 and cannot contain emoji"), counted as
 * TikTok counts names; never cut.
 */
function nameIssue(at: string, name: unknown, issue: Issue): void {
  if (typeof name !== 'string' || !name) return;
  if (hasEmoji(name)) issue(`${at}.name`, 'contains emoji, which TikTok refuses in campaign, ad group and ad names: remove them');
  else if (tiktokLength(name, 'name') > NAME_MAX)
    issue(
      `${at}.name`,
      `is ${tiktokLength(name, 'name')} characters as TikTok counts them (Chinese, Japanese and Korean characters count two); TikTok takes at most ${NAME_MAX}: shorten it`,
    );
}

/** A frequency cap TikTok refuses: days 1 to 7, impressions 1 to three times the days (AdgroupCreateBody frequency, frequency_schedule). */
function frequencyIssue(cap: { impressions?: unknown; days?: unknown }): string | null {
  const days = Number(cap.days);
  const impressions = Number(cap.impressions);
  if (!Number.isInteger(days) || days < 1 || days > FREQUENCY_DAYS_MAX) return `days is ${String(cap.days)}; TikTok takes 1 to ${FREQUENCY_DAYS_MAX}`;
  if (!Number.isInteger(impressions) || impressions < 1 || impressions > days * FREQUENCY_PER_DAY_MAX)
    return `impressions is ${String(cap.impressions)} in ${days} days; TikTok takes 1 to ${days * FREQUENCY_PER_DAY_MAX} (at most ${FREQUENCY_PER_DAY_MAX} a day)`;
  return null;
}

/** What the TikTok rules need to know of a campaign's ad account. */
export interface TikTokAccountView {
  id: string;
  currency: string;
  /** TikTok's floors in the account's minor units (its currency's, else USD at the FX_RATES rate); null where neither is known. */
  minimums: { adSet: Floor | null; campaign: Floor | null } | null;
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
  warn: Warn,
  say: Say,
): void {
  // Announced, not yet confirmed (live-platforms.md): from MANUAL_CUTOFF_WARN_FROM a warning, never a refusal.
  // A Smart+ campaign is where those objectives are said to move: it carries no such warning.
  if (
    campaign.properties.smartPlus !== true &&
    MANUAL_CUTOFF_OBJECTIVES.includes(campaign.properties.objective) &&
    now >= Date.parse(`${MANUAL_CUTOFF_WARN_FROM}T00:00:00Z`)
  )
    warn(
      `campaigns[${campaign.id}].objective`,
      `TikTok is reported to stop manual creation of ${campaign.properties.objective} campaigns on ${MANUAL_CUTOFF}, moving them to Smart+; a launch published after that date may be refused. Not confirmed by TikTok yet`,
      RULE_SOURCES.tiktokManualCutoff.source,
    );
  const objective: string | undefined = campaign.properties.objective;
  const currency = account?.currency ?? 'USD';
  const money = (minor: number) => moneyText(minor, currency);
  const own = budgetOf(campaign.properties);
  const campaignFloor = account?.minimums?.campaign ?? null;
  // Below the service's own floor (RULES) the budget is already refused; TikTok's minimum is said above it.
  if (own && campaignFloor && own.period === 'daily' && own.amountMinorUnits >= RULES.tiktok.minCampaignBudget && own.amountMinorUnits < campaignFloor.amount)
    issue(
      `campaigns[${campaign.id}].budget`,
      `is ${money(own.amountMinorUnits)} a day; TikTok's minimum for a campaign budget is ${money(campaignFloor.amount)} (${floorOrigin(campaignFloor, MIN_CAMPAIGN_USD, currency)}); raise it`,
    );
  const industries = (Array.isArray(campaign.properties.specialAdCategories) ? campaign.properties.specialAdCategories : []).filter((c: string) =>
    SPECIAL_INDUSTRIES.includes(c),
  );

  nameIssue(`campaigns[${campaign.id}]`, campaign.properties.name, issue);
  for (const s of adSets) {
    const at = `adSets[${s.id}]`;
    const p = s.properties;
    const t = p.targeting ?? {};
    nameIssue(at, p.name, issue);
    // AdgroupCreateBody bid_price, conversion_bid_price: "needs to be lower than budget set at the campaign level and ad group level".
    const daily = [budgetOf(p), own].filter((b) => b?.period === 'daily').map((b) => b!.amountMinorUnits);
    if (typeof p.bidAmount === 'number' && daily.some((d) => p.bidAmount >= d))
      issue(
        `${at}.bidAmount`,
        `is ${money(p.bidAmount)}; TikTok takes a bid lower than the ad group's and the campaign's daily budget (${money(Math.min(...daily))} here): lower the bid or raise the budget`,
      );
    const frequency = objective === 'REACH' && p.frequencyCap ? frequencyIssue(p.frequencyCap) : null;
    if (frequency) issue(`${at}.frequencyCap`, frequency);
    const budget = budgetOf(p);
    const floor = account?.minimums?.adSet ?? null;
    if (budget && floor && budget.amountMinorUnits >= RULES.tiktok.minAdSetBudget) {
      const days = budget.period === 'lifetime' ? scheduledDays(p.schedule, now) : 1;
      const origin = floorOrigin(floor, MIN_ADGROUP_USD, currency);
      if (days !== null && budget.amountMinorUnits < floor.amount * days)
        issue(
          `${at}.budget`,
          budget.period === 'daily'
            ? `is ${money(budget.amountMinorUnits)} a day; TikTok's minimum for an ad group is ${money(floor.amount)} a day (${origin}); raise it`
            : `is ${money(budget.amountMinorUnits)} for ${days} days; TikTok's lifetime minimum is ${money(floor.amount)} a day (${origin}), ${money(floor.amount * days)} in all; raise it or shorten the schedule`,
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
      say(
        `${at}.promotedObject`,
        `pixelId is for TikTok's web conversion, product sales and lead generation ad groups; objective ${objective ?? '(none)'} takes none: remove it`,
        RULE_SOURCES.tiktokPixelObjectives,
      );
    else if (objective === 'WEB_CONVERSIONS' && ['CONVERT', 'VALUE'].includes(p.optimizationGoal) && (!promoted.pixelId || !promoted.customEventType))
      issue(`${at}.promotedObject`, `needs pixelId and customEventType (a TikTok event such as SHOPPING) for optimizationGoal ${p.optimizationGoal}`);
    if (objective === 'REACH' && !p.frequencyCap)
      say(
        `${at}.frequencyCap`,
        'is required on TikTok for REACH: how many impressions per person in how many days, e.g. { impressions: 3, days: 7 }',
        RULE_SOURCES.tiktokReachFrequency,
      );
    // A Smart+ ad group's frequencyCap is refused as one Smart+ decides itself (smart-plus-rules.ts).
    else if (p.frequencyCap && objective !== 'REACH' && campaign.properties.smartPlus !== true)
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
      nameIssue(aat, ap.name, issue);
      const identityType = ap.identityType ?? (ap.identityId === undefined ? account?.identityType : null);
      if (identityType === 'BC_AUTH_TT' && !account?.identityBcId)
        issue(
          `${aat}.identityId`,
          `is a BC_AUTH_TT identity, which TikTok takes with its Business Center: set identityBcId on ad account ${account?.id ?? 'of this campaign'} (update-ad-account)`,
        );
      // A Smart+ ad shows its identity's name and takes no display name (smart-plus-rules.ts refuses one): these are about the classic ads.
      const classic = campaign.properties.smartPlus !== true;
      if (classic && typeof ap.displayName === 'string' && ap.displayName.trim() && tiktokLength(ap.displayName, 'name') > DISPLAY_NAME_MAX)
        issue(
          `${aat}.displayName`,
          `is ${tiktokLength(ap.displayName, 'name')} characters as TikTok counts them (Chinese, Japanese and Korean characters count two); at most ${DISPLAY_NAME_MAX}: shorten it`,
        );
      else if (classic && ap.displayName === undefined && ap.linkUrl && account?.brandName && tiktokLength(account.brandName, 'name') > DISPLAY_NAME_MAX)
        issue(
          `${aat}.displayName`,
          `is required: the brand's name, shown when an ad names none, is ${tiktokLength(account.brandName, 'name')} characters as TikTok counts them, over its ${DISPLAY_NAME_MAX}; set a shorter displayName`,
        );
      if (ap.multiAdvertiserAds !== undefined) issue(`${aat}.multiAdvertiserAds`, 'is a Meta setting; remove it for TikTok');
    }
  }
}
