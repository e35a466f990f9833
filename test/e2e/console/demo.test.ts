// The console on the demo that `npm start` seeds, in headless Chromium: the demo owner signs in and
// sees the demo brands; the demo's waiting review (the admin's run) is approved from the reviews page
// and the run goes on to publish its launch, while the admin sees why she cannot approve her own run;
// the reports page of the demo account draws its chart and a table whose totals equal get-insights,
// and Download CSV has one line per row. REST answers compared are the owner's own (an OAuth token).

import fs from 'node:fs';
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { dialects } from '../../helpers/databases.js';
import { World, startWorld } from '../../helpers/world.js';
import { freePort, tokensFor } from '../../helpers/oauth.js';
import { launchBrowser, screenshotPath } from '../../helpers/browser.js';
import { persona, texts, visit, waitFor, type Persona } from '../../helpers/console.js';
import { startHttpServer } from '../../../surfaces/http-server.js';
import { formatMoney } from '../../../src/money/convert.js';
import { projectPath } from '../../../src/paths.js';

/** The demo world on a known port, BASE_URL naming it, so OAuth tokens for /v1 work against it. */
async function startDemo(dialect: 'sqlite' | 'mysql'): Promise<World> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const w = await startWorld({ dialect, demo: true, env: { BASE_URL: base, RATE_LIMIT_PER_MINUTE: '1000000', RATE_LIMIT_CONCURRENCY: '200' } });
  await w.server.close(0);
  return new World(w.db, w.service, await startHttpServer(w.service, port, '127.0.0.1'), w.seed, w.config, w.demo);
}

describe('The console on the demo, in Chromium', function () {
  this.timeout(180_000);
  let browser: Browser;
  before(async () => {
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
  });

  for (const dialect of dialects()) {
    describe(dialect, () => {
      let w: World;
      let owner: Persona;
      let admin: Persona;
      let token = '';
      const rest = async (path: string) => {
        const r = await w.request('GET', `/v1${path}`, { key: token });
        expect(r.status, `GET ${path}: ${JSON.stringify(r.body).slice(0, 300)}`).to.equal(200);
        return r.body;
      };

      before(async () => {
        w = await startDemo(dialect);
        token = (await tokensFor(w.url, { email: w.demo!.ownerEmail, password: w.demo!.ownerPassword }, { resource: `${w.url}/v1`, scope: 'read' }))
          .access_token;
        owner = await persona(browser, w.url);
        admin = await persona(browser, w.url);
      });
      after(async () => {
        await owner?.context.close();
        await admin?.context.close();
        await w?.close();
      });
      afterEach(() => {
        expect(owner.offOrigin, 'requests off the origin').to.deep.equal([]);
        expect(admin.offOrigin, 'requests off the origin').to.deep.equal([]);
      });

      it('signs the demo owner in and shows the demo brands as REST lists them, with the waiting review counted', async () => {
        await owner.page.goto(`${w.url}/console`);
        await owner.page.fill('#email', w.demo!.ownerEmail);
        await owner.page.fill('#password', w.demo!.ownerPassword);
        await Promise.all([owner.page.waitForURL(`${w.url}/console`), owner.page.click('button[type=submit]')]);
        await visit(owner, `${w.url}/console`, 'demo-owner-brands');
        const brands = (await rest('/brands')).accounts.map((a: { brandName: string }) => a.brandName);
        expect(brands).to.deep.equal(['Demo Shoes', 'Demo Hats', 'Demo Tea']);
        expect(await texts(owner.page, '.brand-card h3')).to.deep.equal(brands);
        await waitFor(async () => (await rest(`/brands/${w.demo!.brandId}/workflow-reviews`)).reviews.length === 1, 'the demo run to reach its gate');
        await owner.page.reload();
        expect(await owner.page.locator(`#brand-${w.demo!.brandId} .reviews-to-decide`).textContent()).to.equal('1');
      });

      it("approves the demo's waiting review from the page, and the run goes on to publish the plan shown", async () => {
        const brand = w.demo!.brandId;
        await admin.page.goto(`${w.url}/console/brands/${brand}/reviews`);
        await admin.page.fill('#email', w.demo!.adminEmail);
        await admin.page.fill('#password', w.demo!.adminPassword);
        await Promise.all([admin.page.waitForURL(`${w.url}/console/brands/${brand}/reviews`), admin.page.click('button[type=submit]')]);
        await visit(admin, `${w.url}/console/brands/${brand}/reviews`, 'demo-admin-reviews');
        expect(await admin.page.locator('.review .why-not').textContent()).to.include('API key: Reviewer key');
        expect(await admin.page.locator('.review button').count()).to.equal(0);

        const page = await visit(owner, `${w.url}/console/brands/${brand}/reviews`, 'demo-owner-reviews');
        const [review] = (await rest(`/brands/${brand}/workflow-reviews`)).reviews;
        const launchId = review.nextSteps.find((s: { kind: string }) => s.kind === 'launch').launchId;
        const preview = await rest(`/brands/${brand}/launches/${launchId}/preview`);
        expect(await page.locator('.review .plan tbody td').nth(1).textContent()).to.equal(formatMoney(preview.budget.accounts[0].amountMinorUnits, 'USD'));
        expect(await page.locator('.review .plan tbody td').nth(1).textContent()).to.equal('$50.00');
        expect(await page.locator('.review .started-by').textContent()).to.equal('API key: Reviewer key');
        // The card names the campaign and its budget with its period.
        expect(await page.locator('.review .plan-campaign').first().textContent()).to.include('$50.00 a day');
        await page.fill('.review textarea', 'Go');
        await Promise.all([page.waitForSelector('#confirm-approval'), page.click('.review button[value=approve]')]);
        expect(await page.locator('#approval-summary').textContent()).to.match(/\$50\.00 a day on act_1001/);
        // Nothing is decided before Confirm.
        expect((await rest(`/brands/${brand}/workflow-reviews`)).reviews).to.have.length(1);
        await Promise.all([page.waitForURL(/notice=approved/), page.click('#confirm-approval')]);
        await waitFor(
          async () => (await rest(`/brands/${brand}/workflows/${review.workflowId}/executions/${review.executionId}`)).status === 'succeeded',
          'the approved run to finish',
        );
        expect((await rest(`/brands/${brand}/launches/${launchId}`)).status).to.equal('published');
        await page.reload();
        expect(await texts(page, '#steps tbody tr td:nth-child(3)')).to.deep.equal(['succeeded', 'succeeded']);
        await visit(owner, page.url(), 'demo-owner-run');
        await visit(owner, `${w.url}/console/brands/${brand}/launches/${launchId}`, 'demo-owner-launch');
        expect(await texts(owner.page, '#publishes tbody tr td:nth-child(3)')).to.include('Published');
      });

      it('the demo’s live launch shows its publish on its page and in the activity log', async () => {
        const brand = w.demo!.brandId;
        const launches = (await rest(`/brands/${brand}/launches?status=published&limit=50`)).batches;
        const live = launches.find((l: { title: string }) => l.title === 'Demo live launch');
        const page = await visit(owner, `${w.url}/console/brands/${brand}/launches/${live.id}`, 'demo-owner-live-launch');
        const first = await page.locator('#publishes tbody tr').first().locator('td').allTextContents();
        expect(first.slice(1, 3)).to.deep.equal(['API key: Demo key', 'Published']);
        const log = await rest(`/brands/${brand}/activity?accountId=act_1001&entityId=${live.id}&days=7`);
        expect(log.activities.map((e: { action: string }) => e.action)).to.include('launch.published');
      });

      it('draws the demo account’s report: a chart, a table whose totals equal get-insights, and a CSV with one line per row', async () => {
        const brand = w.demo!.brandId;
        const page = await visit(owner, `${w.url}/console/brands/${brand}/reports?accountId=act_1001&level=campaign&datePreset=last_7d`, 'demo-owner-reports');
        const answer = await rest(`/brands/${brand}/ad-accounts/act_1001/insights?level=campaign&datePreset=last_7d&limit=500`);
        const chart = page.locator('svg#chart');
        expect(await chart.getAttribute('role')).to.equal('img');
        expect(await chart.getAttribute('aria-label')).to.match(/^Spend per day from \d{4}-\d{2}-\d{2} to \d{4}-\d{2}-\d{2}/);
        const total = page.locator('#report tbody tr').last();
        expect(await total.locator('td').first().textContent()).to.equal('Total');
        expect(await total.locator('td').nth(1).textContent()).to.equal(formatMoney(answer.totals.spend, 'USD'));
        expect(await total.locator('td').nth(2).textContent()).to.equal(answer.totals.impressions.toLocaleString('en-US'));
        expect(await total.locator('td').nth(8).textContent()).to.equal(formatMoney(answer.totals.revenue, 'USD'));
        expect(answer.totals.spend).to.be.greaterThan(0);
        const csv = await page.request.get(`${w.url}${await page.locator('#download-csv').getAttribute('href')}`);
        expect(csv.headers()['content-type']).to.equal('text/csv; charset=utf-8');
        const lines = (await csv.text()).split('\r\n').filter(Boolean);
        expect(lines).to.have.length(answer.rows.length + 1);
        // The README's picture of the console is this page.
        if (process.env.UPDATE_CONSOLE_SCREENSHOT === '1')
          fs.copyFileSync(screenshotPath('console-demo-owner-reports.png'), projectPath('docs', 'assets', 'console-reports.png'));
      });
    });
  }
});
