// The console's tests in headless Chromium: a world of three people (owner, admin, a member limited
// to one brand) and three brands in three currencies, filled over REST (launches, a live launch with
// spend, a board, an automation and its run, a run waiting at a review gate that the admin started);
// each person's REST credential (an OAuth token for /v1, so REST answers for the same person); and
// what every page is checked for: the contract's headers, axe-core, requests that stay on the origin.

import axe from 'axe-core';
import { expect } from 'chai';
import type { Browser, BrowserContext, Page, Response } from 'playwright-core';
import type { World } from './world.js';
import { BrandClient } from './launches.js';
import { tokensFor } from './oauth.js';
import { screenshotPath } from './browser.js';
import { seedLiveLaunch } from '../../src/launches/live-launch.js';

/** axe-core's source, injected into pages (their CSP is bypassed for the harness only). */
const AXE_SOURCE: string = axe.source;

const publisher = { scopes: ['read', 'write', 'publish'], surfaces: { api: true, mcp: true }, brands: null, publishCeilingDollars: 1000 };

export const people = {
  owner: { email: 'olive@console.test', password: 'correct horse 1', name: 'Olive Owner' },
  admin: { email: 'ada@console.test', password: 'correct horse 3', name: 'Ada Admin' },
  member: { email: 'mia@console.test', password: 'correct horse 2', name: 'Mia Member' },
} as const;
export type Who = keyof typeof people;

export const consoleWorld = {
  organizations: [
    {
      ref: 'acme',
      name: 'Acme Agency',
      plan: 'agency',
      subscriptionStatus: 'active',
      users: [
        { ref: 'olive', email: people.owner.email, name: people.owner.name, password: people.owner.password, role: 'owner', publishCeilingDollars: 500 },
        { ref: 'ada', email: people.admin.email, name: people.admin.name, password: people.admin.password, role: 'admin', publishCeilingDollars: 500 },
        { ref: 'mia', email: people.member.email, name: people.member.name, password: people.member.password, role: 'member', brands: ['shoes'] },
      ],
      brands: [
        {
          ref: 'shoes',
          name: 'Shoes Co',
          adAccounts: [
            { platform: 'meta', accountId: 'act_1101', pageId: 'pg_1101', name: 'Shoes US', timezone: 'America/New_York', currency: 'USD', active: true },
          ],
          tracker: { apiKey: 'console-sandbox-tracker-key', baseUrl: 'sandbox:' },
        },
        {
          ref: 'tea',
          name: 'Tea Co',
          adAccounts: [
            { platform: 'meta', accountId: 'act_3101', pageId: 'pg_3101', name: 'Tea Japan', timezone: 'Asia/Tokyo', currency: 'JPY', active: true },
          ],
        },
        {
          ref: 'wine',
          name: 'Wine Co',
          adAccounts: [
            { platform: 'meta', accountId: 'act_4101', pageId: 'pg_4101', name: 'Wine France', timezone: 'Europe/Paris', currency: 'EUR', active: true },
          ],
        },
      ],
      apiKeys: [
        { ref: 'ci', name: 'CI key', createdBy: 'olive', ...publisher },
        // The admin's agent: its runs are the admin's, so she may not review them.
        { ref: 'agent', name: 'Ada agent', createdBy: 'ada', ...publisher },
      ],
    },
  ],
};

/** The world's environment: rates for the yen and euro accounts, and no rate limit in the way of many page loads. */
export const consoleEnv = { FX_RATES: 'EUR=1.08,JPY=0.0066', RATE_LIMIT_PER_MINUTE: '1000000', RATE_LIMIT_CONCURRENCY: '200', KEY_CACHE_MS: '0' };

export interface ConsoleData {
  brands: { shoes: number; tea: number; wine: number };
  liveLaunchId: number;
  /** Shoes' draft: valid, what the waiting run publishes. */
  reviewLaunchId: string;
  /** Shoes' second draft: an ad without a creative or a link (issues), its card in Draft. */
  brokenLaunchId: string;
  teaLaunchId: string;
  wineLaunchId: string;
  workflowId: number;
  executionId: number;
  columns: { draft: number; review: number; live: number };
  cardId: number;
  automationId: number;
}

const created = (r: { status: number; body: any }, what: string, status = 201) => {
  expect(r.status, `${what}: ${JSON.stringify(r.body).slice(0, 400)}`).to.equal(status);
  return r.body;
};

/** A draft launch of one campaign, ad set and ad; the ad gets `creativeId` when given. */
async function draft(
  c: BrandClient,
  title: string,
  dailyAmount: number,
  creativeId: number | null,
  linkUrl: string | null = 'https://shop.example.com/new',
): Promise<string> {
  const launch = created(await c.api('POST', '/launches', { title }), 'create-launch');
  const campaign = created(
    await c.api('POST', `/launches/${launch.id}/nodes`, {
      nodeType: 'campaign',
      properties: { name: `${title} - campaign`, objective: 'OUTCOME_TRAFFIC', budget: { dailyAmount } },
    }),
    'campaign',
  );
  const adset = created(
    await c.api('POST', `/launches/${launch.id}/nodes`, {
      nodeType: 'adset',
      parentId: campaign.id,
      properties: { name: `${title} - ad set`, optimizationGoal: 'LINK_CLICKS', billingEvent: 'IMPRESSIONS', targeting: { countries: ['US'] } },
    }),
    'ad set',
  );
  const ad = created(
    await c.api('POST', `/launches/${launch.id}/nodes`, {
      nodeType: 'ad',
      parentId: adset.id,
      properties: { name: `${title} - ad`, headline: 'Hello', primaryText: 'New this week', callToAction: 'SHOP_NOW', ...(linkUrl ? { linkUrl } : {}) },
    }),
    'ad',
  );
  if (creativeId !== null) created(await c.api('PATCH', `/launches/${launch.id}/nodes/${ad.id}`, { creativeId }), 'attach creative', 200);
  return String(launch.id);
}

/** Fills the world over REST (and the live launch straight into the sandbox, as the demo does). */
export async function seedConsoleWorld(w: World): Promise<ConsoleData> {
  const org = w.seed.organizations.acme;
  const brands = { shoes: w.brandId('acme', 'shoes'), tea: w.brandId('acme', 'tea'), wine: w.brandId('acme', 'wine') };
  const live = await seedLiveLaunch(w.service.knex, {
    organizationId: org.id,
    brandId: brands.shoes,
    accountId: 'act_1101',
    platform: 'meta',
    title: 'Spring live',
    at: Date.now() - 4 * 86_400_000,
    campaigns: [
      { name: 'Spring prospecting', dailyBudget: 5000, adSets: 1, adsPerAdSet: 2 },
      { name: 'Spring retargeting', dailyBudget: 3000, adSets: 1, adsPerAdSet: 1 },
    ],
  });
  const ci = new BrandClient(w.url, w.key('acme', 'ci'), brands.shoes);
  const agent = new BrandClient(w.url, w.key('acme', 'agent'), brands.shoes);
  const creative = await agent.uploadCreative('autumn.png');
  const reviewLaunchId = await draft(agent, 'Autumn drop', 5000, creative);
  // No creative and no link: the preview names the ad's missing link (the objective needs one).
  const brokenLaunchId = await draft(ci, 'Winter teaser', 4000, null, null);
  const teaLaunchId = await draft(new BrandClient(w.url, w.key('acme', 'ci'), brands.tea), 'Matcha week', 14000, null);
  const wineLaunchId = await draft(new BrandClient(w.url, w.key('acme', 'ci'), brands.wine), 'Rosé season', 4500, null);

  const columns = {
    draft: created(await ci.api('POST', '/pipeline/columns', { name: 'Draft' }), 'column').columnId,
    review: created(await ci.api('POST', '/pipeline/columns', { name: 'Review' }), 'column').columnId,
    live: created(await ci.api('POST', '/pipeline/columns', { name: 'Live', publishes: true }), 'column').columnId,
  };
  const card = created(await ci.api('POST', '/pipeline/cards', { launchId: brokenLaunchId, columnId: columns.draft }), 'card');

  const automation = created(
    await ci.api('POST', '/automations', {
      automationName: 'Stop spenders without results',
      accountId: 'act_1101',
      level: 'campaign',
      action: 'pause',
      mode: 'shadow',
      conditions: [{ metric: 'spend', window: 'lifetime', operator: 'gt', value: 100 }],
    }),
    'automation',
  );
  created(await ci.api('POST', `/automations/${automation.automationId}/runs`), 'run-automation');

  const workflow = created(
    await agent.api('POST', '/workflows', {
      workflowName: 'Launch review',
      type: 'launch_review',
      trigger: { kind: 'manual' },
      nodes: [
        { nodeId: 'review', kind: 'review', name: 'Approve the plan', settings: {} },
        { nodeId: 'publish', kind: 'launch', name: 'Publish', settings: { launchId: reviewLaunchId } },
      ],
      edges: [{ from: 'review', to: 'publish' }],
    }),
    'workflow',
  );
  const run = created(await agent.api('POST', `/workflows/${workflow.workflowId}/runs`, {}), 'run-workflow', 202);
  await waitFor(
    async () => (await agent.api('GET', `/workflows/${workflow.workflowId}/executions/${run.executionId}`)).body.status === 'waiting_review',
    'the run to wait at its gate',
  );
  return {
    brands,
    liveLaunchId: live.launchId,
    reviewLaunchId,
    brokenLaunchId,
    teaLaunchId,
    wineLaunchId,
    workflowId: workflow.workflowId,
    executionId: run.executionId,
    columns,
    cardId: card.cardId,
    automationId: automation.automationId,
  };
}

export async function waitFor(check: () => Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** An OAuth access token for /v1 acting as `person` (read only): REST's answer for the same person. */
export async function restTokenFor(w: World, person: { email: string; password: string }): Promise<string> {
  return (await tokensFor(w.url, person, { resource: `${w.url}/v1`, scope: 'read' })).access_token;
}

/** A browser context for one person, its pages' requests recorded (those leaving the origin are the failures). */
export interface Persona {
  context: BrowserContext;
  page: Page;
  /** Every URL the context requested outside the world's origin. */
  offOrigin: string[];
}

export async function persona(browser: Browser, origin: string, options: { bypassCSP?: boolean; width?: number } = {}): Promise<Persona> {
  // bypassCSP only lets the harness inject axe-core; the CSP check runs in a context without it.
  const context = await browser.newContext({ viewport: { width: options.width ?? 1280, height: 900 }, bypassCSP: options.bypassCSP ?? true });
  const offOrigin: string[] = [];
  context.on('request', (r) => {
    const url = r.url();
    if (!url.startsWith(`${origin}/`) && url !== origin) offOrigin.push(url);
  });
  return { context, page: await context.newPage(), offOrigin };
}

/** Signs in through the console's own sign-in page, starting from `path`, and lands back on it. */
export async function signIn(p: Persona, base: string, who: Who, path = '/console'): Promise<void> {
  await p.page.goto(`${base}${path}`);
  await p.page.waitForURL(/\/console\/sign-in/);
  await p.page.fill('#email', people[who].email);
  await p.page.fill('#password', people[who].password);
  await Promise.all([p.page.waitForURL(`${base}${path}`), p.page.click('button[type=submit]')]);
}

/** The contract's headers on a console answer. */
export function expectConsoleHeaders(res: Response | null, what: string): void {
  expect(res, what).to.not.equal(null);
  const h = res!.headers();
  const csp = h['content-security-policy'] ?? '';
  expect(csp, `${what}: CSP`).to.match(/(^|;)\s*default-src 'self'(;|$)/);
  expect(csp, `${what}: CSP`).to.match(/frame-ancestors 'none'/);
  expect(csp, `${what}: no inline script allowed`).to.not.match(/unsafe-inline|unsafe-eval/);
  expect(h['x-content-type-options'], `${what}: nosniff`).to.equal('nosniff');
  expect(h['cache-control'], `${what}: pages are not cached`).to.equal('no-store');
}

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: string[] }>;
}

/** axe-core's WCAG 2.1 A and AA rules on the page: its serious and critical violations. */
export async function axeSerious(page: Page): Promise<AxeViolation[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ content: AXE_SOURCE });
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (ctx: unknown, opts: unknown) => Promise<{ violations: AxeViolation[] }> } }).axe;
    const result = await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target })) }));
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/**
 * Opens a console page as a person and checks what every page must hold: the status, the contract's
 * headers, one h1 and the landmarks, axe-core's verdict; then takes its screenshot.
 */
export async function visit(p: Persona, url: string, shot: string, status = 200): Promise<Page> {
  const res = await p.page.goto(url);
  expect(res?.status(), `${url}: status`).to.equal(status);
  expectConsoleHeaders(res, url);
  expect(await p.page.locator('h1').count(), `${url}: one h1`).to.equal(1);
  for (const landmark of ['header', 'main']) expect(await p.page.locator(landmark).count(), `${url}: ${landmark}`).to.equal(1);
  if (status === 200) expect(await p.page.locator('nav').count(), `${url}: nav`).to.equal(1);
  const serious = await axeSerious(p.page);
  expect(serious, `${url}: axe-core serious or critical violations`).to.deep.equal([]);
  await p.page.screenshot({ path: screenshotPath(`console-${shot}.png`), fullPage: true });
  return p.page;
}

/** The text of every match, trimmed. */
export async function texts(page: Page, selector: string): Promise<string[]> {
  return (await page.locator(selector).allTextContents()).map((t) => t.replace(/\s+/g, ' ').trim());
}

/** Approve on the reviews page, then Confirm on the page that names what it spends; answers the confirmation post's response. */
export async function approveAndConfirm(page: Page, item: string): Promise<Response> {
  await Promise.all([page.waitForSelector('#confirm-approval'), page.click(`${item} button[value=approve]`)]);
  const [answer] = await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), page.click('#confirm-approval')]);
  return answer;
}
