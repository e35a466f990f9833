// The demo organization `npm start` seeds into an empty database, so a first request works at once.

import type { Knex } from 'knex';
import { applyBootstrap, type BootstrapResult } from './bootstrap.js';
import { hasNoOrganization } from './account/store.js';
import type { SchemaRegistry } from './schemas/registry.js';
import { randomBase62 } from './auth/secrets.js';
import { seedLiveLaunch } from './launches/live-launch.js';

/** The demo organization's owner, who creates the demo's keys (and any new one, `svc-server create-key`). */
export const DEMO_OWNER_EMAIL = 'owner@demo.test';

export interface DemoSeed {
  result: BootstrapResult;
  /** The owner's key: read, write and publish, with a $500 publish ceiling. */
  apiKey: string;
  /** The admin's key (read and write): another member, so it may review runs the demo key starts. */
  reviewerKey: string;
  brandId: number;
  ownerEmail: string;
  ownerPassword: string;
  adminEmail: string;
  adminPassword: string;
}

/** Seeds the demo organization when the database holds no organization yet; null otherwise. */
export async function seedDemoIfEmpty(knex: Knex, schemas: SchemaRegistry): Promise<DemoSeed | null> {
  if (!(await hasNoOrganization(knex))) return null;
  const ownerPassword = randomBase62(16);
  const adminPassword = randomBase62(16);
  const result = await applyBootstrap(knex, schemas, {
    organizations: [
      {
        ref: 'demo',
        name: 'Demo Agency',
        plan: 'agency',
        subscriptionStatus: 'active',
        users: [
          { ref: 'owner', email: DEMO_OWNER_EMAIL, name: 'Demo Owner', password: ownerPassword, role: 'owner' },
          { ref: 'admin', email: 'admin@demo.test', name: 'Demo Admin', password: adminPassword, role: 'admin' },
        ],
        brands: [
          {
            ref: 'shoes',
            name: 'Demo Shoes',
            // Assets the walkthroughs and API examples pick from (list-options, list-lead-forms).
            sandbox: {
              audiences: [{ accountId: 'act_1001', id: 'aud_1001', name: 'Past buyers (180 days)', type: 'custom' }],
              pages: [{ accountId: 'act_1001', id: 'pg_1001', name: 'Demo Shoes' }],
              leadForms: [{ accountId: 'act_1001', pageId: 'pg_1001', id: 'lf_1001', name: 'Spring signup' }],
              pixels: [{ accountId: 'act_1001', id: 'px_1001', name: 'Demo Shoes pixel' }],
            },
            adAccounts: [
              {
                platform: 'meta',
                accountId: 'act_1001',
                name: 'Demo Shoes US',
                timezone: 'America/New_York',
                currency: 'USD',
                active: true,
                pageId: 'pg_1001',
                // Who benefits from and pays for its ads in the EU (Meta requires both on EU ad sets).
                dsaBeneficiary: 'Demo Shoes Inc.',
                dsaPayor: 'Demo Agency LLC',
              },
            ],
            // `sandbox:` connects the built-in simulated tracker.
            tracker: { apiKey: 'demo-sandbox-tracker-key', baseUrl: 'sandbox:' },
          },
          {
            ref: 'hats',
            name: 'Demo Hats',
            sandbox: { profileAccounts: [{ accountId: 'biz_2001', id: 'idt_2001', name: 'Demo Hats' }] },
            adAccounts: [
              {
                platform: 'tiktok',
                accountId: 'biz_2001',
                name: 'Demo Hats TikTok',
                timezone: 'Europe/London',
                currency: 'GBP',
                active: true,
                identityId: 'idt_2001',
                identityType: 'CUSTOMIZED_USER',
              },
            ],
          },
          {
            // A yen account: its budgets count against the key's dollar ceiling at the FX_RATES rate (docs/launches.md).
            ref: 'tea',
            name: 'Demo Tea',
            sandbox: { pages: [{ accountId: 'act_3001', id: 'pg_3001', name: 'Demo Tea' }] },
            adAccounts: [
              {
                platform: 'meta',
                accountId: 'act_3001',
                name: 'Demo Tea Japan',
                timezone: 'Asia/Tokyo',
                currency: 'JPY',
                active: true,
                pageId: 'pg_3001',
              },
            ],
          },
        ],
        apiKeys: [
          {
            ref: 'demo',
            name: 'Demo key',
            createdBy: 'owner',
            scopes: ['read', 'write', 'publish'],
            surfaces: { api: true, mcp: true },
            brands: null,
            expiresAt: null,
            publishCeilingDollars: 500,
            revoked: false,
          },
          // Workflow review gates need a decision from someone other than the run's author.
          {
            ref: 'reviewer',
            name: 'Reviewer key',
            createdBy: 'admin',
            scopes: ['read', 'write'],
            surfaces: { api: true, mcp: true },
            brands: null,
            expiresAt: null,
            publishCeilingDollars: null,
            revoked: false,
          },
        ],
      },
    ],
  });
  const org = result.organizations.demo;
  // A live launch on the sandbox, delivering since yesterday: one campaign converts, one spends with
  // no results, so a monitoring rule on its lifetime (spend > 100, results < 1) fires at once at any
  // hour on that one only. The simulator counts whole results per hour: Prospecting's budget is large
  // enough for its hours to convert (docs/automations.md states the run's outcome).
  await seedLiveLaunch(knex, {
    organizationId: org.id,
    brandId: org.brands.shoes.id,
    accountId: 'act_1001',
    platform: 'meta',
    title: 'Demo live launch',
    at: Date.now() - 24 * 60 * 60 * 1000,
    campaigns: [
      { name: 'Demo Prospecting', dailyBudget: 30_000, adSets: 1, adsPerAdSet: 2 },
      { name: 'Demo Retargeting - no results', dailyBudget: 8_000, adSets: 1, adsPerAdSet: 1 },
    ],
  });
  return {
    result,
    apiKey: org.apiKeys.demo.secret,
    reviewerKey: org.apiKeys.reviewer.secret,
    brandId: org.brands.shoes.id,
    ownerEmail: DEMO_OWNER_EMAIL,
    ownerPassword,
    adminEmail: 'admin@demo.test',
    adminPassword,
  };
}
