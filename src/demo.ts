// The demo organization `npm start` seeds into an empty database, so a first request works at once.

import fs from 'node:fs';
import type { Knex } from 'knex';
import { applyBootstrap, type BootstrapResult } from './bootstrap.js';
import { projectPath } from './paths.js';
import type { Service } from './service.js';
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
  /** The admin's key (read, write and publish, $200 ceiling): another member, so it may review runs the demo key starts; it started the demo's waiting review. */
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
          { ref: 'owner', email: DEMO_OWNER_EMAIL, name: 'Demo Owner', password: ownerPassword, role: 'owner', publishCeilingDollars: 1000 },
          { ref: 'admin', email: 'admin@demo.test', name: 'Demo Admin', password: adminPassword, role: 'admin', publishCeilingDollars: 500 },
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
          // Workflow review gates need a decision from someone other than the run's author: the admin's
          // key reviews the owner's runs, and its own run (seedDemoReview) waits for the owner.
          {
            ref: 'reviewer',
            name: 'Reviewer key',
            createdBy: 'admin',
            scopes: ['read', 'write', 'publish'],
            surfaces: { api: true, mcp: true },
            brands: null,
            expiresAt: null,
            publishCeilingDollars: 200,
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
    // Published with the demo key, as the activity log says.
    publishedBy: { userId: org.users.owner.id, userName: 'API key: Demo key', apiKeyId: org.apiKeys.demo.id, currency: 'USD' },
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

/**
 * The demo's waiting review: with the admin's key, a draft launch "Autumn drop" ($50.00 a day on
 * act_1001) and a workflow "Launch review" (a review gate, then the launch step), run once, so a run
 * waits at its gate for someone other than the admin (the owner, on the console's reviews page).
 * Everything goes through the catalogue, as the key; the run reaches its gate when the jobs start.
 */
export async function seedDemoReview(service: Service, seed: DemoSeed): Promise<{ launchId: string; workflowId: number; executionId: number }> {
  const principal = await service.authenticate(`Bearer ${seed.reviewerKey}`, 'api');
  const call = async <T = any>(name: string, input: Record<string, unknown>): Promise<T> =>
    (await service.invoke(name, principal, input, { requestId: 'req_demo_seed' })).body as T;
  const brandId = seed.brandId;
  const launch = await call<{ id: string }>('create-launch', {
    brandId,
    title: 'Autumn drop',
    description: "Prepared by the admin's agent: it waits for a review before it goes live.",
  });
  const launchId = Number(launch.id);
  const creative = await call<{ id: number }>('upload-creative', {
    brandId,
    name: 'autumn-hero.png',
    dataBase64: fs.readFileSync(projectPath('docs', 'assets', 'hero.png')).toString('base64'),
  });
  const campaign = await call<{ id: string }>('create-node', {
    brandId,
    launchId,
    nodeType: 'campaign',
    properties: { name: 'Autumn - US', objective: 'OUTCOME_TRAFFIC', budget: { dailyAmount: 5000 } },
  });
  const adSet = await call<{ id: string }>('create-node', {
    brandId,
    launchId,
    nodeType: 'adset',
    parentId: campaign.id,
    properties: { name: 'US', optimizationGoal: 'LINK_CLICKS', billingEvent: 'IMPRESSIONS', targeting: { countries: ['US'] } },
  });
  const ad = await call<{ id: string }>('create-node', {
    brandId,
    launchId,
    nodeType: 'ad',
    parentId: adSet.id,
    properties: {
      name: 'Autumn 1',
      headline: 'Autumn drop',
      primaryText: 'Warm colours for cold days',
      linkUrl: 'https://shop.example.com/autumn',
      callToAction: 'SHOP_NOW',
    },
  });
  await call('update-node', { brandId, launchId, nodeId: ad.id, creativeId: creative.id });
  const workflow = await call<{ workflowId: number }>('create-workflow', {
    brandId,
    workflowName: 'Launch review',
    type: 'launch_review',
    trigger: { kind: 'manual' },
    nodes: [
      { nodeId: 'review', kind: 'review', name: 'Approve the plan', settings: {} },
      { nodeId: 'publish', kind: 'launch', name: 'Publish the launch', settings: { launchId: '$trigger.launchId' } },
    ],
    edges: [{ from: 'review', to: 'publish' }],
  });
  const run = await call<{ executionId: number }>('run-workflow', { brandId, workflowId: workflow.workflowId, launchId });
  return { launchId: launch.id, workflowId: workflow.workflowId, executionId: run.executionId };
}
