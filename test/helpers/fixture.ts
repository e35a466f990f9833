// The standard world most tests start from: several organizations, plans, brands, people and keys.

export const standardWorld = {
  organizations: [
    {
      ref: 'acme',
      name: 'Acme Agency',
      plan: 'agency',
      subscriptionStatus: 'active',
      users: [
        { ref: 'olive', email: 'olive@acme.test', name: 'Olive Owner', password: 'correct horse 1', role: 'owner' },
        { ref: 'mia', email: 'mia@acme.test', name: 'Mia Member', password: 'correct horse 2', role: 'member', brands: ['shoes'] },
        { ref: 'ada', email: 'ada@acme.test', name: 'Ada Admin', password: 'correct horse 3', role: 'admin' },
      ],
      brands: [
        {
          ref: 'shoes',
          name: 'Shoes Co',
          adAccounts: [
            { platform: 'meta', accountId: 'act_1001', pageId: 'pg_1001', name: 'Shoes US', timezone: 'America/New_York', currency: 'USD', active: true },
          ],
        },
        { ref: 'hats', name: 'Hats Co', adAccounts: [] },
        {
          ref: 'multi',
          name: 'Multi Co',
          adAccounts: [
            { platform: 'meta', accountId: 'act_2001', pageId: 'pg_2001', name: 'Multi Meta', timezone: 'UTC', currency: 'USD', active: true },
            {
              platform: 'tiktok',
              accountId: 'biz_2002',
              identityId: 'idt_2002',
              identityType: 'CUSTOMIZED_USER',
              name: 'Multi TikTok',
              timezone: 'UTC',
              currency: 'USD',
              active: false,
            },
          ],
        },
      ],
      apiKeys: [
        {
          ref: 'ci',
          name: 'CI key',
          createdBy: 'olive',
          scopes: ['read', 'write', 'publish'],
          surfaces: { api: true, mcp: true },
          brands: null,
          expiresAt: null,
          publishCeilingDollars: 500,
          revoked: false,
        },
        { ref: 'reader', name: 'Reader', createdBy: 'olive', scopes: ['read'], surfaces: { api: true, mcp: true }, brands: null },
        // Created by another person than the other keys: runs it starts may be reviewed with them.
        { ref: 'writer', name: 'Writer', createdBy: 'ada', scopes: ['write'], surfaces: { api: true, mcp: true }, brands: null },
        { ref: 'limited', name: 'Shoes only', createdBy: 'olive', scopes: ['read', 'write'], surfaces: { api: true, mcp: true }, brands: ['shoes'] },
        { ref: 'mcpOnly', name: 'MCP only', createdBy: 'olive', scopes: ['read'], brands: null },
        { ref: 'revoked', name: 'Old key', createdBy: 'olive', scopes: ['read'], surfaces: { api: true, mcp: true }, revoked: true },
        { ref: 'expired', name: 'Expired key', createdBy: 'olive', scopes: ['read'], surfaces: { api: true, mcp: true }, expiresAt: '2020-01-01T00:00:00Z' },
      ],
    },
    {
      ref: 'other',
      name: 'Other Agency',
      plan: 'agency',
      subscriptionStatus: 'active',
      brands: [
        { ref: 'rival', name: 'Rival Co', adAccounts: [{ platform: 'meta', accountId: 'act_9001', pageId: 'pg_9001', timezone: 'UTC', currency: 'USD' }] },
      ],
      apiKeys: [{ ref: 'otherKey', name: 'Other key', scopes: ['read'], surfaces: { api: true, mcp: true } }],
    },
    {
      ref: 'pro',
      name: 'Pro Shop',
      plan: 'pro',
      subscriptionStatus: 'active',
      brands: [{ ref: 'proBrand', name: 'Pro Brand' }],
      apiKeys: [{ ref: 'proKey', name: 'Pro key', scopes: ['read'], surfaces: { api: false, mcp: true } }],
    },
    {
      ref: 'lapsed',
      name: 'Lapsed Agency',
      plan: 'agency',
      subscriptionStatus: 'past_due',
      brands: [{ ref: 'lapsedBrand', name: 'Lapsed Brand' }],
      apiKeys: [{ ref: 'lapsedKey', name: 'Lapsed key', scopes: ['read'], surfaces: { api: true, mcp: true } }],
    },
  ],
};
