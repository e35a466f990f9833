// The Meta rules the specification leaves out, as pure functions: what the adapter sends (the
// Advantage+ flag, placements, audiences, lead forms, special categories) and what launch validation
// refuses, independent of mode (the e2e test meta-rules.test.ts runs them over REST in both modes).

import { expect } from 'chai';
import { createParams } from '../../src/platforms/meta/mapping.js';
import { advantageAudienceFlag, minimumFor, sandboxMinimums } from '../../src/platforms/meta/rules.js';
import { validateLaunch, type ValidationContext } from '../../src/launches/validate.js';
import type { NodeRow } from '../../src/launches/store.js';
import type { PlatformName } from '../../src/platforms/port.js';

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

function context(platform: PlatformName, facts = true): ValidationContext {
  return {
    accounts: new Map([['acc', platform]]),
    speakers: new Map([['acc', { pageId: 'pg', instagramUserId: null, identityId: 'idt', identityType: 'CUSTOMIZED_USER' }]]),
    unknownCountries: new Map(),
    defaultAccountId: 'acc',
    creativeIds: new Set([1]),
    trackerConnected: false,
    now: 0,
    ...(facts ? { metaFacts: new Map([['acc', { minimumBudgets: sandboxMinimums('USD'), dsaBeneficiary: null, dsaPayor: null, currency: 'USD' }]]) } : {}),
  };
}

function tree(adset: Record<string, unknown>, campaign: Record<string, unknown> = {}): NodeRow[] {
  return [
    node('c', 'campaign', null, { name: 'C', objective: 'OUTCOME_TRAFFIC', budget: { dailyAmount: 5000 }, ...campaign }),
    node('s', 'adset', 'c', { name: 'S', optimizationGoal: 'LINK_CLICKS', billingEvent: 'IMPRESSIONS', targeting: { countries: ['US'] }, ...adset }),
    node('a', 'ad', 's', { name: 'A', creativeId: 1, linkUrl: 'https://shop.example.com/', headline: 'H', primaryText: 'P' }),
  ];
}

const fields = (nodes: NodeRow[], ctx: ValidationContext) => validateLaunch(nodes, ctx).issues.map((i) => i.field);

describe('Meta rules the specification leaves out', () => {
  it('the Advantage+ flag: the ad set says, else 0 when the targeting narrows, else 1', () => {
    const flag = (targeting: Record<string, unknown>, advantageAudience?: boolean) =>
      advantageAudienceFlag({ targeting: { countries: ['US'], ...targeting }, ...(advantageAudience === undefined ? {} : { advantageAudience }) });
    expect([flag({}), flag({ ageMin: 18, ageMax: 65 }), flag({ genders: ['male', 'female'] })]).to.deep.equal([1, 1, 1]);
    expect([
      flag({ ageMin: 25 }),
      flag({ ageMax: 54 }),
      flag({ genders: ['female'] }),
      flag({ interests: ['1'] }),
      flag({ customAudiences: ['2'] }),
    ]).to.deep.equal([0, 0, 0, 0, 0]);
    expect([flag({}, false), flag({ interests: ['1'] }, true)]).to.deep.equal([0, 1]);
  });

  it('an ad set create sends audiences as [{id}], placements by platform, the flag, and a lead form as ON_AD with the page', () => {
    const params = createParams(
      {
        level: 'adset',
        marker: 's',
        name: 'S',
        parentId: '1',
        status: 'ACTIVE',
        settings: {
          optimizationGoal: 'LEAD_GENERATION',
          pageId: 'pg',
          targeting: { countries: ['US'], customAudiences: ['11'], excludedAudiences: ['12'] },
          placements: { automatic: false, positions: ['facebook:feed', 'messenger:story', 'facebook:story'] },
          promotedObject: { leadFormId: '99' },
        },
      },
      26,
    );
    expect(params.targeting).to.deep.equal({
      geo_locations: { countries: ['US'] },
      custom_audiences: [{ id: '11' }],
      excluded_custom_audiences: [{ id: '12' }],
      publisher_platforms: ['facebook', 'messenger'],
      facebook_positions: ['feed', 'story'],
      messenger_positions: ['story'],
      targeting_automation: { advantage_audience: 0 },
    });
    expect(params).to.deep.include({ destination_type: 'ON_AD', promoted_object: { page_id: 'pg' } });
  });

  it('a campaign sends CREDIT as FINANCIAL_PRODUCTS_SERVICES with its ad sets countries', () => {
    const params = createParams(
      {
        level: 'campaign',
        marker: 'c',
        name: 'C',
        parentId: null,
        status: 'PAUSED',
        settings: { specialAdCategories: ['CREDIT'], adSetCountries: ['CA', 'US'] },
      },
      26,
    );
    expect(params).to.deep.include({ special_ad_categories: ['FINANCIAL_PRODUCTS_SERVICES'], special_ad_category_country: ['CA', 'US'] });
  });

  it('minimums per optimization goal: imp, high_freq, low_freq, video_views', () => {
    const m = sandboxMinimums('USD');
    expect(['REACH', 'LINK_CLICKS', 'OFFSITE_CONVERSIONS', 'THRUPLAY'].map((g) => minimumFor(m, g))).to.deep.equal([100, 500, 2500, 200]);
    expect(sandboxMinimums('XYZ')).to.deep.equal({ imp: 0, highFreq: 0, lowFreq: 0, videoViews: 0 });
  });

  it('validation: the reference tree passes; each rule names its field', () => {
    expect(fields(tree({}), context('meta'))).to.deep.equal([]);
    expect(fields(tree({ advantageAudience: true, targeting: { countries: ['US'], ageMin: 30 } }), context('meta'))).to.deep.equal([
      'adSets[s].advantageAudience',
    ]);
    expect(fields(tree({ targeting: { countries: ['NL'] } }), context('meta'))).to.deep.equal(['adSets[s].targeting.countries']);
    expect(fields(tree({ placements: { positions: ['tiktok:feed'] } }), context('meta'))).to.deep.equal(['adSets[s].placements']);
    expect(fields(tree({ budget: { dailyAmount: 300 } }, { budget: undefined }), context('meta'))).to.deep.equal(['adSets[s].budget']);
    expect(fields(tree({}, { budget: { dailyAmount: 400 } }), context('meta'))).to.deep.equal(['campaigns[c].budget']);
    expect(fields(tree({}, { objective: 'OUTCOME_LEADS' }), context('meta'))).to.deep.equal(['adSets[s].promotedObject']);
  });

  it('validation without the account facts checks only what the tree says itself', () => {
    expect(fields(tree({ targeting: { countries: ['NL'] }, budget: { dailyAmount: 300 } }, { budget: undefined }), context('meta', false))).to.deep.equal([]);
  });

  it('advantageAudience on a TikTok ad set is refused, not dropped', () => {
    const nodes = tree({ advantageAudience: false, optimizationGoal: 'CLICK' }, { objective: 'TRAFFIC' });
    expect(fields(nodes, context('tiktok'))).to.include('adSets[s].advantageAudience');
  });
});
