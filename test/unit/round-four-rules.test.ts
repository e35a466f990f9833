// The rules of live-platforms.md, "More rules the platforms enforce", as launch validation checks
// them (the same in both modes; the e2e tests run them over REST in each) and as the adapters' pure
// mappings send them: one row per rule, each naming its field and what to change.

import { expect } from 'chai';
import { createParams, propertyOfGraphField } from '../../src/platforms/meta/mapping.js';
import { adgroupFields } from '../../src/platforms/tiktok/mapping.js';
import { ageGroupsOf, ageRangeIssue, tiktokLength, usdMinimumIn } from '../../src/platforms/tiktok/rules.js';
import { billingEventsFor, euPlaces, sandboxMinimums } from '../../src/platforms/meta/rules.js';
import { parseFxRates } from '../../src/money/fx-rates.js';
import { tiktokFloors } from '../../src/platforms/tiktok/budgets.js';
import { validateLaunch, type ValidationContext } from '../../src/launches/validate.js';
import type { NodeRow } from '../../src/launches/store.js';
import type { PlatformName } from '../../src/platforms/port.js';

const NOW = Date.parse('2029-12-01T00:00:00Z');

const node = (id: string, nodeType: NodeRow['nodeType'], parentId: string | null, properties: Record<string, unknown>): NodeRow => ({
  id,
  launchId: 1,
  parentId,
  nodeType,
  accountId: null,
  name: null,
  properties,
  platformId: null,
  status: 'draft',
  createdAt: 0,
  updatedAt: 0,
});

function context(platform: PlatformName, over: Partial<ValidationContext> = {}, speaker: Record<string, unknown> = {}): ValidationContext {
  return {
    accounts: new Map([['acc', platform]]),
    speakers: new Map([['acc', { pageId: 'pg', instagramUserId: null, identityId: 'idt', identityType: 'CUSTOMIZED_USER', ...speaker }]]),
    unknownCountries: new Map(),
    defaultAccountId: 'acc',
    creativeIds: new Set([1]),
    imageCreativeIds: new Set(),
    trackerConnected: false,
    now: NOW,
    graphVersion: 'v26.0',
    metaFacts: new Map([
      [
        'acc',
        {
          minimumBudgets: sandboxMinimums('USD'),
          bidMinimums: new Map([[300, sandboxMinimums('USD', 300)]]),
          dsaBeneficiary: null,
          dsaPayor: null,
          cityCountries: new Map([['2418956', 'DE']]),
          currency: 'USD',
        },
      ],
    ]),
    tiktokCurrencies: new Map([['acc', 'JPY']]),
    tiktokMinimums: new Map([['acc', tiktokFloors('JPY', parseFxRates('JPY=0.0066'))]]),
    brandName: 'Shoes Co',
    ...over,
  };
}

const meta = (adset: Record<string, unknown>, campaign: Record<string, unknown> = {}, ad: Record<string, unknown> = {}): NodeRow[] => [
  node('c', 'campaign', null, { name: 'C', objective: 'OUTCOME_TRAFFIC', budget: { dailyAmount: 5000 }, ...campaign }),
  node('s', 'adset', 'c', { name: 'S', optimizationGoal: 'LINK_CLICKS', billingEvent: 'IMPRESSIONS', targeting: { countries: ['US'] }, ...adset }),
  node('a', 'ad', 's', { name: 'A', creativeId: 1, linkUrl: 'https://shop.example.com/', headline: 'H', primaryText: 'P', ...ad }),
];

/** A TikTok traffic tree on a yen account (minimums ¥2,500 an ad group from the yen table, ¥7,576 a campaign: USD 50 at JPY=0.0066), valid as it is. */
const tok = (adset: Record<string, unknown>, campaign: Record<string, unknown> = {}, ad: Record<string, unknown> = {}): NodeRow[] => [
  node('c', 'campaign', null, { name: 'C', objective: 'TRAFFIC', budget: { dailyAmount: 8000 }, ...campaign }),
  node('s', 'adset', 'c', {
    name: 'S',
    optimizationGoal: 'CLICK',
    targeting: { countries: ['US'] },
    placements: { positions: ['PLACEMENT_PANGLE'] },
    ...adset,
  }),
  node('a', 'ad', 's', { name: 'A', creativeId: 1, linkUrl: 'https://shop.example.com/', primaryText: 'P', callToAction: 'SHOP_NOW', ...ad }),
];

const issuesOf = (nodes: NodeRow[], ctx: ValidationContext) => validateLaunch(nodes, ctx).issues;

interface Row {
  rule: string;
  platform: PlatformName;
  nodes: NodeRow[];
  ctx?: ValidationContext;
  field: string;
  says: RegExp;
}

const rows: Row[] = [
  {
    rule: "Meta: a goal that is not Meta's (APP_EVENTS)",
    platform: 'meta',
    nodes: meta(
      { optimizationGoal: 'APP_EVENTS', promotedObject: { applicationId: '1', objectStoreUrl: 'https://apps.example.com/x' } },
      { objective: 'OUTCOME_APP_PROMOTION' },
    ),
    field: 'adSets[s].optimizationGoal',
    says: /use one of APP_INSTALLS/,
  },
  {
    rule: 'Meta: a billing event the goal does not take',
    platform: 'meta',
    nodes: meta({ optimizationGoal: 'LANDING_PAGE_VIEWS', billingEvent: 'LINK_CLICKS' }),
    field: 'adSets[s].billingEvent',
    says: /use IMPRESSIONS$/,
  },
  {
    rule: 'Meta: a conversion goal without its event',
    platform: 'meta',
    nodes: meta({ optimizationGoal: 'OFFSITE_CONVERSIONS', promotedObject: { pixelId: '1' } }, { objective: 'OUTCOME_SALES' }),
    field: 'adSets[s].promotedObject',
    says: /missing customEventType/,
  },
  {
    rule: 'Meta: app installs without the app',
    platform: 'meta',
    nodes: meta({ optimizationGoal: 'APP_INSTALLS' }, { objective: 'OUTCOME_APP_PROMOTION' }),
    field: 'adSets[s].promotedObject',
    says: /applicationId and objectStoreUrl/,
  },
  {
    rule: 'Meta: post engagement without a page',
    platform: 'meta',
    nodes: meta({ optimizationGoal: 'POST_ENGAGEMENT' }, { objective: 'OUTCOME_ENGAGEMENT' }, { pageId: 'pg_ad' }),
    ctx: context('meta', {}, { pageId: null }),
    field: 'adSets[s].promotedObject.pageId',
    says: /POST_ENGAGEMENT/,
  },
  {
    rule: 'Meta: a bid cap without a bid',
    platform: 'meta',
    nodes: meta({}, { bidStrategy: 'LOWEST_COST_WITH_BID_CAP' }),
    field: 'adSets[s].bidAmount',
    says: /LOWEST_COST_WITH_BID_CAP/,
  },
  {
    rule: 'Meta: the minimum with a manual bid (five bids a day in the sandbox)',
    platform: 'meta',
    nodes: meta({ bidAmount: 300, budget: { dailyAmount: 1000 } }, { budget: undefined, bidStrategy: 'COST_CAP' }),
    field: 'adSets[s].budget',
    says: /with a bid of \$3\.00 .* is \$15\.00/,
  },
  {
    rule: 'Meta: ageMax over 65',
    platform: 'meta',
    nodes: meta({ targeting: { countries: ['US'], ageMax: 70 } }),
    field: 'adSets[s].targeting.ageMax',
    says: /use 65/,
  },
  {
    rule: 'Meta: Advantage+ audience with ages beyond the limits it keeps',
    platform: 'meta',
    nodes: meta({ advantageAudience: true, targeting: { countries: ['US'], ageMin: 30 } }),
    field: 'adSets[s].advantageAudience',
    says: /ageMin 18 to 25, ageMax 65/,
  },
  {
    rule: 'Meta: an outermost region without the DSA names',
    platform: 'meta',
    nodes: meta({ targeting: { countries: ['RE'] } }),
    field: 'adSets[s].targeting.countries',
    says: /RE is in the EU or its territories/,
  },
  {
    rule: 'Meta: a city in the EU without the DSA names',
    platform: 'meta',
    nodes: meta({ targeting: { cities: ['2418956'] } }),
    field: 'adSets[s].targeting.countries',
    says: /2418956 is in the EU/,
  },
  {
    rule: 'Meta: a sanctioned country',
    platform: 'meta',
    nodes: meta({ targeting: { countries: ['US', 'CU'] } }),
    field: 'adSets[s].targeting.countries',
    says: /does not serve ads in CU/,
  },
  {
    rule: "Meta: Taiwan without the account's verified identities for it",
    platform: 'meta',
    nodes: meta({ targeting: { countries: ['TW'] } }),
    field: 'adSets[s].targeting.countries',
    says: /TW needs .*regionalIdentities \{"TW".*on ad account acc \(update-ad-account\)/,
  },
  {
    rule: 'Meta: Guadeloupe (an outermost region of the EU) without DSA names',
    platform: 'meta',
    nodes: meta({ targeting: { countries: ['GP'] } }),
    field: 'adSets[s].targeting.countries',
    says: /GP is in the EU/,
  },
  {
    rule: 'Meta: a placement removed in v24',
    platform: 'meta',
    nodes: meta({ placements: { positions: ['facebook:feed', 'facebook:video_feeds'] } }),
    field: 'adSets[s].placements',
    says: /facebook:video_feeds is refused by Meta since v24\.0; use facebook:feed or facebook:facebook_reels/,
  },
  {
    rule: 'Meta: a placement removed in v26',
    platform: 'meta',
    nodes: meta({ placements: { positions: ['instagram:explore'] } }),
    field: 'adSets[s].placements',
    says: /instagram:explore is refused by Meta since v26\.0/,
  },
  {
    rule: 'Meta: a placement Meta strips in every version since 2026-10-27 (even on v25)',
    platform: 'meta',
    nodes: meta({ placements: { positions: ['messenger:story'] } }),
    ctx: context('meta', { graphVersion: 'v25.0', now: Date.parse('2026-11-28T00:00:00Z') }),
    field: 'adSets[s].placements',
    says: /silently dropped by Meta since v26\.0 \(every version since 2026-10-27\); use facebook:story or instagram:story/,
  },
  {
    rule: 'Meta: a lifetime budget under the daily minimum times its days',
    platform: 'meta',
    nodes: meta({ budget: { lifetimeAmount: 4000 }, schedule: { startTime: '2030-01-01T00:00:00Z', endTime: '2030-01-11T00:00:00Z' } }, { budget: undefined }),
    field: 'adSets[s].budget',
    says: /for 10 days.*\$50\.00 in all/,
  },
  {
    rule: 'Meta: a campaign lifetime budget under its ad sets over their days',
    platform: 'meta',
    nodes: meta({ schedule: { startTime: '2030-01-01T00:00:00Z', endTime: '2030-01-11T00:00:00Z' } }, { budget: { lifetimeAmount: 4000 } }),
    field: 'campaigns[c].budget',
    says: /lifetime minimum .* is \$50\.00/,
  },
  {
    rule: 'Meta: a TikTok frequency cap',
    platform: 'meta',
    nodes: meta({ frequencyCap: { impressions: 3, days: 7 } }),
    field: 'adSets[s].frequencyCap',
    says: /TikTok setting/,
  },
  {
    rule: "TikTok: an ad group budget under the yen table's ¥2,500",
    platform: 'tiktok',
    nodes: tok({ budget: { dailyAmount: 2400 } }, { budget: undefined }),
    field: 'adSets[s].budget',
    says: /is ¥2,400 a day; TikTok's minimum for an ad group is ¥2,500 a day \(TikTok's JPY floor\)/,
  },
  {
    rule: 'TikTok: a campaign budget under USD 50 in yen',
    platform: 'tiktok',
    nodes: tok({}, { budget: { dailyAmount: 7000 } }),
    field: 'campaigns[c].budget',
    says: /¥7,576 \(USD 50 at the FX_RATES rate: JPY is not in TikTok's currency table/,
  },
  {
    rule: 'TikTok: a lifetime ad group budget under the minimum times its days',
    platform: 'tiktok',
    nodes: tok({ budget: { lifetimeAmount: 20000 }, schedule: { startTime: '2030-01-01T00:00:00Z', endTime: '2030-01-11T00:00:00Z' } }, { budget: undefined }),
    field: 'adSets[s].budget',
    says: /for 10 days.*¥25,000 in all/,
  },
  {
    rule: "TikTok: ages that are not a union of TikTok's groups",
    platform: 'tiktok',
    nodes: tok({ targeting: { countries: ['US'], ageMin: 20, ageMax: 40 } }),
    field: 'adSets[s].targeting',
    says: /would run them as 18-44; set ageMin and ageMax to 25-34 or 18-44/,
  },
  {
    rule: "TikTok: a special industry's ad group narrower than 18+ and all genders",
    platform: 'tiktok',
    nodes: tok({ targeting: { countries: ['US'], genders: ['female'] } }, { specialAdCategories: ['HOUSING'] }),
    field: 'adSets[s].targeting',
    says: /TikTok widens the ad groups of a HOUSING campaign/,
  },
  {
    rule: "TikTok: Meta's name for an event",
    platform: 'tiktok',
    nodes: tok(
      { optimizationGoal: 'CONVERT', promotedObject: { pixelId: 'px', customEventType: 'PURCHASE' }, budget: { dailyAmount: 4000 } },
      { objective: 'WEB_CONVERSIONS', budget: undefined },
    ),
    field: 'adSets[s].promotedObject',
    says: /PURCHASE is not a TikTok event \(TikTok calls it SHOPPING\)/,
  },
  {
    rule: 'TikTok: a pixel on a traffic ad group',
    platform: 'tiktok',
    nodes: tok({ promotedObject: { pixelId: 'px' } }),
    field: 'adSets[s].promotedObject',
    says: /objective TRAFFIC takes none/,
  },
  {
    rule: 'TikTok: a reach ad group without a frequency cap',
    platform: 'tiktok',
    nodes: tok({ optimizationGoal: 'REACH', budget: { dailyAmount: 4000 } }, { objective: 'REACH', budget: undefined }),
    field: 'adSets[s].frequencyCap',
    says: /impressions per person/,
  },
  {
    rule: 'TikTok: the allowlist-only placement on an account not allowlisted',
    platform: 'tiktok',
    nodes: tok({ placements: { positions: ['PLACEMENT_GLOBAL_APP_BUNDLE'] } }),
    field: 'adSets[s].placements',
    says: /allowlist-only; ad account acc is not allowlisted/,
  },
  {
    rule: 'TikTok: a BC_AUTH_TT identity without its Business Center',
    platform: 'tiktok',
    nodes: tok({}, {}, { identityId: 'bc_idt', identityType: 'BC_AUTH_TT' }),
    field: 'ads[a].identityId',
    says: /set identityBcId on ad account acc/,
  },
  {
    rule: 'TikTok: a display name of 21 Chinese characters',
    platform: 'tiktok',
    nodes: tok({}, {}, { displayName: '春'.repeat(21) }),
    field: 'ads[a].displayName',
    says: /is 42 characters as TikTok counts them/,
  },
  {
    rule: "TikTok: no display name and a brand name over TikTok's 40",
    platform: 'tiktok',
    nodes: tok({}),
    ctx: context('tiktok', { brandName: 'Acme Outdoor Supply Company of the Pacific Northwest' }),
    field: 'ads[a].displayName',
    says: /set a shorter displayName/,
  },
  {
    rule: 'TikTok: ad text of 51 Japanese characters',
    platform: 'tiktok',
    nodes: tok({}, {}, { primaryText: 'セ'.repeat(51) }),
    field: 'ads[a].primaryText',
    says: /is 102 characters as TikTok counts them/,
  },
  {
    rule: 'TikTok: a Meta multi-advertiser setting',
    platform: 'tiktok',
    nodes: tok({}, {}, { multiAdvertiserAds: true }),
    field: 'ads[a].multiAdvertiserAds',
    says: /Meta setting/,
  },
];

describe('More rules the platforms enforce, at validation: one row per rule', () => {
  it('the reference trees pass on both platforms', () => {
    expect(issuesOf(meta({}), context('meta'))).to.deep.equal([]);
    expect(issuesOf(tok({}), context('tiktok'))).to.deep.equal([]);
  });

  for (const row of rows) {
    it(`${row.rule}: refused on ${row.field}, saying what to change`, () => {
      const issues = issuesOf(row.nodes, row.ctx ?? context(row.platform));
      expect(
        issues.map((i) => i.field),
        JSON.stringify(issues),
      ).to.deep.equal([row.field]);
      expect(issues[0].message).to.match(row.says);
    });
  }

  it('what passes: Advantage+ with the age limits Meta keeps, a declared country, a bid cap with its bid, an allowlisted placement, a BC identity with its center', () => {
    expect(issuesOf(meta({ advantageAudience: true, targeting: { countries: ['US'], ageMin: 25, ageMax: 65 } }), context('meta'))).to.deep.equal([]);
    expect(
      issuesOf(meta({ targeting: { countries: ['SG'] } }), context('meta', {}, { regionalIdentities: { SG: { beneficiary: '1', payer: '2' } } })),
    ).to.deep.equal([]);
    // Korea needs nothing; overseas territories that are not EU territory need no DSA names; Syria is a warning.
    expect(issuesOf(meta({ targeting: { countries: ['KR', 'PM', 'NC', 'BL', 'AW', 'GL', 'FO'] } }), context('meta'))).to.deep.equal([]);
    const syria = validateLaunch(meta({ targeting: { countries: ['SY'] } }), context('meta'));
    expect(syria.issues).to.deep.equal([]);
    expect(syria.warnings.map((w) => [w.field, w.source])).to.deep.equal([['adSets[s].targeting.countries', syria.warnings[0].source]]);
    expect(syria.warnings[0].source).to.match(/lfx-self-serve PR 1644/);
    expect(issuesOf(meta({ bidAmount: 100 }, { bidStrategy: 'COST_CAP' }), context('meta'))).to.deep.equal([]);
    // v25.0 still takes Instagram Explore, until it ends (2027-02-23) and v26.0 answers for it.
    expect(
      issuesOf(meta({ placements: { positions: ['instagram:explore'] } }), context('meta', { graphVersion: 'v25.0', now: Date.parse('2026-11-28T00:00:00Z') })),
    ).to.deep.equal([]);
    expect(
      issuesOf(tok({ placements: { positions: ['PLACEMENT_GLOBAL_APP_BUNDLE'] } }), context('tiktok', {}, { allowlisted: ['PLACEMENT_GLOBAL_APP_BUNDLE'] })),
    ).to.deep.equal([]);
    expect(issuesOf(tok({}, {}, { identityType: 'BC_AUTH_TT', identityId: 'bc' }), context('tiktok', {}, { identityBcId: 'bc_center' }))).to.deep.equal([]);
    expect(issuesOf(tok({ targeting: { countries: ['US'], ageMin: 25, ageMax: 34 } }), context('tiktok'))).to.deep.equal([]);
    expect(
      issuesOf(
        tok({ optimizationGoal: 'REACH', frequencyCap: { impressions: 3, days: 7 }, budget: { dailyAmount: 4000 } }, { objective: 'REACH', budget: undefined }),
        context('tiktok'),
      ),
    ).to.deep.equal([]);
  });

  it("TikTok's announced end of manual creation is a warning from 2026-12-01 (the service's clock) on its four objectives, naming its third-party sources; never a refusal", () => {
    const conversions = tok({ optimizationGoal: 'CONVERT', promotedObject: { pixelId: 'px', customEventType: 'SHOPPING' } }, { objective: 'WEB_CONVERSIONS' });
    const before = validateLaunch(conversions, context('tiktok', { now: Date.parse('2026-11-30T23:59:59Z') }));
    expect([before.issues, before.warnings]).to.deep.equal([[], []]);
    const after = validateLaunch(conversions, context('tiktok', { now: Date.parse('2026-12-01T00:00:00Z') }));
    expect(after.issues).to.deep.equal([]);
    expect(after.warnings.map((w) => w.field)).to.deep.equal(['campaigns[c].objective']);
    expect(after.warnings[0].message).to.match(/WEB_CONVERSIONS campaigns on 2026-12-31/);
    expect(after.warnings[0].source).to.match(/third-party articles/);
    expect(validateLaunch(tok({}), context('tiktok', { now: Date.parse('2026-12-05T00:00:00Z') })).warnings).to.deep.equal([]);
    // A third-party-only TikTok rule refuses (TikTok is never asked), saying its source is a third party.
    const reach = validateLaunch(tok({ optimizationGoal: 'REACH' }, { objective: 'REACH' }), context('tiktok'));
    expect(reach.issues.map((i) => i.field)).to.deep.equal(['adSets[s].frequencyCap']);
    expect(reach.issues[0].message).to.match(/this rule's only source is a third party: amekala ads-mcp validity matrix/);
  });

  it('TikTok counts a Chinese or Japanese character as two; ages run in its buckets, from 18 when ageMin is unset; USD minimums converted exactly', () => {
    expect([tiktokLength('Spring sale'), tiktokLength('春日セール'), tiktokLength('Sale 春')]).to.deep.equal([11, 10, 7]);
    expect(ageGroupsOf(undefined, 34)).to.deep.equal(['AGE_18_24', 'AGE_25_34']);
    expect(ageGroupsOf(13, 17)).to.deep.equal(['AGE_13_17']);
    expect(ageGroupsOf(18, 65)).to.deep.equal(['AGE_18_24', 'AGE_25_34', 'AGE_35_44', 'AGE_45_54', 'AGE_55_100']);
    expect(ageRangeIssue(18, 65)).to.equal(null);
    expect(ageRangeIssue(55, 60)).to.deep.equal({ runsAs: '55+', inside: null });
    const rates = parseFxRates('JPY=0.0066,EUR=1.08,KWD=3.25');
    expect([20, 50].map((usd) => usdMinimumIn(usd, 'JPY', rates))).to.deep.equal([3031, 7576]);
    expect(usdMinimumIn(20, 'EUR', rates)).to.equal(1852);
    expect(usdMinimumIn(50, 'KWD', rates)).to.equal(15385);
    expect(usdMinimumIn(20, 'USD', rates)).to.equal(2000);
    expect(usdMinimumIn(20, 'GBP', rates)).to.equal(null);
    // Meta: APP_INSTALLS is never both goal and billing event (v9.0 changelog); the other goals with an event of their own take it.
    expect(['APP_INSTALLS', 'LINK_CLICKS', 'THRUPLAY', 'REACH'].map(billingEventsFor)).to.deep.equal([
      ['IMPRESSIONS'],
      ['IMPRESSIONS', 'LINK_CLICKS'],
      ['IMPRESSIONS', 'THRUPLAY'],
      ['IMPRESSIONS'],
    ]);
    // TikTok's floors per currency: the table's own (GBP 15, not USD 20 converted), FX only for a currency it lacks.
    expect(tiktokFloors('GBP', rates)).to.deep.equal({ adSet: { amount: 1500, converted: false }, campaign: null });
    expect(tiktokFloors('EUR', rates)).to.deep.equal({ adSet: { amount: 2000, converted: false }, campaign: { amount: 4630, converted: true } });
    expect(tiktokFloors('KWD', rates)).to.deep.equal({ adSet: { amount: 6154, converted: true }, campaign: { amount: 15385, converted: true } });
    expect(tiktokFloors('USD', rates)).to.deep.equal({ adSet: { amount: 2000, converted: false }, campaign: { amount: 5000, converted: false } });
  });

  it('the adapters send what the rules ask: billing_event always, the promoted object per goal, enrolments said, conversion_bid_price on OCPM, frequency', () => {
    const adset = createParams(
      {
        level: 'adset',
        marker: 's',
        name: 'S',
        parentId: '1',
        status: 'ACTIVE',
        settings: { optimizationGoal: 'POST_ENGAGEMENT', pageId: 'pg', targeting: { countries: ['US'] } },
      },
      26,
    );
    expect(adset).to.deep.include({ billing_event: 'IMPRESSIONS', destination_type: 'ON_POST', promoted_object: { page_id: 'pg' } });
    const app = createParams(
      {
        level: 'adset',
        marker: 's',
        name: 'S',
        parentId: '1',
        status: 'ACTIVE',
        settings: { optimizationGoal: 'APP_INSTALLS', promotedObject: { applicationId: '77', objectStoreUrl: 'https://apps.example.com/x' } },
      },
      26,
    );
    expect(app.promoted_object).to.deep.equal({ application_id: '77', object_store_url: 'https://apps.example.com/x' });
    const ad = createParams(
      {
        level: 'ad',
        marker: 'a',
        name: 'A',
        parentId: '2',
        status: 'ACTIVE',
        settings: { pageId: 'pg', linkUrl: 'https://x.example/', multiAdvertiserAds: true },
      },
      26,
    );
    expect((ad.creative as Record<string, unknown>).contextual_multi_ads).to.deep.equal({ enroll_status: 'OPT_IN' });
    expect(adgroupFields({ optimizationGoal: 'CONVERT', bidAmount: 250, frequencyCap: { impressions: 2, days: 3 } }, 2)).to.deep.include({
      billing_event: 'OCPM',
      conversion_bid_price: 2.5,
      frequency: 2,
      frequency_schedule: 3,
    });
    expect(adgroupFields({ optimizationGoal: 'CLICK', bidAmount: 30 }, 2)).to.deep.include({ billing_event: 'CPC', bid_price: 0.3 });
    expect(euPlaces({ countries: ['US', 'GP'], cities: ['2418956', '2418779'] }, (k) => ({ '2418956': 'DE', '2418779': 'US' })[k])).to.deep.equal([
      'GP',
      '2418956',
    ]);
    expect(
      ['targeting.age_max', 'daily_budget', 'targeting.instagram_positions', 'name', 'creative.object_story_spec.page_id'].map(propertyOfGraphField),
    ).to.deep.equal(['targeting.ageMax', 'budget', 'placements', 'name', null]);
  });
});
