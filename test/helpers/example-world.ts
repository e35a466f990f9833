// The world and node settings of the launch walkthrough (docs/launches.md), shared by the tests that replay it.

export const exampleWorld = (ceilingDollars = 500) => ({
  organizations: [
    {
      ref: 'acme',
      name: 'Acme Agency',
      plan: 'agency',
      subscriptionStatus: 'active',
      users: [{ ref: 'olive', email: 'olive@example.test', name: 'Olive Owner', password: 'correct horse 1', role: 'owner' }],
      brands: [
        {
          ref: 'shoes',
          name: 'Shoes Co',
          adAccounts: [{ platform: 'meta', accountId: 'act_1001', pageId: 'pg_1001', name: 'Shoes US', timezone: 'America/New_York', currency: 'USD' }],
        },
      ],
      apiKeys: [
        {
          ref: 'ci',
          name: 'CI key',
          createdBy: 'olive',
          scopes: ['read', 'write', 'publish'],
          surfaces: { api: true, mcp: true },
          publishCeilingDollars: ceilingDollars,
        },
        {
          ref: 'small',
          name: 'Small ceiling',
          createdBy: 'olive',
          scopes: ['read', 'write', 'publish'],
          surfaces: { api: true, mcp: true },
          publishCeilingDollars: 40,
        },
        {
          ref: 'noceiling',
          name: 'No ceiling',
          createdBy: 'olive',
          scopes: ['read', 'write', 'publish'],
          surfaces: { api: true, mcp: true },
          publishCeilingDollars: null,
        },
      ],
    },
  ],
});

export const campaignProps = { name: 'Spring - US', objective: 'OUTCOME_TRAFFIC', budget: { dailyAmount: 5000 } };
export const adsetProps = {
  name: 'US 18-65',
  optimizationGoal: 'LINK_CLICKS',
  billingEvent: 'IMPRESSIONS',
  targeting: { countries: ['US'], ageMin: 18, ageMax: 65 },
  schedule: { startTime: '2030-01-01T00:00:00Z' },
};
export const adProps = {
  name: 'Hero 1',
  status: 'ACTIVE',
  headline: 'Spring sale',
  primaryText: 'Up to 40% off',
  linkUrl: 'https://shop.example.com/spring',
  callToAction: 'SHOP_NOW',
};
