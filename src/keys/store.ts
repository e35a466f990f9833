// The keys area's tables: `api_keys` and `api_key_brands` (organization API keys and their brand
// limits), and `oauth_grants` (a person's approval of an app, which acts as a key for it). The only
// file that queries them besides bootstrap seeding: authentication, the account page, the OAuth
// flows and the spend ledger every publish reserves on (a credential's publish ceiling and committed
// total, US cents) call these functions.

import type { Knex } from 'knex';
import type { Scope } from '../auth/principal.js';

type Db = Knex | Knex.Transaction;

/** Where a credential's ceiling and committed total live: its API key, its OAuth grant, or a person's membership (the console). */
export interface Ledger {
  kind: 'apiKey' | 'grant' | 'membership';
  id: number;
}

const TABLE = { apiKey: 'api_keys', grant: 'oauth_grants', membership: 'memberships' } as const;
/** A membership is never revoked (a person who leaves loses the membership itself). */
const revocable = (ledger: Ledger) => ledger.kind !== 'membership';

/** The ledger's ceiling (null: none set) and committed total, or undefined when the row is gone. */
export async function readLedger(
  db: Db,
  ledger: Ledger,
): Promise<{ ceilingCents: number | null; committedCents: number; revokedAt: number | null } | undefined> {
  const row = await db(TABLE[ledger.kind])
    .where({ id: ledger.id })
    .first('publish_ceiling_cents', 'committed_cents', ...(revocable(ledger) ? ['revoked_at'] : []));
  if (!row) return undefined;
  return {
    ceilingCents: row.publish_ceiling_cents === null ? null : Number(row.publish_ceiling_cents),
    committedCents: Number(row.committed_cents ?? 0),
    revokedAt: row.revoked_at === null || row.revoked_at === undefined ? null : Number(row.revoked_at),
  };
}

/**
 * Adds `cents` to the committed total if that stays within the ceiling of a credential that is not
 * revoked, in one statement: 1 when it did, 0 when it did not.
 */
export async function reserveOnLedger(db: Db, ledger: Ledger, cents: number): Promise<number> {
  const q = db(TABLE[ledger.kind]).where('id', ledger.id);
  if (revocable(ledger)) q.whereNull('revoked_at');
  return q.whereNotNull('publish_ceiling_cents').whereRaw('committed_cents + ? <= publish_ceiling_cents', [cents]).increment('committed_cents', cents);
}

/** Gives `cents` back to the committed total (a reserved amount whose publish or budget edit failed). */
export async function releaseOnLedger(db: Db, ledger: Ledger, cents: number): Promise<void> {
  await db(TABLE[ledger.kind]).where('id', ledger.id).decrement('committed_cents', cents);
}

/** The user who created API key `id` (null: none recorded, or the key is gone). */
export async function apiKeyCreator(db: Db, id: number): Promise<number | null> {
  const row = await db('api_keys').where({ id }).first('created_by_user_id');
  return row?.created_by_user_id ? Number(row.created_by_user_id) : null;
}

/** The settings of a key that create and edit write. */
export interface ApiKeySettings {
  name: string;
  scopes: Scope[];
  surfaceApi: boolean;
  surfaceMcp: boolean;
  /** True: every brand of the organization; false: the brands of `api_key_brands`. */
  allBrands: boolean;
  expiresAt: number | null;
  publishCeilingCents: number | null;
}

/** An API key as stored: its settings, and the secret only as its lookup prefix, salt and hash. */
export interface ApiKeyRow extends ApiKeySettings {
  id: number;
  organizationId: number;
  lookupPrefix: string;
  salt: string;
  secretHash: string;
  committedCents: number;
  revokedAt: number | null;
  createdAt: number;
  createdByUserId: number | null;
}

const numberOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

function toApiKey(r: Record<string, any>): ApiKeyRow {
  return {
    id: Number(r.id),
    organizationId: Number(r.organization_id),
    name: r.name,
    lookupPrefix: r.lookup_prefix,
    salt: r.salt,
    secretHash: r.secret_hash,
    scopes: String(r.scopes).split(',').filter(Boolean) as Scope[],
    surfaceApi: Boolean(r.surface_api),
    surfaceMcp: Boolean(r.surface_mcp),
    allBrands: Boolean(r.all_brands),
    expiresAt: numberOrNull(r.expires_at),
    publishCeilingCents: numberOrNull(r.publish_ceiling_cents),
    committedCents: Number(r.committed_cents ?? 0),
    revokedAt: numberOrNull(r.revoked_at),
    createdAt: Number(r.created_at),
    createdByUserId: r.created_by_user_id ? Number(r.created_by_user_id) : null,
  };
}

function settingColumns(s: ApiKeySettings) {
  return {
    name: s.name,
    scopes: s.scopes.join(','),
    surface_api: s.surfaceApi,
    surface_mcp: s.surfaceMcp,
    all_brands: s.allBrands,
    expires_at: s.expiresAt,
    publish_ceiling_cents: s.publishCeilingCents,
  };
}

/** The key whose secret starts with `prefix` (prefixes are unique), or undefined. */
export async function apiKeyByPrefix(db: Db, prefix: string): Promise<ApiKeyRow | undefined> {
  const row = await db('api_keys').where({ lookup_prefix: prefix }).first();
  return row ? toApiKey(row) : undefined;
}

/** The organization's keys, newest first (only key `keyId` when given), revoked and expired ones included. */
export async function apiKeysOf(db: Db, organizationId: number, keyId?: number): Promise<ApiKeyRow[]> {
  const q = db('api_keys').where({ organization_id: organizationId });
  if (keyId !== undefined) q.where({ id: keyId });
  return (await q.orderBy('id', 'desc')).map(toApiKey);
}

/** The brands each of the keys `keyIds` is limited to, in brand id order (keys without a limit row are absent). */
export async function apiKeyBrandIds(db: Db, keyIds: number[]): Promise<Map<number, number[]>> {
  const out = new Map<number, number[]>();
  if (!keyIds.length) return out;
  const rows = await db('api_key_brands').whereIn('api_key_id', keyIds).orderBy(['api_key_id', 'brand_id']).select('api_key_id', 'brand_id');
  for (const r of rows) out.set(Number(r.api_key_id), [...(out.get(Number(r.api_key_id)) ?? []), Number(r.brand_id)]);
  return out;
}

/** Stores a new key with its brand limit; answers its id. */
export async function insertApiKey(
  trx: Knex.Transaction,
  k: ApiKeySettings & {
    organizationId: number;
    lookupPrefix: string;
    salt: string;
    secretHash: string;
    createdByUserId: number | null;
    createdAt: number;
    /** Set only by a bootstrap file that describes a revoked key. */
    revokedAt?: number | null;
  },
  brandIds: number[] | null,
): Promise<number> {
  const [id] = await trx('api_keys').insert({
    organization_id: k.organizationId,
    lookup_prefix: k.lookupPrefix,
    salt: k.salt,
    secret_hash: k.secretHash,
    ...settingColumns(k),
    committed_cents: 0,
    revoked_at: k.revokedAt ?? null,
    created_by_user_id: k.createdByUserId,
    created_at: k.createdAt,
  });
  await writeKeyBrands(trx, Number(id), brandIds);
  return Number(id);
}

async function writeKeyBrands(trx: Knex.Transaction, keyId: number, brandIds: number[] | null): Promise<void> {
  await trx('api_key_brands').where({ api_key_id: keyId }).delete();
  if (brandIds?.length) await trx('api_key_brands').insert(brandIds.map((brand_id) => ({ api_key_id: keyId, brand_id })));
}

/** Replaces the settings and brand limit of a key that is not revoked; answers false (nothing changed) when it is revoked or gone. */
export async function updateApiKey(
  trx: Knex.Transaction,
  organizationId: number,
  keyId: number,
  s: ApiKeySettings,
  brandIds: number[] | null,
): Promise<boolean> {
  const changed = await trx('api_keys').where({ id: keyId, organization_id: organizationId }).whereNull('revoked_at').update(settingColumns(s));
  if (changed !== 1) return false;
  await writeKeyBrands(trx, keyId, brandIds);
  return true;
}

/** Revokes a key of the organization at `now` (a revoked key keeps its first revocation time). */
export async function revokeApiKey(db: Db, organizationId: number, keyId: number, now: number): Promise<void> {
  await db('api_keys').where({ id: keyId, organization_id: organizationId }).whereNull('revoked_at').update({ revoked_at: now });
}

/** A person's approval of an app (OAuth grant). */
export interface GrantRow {
  id: number;
  organizationId: number;
  userId: number;
  clientId: string;
  scopes: Scope[];
  /** The resource its tokens are bound to; null means the MCP server. */
  resource: string | null;
  publishCeilingCents: number | null;
  committedCents: number;
  createdAt: number;
  revokedAt: number | null;
}

function toGrant(r: Record<string, any>): GrantRow {
  return {
    id: Number(r.id),
    organizationId: Number(r.organization_id),
    userId: Number(r.user_id),
    clientId: r.client_id,
    scopes: String(r.scopes)
      .split(/[\s,]+/)
      .filter(Boolean) as Scope[],
    resource: r.resource ?? null,
    publishCeilingCents: numberOrNull(r.publish_ceiling_cents),
    committedCents: Number(r.committed_cents ?? 0),
    createdAt: Number(r.created_at),
    revokedAt: numberOrNull(r.revoked_at),
  };
}

/** Stores a new grant; answers its id. */
export async function insertGrant(db: Db, g: Omit<GrantRow, 'id' | 'committedCents' | 'revokedAt'>): Promise<number> {
  const [id] = await db('oauth_grants').insert({
    organization_id: g.organizationId,
    user_id: g.userId,
    client_id: g.clientId,
    scopes: g.scopes.join(','),
    resource: g.resource,
    publish_ceiling_cents: g.publishCeilingCents,
    committed_cents: 0,
    created_at: g.createdAt,
    revoked_at: null,
  });
  return Number(id);
}

/** Grant `id`, or undefined. */
export async function findGrant(db: Db, id: number): Promise<GrantRow | undefined> {
  const row = await db('oauth_grants').where({ id }).first();
  return row ? toGrant(row) : undefined;
}

/** The person's grants that are not revoked, newest first. */
export async function activeGrantsOfUser(db: Db, userId: number): Promise<GrantRow[]> {
  return (await db('oauth_grants').where({ user_id: userId }).whereNull('revoked_at').orderBy('id', 'desc')).map(toGrant);
}

/** Marks grant `id` revoked at `now`, unless it already is. */
export async function revokeGrantRow(db: Db, id: number, now: number): Promise<void> {
  await db('oauth_grants').where({ id }).whereNull('revoked_at').update({ revoked_at: now });
}
