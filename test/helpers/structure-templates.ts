// The world and template body the structure template tests share (REST and MCP).

import { standardWorld } from './fixture.js';

/** The standard world plus a brand with two Meta ad accounts and a custom audience on each. */
export function templatesWorld() {
  const world = structuredClone(standardWorld) as any;
  world.organizations[0].brands.push({
    ref: 'agency',
    name: 'Agency Brand',
    adAccounts: [
      { platform: 'meta', accountId: 'act_3001', pageId: 'pg_3001', name: 'Agency US', timezone: 'UTC', currency: 'USD' },
      { platform: 'meta', accountId: 'act_3002', pageId: 'pg_3002', name: 'Agency EU', timezone: 'UTC', currency: 'USD' },
      { platform: 'meta', accountId: 'act_3003', pageId: 'pg_3003', name: 'Agency Spare', timezone: 'UTC', currency: 'USD' },
    ],
    sandbox: {
      audiences: [
        { accountId: 'act_3001', id: 'aud_lookalike', name: 'Lookalike 1%' },
        { accountId: 'act_3002', id: 'aud_lookalike', name: 'Lookalike 1%' },
        { accountId: 'act_3003', id: 'aud_lookalike', name: 'Lookalike 1%' },
      ],
    },
  });
  // A TikTok brand: templates applied to it meet TikTok's rules (call to action, images outside the in-feed placement).
  world.organizations[0].brands.push({
    ref: 'tokagency',
    name: 'Tok Agency',
    adAccounts: [
      { platform: 'tiktok', accountId: 'biz_3101', identityId: 'idt_3101', identityType: 'CUSTOMIZED_USER', name: 'Tok US', timezone: 'UTC', currency: 'USD' },
    ],
  });
  // A second person with a key of their own: a run's reviewer must be someone other than its author.
  world.organizations[0].apiKeys.push({
    ref: 'reviewer',
    name: 'Reviewer',
    createdBy: 'ada',
    scopes: ['read', 'write'],
    surfaces: { api: true, mcp: true },
    brands: ['shoes'],
  });
  return world;
}

export function templateBody(creativeId: number, over: Record<string, unknown> = {}) {
  return {
    name: 'Prospecting',
    config: {
      campaign: { name: '{brand} | {account} | {objective}', objective: 'OUTCOME_TRAFFIC' },
      adSets: [
        {
          name: '{audience} | {country} | {age}',
          optimizationGoal: 'LINK_CLICKS',
          billingEvent: 'IMPRESSIONS',
          targeting: { countries: ['US'], ageMin: 18, ageMax: 65 },
        },
      ],
      ads: [
        {
          name: '{creative} v{index}',
          creativeId,
          headline: 'Spring sale',
          primaryText: 'Up to 40% off',
          linkUrl: 'https://shop.example.com/spring',
          callToAction: 'SHOP_NOW',
        },
        { creativeId, headline: 'New season', primaryText: 'Fresh styles', linkUrl: 'https://shop.example.com/new', callToAction: 'LEARN_MORE' },
      ],
    },
    audiences: [
      { kind: 'targetingSet', name: 'Broad 25-45', targeting: { ageMin: 25, ageMax: 45 } },
      { kind: 'customAudience', name: 'Lookalike', audienceId: 'aud_lookalike' },
    ],
    settings: { budget: { dailyAmount: 5000 }, startOffsetDays: 2 },
    accounts: ['act_3001', 'act_3002'],
    scope: 'multiple',
    status: 'READY',
    ...over,
  };
}
