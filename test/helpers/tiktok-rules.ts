// The TikTok rules the specifications leave out (docs/platforms.md, section 8), as launches that break one each: the same table is previewed in the sandbox
// (test/e2e/rest/launches.test.ts) and in live mode against the fake TikTok
// (test/e2e/rest/live-publish.test.ts), each refused with the same field and a message that says
// what to change.

import type { BuiltLaunch, TreeOptions } from './launch-builders.js';

type Over = { campaign?: Record<string, unknown>; adset?: Record<string, unknown>; ad?: Record<string, unknown> };

/** A TikTok traffic campaign with a campaign budget whose image ad runs outside TikTok's in-feed placement: valid as it is. */
export function tokTree(creativeId: number, over: Over = {}): TreeOptions {
  return {
    creativeId,
    campaign: { objective: 'TRAFFIC', budget: { dailyAmount: 5000 }, ...over.campaign },
    adset: { optimizationGoal: 'CLICK', placements: { positions: ['PLACEMENT_PANGLE'] }, ...over.adset },
    ...(over.ad ? { ad: over.ad } : {}),
  };
}

export interface TikTokRuleRow {
  what: string;
  /** The brand's platform (default tiktok): one row checks a TikTok field on a Meta ad. */
  platform?: 'meta';
  /**
   * The TikTok account the row runs on, when not the USD one: `yen`, a JPY account (FX_RATES JPY=0.0066, the
   * fake's rate too); `long-name`, a USD account whose brand's name is over TikTok's 40 display-name characters;
   * `gbp`, a GBP account (FX_RATES GBP=1.27, the fake's rate too).
   */
  on?: 'yen' | 'long-name' | 'gbp';
  tree: (creatives: { image: number }) => TreeOptions;
  fields: (b: BuiltLaunch) => string[];
  /** What every issue's message says (what to change). */
  says: RegExp;
}

export const TIKTOK_RULE_ROWS: TikTokRuleRow[] = [
  {
    what: 'a TikTok lifetime campaign budget (budget optimization takes a daily one)',
    tree: (c) =>
      tokTree(c.image, {
        campaign: { budget: { lifetimeAmount: 90000 } },
        adset: { schedule: { startTime: '2030-01-01T00:00:00Z', endTime: '2030-02-01T00:00:00Z' } },
      }),
    fields: (b) => [`campaigns[${b.campaignId}].budget`],
    says: /daily budget only: use budget\.dailyAmount/,
  },
  {
    what: 'a TikTok ad without a call to action',
    tree: (c) => tokTree(c.image, { ad: { callToAction: undefined } }),
    fields: (b) => [`ads[${b.adIds[0]}].callToAction`],
    says: /is required on TikTok: choose one, e\.g\. LEARN_MORE/,
  },
  {
    what: 'a TikTok ad with NO_BUTTON',
    tree: (c) => tokTree(c.image, { ad: { callToAction: 'NO_BUTTON' } }),
    fields: (b) => [`ads[${b.adIds[0]}].callToAction`],
    says: /no ad without a button: choose one/,
  },
  {
    what: 'a TikTok image ad in automatic placement (in-feed included)',
    tree: (c) => tokTree(c.image, { adset: { placements: undefined } }),
    fields: (b) => [`ads[${b.adIds[0]}].creativeId`],
    says: /use a video, or set the ad set's placements\.positions to PLACEMENT_PANGLE and\/or PLACEMENT_GLOBAL_APP_BUNDLE/,
  },
  {
    what: 'a TikTok image ad placed on PLACEMENT_TIKTOK',
    tree: (c) => tokTree(c.image, { adset: { placements: { positions: ['PLACEMENT_PANGLE', 'PLACEMENT_TIKTOK'] } } }),
    fields: (b) => [`ads[${b.adIds[0]}].creativeId`],
    says: /does not run in its in-feed placement/,
  },
  {
    what: 'a Meta position and an unknown one on a TikTok ad set',
    tree: (c) => tokTree(c.image, { adset: { placements: { positions: ['PLACEMENT_PANGLE', 'facebook:feed', 'PLACEMENT_MOON'] } } }),
    fields: (b) => [`adSets[${b.adsetId}].placements`],
    says: /^facebook:feed, PLACEMENT_MOON are not TikTok placements; use PLACEMENT_TIKTOK, PLACEMENT_PANGLE, PLACEMENT_GLOBAL_APP_BUNDLE/,
  },
  {
    what: 'a blank TikTok display name',
    tree: (c) => tokTree(c.image, { ad: { displayName: '   ' } }),
    fields: (b) => [`ads[${b.adIds[0]}].displayName`],
    says: /leave it out to show the brand's name/,
  },
  {
    what: 'a TikTok conversion campaign budget over an ad set that optimizes for VALUE (the campaign optimizes for CONVERT)',
    tree: (c) =>
      tokTree(c.image, {
        campaign: { objective: 'WEB_CONVERSIONS' },
        adset: { optimizationGoal: 'VALUE', promotedObject: { pixelId: 'px_1', customEventType: 'SHOPPING' } },
      }),
    fields: (b) => [`adSets[${b.adsetId}].optimizationGoal`],
    says: /^must be CONVERT: .* set it, or move the budget to the ad sets/,
  },
  {
    what: 'TikTok cities and an instant form, which the TikTok adapter cannot send',
    tree: (c) =>
      tokTree(c.image, {
        campaign: { objective: 'LEAD_GENERATION' },
        adset: { optimizationGoal: 'LEAD_GENERATION', targeting: { countries: ['US'], cities: ['London'] }, promotedObject: { leadFormId: 'form_1' } },
      }),
    fields: (b) => [`adSets[${b.adsetId}].targeting.cities`, `adSets[${b.adsetId}].promotedObject.leadFormId`],
    says: /remove/,
  },
  {
    what: 'a TikTok app promotion campaign (no app to name)',
    tree: (c) =>
      tokTree(c.image, { campaign: { objective: 'APP_PROMOTION', budget: undefined }, adset: { optimizationGoal: 'INSTALL', budget: { dailyAmount: 2000 } } }),
    fields: (b) => [`campaigns[${b.campaignId}].objective`],
    says: /choose another objective/,
  },
  // More rules the platforms enforce (live-platforms.md).
  {
    what: 'TikTok ages that are not a union of its age groups (20-40 would run as 18-44)',
    tree: (c) => tokTree(c.image, { adset: { targeting: { countries: ['US'], ageMin: 20, ageMax: 40 } } }),
    fields: (b) => [`adSets[${b.adsetId}].targeting`],
    says: /would run them as 18-44; set ageMin and ageMax to 25-34 or 18-44/,
  },
  {
    what: 'a TikTok HOUSING campaign whose ad group targets women only (TikTok would widen it)',
    tree: (c) => tokTree(c.image, { campaign: { specialAdCategories: ['HOUSING'] }, adset: { targeting: { countries: ['US'], genders: ['female'] } } }),
    fields: (b) => [`adSets[${b.adsetId}].targeting`],
    says: /TikTok widens the ad groups of a HOUSING campaign/,
  },
  {
    what: "Meta's name for an event on a TikTok conversion ad group",
    tree: (c) =>
      tokTree(c.image, {
        campaign: { objective: 'WEB_CONVERSIONS' },
        adset: { optimizationGoal: 'CONVERT', promotedObject: { pixelId: 'px_1', customEventType: 'PURCHASE' } },
      }),
    fields: (b) => [`adSets[${b.adsetId}].promotedObject`],
    says: /PURCHASE is not a TikTok event \(TikTok calls it SHOPPING\)/,
  },
  {
    what: 'a pixel on a TikTok traffic ad group',
    tree: (c) => tokTree(c.image, { adset: { promotedObject: { pixelId: 'px_1' } } }),
    fields: (b) => [`adSets[${b.adsetId}].promotedObject`],
    says: /objective TRAFFIC takes none: remove it/,
  },
  {
    what: 'a TikTok reach ad group without a frequency cap',
    tree: (c) => tokTree(c.image, { campaign: { objective: 'REACH', budget: undefined }, adset: { optimizationGoal: 'REACH', budget: { dailyAmount: 2000 } } }),
    fields: (b) => [`adSets[${b.adsetId}].frequencyCap`],
    says: /impressions per person/,
  },
  {
    what: 'a TikTok campaign budget under USD 50 (4999 cents)',
    tree: (c) => tokTree(c.image, { campaign: { budget: { dailyAmount: 4999 } } }),
    fields: (b) => [`campaigns[${b.campaignId}].budget`],
    says: /TikTok's minimum for a campaign budget is \$50\.00 \(TikTok's USD floor\); raise it/,
  },
  {
    what: 'a TikTok ad group budget under USD 20 (1999 cents)',
    tree: (c) => tokTree(c.image, { campaign: { budget: undefined }, adset: { budget: { dailyAmount: 1999 } } }),
    fields: (b) => [`adSets[${b.adsetId}].budget`],
    says: /TikTok's minimum for an ad group is \$20\.00 a day \(TikTok's USD floor\)/,
  },
  {
    what: 'a TikTok lifetime ad group budget under USD 20 times its 10 scheduled days (19999 cents)',
    tree: (c) =>
      tokTree(c.image, {
        campaign: { budget: undefined },
        adset: { budget: { lifetimeAmount: 19999 }, schedule: { startTime: '2030-01-01T00:00:00Z', endTime: '2030-01-11T00:00:00Z' } },
      }),
    fields: (b) => [`adSets[${b.adsetId}].budget`],
    says: /for 10 days; TikTok's lifetime minimum is \$20\.00 a day \(TikTok's USD floor\), \$200\.00 in all; raise it or shorten the schedule/,
  },
  {
    what: 'a TikTok BC_AUTH_TT identity on an account without its Business Center',
    tree: (c) => tokTree(c.image, { ad: { identityId: 'bc_idt_1', identityType: 'BC_AUTH_TT' } }),
    fields: (b) => [`ads[${b.adIds[0]}].identityId`],
    says: /set identityBcId on ad account/,
  },
  {
    what: 'a TikTok display name of 21 Chinese characters (42 as TikTok counts them)',
    tree: (c) => tokTree(c.image, { ad: { displayName: '春'.repeat(21) } }),
    fields: (b) => [`ads[${b.adIds[0]}].displayName`],
    says: /is 42 characters as TikTok counts them/,
  },
  {
    what: 'TikTok ad text of 51 Japanese characters (102 as TikTok counts them)',
    tree: (c) => tokTree(c.image, { ad: { primaryText: 'セ'.repeat(51) } }),
    fields: (b) => [`ads[${b.adIds[0]}].primaryText`],
    says: /is 102 characters as TikTok counts them/,
  },
  {
    what: 'a Meta multi-advertiser setting on a TikTok ad',
    tree: (c) => tokTree(c.image, { ad: { multiAdvertiserAds: true } }),
    fields: (b) => [`ads[${b.adIds[0]}].multiAdvertiserAds`],
    says: /is a Meta setting/,
  },
  {
    what: 'a Meta Advantage+ audience setting on a TikTok ad set',
    tree: (c) => tokTree(c.image, { adset: { advantageAudience: false } }),
    fields: (b) => [`adSets[${b.adsetId}].advantageAudience`],
    says: /is a Meta setting; tiktok has no Advantage\+ audience/,
  },
  {
    what: "a TikTok ad group budget of ¥2,499 on a yen account (the yen table's floor is ¥2,500)",
    on: 'yen',
    tree: (c) => tokTree(c.image, { campaign: { budget: undefined }, adset: { budget: { dailyAmount: 2499 } } }),
    fields: (b) => [`adSets[${b.adsetId}].budget`],
    says: /is ¥2,499 a day; TikTok's minimum for an ad group is ¥2,500 a day \(TikTok's JPY floor\)/,
  },
  {
    what: 'a TikTok campaign budget of ¥7,575 on a yen account (USD 50 is ¥7,576 at the FX_RATES rate: no yen campaign floor here)',
    on: 'yen',
    tree: (c) => tokTree(c.image, { campaign: { budget: { dailyAmount: 7575 } } }),
    fields: (b) => [`campaigns[${b.campaignId}].budget`],
    says: /TikTok's minimum for a campaign budget is ¥7,576 \(USD 50 at the FX_RATES rate: JPY is not in TikTok's currency table as the service keeps it\); raise it/,
  },
  {
    what: 'a TikTok ad group budget of £14.99 on a pound account (the pound table says GBP 15.00)',
    on: 'gbp',
    tree: (c) => tokTree(c.image, { campaign: { budget: undefined }, adset: { budget: { dailyAmount: 1499 } } }),
    fields: (b) => [`adSets[${b.adsetId}].budget`],
    says: /is £14\.99 a day; TikTok's minimum for an ad group is £15\.00 a day \(TikTok's GBP floor\)/,
  },
  {
    what: 'a TikTok display name of 21 Korean characters (42 as TikTok counts them in names)',
    tree: (c) => tokTree(c.image, { ad: { displayName: '봄'.repeat(21) } }),
    fields: (b) => [`ads[${b.adIds[0]}].displayName`],
    says: /is 42 characters as TikTok counts them \(Chinese, Japanese and Korean characters count two\)/,
  },
  {
    what: 'TikTok names with emoji (campaign, ad group, ad)',
    tree: (c) => tokTree(c.image, { campaign: { name: 'Spring 🌸' }, adset: { name: 'US 🔥' }, ad: { name: 'Hero ✨' } }),
    fields: (b) => [`campaigns[${b.campaignId}].name`, `adSets[${b.adsetId}].name`, `ads[${b.adIds[0]}].name`],
    says: /contains emoji, which TikTok refuses in campaign, ad group and ad names/,
  },
  {
    what: 'a TikTok ad group name of 257 Chinese characters (514 as TikTok counts them)',
    tree: (c) => tokTree(c.image, { adset: { name: '春'.repeat(257) } }),
    fields: (b) => [`adSets[${b.adsetId}].name`],
    says: /is 514 characters as TikTok counts them .* at most 512/,
  },
  {
    what: 'a TikTok reach frequency over three times its days (10 in 3 days)',
    tree: (c) =>
      tokTree(c.image, {
        campaign: { objective: 'REACH', budget: undefined },
        adset: { optimizationGoal: 'REACH', budget: { dailyAmount: 2000 }, frequencyCap: { impressions: 10, days: 3 } },
      }),
    fields: (b) => [`adSets[${b.adsetId}].frequencyCap`],
    says: /impressions is 10 in 3 days; TikTok takes 1 to 9/,
  },
  {
    what: "a TikTok bid at its ad group's daily budget",
    tree: (c) => tokTree(c.image, { campaign: { budget: undefined }, adset: { budget: { dailyAmount: 2500 }, bidAmount: 2500 } }),
    fields: (b) => [`adSets[${b.adsetId}].bidAmount`],
    says: /is \$25\.00; TikTok takes a bid lower than the ad group's and the campaign's daily budget \(\$25\.00 here\)/,
  },
  {
    what: "a TikTok bid above its campaign's daily budget",
    tree: (c) => tokTree(c.image, { campaign: { budget: { dailyAmount: 5000 } }, adset: { bidAmount: 6000 } }),
    fields: (b) => [`adSets[${b.adsetId}].bidAmount`],
    says: /lower than the ad group's and the campaign's daily budget \(\$50\.00 here\)/,
  },
  {
    what: "a TikTok ad without a display name whose brand's name is over TikTok's 40 characters (never cut)",
    on: 'long-name',
    tree: (c) => tokTree(c.image),
    fields: (b) => [`ads[${b.adIds[0]}].displayName`],
    says: /set a shorter displayName/,
  },
  {
    what: 'a TikTok display name on a Meta ad',
    platform: 'meta',
    tree: (c) => ({ creativeId: c.image, ad: { displayName: 'Shoes' } }),
    fields: (b) => [`ads[${b.adIds[0]}].displayName`],
    says: /is a TikTok field; remove it for meta/,
  },
];

/** Launches earlier rounds refused that TikTok takes: each previews valid, in the sandbox and live. */
export const TIKTOK_VALID_ROWS: Array<Pick<TikTokRuleRow, 'what' | 'on' | 'tree'>> = [
  {
    what: "a TikTok ad group budget of £15.00 a day on a pound account (the pound table's floor, not USD 20 converted)",
    on: 'gbp',
    tree: (c) => tokTree(c.image, { campaign: { budget: undefined }, adset: { budget: { dailyAmount: 1500 } } }),
  },
  {
    what: "a TikTok ad group budget of ¥2,500 a day on a yen account (the yen table's floor)",
    on: 'yen',
    tree: (c) => tokTree(c.image, { campaign: { budget: undefined }, adset: { budget: { dailyAmount: 2500 } } }),
  },
  {
    what: 'a pixel on a TikTok lead generation ad group (a website form)',
    tree: (c) =>
      tokTree(c.image, {
        campaign: { objective: 'LEAD_GENERATION', budget: undefined },
        adset: {
          optimizationGoal: 'LEAD_GENERATION',
          budget: { dailyAmount: 2000 },
          promotedObject: { pixelId: '7300000000000000001', customEventType: 'FORM' },
        },
      }),
  },
  {
    what: 'a headline of 150 characters TikTok never receives (the ad text is the primary text)',
    tree: (c) => tokTree(c.image, { ad: { headline: 'Spring sale '.repeat(13).slice(0, 150), primaryText: 'Up to 40% off' } }),
  },
  {
    what: 'a TikTok display name of 20 Korean characters (40 as TikTok counts them)',
    tree: (c) => tokTree(c.image, { ad: { displayName: '봄'.repeat(20) } }),
  },
  {
    what: 'a TikTok reach frequency of three times its days (21 in 7) and a bid below both budgets',
    tree: (c) =>
      tokTree(c.image, {
        campaign: { objective: 'REACH', budget: undefined },
        adset: { optimizationGoal: 'REACH', budget: { dailyAmount: 2000 }, frequencyCap: { impressions: 21, days: 7 }, bidAmount: 1999 },
      }),
  },
];

/** The brand (in the worlds of launches.test.ts and live-publish.test.ts) a row runs on. */
export function tokBrand(row: Pick<TikTokRuleRow, 'platform' | 'on'>): string {
  if (row.platform === 'meta') return 'shoes';
  return row.on === 'yen' ? 'tokyen' : row.on === 'long-name' ? 'toklong' : row.on === 'gbp' ? 'tokgbp' : 'tok';
}
