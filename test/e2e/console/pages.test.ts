// The console in headless Chromium, as an owner, an admin and a member limited to one brand, on a
// world in dollars, yen and euros: every page sends the contract's headers, has one h1 and its
// landmarks, passes axe-core (no serious or critical violation) and loads nothing from another
// origin; every figure equals REST's answer for the same person (an OAuth token acting as them); each
// form does what its operation does (Move, Pause and Resume, Approve with a plan that changed), a
// member reaches only their brand, and a POST without the CSRF token answers 403 and changes nothing.
// Screenshots of every page go to test-artifacts/screenshots.

import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { dialects } from '../../helpers/databases.js';
import { startWorld, type World } from '../../helpers/world.js';
import { signIn as signInWithFetch, startOAuthWorld } from '../../helpers/oauth.js';
import { launchBrowser } from '../../helpers/browser.js';
import {
  approveAndConfirm,
  consoleEnv,
  consoleWorld,
  people,
  persona,
  restTokenFor,
  seedConsoleWorld,
  signIn,
  texts,
  visit,
  waitFor,
  type ConsoleData,
  type Persona,
  type Who,
} from '../../helpers/console.js';
import { formatMoney, formatUsdCents } from '../../../src/money/convert.js';
import { SESSION_COOKIE } from '../../../src/oauth/sessions.js';

const WHO: Who[] = ['owner', 'admin', 'member'];

describe('The console in Chromium', function () {
  this.timeout(240_000);
  let browser: Browser;
  before(async () => {
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
  });

  for (const dialect of dialects()) {
    describe(`as an owner, an admin and a member (${dialect})`, () => {
      let w: World;
      let data: ConsoleData;
      const tokens = {} as Record<Who, string>;
      const as = {} as Record<Who, Persona>;
      const rest = async (who: Who, path: string) => {
        const r = await w.request('GET', `/v1${path}`, { key: tokens[who] });
        expect(r.status, `GET ${path} as ${who}: ${JSON.stringify(r.body).slice(0, 300)}`).to.equal(200);
        return r.body;
      };
      const brandPath = (brand: number, rest_ = '') => `${w.url}/console/brands/${brand}${rest_}`;
      /** A form post with the person's cookies, the way a forged or a genuine browser form sends it. */
      const post = (who: Who, path: string, form: Record<string, string>) =>
        as[who].page.request.post(`${w.url}${path}`, { form, maxRedirects: 0, failOnStatusCode: false });
      const csrfOf = async (who: Who) => (await as[who].page.locator('input[name=csrf_token]').first().getAttribute('value')) ?? '';

      before(async () => {
        w = await startOAuthWorld(dialect, consoleWorld, consoleEnv);
        data = await seedConsoleWorld(w);
        for (const who of WHO) {
          tokens[who] = await restTokenFor(w, people[who]);
          as[who] = await persona(browser, w.url);
        }
      });
      after(async () => {
        for (const who of WHO) await as[who]?.context.close();
        await w?.close();
      });
      afterEach(function () {
        // Nothing any page loaded came from another origin (no CDN, font or script).
        if (this.currentTest?.state === 'passed') for (const who of WHO) expect(as[who].offOrigin, `${who}: requests off the origin`).to.deep.equal([]);
      });

      it('sends a person without a session to sign in, then back to the page asked for; the session cookie is HttpOnly and SameSite=Lax', async () => {
        const asked = `/console/brands/${data.brands.shoes}/reports?datePreset=last_14d`;
        const first = await as.owner.page.goto(`${w.url}${asked}`);
        expect(first?.url()).to.match(/\/console\/sign-in\?return_to=/);
        await as.owner.page.goto(`${w.url}/console`);
        await signIn(as.owner, w.url, 'owner', asked);
        expect(await as.owner.page.locator('#datePreset').inputValue()).to.equal('last_14d');
        expect(await as.owner.page.locator('#who').textContent()).to.equal('Olive Owner');
        const cookie = (await as.owner.context.cookies()).find((c) => c.name === SESSION_COOKIE)!;
        expect(cookie.httpOnly).to.equal(true);
        expect(cookie.sameSite).to.equal('Lax');
        expect(cookie.secure, 'not Secure on an http BASE_URL').to.equal(false);
        await signIn(as.admin, w.url, 'admin');
        await signIn(as.member, w.url, 'member');
      });

      it('lists each person the brands REST lists for them, with the reviews to decide and failed publishes REST counts', async () => {
        for (const who of WHO) {
          const page = await visit(as[who], `${w.url}/console`, `${who}-brands`);
          const listed = (await rest(who, '/brands')).accounts;
          expect(await texts(page, '.brand-card h3'), who).to.deep.equal(listed.map((b: { brandName: string }) => b.brandName));
          for (const b of listed) {
            const reviews = (await rest(who, `/brands/${b.brandId}/workflow-reviews?limit=100`)).reviews;
            const failed = (await rest(who, `/brands/${b.brandId}/launches?status=publish_failed&limit=100`)).batches;
            const card = page.locator(`#brand-${b.brandId}`);
            expect(await card.locator('.reviews-to-decide').textContent(), `${who} brand ${b.brandId}`).to.equal(
              String(reviews.filter((r: { mayDecide: boolean }) => r.mayDecide).length),
            );
            expect(await card.locator('.failed-publishes').textContent()).to.equal(String(failed.length));
          }
        }
        // The member sees only her brand; the admin's own run waits on someone else.
        expect(await texts(as.member.page, '.brand-card h3')).to.deep.equal(['Shoes Co']);
        expect(await as.admin.page.locator(`#brand-${data.brands.shoes} .reviews-to-decide`).textContent()).to.equal('0');
        expect(await as.owner.page.locator(`#brand-${data.brands.shoes} .reviews-to-decide`).textContent()).to.equal('1');
      });

      it('shows every page of a brand to each person with the contract headers, one h1, landmarks and no serious axe-core violation', async () => {
        const pages = [
          '',
          '/launches',
          `/launches/${data.reviewLaunchId}`,
          `/launches/${data.liveLaunchId}`,
          '/reviews',
          '/board',
          '/reports',
          '/automations',
          '/activity',
        ];
        for (const who of WHO) {
          for (const path of pages) await visit(as[who], brandPath(data.brands.shoes, path), `${who}-shoes${path.replace(/\//g, '-') || '-overview'}`);
        }
        for (const [brand, launch, name] of [
          [data.brands.tea, data.teaLaunchId, 'tea'],
          [data.brands.wine, data.wineLaunchId, 'wine'],
        ] as const) {
          await visit(as.owner, brandPath(brand, ''), `owner-${name}-overview`);
          await visit(as.owner, brandPath(brand, `/launches/${launch}`), `owner-${name}-launch`);
          await visit(as.owner, brandPath(brand, '/reports'), `owner-${name}-reports`);
        }
        await visit(as.owner, brandPath(data.brands.shoes, `/workflows/${data.workflowId}/runs/${data.executionId}`), 'owner-shoes-run');
      });

      it('answers a member 404 on another brand, whose pages and forms she cannot reach, as REST refuses her', async () => {
        for (const path of ['', '/launches', '/reviews', '/reports', `/launches/${data.teaLaunchId}`]) {
          await visit(as.member, brandPath(data.brands.tea, path), `member-tea-404${path.replace(/\//g, '-')}`, 404);
          expect(await as.member.page.locator('#error-code').textContent()).to.equal('not_found');
        }
        expect((await w.request('GET', `/v1/brands/${data.brands.tea}/launches`, { key: tokens.member })).status).to.equal(403);
        await as.member.page.goto(`${w.url}/console`);
        const moved = await post('member', `/console/brands/${data.brands.tea}/automations/${data.automationId}/status`, {
          csrf_token: await csrfOf('member'),
          status: 'PAUSED',
        });
        expect(moved.status()).to.equal(404);
        expect((await w.request('GET', `/v1/brands/${data.brands.shoes}/automations/${data.automationId}`, { key: tokens.owner })).body.status).to.equal(
          'ACTIVE',
        );
      });

      it("shows each ad account's spend today as REST's get-overview answers it, in the account's currency", async () => {
        for (const [brand, account, currency] of [
          [data.brands.shoes, 'act_1101', 'USD'],
          [data.brands.tea, 'act_3101', 'JPY'],
        ] as const) {
          const page = as.owner.page;
          await page.goto(brandPath(brand));
          const overview = await rest('owner', `/brands/${brand}/ad-accounts/${account}/overview?datePreset=today`);
          const cell = page.locator('.spend-today');
          expect(await cell.getAttribute('data-minor-units')).to.equal(String(overview.totals.spendMinorUnits));
          expect(await cell.textContent()).to.equal(formatMoney(overview.totals.spendMinorUnits, currency));
        }
      });

      it("shows the launches and a launch's tree, issues and money as REST answers them, in dollars, yen and euros", async () => {
        const page = as.admin.page;
        await page.goto(brandPath(data.brands.shoes, '/launches'));
        const listed = (await rest('admin', `/brands/${data.brands.shoes}/launches`)).batches;
        expect(await texts(page, '#launches tbody tr td:first-child')).to.deep.equal(listed.map((l: { title: string }) => l.title));
        const countsShown = await page
          .locator('#launches tbody tr')
          .evaluateAll((rows) => rows.map((r) => [2, 3, 4].map((i) => Number(r.children[i].textContent))));
        expect(countsShown).to.deep.equal(
          listed.map((l: { counts: { campaigns: number; adSets: number; ads: number } }) => [l.counts.campaigns, l.counts.adSets, l.counts.ads]),
        );

        await page.goto(brandPath(data.brands.shoes, `/launches/${data.brokenLaunchId}`));
        const tree = await rest('admin', `/brands/${data.brands.shoes}/launches/${data.brokenLaunchId}`);
        const preview = await rest('admin', `/brands/${data.brands.shoes}/launches/${data.brokenLaunchId}/preview`);
        expect(preview.valid).to.equal(false);
        const names = [tree.campaigns[0].node, tree.campaigns[0].adSets[0].node, tree.campaigns[0].adSets[0].ads[0]].map(
          (n: { properties: { name: string } }) => n.properties.name,
        );
        expect(await texts(page, '#tree .node strong')).to.deep.equal(names);
        const issues = await texts(page, '#issues li');
        expect(issues).to.have.length(preview.issues.length);
        // Each issue names its node by name and the setting, as a sentence.
        expect(issues.some((i) => i.startsWith('Ad “Winter teaser - ad”:'))).to.equal(true, issues.join(' | '));
        expect(await page.locator('#tree .budget').first().textContent()).to.equal(`${formatMoney(4000, 'USD')} a day`);

        // A preview warning shows with its rule's source (in the sandbox: Syria, which no Meta page says Meta serves or not).
        const add = async (path: string, body: unknown) => {
          const r = await w.request('POST', `/v1/brands/${data.brands.shoes}${path}`, { key: w.key('acme', 'ci'), body });
          expect(r.status, JSON.stringify(r.body)).to.equal(201);
          return r.body.id as string;
        };
        const warned = await add('/launches', { title: 'Syria warning' });
        const campaign = await add(`/launches/${warned}/nodes`, {
          nodeType: 'campaign',
          properties: { name: 'Syria - campaign', objective: 'OUTCOME_TRAFFIC', budget: { dailyAmount: 4000 } },
        });
        const adset = await add(`/launches/${warned}/nodes`, {
          nodeType: 'adset',
          parentId: campaign,
          properties: { name: 'Syria - ad set', optimizationGoal: 'LINK_CLICKS', billingEvent: 'IMPRESSIONS', targeting: { countries: ['US', 'SY'] } },
        });
        await add(`/launches/${warned}/nodes`, {
          nodeType: 'ad',
          parentId: adset,
          properties: { name: 'Syria - ad', linkUrl: 'https://shop.example.com/', headline: 'Spring', primaryText: 'Up to 40% off' },
        });
        await page.goto(brandPath(data.brands.shoes, `/launches/${warned}`));
        const warnings = await texts(page, '#warnings li');
        expect(
          warnings.filter((x) => /Syria sanctions in 2025.*Source: lfx-self-serve PR 1644/.test(x)),
          warnings.join(' | '),
        ).to.have.length(1);

        // The ad's creative shows as a thumbnail served by the console itself (the member of another brand gets 404).
        await page.goto(brandPath(data.brands.shoes, `/launches/${data.reviewLaunchId}`));
        const thumb = page.locator('#tree img.thumb');
        expect(await thumb.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).to.equal(1080);
        const src = (await thumb.getAttribute('src'))!;
        expect(src).to.match(/^\/console\/brands\/\d+\/creatives\/\d+$/);
        expect((await as.member.page.request.get(`${w.url}${src.replace(`/brands/${data.brands.shoes}/`, `/brands/${data.brands.tea}/`)}`)).status()).to.equal(
          404,
        );

        for (const [brand, launch, currency, amount] of [
          [data.brands.tea, data.teaLaunchId, 'JPY', 14000],
          [data.brands.wine, data.wineLaunchId, 'EUR', 4500],
        ] as const) {
          await as.owner.page.goto(brandPath(brand, `/launches/${launch}`));
          const p = await rest('owner', `/brands/${brand}/launches/${launch}/preview`);
          const row = as.owner.page.locator('#launch-money tbody tr').first();
          expect(await row.locator('td').nth(1).textContent()).to.equal(formatMoney(p.budget.accounts[0].amountMinorUnits, currency));
          expect(await row.locator('td').nth(2).textContent()).to.equal(formatUsdCents(p.budget.accounts[0].countedUsdCents));
          expect(await as.owner.page.locator('#tree .budget').first().textContent()).to.equal(`${formatMoney(amount, currency)} a day`);
          const updated = await as.owner.page.locator('dl.facts time').first().textContent();
          expect(updated).to.include(currency === 'JPY' ? '(Asia/Tokyo)' : '(Europe/Paris)');
        }
        expect(await as.owner.page.locator('#tree .budget').first().textContent()).to.equal('€45.00 a day');
        await as.owner.page.goto(brandPath(data.brands.tea, `/launches/${data.teaLaunchId}`));
        expect(await as.owner.page.locator('#tree .budget').first().textContent()).to.equal('¥14,000 a day');
        expect(await as.owner.page.locator('#launch-money tbody tr td').nth(2).textContent()).to.equal('$92.40');
      });

      it('draws the report as an SVG chart with a description, a table whose Total row holds get-insights totals, and a CSV of the same rows', async () => {
        const page = as.member.page;
        const query = 'accountId=act_1101&level=campaign&datePreset=last_7d';
        await page.goto(brandPath(data.brands.shoes, `/reports?${query}`));
        const answer = await rest('member', `/brands/${data.brands.shoes}/ad-accounts/act_1101/insights?level=campaign&datePreset=last_7d&limit=500`);
        const daily = await rest(
          'member',
          `/brands/${data.brands.shoes}/ad-accounts/act_1101/insights?level=campaign&breakdown=day&datePreset=last_7d&limit=500`,
        );
        const chart = page.locator('svg#chart');
        expect(await chart.getAttribute('role')).to.equal('img');
        const label = (await chart.getAttribute('aria-label')) ?? '';
        expect(label).to.include(`Spend per day from ${answer.period.since} to ${answer.period.until}`);
        expect(label).to.include(`${formatMoney(answer.totals.spend, 'USD')} in all`);
        // A connected tracker: revenue and ROAS are drawn and said.
        expect(answer.totals.revenue).to.be.greaterThan(0);
        expect(label).to.include(`tracker revenue ${formatMoney(answer.totals.revenue, 'USD')}`);
        expect(label).to.include(`ROAS ${answer.totals.roas.toFixed(2)}`);
        // One bar and one revenue point a day of the period, each that day's report as REST answers it.
        const days: string[] = [];
        for (let d = Date.parse(answer.period.since); d <= Date.parse(answer.period.until); d += 86_400_000) days.push(new Date(d).toISOString().slice(0, 10));
        expect(await chart.locator('rect.bar').count()).to.equal(days.length);
        for (const day of days) {
          const one = await rest('member', `/brands/${data.brands.shoes}/ad-accounts/act_1101/insights?level=campaign&since=${day}&until=${day}&limit=1`);
          expect(await chart.locator(`rect.bar[data-day="${day}"]`).getAttribute('data-spend'), day).to.equal(String(one.totals.spend));
          expect(await chart.locator(`circle.revenue-point[data-day="${day}"]`).getAttribute('data-revenue'), day).to.equal(String(one.totals.revenue));
        }
        const byDay = new Map<string, number>();
        for (const r of daily.rows) byDay.set(r.day, (byDay.get(r.day) ?? 0) + r.spend);
        for (const [day, spend] of byDay)
          expect(await chart.locator(`rect.bar[data-day="${day}"]`).getAttribute('data-spend'), `${day} by day`).to.equal(String(spend));
        expect(await chart.locator('path.revenue').count()).to.equal(1);
        expect(await chart.locator('path.roas').count()).to.equal(1);

        const rows = page.locator('#report tbody tr');
        expect(await rows.count()).to.equal(answer.rows.length + 1);
        const total = await rows.last().locator('td').allTextContents();
        const t = answer.totals;
        const usd = (v: number | null) => (v === null ? '–' : formatMoney(v, 'USD'));
        expect(total).to.deep.equal([
          'Total',
          usd(t.spend),
          t.impressions.toLocaleString('en-US'),
          t.clicks.toLocaleString('en-US'),
          t.ctr === null ? '–' : `${t.ctr.toFixed(2)}%`,
          usd(t.cpc),
          t.results.toLocaleString('en-US'),
          usd(t.costPerResult),
          usd(t.revenue),
          usd(t.profit),
          t.roas === null ? '–' : t.roas.toFixed(2),
        ]);
        const firstRow = await rows.first().locator('td').allTextContents();
        expect(firstRow[0]).to.equal(answer.rows[0].name);
        expect(firstRow[1]).to.equal(formatMoney(answer.rows[0].spend, 'USD'));

        const href = await page.locator('#download-csv').getAttribute('href');
        const csv = await page.request.get(`${w.url}${href}`);
        expect(csv.status()).to.equal(200);
        expect(csv.headers()['content-type']).to.equal('text/csv; charset=utf-8');
        expect(csv.headers()['content-security-policy']).to.include("default-src 'self'");
        const lines = (await csv.text()).split('\r\n').filter((l) => l !== '');
        expect(lines).to.have.length(answer.rows.length + 1);
        expect(lines[0].split(',').slice(0, 6)).to.deep.equal(['level', 'id', 'name', 'currency', 'spend_minor_units', 'impressions']);
        for (const [i, r] of answer.rows.entries()) {
          const cells = lines[i + 1].split(',');
          expect([cells[1], cells[4], cells[5]]).to.deep.equal([r.campaignId, String(r.spend), String(r.impressions)]);
        }

        // Dates typed while Period still shows a preset (the form sends both) answer for the dates.
        const typed = await page.goto(
          brandPath(
            data.brands.shoes,
            `/reports?accountId=act_1101&level=campaign&datePreset=last_7d&since=${answer.period.since}&until=${answer.period.since}`,
          ),
        );
        expect(typed?.status()).to.equal(200);
        const oneDay = await rest(
          'member',
          `/brands/${data.brands.shoes}/ad-accounts/act_1101/insights?level=campaign&since=${answer.period.since}&until=${answer.period.since}&limit=500`,
        );
        expect(await page.locator('#report tbody tr').last().locator('td').nth(1).textContent()).to.equal(formatMoney(oneDay.totals.spend, 'USD'));
        // A bad period is said as a sentence beside the form, with the field's label.
        const bad = await page.goto(brandPath(data.brands.shoes, '/reports?accountId=act_1101&since=2026-01-01'));
        expect(bad?.status()).to.equal(400);
        expect(await page.locator('#report-error').textContent()).to.match(/could not be read/);
        expect(await page.locator('#since').inputValue()).to.equal('2026-01-01');
      });

      it('moves a card into a column that does not publish; a publishing column is not offered and a forged move into it is refused', async () => {
        const page = as.member.page;
        await page.goto(brandPath(data.brands.shoes, '/board'));
        const board = await rest('member', `/brands/${data.brands.shoes}/pipeline`);
        expect(await texts(page, '.column h2')).to.deep.equal(
          board.columns.map(
            (c: { name: string; columnId: number }) => `${c.name} (${board.cards.filter((x: { columnId: number }) => x.columnId === c.columnId).length})`,
          ),
        );
        expect(await page.locator(`#column-${data.columns.live} .publishes-note`).count()).to.equal(1);
        const options = await page.locator(`#move-${data.cardId} option`).allTextContents();
        expect(options).to.deep.equal(['Review']);
        const forged = await post('member', `/console/brands/${data.brands.shoes}/board/cards/${data.cardId}`, {
          csrf_token: await csrfOf('member'),
          column_id: String(data.columns.live),
          version: '1',
        });
        expect(forged.status()).to.equal(400);
        expect((await rest('member', `/brands/${data.brands.shoes}/pipeline`)).cards[0]).to.include({
          columnId: data.columns.draft,
          version: 1,
          launchStatus: 'draft',
        });
        await page.selectOption(`#move-${data.cardId}`, String(data.columns.review));
        await Promise.all([page.waitForURL(/notice=moved/), page.click(`#card-${data.cardId} button[type=submit]`)]);
        expect(await page.locator('#notice').textContent()).to.equal('The card was moved.');
        expect((await rest('member', `/brands/${data.brands.shoes}/pipeline`)).cards[0]).to.include({
          columnId: data.columns.review,
          version: 2,
          launchStatus: 'draft',
        });
        expect(await page.locator(`#column-${data.columns.review} #card-${data.cardId}`).count()).to.equal(1);
      });

      it('lists automations with their last runs as REST does, and Pause and Resume follow set-automation-status', async () => {
        const page = as.owner.page;
        await page.goto(brandPath(data.brands.shoes, '/automations'));
        const runs = (await rest('owner', `/brands/${data.brands.shoes}/automations/${data.automationId}/runs?limit=3`)).runs;
        const card = page.locator(`#automation-${data.automationId}`);
        expect(await card.locator(`#runs-${data.automationId} tbody tr`).count()).to.equal(runs.length);
        const matched = runs[0].objects.filter((o: { matched: boolean }) => o.matched);
        expect(await card.locator(`#runs-${data.automationId} tbody tr td`).nth(3).textContent()).to.include(`Matched ${matched.length}`);
        expect(await card.locator(`#runs-${data.automationId} tbody tr td`).nth(3).textContent()).to.include('shadow mode');
        await Promise.all([page.waitForURL(/notice=paused/), card.locator('button', { hasText: 'Pause' }).click()]);
        expect((await rest('owner', `/brands/${data.brands.shoes}/automations/${data.automationId}`)).status).to.equal('PAUSED');
        await Promise.all([page.waitForURL(/notice=resumed/), page.locator(`#automation-${data.automationId} button`, { hasText: 'Resume' }).click()]);
        expect((await rest('owner', `/brands/${data.brands.shoes}/automations/${data.automationId}`)).status).to.equal('ACTIVE');
      });

      it('shows the activity log as list-activity answers it, with filters and paging', async () => {
        const page = as.admin.page;
        await page.goto(brandPath(data.brands.shoes, '/activity?days=30'));
        const all = (await rest('admin', `/brands/${data.brands.shoes}/activity?days=30&limit=50`)).activities;
        expect(await page.locator('#activity tbody tr').count()).to.equal(all.length);
        expect(await page.locator('#activity tbody tr').first().locator('td').nth(2).textContent()).to.equal(all[0].action);
        await page.selectOption('#entityType', 'campaign');
        await Promise.all([page.waitForURL(/entityType=campaign/), page.click('form.filters button[type=submit]')]);
        const campaigns = (await rest('admin', `/brands/${data.brands.shoes}/activity?days=30&entityType=campaign&limit=50`)).activities;
        expect(campaigns.length).to.be.greaterThan(0);
        expect(await texts(page, '#activity tbody tr td:nth-child(3)')).to.deep.equal(campaigns.map((e: { action: string }) => e.action));
        await page.fill('#action', 'launch.created');
        await page.selectOption('#entityType', '');
        await Promise.all([page.waitForURL(/action=launch.created/), page.click('form.filters button[type=submit]')]);
        const created = (await rest('admin', `/brands/${data.brands.shoes}/activity?days=30&action=launch.created&limit=50`)).activities;
        expect(await page.locator('#activity tbody tr').count()).to.equal(created.length);
        // An entry about a launch links to its page.
        expect(await page.locator('#activity tbody tr a').first().getAttribute('href')).to.match(/\/launches\/\d+$/);
        // Paging: 50 a page; the next page starts where REST's cursor says.
        await page.goto(brandPath(data.brands.shoes, '/activity?days=30'));
        const pageOne = await rest('admin', `/brands/${data.brands.shoes}/activity?days=30&limit=50`);
        expect(await page.locator('.pager a').count()).to.equal(pageOne.nextCursor ? 1 : 0);
      });

      it('refuses a POST without the CSRF token with 403 and changes nothing', async () => {
        const before = await rest('owner', `/brands/${data.brands.shoes}/automations/${data.automationId}`);
        const paused = await post('owner', `/console/brands/${data.brands.shoes}/automations/${data.automationId}/status`, { status: 'PAUSED' });
        expect(paused.status()).to.equal(403);
        expect(await paused.text()).to.include('CSRF check failed');
        expect(paused.headers()['content-security-policy']).to.include("frame-ancestors 'none'");
        const wrong = await post('owner', `/console/brands/${data.brands.shoes}/automations/${data.automationId}/status`, {
          status: 'PAUSED',
          csrf_token: 'x'.repeat(32),
        });
        expect(wrong.status()).to.equal(403);
        expect((await rest('owner', `/brands/${data.brands.shoes}/automations/${data.automationId}`)).status).to.equal(before.status);
        const approve = await post('owner', `/console/brands/${data.brands.shoes}/reviews/${data.executionId}`, {
          workflow_id: String(data.workflowId),
          node_id: 'review',
          decision: 'approve',
        });
        expect(approve.status()).to.equal(403);
        const card = (await rest('owner', `/brands/${data.brands.shoes}/pipeline`)).cards[0];
        const move = await post('owner', `/console/brands/${data.brands.shoes}/board/cards/${data.cardId}`, {
          column_id: String(data.columns.draft),
          version: String(card.version),
        });
        expect(move.status()).to.equal(403);
        expect((await rest('owner', `/brands/${data.brands.shoes}/pipeline`)).cards[0]).to.deep.equal(card);
        expect((await rest('owner', `/brands/${data.brands.shoes}/workflows/${data.workflowId}/executions/${data.executionId}`)).status).to.equal(
          'waiting_review',
        );
        const signOut = await post('owner', '/console/sign-out', {});
        expect(signOut.status()).to.equal(403);
      });

      it('reviews: the run’s author sees why she cannot decide; a plan changed since the page was drawn is shown again; the owner’s approval publishes it and the run goes on', async () => {
        const shoes = data.brands.shoes;
        const item = `#review-${data.executionId}-review`;
        await as.admin.page.goto(brandPath(shoes, '/reviews'));
        expect(await as.admin.page.locator(`${item} .why-not`).textContent()).to.include('may not review its own run');
        expect(await as.admin.page.locator(`${item} button`).count()).to.equal(0);
        expect((await rest('admin', `/brands/${shoes}/workflow-reviews`)).reviews[0]).to.include({ mayDecide: false });
        await as.member.page.goto(brandPath(shoes, '/reviews'));
        expect(await as.member.page.locator(`${item} button`, { hasText: 'Approve' }).count()).to.equal(1);

        const page = as.owner.page;
        await page.goto(brandPath(shoes, '/reviews'));
        const preview = await rest('owner', `/brands/${shoes}/launches/${data.reviewLaunchId}/preview`);
        expect(await page.locator(`${item} .plan tbody td`).nth(1).textContent()).to.equal(formatMoney(preview.budget.accounts[0].amountMinorUnits, 'USD'));
        expect(await page.locator(`${item} input[name=plan_fingerprint]`).getAttribute('value')).to.equal(preview.planFingerprint);
        // The preview's warnings are on the card, one sentence each (the tracker's sub3 tag, on this brand).
        expect(preview.warnings.length).to.be.greaterThan(0);
        expect(await page.locator(`${item} .plan-warnings li`).count()).to.equal(preview.warnings.length);
        // Someone raises the budget after the page was drawn: the approval is refused and the page shows the new plan.
        const tree = await rest('owner', `/brands/${shoes}/launches/${data.reviewLaunchId}`);
        const campaignId = tree.campaigns[0].node.id;
        const raised = await w.request('PATCH', `/v1/brands/${shoes}/launches/${data.reviewLaunchId}/nodes/${campaignId}`, {
          key: w.key('acme', 'agent'),
          body: { properties: { budget: { dailyAmount: 40000 } } },
        });
        expect(raised.status, JSON.stringify(raised.body)).to.equal(200);
        await page.fill(`${item} textarea`, 'Looks right');
        const answer = await approveAndConfirm(page, item);
        expect(answer.status()).to.equal(409);
        expect(await page.locator('#page-error').textContent()).to.include('changed since this page was drawn');
        expect(await page.locator(`${item} .plan tbody td`).nth(1).textContent()).to.equal('$400.00');
        expect((await rest('owner', `/brands/${shoes}/workflows/${data.workflowId}/executions/${data.executionId}`)).status).to.equal('waiting_review');

        await page.fill(`${item} textarea`, 'Looks right at $400');
        await Promise.all([page.waitForSelector('#confirm-approval'), page.click(`${item} button[value=approve]`)]);
        // Approve asks once more, naming the campaign and what it spends (the plan as it is now).
        expect(await page.locator('#approval-summary').textContent()).to.include('“Autumn drop - campaign” $400.00 a day on act_1101');
        await Promise.all([page.waitForURL(/notice=approved/), page.click('#confirm-approval')]);
        expect(await page.locator('#notice').textContent()).to.include('Approved');
        await waitFor(
          async () => (await rest('owner', `/brands/${shoes}/workflows/${data.workflowId}/executions/${data.executionId}`)).status === 'succeeded',
          'the run to finish',
        );
        await page.reload();
        expect(await texts(page, '#steps tbody tr td:nth-child(3)')).to.deep.equal(['succeeded', 'succeeded']);
        expect(await page.locator('#steps tbody tr').first().textContent()).to.include('Approved by Olive Owner: “Looks right at $400”');
        expect((await rest('owner', `/brands/${shoes}/launches/${data.reviewLaunchId}`)).status).to.equal('published');
        await page.goto(brandPath(shoes, '/reviews'));
        expect(await page.locator('#no-reviews').count()).to.equal(1);
        // The publish shows on the launch's page: when, by whom (the run's key), the amount.
        await page.goto(brandPath(shoes, `/launches/${data.reviewLaunchId}`));
        // The publish names the run's key and the person who approved it; the approval is the person's own entry.
        const rows = await page
          .locator('#publishes tbody tr')
          .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));
        const published = rows.find((r) => r[2] === 'Published')!;
        expect(published.slice(1, 3)).to.deep.equal(['API key: Ada agent, approved by Olive Owner', 'Published']);
        expect(published[3]).to.include('$400.00');
        expect(rows.find((r) => r[2] === 'Approved at a review')?.[1]).to.equal('Olive Owner');
        // The activity page shows the approving person too, beside the publish that names her.
        await page.goto(brandPath(shoes, '/activity?days=1'));
        const log = await page.locator('#activity tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));
        expect(log.find((r) => r[2] === 'workflow.review_approved')?.[1]).to.equal('Olive Owner');
        expect(log.find((r) => r[2] === 'launch.published' && r[3]?.includes('Autumn drop'))?.[1]).to.equal('API key: Ada agent, approved by Olive Owner');
      });

      it('reviews: a budget step’s plan refused because its launch changed is drawn again as it is now, and that one is approved', async () => {
        const shoes = data.brands.shoes;
        const tree = await rest('owner', `/brands/${shoes}/launches/${data.liveLaunchId}`);
        const [first, second] = tree.campaigns.map((c: any) => c.node.id);
        const agent = (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
          w.request(method, `/v1/brands/${shoes}${path}`, { key: w.key('acme', 'agent'), body, headers });
        const workflow = await agent('POST', '/workflows', {
          workflowName: 'Budget review',
          trigger: { kind: 'manual' },
          nodes: [
            { nodeId: 'gate', kind: 'review', name: 'Approve the budget', settings: {} },
            { nodeId: 'raise', kind: 'budget', name: 'Raise prospecting', settings: { launchId: data.liveLaunchId, nodeId: first, amount: 6000 } },
          ],
          edges: [{ from: 'gate', to: 'raise' }],
        });
        expect(workflow.status, JSON.stringify(workflow.body)).to.equal(201);
        const run = await agent('POST', `/workflows/${workflow.body.workflowId}/runs`, {});
        expect(run.status, JSON.stringify(run.body)).to.equal(202);
        const execution = `/brands/${shoes}/workflows/${workflow.body.workflowId}/executions/${run.body.executionId}`;
        await waitFor(async () => (await rest('owner', execution)).status === 'waiting_review', 'the budget run to wait at its gate');
        const item = `#review-${run.body.executionId}-gate`;
        const page = as.owner.page;
        await page.goto(brandPath(shoes, '/reviews'));
        expect(await page.locator(`${item} .plan tbody td`).nth(1).textContent()).to.equal('$60.00');
        const drawn = await page.locator(`${item} input[name=plan_fingerprint]`).getAttribute('value');
        // The launch changes after the page was drawn (the other campaign's live budget): the approval is refused and drawn again.
        const edit = await agent(
          'POST',
          `/launches/${data.liveLaunchId}/nodes/${second}/live-budget`,
          { level: 'CAMPAIGN', budgetType: 'daily', amount: 3500 },
          {
            'Idempotency-Key': `console-budget-${run.body.executionId}`,
          },
        );
        expect(edit.status, JSON.stringify(edit.body)).to.equal(200);
        const refused = await approveAndConfirm(page, item);
        expect(refused.status()).to.equal(409);
        expect((await rest('owner', execution)).status).to.equal('waiting_review');
        const redrawn = await page.locator(`${item} input[name=plan_fingerprint]`).getAttribute('value');
        expect(redrawn).to.not.equal(drawn);
        expect(await page.locator(`${item} .plan`).textContent()).to.include('The plan as the launch is now.');
        expect(await page.locator(`${item} .plan tbody td`).nth(1).textContent()).to.equal('$60.00');
        await approveAndConfirm(page, item);
        await page.waitForURL(/notice=approved/);
        await waitFor(async () => (await rest('owner', execution)).status === 'succeeded', 'the budget run to finish');
        const after = await rest('owner', `/brands/${shoes}/launches/${data.liveLaunchId}`);
        expect(after.campaigns[0].node.properties.budget).to.deep.equal({ dailyAmount: 6000 });
      });

      it('holds every page to its Content-Security-Policy: a browser that enforces it reports no violation and applies the stylesheet', async () => {
        const strict = await persona(browser, w.url, { bypassCSP: false });
        try {
          const violations: string[] = [];
          strict.page.on('console', (m) => {
            if (/Content Security Policy/i.test(m.text())) violations.push(m.text());
          });
          await signIn(strict, w.url, 'owner');
          for (const path of ['', '/launches', `/launches/${data.reviewLaunchId}`, '/reviews', '/board', '/reports', '/automations', '/activity']) {
            await strict.page.goto(brandPath(data.brands.shoes, path));
          }
          expect(violations).to.deep.equal([]);
          expect(await strict.page.evaluate(() => getComputedStyle(document.querySelector('header')!).backgroundColor)).to.equal('rgb(22, 35, 59)');
          expect(strict.offOrigin).to.deep.equal([]);
        } finally {
          await strict.context.close();
        }
      });

      it('signs out: the session ends and the console asks for sign-in again', async () => {
        const page = as.member.page;
        await page.goto(`${w.url}/console`);
        await Promise.all([page.waitForURL(/\/console\/sign-in/), page.click('header button[type=submit]')]);
        await page.goto(`${w.url}/console`);
        expect(page.url()).to.match(/\/console\/sign-in\?return_to=%2Fconsole$/);
        expect((await as.member.context.cookies()).some((c) => c.name === SESSION_COOKIE)).to.equal(false);
      });
    });
  }

  describe('with an https BASE_URL', () => {
    let w: World;
    before(async () => {
      w = await startWorld({ dialect: 'sqlite', bootstrap: consoleWorld, env: { BASE_URL: 'https://console.example.test' } });
    });
    after(async () => {
      await w?.close();
    });

    it('sets the session cookie Secure, HttpOnly and SameSite=Lax', async () => {
      const res = await signInWithFetch(w.url, people.owner.email, people.owner.password, '/console');
      expect(res.status).to.equal(302);
      expect(res.location).to.equal('/console');
      const cookie = res.setCookie ?? '';
      expect(cookie).to.match(new RegExp(`^${SESSION_COOKIE}=`));
      expect(cookie.toLowerCase()).to.include('; secure');
      expect(cookie.toLowerCase()).to.include('; httponly');
      expect(cookie.toLowerCase()).to.include('; samesite=lax');
    });
  });
});
