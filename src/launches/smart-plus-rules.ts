// Launch validation of TikTok Smart+ campaigns (live-platforms.md, "Automated campaigns"), the same at
// preview and publish and in both modes: an ad account allowed Smart+ (smartPlusAllowed, bootstrap and
// update-ad-account), an objective Smart+ runs, video ads, and no property Smart+ would ignore (what it
// decides itself: ../platforms/tiktok/smart-plus.ts, SMART_PLUS_IGNORES, each with the yml file it comes
// from). A Smart+ setting on a Meta campaign is refused too.

import { RULES } from './rules.js';
import type { NodeRow } from './store.js';
import { SMART_PLUS_IGNORES, SMART_PLUS_OBJECTIVES } from '../platforms/tiktok/smart-plus.js';

type Issue = (field: string, message: string) => void;

/** Whether a campaign node asks for Smart+. */
export function smartPlusCampaign(campaign: NodeRow): boolean {
  return campaign.properties.smartPlus === true;
}

/**
 * The Smart+ rules of one TikTok campaign and what is under it. `account`: its ad account's id and
 * whether the account may use Smart+ (null when the campaign's account is not resolved).
 */
export function smartPlusIssues(
  campaign: NodeRow,
  adSets: NodeRow[],
  kids: Map<string | null, NodeRow[]>,
  account: { id: string; smartPlusAllowed: boolean } | null,
  imageCreativeIds: Set<number> | undefined,
  issue: Issue,
): void {
  if (!smartPlusCampaign(campaign)) return;
  const at = `campaigns[${campaign.id}]`;
  if (account && !account.smartPlusAllowed)
    issue(
      `${at}.smartPlus`,
      `ad account ${account.id} may not use TikTok Smart+ (smartPlusAllowed is not set): set smartPlusAllowed on it with update-ad-account once TikTok has allowlisted the advertiser, or remove smartPlus`,
    );
  const objective: unknown = campaign.properties.objective;
  // An objective TikTok has no such name for, or APP_PROMOTION (no app to name), is refused on its own already.
  if (typeof objective === 'string' && RULES.tiktok.goals[objective] && objective !== 'APP_PROMOTION' && !SMART_PLUS_OBJECTIVES.includes(objective))
    issue(
      `${at}.objective`,
      `${objective} is not a Smart+ objective: Smart+ runs ${SMART_PLUS_OBJECTIVES.filter((o) => o !== 'APP_PROMOTION').join(' and ')} campaigns here (smart_plus_campaign_create.yml objective_type); choose one, or remove smartPlus`,
    );
  for (const s of adSets) {
    for (const rule of SMART_PLUS_IGNORES.filter((r) => r.level === 'adset'))
      if (s.properties[rule.property] !== undefined) issue(`adSets[${s.id}].${rule.property}`, `is not sent to a Smart+ ad group: ${rule.why}; remove it`);
    for (const a of kids.get(s.id) ?? []) {
      for (const rule of SMART_PLUS_IGNORES.filter((r) => r.level === 'ad'))
        if (a.properties[rule.property] !== undefined) issue(`ads[${a.id}].${rule.property}`, `is not sent to a Smart+ ad: ${rule.why}; remove it`);
      if (typeof a.properties.creativeId === 'number' && imageCreativeIds?.has(a.properties.creativeId))
        issue(
          `ads[${a.id}].creativeId`,
          'is an image; a Smart+ ad is a video (smart_plus_ad_create.yml ad_format: SINGLE_VIDEO or carousels, no single image): attach a video creative',
        );
    }
  }
}

/** A Smart+ setting on a campaign of another platform, which would be dropped. */
export function smartPlusElsewhere(campaign: NodeRow, platform: string, issue: Issue): void {
  if (campaign.properties.smartPlus !== undefined)
    issue(
      `campaigns[${campaign.id}].smartPlus`,
      `is a TikTok setting; ${platform === 'meta' ? "Meta's own automated campaigns are Advantage+ ones (a campaign budget, Advantage+ audience and automatic placements)" : `${platform} has no Smart+`}: remove it`,
    );
}
