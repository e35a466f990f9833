// The console on a phone, in headless Chromium at 390 px wide: no page of a brand (every page the
// navigation lists, a launch, a run and the reports with a day breakdown) is wider than the screen,
// for the owner and for a member; tables scroll in their own box, long names and ids wrap, and
// axe-core still reports no serious or critical violation; the skip link leads to the main content.

import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { dialects } from '../../helpers/databases.js';
import type { World } from '../../helpers/world.js';
import { startOAuthWorld } from '../../helpers/oauth.js';
import { launchBrowser } from '../../helpers/browser.js';
import { consoleEnv, consoleWorld, persona, seedConsoleWorld, signIn, visit, type ConsoleData, type Persona } from '../../helpers/console.js';

const WIDTH = 390;

describe('The console at 390 px (Chromium)', function () {
  this.timeout(240_000);
  let browser: Browser;
  before(async () => {
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
  });

  // One dialect is enough for a layout; the pages' figures are checked on both elsewhere.
  const dialect = dialects()[0];
  let w: World;
  let data: ConsoleData;
  const as: Partial<Record<'owner' | 'member', Persona>> = {};

  before(async () => {
    w = await startOAuthWorld(dialect, consoleWorld, consoleEnv);
    data = await seedConsoleWorld(w);
    for (const who of ['owner', 'member'] as const) {
      as[who] = await persona(browser, w.url, { width: WIDTH });
      await signIn(as[who]!, w.url, who);
    }
  });
  after(async () => {
    for (const p of Object.values(as)) await p?.context.close();
    await w?.close();
  });

  for (const who of ['owner', 'member'] as const) {
    it(`no page is wider than the screen for the ${who}`, async () => {
      const shoes = `${w.url}/console/brands/${data.brands.shoes}`;
      const pages = [
        `${w.url}/console`,
        shoes,
        `${shoes}/launches`,
        `${shoes}/launches/${data.liveLaunchId}`,
        `${shoes}/launches/${data.reviewLaunchId}`,
        `${shoes}/reviews`,
        `${shoes}/board`,
        `${shoes}/reports`,
        `${shoes}/reports?datePreset=last_14d&breakdown=day`,
        `${shoes}/automations`,
        `${shoes}/activity`,
        `${shoes}/workflows/${data.workflowId}/runs/${data.executionId}`,
      ];
      for (const url of pages) {
        const page = await visit(as[who]!, url, `${who}-phone${new URL(url).pathname.replace(/\//g, '-')}`);
        const width = await page.evaluate(() => document.documentElement.scrollWidth);
        expect(width, `${url} as ${who} is ${width} px wide`).to.be.at.most(WIDTH);
      }
      // The account page the console links to (its own layout).
      const account = as[who]!.page;
      await account.goto(`${w.url}/account`);
      expect(await account.evaluate(() => document.documentElement.scrollWidth), `/account as ${who}`).to.be.at.most(WIDTH);
    });
  }

  it('the skip link is the first thing a keyboard reaches and leads to the main content', async () => {
    const page = as.owner!.page;
    await page.goto(`${w.url}/console/brands/${data.brands.shoes}`);
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).to.equal('Skip to main content');
    await page.keyboard.press('Enter');
    expect(await page.evaluate(() => document.activeElement?.id)).to.equal('main');
  });
});
