// The account page (/account): server-rendered, plain HTML forms, same sign-in as the consent page.
// Owners and admins manage the organization's API keys (five settings; the secret is shown once,
// on the page answering the create); every member lists and revokes the apps they approved.
// Every POST carries the session's CSRF token and, on success, redirects to a GET (except the
// create, whose answer is the only place the secret ever appears).

import type { RouteRegistrar } from '../rest/routing.js';
import type Koa from 'koa';
import { limitedForm } from './forms.js';
import type { Service } from '../../src/service.js';
import { ServiceError, httpStatusOf, type FieldIssue } from '../../src/errors.js';
import { SESSION_COOKIE, csrfMatches, membershipsOf, sessionOf, signOut, type Membership, type WebSession } from '../../src/oauth/sessions.js';
import {
  createKey,
  getKey,
  listKeys,
  managesKeys,
  organizationBrands,
  requireKeyManager,
  revokeKey,
  updateKey,
  type KeyActor,
  type KeySettingsInput,
  type ManagedKey,
  type OrganizationForKeys,
} from '../../src/account/keys.js';
import { listApps, revokeApp, type ApprovedApp } from '../../src/oauth/apps.js';
import { esc, hidden, page, signInPage } from './html.js';
import { signInFormToken } from './sign-in.js';

type Ctx = Koa.ParameterizedContext<{ requestId: string }>;
type Brand = { id: number; name: string };

// The account forms' bodies (forms.ts): a refusal is a page with its status (400, 413, 415).
const forms = limitedForm({ json: false }, (ctx, status, message) => {
  ctx.status = status;
  ctx.type = 'html';
  ctx.set('Cache-Control', 'no-store');
  ctx.body = problemPage(status === 413 ? 'payload_too_large' : status === 415 ? 'unsupported_media_type' : 'validation_failed', message);
});

const EXTRA_STYLE = `<style>
main{max-width:1120px}.top{display:flex;justify-content:space-between;align-items:flex-start;gap:16px}
fieldset{border:1px solid #e1e5eb;border-radius:6px;margin:14px 0 0;padding:4px 14px 8px}legend{font-weight:600;padding:0 4px}
.inline{display:flex;flex-wrap:wrap;gap:0 22px}.inline .check{margin:8px 0}
.status{display:inline-block;padding:2px 8px;border-radius:10px;font-size:.85rem;font-weight:600}
.status-active{background:#e3f4e8;color:#1c6b36}.status-revoked{background:#f3e3e3;color:#8a1c1c}.status-expired{background:#f6efdc;color:#7a5a07}
.warning{background:#fff6e0;border:1px solid #ecd18a;color:#6b4f00;padding:8px 10px;border-radius:6px;margin:6px 0}
tr.key-actions td{border-bottom:2px solid #dde1e7;padding-top:0}details{margin:4px 0}summary{cursor:pointer;color:#2f66e0;font-weight:600}
.row-actions{display:flex;gap:16px;align-items:flex-start;flex-wrap:wrap}.row-actions form{margin:0}
.row-actions button,.small{padding:5px 12px;font-size:.9rem}.revoked td{color:#7a8291}
.panel{border:1px solid #dde1e7;border-radius:8px;padding:4px 18px 16px;margin-top:10px;background:#fbfcfd}
code.key-prefix{white-space:nowrap;word-break:normal}
.org-picker{display:flex;gap:10px;align-items:flex-end}.org-picker select{width:auto;min-width:260px}
</style>`;

const SCOPE_HINT: Record<string, string> = {
  read: 'every GET',
  write: 'drafts, templates, automations, workflows, webhooks',
  publish: 'launch and edit live budgets: spends money up to the ceiling',
};

const FIELD_LABEL: Record<string, string> = {
  name: 'Name',
  scopes: 'Scopes',
  'surfaces.api': 'API switch',
  brandIds: 'Brand limit',
  expiresAt: 'Expiry',
  publishCeilingDollars: 'Publish ceiling',
};

const NOTICES: Record<string, string> = {
  key_saved: 'The key was saved. Calls with it follow the new settings within a few seconds.',
  key_revoked: 'The key was revoked: calls with it are refused from now on (within a few seconds).',
  app_revoked: 'The app was revoked: it can no longer act for you.',
};

const money = (cents: number) => `$${(cents / 100).toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
const when = (ms: number) => `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
const ID = /^[1-9]\d{0,15}$/;

/** The form's view of a key's settings: what is in each input. */
interface KeyFormValues {
  name: string;
  scopes: string[];
  api: boolean;
  mcp: boolean;
  limit: 'all' | 'some';
  brandIds: number[];
  expires: string;
  ceiling: string;
}

/** New keys have MCP on and API off (the contract's defaults). */
const NEW_KEY: KeyFormValues = { name: '', scopes: ['read'], api: false, mcp: true, limit: 'all', brandIds: [], expires: '', ceiling: '' };

function valuesOf(k: ManagedKey): KeyFormValues {
  return {
    name: k.name,
    scopes: k.scopes,
    api: k.surfaces.api,
    mcp: k.surfaces.mcp,
    limit: k.brands ? 'some' : 'all',
    brandIds: (k.brands ?? []).map((b) => b.id),
    expires: k.expiresAt === null ? '' : new Date(k.expiresAt).toISOString().slice(0, 19),
    ceiling: k.publishCeilingCents === null ? '' : (k.publishCeilingCents / 100).toFixed(2),
  };
}

const text = (v: unknown): string => (typeof v === 'string' ? v : Array.isArray(v) && typeof v[0] === 'string' ? v[0] : '');
const list = (v: unknown): string[] => ([] as unknown[]).concat(v ?? []).filter((s): s is string => typeof s === 'string');

/** Reads the key form: what to show again if it fails, and what the core validates. */
function readKeyForm(body: Record<string, unknown>): { values: KeyFormValues; input: KeySettingsInput } {
  const values: KeyFormValues = {
    name: text(body.name),
    scopes: list(body.scope),
    api: text(body.surface_api) !== '',
    mcp: text(body.surface_mcp) !== '',
    limit: text(body.brand_limit) === 'some' ? 'some' : 'all',
    brandIds: list(body.brand).map((b) => (ID.test(b) ? Number(b) : NaN)),
    expires: text(body.expires_at).trim(),
    ceiling: text(body.publish_ceiling).trim(),
  };
  // A datetime-local input sends no zone; the form labels it UTC.
  const expires = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?$/.test(values.expires) ? `${values.expires}Z` : values.expires;
  const input: KeySettingsInput = {
    name: values.name,
    scopes: values.scopes,
    surfaces: { api: values.api, mcp: values.mcp },
    // "Every brand" ignores ticked boxes; "only these" with none ticked is refused by the core.
    brandIds: values.limit === 'some' ? values.brandIds : null,
    expiresAt: expires === '' ? null : expires,
    publishCeilingDollars: values.ceiling === '' ? null : /^\d+(\.\d+)?$/.test(values.ceiling) ? Number(values.ceiling) : NaN,
  };
  return { values, input };
}

function issuesBox(title: string, issues: FieldIssue[]): string {
  return `<div class="error" role="alert"><strong>${esc(title)}</strong><ul>${issues
    .map((i) => `<li><strong>${esc(FIELD_LABEL[i.field] ?? i.field)}</strong> ${esc(i.message)}</li>`)
    .join('')}</ul></div>`;
}

function keyForm(o: { id: string; action: string; submit: string; values: KeyFormValues; brands: Brand[]; org: OrganizationForKeys; csrf: string }): string {
  const v = o.values;
  const check = (name: string, value: string, checked: boolean, label: string, hint = '', disabled = false) =>
    `<label class="check"><input type="checkbox" name="${name}" value="${esc(value)}" id="${o.id}-${name}-${esc(value)}"${checked ? ' checked' : ''}${disabled ? ' disabled' : ''}> <span>${label}${hint ? `<br><span class="hint">${hint}</span>` : ''}</span></label>`;
  const apiLocked = !o.org.apiAllowed && !v.api;
  return `<form method="post" action="${esc(o.action)}" id="${o.id}" class="key-form">${hidden({ csrf_token: o.csrf, organization_id: String(o.org.id) })}
<label for="${o.id}-name">Name</label><input type="text" id="${o.id}-name" name="name" maxlength="200" required value="${esc(v.name)}" placeholder="e.g. Reporting dashboard">
<fieldset><legend>Scopes</legend><div class="inline">${['read', 'write', 'publish'].map((s) => check('scope', s, v.scopes.includes(s), `<strong>${s}</strong>`, esc(SCOPE_HINT[s]))).join('')}</div></fieldset>
<fieldset><legend>Surfaces</legend><div class="inline">${check('surface_mcp', '1', v.mcp, '<strong>MCP</strong>', 'the tool-protocol server')}${check(
    'surface_api',
    '1',
    v.api,
    '<strong>API</strong>',
    apiLocked
      ? `needs the agency plan with an active subscription (this organization: ${esc(o.org.plan)}, ${esc(o.org.subscriptionStatus)})`
      : 'the REST API (/v1) and the CLI',
    apiLocked,
  )}</div></fieldset>
<fieldset><legend>Brand limit</legend>
<label class="check"><input type="radio" name="brand_limit" value="all" id="${o.id}-limit-all"${v.limit === 'all' ? ' checked' : ''}> <span>Every brand of the organization, present and future</span></label>
<label class="check"><input type="radio" name="brand_limit" value="some" id="${o.id}-limit-some"${v.limit === 'some' ? ' checked' : ''}> <span>Only the brands ticked here:</span></label>
<div class="inline">${o.brands.map((b) => check('brand', String(b.id), v.limit === 'some' && v.brandIds.includes(b.id), esc(b.name))).join('') || '<span class="hint">This organization has no brands yet.</span>'}</div></fieldset>
<label for="${o.id}-expires">Expiry (UTC)</label><input type="datetime-local" step="1" id="${o.id}-expires" name="expires_at" value="${esc(v.expires)}">
<p class="hint">Leave empty and the key never expires.</p>
<label for="${o.id}-ceiling">Publish ceiling in dollars</label><input type="number" id="${o.id}-ceiling" name="publish_ceiling" min="1" step="0.01" inputmode="decimal" value="${esc(v.ceiling)}">
<p class="hint">The most the key may ever put live in total. A key with publish and no ceiling is refused when publishing (spend_ceiling_required).</p>
<div class="actions"><button type="submit">${esc(o.submit)}</button></div></form>`;
}

function keyRow(k: ManagedKey, brands: Brand[], org: OrganizationForKeys, csrf: string): string {
  const surfaces = [k.surfaces.mcp ? 'MCP' : null, k.surfaces.api ? 'API' : null].filter(Boolean).join(', ') || 'none';
  const brandText = k.brands === null ? 'All brands' : k.brands.map((b) => esc(b.name)).join(', ');
  const ceiling = k.publishCeilingCents === null ? '<span class="hint">no ceiling</span>' : `${money(k.publishCeilingCents)}`;
  const row = `<tr class="key${k.status === 'revoked' ? ' revoked' : ''}" id="key-${k.id}" data-key-id="${k.id}" data-status="${k.status}">
<td><strong class="key-name">${esc(k.name)}</strong><br><span class="hint">created ${when(k.createdAt)}${k.createdBy ? ` by ${esc(k.createdBy)}` : ''}</span></td>
<td><code class="key-prefix">${esc(k.prefix)}…</code></td>
<td class="key-scopes">${esc(k.scopes.join(', '))}</td>
<td class="key-surfaces">${surfaces}</td>
<td class="key-brands">${brandText}</td>
<td class="key-expiry">${k.expiresAt === null ? 'Never' : when(k.expiresAt)}</td>
<td class="key-ceiling">${ceiling}<br><span class="hint">${money(k.committedCents)} committed</span></td>
<td><span class="status status-${k.status}">${k.status === 'active' ? 'Active' : k.status === 'revoked' ? `Revoked` : 'Expired'}</span>${k.revokedAt !== null ? `<br><span class="hint">${when(k.revokedAt)}</span>` : ''}</td></tr>`;
  if (k.status === 'revoked') return row;
  return `${row}<tr class="key-actions" id="key-actions-${k.id}"><td colspan="8">${k.warnings.map((w) => `<div class="warning">${esc(w)}</div>`).join('')}<div class="row-actions">
<details id="edit-${k.id}"><summary>Edit settings</summary><div class="panel">${keyForm({ id: `edit-key-${k.id}`, action: `/account/keys/${k.id}`, submit: 'Save key', values: valuesOf(k), brands, org, csrf })}</div></details>
<form method="post" action="/account/keys/${k.id}/revoke" id="revoke-key-${k.id}">${hidden({ csrf_token: csrf, organization_id: String(org.id) })}<button type="submit" class="danger">Revoke</button></form>
</div></td></tr>`;
}

function appsSection(apps: ApprovedApp[], csrf: string, apiResource: string, severalOrgs: boolean, shownOrg: number | null): string {
  const rows = apps
    .map((a) => {
      const target = a.resource === apiResource ? 'REST API' : 'MCP server';
      const limit =
        a.publishCeilingCents === null ? '' : `<br><span class="hint">spend limit ${money(a.publishCeilingCents)}, ${money(a.committedCents)} committed</span>`;
      return `<tr class="app" id="app-${a.grantId}" data-grant-id="${a.grantId}"><td><strong class="app-name">${esc(a.appName)}</strong><br><span class="hint">${esc(a.clientId)}</span></td>
${severalOrgs ? `<td>${esc(a.organizationName)}</td>` : ''}<td>${esc(a.scopes.join(', '))} on the ${target}${limit}</td>
<td>${when(a.approvedAt)}${a.lastTokenAt !== null ? `<br><span class="hint">last token ${when(a.lastTokenAt)}</span>` : ''}</td>
<td><form method="post" action="/account/apps/${a.grantId}/revoke" id="revoke-app-${a.grantId}">${hidden({ csrf_token: csrf, organization_id: shownOrg === null ? null : String(shownOrg) })}<button type="submit" class="danger small">Revoke</button></form></td></tr>`;
    })
    .join('');
  return `<h2 id="apps">Your apps</h2><p class="hint">Apps you allowed to act for you on the consent page. Revoking one signs it out: its tokens stop working.</p>
${apps.length ? `<div class="table-wrap" tabindex="0" role="region" aria-label="Approved apps"><table id="apps-table"><thead><tr><th>App</th>${severalOrgs ? '<th>Organization</th>' : ''}<th>Access</th><th>Approved</th><th></th></tr></thead><tbody>${rows}</tbody></table></div>` : '<p id="no-apps">You have not approved any apps.</p>'}`;
}

interface AccountView {
  session: WebSession;
  memberships: Membership[];
  /** The organization shown, or null when the person still has to choose one. */
  org: Membership | null;
  keys?: { org: OrganizationForKeys; list: ManagedKey[]; brands: Brand[] };
  apps: ApprovedApp[];
  apiResource: string;
  notice?: string;
  error?: string;
  created?: { key: ManagedKey; secret: string };
  createForm?: { values: KeyFormValues; issues: FieldIssue[] };
}

function accountPage(v: AccountView): string {
  const csrf = v.session.csrf;
  const picker =
    v.memberships.length > 1
      ? `<form method="get" action="/account" class="org-picker"><div><label for="org">Organization</label><select id="org" name="org">${v.org ? '' : '<option value="">Choose…</option>'}${v.memberships
          .map(
            (m) =>
              `<option value="${m.organizationId}"${v.org?.organizationId === m.organizationId ? ' selected' : ''}>${esc(m.organizationName)} (${esc(m.role)})</option>`,
          )
          .join('')}</select></div><button type="submit" class="secondary">Show</button></form>`
      : '';
  let keysHtml: string;
  if (!v.memberships.length) {
    keysHtml = '<p>Your account is not a member of any organization.</p>';
  } else if (!v.org) {
    keysHtml = '<p id="choose-org">Choose an organization to see its API keys.</p>';
  } else if (!v.keys) {
    keysHtml = `<h2 id="keys">API keys</h2><p class="hint" id="keys-not-allowed">API keys of ${esc(v.org.organizationName)} are created, edited and revoked by its owner and admins. You can see and revoke the apps you approved below.</p>`;
  } else {
    const { org, list: keys, brands } = v.keys;
    const created = v.created
      ? `<div class="notice" role="status" id="new-key"><strong>Key “${esc(v.created.key.name)}” created.</strong> Copy its secret now: it is shown only this once and cannot be shown again.
<code class="secret" id="new-secret">${esc(v.created.secret)}</code>${v.created.key.warnings.map((w) => `<div class="warning">${esc(w)}</div>`).join('')}<a href="/account?org=${org.id}">Done: I have copied it</a></div>`
      : '';
    const planLine = org.apiAllowed
      ? `Plan: ${esc(org.plan)} (${esc(org.subscriptionStatus)}): keys may have the API switch on.`
      : `Plan: ${esc(org.plan)} (${esc(org.subscriptionStatus)}): the API switch needs the agency plan with an active subscription; keys work on MCP only.`;
    keysHtml = `${created}<h2 id="keys">API keys of ${esc(org.name)}</h2><p class="hint">${planLine} You are ${org.role === 'owner' ? 'the owner' : 'an admin'}.</p>
${keys.length ? `<div class="table-wrap" tabindex="0" role="region" aria-label="API keys"><table id="keys-table"><thead><tr><th>Name</th><th>Key</th><th>Scopes</th><th>Surfaces</th><th>Brands</th><th>Expires</th><th>Publish ceiling</th><th>Status</th></tr></thead><tbody>${keys.map((k) => keyRow(k, brands, org, csrf)).join('')}</tbody></table></div>` : '<p id="no-keys">No API keys yet.</p>'}
<h2 id="create">Create a key</h2>${v.createForm?.issues.length ? issuesBox('The key was not created:', v.createForm.issues) : ''}<div class="panel">${keyForm({ id: 'create-key', action: '/account/keys', submit: 'Create key', values: v.createForm?.values ?? NEW_KEY, brands, org, csrf })}</div>`;
  }
  const severalOrgs = new Set(v.apps.map((a) => a.organizationId)).size > 1 || v.memberships.length > 1;
  return page(
    'Your account',
    `${EXTRA_STYLE}<div class="top"><div><h1>Your account</h1><p class="lead">Signed in as <strong id="who">${esc(v.session.name)}</strong> (${esc(v.session.email)})${v.org ? `, ${esc(v.org.role)} of ${esc(v.org.organizationName)}` : ''}. <a href="/console" id="console-link">Open the console</a> to see your brands, decide reviews and read reports.</p></div>
<form method="post" action="/account/signout" id="signout">${hidden({ csrf_token: csrf })}<button type="submit" class="secondary small">Sign out</button></form></div>
${v.notice ? `<div class="notice" role="status" id="notice">${esc(v.notice)}</div>` : ''}${v.error ? `<div class="error" role="alert">${esc(v.error)}</div>` : ''}
${picker}${keysHtml}${appsSection(v.apps, csrf, v.apiResource, severalOrgs, v.org?.organizationId ?? null)}`,
  );
}

function editPage(o: { key: ManagedKey; org: OrganizationForKeys; brands: Brand[]; csrf: string; values?: KeyFormValues; issues?: FieldIssue[] }): string {
  return page(
    `Edit key ${o.key.name}`,
    `${EXTRA_STYLE}<h1>Edit key “${esc(o.key.name)}”</h1><p class="lead"><code>${esc(o.key.prefix)}…</code> of ${esc(o.org.name)}</p>
${o.issues?.length ? issuesBox('The key was not saved:', o.issues) : ''}${o.key.warnings.map((w) => `<div class="warning">${esc(w)}</div>`).join('')}
${keyForm({ id: `edit-key-${o.key.id}`, action: `/account/keys/${o.key.id}`, submit: 'Save key', values: o.values ?? valuesOf(o.key), brands: o.brands, org: o.org, csrf: o.csrf })}
<p><a href="/account?org=${o.org.id}">Back to your account</a></p>`,
  );
}

const TITLES: Partial<Record<string, string>> = {
  forbidden: 'Not allowed',
  not_found: 'Not found',
  conflict: 'That cannot be done',
  validation_failed: 'Check the form',
};

/** An error page showing the contract's code. */
function problemPage(code: string, message: string): string {
  const title = TITLES[code] ?? 'Something went wrong';
  return page(
    title,
    `<h1>${esc(title)}</h1><div class="error" role="alert"><p>${esc(message)}</p><p>Error code: <code id="error-code">${esc(code)}</code></p></div><p><a href="/account">Back to your account</a></p>`,
  );
}

/** Adds the account page's routes (called from oauthRoutes). */
export function accountRoutes(router: RouteRegistrar<{ requestId: string }>, service: Service): void {
  const { knex } = service;

  const send = (ctx: Ctx, status: number, html: string) => {
    ctx.status = status;
    ctx.type = 'html';
    ctx.set('Cache-Control', 'no-store');
    ctx.set('X-Frame-Options', 'DENY');
    // same-origin, not no-referrer: a browser sends `Origin: null` with a form posted from a no-referrer page, and the sign-in refuses that.
    ctx.set('Referrer-Policy', 'same-origin');
    ctx.body = html;
  };
  const seeOther = (ctx: Ctx, url: string) => {
    ctx.redirect(url);
    ctx.status = 303;
  };

  /** Renders ServiceErrors as HTML pages with their contract code and status. */
  const guarded = (handler: (ctx: Ctx) => Promise<void>) => async (ctx: Ctx) => {
    try {
      await handler(ctx);
    } catch (err) {
      if (!(err instanceof ServiceError)) throw err;
      send(ctx, httpStatusOf[err.code], problemPage(err.code, err.message));
    }
  };

  /** The person's organization named by `raw`, or their only one when `raw` is empty. */
  const resolveOrg = (memberships: Membership[], raw: unknown): Membership | null => {
    const id = text(raw);
    if (!id) return memberships.length === 1 ? memberships[0] : null;
    return memberships.find((m) => String(m.organizationId) === id) ?? null;
  };

  /** Session, CSRF token and organization of a form post; answers the request itself when one is missing. */
  const formPost = async (ctx: Ctx, needOrg: boolean) => {
    const body = (ctx.request.body ?? {}) as Record<string, unknown>;
    const session = await sessionOf(knex, ctx.cookies.get(SESSION_COOKIE));
    if (!session) {
      send(ctx, 401, signInPage('/oauth/login', '/account', signInFormToken(ctx, service.oauth), 'Your session ended; sign in again.'));
      return null;
    }
    if (!csrfMatches(session, body.csrf_token)) {
      send(
        ctx,
        403,
        problemPage(
          'forbidden',
          'This form was not sent from your account page (CSRF check failed); nothing was changed. Open the account page and try again.',
        ),
      );
      return null;
    }
    const memberships = await membershipsOf(knex, session.userId);
    const org = resolveOrg(memberships, body.organization_id);
    if (needOrg && !org) throw new ServiceError('forbidden', 'You are not a member of that organization.', null);
    return { session, body, memberships, org: org!, actor: { userId: session.userId, organizationId: org?.organizationId ?? 0 } as KeyActor };
  };

  const idParam = (raw: string | undefined, what: string): number => {
    if (!raw || !ID.test(raw)) throw new ServiceError('not_found', `${what} was not found.`, null);
    return Number(raw);
  };

  /** Builds and sends the account page for the organization chosen (or the only one). */
  const showAccount = async (
    ctx: Ctx,
    session: WebSession,
    memberships: Membership[],
    org: Membership | null,
    extra: Partial<AccountView> = {},
    status = 200,
  ) => {
    let keys: AccountView['keys'];
    if (org && managesKeys(org.role)) {
      const actor = { userId: session.userId, organizationId: org.organizationId };
      const [orgInfo, list, brands] = await Promise.all([requireKeyManager(knex, actor), listKeys(knex, actor), organizationBrands(knex, org.organizationId)]);
      keys = { org: orgInfo, list, brands };
    }
    const apps = await listApps(knex, session.userId);
    send(ctx, status, accountPage({ session, memberships, org, keys, apps, apiResource: service.oauth.apiResource, ...extra }));
  };

  router.get(
    '/account',
    guarded(async (ctx) => {
      const session = await sessionOf(knex, ctx.cookies.get(SESSION_COOKIE));
      if (!session) return send(ctx, 200, signInPage('/oauth/login', ctx.originalUrl, signInFormToken(ctx, service.oauth)));
      const memberships = await membershipsOf(knex, session.userId);
      const asked = text(ctx.query.org);
      // An organization the person does not belong to: say so, and show the only one (or the picker).
      const org = resolveOrg(memberships, asked) ?? resolveOrg(memberships, '');
      const notice = NOTICES[text(ctx.query.notice)];
      const error =
        asked && !memberships.some((m) => String(m.organizationId) === asked) ? 'You are not a member of that organization; choose one of yours.' : undefined;
      await showAccount(ctx, session, memberships, org, { notice, error });
    }),
  );

  router.get(
    '/account/keys',
    guarded(async (ctx) => {
      const session = await sessionOf(knex, ctx.cookies.get(SESSION_COOKIE));
      if (!session) return send(ctx, 200, signInPage('/oauth/login', ctx.originalUrl, signInFormToken(ctx, service.oauth)));
      const org = resolveOrg(await membershipsOf(knex, session.userId), ctx.query.org);
      if (!org) throw new ServiceError('forbidden', 'Choose one of your organizations on the account page first.', null);
      await requireKeyManager(knex, { userId: session.userId, organizationId: org.organizationId });
      seeOther(ctx, `/account?org=${org.organizationId}#keys`);
    }),
  );

  router.get(
    '/account/keys/:id',
    guarded(async (ctx) => {
      const session = await sessionOf(knex, ctx.cookies.get(SESSION_COOKIE));
      if (!session) return send(ctx, 200, signInPage('/oauth/login', ctx.originalUrl, signInFormToken(ctx, service.oauth)));
      const org = resolveOrg(await membershipsOf(knex, session.userId), ctx.query.org);
      if (!org) throw new ServiceError('forbidden', 'Choose one of your organizations on the account page first.', null);
      const actor = { userId: session.userId, organizationId: org.organizationId };
      const orgInfo = await requireKeyManager(knex, actor);
      const key = await getKey(knex, actor, idParam(ctx.params.id, 'API key'));
      send(ctx, 200, editPage({ key, org: orgInfo, brands: await organizationBrands(knex, org.organizationId), csrf: session.csrf }));
    }),
  );

  router.post(
    '/account/keys',
    forms,
    guarded(async (ctx) => {
      const post = await formPost(ctx, true);
      if (!post) return;
      await requireKeyManager(knex, post.actor);
      const { values, input } = readKeyForm(post.body);
      try {
        const created = await createKey(knex, post.actor, input);
        service.log.info(
          { userId: post.actor.userId, organizationId: post.actor.organizationId, apiKeyId: created.key.id },
          'api key created on the account page',
        );
        await showAccount(ctx, post.session, post.memberships, post.org, { created });
      } catch (err) {
        if (!(err instanceof ServiceError) || err.code !== 'validation_failed') throw err;
        await showAccount(
          ctx,
          post.session,
          post.memberships,
          post.org,
          { createForm: { values, issues: Array.isArray(err.details) ? err.details : [] } },
          400,
        );
      }
    }),
  );

  router.post(
    '/account/keys/:id',
    forms,
    guarded(async (ctx) => {
      const post = await formPost(ctx, true);
      if (!post) return;
      const orgInfo = await requireKeyManager(knex, post.actor);
      const keyId = idParam(ctx.params.id, 'API key');
      const { values, input } = readKeyForm(post.body);
      try {
        await updateKey(knex, post.actor, keyId, input);
      } catch (err) {
        if (!(err instanceof ServiceError) || err.code !== 'validation_failed') throw err;
        const key = await getKey(knex, post.actor, keyId);
        const issues = Array.isArray(err.details) ? err.details : [];
        return send(ctx, 400, editPage({ key, org: orgInfo, brands: await organizationBrands(knex, orgInfo.id), csrf: post.session.csrf, values, issues }));
      }
      service.log.info({ userId: post.actor.userId, organizationId: post.actor.organizationId, apiKeyId: keyId }, 'api key edited on the account page');
      seeOther(ctx, `/account?org=${orgInfo.id}&notice=key_saved#key-${keyId}`);
    }),
  );

  router.post(
    '/account/keys/:id/revoke',
    forms,
    guarded(async (ctx) => {
      const post = await formPost(ctx, true);
      if (!post) return;
      await requireKeyManager(knex, post.actor);
      const keyId = idParam(ctx.params.id, 'API key');
      await revokeKey(knex, post.actor, keyId);
      service.log.info({ userId: post.actor.userId, organizationId: post.actor.organizationId, apiKeyId: keyId }, 'api key revoked on the account page');
      seeOther(ctx, `/account?org=${post.actor.organizationId}&notice=key_revoked#keys`);
    }),
  );

  router.post(
    '/account/apps/:grantId/revoke',
    forms,
    guarded(async (ctx) => {
      const post = await formPost(ctx, false);
      if (!post) return;
      const grantId = idParam(ctx.params.grantId, 'Approved app');
      const app = await revokeApp(knex, post.session.userId, grantId);
      service.log.info({ userId: post.session.userId, grantId, clientId: app.clientId }, 'app revoked on the account page');
      const org = text(post.body.organization_id) || (post.memberships.length > 1 ? '' : String(post.memberships[0]?.organizationId ?? ''));
      seeOther(ctx, `/account?${org ? `org=${encodeURIComponent(org)}&` : ''}notice=app_revoked#apps`);
    }),
  );

  router.post(
    '/account/signout',
    forms,
    guarded(async (ctx) => {
      const post = await formPost(ctx, false);
      if (!post) return;
      await signOut(knex, ctx.cookies.get(SESSION_COOKIE));
      ctx.cookies.set(SESSION_COOKIE, null, { path: '/' });
      seeOther(ctx, '/account');
    }),
  );
}
