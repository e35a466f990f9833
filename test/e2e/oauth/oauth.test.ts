// The OAuth 2.1 authorization server against a listening server: a real client library
// (openid-client) and the MCP SDK's client walking the whole flow with the sign-in and consent pages
// driven in headless Chromium; the contract's resource binding (RFC 8707) on /v1 and on MCP; the
// consent rules (publish off by default, spend limit, organization choice); the person behind the
// token (brand limit, plan per surface, membership); a table of token attacks; CSRF and sign-in
// throttling; and the publish ceiling a token carries.

import crypto from 'node:crypto';
import { expect } from 'chai';
import { SignJWT, generateKeyPair, importJWK, type JWK } from 'jose';
import * as oidc from 'openid-client';
import type { Browser, Page } from 'playwright-core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { dialects } from '../../helpers/databases.js';
import { launchBrowser, screenshotPath } from '../../helpers/browser.js';
import { asToolAnswer, mcpClient, toolError } from '../../helpers/mcp.js';
import { rejectionOf } from '../../helpers/assert.js';
import { standardWorld } from '../../helpers/fixture.js';
import { exampleWorld } from '../../helpers/example-world.js';
import { BrandClient, buildLaunch } from '../../helpers/launches.js';
import type { World } from '../../helpers/world.js';
import {
  RedirectCatcher,
  authorizationCode,
  authorizeQuery,
  claimsOf,
  consent,
  exchangeCode,
  get,
  hiddenFields,
  mcpPost,
  organizationChoices,
  pkce,
  postForm,
  refresh,
  registerClient,
  signIn,
  sleep,
  startOAuthWorld,
  tickedScopes,
  tokensFor,
  type Person,
  type Reply,
} from '../../helpers/oauth.js';

type ToolResult = { isError?: boolean; structuredContent?: any; content: Array<{ type: string; text?: string }> };

const olive: Person = { email: 'olive@acme.test', password: 'correct horse 1' };
const mia: Person = { email: 'mia@acme.test', password: 'correct horse 2' };
const dana: Person = { email: 'dana@two.test', password: 'correct horse 3' };
const leo: Person = { email: 'leo@acme.test', password: 'correct horse 4' };
const nora: Person = { email: 'nora@acme.test', password: 'correct horse 5' };

/** The standard world plus: Dana in two organizations (agency and pro), Leo and Nora in Acme. */
function oauthWorld() {
  const world = structuredClone(standardWorld) as any;
  const acme = world.organizations.find((o: any) => o.ref === 'acme');
  const pro = world.organizations.find((o: any) => o.ref === 'pro');
  acme.users.push(
    { ref: 'dana', email: dana.email, name: 'Dana Two', password: dana.password, role: 'admin' },
    { ref: 'leo', email: leo.email, name: 'Leo Leaving', password: leo.password, role: 'member' },
    { ref: 'nora', email: nora.email, name: 'Nora Narrow', password: nora.password, role: 'member', brands: ['shoes'] },
  );
  pro.users = [{ ref: 'dana', email: dana.email, name: 'Dana Two', password: dana.password, role: 'owner' }];
  return world;
}

/** The REST error envelope with the contract's status and code, its requestId equal to the header. */
function expectError(reply: { status: number; headers: Headers; body: any }, status: number, code: string): void {
  expect(reply.status, JSON.stringify(reply.body)).to.equal(status);
  expect(reply.body?.error?.code, JSON.stringify(reply.body)).to.equal(code);
  expect(reply.body.error.message).to.be.a('string').and.not.empty;
  expect(reply.body.error.requestId).to.equal(reply.headers.get('service-request-id'));
}

/** An OAuth (RFC 6749) error answer of the token endpoint. */
function expectOAuthError(reply: Reply, status: number, error: string): void {
  expect(reply.status, reply.text).to.equal(status);
  expect(reply.body.error, reply.text).to.equal(error);
  expect(reply.body.error_description).to.be.a('string').and.not.empty;
  expect(reply.headers.get('cache-control')).to.equal('no-store');
}

/** MCP's answer to a refused credential: HTTP 401, JSON-RPC -32001, a Bearer challenge naming the MCP metadata. */
function expectMcpUnauthorized(r: Reply, base: string): void {
  expect(r.status, r.text).to.equal(401);
  expect(r.body.jsonrpc).to.equal('2.0');
  expect(r.body.error.code).to.equal(-32001);
  expect(r.body.error.data.code).to.equal('unauthenticated');
  const challenge = r.headers.get('www-authenticate') ?? '';
  expect(challenge).to.match(/^Bearer /);
  expect(challenge).to.contain(`resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`);
}

/** Fails when `text` carries any of `secrets`, a stack trace or the verifier's internals. */
function expectNothingLeaked(text: string, secrets: string[]): void {
  for (const s of secrets) if (s && s.length >= 6) expect(text, `leaks ${s.slice(0, 20)}...`).to.not.contain(s);
  expect(text).to.not.match(/\n\s+at |\.js:\d+|\.ts:\d+|node_modules|stack/i);
  expect(text).to.not.match(/JWS|JWT|JOSE|jose|signature|claim|\bkid\b|ES256|HS256|alg\b|BEGIN PUBLIC KEY|unknown key|malformed/i);
}

/** The claims of a token when it has a readable payload, else none. */
function readableClaims(token: string): Record<string, any> {
  try {
    return claimsOf(token);
  } catch {
    return {};
  }
}

const countOf = async (w: World, table: string): Promise<number> => {
  const [row] = await w.service.knex(table).count({ n: '*' });
  return Number(row.n);
};

for (const dialect of dialects()) {
  describe(`OAuth authorization server (${dialect})`, function () {
    this.timeout(60_000);
    let w: World;
    let browser: Browser;
    let catcher: RedirectCatcher;
    let api: string;
    let mcp: string;
    const brandIdsOf = (body: any): number[] => body.accounts.map((a: any) => a.brandId).sort((a: number, b: number) => a - b);
    const acmeBrands = () => ['shoes', 'hats', 'multi'].map((b) => w.brandId('acme', b)).sort((a, b) => a - b);

    before(async () => {
      w = await startOAuthWorld(dialect, oauthWorld());
      api = `${w.url}/v1`;
      mcp = w.config.mcpUrl;
      browser = await launchBrowser();
      catcher = await new RedirectCatcher().start();
    });
    after(async () => {
      await browser?.close();
      await catcher?.close();
      await w?.close();
    });

    /** Signs in on the sign-in page, checks the consent page, optionally picks an organization, approves; the URL the browser lands on. */
    async function signInAndApprove(
      page: Page,
      authorizationUrl: string,
      person: Person,
      opts: { organizationId?: number; onConsent?: (page: Page) => Promise<void> } = {},
    ): Promise<URL> {
      await page.goto(authorizationUrl);
      await page.waitForSelector('#password');
      expect(await page.title()).to.equal('Sign in');
      await page.fill('#email', person.email);
      await page.fill('#password', person.password);
      await page.click('button[type=submit]');
      await page.waitForSelector('#approve');
      if (opts.onConsent) await opts.onConsent(page);
      if (opts.organizationId !== undefined) await page.selectOption('#organization_id', String(opts.organizationId));
      await Promise.all([page.waitForURL((u) => u.href.startsWith(catcher.url)), page.click('#approve')]);
      return new URL(page.url());
    }

    describe('discovery', () => {
      it('publishes authorization server metadata (RFC 8414): endpoints, S256 only, public clients, resource indicators', async () => {
        const r = await get(`${w.url}/.well-known/oauth-authorization-server`);
        expect(r.status).to.equal(200);
        expect(r.body).to.deep.include({
          issuer: w.url,
          authorization_endpoint: `${w.url}/oauth/authorize`,
          token_endpoint: `${w.url}/oauth/token`,
          registration_endpoint: `${w.url}/oauth/register`,
          revocation_endpoint: `${w.url}/oauth/revoke`,
          jwks_uri: `${w.url}/.well-known/jwks.json`,
          resource_parameter_supported: true,
          authorization_response_iss_parameter_supported: true,
        });
        expect(r.body.code_challenge_methods_supported).to.deep.equal(['S256']);
        expect(r.body.token_endpoint_auth_methods_supported).to.deep.equal(['none']);
        expect(r.body.grant_types_supported).to.have.members(['authorization_code', 'refresh_token']);
        expect(r.body.response_types_supported).to.deep.equal(['code']);
      });

      it('publishes a JWKS of ES256 public keys only (no private parts)', async () => {
        const r = await get(`${w.url}/.well-known/jwks.json`);
        expect(r.status).to.equal(200);
        expect(r.body.keys).to.have.length.of.at.least(1);
        for (const k of r.body.keys) {
          expect(k).to.include({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' });
          expect(k.kid).to.be.a('string');
          expect(k).to.not.have.property('d');
        }
      });

      it('publishes protected-resource metadata (RFC 9728) for the API and for the MCP server', async () => {
        const v1 = await get(`${w.url}/.well-known/oauth-protected-resource/v1`);
        expect(v1.status).to.equal(200);
        expect(v1.body).to.deep.include({ resource: api, authorization_servers: [w.url] });
        const m = await get(`${w.url}/.well-known/oauth-protected-resource/mcp`);
        expect(m.status).to.equal(200);
        expect(m.body).to.deep.include({ resource: mcp, authorization_servers: [w.url] });
      });
    });

    describe('real clients', () => {
      it('openid-client: discovery, registration, authorization code with PKCE and resource (pages in Chromium), token, refresh and revocation', async () => {
        const redirectUri = `${catcher.url}/openid-client/callback`;
        const issuer = new URL(w.url);
        const insecure = { execute: [oidc.allowInsecureRequests], algorithm: 'oauth2' as const };
        const registered = await oidc.dynamicClientRegistration(
          issuer,
          {
            client_name: 'openid-client test app',
            redirect_uris: [redirectUri],
            token_endpoint_auth_method: 'none',
            grant_types: ['authorization_code', 'refresh_token'],
            response_types: ['code'],
          },
          oidc.None(),
          insecure,
        );
        const clientId = registered.clientMetadata().client_id;
        expect(clientId).to.match(/^cli_/);
        const config = await oidc.discovery(issuer, clientId, undefined, oidc.None(), insecure);
        expect(config.serverMetadata().issuer).to.equal(w.url);
        expect(config.serverMetadata().token_endpoint).to.equal(`${w.url}/oauth/token`);

        const verifier = oidc.randomPKCECodeVerifier();
        const state = oidc.randomState();
        const authorizationUrl = oidc.buildAuthorizationUrl(config, {
          redirect_uri: redirectUri,
          scope: 'read write publish',
          code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
          code_challenge_method: 'S256',
          state,
          resource: api,
        });

        const context = await browser.newContext();
        try {
          const page = await context.newPage();
          const callback = await signInAndApprove(page, authorizationUrl.href, olive, {
            onConsent: async (p) => {
              expect(await p.textContent('#app-name')).to.equal('openid-client test app');
              expect(await p.textContent('main'))
                .to.contain('Olive Owner')
                .and.contain(api)
                .and.contain('Acme Agency');
              // The app asked for publish, but publish is unticked until the person ticks it.
              expect(await p.isChecked('#scope-read')).to.equal(true);
              expect(await p.isChecked('#scope-write')).to.equal(true);
              expect(await p.isChecked('#scope-publish')).to.equal(false);
              expect(await p.inputValue('#spend_limit')).to.equal('');
              await p.screenshot({ path: screenshotPath('consent-openid-client.png'), fullPage: true });
            },
          });
          expect(callback.origin + callback.pathname).to.equal(redirectUri);
          expect(catcher.hits.map((h) => h.href)).to.include(callback.href);
          expect(callback.searchParams.get('state')).to.equal(state);
          expect(callback.searchParams.get('iss')).to.equal(w.url);

          const tokens = await oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state }, { resource: api });
          expect(tokens.token_type.toLowerCase()).to.equal('bearer');
          expect(tokens.scope).to.equal('read write');
          expect(tokens.expires_in).to.be.within(1, 3600);
          expect(tokens.access_token).to.match(/^svc_at_/);
          expect(tokens.refresh_token).to.match(/^svc_rt_/);
          const claims = claimsOf(tokens.access_token);
          expect(claims).to.include({
            iss: w.url,
            aud: api,
            sub: String(w.seed.organizations.acme.users.olive.id),
            client_id: clientId,
            scope: 'read write',
            org: w.seed.organizations.acme.id,
          });

          const brands = await w.request('GET', '/v1/brands', { key: tokens.access_token });
          expect(brands.status, JSON.stringify(brands.body)).to.equal(200);
          expect(brandIdsOf(brands.body)).to.deep.equal(acmeBrands());
          expectMcpUnauthorized(await mcpPost(w.url, tokens.access_token), w.url);

          // Refresh without resource: the binding stays the API.
          const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
          expect(refreshed.refresh_token).to.not.equal(tokens.refresh_token);
          expect(claimsOf(refreshed.access_token).aud).to.equal(api);
          expect((await w.request('GET', '/v1/brands', { key: refreshed.access_token })).status).to.equal(200);

          // Refresh naming the other resource: invalid_target; naming the same one: fine.
          const other = await rejectionOf(oidc.refreshTokenGrant(config, refreshed.refresh_token!, { resource: mcp }));
          expect(other).to.be.instanceOf(oidc.ResponseBodyError);
          expect(other.status).to.equal(400);
          expect(other.error).to.equal('invalid_target');
          const same = await oidc.refreshTokenGrant(config, refreshed.refresh_token!, { resource: api });
          expect(claimsOf(same.access_token).aud).to.equal(api);

          // Revoking an access token: refused once the key cache has lapsed.
          expect((await w.request('GET', '/v1/brands', { key: refreshed.access_token })).status).to.equal(200);
          await oidc.tokenRevocation(config, refreshed.access_token);
          await sleep(w.config.keyCacheMs + 150);
          expectError(await w.request('GET', '/v1/brands', { key: refreshed.access_token }), 401, 'unauthenticated');

          // Revoking the refresh token ends its family, the access tokens of its family included (RFC
          // 7009 section 2.1), once the key cache has lapsed.
          expect((await w.request('GET', '/v1/brands', { key: same.access_token })).status).to.equal(200);
          await oidc.tokenRevocation(config, same.refresh_token!);
          const afterRevoke = await rejectionOf(oidc.refreshTokenGrant(config, same.refresh_token!));
          expect(afterRevoke.status).to.equal(400);
          expect(afterRevoke.error).to.equal('invalid_grant');
          await sleep(w.config.keyCacheMs + 150);
          expectError(await w.request('GET', '/v1/brands', { key: same.access_token }), 401, 'unauthenticated');
        } finally {
          await context.close();
        }
      });

      it('the MCP SDK client discovers from WWW-Authenticate, registers, authorizes (pages in Chromium), calls list_brands, and refreshes on its own', async () => {
        const context = await browser.newContext();
        try {
          const provider = new TestProvider(`${catcher.url}/mcp-sdk/callback`, async (url) => signInAndApprove(await context.newPage(), url.href, olive));
          const serverUrl = new URL(`${w.url}/mcp`);

          const first = new Client({ name: 'oauth-test', version: '1.0.0' });
          const transport = new StreamableHTTPClientTransport(serverUrl, { authProvider: provider });
          const refused = await rejectionOf(first.connect(transport));
          expect(refused).to.be.instanceOf(UnauthorizedError);
          expect(provider.client?.client_id).to.match(/^cli_/);
          const asked = provider.authorizationUrl!;
          expect(asked.origin + asked.pathname).to.equal(`${w.url}/oauth/authorize`);
          expect(asked.searchParams.get('resource')).to.equal(mcp);
          expect(asked.searchParams.get('code_challenge_method')).to.equal('S256');
          expect(asked.searchParams.get('client_id')).to.equal(provider.client!.client_id);
          const callback = provider.callback!;
          expect(callback.searchParams.get('state')).to.equal(provider.lastState);
          expect(callback.searchParams.get('iss')).to.equal(w.url);

          await transport.finishAuth(callback.searchParams.get('code')!);
          const tokens = provider.saved!;
          expect(tokens.access_token).to.match(/^svc_at_/);
          expect(claimsOf(tokens.access_token).aud).to.equal(mcp);

          const second = new Client({ name: 'oauth-test', version: '1.0.0' });
          await second.connect(new StreamableHTTPClientTransport(serverUrl, { authProvider: provider }));
          const result = (await second.callTool({ name: 'list_brands', arguments: {} })) as ToolResult;
          expect(result.isError, JSON.stringify(result)).to.not.equal(true);
          const viaKey = await w.request('GET', '/v1/brands', { key: w.key('acme', 'ci') });
          expect(result.structuredContent).to.deep.equal(asToolAnswer(viaKey.body));
          await second.close();

          // The MCP token on /v1: 401 audience_mismatch with the challenge of the contract.
          const onApi = await w.request('GET', '/v1/brands', { key: tokens.access_token });
          expectError(onApi, 401, 'audience_mismatch');
          expect(onApi.headers.get('www-authenticate')).to.equal(
            `Bearer error="invalid_token", resource_metadata="${w.url}/.well-known/oauth-protected-resource/v1"`,
          );

          // An access token the server no longer accepts: the SDK refreshes (resource kept) and goes on.
          provider.saveTokens({ ...tokens, access_token: 'svc_at_no.longer.valid' });
          const third = new Client({ name: 'oauth-test', version: '1.0.0' });
          await third.connect(new StreamableHTTPClientTransport(serverUrl, { authProvider: provider }));
          const again = (await third.callTool({ name: 'list_brands', arguments: {} })) as ToolResult;
          expect(again.structuredContent).to.deep.equal(asToolAnswer(viaKey.body));
          expect(provider.saved!.access_token).to.not.equal(tokens.access_token).and.not.equal('svc_at_no.longer.valid');
          expect(provider.saved!.refresh_token).to.not.equal(tokens.refresh_token);
          expect(claimsOf(provider.saved!.access_token).aud).to.equal(mcp);
          await third.close();
        } finally {
          await context.close();
        }
      });
    });

    describe('resource binding (RFC 8707)', () => {
      it('an API token works on /v1; on MCP it gets HTTP 401, JSON-RPC -32001 and WWW-Authenticate', async () => {
        const t = await tokensFor(w.url, olive, { resource: api });
        expect(claimsOf(t.access_token).aud).to.equal(api);
        expect((await w.request('GET', '/v1/brands', { key: t.access_token })).status).to.equal(200);
        const r = await mcpPost(w.url, t.access_token);
        expectMcpUnauthorized(r, w.url);
        expect(r.headers.get('www-authenticate')).to.contain('error="invalid_token"');
        const client = await rejectionOf(mcpClient(w.url, t.access_token));
        expect(client.code, client.message).to.equal(401);
      });

      for (const [label, resource] of [
        ['authorized with no resource', () => undefined],
        ['authorized for the MCP server', () => mcp],
      ] as const) {
        it(`a token ${label} works on MCP only; on /v1: 401 audience_mismatch with WWW-Authenticate: Bearer error="invalid_token", resource_metadata`, async () => {
          const t = await tokensFor(w.url, olive, { resource: resource() });
          expect(claimsOf(t.access_token).aud).to.equal(mcp);
          const client = await mcpClient(w.url, t.access_token);
          const result = (await client.callTool({ name: 'list_brands', arguments: {} })) as ToolResult;
          expect(result.isError).to.not.equal(true);
          expect(brandIdsOf(result.structuredContent)).to.deep.equal(acmeBrands());
          await client.close();
          const onApi = await w.request('GET', '/v1/brands', { key: t.access_token });
          expectError(onApi, 401, 'audience_mismatch');
          expect(onApi.headers.get('www-authenticate')).to.equal(
            `Bearer error="invalid_token", resource_metadata="${w.url}/.well-known/oauth-protected-resource/v1"`,
          );
        });
      }

      it('the resource may be repeated on /oauth/token; a different one there is 400 invalid_target', async () => {
        const same = await authorizationCode(w.url, olive, { resource: api });
        const ok = await exchangeCode(w.url, same, { resource: api });
        expect(ok.status, ok.text).to.equal(200);
        expect(ok.headers.get('cache-control')).to.equal('no-store');
        expect(claimsOf(ok.body.access_token).aud).to.equal(api);

        for (const [bound, asked] of [
          [api, mcp],
          [mcp, api],
          [undefined, api],
          [api, 'https://elsewhere.example/v1'],
        ] as const) {
          const flow = await authorizationCode(w.url, olive, { resource: bound });
          const r = await exchangeCode(w.url, flow, { resource: asked });
          expectOAuthError(r, 400, 'invalid_target');
          expect(r.body).to.not.have.property('access_token');
        }
      });

      it('a refresh keeps the binding and may omit resource; naming the other resource is 400 invalid_target', async () => {
        for (const [bound, other] of [
          [api, mcp],
          [mcp, api],
        ]) {
          const t = await tokensFor(w.url, olive, { resource: bound });
          const omitted = await refresh(w.url, t.refresh_token, t.flow.clientId);
          expect(omitted.status, omitted.text).to.equal(200);
          expect(claimsOf(omitted.body.access_token).aud).to.equal(bound);
          const wrong = await refresh(w.url, omitted.body.refresh_token, t.flow.clientId, { resource: other });
          expectOAuthError(wrong, 400, 'invalid_target');
          const repeated = await refresh(w.url, omitted.body.refresh_token, t.flow.clientId, { resource: bound });
          expect(repeated.status, repeated.text).to.equal(200);
          expect(claimsOf(repeated.body.access_token).aud).to.equal(bound);
        }
      });

      it('a grant authorized with no resource is bound to the MCP server: naming that resource on /oauth/token and on refresh is not "a different resource"', async () => {
        const flow = await authorizationCode(w.url, olive, {});
        const t = await exchangeCode(w.url, flow, { resource: mcp });
        expect(t.status, t.text).to.equal(200);
        expect(claimsOf(t.body.access_token).aud).to.equal(mcp);
        const r = await refresh(w.url, t.body.refresh_token, flow.clientId, { resource: mcp });
        expect(r.status, r.text).to.equal(200);
        expect(claimsOf(r.body.access_token).aud).to.equal(mcp);
      });

      it('an unknown resource on /oauth/authorize redirects back with error=invalid_target', async () => {
        const redirectUri = 'http://127.0.0.1:9/cb';
        const clientId = await registerClient(w.url, [redirectUri]);
        const q = authorizeQuery({ clientId, redirectUri, challenge: pkce().challenge, resource: 'https://elsewhere.example/v1', state: 's1' });
        const r = await get(`${w.url}/oauth/authorize?${q}`);
        expect(r.status).to.equal(302);
        const loc = new URL(r.headers.get('location')!);
        expect(loc.origin + loc.pathname).to.equal(redirectUri);
        expect(loc.searchParams.get('error')).to.equal('invalid_target');
        expect(loc.searchParams.get('state')).to.equal('s1');
      });
    });

    describe('consent', () => {
      it('publish is unticked by default even when the app asks for it; without ticking it the token has no publish', async () => {
        const t = await tokensFor(w.url, olive, { resource: api, scope: 'read write publish' });
        expect(tickedScopes(t.flow.consentHtml)).to.deep.equal(['read', 'write']);
        expect(t.scope).to.equal('read write');
        expect(claimsOf(t.access_token).scope).to.equal('read write');
      });

      it('the consent page ticks read and write as asked and leaves publish and the spend limit empty', async () => {
        const redirectUri = 'http://127.0.0.1:9/cb';
        const clientId = await registerClient(w.url, [redirectUri], 'Publisher <b>app</b>');
        const q = authorizeQuery({ clientId, redirectUri, challenge: pkce().challenge, scope: 'read write publish', resource: api });
        const session = await signIn(w.url, olive.email, olive.password);
        const page = await get(`${w.url}/oauth/authorize?${q}`, { cookie: session.cookie! });
        expect(page.status).to.equal(200);
        expect(tickedScopes(page.text)).to.deep.equal(['read', 'write']);
        expect(page.text).to.contain('<input id="spend_limit" type="number" name="spend_limit" min="1" step="0.01" inputmode="decimal" value="">');
        expect(page.text).to.contain('Publisher &lt;b&gt;app&lt;/b&gt;').and.not.contain('<b>app</b>');
        expect(page.headers.get('x-frame-options')).to.equal('DENY');
        expect(page.headers.get('cache-control')).to.equal('no-store');
      });

      it('publish ticked without a valid spend limit: the consent page again with the error (400), no redirect, no grant', async () => {
        const before = await countOf(w, 'oauth_grants');
        const redirectUri = 'http://127.0.0.1:9/cb';
        const clientId = await registerClient(w.url, [redirectUri]);
        const q = authorizeQuery({ clientId, redirectUri, challenge: pkce().challenge, scope: 'read write publish', resource: api });
        const session = await signIn(w.url, olive.email, olive.password);
        for (const spendLimit of [undefined, '', '0', '0.5', 'ten', '12.345']) {
          const out = await consent(w.url, session.cookie!, q, { scopes: ['read', 'publish'], spendLimit });
          expect(out.decision.status, `spend limit ${spendLimit}`).to.equal(400);
          expect(out.location).to.equal(null);
          expect(out.decision.text).to.contain('enter a spend limit in dollars');
          expect(tickedScopes(out.decision.text)).to.deep.equal(['read', 'publish']);
        }
        expect(await countOf(w, 'oauth_grants')).to.equal(before);
      });

      it('publish ticked with a spend limit: the token carries publish and the grant the limit as its ceiling', async () => {
        const t = await tokensFor(w.url, olive, { resource: api, scope: 'read write publish', scopes: ['read', 'write', 'publish'], spendLimit: '250.50' });
        expect(t.scope).to.equal('read write publish');
        const grant = await w.service
          .knex('oauth_grants')
          .where({ id: claimsOf(t.access_token).gid })
          .first();
        expect(Number(grant.publish_ceiling_cents)).to.equal(25050);
        expect(Number(grant.committed_cents)).to.equal(0);
      });

      it('a spend limit without publish sets no ceiling', async () => {
        const t = await tokensFor(w.url, olive, { resource: api, scopes: ['read'], spendLimit: '100' });
        expect(t.scope).to.equal('read');
        const grant = await w.service
          .knex('oauth_grants')
          .where({ id: claimsOf(t.access_token).gid })
          .first();
        expect(grant.publish_ceiling_cents).to.equal(null);
      });

      it('no permission ticked: the consent page again (400); denying redirects with error=access_denied and no grant', async () => {
        const before = await countOf(w, 'oauth_grants');
        const redirectUri = 'http://127.0.0.1:9/cb';
        const clientId = await registerClient(w.url, [redirectUri]);
        const q = authorizeQuery({ clientId, redirectUri, challenge: pkce().challenge, resource: api, state: 'st-deny' });
        const session = await signIn(w.url, olive.email, olive.password);
        const none = await consent(w.url, session.cookie!, q, { scopes: [] });
        expect(none.decision.status).to.equal(400);
        expect(none.location).to.equal(null);
        expect(none.decision.text).to.contain('Tick at least one permission');
        const denied = await consent(w.url, session.cookie!, q, { decision: 'deny' });
        expect(denied.decision.status).to.equal(302);
        expect(denied.location!.searchParams.get('error')).to.equal('access_denied');
        expect(denied.location!.searchParams.get('state')).to.equal('st-deny');
        expect(denied.location!.searchParams.get('code')).to.equal(null);
        expect(await countOf(w, 'oauth_grants')).to.equal(before);
      });
    });

    describe('the person behind the token', () => {
      it('a member limited to some brands: 403 brand_not_allowed on other brands on /v1 and MCP; GET /v1/brands and list_brands leave them out', async () => {
        const shoes = w.brandId('acme', 'shoes');
        const hats = w.brandId('acme', 'hats');
        const t = await tokensFor(w.url, mia, { resource: api });
        const brands = await w.request('GET', '/v1/brands', { key: t.access_token });
        expect(brands.status).to.equal(200);
        expect(brandIdsOf(brands.body)).to.deep.equal([shoes]);
        expect((await w.request('GET', `/v1/brands/${shoes}/launches`, { key: t.access_token })).status).to.equal(200);
        const refused = await w.request('GET', `/v1/brands/${hats}/launches`, { key: t.access_token });
        expectError(refused, 403, 'brand_not_allowed');
        expect(refused.body.error.details.reason).to.equal('brand_not_allowed');

        const m = await tokensFor(w.url, mia, { resource: mcp });
        const client = await mcpClient(w.url, m.access_token);
        const listed = (await client.callTool({ name: 'list_brands', arguments: {} })) as ToolResult;
        expect(brandIdsOf(listed.structuredContent)).to.deep.equal([shoes]);
        const other = (await client.callTool({ name: 'list_launches', arguments: { brandId: hats } })) as ToolResult;
        expect(other.isError).to.equal(true);
        expect(toolError(other).code).to.equal('brand_not_allowed');
        await client.close();
      });

      it('the token acts as the person now: widening the member brand limit widens what the token reaches', async () => {
        const hats = w.brandId('acme', 'hats');
        const t = await tokensFor(w.url, nora, { resource: api });
        expectError(await w.request('GET', `/v1/brands/${hats}/launches`, { key: t.access_token }), 403, 'brand_not_allowed');
        const membership = await w.service
          .knex('memberships')
          .where({ organization_id: w.seed.organizations.acme.id, user_id: w.seed.organizations.acme.users.nora.id })
          .first('id');
        await w.service.knex('membership_brands').insert({ membership_id: membership.id, brand_id: hats });
        await sleep(w.config.keyCacheMs + 150);
        expect((await w.request('GET', `/v1/brands/${hats}/launches`, { key: t.access_token })).status).to.equal(200);
        expect(brandIdsOf((await w.request('GET', '/v1/brands', { key: t.access_token })).body)).to.deep.equal(
          [w.brandId('acme', 'shoes'), hats].sort((a, b) => a - b),
        );
      });

      it('a person who left the organization: their token answers 401 unauthenticated', async () => {
        const t = await tokensFor(w.url, leo, { resource: api });
        expect((await w.request('GET', '/v1/brands', { key: t.access_token })).status).to.equal(200);
        await w.service.knex('memberships').where({ organization_id: w.seed.organizations.acme.id, user_id: w.seed.organizations.acme.users.leo.id }).delete();
        await sleep(w.config.keyCacheMs + 150);
        expectError(await w.request('GET', '/v1/brands', { key: t.access_token }), 401, 'unauthenticated');
      });

      it('a person in two organizations picks one on the consent page (Chromium); a pro-plan token gets 403 plan_required on /v1 but works on MCP', async () => {
        const acmeId = w.seed.organizations.acme.id;
        const proId = w.seed.organizations.pro.id;
        const redirectUri = `${catcher.url}/two-orgs/callback`;
        const clientId = await registerClient(w.url, [redirectUri], 'Two orgs app');

        const walk = async (organizationId: number, resource: string) => {
          const p = pkce();
          const q = authorizeQuery({ clientId, redirectUri, challenge: p.challenge, resource, state: `org-${organizationId}` });
          const context = await browser.newContext();
          try {
            const callback = await signInAndApprove(await context.newPage(), `${w.url}/oauth/authorize?${q}`, dana, {
              organizationId,
              onConsent: async (page) => {
                const options = await page.$$eval('#organization_id option', (os) =>
                  os.map((o) => ({ value: (o as HTMLOptionElement).value, text: o.textContent })),
                );
                expect(options).to.deep.equal([
                  { value: String(acmeId), text: 'Acme Agency (agency)' },
                  { value: String(proId), text: 'Pro Shop (pro)' },
                ]);
              },
            });
            const r = await exchangeCode(w.url, {
              clientId,
              redirectUri,
              pkce: p,
              state: '',
              code: callback.searchParams.get('code')!,
              callback,
              consentHtml: '',
            });
            expect(r.status, r.text).to.equal(200);
            expect(claimsOf(r.body.access_token).org).to.equal(organizationId);
            return r.body.access_token as string;
          } finally {
            await context.close();
          }
        };

        const proApi = await walk(proId, api);
        const refused = await w.request('GET', '/v1/brands', { key: proApi });
        expectError(refused, 403, 'plan_required');

        const proMcp = await walk(proId, mcp);
        const client = await mcpClient(w.url, proMcp);
        const listed = (await client.callTool({ name: 'list_brands', arguments: {} })) as ToolResult;
        expect(listed.isError, JSON.stringify(listed)).to.not.equal(true);
        expect(brandIdsOf(listed.structuredContent)).to.deep.equal([w.brandId('pro', 'proBrand')]);
        await client.close();

        const acmeApi = await walk(acmeId, api);
        const brands = await w.request('GET', '/v1/brands', { key: acmeApi });
        expect(brands.status).to.equal(200);
        expect(brandIdsOf(brands.body)).to.deep.equal(acmeBrands());
      });

      it('an organization the person is not a member of cannot be chosen: the consent page again (400), no code', async () => {
        const redirectUri = 'http://127.0.0.1:9/cb';
        const clientId = await registerClient(w.url, [redirectUri]);
        const q = authorizeQuery({ clientId, redirectUri, challenge: pkce().challenge, resource: api });
        const session = await signIn(w.url, dana.email, dana.password);
        const out = await consent(w.url, session.cookie!, q, { organizationId: w.seed.organizations.other.id });
        expect(out.decision.status).to.equal(400);
        expect(out.location).to.equal(null);
        expect(out.decision.text).to.contain('Choose one of your organizations');
        expect(organizationChoices(out.decision.text).map((o) => o.id)).to.deep.equal([w.seed.organizations.acme.id, w.seed.organizations.pro.id]);
      });
    });

    describe('token attacks', () => {
      interface Forgery {
        name: string;
        token: () => Promise<string>;
        /** The code on /v1 (MCP always answers 401 / -32001). */
        apiCode?: string;
        /** Correctly signed, refused by the grant lookup (its own generic message) rather than by verification. */
        grantCheck?: boolean;
      }
      let apiToken: Awaited<ReturnType<typeof tokensFor>>;
      let mcpToken: Awaited<ReturnType<typeof tokensFor>>;
      let real: { kid: string; key: CryptoKey; publicJwk: JWK; privateJwk: JWK };
      let fresh: CryptoKey;
      const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
      const now = () => Math.floor(Date.now() / 1000);

      before(async () => {
        apiToken = await tokensFor(w.url, olive, { resource: api });
        mcpToken = await tokensFor(w.url, olive, { resource: mcp });
        // The service's own signing key, read from its database: claim checks must hold even for a correctly signed token.
        const row = await w.service.knex('oauth_signing_keys').where({ active: true }).first();
        real = {
          kid: row.kid,
          key: (await importJWK(JSON.parse(row.private_jwk), 'ES256')) as CryptoKey,
          publicJwk: JSON.parse(row.public_jwk),
          privateJwk: JSON.parse(row.private_jwk),
        };
        fresh = (await generateKeyPair('ES256')).privateKey;
      });

      /** Valid claims for `surface`, fresh jti, signed with `key` under `header`. */
      async function forge(
        surface: 'api' | 'mcp',
        change: (claims: Record<string, any>) => void = () => {},
        header: Record<string, unknown> = {},
        key: CryptoKey | Uint8Array = real.key,
      ): Promise<string> {
        const base = claimsOf((surface === 'api' ? apiToken : mcpToken).access_token);
        const claims: Record<string, any> = { ...base, jti: crypto.randomUUID(), iat: now(), nbf: now(), exp: now() + 600 };
        change(claims);
        for (const k of Object.keys(claims)) if (claims[k] === undefined) delete claims[k];
        return 'svc_at_' + (await new SignJWT(claims).setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: real.kid, ...header } as any).sign(key));
      }

      function forgeries(surface: 'api' | 'mcp'): Forgery[] {
        const genuine = () => (surface === 'api' ? apiToken : mcpToken).access_token;
        const parts = () => genuine().slice('svc_at_'.length).split('.');
        return [
          {
            name: 'alg: none',
            token: async () => {
              const claims = { ...claimsOf(genuine()), jti: crypto.randomUUID() };
              return `svc_at_${b64({ alg: 'none', typ: 'at+jwt', kid: real.kid })}.${b64(claims)}.`;
            },
          },
          {
            name: 'HS256 signed with the public key (PEM)',
            token: async () => {
              const pem = crypto.createPublicKey({ key: real.publicJwk as crypto.JsonWebKey, format: 'jwk' }).export({ type: 'spki', format: 'pem' }) as string;
              return forge(surface, undefined, { alg: 'HS256' }, new TextEncoder().encode(pem));
            },
          },
          {
            name: 'HS256 signed with the public JWK',
            token: async () => forge(surface, undefined, { alg: 'HS256' }, new TextEncoder().encode(JSON.stringify(real.publicJwk))),
          },
          { name: 'wrong typ (JWT)', token: () => forge(surface, undefined, { typ: 'JWT' }) },
          { name: 'no typ', token: () => forge(surface, undefined, { typ: undefined }) },
          { name: 'wrong iss', token: () => forge(surface, (c) => (c.iss = 'https://evil.example')) },
          { name: 'expired', token: () => forge(surface, (c) => Object.assign(c, { iat: now() - 7200, nbf: now() - 7200, exp: now() - 60 })) },
          { name: 'nbf in the future', token: () => forge(surface, (c) => Object.assign(c, { nbf: now() + 3600, exp: now() + 7200 })) },
          { name: 'unknown kid (a fresh key)', token: () => forge(surface, undefined, { kid: 'k_0123456789abcdef' }, fresh) },
          { name: 'the real kid, signed by a fresh key', token: () => forge(surface, undefined, {}, fresh) },
          { name: 'no kid', token: () => forge(surface, undefined, { kid: undefined }) },
          { name: 'no jti', token: () => forge(surface, (c) => (c.jti = undefined)) },
          {
            name: 'someone else as subject of this grant',
            token: () => forge(surface, (c) => (c.sub = String(w.seed.organizations.acme.users.mia.id))),
            grantCheck: true,
          },
          { name: 'a grant of another organization', token: () => forge(surface, (c) => (c.org = w.seed.organizations.other.id)), grantCheck: true },
          {
            name: 'tampered payload (publish added, signature kept)',
            token: async () => `svc_at_${parts()[0]}.${b64({ ...claimsOf(genuine()), scope: 'read write publish' })}.${parts()[2]}`,
          },
          {
            name: 'tampered signature',
            token: async () => `svc_at_${parts()[0]}.${parts()[1]}.${parts()[2].slice(0, -4)}${parts()[2].endsWith('AAAA') ? 'BBBB' : 'AAAA'}`,
          },
          { name: 'signature stripped', token: async () => `svc_at_${parts()[0]}.${parts()[1]}.` },
          { name: 'not a JWT at all', token: async () => 'svc_at_garbage' },
          {
            name: 'other audience (a genuine token for the other resource)',
            token: async () => (surface === 'api' ? mcpToken : apiToken).access_token,
            apiCode: 'audience_mismatch',
          },
          {
            name: 'other audience (correctly signed, aud the other resource)',
            token: () => forge(surface, (c) => (c.aud = surface === 'api' ? mcp : api)),
            apiCode: 'audience_mismatch',
          },
        ];
      }

      it('control: a token forged with the real key and valid claims is accepted (so each refusal below is for its own reason)', async () => {
        expect((await w.request('GET', '/v1/brands', { key: await forge('api') })).status).to.equal(200);
        expect((await mcpPost(w.url, await forge('mcp'))).status).to.equal(200);
      });

      it('on /v1 every forgery is refused with the contract code and one message that says nothing about why', async () => {
        const messages = new Set<string>();
        for (const f of forgeries('api')) {
          const token = await f.token();
          const r = await w.request('GET', '/v1/brands', { key: token });
          expect(r.status, `${f.name}: ${JSON.stringify(r.body)}`).to.equal(401);
          expect(r.body.error.code, f.name).to.equal(f.apiCode ?? 'unauthenticated');
          expect(r.headers.get('www-authenticate'), f.name).to.match(
            new RegExp(`^Bearer .*resource_metadata="${w.url}/.well-known/oauth-protected-resource/v1"`),
          );
          const claims = readableClaims(token);
          expectNothingLeaked(JSON.stringify(r.body), [
            token.slice(7),
            ...token.slice(7).split('.'),
            claims.jti,
            claims.client_id,
            real.kid,
            real.publicJwk.x!,
            real.publicJwk.y!,
            real.privateJwk.d!,
          ]);
          if (!f.apiCode && !f.grantCheck) messages.add(r.body.error.message);
        }
        expect([...messages], 'every forged token gets the same message').to.have.length(1);
      });

      it('on MCP every forgery gets HTTP 401, JSON-RPC -32001 and WWW-Authenticate, with one message that says nothing about why', async () => {
        const messages = new Set<string>();
        for (const f of forgeries('mcp')) {
          const token = await f.token();
          const r = await mcpPost(w.url, token);
          expectMcpUnauthorized(r, w.url);
          const claims = readableClaims(token);
          expectNothingLeaked(JSON.stringify(r.body), [
            token.slice(7),
            ...token.slice(7).split('.'),
            claims.jti,
            claims.client_id,
            real.kid,
            real.publicJwk.x!,
            real.publicJwk.y!,
            real.privateJwk.d!,
          ]);
          if (!f.apiCode && !f.grantCheck) messages.add(r.body.error.message);
        }
        expect([...messages]).to.have.length(1);
      });

      it('refresh reuse: 400 invalid_grant and the whole family is revoked', async () => {
        const t = await tokensFor(w.url, olive, { resource: api });
        const next = await refresh(w.url, t.refresh_token, t.flow.clientId);
        expect(next.status).to.equal(200);
        const reuse = await refresh(w.url, t.refresh_token, t.flow.clientId);
        expectOAuthError(reuse, 400, 'invalid_grant');
        expectNothingLeaked(reuse.text, [t.refresh_token, next.body.refresh_token]);
        const successor = await refresh(w.url, next.body.refresh_token, t.flow.clientId);
        expectOAuthError(successor, 400, 'invalid_grant');
      });

      it('code reuse: 400 invalid_grant and the grant is revoked: its access and refresh tokens stop working', async () => {
        const flow = await authorizationCode(w.url, olive, { resource: api });
        const first = await exchangeCode(w.url, flow);
        expect(first.status).to.equal(200);
        expect((await w.request('GET', '/v1/brands', { key: first.body.access_token })).status).to.equal(200);
        const again = await exchangeCode(w.url, flow);
        expectOAuthError(again, 400, 'invalid_grant');
        expectNothingLeaked(again.text, [flow.code, flow.pkce.verifier]);
        expect(again.body).to.not.have.property('access_token');
        expectOAuthError(await refresh(w.url, first.body.refresh_token, flow.clientId), 400, 'invalid_grant');
        await sleep(w.config.keyCacheMs + 150);
        expectError(await w.request('GET', '/v1/brands', { key: first.body.access_token }), 401, 'unauthenticated');
      });

      it('PKCE missing, or plain: redirect back with error=invalid_request (state and iss kept); no consent page', async () => {
        const redirectUri = 'http://127.0.0.1:9/cb';
        const clientId = await registerClient(w.url, [redirectUri]);
        const session = await signIn(w.url, olive.email, olive.password);
        const p = pkce();
        for (const [label, q] of [
          ['no code_challenge', authorizeQuery({ clientId, redirectUri, resource: api, state: 'pk1' })],
          [
            'code_challenge without method',
            authorizeQuery({ clientId, redirectUri, resource: api, state: 'pk1', extra: { code_challenge: p.challenge, code_challenge_method: '' } }),
          ],
          [
            'plain',
            authorizeQuery({ clientId, redirectUri, resource: api, state: 'pk1', extra: { code_challenge: p.challenge, code_challenge_method: 'plain' } }),
          ],
          [
            'a challenge too short to be S256',
            authorizeQuery({ clientId, redirectUri, resource: api, state: 'pk1', extra: { code_challenge: 'abc', code_challenge_method: 'S256' } }),
          ],
        ] as const) {
          const r = await get(`${w.url}/oauth/authorize?${q}`, { cookie: session.cookie! });
          expect(r.status, label).to.equal(302);
          const loc = new URL(r.headers.get('location')!);
          expect(loc.origin + loc.pathname, label).to.equal(redirectUri);
          expect(loc.searchParams.get('error'), label).to.equal('invalid_request');
          expect(loc.searchParams.get('state'), label).to.equal('pk1');
          expect(loc.searchParams.get('iss'), label).to.equal(w.url);
          expect(loc.searchParams.get('code'), label).to.equal(null);
        }
      });

      it('an unknown scope redirects back with error=invalid_scope', async () => {
        const redirectUri = 'http://127.0.0.1:9/cb';
        const clientId = await registerClient(w.url, [redirectUri]);
        const r = await get(
          `${w.url}/oauth/authorize?${authorizeQuery({ clientId, redirectUri, challenge: pkce().challenge, resource: api, scope: 'read admin', state: 'sc' })}`,
        );
        expect(r.status).to.equal(302);
        const loc = new URL(r.headers.get('location')!);
        expect(loc.searchParams.get('error')).to.equal('invalid_scope');
        expect(loc.searchParams.get('state')).to.equal('sc');
      });

      it('token request without code_verifier: 400 invalid_request; with a wrong one: 400 invalid_grant', async () => {
        const flow = await authorizationCode(w.url, olive, { resource: api });
        expectOAuthError(await exchangeCode(w.url, flow, { code_verifier: undefined }), 400, 'invalid_request');
        const wrong = await exchangeCode(w.url, flow, { code_verifier: pkce().verifier });
        expectOAuthError(wrong, 400, 'invalid_grant');
        expectNothingLeaked(wrong.text, [flow.code, flow.pkce.verifier, flow.pkce.challenge]);
      });

      it('redirect URI not registered (or unknown client): a 400 error page, never a redirect', async () => {
        const redirectUri = 'http://127.0.0.1:9/cb';
        const clientId = await registerClient(w.url, [redirectUri]);
        const session = await signIn(w.url, olive.email, olive.password);
        const p = pkce();
        for (const [label, q] of [
          ['another host', authorizeQuery({ clientId, redirectUri: 'https://attacker.example/cb', challenge: p.challenge, resource: api })],
          ['another loopback path', authorizeQuery({ clientId, redirectUri: 'http://127.0.0.1:9/other', challenge: p.challenge, resource: api })],
          ['none', authorizeQuery({ clientId, redirectUri: '', challenge: p.challenge, resource: api })],
          ['unknown client', authorizeQuery({ clientId: 'cli_nobody', redirectUri: 'https://attacker.example/cb', challenge: p.challenge, resource: api })],
          // Even a later error (no PKCE) must not go to an unregistered URI.
          ['another host and no PKCE', authorizeQuery({ clientId, redirectUri: 'https://attacker.example/cb', resource: api })],
        ] as const) {
          for (const cookie of [undefined, session.cookie!]) {
            const r = await get(`${w.url}/oauth/authorize?${q}`, cookie ? { cookie } : {});
            expect(r.status, label).to.equal(400);
            expect(r.headers.get('location'), label).to.equal(null);
            expect(r.headers.get('content-type'), label).to.match(/^text\/html/);
            expect(r.text, label).to.not.contain('attacker.example');
          }
        }
        // The decision endpoint checks it again.
        const forged = await postForm(
          `${w.url}/oauth/authorize/decision`,
          {
            ...Object.fromEntries(authorizeQuery({ clientId, redirectUri: 'https://attacker.example/cb', challenge: p.challenge, resource: api })),
            csrf_token: await csrfOf(session.cookie!),
            organization_id: String(w.seed.organizations.acme.id),
            scope: 'read',
            decision: 'approve',
          },
          { cookie: session.cookie! },
        );
        expect(forged.status).to.equal(400);
        expect(forged.headers.get('location')).to.equal(null);
      });

      it('an expired code and an expired refresh token: 400 invalid_grant', async () => {
        const flow = await authorizationCode(w.url, olive, { resource: api });
        await w.service
          .knex('oauth_codes')
          .where({ code_hash: crypto.createHash('sha256').update(flow.code).digest('hex') })
          .update({ expires_at: Date.now() - 1 });
        const late = await exchangeCode(w.url, flow);
        expectOAuthError(late, 400, 'invalid_grant');
        expect(late.body).to.not.have.property('access_token');
        const t = await tokensFor(w.url, olive, { resource: api });
        await w.service
          .knex('oauth_refresh_tokens')
          .where({ token_hash: crypto.createHash('sha256').update(t.refresh_token).digest('hex') })
          .update({ expires_at: Date.now() - 1 });
        expectOAuthError(await refresh(w.url, t.refresh_token, t.flow.clientId), 400, 'invalid_grant');
      });

      it('the code only works for its client and redirect URI: 400 invalid_grant otherwise', async () => {
        const flow = await authorizationCode(w.url, olive, { resource: api });
        const otherClient = await registerClient(w.url, [flow.redirectUri]);
        expectOAuthError(await exchangeCode(w.url, flow, { client_id: otherClient }), 400, 'invalid_grant');
        expectOAuthError(await exchangeCode(w.url, flow, { redirect_uri: 'http://127.0.0.1:9/other' }), 400, 'invalid_grant');
        expect((await exchangeCode(w.url, flow)).status).to.equal(200);
      });

      it('registration refuses redirect URIs that are not https or loopback http, or that carry credentials or a backslash, naming the field', async () => {
        for (const uri of [
          'http://attacker.example/cb',
          'https://ok.example/cb#frag',
          'javascript:alert(1)',
          'not a url',
          'https://user:pass@evil.test/cb',
          'https://ok.example\\@evil.test/cb',
          'com.example.app:/cb',
          `https://ok.example/${'a'.repeat(2000)}`,
        ]) {
          const r = await fetch(`${w.url}/oauth/register`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ redirect_uris: [uri] }),
          });
          const body = (await r.json()) as any;
          expect(r.status, uri).to.equal(400);
          expect(body.error, uri).to.equal('invalid_redirect_uri');
          expect(body.error_description, uri).to.match(/^redirect_uris\[0\] /);
        }
      });

      it('the consent page names the host the app will be sent back to', async () => {
        const redirectUri = `${catcher.url}/back`;
        const clientId = await registerClient(w.url, [redirectUri]);
        const session = await signIn(w.url, olive.email, olive.password);
        const q = authorizeQuery({ clientId, redirectUri, challenge: pkce().challenge, resource: api });
        const page = await get(`${w.url}/oauth/authorize?${q}`, { cookie: session.cookie! });
        expect(page.status).to.equal(200);
        expect(/<strong id="redirect-host">([^<]*)<\/strong>/.exec(page.text)?.[1]).to.equal(new URL(catcher.url).host);
      });
    });

    async function csrfOf(cookie: string): Promise<string> {
      const redirectUri = 'http://127.0.0.1:9/cb';
      const clientId = await registerClient(w.url, [redirectUri]);
      const page = await get(`${w.url}/oauth/authorize?${authorizeQuery({ clientId, redirectUri, challenge: pkce().challenge })}`, { cookie });
      return hiddenFields(page.text).csrf_token;
    }

    describe('sessions and CSRF', () => {
      it('signing in sets an HttpOnly, SameSite=Lax session cookie and goes back to the authorization request', async () => {
        const s = await signIn(w.url, olive.email, olive.password, '/oauth/authorize?x=1');
        expect(s.status).to.equal(302);
        expect(s.location).to.equal('/oauth/authorize?x=1');
        expect(s.setCookie).to.match(/^svc_session=/);
        expect(s.setCookie)
          .to.match(/httponly/i)
          .and.match(/samesite=lax/i);
      });

      it('signing in never sends the browser off the site, whatever return_to a form posts (Chromium)', async () => {
        // An attacker's page (the catcher's origin) posts the sign-in form with its own return_to.
        const attacker = new URL(catcher.url).host;
        const context = await browser.newContext();
        const offSite: string[] = [];
        try {
          for (const returnTo of [
            `//${attacker}/stolen`,
            `/\\${attacker}/stolen`,
            `/\t/${attacker}/stolen`,
            `http://${attacker}/stolen`,
            '/oauth/authorize?ok=1',
          ]) {
            const page = await context.newPage();
            await page.goto(`${catcher.url}/attacker-page`);
            await page.setContent(
              `<form method="post" action="${w.url}/oauth/login"><input name="email"><input name="password"><input name="return_to"></form>`,
            );
            await page.fill('input[name=email]', olive.email);
            await page.fill('input[name=password]', olive.password);
            await page.$eval('input[name=return_to]', (el, v) => ((el as HTMLInputElement).value = v), returnTo);
            await Promise.all([page.waitForURL((u) => u.pathname !== '/attacker-page'), page.$eval('form', (f) => (f as HTMLFormElement).submit())]);
            if (new URL(page.url()).origin !== w.url) offSite.push(`return_to ${JSON.stringify(returnTo)} landed on ${page.url()}`);
            await page.close();
          }
          expect(offSite).to.deep.equal([]);
        } finally {
          await context.close();
        }
      });

      it('without a session, /oauth/authorize shows the sign-in page carrying the request back', async () => {
        const redirectUri = 'http://127.0.0.1:9/cb';
        const clientId = await registerClient(w.url, [redirectUri]);
        const q = authorizeQuery({ clientId, redirectUri, challenge: pkce().challenge, resource: api });
        const r = await get(`${w.url}/oauth/authorize?${q}`);
        expect(r.status).to.equal(200);
        expect(r.text).to.contain('<h1>Sign in</h1>');
        expect(hiddenFields(r.text).return_to).to.equal(`/oauth/authorize?${new URLSearchParams(Object.fromEntries(q))}`);
      });

      it('a decision POST without the session CSRF token, or with another session one, is refused: 403, no code, no grant', async () => {
        const before = await countOf(w, 'oauth_grants');
        const redirectUri = 'http://127.0.0.1:9/cb';
        const clientId = await registerClient(w.url, [redirectUri]);
        const q = authorizeQuery({ clientId, redirectUri, challenge: pkce().challenge, resource: api, state: 'csrf' });
        const session = await signIn(w.url, olive.email, olive.password);
        const other = await signIn(w.url, olive.email, olive.password);
        for (const csrf of [null, '', 'x'.repeat(32), await csrfOf(other.cookie!)]) {
          const out = await consent(w.url, session.cookie!, q, { csrf });
          expect(out.decision.status, `csrf ${csrf}`).to.equal(403);
          expect(out.location).to.equal(null);
          expect(out.decision.text).to.contain('CSRF');
        }
        expect(await countOf(w, 'oauth_grants')).to.equal(before);
        // The same form with the session's own token goes through.
        const ok = await consent(w.url, session.cookie!, q);
        expect(ok.decision.status).to.equal(302);
        expect(ok.location!.searchParams.get('code')).to.be.a('string');
      });

      it('a decision POST without a session: 401 and the sign-in page, no code', async () => {
        const redirectUri = 'http://127.0.0.1:9/cb';
        const clientId = await registerClient(w.url, [redirectUri]);
        const q = authorizeQuery({ clientId, redirectUri, challenge: pkce().challenge, resource: api });
        const r = await postForm(`${w.url}/oauth/authorize/decision`, {
          ...Object.fromEntries(q),
          csrf_token: 'x',
          organization_id: String(w.seed.organizations.acme.id),
          scope: 'read',
          decision: 'approve',
        });
        expect(r.status).to.equal(401);
        expect(r.headers.get('location')).to.equal(null);
        expect(r.text).to.contain('<h1>Sign in</h1>');
      });
    });
  });

  describe(`OAuth token publish ceiling (${dialect})`, function () {
    this.timeout(60_000);
    let w: World;
    const person: Person = { email: 'olive@example.test', password: 'correct horse 1' };
    before(async () => {
      w = await startOAuthWorld(dialect, exampleWorld());
    });
    after(async () => w?.close());

    it('a token with publish carries its spend limit: publishes count against the grant, one over the limit gets 403 spend_ceiling_exceeded and nothing is published', async () => {
      const api = `${w.url}/v1`;
      const t = await tokensFor(w.url, person, { resource: api, scope: 'read write publish', scopes: ['read', 'write', 'publish'], spendLimit: '60' });
      expect(t.scope).to.equal('read write publish');
      const gid = claimsOf(t.access_token).gid;
      const client = new BrandClient(w.url, t.access_token, w.brandId('acme', 'shoes'));
      const creativeId = await client.uploadCreative();

      const first = await buildLaunch(client, { creativeId, title: 'OAuth first' });
      const preview = await client.publish(first.launchId, `oauth-preview-${dialect}`, false);
      expect(preview.status, JSON.stringify(preview.body)).to.equal(200);
      expect(preview.body.budget.ceiling).to.deep.equal({ limitMinorUnits: 6000, committedMinorUnits: 0, remainingMinorUnits: 6000 });

      const published = await client.publish(first.launchId, `oauth-publish-${dialect}`);
      expect(published.status, JSON.stringify(published.body)).to.equal(200);
      expect(published.body).to.deep.include({ confirmed: true, status: 'published' });
      expect(published.body.budget.ceiling).to.deep.equal({ limitMinorUnits: 6000, committedMinorUnits: 5000, remainingMinorUnits: 1000 });
      const grant = await w.service.knex('oauth_grants').where({ id: gid }).first();
      expect(Number(grant.committed_cents)).to.equal(5000);
      const keys = await w.service.knex('api_keys').select('committed_cents');
      expect(keys.map((k) => Number(k.committed_cents))).to.deep.equal(keys.map(() => 0));

      const second = await buildLaunch(client, { creativeId, title: 'OAuth second' });
      const over = await client.publish(second.launchId, `oauth-over-${dialect}`);
      expectError(over, 403, 'spend_ceiling_exceeded');
      expect(over.body.error.message).to.contain('$60.00').and.contain('$50.00');
      expect(over.body.error.details).to.deep.equal({
        ceilingMinorUnits: 6000,
        committedMinorUnits: 5000,
        amountMinorUnits: 5000,
        accounts: [{ accountId: 'act_1001', currency: 'USD', amountMinorUnits: 5000, countedUsdCents: 5000 }],
      });
      const launch = await client.launch(second.launchId);
      expect(launch.body.status).to.equal('draft');
      expect(launch.body.campaigns[0].node.platformId).to.equal(null);
      expect(Number((await w.service.knex('oauth_grants').where({ id: gid }).first()).committed_cents)).to.equal(5000);
    });

    it('a token approved without publish gets 403 insufficient_scope naming publish', async () => {
      const t = await tokensFor(w.url, person, { resource: `${w.url}/v1`, scope: 'read write publish' });
      expect(t.scope).to.equal('read write');
      const client = new BrandClient(w.url, t.access_token, w.brandId('acme', 'shoes'));
      const creativeId = await client.uploadCreative();
      const launch = await buildLaunch(client, { creativeId, title: 'No publish' });
      const r = await client.publish(launch.launchId, `oauth-noscope-${dialect}`);
      expectError(r, 403, 'insufficient_scope');
      expect(r.body.error.details).to.deep.include({ requiredScope: 'publish' });
    });
  });

  describe(`OAuth sign-in throttling (${dialect})`, function () {
    this.timeout(60_000);
    let w: World;
    before(async () => {
      w = await startOAuthWorld(dialect);
    });
    after(async () => w?.close());

    it('after 5 wrong passwords the 6th attempt answers 429 even with the right password, and sets no session', async () => {
      for (let i = 0; i < 5; i++) {
        const r = await signIn(w.url, olive.email, `wrong ${i}`);
        expect(r.status, `attempt ${i + 1}`).to.equal(401);
        expect(r.cookie).to.equal(null);
        expect(r.text).to.contain('do not match');
        expect(r.text).to.not.contain(`wrong ${i}`);
      }
      const sixth = await signIn(w.url, olive.email, olive.password);
      expect(sixth.status).to.equal(429);
      expect(sixth.cookie).to.equal(null);
      expect(sixth.location).to.equal(null);
      expect(Number(sixth.headers.get('retry-after'))).to.be.greaterThan(0);
      expect(sixth.text).to.contain('Too many failed attempts');
    });
  });
}

/** An OAuthClientProvider kept in memory; the authorization URL is walked by `drive` (Chromium). */
class TestProvider implements OAuthClientProvider {
  client?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier?: string;
  authorizationUrl?: URL;
  callback?: URL;
  lastState?: string;

  constructor(
    private readonly redirect: string,
    private readonly drive: (url: URL) => Promise<URL>,
  ) {}

  get redirectUrl(): string {
    return this.redirect;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'MCP SDK test client',
      redirect_uris: [this.redirect],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }

  state(): string {
    this.lastState = crypto.randomBytes(12).toString('base64url');
    return this.lastState;
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.client;
  }

  saveClientInformation(info: OAuthClientInformationMixed): void {
    this.client = info;
  }

  tokens(): OAuthTokens | undefined {
    return this.saved;
  }

  saveTokens(tokens: OAuthTokens): void {
    this.saved = tokens;
  }

  async redirectToAuthorization(url: URL): Promise<void> {
    this.authorizationUrl = url;
    this.callback = await this.drive(url);
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }

  codeVerifier(): string {
    if (!this.verifier) throw new Error('no code verifier saved');
    return this.verifier;
  }
}
