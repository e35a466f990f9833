// The Principal of a credential named by id rather than presented: work that runs later (a workflow
// run) acts as the API key or OAuth grant that started or saved it, checked again each time with
// the same rules as authentication: deleted, revoked or expired keys, withdrawn grants, departed
// members and an organization plan that no longer admits the credential all refuse.

import type { Knex } from 'knex';
import { ServiceError } from '../errors.js';
import { planAdmits, type Principal } from '../auth/principal.js';
import { findOrganization, memberAccess, usersByIds } from '../account/store.js';
import { apiKeyBrandIds, apiKeysOf, findGrant } from '../keys/store.js';

const refused = (message: string) => new ServiceError('unauthenticated', message);

/** The Principal of API key `keyId` of `organizationId`, or a ServiceError saying why it no longer qualifies. */
export async function principalOfApiKey(knex: Knex | Knex.Transaction, organizationId: number, keyId: number, now: number): Promise<Principal> {
  const [row] = await apiKeysOf(knex, organizationId, keyId);
  if (!row) throw refused(`API key ${keyId} no longer exists.`);
  if (row.revokedAt !== null) throw refused(`The API key "${row.name}" has been revoked.`);
  if (row.expiresAt !== null && row.expiresAt <= now) {
    throw refused(`The API key "${row.name}" expired at ${new Date(row.expiresAt).toISOString()}.`);
  }
  const org = await findOrganization(knex, organizationId);
  if (!org) throw refused(`API key ${keyId} no longer exists.`);
  // A key qualifies while the plan admits one of the surfaces it is switched on for.
  const admitted =
    (row.surfaceApi && planAdmits('api', org.plan, org.subscriptionStatus)) || (row.surfaceMcp && planAdmits('mcp', org.plan, org.subscriptionStatus));
  if (!admitted) {
    throw new ServiceError('plan_required', `The organization's plan (${org.plan}, ${org.subscriptionStatus}) no longer admits the API key "${row.name}".`, {
      plan: org.plan,
      subscriptionStatus: org.subscriptionStatus,
    });
  }
  const brandIds = row.allBrands ? null : ((await apiKeyBrandIds(knex, [row.id])).get(row.id) ?? []);
  return {
    kind: 'api_key',
    organizationId: row.organizationId,
    credentialId: `key:${row.id}`,
    apiKeyId: row.id,
    grantId: null,
    userId: row.createdByUserId ?? 0,
    actorLabel: `API key: ${row.name}`,
    scopes: new Set(row.scopes),
    brandIds: brandIds ? new Set(brandIds) : null,
    role: null,
    publishCeilingCents: row.publishCeilingCents,
  };
}

/** The Principal of a person's OAuth grant (their approval of an app), or a ServiceError saying why it no longer qualifies. */
export async function principalOfGrant(knex: Knex | Knex.Transaction, organizationId: number, grantId: number): Promise<Principal> {
  const grant = await findGrant(knex, grantId);
  const org = grant && grant.organizationId === organizationId ? await findOrganization(knex, organizationId) : undefined;
  const name = grant ? (await usersByIds(knex, [grant.userId])).get(grant.userId)?.name : undefined;
  if (!grant || !org || name === undefined) throw refused(`OAuth grant ${grantId} no longer exists.`);
  if (grant.revokedAt !== null) throw refused(`${name}'s approval of this app was withdrawn.`);
  const membership = await memberAccess(knex, organizationId, grant.userId);
  if (!membership) throw refused(`${name} is no longer a member of the organization.`);
  if (!planAdmits('mcp', org.plan, org.subscriptionStatus)) {
    throw new ServiceError('plan_required', `The organization's plan (${org.plan}, ${org.subscriptionStatus}) no longer admits this credential.`, {
      plan: org.plan,
      subscriptionStatus: org.subscriptionStatus,
    });
  }
  return {
    kind: 'user',
    organizationId,
    credentialId: `grant:${grantId}`,
    apiKeyId: null,
    grantId,
    userId: grant.userId,
    actorLabel: name,
    scopes: new Set(grant.scopes),
    brandIds: membership.brandIds ? new Set(membership.brandIds) : null,
    role: membership.role,
    publishCeilingCents: grant.publishCeilingCents,
  };
}
