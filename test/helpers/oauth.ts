// Helpers for the OAuth tests: a world whose BASE_URL is the address it listens on (the issuer must
// be the URL clients discover), a loopback redirect catcher, PKCE, registration, and the sign-in and
// consent walk done with fetch and a cookie (the browser-driven walks live in the tests).

import crypto from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import type { Dialect } from '../../src/db/connection.js';
import { startHttpServer } from '../../surfaces/http-server.js';
import { startWorld, World } from './world.js';

/** A port nothing listens on right now, on loopback. */
export async function freePort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/**
 * A world listening on a known port with BASE_URL = http://127.0.0.1:<port>, so the issuer, the
 * resource indicators and the protected-resource metadata name the address clients really use.
 */
export async function startOAuthWorld(dialect: Dialect, bootstrap?: unknown, env: Record<string, string> = {}): Promise<World> {
  for (let attempt = 0; ; attempt++) {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const w = await startWorld({ dialect, bootstrap, env: { BASE_URL: base, ...env } });
    await w.server.close(0);
    try {
      const server = await startHttpServer(w.service, port, '127.0.0.1');
      if (server.url !== base) throw new Error(`the server listens on ${server.url}, not ${base}`);
      return new World(w.db, w.service, server, w.seed, w.config);
    } catch (err) {
      await w.service.close();
      await w.db.drop();
      if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt >= 4) throw err;
    }
  }
}

/** A tiny loopback web server standing in for an app's redirect URI: records every request it gets. */
export class RedirectCatcher {
  readonly hits: URL[] = [];
  private server: http.Server | null = null;
  private waiters: Array<(u: URL) => void> = [];
  url = '';

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => {
      const u = new URL(req.url ?? '/', this.url);
      this.hits.push(u);
      const w = this.waiters.shift();
      if (w) w(u);
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<!doctype html><title>Done</title><p>You can close this window.</p>');
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', () => resolve()));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  /** The next request the catcher receives. */
  next(): Promise<URL> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  async close(): Promise<void> {
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
  }
}

export interface Pkce {
  verifier: string;
  challenge: string;
}

export function pkce(): Pkce {
  const verifier = crypto.randomBytes(32).toString('base64url');
  return { verifier, challenge: crypto.createHash('sha256').update(verifier).digest('base64url') };
}

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  body: any;
}

async function reply(res: Response): Promise<Reply> {
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    // HTML page
  }
  return { status: res.status, headers: res.headers, text, body };
}

/** POST application/x-www-form-urlencoded (repeated keys from arrays). */
export async function postForm(url: string, fields: Record<string, string | string[] | undefined>, headers: Record<string, string> = {}): Promise<Reply> {
  const form = new URLSearchParams();
  for (const [k, v] of Object.entries(fields)) {
    if (v === undefined) continue;
    for (const one of Array.isArray(v) ? v : [v]) form.append(k, one);
  }
  const res = await fetch(url, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: form,
  });
  return reply(res);
}

export async function get(url: string, headers: Record<string, string> = {}): Promise<Reply> {
  return reply(await fetch(url, { redirect: 'manual', headers }));
}

/** Dynamic client registration (RFC 7591) of a public client. */
export async function registerClient(base: string, redirectUris: string[], name = 'Test app'): Promise<string> {
  const res = await fetch(`${base}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: name, redirect_uris: redirectUris }),
  });
  const body = (await res.json()) as { client_id: string };
  if (res.status !== 201) throw new Error(`registration answered ${res.status}: ${JSON.stringify(body)}`);
  return body.client_id;
}

/** The sign-in form as a browser gets it (GET /oauth/login): its token and the cookie (`name=value`) the token is bound to. */
export async function signInForm(base: string): Promise<{ token: string; cookie: string }> {
  const page = await fetch(`${base}/oauth/login`, { redirect: 'manual' });
  const html = await page.text();
  const token = /name="signin_token" value="([^"]+)"/.exec(html)?.[1];
  const cookie = page.headers.getSetCookie().find((c) => c.startsWith('svc_signin='));
  if (page.status !== 200 || !token || !cookie) throw new Error(`the sign-in page answered ${page.status} without a form token: ${html.slice(0, 300)}`);
  return { token, cookie: cookie.split(';')[0] };
}

/** Signs in with email and password through the sign-in form; the session cookie (`name=value`) when it worked. */
export async function signIn(
  base: string,
  email: string,
  password: string,
  returnTo = '/account',
): Promise<{ status: number; cookie: string | null; setCookie: string | null; location: string | null; text: string; headers: Headers }> {
  const form = await signInForm(base);
  const r = await postForm(`${base}/oauth/login`, { email, password, return_to: returnTo, signin_token: form.token }, { cookie: form.cookie });
  const setCookie = r.headers.getSetCookie().find((c) => c.startsWith('svc_session=')) ?? null;
  return {
    status: r.status,
    cookie: setCookie ? setCookie.split(';')[0] : null,
    setCookie,
    location: r.headers.get('location'),
    text: r.text,
    headers: r.headers,
  };
}

const unescapeHtml = (s: string) => s.replace(/&(amp|lt|gt|quot|#39);/g, (_, e) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[e as string]!);

/** The hidden inputs of a page (name → value, unescaped). */
export function hiddenFields(html: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of html.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)) out[unescapeHtml(m[1])] = unescapeHtml(m[2]);
  return out;
}

/** The organizations offered on a consent page: a hidden field for one, the options of the select for several. */
export function organizationChoices(html: string): Array<{ id: number; label: string }> {
  const select = /<select id="organization_id" name="organization_id">([\s\S]*?)<\/select>/.exec(html);
  if (!select) {
    const one = /<input type="hidden" name="organization_id" value="(\d+)">/.exec(html);
    return one ? [{ id: Number(one[1]), label: '' }] : [];
  }
  return [...select[1].matchAll(/<option value="(\d+)"[^>]*>([^<]*)<\/option>/g)].map((m) => ({ id: Number(m[1]), label: unescapeHtml(m[2]) }));
}

/** Which scope checkboxes a consent page ticks. */
export function tickedScopes(html: string): string[] {
  return [...html.matchAll(/<input type="checkbox" name="scope" value="(\w+)" id="scope-\w+"( checked)?>/g)].filter((m) => m[2]).map((m) => m[1]);
}

export interface AuthorizeParams {
  clientId: string;
  redirectUri: string;
  challenge?: string;
  scope?: string;
  resource?: string;
  state?: string;
  extra?: Record<string, string>;
}

export function authorizeQuery(p: AuthorizeParams): URLSearchParams {
  const q = new URLSearchParams({ response_type: 'code', client_id: p.clientId, redirect_uri: p.redirectUri, scope: p.scope ?? 'read write' });
  if (p.state !== undefined) q.set('state', p.state);
  if (p.challenge !== undefined) {
    q.set('code_challenge', p.challenge);
    q.set('code_challenge_method', 'S256');
  }
  if (p.resource !== undefined) q.set('resource', p.resource);
  for (const [k, v] of Object.entries(p.extra ?? {})) q.set(k, v);
  return q;
}

export interface DecisionInput {
  /** Default: the organization the page preselects. */
  organizationId?: number;
  /** The ticked boxes; default: the ones the page ticks. */
  scopes?: string[];
  spendLimit?: string;
  decision?: 'approve' | 'deny';
  /** Replaces the CSRF token of the page (null leaves it out). */
  csrf?: string | null;
}

export interface ConsentOutcome {
  consentHtml: string;
  decision: Reply;
  /** The redirect back to the app, when the decision redirected. */
  location: URL | null;
}

/** GET /oauth/authorize with a session cookie, then POST the decision like the consent form would. */
export async function consent(base: string, cookie: string, query: URLSearchParams, input: DecisionInput = {}): Promise<ConsentOutcome> {
  const page = await get(`${base}/oauth/authorize?${query}`, { cookie });
  if (page.status !== 200 || !page.text.includes('id="approve"')) throw new Error(`the consent page answered ${page.status}: ${page.text.slice(0, 600)}`);
  const fields: Record<string, string | string[] | undefined> = { ...hiddenFields(page.text) };
  if (input.csrf === null) delete fields.csrf_token;
  else if (input.csrf !== undefined) fields.csrf_token = input.csrf;
  fields.organization_id = String(input.organizationId ?? organizationChoices(page.text)[0].id);
  fields.scope = input.scopes ?? tickedScopes(page.text);
  if (input.spendLimit !== undefined) fields.spend_limit = input.spendLimit;
  fields.decision = input.decision ?? 'approve';
  const decision = await postForm(`${base}/oauth/authorize/decision`, fields, { cookie });
  const loc = decision.headers.get('location');
  return { consentHtml: page.text, decision, location: loc ? new URL(loc) : null };
}

export interface Person {
  email: string;
  password: string;
}

export interface FlowOptions extends DecisionInput {
  scope?: string;
  resource?: string;
  /** Reuse a client (and its redirect URI); registered fresh otherwise. */
  clientId?: string;
  redirectUri?: string;
}

export interface CodeFlow {
  clientId: string;
  redirectUri: string;
  pkce: Pkce;
  state: string;
  code: string;
  callback: URL;
  /** The consent page the person saw. */
  consentHtml: string;
}

/** Sign-in, consent and approval with fetch: the authorization code the app receives. */
export async function authorizationCode(base: string, person: Person, opts: FlowOptions = {}): Promise<CodeFlow> {
  const redirectUri = opts.redirectUri ?? 'http://127.0.0.1:9/callback';
  const clientId = opts.clientId ?? (await registerClient(base, [redirectUri]));
  const p = pkce();
  const state = crypto.randomBytes(8).toString('hex');
  const query = authorizeQuery({ clientId, redirectUri, challenge: p.challenge, scope: opts.scope, resource: opts.resource, state });
  const session = await signIn(base, person.email, person.password, `/oauth/authorize?${query}`);
  if (!session.cookie) throw new Error(`sign-in answered ${session.status}`);
  const outcome = await consent(base, session.cookie, query, opts);
  if (!outcome.location || !outcome.location.searchParams.get('code')) {
    throw new Error(`the decision answered ${outcome.decision.status} ${outcome.location ?? ''}: ${outcome.decision.text.slice(0, 600)}`);
  }
  return {
    clientId,
    redirectUri,
    pkce: p,
    state,
    code: outcome.location.searchParams.get('code')!,
    callback: outcome.location,
    consentHtml: outcome.consentHtml,
  };
}

export function exchangeCode(base: string, flow: CodeFlow, extra: Record<string, string | undefined> = {}): Promise<Reply> {
  return postForm(`${base}/oauth/token`, {
    grant_type: 'authorization_code',
    code: flow.code,
    redirect_uri: flow.redirectUri,
    client_id: flow.clientId,
    code_verifier: flow.pkce.verifier,
    ...extra,
  });
}

export function refresh(base: string, refreshToken: string, clientId: string, extra: Record<string, string | undefined> = {}): Promise<Reply> {
  return postForm(`${base}/oauth/token`, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId, ...extra });
}

export interface Tokens {
  access_token: string;
  refresh_token: string;
  token_type: string;
  expires_in: number;
  scope: string;
}

/** The whole walk with fetch: tokens for `person` (resource sent on /oauth/authorize when given). */
export async function tokensFor(base: string, person: Person, opts: FlowOptions = {}): Promise<Tokens & { flow: CodeFlow }> {
  const flow = await authorizationCode(base, person, opts);
  const r = await exchangeCode(base, flow);
  if (r.status !== 200) throw new Error(`the token endpoint answered ${r.status}: ${r.text}`);
  return { ...(r.body as Tokens), flow };
}

/** The claims of an access token (not verified: for looking, not trusting). */
export function claimsOf(accessToken: string): Record<string, any> {
  const jwt = accessToken.replace(/^svc_at_/, '');
  return JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString('utf8'));
}

/** One JSON-RPC call to the MCP endpoint with a bearer credential, answered as raw HTTP. */
export async function mcpPost(base: string, credential: string | null, body: unknown = { jsonrpc: '2.0', id: 1, method: 'tools/list' }): Promise<Reply> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  if (credential) headers.authorization = `Bearer ${credential}`;
  return reply(await fetch(`${base}/mcp`, { method: 'POST', headers, body: JSON.stringify(body) }));
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
