// How sure a rule is (live-platforms.md, "How sure a rule is"): each rule below names its source and
// whether that source is the platform's own (its SDKs, specifications, reference pages, changelogs).
// A rule whose sources are the platform's own refuses at preview. A rule whose only source is a third
// party (an integration's issue, another tool's matrix) is a warning where the platform itself is asked
// (a live Meta preview or publish: validate_only decides), and a refusal elsewhere (TikTok, the sandbox)
// whose message says so. Announced changes no platform page confirms yet are warnings until one does.

/** Where a rule comes from. */
export interface RuleSource {
  source: string;
  /** The platform's own page, specification, SDK or changelog (true), or only a third party's report (false). */
  own: boolean;
}

/** The rules of launch validation that name their source, by name. */
export const RULE_SOURCES = {
  metaConversionEvent: {
    source: 'pipeboard meta-ads-mcp issue 140 (third party: Meta refused an OFFSITE_CONVERSIONS ad set without custom_event_type, subcode 1885154)',
    own: false,
  },
  metaConversionPixel: { source: 'Meta AdSet promoted_object reference; error subcode 1815430 "Please select a promoted object"', own: true },
  metaSanctioned: { source: "Meta's sanctioned-countries policy (Advertising Standards); lfx-self-serve PR 1644", own: true },
  metaSyria: {
    source: 'lfx-self-serve PR 1644 (third party: Meta sanctioned-countries list); US Treasury Syria sanctions lifted 2025; no Meta page says',
    own: false,
  },
  tiktokReachFrequency: {
    source: 'amekala ads-mcp validity matrix (third party: TikTok REACH ad groups need frequency and frequency_schedule)',
    own: false,
  },
  tiktokPixelObjectives: {
    source: 'amekala ads-mcp validity matrix (third party: which TikTok objectives take pixel_id); smart_plus yml optimization_event @f809c39',
    own: false,
  },
  tiktokManualCutoff: {
    source:
      'third-party articles and tool descriptions (2026-11): TikTok to stop manual creation (/campaign/create/, /adgroup/create/, /ad/create/) for these objectives on 2026-12-31; no TikTok page or SDK commit confirms it yet',
    own: false,
  },
} satisfies Record<string, RuleSource>;

/** The objectives TikTok is reported to move to Smart+ on MANUAL_CUTOFF, and when the warning starts. */
export const MANUAL_CUTOFF_OBJECTIVES: readonly string[] = ['WEB_CONVERSIONS', 'LEAD_GENERATION', 'APP_PROMOTION', 'PRODUCT_SALES'];
export const MANUAL_CUTOFF = '2026-12-31';
export const MANUAL_CUTOFF_WARN_FROM = '2026-12-01';

/** How a broken rule is said: a refusal, or a warning with its source. */
export type Say = (field: string, message: string, rule: RuleSource) => void;

/**
 * The `Say` of one platform: a rule whose sources are the platform's own refuses; a third-party-only one
 * warns where the platform is asked (`asked`), else refuses with a message saying its source is a third party.
 */
export function sayer(issue: (field: string, message: string) => void, warn: (field: string, message: string, source: string) => void, asked: boolean): Say {
  return (field, message, rule) => {
    if (rule.own) issue(field, message);
    else if (asked) warn(field, `${message} (the platform decides when asked: this rule's only source is a third party)`, rule.source);
    else issue(field, `${message} (this rule's only source is a third party: ${rule.source})`);
  };
}
