// The apps a person approved on the consent page (OAuth grants), as the account page lists them.
// Each person sees and revokes only their own; revoking ends the grant and its refresh tokens, and
// its access tokens are refused within KEY_CACHE_MS.

import type { Knex } from 'knex';
import { inTransaction } from '../db/connection.js';
import { notFound } from '../errors.js';
import { revokeGrant } from '../oauth/flows.js';
import type { Scope } from '../auth/principal.js';

export interface ApprovedApp {
  grantId: number;
  clientId: string;
  appName: string;
  organizationId: number;
  organizationName: string;
  scopes: Scope[];
  /** The resource its tokens are bound to; null means the MCP server. */
  resource: string | null;
  publishCeilingCents: number | null;
  committedCents: number;
  approvedAt: number;
  /** When it last got tokens (code exchange or refresh), or null if never. */
  lastTokenAt: number | null;
}

/** The person's approvals that are not revoked, newest first. */
export async function listApps(knex: Knex, userId: number): Promise<ApprovedApp[]> {
  const rows = await knex('oauth_grants as g')
    .join('oauth_clients as c', 'c.id', 'g.client_id')
    .join('organizations as o', 'o.id', 'g.organization_id')
    .where('g.user_id', userId)
    .whereNull('g.revoked_at')
    .orderBy('g.id', 'desc')
    .select(
      'g.id',
      'g.client_id',
      'c.name as app_name',
      'g.organization_id',
      'o.name as org_name',
      'g.scopes',
      'g.resource',
      'g.publish_ceiling_cents',
      'g.committed_cents',
      'g.created_at',
      knex.raw('(select max(r.created_at) from oauth_refresh_tokens r where r.grant_id = g.id) as last_token_at'),
    );
  return rows.map((r) => ({
    grantId: Number(r.id),
    clientId: r.client_id,
    appName: r.app_name,
    organizationId: Number(r.organization_id),
    organizationName: r.org_name,
    scopes: String(r.scopes).split(',').filter(Boolean) as Scope[],
    resource: r.resource ?? null,
    publishCeilingCents: r.publish_ceiling_cents === null ? null : Number(r.publish_ceiling_cents),
    committedCents: Number(r.committed_cents ?? 0),
    approvedAt: Number(r.created_at),
    lastTokenAt: r.last_token_at === null || r.last_token_at === undefined ? null : Number(r.last_token_at),
  }));
}

/** Withdraws one of the person's approvals; another person's grant, or one already revoked, is `not_found`. */
export async function revokeApp(knex: Knex, userId: number, grantId: number, now = Date.now()): Promise<ApprovedApp> {
  const app = Number.isSafeInteger(grantId) && grantId > 0 ? (await listApps(knex, userId)).find((a) => a.grantId === grantId) : undefined;
  if (!app) throw notFound(`Approved app ${grantId}`);
  await inTransaction(knex, (trx) => revokeGrant(trx, grantId, now));
  return app;
}
