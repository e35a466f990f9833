// The authorization server's flows: dynamic client registration (RFC 7591), the authorization
// request and the person's decision, the token endpoint (authorization code with PKCE S256,
// rotating refresh tokens with reuse detection, RFC 8707 resource binding) and revocation (RFC 7009).

import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { inTransaction } from '../db/connection.js';
import { SCOPES, type Scope } from '../auth/principal.js';
import { ServiceError, type FieldIssue } from '../errors.js';
import type { SchemaRegistry } from '../schemas/registry.js';
import { adUrlProblem } from '../schemas/ad-addresses.js';
import type { SigningKeys } from './keys.js';
import { ACCESS_TOKEN_PREFIX, issueAccessToken, verifyAccessToken } from './tokens.js';
import { findGrant, insertGrant, revokeGrantRow, type GrantRow } from '../keys/store.js';
import {
  findClient,
  findCode,
  findRefreshToken,
  insertClient,
  insertCode,
  insertRefreshToken,
  revokeAccessToken,
  revokeRefreshFamily,
  revokeRefreshTokensOfGrant,
  spendCode,
  spendRefreshToken,
} from './store.js';

export const CODE_TTL_MS = 60_000;
export const REFRESH_TTL_MS = 30 * 24 * 3600_000;

/** An OAuth error answered in RFC 6749 form; `redirect` when it may go back to the client. */
export class OAuthError extends Error {
  /** Set when the error revoked a token family of this grant: credentials cached for it must be forgotten at once. */
  familyRevokedOf?: number;
  constructor(
    readonly error: string,
    description: string,
    readonly status = 400,
    readonly redirect = false,
  ) {
    super(description);
  }
}

export interface OAuthSettings {
  issuer: string;
  /** The two resources tokens can be bound to. */
  apiResource: string;
  mcpResource: string;
  /** Signs the sign-in form's token cookie (sign-in-form.ts); the same in every process of a deployment. */
  formKey: Buffer;
}

const sha256 = (s: string) => crypto.createHash('sha256').update(s).digest('hex');
const opaque = (prefix: string) => `${prefix}${crypto.randomBytes(32).toString('base64url')}`;

export interface Client {
  id: string;
  name: string;
  redirectUris: string[];
}

function isLoopback(u: URL): boolean {
  return u.protocol === 'http:' && (u.hostname === '127.0.0.1' || u.hostname === '[::1]' || u.hostname === 'localhost');
}

/**
 * A redirect URI follows the address rule of every URL a person gives that can end up in a page
 * (schemas/ad-addresses.ts: absolute http or https with a host, no user name or password, no
 * backslash, at most 2,000 characters), carries no fragment, and is https or a loopback http address.
 */
function checkRedirectUri(raw: unknown, index: number): string {
  const field = `redirect_uris[${index}]`;
  if (typeof raw !== 'string') throw new OAuthError('invalid_redirect_uri', `${field} must be a string of at most 2000 characters.`);
  const problem = adUrlProblem(raw);
  if (problem) throw new OAuthError('invalid_redirect_uri', `${field} ${problem}.`);
  const u = new URL(raw);
  if (u.hash) throw new OAuthError('invalid_redirect_uri', `${field} must not carry a fragment.`);
  if (u.protocol !== 'https:' && !isLoopback(u)) throw new OAuthError('invalid_redirect_uri', `${field} must use https, or http on a loopback address.`);
  return raw;
}

/**
 * The registration's name and redirect URIs checked as text by their schema (one line each: no
 * control, bidirectional or separator character); a refusal names the field, in RFC 7591's words.
 */
function checkRegistrationText(schemas: SchemaRegistry, body: Record<string, unknown>): void {
  try {
    schemas.validateInput('oauth-client-registration', structuredClone(body));
  } catch (err) {
    if (!(err instanceof ServiceError)) throw err;
    const [issue] = (err.details as FieldIssue[] | null) ?? [];
    const field = issue?.field ?? 'client metadata';
    const said = issue ? `${field} ${issue.message}.` : err.message;
    throw new OAuthError(field.startsWith('redirect_uris') ? 'invalid_redirect_uri' : 'invalid_client_metadata', said);
  }
}

/** RFC 7591 registration of a public client (token_endpoint_auth_method none). */
export async function registerClient(knex: Knex, schemas: SchemaRegistry, body: Record<string, unknown>, now = Date.now()) {
  checkRegistrationText(schemas, body);
  const uris = body.redirect_uris;
  if (!Array.isArray(uris) || uris.length < 1 || uris.length > 20) throw new OAuthError('invalid_redirect_uri', 'redirect_uris must list 1 to 20 URIs.');
  const redirectUris = uris.map((uri, i) => checkRedirectUri(uri, i));
  const method = body.token_endpoint_auth_method ?? 'none';
  if (method !== 'none') throw new OAuthError('invalid_client_metadata', 'Only public clients are registered here: token_endpoint_auth_method must be "none".');
  const grants = (body.grant_types as string[] | undefined) ?? ['authorization_code', 'refresh_token'];
  if (!Array.isArray(grants) || grants.some((g) => g !== 'authorization_code' && g !== 'refresh_token')) {
    throw new OAuthError('invalid_client_metadata', 'grant_types may contain authorization_code and refresh_token only.');
  }
  // Cut by code points, so no half of a surrogate pair is stored.
  const name = typeof body.client_name === 'string' && body.client_name.trim() ? Array.from(body.client_name.trim()).slice(0, 200).join('') : 'Unnamed app';
  const id = `cli_${crypto.randomBytes(12).toString('base64url')}`;
  await insertClient(knex, { id, name, redirectUris, createdAt: now });
  return {
    client_id: id,
    client_id_issued_at: Math.floor(now / 1000),
    client_name: name,
    redirect_uris: redirectUris,
    grant_types: grants,
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  };
}

export async function loadClient(knex: Knex, clientId: unknown): Promise<Client | null> {
  if (typeof clientId !== 'string' || clientId.length > 64) return null;
  return (await findClient(knex, clientId)) ?? null;
}

/** Registered redirect URIs match exactly; a loopback one matches on any port (RFC 8252). */
export function redirectAllowed(client: Client, redirectUri: string): boolean {
  if (client.redirectUris.includes(redirectUri)) return true;
  let asked: URL;
  try {
    asked = new URL(redirectUri);
  } catch {
    return false;
  }
  if (!isLoopback(asked)) return false;
  return client.redirectUris.some((r) => {
    const u = new URL(r);
    return isLoopback(u) && u.hostname === asked.hostname && u.pathname === asked.pathname && u.search === asked.search;
  });
}

export interface AuthorizeRequest {
  client: Client;
  redirectUri: string;
  state: string | null;
  scopes: Scope[];
  codeChallenge: string;
  resource: string | null;
}

/**
 * Checks an authorization request. Problems with the client or redirect URI must not redirect
 * (an error page instead); every later problem redirects back with `error`.
 */
export async function checkAuthorizeRequest(knex: Knex, settings: OAuthSettings, q: Record<string, unknown>): Promise<AuthorizeRequest> {
  const client = await loadClient(knex, q.client_id);
  if (!client) throw new OAuthError('invalid_client', 'Unknown client_id: register the app first.');
  const redirectUri = typeof q.redirect_uri === 'string' ? q.redirect_uri : '';
  if (!redirectUri || !redirectAllowed(client, redirectUri))
    throw new OAuthError('invalid_request', 'redirect_uri is not one of the URIs registered for this app.');
  const fail = (error: string, message: string) => new OAuthError(error, message, 400, true);
  if (q.response_type !== 'code') throw fail('unsupported_response_type', 'response_type must be code.');
  if (typeof q.code_challenge !== 'string' || !/^[A-Za-z0-9_-]{43,128}$/.test(q.code_challenge))
    throw fail('invalid_request', 'PKCE is required: send code_challenge (S256).');
  if (q.code_challenge_method !== 'S256') throw fail('invalid_request', 'code_challenge_method must be S256; plain is not accepted.');
  const resource = q.resource === undefined || q.resource === '' ? null : q.resource;
  if (resource !== null && resource !== settings.apiResource && resource !== settings.mcpResource) {
    throw fail('invalid_target', `resource must be ${settings.apiResource} or ${settings.mcpResource}.`);
  }
  const requested = typeof q.scope === 'string' && q.scope.trim() ? q.scope.trim().split(/\s+/) : ['read'];
  const unknown = requested.filter((s) => !SCOPES.includes(s as Scope));
  if (unknown.length) throw fail('invalid_scope', `Unknown scope ${unknown.join(', ')}; use read, write and publish.`);
  return {
    client,
    redirectUri,
    state: typeof q.state === 'string' ? q.state : null,
    scopes: requested as Scope[],
    codeChallenge: q.code_challenge,
    resource: resource as string | null,
  };
}

export interface Decision {
  userId: number;
  organizationId: number;
  scopes: Scope[];
  ceilingCents: number | null;
}

/** Records the person's approval (a grant) and returns a single-use code for the client. */
export async function approve(knex: Knex, request: AuthorizeRequest, decision: Decision, now = Date.now()): Promise<string> {
  const code = opaque('svc_ac_');
  await inTransaction(knex, async (trx) => {
    const grantId = await insertGrant(trx, {
      organizationId: decision.organizationId,
      userId: decision.userId,
      clientId: request.client.id,
      scopes: decision.scopes,
      resource: request.resource,
      publishCeilingCents: decision.scopes.includes('publish') ? decision.ceilingCents : null,
      createdAt: now,
    });
    await insertCode(trx, {
      codeHash: sha256(code),
      grantId,
      redirectUri: request.redirectUri,
      codeChallenge: request.codeChallenge,
      expiresAt: now + CODE_TTL_MS,
    });
  });
  return code;
}

function audienceOf(settings: OAuthSettings, grant: GrantRow): string {
  // A token authorized with no resource works on the MCP server only.
  return grant.resource ?? settings.mcpResource;
}

async function tokensFor(trx: Knex | Knex.Transaction, keys: SigningKeys, settings: OAuthSettings, grant: GrantRow, familyId: string, now: number) {
  const scopes = grant.scopes;
  const access = await issueAccessToken(keys, {
    issuer: settings.issuer,
    audience: audienceOf(settings, grant),
    userId: grant.userId,
    scopes,
    clientId: grant.clientId,
    grantId: grant.id,
    organizationId: grant.organizationId,
    familyId,
    now,
  });
  const refresh = opaque('svc_rt_');
  await insertRefreshToken(trx, { tokenHash: sha256(refresh), grantId: grant.id, familyId, createdAt: now, expiresAt: now + REFRESH_TTL_MS });
  return { access_token: access.token, token_type: 'Bearer', expires_in: access.expiresIn, refresh_token: refresh, scope: scopes.join(' ') };
}

function checkResource(settings: OAuthSettings, grant: GrantRow, resource: unknown): void {
  if (resource === undefined || resource === '') return;
  const asked = Array.isArray(resource) ? resource : [resource];
  if (asked.some((r) => r !== audienceOf(settings, grant))) {
    throw new OAuthError(
      'invalid_target',
      `This grant is bound to ${grant.resource ?? settings.mcpResource}; the token request may repeat that resource or omit it.`,
    );
  }
}

async function revokeGrant(trx: Knex | Knex.Transaction, grantId: number, now: number): Promise<void> {
  await revokeGrantRow(trx, grantId, now);
  await revokeRefreshTokensOfGrant(trx, grantId, now);
}

/** The token endpoint: authorization_code and refresh_token grants. */
export async function token(knex: Knex, keys: SigningKeys, settings: OAuthSettings, form: Record<string, unknown>, now = Date.now()) {
  // Load the signing key before any transaction: SQLite has one connection, the transaction holds it.
  await keys.active();
  if (form.grant_type === 'authorization_code') {
    if (typeof form.code !== 'string' || typeof form.code_verifier !== 'string')
      throw new OAuthError('invalid_request', 'code and code_verifier are required.');
    return inTransaction(knex, async (trx) => {
      const code = await findCode(trx, sha256(form.code as string));
      if (!code) throw new OAuthError('invalid_grant', 'The authorization code is not valid.');
      const grant = await findGrant(trx, code.grantId);
      if (!grant) throw new OAuthError('invalid_grant', 'The authorization code is not valid.');
      if (code.usedAt !== null) {
        // A code used twice was stolen or replayed: everything issued from it is revoked.
        await revokeGrant(trx, grant.id, now);
        return { reused: true as const };
      }
      if (code.expiresAt <= now) throw new OAuthError('invalid_grant', 'The authorization code has expired; start the sign-in again.');
      if (form.client_id !== grant.clientId) throw new OAuthError('invalid_grant', 'The code was issued to another client.');
      if (form.redirect_uri !== code.redirectUri) throw new OAuthError('invalid_grant', 'redirect_uri differs from the one of the authorization request.');
      const challenge = crypto
        .createHash('sha256')
        .update(form.code_verifier as string)
        .digest('base64url');
      if (challenge !== code.codeChallenge) throw new OAuthError('invalid_grant', 'code_verifier does not match the code_challenge.');
      checkResource(settings, grant, form.resource);
      const used = await spendCode(trx, code.codeHash, now);
      if (used !== 1) throw new OAuthError('invalid_grant', 'The authorization code is not valid.');
      return tokensFor(trx, keys, settings, grant, crypto.randomUUID(), now);
    }).then((r) => {
      if ('reused' in r) throw new OAuthError('invalid_grant', 'The authorization code was already used; the tokens issued from it are revoked.');
      return r;
    });
  }
  if (form.grant_type === 'refresh_token') {
    if (typeof form.refresh_token !== 'string') throw new OAuthError('invalid_request', 'refresh_token is required.');
    const outcome = await inTransaction(knex, async (trx) => {
      const row = await findRefreshToken(trx, sha256(form.refresh_token as string));
      if (!row) throw new OAuthError('invalid_grant', 'The refresh token is not valid.');
      const grant = await findGrant(trx, row.grantId);
      if (!grant) throw new OAuthError('invalid_grant', 'The refresh token is not valid.');
      if (row.usedAt !== null) {
        // Reuse of a spent refresh token: the whole family is revoked, its access tokens with it.
        await revokeRefreshFamily(trx, row.familyId, now);
        return { reused: true as const, grantId: grant.id };
      }
      if (row.revokedAt !== null || grant.revokedAt !== null || row.expiresAt <= now)
        throw new OAuthError('invalid_grant', 'The refresh token is revoked or expired; sign in again.');
      if (form.client_id !== undefined && form.client_id !== grant.clientId)
        throw new OAuthError('invalid_grant', 'The refresh token was issued to another client.');
      checkResource(settings, grant, form.resource);
      const spent = await spendRefreshToken(trx, row.tokenHash, now);
      if (spent !== 1) {
        // Spent by a request at the same moment: a reuse all the same.
        await revokeRefreshFamily(trx, row.familyId, now);
        return { reused: true as const, grantId: grant.id };
      }
      return tokensFor(trx, keys, settings, grant, row.familyId, now);
    });
    if ('reused' in outcome) {
      const err = new OAuthError('invalid_grant', 'This refresh token was already used; every token of its family is revoked. Sign in again.');
      err.familyRevokedOf = outcome.grantId;
      throw err;
    }
    return outcome;
  }
  throw new OAuthError('unsupported_grant_type', 'grant_type must be authorization_code or refresh_token.');
}

/** RFC 7009: revokes a refresh token (its family) or an access token; unknown tokens are ignored. */
export async function revoke(knex: Knex, keys: SigningKeys, settings: OAuthSettings, form: Record<string, unknown>, now = Date.now()): Promise<void> {
  const value = form.token;
  if (typeof value !== 'string' || !value) throw new OAuthError('invalid_request', 'token is required.');
  if (value.startsWith(ACCESS_TOKEN_PREFIX)) {
    try {
      const claims = await verifyAccessToken(keys, value, settings.issuer, now);
      await revokeAccessToken(knex, claims.jti, (claims.exp ?? 0) * 1000);
    } catch {
      // An invalid token needs no revoking (RFC 7009 answers 200 all the same).
    }
    return;
  }
  const row = await findRefreshToken(knex, sha256(value));
  const grant = row ? await findGrant(knex, row.grantId) : undefined;
  // A client may revoke only its own tokens (RFC 7009 §2.1); others are ignored like unknown ones.
  if (row && grant && (form.client_id === undefined || form.client_id === grant.clientId)) await revokeRefreshFamily(knex, row.familyId, now);
}

export { revokeGrant };
