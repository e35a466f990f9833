// Turns a bearer credential into a Principal: key lookup, then the plan, then the surface switch.
// Verified keys are cached briefly; the cache lifetime bounds how long a revoked key keeps working.

import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { ServiceError } from '../errors.js';
import { hashSecret, lookupPrefixOf, sameHash, API_KEY_PREFIX } from '../auth/secrets.js';
import { planAdmits, type Principal, type Role, type Scope, type Surface } from '../auth/principal.js';
import type { SigningKeys } from '../oauth/keys.js';
import { ACCESS_TOKEN_PREFIX, verifyAccessToken, type AccessClaims } from '../oauth/tokens.js';
import { isAccessTokenRevoked, isRefreshFamilyRevoked } from '../oauth/store.js';
import { findOrganization, memberAccess, usersByIds } from '../account/store.js';
import { apiKeyBrandIds, apiKeyByPrefix, findGrant } from '../keys/store.js';

export interface TokenSettings {
  issuer: string;
  apiResource: string;
  mcpResource: string;
  keys: SigningKeys;
}

interface GrantRecord {
  revoked: boolean;
  userName: string;
  role: Role | null;
  brandIds: number[] | null;
  publishCeilingCents: number | null;
  plan: string;
  subscriptionStatus: string;
}

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
  /** Made from `record` on first use. */
  principal?: Principal;
}

const unauthenticated = (message: string) => new ServiceError('unauthenticated', message);

export class Authenticator {
  private readonly cache = new Map<string, CacheEntry>();
  private readonly grants = new Map<string, { record: GrantRecord | null; fetchedAt: number }>();

  constructor(
    private readonly knex: Knex,
    private readonly cacheMs: number,
    private readonly now: () => number = Date.now,
    private readonly tokens: TokenSettings | null = null,
  ) {}

  /** Resolves `Authorization: Bearer ...` for a surface, or throws 401/403 with the contract's code. */
  async authenticate(authorization: string | undefined, surface: Surface): Promise<Principal> {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
    if (!match) {
      if (authorization?.trim())
        throw unauthenticated('The Authorization header must be "Bearer " followed by the credential: send "Authorization: Bearer <API key or access token>".');
      throw unauthenticated('Missing credential: send "Authorization: Bearer <API key or access token>".');
    }
    const credential = match[1];
    if (credential.startsWith(ACCESS_TOKEN_PREFIX) && this.tokens) return this.fromAccessToken(credential, surface, this.tokens);
    if (!credential.startsWith(API_KEY_PREFIX)) {
      throw unauthenticated('The credential is not recognised. Send an API key (svc_sk_...) or an OAuth access token (svc_at_...).');
    }
    const entry = await this.lookup(credential);
    const record = entry.record;
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
    // Principals are never changed once made, so one per cached key record serves every request.
    entry.principal ??= {
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
    return entry.principal;
  }

  /** A person's access token: genuine, for this surface's resource, not revoked, their membership and plan still good. */
  private async fromAccessToken(token: string, surface: Surface, settings: TokenSettings): Promise<Principal> {
    let claims: AccessClaims;
    try {
      claims = await verifyAccessToken(settings.keys, token, settings.issuer, this.now());
    } catch {
      throw unauthenticated('The access token is not valid or has expired. Refresh it, or sign in again.');
    }
    const wanted = surface === 'api' ? settings.apiResource : settings.mcpResource;
    if (claims.aud !== wanted) {
      throw surface === 'api'
        ? new ServiceError(
            'audience_mismatch',
            `This access token is for ${claims.aud}, not the REST API. Authorize with resource=${settings.apiResource} to get an API token.`,
            { audience: claims.aud },
          )
        : unauthenticated(
            `This access token is for ${claims.aud}, not the MCP server. Authorize with resource=${settings.mcpResource} (or none) to get an MCP token.`,
          );
    }
    const cacheKey = `${claims.gid}|${claims.jti}`;
    const hit = this.grants.get(cacheKey);
    const now = this.now();
    let record = hit && now - hit.fetchedAt < this.cacheMs ? hit.record : undefined;
    if (record === undefined) {
      record = await this.fetchGrant(claims);
      if (this.grants.size > 10_000) this.grants.clear();
      this.grants.set(cacheKey, { record, fetchedAt: now });
    }
    if (!record || record.revoked) throw unauthenticated('This access token was revoked, or its approval was withdrawn. Sign in again.');
    if (!record.role) throw unauthenticated('The person behind this token is no longer a member of the organization.');
    if (!planAdmits(surface, record.plan, record.subscriptionStatus)) {
      throw new ServiceError(
        'plan_required',
        surface === 'api' ? 'The REST API needs an agency plan with an active subscription.' : 'The MCP server needs a paid plan with an active subscription.',
        { plan: record.plan, subscriptionStatus: record.subscriptionStatus },
      );
    }
    return {
      kind: 'user',
      organizationId: claims.org,
      credentialId: `grant:${claims.gid}`,
      apiKeyId: null,
      grantId: claims.gid,
      userId: Number(claims.sub),
      actorLabel: record.userName,
      scopes: new Set(claims.scope.split(' ').filter(Boolean) as Scope[]),
      brandIds: record.brandIds ? new Set(record.brandIds) : null,
      role: record.role,
      publishCeilingCents: record.publishCeilingCents,
    };
  }

  private async fetchGrant(claims: AccessClaims): Promise<GrantRecord | null> {
    const grant = await findGrant(this.knex, claims.gid);
    if (!grant || grant.userId !== Number(claims.sub) || grant.organizationId !== claims.org) return null;
    const [organization, users, revokedJti, membership, revokedFamily] = await Promise.all([
      findOrganization(this.knex, grant.organizationId),
      usersByIds(this.knex, [grant.userId]),
      isAccessTokenRevoked(this.knex, claims.jti),
      memberAccess(this.knex, claims.org, grant.userId),
      typeof claims.fam === 'string' ? isRefreshFamilyRevoked(this.knex, claims.fam) : false,
    ]);
    const user = users.get(grant.userId);
    if (!organization || !user) return null;
    return {
      revoked: grant.revokedAt !== null || revokedJti || revokedFamily,
      userName: user.name,
      role: membership ? membership.role : null,
      brandIds: membership ? membership.brandIds : null,
      publishCeilingCents: grant.publishCeilingCents,
      plan: organization.plan,
      subscriptionStatus: organization.subscriptionStatus,
    };
  }

  /** Forgets what is cached of grant `grantId`'s tokens: the next use of any reads it again (a revoked family answers 401 at once). */
  forgetGrant(grantId: number): void {
    const prefix = `${grantId}|`;
    for (const k of this.grants.keys()) if (k.startsWith(prefix)) this.grants.delete(k);
  }

  /** Forgets every cached key, e.g. after tests change keys directly. */
  clear(): void {
    this.cache.clear();
    this.grants.clear();
  }

  private async lookup(secret: string): Promise<CacheEntry> {
    // The cache holds digests, never secrets.
    const cacheKey = crypto.createHash('sha256').update(secret).digest('base64');
    const hit = this.cache.get(cacheKey);
    const now = this.now();
    if (hit && now - hit.fetchedAt < this.cacheMs) return hit;
    const entry: CacheEntry = { record: await this.fetch(secret), fetchedAt: now };
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(cacheKey, entry);
    return entry;
  }

  private async fetch(secret: string): Promise<KeyRecord | null> {
    const prefix = lookupPrefixOf(secret);
    if (!prefix) return null;
    const row = await apiKeyByPrefix(this.knex, prefix);
    if (!row || !sameHash(hashSecret(secret, row.salt), row.secretHash)) return null;
    const organization = await findOrganization(this.knex, row.organizationId);
    if (!organization) return null;
    const brandIds = row.allBrands ? null : ((await apiKeyBrandIds(this.knex, [row.id])).get(row.id) ?? []);
    return {
      id: row.id,
      organizationId: row.organizationId,
      name: row.name,
      scopes: row.scopes,
      surfaceApi: row.surfaceApi,
      surfaceMcp: row.surfaceMcp,
      brandIds,
      expiresAt: row.expiresAt,
      revokedAt: row.revokedAt,
      publishCeilingCents: row.publishCeilingCents,
      createdByUserId: row.createdByUserId,
      plan: organization.plan,
      subscriptionStatus: organization.subscriptionStatus,
    };
  }
}
