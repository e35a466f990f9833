// Meta Advantage+ campaigns (live-platforms.md, "Automated campaigns"): what makes a Meta campaign one,
// lever by lever, as a launch's preview shows it (`plan.campaigns[].advantagePlus`, the same in both
// modes: it is computed from the launch alone), and Meta's own word on a live campaign
// (`advantage_state_info`, read with the campaign where the called Graph version has it).
//
// Sources: Meta "Advantage+ Campaign Experience for Sales, App, and Leads"
// (https://developers.facebook.com/documentation/ads-commerce/marketing-api/advantage-campaigns): "Beginning
// with v25.0, you will no longer be able to use the Advantage+ shopping campaign (ASC) API with the
// smart_promotion_type=AUTOMATED_SHOPPING_ADS field ... or the Advantage+ app campaign API with the
// smart_promotion_type=SMART_APP_PROMOTION field ... Instead, you will need to create campaigns with
// Advantage+ audience, Advantage+ campaign budget, and Advantage+ placements to create campaigns with an
// advantage_state that reflects the type of Advantage+ campaign"; the guide creates them "with
// advantage_state set to advantage_plus_sales or advantage_plus_app" (and leads); Meta blog "Advantage+
// campaign experience for sales and app" (2025-06-03). The field: codegen api_specs Campaign
// `advantage_state_info` (type AdCampaignGroupAdvantageState: advantage_state, advantage_budget_state,
// advantage_audience_state, advantage_placement_state, strings; @ad2b0b6, v25.0), first generated in
// facebook-nodejs-business-sdk 22.0.1 (@ea09752, 2025-03-28, API version v22.0). The legacy
// `smart_promotion_type` is never sent (./ledger.ts, META_NEVER_SENT).

import { advantageAudienceFlag } from './rules.js';

/** Meta's advantage_state of an Advantage+ campaign, by the campaign's objective (the guide covers these three). */
export const ADVANTAGE_STATE_OF_OBJECTIVE: Readonly<Record<string, string>> = {
  OUTCOME_SALES: 'ADVANTAGE_PLUS_SALES',
  OUTCOME_APP_PROMOTION: 'ADVANTAGE_PLUS_APP',
  OUTCOME_LEADS: 'ADVANTAGE_PLUS_LEADS',
};

/** The advantage_state of a campaign that is not an Advantage+ campaign. */
export const NOT_ADVANTAGE = 'DISABLED';

/** The first Graph version whose Campaign has `advantage_state_info` (Node SDK 22.0.1, API version v22.0). */
export const ADVANTAGE_STATE_SINCE_MAJOR = 22;

/** Meta's `advantage_state_info` as read on a campaign (AdCampaignGroupAdvantageState). */
export interface AdvantageStateInfo {
  advantage_state: string;
  advantage_budget_state: string;
  advantage_audience_state: string;
  advantage_placement_state: string;
}

/** One Advantage+ lever of a campaign: whether the launch turns it on, and a sentence saying why (and, off, what turns it on). */
export interface AdvantageLever {
  on: boolean;
  why: string;
}

/** What a preview says of a Meta campaign: whether it will be an Advantage+ campaign, the state Meta will report, and each lever. */
export interface AdvantagePlusView {
  on: boolean;
  /** The advantage_state Meta is expected to report once it is published (advantage_state_info.advantage_state). */
  state: string;
  levers: { budget: AdvantageLever; audience: AdvantageLever; placements: AdvantageLever };
  why: string;
}

/** An ad set as the levers read it: its node id, name and properties. */
export interface AdvantageAdSet {
  id: string;
  name: string | null;
  properties: Record<string, unknown>;
}

/** Whether an ad set's placements narrow where its ads run (named positions, automatic not said): Meta's automatic placements are off. */
function narrowsPlacements(properties: Record<string, unknown>): boolean {
  const p = properties.placements as { automatic?: unknown; positions?: unknown } | undefined;
  return Boolean(p) && p!.automatic !== true && Array.isArray(p!.positions) && p!.positions.length > 0;
}

/** Ad sets as the subject of a sentence: `ad set nd_1 (US broad)`, `ad sets nd_1 (US broad), nd_2`. */
function named(sets: AdvantageAdSet[]): string {
  const shown = sets.slice(0, 5).map((s) => (s.name ? `${s.id} (${s.name.length > 60 ? `${s.name.slice(0, 59)}…` : s.name})` : s.id));
  const list = sets.length > 5 ? `${shown.join(', ')} and ${sets.length - 5} more` : shown.join(', ');
  return `${sets.length > 1 ? 'ad sets' : 'ad set'} ${list}`;
}

/** The budget lever: Advantage+ campaign budget, a budget on the campaign (its ad sets then carry none). */
function budgetLever(budget: { period: string } | null): AdvantageLever {
  return budget
    ? { on: true, why: `the campaign holds the budget (${budget.period}): Advantage+ campaign budget` }
    : {
        on: false,
        why: "the budget is on the ad sets, not the campaign: move it to the campaign's budget (dailyAmount or lifetimeAmount) and take it off the ad sets",
      };
}

/** The audience lever: Advantage+ audience (targeting_automation.advantage_audience 1) on every ad set. */
function audienceLever(adSets: AdvantageAdSet[]): AdvantageLever {
  if (!adSets.length) return { on: false, why: 'the campaign has no ad set yet: add one with Advantage+ audience' };
  const off = adSets.filter((s) => advantageAudienceFlag(s.properties) === 0);
  if (!off.length) return { on: true, why: 'every ad set has Advantage+ audience (targeting_automation.advantage_audience 1)' };
  return {
    on: false,
    why:
      `${named(off)} ${off.length > 1 ? 'run' : 'runs'} without Advantage+ audience (advantageAudience false, or targeting that narrows ages, genders, interests or custom audiences): ` +
      `set advantageAudience true on ${off.length > 1 ? 'them where their' : 'it where its'} targeting allows`,
  };
}

/** The placements lever: Advantage+ (automatic) placements on every ad set, no position named. */
function placementsLever(adSets: AdvantageAdSet[]): AdvantageLever {
  if (!adSets.length) return { on: false, why: 'the campaign has no ad set yet: add one with automatic placements' };
  const off = adSets.filter((s) => narrowsPlacements(s.properties));
  if (!off.length) return { on: true, why: 'every ad set uses automatic placements (no position named)' };
  return {
    on: false,
    why: `${named(off)} ${off.length > 1 ? 'name their' : 'names its'} placements: set placements.automatic true (or leave placements out) for Advantage+ placements`,
  };
}

/**
 * Whether a Meta campaign will be an Advantage+ campaign, from the launch: a campaign budget, Advantage+
 * audience on every ad set and automatic placements, for an objective the Advantage+ campaign experience
 * covers (sales, app promotion, leads). Each lever says whether it is on and what would turn it on.
 */
export function advantagePlusOf(objective: string | undefined, budget: { period: string } | null, adSets: AdvantageAdSet[]): AdvantagePlusView {
  const levers = { budget: budgetLever(budget), audience: audienceLever(adSets), placements: placementsLever(adSets) };
  const allOn = levers.budget.on && levers.audience.on && levers.placements.on;
  const typed = objective ? ADVANTAGE_STATE_OF_OBJECTIVE[objective] : undefined;
  const on = allOn && typed !== undefined;
  const offNames = (Object.keys(levers) as Array<keyof typeof levers>).filter((k) => !levers[k].on);
  const why = on
    ? `an Advantage+ campaign (${typed}): campaign budget, Advantage+ audience and automatic placements are all on`
    : !typed
      ? `not an Advantage+ campaign: Meta's Advantage+ campaigns are sales, app promotion and leads campaigns (OUTCOME_SALES, OUTCOME_APP_PROMOTION, OUTCOME_LEADS), this one is ${objective ?? 'without an objective'}`
      : `not an Advantage+ campaign: ${offNames.length > 1 ? `${offNames.slice(0, -1).join(', ')} and ${offNames[offNames.length - 1]} are` : `${offNames[0]} is`} off (see levers)`;
  return { on, state: on ? typed! : NOT_ADVANTAGE, levers, why };
}

/** `advantage_state_info` from a Graph campaign, when Meta answered one (all four states as strings), else null. */
export function advantageStateInfoOf(raw: unknown): AdvantageStateInfo | null {
  if (!raw || typeof raw !== 'object') return null;
  const r = raw as Record<string, unknown>;
  const keys = ['advantage_state', 'advantage_budget_state', 'advantage_audience_state', 'advantage_placement_state'] as const;
  if (!keys.every((k) => typeof r[k] === 'string')) return null;
  return Object.fromEntries(keys.map((k) => [k, r[k]])) as unknown as AdvantageStateInfo;
}
