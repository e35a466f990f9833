// A signed-in person as the core sees them when they act through the console: one Principal per
// organization they belong to, with their role and brand limit, the scopes a person has in the app
// (read and write: people decide and change drafts there; publishing stays with keys and tokens that
// carry `publish` and a ceiling), and the organization's plan checked as for the MCP server.

import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { sessionOf, sessionOpen, type WebSession } from '../oauth/sessions.js';
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

/**
 * The scopes a person has in the app: read and write (drafts, cards, decisions at reviews). Never
 * `publish` in general: a card moved in the console must not start a money workflow as the person.
 * An owner's or admin's live controls add it for exactly those calls (liveChangePrincipal).
 */
const PERSON_SCOPES = new Set(['read', 'write'] as const);
const LIVE_CHANGE_SCOPES = new Set(['read', 'write', 'publish'] as const);

/**
 * The principal an owner or admin changes what already runs with in the console (pause, resume, a
 * live budget: update-node and edit-live-campaign), counted against their own ceiling; null for a
 * member, who may not.
 */
export function liveChangePrincipal(p: Principal): Principal | null {
  return p.kind === 'user' && p.membershipId !== undefined && (p.role === 'owner' || p.role === 'admin') ? { ...p, scopes: LIVE_CHANGE_SCOPES } : null;
}

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
            // A person publishes nothing new; their own ceiling bounds the live budgets they set.
            publishCeilingCents: m.role === 'member' ? null : m.publishCeilingCents,
            membershipId: m.membershipId,
          }
        : null,
    });
  }
  return out;
}

/** A signed-in person: their session and their organizations, as the console acts for them. */
export interface SignedInPerson {
  session: WebSession;
  organizations: PersonOrganization[];
}

/** Entries a process keeps at most; the oldest go first. */
const MAX_SESSIONS = 10_000;

/**
 * Session cookies resolved to the person behind them. The session row is read on every request (one
 * read by primary key), so a sign-out in any process ends the console at once; what the row leads
 * to (the person, their memberships) is kept per process for `ttlMs` (KEY_CACHE_MS, as verified API
 * keys are): a change of role or brands holds within `ttlMs`.
 */
export class PersonSessions {
  private readonly cache = new Map<string, { until: number; person: SignedInPerson }>();

  constructor(
    private readonly knex: Knex,
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** The person a session cookie signs in, or null without a valid session. */
  async of(cookie: string | undefined): Promise<SignedInPerson | null> {
    if (!cookie) return null;
    const key = crypto.createHash('sha256').update(cookie).digest('base64url');
    const now = this.now();
    const kept = this.cache.get(key);
    if (kept && kept.until > now) {
      if (await sessionOpen(this.knex, cookie, now)) return kept.person;
      this.cache.delete(key);
      return null;
    }
    const session = await sessionOf(this.knex, cookie, now);
    if (!session) {
      this.cache.delete(key);
      return null;
    }
    const person = { session, organizations: await personOrganizations(this.knex, session.userId, session.name) };
    if (this.ttlMs > 0) {
      this.cache.delete(key);
      this.cache.set(key, { until: now + this.ttlMs, person });
      if (this.cache.size > MAX_SESSIONS) this.cache.delete(this.cache.keys().next().value!);
    }
    return person;
  }

  /** Drops what this process kept of a cookie (its sign-out). */
  forget(cookie: string | undefined): void {
    if (cookie) this.cache.delete(crypto.createHash('sha256').update(cookie).digest('base64url'));
  }
}
