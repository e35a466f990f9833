// The Principal of a credential named by id rather than presented: work that runs later (a workflow
// run) acts as the API key or OAuth grant that started or saved it, checked again each time with
// the same rules as authentication: deleted, revoked or expired keys, withdrawn grants, departed
// members and an organization plan that no longer admits the credential all refuse.

import type { Knex } from 'knex';
import { ServiceError } from '../errors.js';
import { planAdmits, type Principal, type Role, type Scope } from './principal.js';

const refused = (message: string) => new ServiceError('unauthenticated', message);

/** The Principal of API key `keyId` of `organizationId`, or a ServiceError saying why it no longer qualifies. */
export async function principalOfApiKey(knex: Knex | Knex.Transaction, organizationId: number, keyId: number, now: number): Promise<Principal> {
  const row = await knex('api_keys as k')
    .join('organizations as o', 'o.id', 'k.organization_id')
    .where({ 'k.id': keyId, 'k.organization_id': organizationId })
    .first('k.*', 'o.plan', 'o.subscription_status');
  if (!row) throw refused(`API key ${keyId} no longer exists.`);
  if (row.revoked_at !== null) throw refused(`The API key "${row.name}" has been revoked.`);
  if (row.expires_at !== null && Number(row.expires_at) <= now) {
    throw refused(`The API key "${row.name}" expired at ${new Date(Number(row.expires_at)).toISOString()}.`);
  }
  // A key qualifies while the plan admits one of the surfaces it is switched on for.
  const admitted =
    (row.surface_api && planAdmits('api', row.plan, row.subscription_status)) || (row.surface_mcp && planAdmits('mcp', row.plan, row.subscription_status));
  if (!admitted) {
    throw new ServiceError('plan_required', `The organization's plan (${row.plan}, ${row.subscription_status}) no longer admits the API key "${row.name}".`, {
      plan: row.plan,
      subscriptionStatus: row.subscription_status,
    });
  }
  const brandIds = row.all_brands ? null : (await knex('api_key_brands').where('api_key_id', row.id).pluck('brand_id')).map(Number);
  return {
    kind: 'api_key',
    organizationId: Number(row.organization_id),
    credentialId: `key:${row.id}`,
    apiKeyId: Number(row.id),
    grantId: null,
    userId: row.created_by_user_id === null ? 0 : Number(row.created_by_user_id),
    actorLabel: `API key: ${row.name}`,
    scopes: new Set(String(row.scopes).split(',').filter(Boolean) as Scope[]),
    brandIds: brandIds ? new Set(brandIds) : null,
    role: null,
    publishCeilingCents: row.publish_ceiling_cents === null ? null : Number(row.publish_ceiling_cents),
  };
}

/** The Principal of a person's OAuth grant (their approval of an app), or a ServiceError saying why it no longer qualifies. */
export async function principalOfGrant(knex: Knex | Knex.Transaction, organizationId: number, grantId: number): Promise<Principal> {
  const grant = await knex('oauth_grants as g')
    .join('organizations as o', 'o.id', 'g.organization_id')
    .join('users as u', 'u.id', 'g.user_id')
    .where({ 'g.id': grantId, 'g.organization_id': organizationId })
    .first('g.revoked_at', 'g.scopes', 'g.publish_ceiling_cents', 'g.user_id', 'o.plan', 'o.subscription_status', 'u.name');
  if (!grant) throw refused(`OAuth grant ${grantId} no longer exists.`);
  if (grant.revoked_at !== null) throw refused(`${grant.name}'s approval of this app was withdrawn.`);
  const membership = await knex('memberships').where({ organization_id: organizationId, user_id: grant.user_id }).first('id', 'role', 'all_brands');
  if (!membership) throw refused(`${grant.name} is no longer a member of the organization.`);
  if (!planAdmits('mcp', grant.plan, grant.subscription_status)) {
    throw new ServiceError('plan_required', `The organization's plan (${grant.plan}, ${grant.subscription_status}) no longer admits this credential.`, {
      plan: grant.plan,
      subscriptionStatus: grant.subscription_status,
    });
  }
  const brandIds = membership.all_brands ? null : (await knex('membership_brands').where({ membership_id: membership.id }).pluck('brand_id')).map(Number);
  return {
    kind: 'user',
    organizationId,
    credentialId: `grant:${grantId}`,
    apiKeyId: null,
    grantId,
    userId: Number(grant.user_id),
    actorLabel: grant.name,
    scopes: new Set(
      String(grant.scopes)
        .split(' ')
        .flatMap((s) => s.split(','))
        .filter(Boolean) as Scope[],
    ),
    brandIds: brandIds ? new Set(brandIds) : null,
    role: membership.role as Role,
    publishCeilingCents: grant.publish_ceiling_cents === null ? null : Number(grant.publish_ceiling_cents),
  };
}
