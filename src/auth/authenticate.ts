// Turns a bearer credential into a Principal: key lookup, then the plan, then the surface switch.
// Verified keys are cached briefly; the cache lifetime bounds how long a revoked key keeps working.

import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { ServiceError } from '../errors.js';
import { hashSecret, lookupPrefixOf, sameHash, API_KEY_PREFIX } from './secrets.js';
import { planAdmits, type Principal, type Scope, type Surface } from './principal.js';

interface KeyRecord {
  id: number;
  organizationId: number;
  name: string;
  scopes: Scope[];
  surfaceApi: boolean;
  surfaceMcp: boolean;
  brandIds: number[] | null;
  expiresAt: number | null;
  revokedAt: number | null;
  publishCeilingCents: number | null;
  createdByUserId: number | null;
  plan: string;
  subscriptionStatus: string;
}

interface CacheEntry {
  record: KeyRecord | null;
  fetchedAt: number;
}

const unauthenticated = (message: string) => new ServiceError('unauthenticated', message);

export class Authenticator {
  private readonly cache = new Map<string, CacheEntry>();

  constructor(private readonly knex: Knex, private readonly cacheMs: number, private readonly now: () => number = Date.now) {}

  /** Resolves `Authorization: Bearer ...` for a surface, or throws 401/403 with the contract's code. */
  async authenticate(authorization: string | undefined, surface: Surface): Promise<Principal> {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
    if (!match) {
      throw unauthenticated('Missing credential: send "Authorization: Bearer <API key or access token>".');
    }
    const credential = match[1];
    if (!credential.startsWith(API_KEY_PREFIX)) {
      throw unauthenticated('The credential is not recognised. Send an API key (svc_sk_...) or an OAuth access token (svc_at_...).');
    }
    const record = await this.lookup(credential);
    const now = this.now();
    if (!record) throw unauthenticated('The API key is not recognised. Check that it was copied whole; keys are shown only once.');
    if (record.revokedAt !== null) throw unauthenticated('The API key has been revoked. Ask an organization owner or admin for a new key.');
    if (record.expiresAt !== null && record.expiresAt <= now) {
      throw unauthenticated(`The API key expired at ${new Date(record.expiresAt).toISOString()}. Ask an organization owner or admin for a new key.`);
    }
    if (!planAdmits(surface, record.plan, record.subscriptionStatus)) {
      throw new ServiceError(
        'plan_required',
        surface === 'api'
          ? 'The REST API needs an agency plan with an active subscription. Upgrade the organization, or use the MCP server.'
          : 'The MCP server needs a paid plan with an active subscription.',
        { plan: record.plan, subscriptionStatus: record.subscriptionStatus },
      );
    }
    const enabled = surface === 'api' ? record.surfaceApi : record.surfaceMcp;
    if (!enabled) {
      throw new ServiceError(
        'surface_disabled',
        surface === 'api'
          ? 'This API key has the API surface switched off. An organization owner or admin can turn it on in the account page.'
          : 'This API key has the MCP surface switched off. An organization owner or admin can turn it on in the account page.',
        { surface },
      );
    }
    return {
      kind: 'api_key',
      organizationId: record.organizationId,
      credentialId: `key:${record.id}`,
      apiKeyId: record.id,
      grantId: null,
      userId: record.createdByUserId ?? 0,
      actorLabel: `API key: ${record.name}`,
      scopes: new Set(record.scopes),
      brandIds: record.brandIds ? new Set(record.brandIds) : null,
      role: null,
      publishCeilingCents: record.publishCeilingCents,
    };
  }

  /** Forgets every cached key, e.g. after tests change keys directly. */
  clear(): void {
    this.cache.clear();
  }

  private async lookup(secret: string): Promise<KeyRecord | null> {
    const cacheKey = crypto.createHash('sha256').update(secret).digest('hex');
    const hit = this.cache.get(cacheKey);
    const now = this.now();
    if (hit && now - hit.fetchedAt < this.cacheMs) return hit.record;
    const record = await this.fetch(secret);
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(cacheKey, { record, fetchedAt: now });
    return record;
  }

  private async fetch(secret: string): Promise<KeyRecord | null> {
    const prefix = lookupPrefixOf(secret);
    if (!prefix) return null;
    const row = await this.knex('api_keys as k')
      .join('organizations as o', 'o.id', 'k.organization_id')
      .where('k.lookup_prefix', prefix)
      .first('k.*', 'o.plan', 'o.subscription_status');
    if (!row || !sameHash(hashSecret(secret, row.salt), row.secret_hash)) return null;
    const brandIds = row.all_brands
      ? null
      : (await this.knex('api_key_brands').where('api_key_id', row.id).pluck('brand_id')).map(Number);
    return {
      id: Number(row.id),
      organizationId: Number(row.organization_id),
      name: row.name,
      scopes: String(row.scopes).split(',').filter(Boolean) as Scope[],
      surfaceApi: Boolean(row.surface_api),
      surfaceMcp: Boolean(row.surface_mcp),
      brandIds,
      expiresAt: row.expires_at === null ? null : Number(row.expires_at),
      revokedAt: row.revoked_at === null ? null : Number(row.revoked_at),
      publishCeilingCents: row.publish_ceiling_cents === null ? null : Number(row.publish_ceiling_cents),
      createdByUserId: row.created_by_user_id === null ? null : Number(row.created_by_user_id),
      plan: row.plan,
      subscriptionStatus: row.subscription_status,
    };
  }
}
