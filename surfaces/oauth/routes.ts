// The OAuth 2.1 authorization server's HTTP endpoints: discovery, JWKS, registration, the
// authorize pages (sign-in, consent, decision), token and revocation. Flows live in src/oauth.

import type { RouteRegistrar } from '../rest/routing.js';
import type Koa from 'koa';
import { limitedForm } from './forms.js';
import type { Service } from '../../src/service.js';
import { OAuthError, approve, checkAuthorizeRequest, registerClient, revoke, token, type AuthorizeRequest } from '../../src/oauth/flows.js';
import { SESSION_COOKIE, csrfMatches, membershipsOf, sessionOf, signIn } from '../../src/oauth/sessions.js';
import { dollarsToCents } from '../../src/money/dollars.js';
import type { Scope } from '../../src/auth/principal.js';
import { consentPage } from './consent.js';
import { errorPage, signInPage } from './html.js';
import { signInFormRefusal, signInFormToken } from './sign-in.js';
import { accountRoutes } from './account.js';

// The OAuth endpoints' bodies (forms.ts): refused in OAuth's own format (invalid_request), with 413 and 415 where they apply.
const forms = limitedForm({ json: true }, (ctx, status, message) => {
  ctx.status = status;
  ctx.set('Cache-Control', 'no-store');
  ctx.body = { error: 'invalid_request', error_description: message, requestId: ctx.state.requestId };
});
// The sign-in and consent pages' forms: refused as a page.
const pageForms = limitedForm({ json: false }, (ctx, status, message) => {
  ctx.status = status;
  ctx.type = 'html';
  ctx.set('Cache-Control', 'no-store');
  ctx.body = errorPage('Request refused', message);
});

type Ctx = Koa.ParameterizedContext<{ requestId: string }>;

function oauthError(ctx: Ctx, err: unknown, service?: Service): void {
  if (!(err instanceof OAuthError)) throw err;
  // A revoked token family: what this process cached of the grant's tokens goes, so they answer 401 at once.
  if (err.familyRevokedOf !== undefined) service?.forgetGrant(err.familyRevokedOf);
  ctx.status = err.status;
  ctx.set('Cache-Control', 'no-store');
  ctx.body = { error: err.error, error_description: err.message, requestId: ctx.state.requestId };
}

function htmlPage(ctx: Ctx, status: number, html: string): void {
  ctx.status = status;
  ctx.type = 'html';
  ctx.body = html;
}

function redirectWith(ctx: Ctx, request: Pick<AuthorizeRequest, 'redirectUri' | 'state'>, params: Record<string, string>, issuer: string): void {
  const url = new URL(request.redirectUri);
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  if (request.state !== null) url.searchParams.set('state', request.state);
  url.searchParams.set('iss', issuer);
  ctx.redirect(url.href);
}

/** Where a sign-in goes back to: only a path on this site (no scheme, no host, no backslash or control character a browser would read as one). */
function returnPath(raw: unknown): string {
  return typeof raw === 'string' &&
    /^\/(?![/\\])/.test(raw) &&
    !/[\u0000-\u001f\\]/.test(raw) /* eslint-disable-line no-control-regex -- control characters are what it refuses */
    ? raw
    : '/account';
}

function flat(q: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of ['response_type', 'client_id', 'redirect_uri', 'scope', 'state', 'code_challenge', 'code_challenge_method', 'resource']) {
    const v = q[k];
    if (typeof v === 'string') out[k] = v;
    else if (Array.isArray(v) && typeof v[0] === 'string') out[k] = v[0];
  }
  return out;
}

/** Adds the authorization server's routes to the Koa router. */
export function oauthRoutes(router: RouteRegistrar<{ requestId: string }>, service: Service): void {
  const { knex } = service;
  const settings = service.oauth;
  const cookieOptions = { httpOnly: true, sameSite: 'lax' as const, secure: settings.issuer.startsWith('https:'), overwrite: true, path: '/' };
  const cors = (ctx: Ctx) => ctx.set('Access-Control-Allow-Origin', '*');

  router.get('/.well-known/oauth-authorization-server', (ctx) => {
    cors(ctx);
    ctx.body = {
      issuer: settings.issuer,
      authorization_endpoint: `${settings.issuer}/oauth/authorize`,
      token_endpoint: `${settings.issuer}/oauth/token`,
      registration_endpoint: `${settings.issuer}/oauth/register`,
      revocation_endpoint: `${settings.issuer}/oauth/revoke`,
      jwks_uri: `${settings.issuer}/.well-known/jwks.json`,
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none'],
      revocation_endpoint_auth_methods_supported: ['none'],
      scopes_supported: ['read', 'write', 'publish'],
      resource_parameter_supported: true,
      authorization_response_iss_parameter_supported: true,
    };
  });
  router.get('/.well-known/jwks.json', async (ctx) => {
    cors(ctx);
    ctx.body = await service.signingKeys.jwks();
  });

  router.post('/oauth/register', forms, async (ctx) => {
    cors(ctx);
    try {
      ctx.status = 201;
      ctx.body = await registerClient(knex, service.schemas, (ctx.request.body ?? {}) as Record<string, unknown>);
    } catch (err) {
      oauthError(ctx, err);
    }
  });

  const showConsent = async (ctx: Ctx, query: Record<string, string>, error?: string, chosen?: Parameters<typeof consentPage>[0]['chosen']) => {
    const session = await sessionOf(knex, ctx.cookies.get(SESSION_COOKIE));
    if (!session) {
      ctx.type = 'html';
      ctx.body = signInPage('/oauth/login', `/oauth/authorize?${new URLSearchParams(query)}`, signInFormToken(ctx, settings));
      return;
    }
    const request = await checkAuthorizeRequest(knex, settings, query);
    const memberships = await membershipsOf(knex, session.userId);
    if (!memberships.length) {
      ctx.status = 403;
      ctx.type = 'html';
      ctx.body = errorPage('No organization', 'Your account is not a member of any organization, so no app can act for you.');
      return;
    }
    ctx.status = error ? 400 : 200;
    ctx.type = 'html';
    ctx.set('Cache-Control', 'no-store');
    ctx.set('X-Frame-Options', 'DENY');
    ctx.body = consentPage({ request, query, userName: session.name, memberships, csrf: session.csrf, error, chosen });
  };

  router.get('/oauth/authorize', async (ctx) => {
    const query = flat(ctx.query as Record<string, unknown>);
    try {
      await checkAuthorizeRequest(knex, settings, query);
      await showConsent(ctx, query);
    } catch (err) {
      if (err instanceof OAuthError && err.redirect)
        return redirectWith(
          ctx,
          { redirectUri: query.redirect_uri, state: query.state ?? null },
          { error: err.error, error_description: err.message },
          settings.issuer,
        );
      if (err instanceof OAuthError) return htmlPage(ctx, 400, errorPage('This sign-in link is not valid', err.message));
      throw err;
    }
  });

  router.get('/oauth/login', (ctx) => {
    ctx.type = 'html';
    ctx.set('Cache-Control', 'no-store');
    ctx.body = signInPage('/oauth/login', returnPath(ctx.query.return_to), signInFormToken(ctx, settings));
  });

  router.post('/oauth/login', pageForms, async (ctx) => {
    const body = (ctx.request.body ?? {}) as Record<string, string>;
    const returnTo = returnPath(body.return_to);
    // Another site's form, or one without this browser's form token: refused before the limit counts or the password is read.
    const refusal = signInFormRefusal(ctx, settings, body.signin_token);
    if (refusal) {
      ctx.status = 400;
      ctx.type = 'html';
      ctx.set('Cache-Control', 'no-store');
      ctx.body = signInPage('/oauth/login', returnTo, signInFormToken(ctx, settings), refusal);
      return;
    }
    const result = await signIn(knex, String(body.email ?? ''), String(body.password ?? ''), ctx.ip);
    if (!result.ok) {
      ctx.status = result.reason === 'throttled' ? 429 : 401;
      if (result.reason === 'throttled') ctx.set('Retry-After', String(result.retryAfterSeconds));
      ctx.type = 'html';
      ctx.body = signInPage(
        '/oauth/login',
        returnTo,
        signInFormToken(ctx, settings),
        result.reason === 'throttled' ? 'Too many failed attempts. Wait 15 minutes, then try again.' : 'That email and password do not match an account.',
        String(body.email ?? ''),
      );
      return;
    }
    // An https BASE_URL means TLS ends in front of this process: the cookie is Secure even though the
    // request reached it over plain HTTP (the cookies module refuses that unless told).
    if (cookieOptions.secure) ctx.cookies.secure = true;
    ctx.cookies.set(SESSION_COOKIE, result.cookie, cookieOptions);
    ctx.redirect(returnTo);
  });

  router.post('/oauth/authorize/decision', pageForms, async (ctx) => {
    const body = (ctx.request.body ?? {}) as Record<string, unknown>;
    const query = flat(body);
    const session = await sessionOf(knex, ctx.cookies.get(SESSION_COOKIE));
    if (!session) {
      ctx.status = 401;
      ctx.type = 'html';
      ctx.body = signInPage(
        '/oauth/login',
        `/oauth/authorize?${new URLSearchParams(query)}`,
        signInFormToken(ctx, settings),
        'Your session ended; sign in again.',
      );
      return;
    }
    if (!csrfMatches(session, body.csrf_token)) {
      ctx.status = 403;
      ctx.type = 'html';
      ctx.body = errorPage('Request refused', 'This form was not sent from the consent page (CSRF check failed). Start the sign-in again.');
      return;
    }
    let request: AuthorizeRequest;
    try {
      request = await checkAuthorizeRequest(knex, settings, query);
    } catch (err) {
      if (err instanceof OAuthError) return htmlPage(ctx, 400, errorPage('This sign-in link is not valid', err.message));
      throw err;
    }
    if (body.decision !== 'approve')
      return redirectWith(ctx, request, { error: 'access_denied', error_description: 'The person denied the request.' }, settings.issuer);
    const memberships = await membershipsOf(knex, session.userId);
    const organizationId = Number(body.organization_id);
    const scopes = ([] as unknown[]).concat(body.scope ?? []).filter((s): s is Scope => s === 'read' || s === 'write' || s === 'publish');
    const ceilingText = typeof body.spend_limit === 'string' ? body.spend_limit.trim() : '';
    const chosen = { organizationId, scopes, ceiling: ceilingText };
    if (!memberships.some((m) => m.organizationId === organizationId)) return showConsent(ctx, query, 'Choose one of your organizations.', chosen);
    if (!scopes.length) return showConsent(ctx, query, 'Tick at least one permission, or deny the request.', chosen);
    let ceilingCents: number | null = null;
    if (scopes.includes('publish')) {
      const dollars = Number(ceilingText);
      ceilingCents = ceilingText && Number.isFinite(dollars) && dollars >= 1 && dollars <= 100_000_000 ? dollarsToCents(dollars) : null;
      if (ceilingCents === null) return showConsent(ctx, query, 'Publishing spends money: enter a spend limit in dollars (at least 1, whole cents).', chosen);
    }
    const code = await approve(knex, request, { userId: session.userId, organizationId, scopes, ceilingCents });
    redirectWith(ctx, request, { code }, settings.issuer);
  });

  router.post('/oauth/token', forms, async (ctx) => {
    cors(ctx);
    ctx.set('Cache-Control', 'no-store');
    try {
      ctx.body = await token(knex, service.signingKeys, settings, (ctx.request.body ?? {}) as Record<string, unknown>);
    } catch (err) {
      oauthError(ctx, err, service);
    }
  });

  router.post('/oauth/revoke', forms, async (ctx) => {
    cors(ctx);
    try {
      await revoke(knex, service.signingKeys, settings, (ctx.request.body ?? {}) as Record<string, unknown>);
      ctx.status = 200;
      ctx.body = {};
    } catch (err) {
      oauthError(ctx, err);
    }
  });
  accountRoutes(router, service);
}
