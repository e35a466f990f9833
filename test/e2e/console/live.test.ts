// The console's live controls in headless Chromium, on SQLite and MariaDB: on a published launch's
// page the owner pauses a live campaign at once (REST and the platform read PAUSED); Resume first
// shows what it will spend and changes nothing until Confirm; a budget change likewise, counted
// against the person's own ceiling; a confirmation drawn before the node changed is drawn again and
// changes nothing; a member sees no control, and her forged post is refused with nothing changed.

import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { dialects } from '../../helpers/databases.js';
import type { World } from '../../helpers/world.js';
import { startOAuthWorld } from '../../helpers/oauth.js';
import { launchBrowser } from '../../helpers/browser.js';
import {
  consoleEnv,
  consoleWorld,
  people,
  persona,
  restTokenFor,
  seedConsoleWorld,
  signIn,
  visit,
  type ConsoleData,
  type Persona,
} from '../../helpers/console.js';

describe('Live controls in the console (Chromium)', function () {
  this.timeout(240_000);
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
      let data: ConsoleData;
      let owner: Persona;
      let member: Persona;
      let admin: Persona;
      let ownerToken: string;
      const launchUrl = () => `${w.url}/console/brands/${data.brands.shoes}/launches/${data.liveLaunchId}`;
      const tree = async () => {
        const r = await w.request('GET', `/v1/brands/${data.brands.shoes}/launches/${data.liveLaunchId}`, { key: ownerToken });
        expect(r.status).to.equal(200);
        return r.body;
      };
      const campaign = async (name: string) => (await tree()).campaigns.find((c: any) => c.node.properties.name === name).node;
      /** What the platform (the sandbox) holds for the campaign, read live over REST. */
      const onPlatform = async (platformId: string) => {
        const r = await w.request('GET', `/v1/brands/${data.brands.shoes}/ad-accounts/act_1101/campaigns?limit=100`, { key: w.key('acme', 'ci') });
        expect(r.status, JSON.stringify(r.body).slice(0, 300)).to.equal(200);
        return r.body.campaigns.find((c: any) => c.id === platformId);
      };

      before(async () => {
        w = await startOAuthWorld(dialect, consoleWorld, consoleEnv);
        data = await seedConsoleWorld(w);
        ownerToken = await restTokenFor(w, people.owner);
        owner = await persona(browser, w.url);
        member = await persona(browser, w.url);
        admin = await persona(browser, w.url);
        await signIn(owner, w.url, 'owner');
        await signIn(admin, w.url, 'admin');
        await signIn(member, w.url, 'member');
      });
      after(async () => {
        await owner?.context.close();
        await member?.context.close();
        await admin?.context.close();
        await w?.close();
      });

      it('Pause pauses the live campaign at once; Resume shows what it will spend and changes nothing until Confirm', async () => {
        const spring = await campaign('Spring prospecting');
        expect(spring.properties.status ?? 'ACTIVE').to.equal('ACTIVE');
        const page = await visit(owner, launchUrl(), 'owner-live-launch');
        await page.getByRole('button', { name: 'Pause Spring prospecting', exact: true }).click();
        await page.waitForURL(/notice=paused/);
        expect(await page.locator('#notice').textContent()).to.match(/Paused/);
        expect((await campaign('Spring prospecting')).properties.status).to.equal('PAUSED');
        const live = await onPlatform(spring.platformId);
        expect(live?.status, JSON.stringify(live)).to.equal('PAUSED');

        await page.getByRole('button', { name: 'Resume Spring prospecting', exact: true }).click();
        await page.waitForSelector('#change');
        expect(await page.locator('#change').textContent()).to.equal('Resume campaign “Spring prospecting”: up to $50.00 a day on act_1101.');
        await page.screenshot({ path: 'test-artifacts/screenshots/owner-live-resume-confirm.png' }).catch(() => undefined);
        // Drawn, not done: the campaign is still paused.
        expect((await campaign('Spring prospecting')).properties.status).to.equal('PAUSED');
        // A key raises the budget after the page was drawn: Confirm changes nothing and shows what resuming spends now.
        const raise = await w.request('POST', `/v1/brands/${data.brands.shoes}/launches/${data.liveLaunchId}/nodes/${spring.id}/live-budget`, {
          key: w.key('acme', 'ci'),
          body: { level: 'CAMPAIGN', budgetType: 'daily', amount: 6000 },
          headers: { 'Idempotency-Key': `live-resume-${dialect}` },
        });
        expect(raise.status, JSON.stringify(raise.body)).to.equal(200);
        const [stale] = await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), page.locator('#confirm').click()]);
        expect(stale.status()).to.equal(409);
        expect(await page.locator('#change').textContent()).to.equal('Resume campaign “Spring prospecting”: up to $60.00 a day on act_1101.');
        expect((await campaign('Spring prospecting')).properties.status).to.equal('PAUSED');
        await page.locator('#confirm').click();
        await page.waitForURL(/notice=resumed/);
        expect((await campaign('Spring prospecting')).properties.status).to.equal('ACTIVE');
      });

      it('a budget change shows the change and its ceiling, changes nothing until Confirm, then sets it; one drawn before a change is drawn again', async () => {
        const retargeting = await campaign('Spring retargeting');
        expect(retargeting.properties.budget).to.deep.equal({ dailyAmount: 3000 });
        const page = await visit(owner, launchUrl(), 'owner-live-launch-budget');
        await page.locator(`#budget-${retargeting.id}`).fill('45.50');
        await page.getByRole('button', { name: 'Change budget Spring retargeting', exact: true }).click();
        await page.waitForSelector('#change');
        expect(await page.locator('#change').textContent()).to.equal(
          'Change the budget of campaign “Spring retargeting” on act_1101 from $30.00 a day to $45.50 a day.',
        );
        expect((await campaign('Spring retargeting')).properties.budget).to.deep.equal({ dailyAmount: 3000 });
        await page.locator('#confirm').click();
        await page.waitForURL(/notice=budget/);
        expect((await campaign('Spring retargeting')).properties.budget).to.deep.equal({ dailyAmount: 4550 });

        // A confirmation drawn, then the budget changed by a key: Confirm draws the change as it is now.
        await visit(owner, launchUrl(), 'owner-live-launch-budget-2');
        await page.locator(`#budget-${retargeting.id}`).fill('60');
        await page.getByRole('button', { name: 'Change budget Spring retargeting', exact: true }).click();
        await page.waitForSelector('#confirm');
        const edit = await w.request('POST', `/v1/brands/${data.brands.shoes}/launches/${data.liveLaunchId}/nodes/${retargeting.id}/live-budget`, {
          key: w.key('acme', 'ci'),
          body: { level: 'CAMPAIGN', budgetType: 'daily', amount: 5200 },
          headers: { 'Idempotency-Key': `live-test-${dialect}` },
        });
        expect(edit.status, JSON.stringify(edit.body)).to.equal(200);
        const [answer] = await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), page.locator('#confirm').click()]);
        expect(answer.status()).to.equal(409);
        expect(await page.locator('#changed').textContent()).to.match(/changed since/);
        expect(await page.locator('#change').textContent()).to.match(/from \$52\.00 a day to \$60\.00 a day/);
        expect((await campaign('Spring retargeting')).properties.budget).to.deep.equal({ dailyAmount: 5200 });

        // The owner's own ceiling is $500 (bootstrap users[].publishCeilingDollars), $45.50 of it spent above: $480 more is refused.
        await visit(owner, launchUrl(), 'owner-live-launch-budget-3');
        await page.locator(`#budget-${retargeting.id}`).fill('480');
        await page.getByRole('button', { name: 'Change budget Spring retargeting', exact: true }).click();
        await page.waitForSelector('#confirm');
        const [over] = await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), page.locator('#confirm').click()]);
        expect(over.status()).to.equal(403);
        expect(await page.locator('#refusal').textContent()).to.match(/ceiling/i);
        expect((await campaign('Spring retargeting')).properties.budget).to.deep.equal({ dailyAmount: 5200 });
      });

      it('an admin has the controls; a member sees no live control, and her forged post is refused and changes nothing', async () => {
        const asAdmin = await visit(admin, launchUrl(), 'admin-live-launch');
        // Two campaigns, two ad sets, three ads: each has its Pause or Resume; the campaigns carry the budgets.
        expect(await asAdmin.locator('.live-controls').count()).to.equal(7);
        expect(await asAdmin.getByRole('button', { name: /^Change budget / }).count()).to.equal(2);
        const page = await visit(member, launchUrl(), 'member-live-launch');
        expect(await page.locator('.live-controls').count()).to.equal(0);
        const spring = await campaign('Spring prospecting');
        const csrf = (await page.locator('input[name=csrf_token]').first().getAttribute('value')) ?? '';
        const forged = await member.page.request.post(`${launchUrl()}/live`, {
          form: { csrf_token: csrf, node_id: spring.id, action: 'pause' },
          maxRedirects: 0,
          failOnStatusCode: false,
        });
        expect(forged.status()).to.equal(403);
        expect(await forged.text()).to.match(/publish/);
        expect((await campaign('Spring prospecting')).properties.status).to.equal('ACTIVE');
      });
    });
  }
});
