// The account area's tables: `organizations` (name, plan, subscription), `users`, `memberships`
// (a person's role in an organization) and `membership_brands` (the brands a limited member
// reaches). The only file that queries them; sign-in, authentication, the account page, bootstrap
// and other areas call these functions.

import type { Knex } from 'knex';
import type { Role } from '../auth/principal.js';
import { foldEmail } from './email.js';

type Db = Knex | Knex.Transaction;

export interface Organization {
  id: number;
  name: string;
  plan: string;
  subscriptionStatus: string;
}

/** A person's membership of an organization, with the organization. */
export interface Membership {
  organizationId: number;
  organizationName: string;
  plan: string;
  subscriptionStatus: string;
  role: Role;
}

/** A membership from a row of memberships joined to its organization (o.id, o.name, o.plan, o.subscription_status, m.role). */
function toMembership(r: Record<string, any>): Membership {
  return { organizationId: Number(r.id), organizationName: r.name, plan: r.plan, subscriptionStatus: r.subscription_status, role: r.role };
}

function toOrganization(r: Record<string, any>): Organization {
  return { id: Number(r.id), name: r.name, plan: r.plan, subscriptionStatus: r.subscription_status };
}

/** Organization `id`, or undefined. */
export async function findOrganization(db: Db, id: number): Promise<Organization | undefined> {
  const row = await db('organizations').where({ id }).first('id', 'name', 'plan', 'subscription_status');
  return row ? toOrganization(row) : undefined;
}

/** The organizations with id `id`, or named exactly `name` (names need not be unique). */
export async function organizationsMatching(db: Db, by: { id: number } | { name: string }): Promise<Array<{ id: number; name: string }>> {
  const rows = await db('organizations').where(by).orderBy('id').select('id', 'name');
  return rows.map((r: Record<string, any>) => ({ id: Number(r.id), name: r.name }));
}

/** The names of the organizations `ids`, by id. */
export async function organizationNames(db: Db, ids: number[]): Promise<Map<number, string>> {
  if (!ids.length) return new Map();
  const rows = await db('organizations')
    .whereIn('id', [...new Set(ids)])
    .select('id', 'name');
  return new Map(rows.map((r: Record<string, any>) => [Number(r.id), r.name as string]));
}

/** Takes the organization's row lock until the transaction ends (work counted per organization runs under it). */
export async function lockOrganization(trx: Knex.Transaction, organizationId: number): Promise<void> {
  await trx('organizations').where({ id: organizationId }).forUpdate().first('id');
}

/** The person's memberships, in organization id order. */
export async function membershipsOfUser(db: Db, userId: number): Promise<Membership[]> {
  const rows = await db('memberships as m')
    .join('organizations as o', 'o.id', 'm.organization_id')
    .where('m.user_id', userId)
    .orderBy('o.id')
    .select('o.id', 'o.name', 'o.plan', 'o.subscription_status', 'm.role');
  return rows.map(toMembership);
}

/** The person's memberships with the brands each reaches (null: every brand), in organization id order: two statements. */
export async function membershipAccessOfUser(
  db: Db,
  userId: number,
): Promise<Array<Membership & { brandIds: number[] | null; membershipId: number; publishCeilingCents: number | null }>> {
  const rows = await db('memberships as m')
    .join('organizations as o', 'o.id', 'm.organization_id')
    .where('m.user_id', userId)
    .orderBy('o.id')
    .select('m.id as membership_id', 'm.all_brands', 'm.publish_ceiling_cents', 'o.id', 'o.name', 'o.plan', 'o.subscription_status', 'm.role');
  const limited = rows.filter((r: Record<string, any>) => !r.all_brands).map((r: Record<string, any>) => Number(r.membership_id));
  const brands = new Map<number, number[]>();
  if (limited.length) {
    for (const b of await db('membership_brands').whereIn('membership_id', limited).select('membership_id', 'brand_id')) {
      const list = brands.get(Number(b.membership_id)) ?? [];
      list.push(Number(b.brand_id));
      brands.set(Number(b.membership_id), list);
    }
  }
  return rows.map((r: Record<string, any>) => ({
    ...toMembership(r),
    brandIds: r.all_brands ? null : (brands.get(Number(r.membership_id)) ?? []),
    membershipId: Number(r.membership_id),
    publishCeilingCents: r.publish_ceiling_cents === null || r.publish_ceiling_cents === undefined ? null : Number(r.publish_ceiling_cents),
  }));
}

/** The person's membership of organization `organizationId`, or undefined when they are not a member. */
export async function membershipIn(db: Db, organizationId: number, userId: number): Promise<Membership | undefined> {
  const row = await db('memberships as m')
    .join('organizations as o', 'o.id', 'm.organization_id')
    .where({ 'm.user_id': userId, 'm.organization_id': organizationId })
    .first('o.id', 'o.name', 'o.plan', 'o.subscription_status', 'm.role');
  return row ? toMembership(row) : undefined;
}

/** The person's role in the organization and the brands they reach (null: every brand), or undefined when not a member. */
export async function memberAccess(db: Db, organizationId: number, userId: number): Promise<{ role: Role; brandIds: number[] | null } | undefined> {
  const membership = await db('memberships').where({ organization_id: organizationId, user_id: userId }).first('id', 'role', 'all_brands');
  if (!membership) return undefined;
  const brandIds = membership.all_brands ? null : (await db('membership_brands').where({ membership_id: membership.id }).pluck('brand_id')).map(Number);
  return { role: membership.role, brandIds };
}

/** The id of the member of `organizationId` with `email` (folded: email.ts), or undefined. */
export async function memberIdByEmail(db: Db, organizationId: number, email: string): Promise<number | undefined> {
  const row = await db('users as u')
    .join('memberships as m', 'm.user_id', 'u.id')
    .where({ 'u.email': foldEmail(email), 'm.organization_id': organizationId })
    .first('u.id');
  return row ? Number(row.id) : undefined;
}

/** The person with `email` (folded: email.ts) and their password hash, or undefined. */
export async function userByEmail(db: Db, email: string): Promise<{ id: number; passwordHash: string } | undefined> {
  const row = await db('users')
    .where({ email: foldEmail(email) })
    .first('id', 'password_hash');
  return row ? { id: Number(row.id), passwordHash: row.password_hash } : undefined;
}

/** Name and email of the people `ids`, by id. */
export async function usersByIds(db: Db, ids: number[]): Promise<Map<number, { name: string; email: string }>> {
  if (!ids.length) return new Map();
  const rows = await db('users')
    .whereIn('id', [...new Set(ids)])
    .select('id', 'name', 'email');
  return new Map(rows.map((r: Record<string, any>) => [Number(r.id), { name: r.name as string, email: r.email as string }]));
}

/** True when the database holds no organization yet (nothing was ever bootstrapped or seeded). */
export async function hasNoOrganization(db: Db): Promise<boolean> {
  const row = await db('organizations').count({ n: '*' }).first();
  return Number(row?.n ?? 0) === 0;
}

/** Stores a new organization; answers its id. */
export async function insertOrganization(db: Db, o: Omit<Organization, 'id'>, now: number): Promise<number> {
  const [id] = await db('organizations').insert({ name: o.name, plan: o.plan, subscription_status: o.subscriptionStatus, created_at: now });
  return Number(id);
}

/** The user with `email` (stored folded: email.ts), made with `name` and `passwordHash` when there is none yet; answers its id. */
export async function userIdForEmail(db: Db, given: string, fresh: { name: string; passwordHash: string }, now: number): Promise<number> {
  const email = foldEmail(given);
  const existing = await db('users').where({ email }).first('id');
  if (existing) return Number(existing.id);
  const [id] = await db('users').insert({ email, name: fresh.name, password_hash: fresh.passwordHash, created_at: now });
  return Number(id);
}

/** Makes `userId` a member of the organization with `role`, reaching `brandIds` (null: every brand). */
export async function insertMembership(
  db: Db,
  m: { organizationId: number; userId: number; role: Role; brandIds: number[] | null; publishCeilingCents?: number | null },
  now: number,
): Promise<void> {
  const [membershipId] = await db('memberships').insert({
    organization_id: m.organizationId,
    user_id: m.userId,
    role: m.role,
    all_brands: m.brandIds === null,
    publish_ceiling_cents: m.publishCeilingCents ?? null,
    created_at: now,
  });
  if (m.brandIds?.length) await db('membership_brands').insert(m.brandIds.map((brand_id) => ({ membership_id: Number(membershipId), brand_id })));
}

/** The organization's agentPublishes setting (paths.md "Approvals by a person"): direct (default) or person. */
export type AgentPublishes = 'direct' | 'person';

export async function agentPublishesOf(db: Knex | Knex.Transaction, organizationId: number): Promise<AgentPublishes> {
  const row = await db('organizations').where({ id: organizationId }).first('agent_publishes');
  return row?.agent_publishes === 'person' ? 'person' : 'direct';
}

export async function setAgentPublishes(db: Knex | Knex.Transaction, organizationId: number, value: AgentPublishes): Promise<void> {
  await db('organizations').where({ id: organizationId }).update({ agent_publishes: value });
}
