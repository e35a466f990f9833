// The apps a person approved on the consent page (OAuth grants), as the account page lists them.
// Each person sees and revokes only their own; revoking ends the grant and its refresh tokens, and
// its access tokens are refused within KEY_CACHE_MS.

import type { Knex } from 'knex';
import { inTransaction } from '../db/connection.js';
import { notFound } from '../errors.js';
import { revokeGrant } from './flows.js';
import type { Scope } from '../auth/principal.js';
import { activeGrantsOfUser } from '../keys/store.js';
import { clientNames, lastTokenTimes } from './store.js';
import { organizationNames } from '../account/store.js';

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
  const grants = await activeGrantsOfUser(knex, userId);
  const [apps, organizations, lastTokens] = await Promise.all([
    clientNames(
      knex,
      grants.map((g) => g.clientId),
    ),
    organizationNames(
      knex,
      grants.map((g) => g.organizationId),
    ),
    lastTokenTimes(
      knex,
      grants.map((g) => g.id),
    ),
  ]);
  return grants.map((g) => ({
    grantId: g.id,
    clientId: g.clientId,
    appName: apps.get(g.clientId) ?? g.clientId,
    organizationId: g.organizationId,
    organizationName: organizations.get(g.organizationId) ?? '',
    scopes: g.scopes,
    resource: g.resource,
    publishCeilingCents: g.publishCeilingCents,
    committedCents: g.committedCents,
    approvedAt: g.createdAt,
    lastTokenAt: lastTokens.get(g.id) ?? null,
  }));
}

/** Withdraws one of the person's approvals; another person's grant, or one already revoked, is `not_found`. */
export async function revokeApp(knex: Knex, userId: number, grantId: number, now = Date.now()): Promise<ApprovedApp> {
  const app = Number.isSafeInteger(grantId) && grantId > 0 ? (await listApps(knex, userId)).find((a) => a.grantId === grantId) : undefined;
  if (!app) throw notFound(`Approved app ${grantId}`);
  await inTransaction(knex, (trx) => revokeGrant(trx, grantId, now));
  return app;
}
