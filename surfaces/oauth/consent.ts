// The consent page: names the app and the organization, a checkbox per scope (publish unticked
// by default and, when ticked, a spend limit in dollars), and a CSRF-protected decision.

import type { Membership } from '../../src/oauth/sessions.js';
import type { AuthorizeRequest } from '../../src/oauth/flows.js';
import { esc, hidden, page } from './html.js';

const SCOPE_TEXT: Record<string, string> = {
  read: 'Read brands, launches, campaigns, activity and metrics',
  write: 'Create and change drafts, templates, automations, workflows and webhooks',
  publish: 'Publish launches and change live budgets: this spends money, up to the limit below',
};

export interface ConsentView {
  request: AuthorizeRequest;
  query: Record<string, string>;
  userName: string;
  memberships: Membership[];
  csrf: string;
  error?: string;
  chosen?: { organizationId?: number; scopes?: string[]; ceiling?: string };
}

export function consentPage(v: ConsentView): string {
  const orgs = v.memberships;
  const scopes = v.chosen?.scopes ?? v.request.scopes.filter((s) => s !== 'publish');
  const orgField =
    orgs.length === 1
      ? `<p>Organization: <strong>${esc(orgs[0].organizationName)}</strong></p>${hidden({ organization_id: String(orgs[0].organizationId) })}`
      : `<label for="organization_id">Organization</label><select id="organization_id" name="organization_id">${orgs
          .map(
            (o) =>
              `<option value="${o.organizationId}"${v.chosen?.organizationId === o.organizationId ? ' selected' : ''}>${esc(o.organizationName)} (${esc(o.plan)})</option>`,
          )
          .join('')}</select>`;
  const resource = v.request.resource ?? 'the MCP server';
  return page(
    `Allow ${v.request.client.name}?`,
    `<h1>Allow <span id="app-name">${esc(v.request.client.name)}</span> to act for you?</h1>
<p class="lead">Signed in as ${esc(v.userName)}. The app will act as you, with your role and brands, on ${esc(resource)}.</p>
<p>After you decide, you will be sent back to <strong id="redirect-host">${esc(new URL(v.request.redirectUri).host)}</strong>.</p>
${v.error ? `<div class="error" role="alert">${esc(v.error)}</div>` : ''}
<form method="post" action="/oauth/authorize/decision">${hidden({ ...v.query, csrf_token: v.csrf })}
${orgField}
<h2>What the app may do</h2>
${['read', 'write', 'publish']
  .map(
    (s) =>
      `<label class="check"><input type="checkbox" name="scope" value="${s}" id="scope-${s}"${scopes.includes(s) ? ' checked' : ''}> <span><strong>${s}</strong><br><span class="hint">${esc(SCOPE_TEXT[s])}</span></span></label>`,
  )
  .join('')}
<label for="spend_limit">Spend limit in dollars (required with publish)</label>
<input id="spend_limit" type="number" name="spend_limit" min="1" step="0.01" inputmode="decimal" value="${esc(v.chosen?.ceiling ?? '')}">
<p class="hint">The most this app may ever put live through publishes and budget edits.</p>
<div class="actions"><button type="submit" name="decision" value="approve" id="approve">Allow</button><button type="submit" name="decision" value="deny" class="secondary" id="deny">Deny</button></div>
</form>`,
  );
}
