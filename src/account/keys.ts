// Organization API keys as the account page manages them: list, create, edit and revoke, with
// the five settings (scopes, surfaces, brand limit, expiry, publish ceiling) checked here.
// Only the organization owner and admins manage keys; anyone else gets `forbidden`.
// Keys are organization-level, so no activity entry is written (activity rows belong to a brand).

import type { Knex } from 'knex';
import { inTransaction } from '../db/connection.js';
import { ServiceError, notFound, validationFailed, type FieldIssue } from '../errors.js';
import { newApiKeySecret } from '../auth/secrets.js';
import { SCOPES, planAdmits, type Role, type Scope } from '../auth/principal.js';
import { dollarsToCents } from '../money/dollars.js';
import { brandsWithFirstAccount } from '../brands/store.js';
import { apiKeyBrandIds, apiKeysOf, insertApiKey, revokeApiKey, updateApiKey, type ApiKeyRow, type ApiKeySettings } from '../keys/store.js';
import { memberIdByEmail, membershipIn, organizationsMatching, usersByIds } from './store.js';

/** Who is acting: a signed-in person, in one of their organizations. */
export interface KeyActor {
  userId: number;
  organizationId: number;
}

/** The settings of a key as submitted (create and edit both send all of them). */
export interface KeySettingsInput {
  name: string;
  scopes: string[];
  surfaces: { api: boolean; mcp: boolean };
  /** null: every brand of the organization, present and future. */
  brandIds: number[] | null;
  /** null: never expires; otherwise an ISO 8601 time with a zone (`Z` or `+hh:mm`). */
  expiresAt: string | null;
  /** null: no ceiling; otherwise dollars with at most two decimals. */
  publishCeilingDollars: number | null;
}

export type KeyStatus = 'active' | 'expired' | 'revoked';

export interface ManagedKey {
  id: number;
  name: string;
  /** The indexed part of the secret (`svc_sk_` and 12 characters); the rest is never shown again. */
  prefix: string;
  scopes: Scope[];
  surfaces: { api: boolean; mcp: boolean };
  /** null: every brand; otherwise the brands the key is limited to. */
  brands: Array<{ id: number; name: string }> | null;
  expiresAt: number | null;
  publishCeilingCents: number | null;
  committedCents: number;
  revokedAt: number | null;
  createdAt: number;
  createdBy: string | null;
  status: KeyStatus;
  /** Things that will make the key refuse calls the owner may expect to work. */
  warnings: string[];
}

export interface OrganizationForKeys {
  id: number;
  name: string;
  plan: string;
  subscriptionStatus: string;
  role: Role;
  /** True when the API surface may be switched on (agency plan, active subscription). */
  apiAllowed: boolean;
}

export const NAME_MAX = 200;
export const CEILING_MAX_DOLLARS = 100_000_000;

export function managesKeys(role: string | null | undefined): boolean {
  return role === 'owner' || role === 'admin';
}

/** The actor's organization when they are its owner or an admin; `forbidden` otherwise. */
export async function requireKeyManager(knex: Knex, actor: KeyActor): Promise<OrganizationForKeys> {
  const row = await membershipIn(knex, actor.organizationId, actor.userId);
  if (!row) throw new ServiceError('forbidden', 'You are not a member of this organization.', null);
  if (!managesKeys(row.role)) {
    throw new ServiceError('forbidden', 'Only the organization owner and admins create, edit and revoke API keys.', { role: row.role });
  }
  return {
    id: row.organizationId,
    name: row.organizationName,
    plan: row.plan,
    subscriptionStatus: row.subscriptionStatus,
    role: row.role,
    apiAllowed: planAdmits('api', row.plan, row.subscriptionStatus),
  };
}

/**
 * The actor an operator names on the command line (`svc-server create-key`): an organization by id
 * or exact name and one of its people by email. Whether they may manage keys is checked when they act.
 */
export async function keyActorFor(knex: Knex, organization: string, email: string): Promise<KeyActor> {
  const byId = /^[1-9][0-9]{0,9}$/.test(organization);
  const orgs = await organizationsMatching(knex, byId ? { id: Number(organization) } : { name: organization });
  if (!orgs.length) throw notFound(`Organization ${byId ? organization : JSON.stringify(organization)}`);
  if (orgs.length > 1) {
    throw new ServiceError(
      'conflict',
      `${orgs.length} organizations are named ${JSON.stringify(organization)}; name one by id (${orgs.map((o) => o.id).join(', ')}).`,
      { organizationIds: orgs.map((o) => o.id) },
    );
  }
  const organizationId = orgs[0].id;
  const member = await memberIdByEmail(knex, organizationId, email);
  if (member === undefined) throw notFound(`A member ${email} of organization ${orgs[0].name} (${organizationId})`);
  return { userId: member, organizationId };
}

/** The organization's brands, for the brand-limit choices. */
export async function organizationBrands(knex: Knex, organizationId: number): Promise<Array<{ id: number; name: string }>> {
  return (await brandsWithFirstAccount(knex, organizationId)).map((b) => ({ id: b.id, name: b.name }));
}

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/;

interface CheckedSettings {
  name: string;
  scopes: Scope[];
  api: boolean;
  mcp: boolean;
  brandIds: number[] | null;
  expiresAt: number | null;
  ceilingCents: number | null;
}

/** Validates the five settings and the name; every problem is reported at once as `validation_failed`. */
async function checkSettings(
  knex: Knex,
  org: OrganizationForKeys,
  input: KeySettingsInput,
  now: number,
  existing: { api: boolean; expiresAt: number | null } | null,
): Promise<CheckedSettings> {
  const issues: FieldIssue[] = [];
  const name = typeof input.name === 'string' ? input.name.trim() : '';
  if (!name) issues.push({ field: 'name', code: 'too_small', message: 'is required: name the key after what uses it' });
  else if (name.length > NAME_MAX) issues.push({ field: 'name', code: 'too_big', message: `must be at most ${NAME_MAX} characters` });

  const asked = Array.isArray(input.scopes) ? input.scopes : [];
  const unknown = asked.filter((s) => !SCOPES.includes(s as Scope));
  if (!Array.isArray(input.scopes)) issues.push({ field: 'scopes', code: 'invalid_type', message: 'must be a list of scopes' });
  else if (unknown.length)
    issues.push({
      field: 'scopes',
      code: 'invalid_value',
      message: `has unknown scope ${unknown.map((s) => JSON.stringify(s)).join(', ')}; use read, write and publish`,
    });
  else if (!asked.length) issues.push({ field: 'scopes', code: 'too_small', message: 'needs at least one of read, write and publish' });
  const scopes = SCOPES.filter((s) => asked.includes(s));

  const api = input.surfaces?.api === true;
  const mcp = input.surfaces?.mcp === true;
  // Switching API on needs the agency plan; a key that already has it keeps it through an edit
  // (the plan check at call time refuses it while the plan does not admit the API).
  if (api && !org.apiAllowed && !existing?.api) {
    issues.push({
      field: 'surfaces.api',
      code: 'plan_required',
      message: `can be switched on only for an organization on the agency plan with an active subscription (this one is on ${org.plan}, ${org.subscriptionStatus})`,
    });
  }

  let brandIds: number[] | null = null;
  if (input.brandIds !== null) {
    if (!Array.isArray(input.brandIds) || input.brandIds.some((id) => !Number.isSafeInteger(id) || id < 1)) {
      issues.push({ field: 'brandIds', code: 'invalid_type', message: 'must be null (every brand) or a list of brand ids' });
    } else if (!input.brandIds.length) {
      issues.push({ field: 'brandIds', code: 'too_small', message: 'must name at least one brand, or be null for every brand' });
    } else {
      brandIds = [...new Set(input.brandIds)].sort((a, b) => a - b);
      const own = new Set((await organizationBrands(knex, org.id)).map((b) => b.id));
      const foreign = brandIds.filter((id) => !own.has(id));
      if (foreign.length)
        issues.push({
          field: 'brandIds',
          code: 'invalid_value',
          message: `names ${foreign.join(', ')}, which ${foreign.length === 1 ? 'is not a brand' : 'are not brands'} of this organization`,
        });
    }
  }

  let expiresAt: number | null = null;
  if (input.expiresAt !== null && input.expiresAt !== undefined) {
    const parsed = typeof input.expiresAt === 'string' && ISO_TIME.test(input.expiresAt) ? Date.parse(input.expiresAt) : NaN;
    if (!Number.isFinite(parsed)) {
      issues.push({
        field: 'expiresAt',
        code: 'invalid_value',
        message: 'must be an ISO 8601 time with a zone, e.g. 2027-01-31T18:00:00Z, or empty for never',
      });
    } else {
      expiresAt = parsed;
      // An unchanged expiry may be in the past (editing an expired key's other settings).
      const unchanged = existing && existing.expiresAt !== null && Math.floor(existing.expiresAt / 1000) === Math.floor(parsed / 1000);
      if (unchanged) expiresAt = existing!.expiresAt;
      else if (parsed <= now) issues.push({ field: 'expiresAt', code: 'invalid_value', message: 'must be in the future' });
    }
  }

  let ceilingCents: number | null = null;
  const dollars = input.publishCeilingDollars;
  if (dollars !== null && dollars !== undefined) {
    const cents = typeof dollars === 'number' && Number.isFinite(dollars) ? dollarsToCents(dollars) : null;
    if (typeof dollars !== 'number' || !Number.isFinite(dollars))
      issues.push({ field: 'publishCeilingDollars', code: 'invalid_type', message: 'must be an amount in dollars' });
    else if (dollars < 1) issues.push({ field: 'publishCeilingDollars', code: 'too_small', message: 'must be at least 1 dollar' });
    else if (dollars > CEILING_MAX_DOLLARS)
      issues.push({ field: 'publishCeilingDollars', code: 'too_big', message: `must be at most ${CEILING_MAX_DOLLARS} dollars` });
    else if (cents === null) issues.push({ field: 'publishCeilingDollars', code: 'invalid_value', message: 'must be whole cents (at most two decimals)' });
    else ceilingCents = cents;
  }

  if (issues.length) throw validationFailed(issues);
  return { name, scopes, api, mcp, brandIds, expiresAt, ceilingCents };
}

/** What will make a key refuse calls its owner may expect to work; shown beside the key. */
export function keyWarnings(k: Pick<ManagedKey, 'scopes' | 'surfaces' | 'publishCeilingCents' | 'committedCents' | 'status'>): string[] {
  if (k.status !== 'active') return [];
  const out: string[] = [];
  if (k.scopes.includes('publish') && k.publishCeilingCents === null) {
    out.push('This key has publish but no publish ceiling: its publishing calls get 403 spend_ceiling_required until a ceiling is set.');
  }
  if (k.scopes.includes('publish') && k.publishCeilingCents !== null && k.committedCents >= k.publishCeilingCents) {
    out.push('The publish ceiling is used up: further publishing calls get 403 spend_ceiling_exceeded.');
  }
  if (!k.surfaces.api && !k.surfaces.mcp) out.push('Both surfaces are off: the key works nowhere.');
  return out;
}

function statusOf(row: ApiKeyRow, now: number): KeyStatus {
  if (row.revokedAt !== null) return 'revoked';
  if (row.expiresAt !== null && row.expiresAt <= now) return 'expired';
  return 'active';
}

async function loadKeys(knex: Knex, organizationId: number, now: number, keyId?: number): Promise<ManagedKey[]> {
  const rows = await apiKeysOf(knex, organizationId, keyId);
  const limited = rows.filter((r) => !r.allBrands).map((r) => r.id);
  const [brandIds, brandNames, creators] = await Promise.all([
    apiKeyBrandIds(knex, limited),
    limited.length ? organizationBrands(knex, organizationId) : [],
    usersByIds(
      knex,
      rows.map((r) => r.createdByUserId).filter((id): id is number => id !== null),
    ),
  ]);
  const nameOf = new Map(brandNames.map((b) => [b.id, b.name]));
  return rows.map((r) => {
    const key: ManagedKey = {
      id: r.id,
      name: r.name,
      prefix: r.lookupPrefix,
      scopes: r.scopes,
      surfaces: { api: r.surfaceApi, mcp: r.surfaceMcp },
      brands: r.allBrands ? null : (brandIds.get(r.id) ?? []).filter((id) => nameOf.has(id)).map((id) => ({ id, name: nameOf.get(id)! })),
      expiresAt: r.expiresAt,
      publishCeilingCents: r.publishCeilingCents,
      committedCents: r.committedCents,
      revokedAt: r.revokedAt,
      createdAt: r.createdAt,
      createdBy: r.createdByUserId === null ? null : (creators.get(r.createdByUserId)?.name ?? null),
      status: statusOf(r, now),
      warnings: [],
    };
    key.warnings = keyWarnings(key);
    return key;
  });
}

/** Every key of the organization, newest first, revoked and expired ones included. */
export async function listKeys(knex: Knex, actor: KeyActor, now = Date.now()): Promise<ManagedKey[]> {
  await requireKeyManager(knex, actor);
  return loadKeys(knex, actor.organizationId, now);
}

/** One key of the organization; `not_found` when the organization has no such key. */
export async function getKey(knex: Knex, actor: KeyActor, keyId: number, now = Date.now()): Promise<ManagedKey> {
  await requireKeyManager(knex, actor);
  const [key] = Number.isSafeInteger(keyId) && keyId > 0 ? await loadKeys(knex, actor.organizationId, now, keyId) : [];
  if (!key) throw notFound(`API key ${keyId}`);
  return key;
}

/** The stored form of a key's checked settings. */
function stored(s: CheckedSettings): ApiKeySettings {
  return {
    name: s.name,
    scopes: s.scopes,
    surfaceApi: s.api,
    surfaceMcp: s.mcp,
    allBrands: s.brandIds === null,
    expiresAt: s.expiresAt,
    publishCeilingCents: s.ceilingCents,
  };
}

/** Creates a key; the secret is returned here once and only its prefix, salt and hash are kept. */
export async function createKey(knex: Knex, actor: KeyActor, input: KeySettingsInput, now = Date.now()): Promise<{ key: ManagedKey; secret: string }> {
  const org = await requireKeyManager(knex, actor);
  const s = await checkSettings(knex, org, input, now, null);
  const secret = newApiKeySecret();
  const keyId = await inTransaction(knex, (trx) =>
    insertApiKey(
      trx,
      {
        organizationId: org.id,
        lookupPrefix: secret.lookupPrefix,
        salt: secret.salt,
        secretHash: secret.hash,
        ...stored(s),
        createdByUserId: actor.userId,
        createdAt: now,
      },
      s.brandIds,
    ),
  );
  const [key] = await loadKeys(knex, org.id, now, keyId);
  return { key, secret: secret.secret };
}

/** Replaces a key's name and five settings; a revoked key cannot be edited (`conflict`). */
export async function updateKey(knex: Knex, actor: KeyActor, keyId: number, input: KeySettingsInput, now = Date.now()): Promise<ManagedKey> {
  const org = await requireKeyManager(knex, actor);
  const current = await getKey(knex, actor, keyId, now);
  if (current.revokedAt !== null) throw new ServiceError('conflict', 'This key is revoked and can no longer be edited; create a new key instead.', { keyId });
  const s = await checkSettings(knex, org, input, now, { api: current.surfaces.api, expiresAt: current.expiresAt });
  const changed = await inTransaction(knex, (trx) => updateApiKey(trx, org.id, keyId, stored(s), s.brandIds));
  if (!changed) throw new ServiceError('conflict', 'This key was revoked while you edited it; nothing was changed.', { keyId });
  return getKey(knex, actor, keyId, now);
}

/** Revokes a key at once (callers holding it get 401 within KEY_CACHE_MS); revoking twice is harmless. */
export async function revokeKey(knex: Knex, actor: KeyActor, keyId: number, now = Date.now()): Promise<ManagedKey> {
  const org = await requireKeyManager(knex, actor);
  await getKey(knex, actor, keyId, now);
  await revokeApiKey(knex, org.id, keyId, now);
  return getKey(knex, actor, keyId, now);
}
