// A signed-in person as the core sees them when they act through the console: one Principal per
// organization they belong to, with their role and brand limit, the scopes a person has in the app
// (read and write: people decide and change drafts there; publishing stays with keys and tokens that
// carry `publish` and a ceiling), and the organization's plan checked as for the MCP server.

import type { Knex } from 'knex';
import { planAdmits, type Principal, type Role } from '../auth/principal.js';
import { membershipAccessOfUser } from '../account/store.js';

/** One of the person's organizations, and the Principal they act as in it (null when its plan admits no app). */
export interface PersonOrganization {
  organizationId: number;
  organizationName: string;
  role: Role;
  plan: string;
  subscriptionStatus: string;
  principal: Principal | null;
}

/** The scopes a person has in the app: never `publish`, which needs a credential with a spend ceiling. */
const PERSON_SCOPES = new Set(['read', 'write'] as const);

/**
 * The person `userId` (named `name`) in each of their organizations, in organization id order:
 * their role, their brands (null: every brand) and the Principal the app invokes operations as.
 */
export async function personOrganizations(knex: Knex, userId: number, name: string): Promise<PersonOrganization[]> {
  const out: PersonOrganization[] = [];
  for (const m of await membershipAccessOfUser(knex, userId)) {
    const admitted = planAdmits('mcp', m.plan, m.subscriptionStatus);
    out.push({
      organizationId: m.organizationId,
      organizationName: m.organizationName,
      role: m.role,
      plan: m.plan,
      subscriptionStatus: m.subscriptionStatus,
      principal: admitted
        ? {
            kind: 'user',
            organizationId: m.organizationId,
            credentialId: `person:${userId}`,
            apiKeyId: null,
            grantId: null,
            userId,
            actorLabel: name.slice(0, 255),
            scopes: PERSON_SCOPES,
            brandIds: m.brandIds ? new Set(m.brandIds) : null,
            role: m.role,
            publishCeilingCents: null,
          }
        : null,
    });
  }
  return out;
}
