// The account page over a real server, driven in headless Chromium where a person would click:
// an owner creates, edits and revokes an API key (the secret shown once) and the REST API follows
// each change; a member approves an app on the consent page, sees it, revokes it, and is refused
// key management; form posts without the CSRF token change nothing. Screenshots of the consent
// and account pages are written under test-artifacts/screenshots for review.

import crypto from 'node:crypto';
import fs from 'node:fs';
import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { dialects } from '../../helpers/databases.js';
import { startWorld, type World } from '../../helpers/world.js';
import { signIn, startOAuthWorld } from '../../helpers/oauth.js';
import { launchBrowser, screenshotPath } from '../../helpers/browser.js';
import { SESSION_COOKIE } from '../../../src/oauth/sessions.js';

interface Page200 {
  status: number;
  text: string;
  location: string | null;
}

async function fetchPage(url: string, init: RequestInit = {}): Promise<Page200> {
  const res = await fetch(url, { redirect: 'manual', ...init });
  return { status: res.status, text: await res.text(), location: res.headers.get('location') };
}

/** Signs in with fetch through the sign-in form; the session cookie as `name=value`. */
async function signInCookie(base: string, email: string, password: string): Promise<string> {
  const s = await signIn(base, email, password);
  if (s.status !== 302 || !s.cookie) throw new Error(`sign-in answered ${s.status}`);
  return s.cookie;
}

const csrfOf = (html: string) => /name="csrf_token" value="([^"]+)"/.exec(html)?.[1] ?? '';

/** A form post the way a browser sends it (repeated names for arrays). */
function postForm(url: string, cookie: string, fields: Record<string, string | string[] | undefined>): Promise<Page200> {
  const form = new URLSearchParams();
  for (const [k, v] of Object.entries(fields)) for (const one of v === undefined ? [] : Array.isArray(v) ? v : [v]) form.append(k, one);
  return fetchPage(url, { method: 'POST', headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, body: form });
}

async function brandsSeenBy(world: World, credential: string): Promise<{ status: number; ids: number[]; code?: string }> {
  const r = await world.request('GET', '/v1/brands', { key: credential });
  return { status: r.status, ids: r.status === 200 ? r.body.accounts.map((a: { brandId: number }) => a.brandId) : [], code: r.body?.error?.code };
}

const futureLocal = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 16);

for (const dialect of dialects()) {
  describe(`Account page in Chromium (${dialect})`, function () {
    this.timeout(60_000);
    let world: World;
    let browser: Browser;
    let owner: BrowserContext;
    let ownerPage: Page;
    let member: BrowserContext;
    let memberPage: Page;
    let shoes: number;
    let hats: number;
    let orgId: number;
    let ciKeyId: number;
    // Carried from one step of the story to the next.
    let secret = '';
    let keyId = 0;
    let appToken = '';
    let appRefresh = '';
    let appClientId = '';
    let grantId = 0;

    const keyCount = async () => Number((await world.service.knex('api_keys').count({ n: '*' }))[0].n);
    const cookieOf = async (context: BrowserContext) => {
      const c = (await context.cookies()).find((x) => x.name === SESSION_COOKIE);
      if (!c) throw new Error('no session cookie in the browser');
      return `${c.name}=${c.value}`;
    };
    const signInWithBrowser = async (page: Page, email: string, password: string) => {
      await page.locator('#email').waitFor();
      expect(await page.locator('h1').textContent()).to.equal('Sign in');
      await page.fill('#email', email);
      await page.fill('#password', password);
      await page.click('button[type=submit]');
    };

    before(async () => {
      // KEY_CACHE_MS=0: every call looks the key up again, so each change shows on the next call.
      // BASE_URL is the address the server listens on, so the consent page names the real API.
      world = await startOAuthWorld(dialect, undefined, { KEY_CACHE_MS: '0' });
      browser = await launchBrowser();
      owner = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      member = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      ownerPage = await owner.newPage();
      memberPage = await member.newPage();
      shoes = world.brandId('acme', 'shoes');
      hats = world.brandId('acme', 'hats');
      orgId = world.seed.organizations.acme.id;
      ciKeyId = world.seed.organizations.acme.apiKeys.ci.id;
    });
    after(async () => {
      await browser?.close();
      await world?.close();
    });

    it('asks for sign-in at /account and then shows the owner the organization keys', async () => {
      const res = await ownerPage.goto(`${world.url}/account`);
      expect(res?.status()).to.equal(200);
      await signInWithBrowser(ownerPage, 'olive@acme.test', 'correct horse 1');
      await ownerPage.waitForURL(`${world.url}/account`);
      expect(await ownerPage.locator('#who').textContent()).to.equal('Olive Owner');
      expect(await ownerPage.locator('#keys').textContent()).to.equal('API keys of Acme Agency');
      // The bootstrap keys are listed by prefix only; the revoked one shows as revoked.
      const ciRow = ownerPage.locator(`#key-${ciKeyId}`);
      expect(await ciRow.locator('.key-prefix').textContent()).to.equal(`${world.key('acme', 'ci').slice(0, 19)}…`);
      expect(await ownerPage.locator(`#key-${world.seed.organizations.acme.apiKeys.revoked.id}`).getAttribute('data-status')).to.equal('revoked');
      expect(await ownerPage.content()).not.to.include(world.key('acme', 'ci'));
    });

    it('creates a key with the five settings; the secret is shown once, then only its prefix', async () => {
      const expires = futureLocal(365);
      const before = await keyCount();
      await ownerPage.fill('#create-key-name', 'Browser key');
      await ownerPage.check('#create-key-scope-read');
      await ownerPage.check('#create-key-scope-write');
      expect(await ownerPage.isChecked('#create-key-scope-publish')).to.equal(false);
      expect(await ownerPage.isChecked('#create-key-surface_mcp-1')).to.equal(true, 'new keys have MCP on');
      expect(await ownerPage.isChecked('#create-key-surface_api-1')).to.equal(false, 'new keys have API off');
      await ownerPage.check('#create-key-surface_api-1');
      await ownerPage.check('#create-key-limit-some');
      await ownerPage.check(`#create-key-brand-${shoes}`);
      await ownerPage.fill('#create-key-expires', expires);
      await ownerPage.fill('#create-key-ceiling', '250.50');
      await ownerPage.click('#create-key button[type=submit]');
      await ownerPage.locator('#new-secret').waitFor();

      secret = (await ownerPage.locator('#new-secret').textContent())!.trim();
      expect(secret).to.match(/^svc_sk_[A-Za-z0-9]{44}$/);
      expect(await keyCount()).to.equal(before + 1);
      const row = ownerPage.locator('tr.key', { has: ownerPage.locator('.key-name', { hasText: /^Browser key$/ }) });
      keyId = Number(await row.getAttribute('data-key-id'));
      expect(await row.locator('.key-prefix').textContent()).to.equal(`${secret.slice(0, 19)}…`);
      expect(await row.locator('.key-scopes').textContent()).to.equal('read, write');
      expect(await row.locator('.key-surfaces').textContent()).to.equal('MCP, API');
      expect(await row.locator('.key-brands').textContent()).to.equal('Shoes Co');
      expect(await row.locator('.key-expiry').textContent()).to.equal(`${expires.replace('T', ' ')} UTC`);
      expect(await row.locator('.key-ceiling').textContent()).to.equal('$250.50$0.00 committed');
      await ownerPage.screenshot({ path: screenshotPath('account-owner.png'), fullPage: true });

      // Stored: prefix, salt and hash; never the secret.
      const stored = await world.service.knex('api_keys').where({ id: keyId }).first();
      expect(JSON.stringify(stored)).not.to.include(secret);
      expect(stored.lookup_prefix).to.equal(secret.slice(0, 19));
      expect(Number(stored.expires_at)).to.equal(Date.parse(`${expires}Z`));
      expect(Number(stored.publish_ceiling_cents)).to.equal(25050);
      expect(Number(stored.created_by_user_id)).to.equal(world.seed.organizations.acme.users.olive.id);

      await ownerPage.goto(`${world.url}/account`);
      const html = await ownerPage.content();
      expect(html).not.to.include(secret);
      expect(await ownerPage.locator('#new-secret').count()).to.equal(0);
      expect(await ownerPage.locator(`#key-${keyId} .key-prefix`).textContent()).to.equal(`${secret.slice(0, 19)}…`);
    });

    it('the new secret works on GET /v1/brands and lists only its brand', async () => {
      expect(await brandsSeenBy(world, secret)).to.deep.equal({ status: 200, ids: [shoes], code: undefined });
    });

    it('edits the brand limit and the API reflects it on the next call', async () => {
      await ownerPage.goto(`${world.url}/account`);
      await ownerPage.click(`#edit-${keyId} summary`);
      await ownerPage.uncheck(`#edit-key-${keyId}-brand-${shoes}`);
      await ownerPage.check(`#edit-key-${keyId}-brand-${hats}`);
      await ownerPage.locator(`#edit-${keyId}`).screenshot({ path: screenshotPath('account-owner-edit.png') });
      await ownerPage.click(`#edit-key-${keyId} button[type=submit]`);
      await ownerPage.waitForURL(/notice=key_saved/);
      expect(await ownerPage.locator('#notice').textContent()).to.include('The key was saved');
      expect(await ownerPage.locator(`#key-${keyId} .key-brands`).textContent()).to.equal('Hats Co');
      // The other settings are kept as they were.
      expect(await ownerPage.locator(`#key-${keyId} .key-scopes`).textContent()).to.equal('read, write');
      expect(await ownerPage.locator(`#key-${keyId} .key-surfaces`).textContent()).to.equal('MCP, API');
      expect(Number((await world.service.knex('api_keys').where({ id: keyId }).first()).publish_ceiling_cents)).to.equal(25050);

      expect(await brandsSeenBy(world, secret)).to.deep.equal({ status: 200, ids: [hats], code: undefined });
    });

    it('refuses an edit with invalid settings, shows why, and changes nothing', async () => {
      await ownerPage.goto(`${world.url}/account`);
      await ownerPage.click(`#edit-${keyId} summary`);
      await ownerPage.uncheck(`#edit-key-${keyId}-scope-read`);
      await ownerPage.uncheck(`#edit-key-${keyId}-scope-write`);
      await ownerPage.uncheck(`#edit-key-${keyId}-brand-${hats}`);
      const res = await Promise.all([
        ownerPage.waitForResponse((r) => r.url().endsWith(`/account/keys/${keyId}`)),
        ownerPage.click(`#edit-key-${keyId} button[type=submit]`),
      ]);
      expect(res[0].status()).to.equal(400);
      const alert = await ownerPage.locator('.error').textContent();
      expect(alert).to.include('Scopes').and.include('at least one');
      expect(alert).to.include('Brand limit').and.include('at least one brand');
      expect(await brandsSeenBy(world, secret)).to.deep.equal({ status: 200, ids: [hats], code: undefined });
    });

    it('revokes the key and the revoked key gets 401 on the next call', async () => {
      await ownerPage.goto(`${world.url}/account`);
      expect((await brandsSeenBy(world, secret)).status).to.equal(200);
      await ownerPage.click(`#revoke-key-${keyId} button`);
      await ownerPage.waitForURL(/notice=key_revoked/);
      expect(await ownerPage.locator(`#key-${keyId}`).getAttribute('data-status')).to.equal('revoked');
      expect(await ownerPage.locator(`#revoke-key-${keyId}`).count()).to.equal(0, 'a revoked key offers no actions');
      const after = await brandsSeenBy(world, secret);
      expect(after.status).to.equal(401);
      expect(after.code).to.equal('unauthenticated');
    });

    it('refuses form posts without the session CSRF token and changes nothing', async () => {
      const cookie = await cookieOf(owner);
      const before = await keyCount();
      const revoke = await postForm(`${world.url}/account/keys/${ciKeyId}/revoke`, cookie, { organization_id: String(orgId) });
      expect(revoke.status).to.equal(403);
      expect(revoke.text).to.include('CSRF');
      const forged = await postForm(`${world.url}/account/keys`, cookie, {
        csrf_token: 'x'.repeat(32),
        organization_id: String(orgId),
        name: 'Forged',
        scope: 'read',
        surface_mcp: '1',
        brand_limit: 'all',
      });
      expect(forged.status).to.equal(403);
      const edit = await postForm(`${world.url}/account/keys/${ciKeyId}`, cookie, {
        organization_id: String(orgId),
        name: 'Hijacked',
        scope: 'read',
        brand_limit: 'all',
      });
      expect(edit.status).to.equal(403);
      expect(await keyCount()).to.equal(before);
      const ci = await world.service.knex('api_keys').where({ id: ciKeyId }).first();
      expect(ci.revoked_at).to.equal(null);
      expect(ci.name).to.equal('CI key');
      expect((await brandsSeenBy(world, world.key('acme', 'ci'))).status).to.equal(200);
    });

    it('shows nothing of an organization the person is not in, asked for by ?org', async () => {
      const cookie = await cookieOf(owner);
      const other = await fetchPage(`${world.url}/account?org=${world.seed.organizations.other.id}`, { headers: { cookie } });
      expect(other.status).to.equal(200);
      expect(other.text).to.include('not a member of that organization');
      expect(other.text).not.to.include('Other key');
      expect(other.text).not.to.include('Other Agency');
      expect(other.text).to.include('API keys of Acme Agency');
    });

    it('creates a publish key without a ceiling, with a warning, and refuses an invalid form', async () => {
      const cookie = await cookieOf(owner);
      const page = await fetchPage(`${world.url}/account`, { headers: { cookie } });
      const csrf = csrfOf(page.text);
      const base = { csrf_token: csrf, organization_id: String(orgId) };
      const before = await keyCount();
      const bad = await postForm(`${world.url}/account/keys`, cookie, {
        ...base,
        name: '',
        scope: ['read', 'admin'],
        surface_mcp: '1',
        brand_limit: 'some',
        brand: String(world.brandId('other', 'rival')),
        expires_at: '2020-01-01T00:00',
        publish_ceiling: '10.005',
      });
      expect(bad.status).to.equal(400);
      for (const words of ['Name', 'unknown scope', 'not a brand of this organization', 'must be in the future', 'whole cents'])
        expect(bad.text).to.include(words);
      expect(bad.text).not.to.include('id="new-secret"');
      expect(await keyCount()).to.equal(before);

      const ok = await postForm(`${world.url}/account/keys`, cookie, {
        ...base,
        name: 'Publisher',
        scope: ['read', 'publish'],
        surface_mcp: '1',
        brand_limit: 'all',
      });
      expect(ok.status).to.equal(200);
      expect(ok.text).to.match(/id="new-secret">svc_sk_[A-Za-z0-9]{44}</);
      expect(ok.text).to.include('spend_ceiling_required');
      expect(await keyCount()).to.equal(before + 1);
    });

    it('lets a member approve an app on the consent page and see it on /account', async () => {
      const reg = await world.request('POST', '/oauth/register', { body: { client_name: 'Report Builder', redirect_uris: ['http://127.0.0.1:9/callback'] } });
      expect(reg.status).to.equal(201);
      appClientId = reg.body.client_id;
      const verifier = crypto.randomBytes(32).toString('base64url');
      const query = new URLSearchParams({
        response_type: 'code',
        client_id: appClientId,
        redirect_uri: 'http://127.0.0.1:9/callback',
        scope: 'read write',
        state: 'st4te',
        code_challenge: crypto.createHash('sha256').update(verifier).digest('base64url'),
        code_challenge_method: 'S256',
        resource: world.service.oauth.apiResource,
      });
      // The app's redirect URI: the browser's request to it is answered here, code and all.
      let callback: URL | null = null;
      await memberPage.route('http://127.0.0.1:9/**', async (route) => {
        callback = new URL(route.request().url());
        await route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><title>Done</title><p>Signed in.</p>' });
      });
      await memberPage.goto(`${world.url}/oauth/authorize?${query}`);
      await signInWithBrowser(memberPage, 'mia@acme.test', 'correct horse 2');
      await memberPage.locator('#approve').waitFor();
      expect(await memberPage.locator('#app-name').textContent()).to.equal('Report Builder');
      await memberPage.screenshot({ path: screenshotPath('consent.png'), fullPage: true });
      await memberPage.click('#approve');
      await memberPage.waitForURL(/^http:\/\/127\.0\.0\.1:9\/callback/);
      const cb = callback as URL | null;
      expect(cb?.searchParams.get('state')).to.equal('st4te');
      const code = cb!.searchParams.get('code')!;

      const tokenRes = await fetch(`${world.url}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code,
          redirect_uri: 'http://127.0.0.1:9/callback',
          client_id: appClientId,
          code_verifier: verifier,
        }),
      });
      expect(tokenRes.status).to.equal(200);
      const tokens = (await tokenRes.json()) as { access_token: string; refresh_token: string };
      appToken = tokens.access_token;
      appRefresh = tokens.refresh_token;
      // The token acts as Mia: her brand limit (shoes) applies.
      expect(await brandsSeenBy(world, appToken)).to.deep.equal({ status: 200, ids: [shoes], code: undefined });

      await memberPage.goto(`${world.url}/account`);
      const app = memberPage.locator('tr.app', { has: memberPage.locator('.app-name', { hasText: /^Report Builder$/ }) });
      expect(await app.count()).to.equal(1);
      grantId = Number(await app.getAttribute('data-grant-id'));
      expect(await app.textContent()).to.include('read, write on the REST API');
      // A member gets no key management: no key table, no key forms.
      expect(await memberPage.locator('#keys-not-allowed').textContent()).to.include('owner and admins');
      expect(await memberPage.locator('#keys-table').count()).to.equal(0);
      expect(await memberPage.locator('form[action^="/account/keys"]').count()).to.equal(0);
      await memberPage.screenshot({ path: screenshotPath('account-member.png'), fullPage: true });
    });

    it('refuses a member key management with 403 forbidden', async () => {
      const res = await memberPage.goto(`${world.url}/account/keys`);
      expect(res?.status()).to.equal(403);
      expect(await memberPage.locator('#error-code').textContent()).to.equal('forbidden');
      await memberPage.screenshot({ path: screenshotPath('account-member-forbidden.png') });

      const cookie = await cookieOf(member);
      const csrf = csrfOf((await fetchPage(`${world.url}/account`, { headers: { cookie } })).text);
      expect(csrf).not.to.equal('');
      const before = await keyCount();
      const create = await postForm(`${world.url}/account/keys`, cookie, {
        csrf_token: csrf,
        organization_id: String(orgId),
        name: 'Mine',
        scope: 'read',
        surface_mcp: '1',
        brand_limit: 'all',
      });
      expect(create.status).to.equal(403);
      expect(create.text).to.include('<code id="error-code">forbidden</code>');
      expect(create.text).not.to.include('svc_sk_');
      const edit = await postForm(`${world.url}/account/keys/${ciKeyId}`, cookie, {
        csrf_token: csrf,
        organization_id: String(orgId),
        name: 'Mine now',
        scope: 'read',
        brand_limit: 'all',
      });
      expect(edit.status).to.equal(403);
      const revoke = await postForm(`${world.url}/account/keys/${ciKeyId}/revoke`, cookie, { csrf_token: csrf, organization_id: String(orgId) });
      expect(revoke.status).to.equal(403);
      expect(revoke.text).to.include('forbidden');
      const one = await fetchPage(`${world.url}/account/keys/${ciKeyId}`, { headers: { cookie } });
      expect(one.status).to.equal(403);
      expect(await keyCount()).to.equal(before);
      const ci = await world.service.knex('api_keys').where({ id: ciKeyId }).first();
      expect([ci.name, ci.revoked_at]).to.deep.equal(['CI key', null]);
    });

    it("shows the owner only their own apps and refuses revoking another person's", async () => {
      await ownerPage.goto(`${world.url}/account`);
      expect(await ownerPage.locator('tr.app').count()).to.equal(0);
      expect(await ownerPage.locator('#no-apps').count()).to.equal(1);
      const cookie = await cookieOf(owner);
      const csrf = csrfOf(await ownerPage.content());
      const r = await postForm(`${world.url}/account/apps/${grantId}/revoke`, cookie, { csrf_token: csrf });
      expect(r.status).to.equal(404);
      expect((await world.service.knex('oauth_grants').where({ id: grantId }).first()).revoked_at).to.equal(null);
      expect((await brandsSeenBy(world, appToken)).status).to.equal(200);
    });

    it('lets the member revoke the app; its access token then gets 401 and its refresh token is refused', async () => {
      await memberPage.goto(`${world.url}/account`);
      await memberPage.click(`#revoke-app-${grantId} button`);
      await memberPage.waitForURL(/notice=app_revoked/);
      expect(await memberPage.locator('tr.app').count()).to.equal(0);
      expect(await memberPage.locator('#no-apps').count()).to.equal(1);
      const after = await brandsSeenBy(world, appToken);
      expect([after.status, after.code]).to.deep.equal([401, 'unauthenticated']);
      const refreshed = await fetch(`${world.url}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: appRefresh, client_id: appClientId }),
      });
      expect(refreshed.status).to.equal(400);
      expect(((await refreshed.json()) as { error: string }).error).to.equal('invalid_grant');
    });

    it('signs out: the session no longer opens the account page', async () => {
      const cookie = await cookieOf(member);
      await memberPage.click('#signout button');
      await memberPage.waitForURL(`${world.url}/account`);
      expect(await memberPage.locator('h1').textContent()).to.equal('Sign in');
      const again = await fetchPage(`${world.url}/account`, { headers: { cookie } });
      expect(again.text).to.include('<h1>Sign in</h1>');
    });

    it('wrote the screenshots of the consent and account pages', () => {
      for (const name of ['consent.png', 'account-owner.png', 'account-owner-edit.png', 'account-member.png', 'account-member-forbidden.png']) {
        const file = screenshotPath(name);
        expect(fs.existsSync(file), file).to.equal(true);
        expect(fs.statSync(file).size).to.be.greaterThan(5_000);
      }
    });
  });

  describe(`Account page for a person in several organizations (${dialect})`, function () {
    this.timeout(30_000);
    let world: World;
    let cookie = '';
    const org = (ref: string) => world.seed.organizations[ref].id;

    before(async () => {
      world = await startWorld({
        dialect,
        env: { KEY_CACHE_MS: '0' },
        bootstrap: {
          organizations: [
            {
              ref: 'agency',
              name: 'Big Agency',
              plan: 'agency',
              subscriptionStatus: 'active',
              users: [{ ref: 'pat', email: 'pat@multi.test', name: 'Pat Many', password: 'pat password 1', role: 'owner' }],
              brands: [{ ref: 'a1', name: 'Agency Brand' }],
              apiKeys: [{ ref: 'agencyKey', name: 'Agency key', scopes: ['read'], surfaces: { api: true, mcp: true } }],
            },
            {
              ref: 'pro',
              name: 'Pro Studio',
              plan: 'pro',
              subscriptionStatus: 'active',
              users: [{ ref: 'pat', email: 'pat@multi.test', name: 'Pat Many', password: 'pat password 1', role: 'admin' }],
              brands: [{ ref: 'p1', name: 'Studio Brand' }],
            },
            {
              ref: 'client',
              name: 'Client Co',
              plan: 'agency',
              subscriptionStatus: 'active',
              users: [{ ref: 'pat', email: 'pat@multi.test', name: 'Pat Many', password: 'pat password 1', role: 'member' }],
              brands: [{ ref: 'c1', name: 'Client Brand' }],
            },
            { ref: 'stranger', name: 'Stranger Inc', plan: 'agency', subscriptionStatus: 'active', brands: [{ ref: 's1', name: 'Strange Brand' }] },
          ],
        },
      });
      cookie = await signInCookie(world.url, 'pat@multi.test', 'pat password 1');
    });
    after(async () => world?.close());

    const keysOf = async (ref: string) =>
      world.service
        .knex('api_keys')
        .where({ organization_id: org(ref) })
        .select('id', 'name', 'surface_api', 'revoked_at');

    it('offers an organization picker and shows keys only once one is chosen', async () => {
      const page = await fetchPage(`${world.url}/account`, { headers: { cookie } });
      expect(page.status).to.equal(200);
      expect(page.text).to.include('id="choose-org"');
      for (const name of ['Big Agency (owner)', 'Pro Studio (admin)', 'Client Co (member)']) expect(page.text).to.include(name);
      expect(page.text).not.to.include('id="keys-table"');
      const chosen = await fetchPage(`${world.url}/account?org=${org('agency')}`, { headers: { cookie } });
      expect(chosen.text).to.include('API keys of Big Agency');
      expect(chosen.text).to.include('Agency key');
      const stranger = await fetchPage(`${world.url}/account?org=${org('stranger')}`, { headers: { cookie } });
      expect(stranger.text).to.include('not a member of that organization');
      expect(stranger.text).not.to.include('Stranger Inc');
    });

    it('lets an admin manage keys, but switches API on only for an agency plan', async () => {
      const page = await fetchPage(`${world.url}/account?org=${org('pro')}`, { headers: { cookie } });
      expect(page.text).to.include('API keys of Pro Studio');
      expect(page.text).to.match(/id="create-key-surface_api-1" disabled/);
      const csrf = csrfOf(page.text);
      const fields = { csrf_token: csrf, organization_id: String(org('pro')), name: 'Studio key', scope: 'read', surface_mcp: '1', brand_limit: 'all' };
      const refused = await postForm(`${world.url}/account/keys`, cookie, { ...fields, surface_api: '1' });
      expect(refused.status).to.equal(400);
      expect(refused.text).to.include('agency plan with an active subscription');
      expect(await keysOf('pro')).to.have.length(0);
      const created = await postForm(`${world.url}/account/keys`, cookie, fields);
      expect(created.status).to.equal(200);
      const keys = await keysOf('pro');
      expect(keys.map((k) => [k.name, Boolean(k.surface_api)])).to.deep.equal([['Studio key', false]]);
      const secret = /id="new-secret">([^<]+)</.exec(created.text)![1];
      // The pro plan does not admit the REST API at all.
      expect((await brandsSeenBy(world, secret)).code).to.equal('plan_required');
    });

    it('keeps each organization to its own keys and brands', async () => {
      const csrf = csrfOf((await fetchPage(`${world.url}/account?org=${org('pro')}`, { headers: { cookie } })).text);
      const agencyKey = world.seed.organizations.agency.apiKeys.agencyKey.id;
      // Naming the pro organization, the agency's key is not found there.
      const revoke = await postForm(`${world.url}/account/keys/${agencyKey}/revoke`, cookie, { csrf_token: csrf, organization_id: String(org('pro')) });
      expect(revoke.status).to.equal(404);
      expect(revoke.text).to.include('not_found');
      expect((await keysOf('agency'))[0].revoked_at).to.equal(null);
      // A brand of another organization cannot be a brand limit.
      const foreign = await postForm(`${world.url}/account/keys`, cookie, {
        csrf_token: csrf,
        organization_id: String(org('pro')),
        name: 'Cross',
        scope: 'read',
        surface_mcp: '1',
        brand_limit: 'some',
        brand: String(world.brandId('agency', 'a1')),
      });
      expect(foreign.status).to.equal(400);
      expect(foreign.text).to.include('not a brand of this organization');
      // An organization the person does not belong to is refused outright.
      const stranger = await postForm(`${world.url}/account/keys`, cookie, {
        csrf_token: csrf,
        organization_id: String(org('stranger')),
        name: 'X',
        scope: 'read',
        surface_mcp: '1',
        brand_limit: 'all',
      });
      expect(stranger.status).to.equal(403);
      expect(await keysOf('stranger')).to.have.length(0);
    });

    it('refuses key management in the organization where the person is only a member', async () => {
      const page = await fetchPage(`${world.url}/account?org=${org('client')}`, { headers: { cookie } });
      expect(page.text).to.include('id="keys-not-allowed"');
      expect(page.text).not.to.include('action="/account/keys');
      const csrf = csrfOf(page.text);
      const r = await postForm(`${world.url}/account/keys`, cookie, {
        csrf_token: csrf,
        organization_id: String(org('client')),
        name: 'X',
        scope: 'read',
        surface_mcp: '1',
        brand_limit: 'all',
      });
      expect(r.status).to.equal(403);
      expect(r.text).to.include('<code id="error-code">forbidden</code>');
      const get = await fetchPage(`${world.url}/account/keys?org=${org('client')}`, { headers: { cookie } });
      expect(get.status).to.equal(403);
      expect(await keysOf('client')).to.have.length(0);
      // The same person is an owner elsewhere: there, /account/keys leads to the key table.
      const owned = await fetchPage(`${world.url}/account/keys?org=${org('agency')}`, { headers: { cookie } });
      expect(owned.status).to.equal(303);
      expect(owned.location).to.equal(`/account?org=${org('agency')}#keys`);
    });
  });
}
