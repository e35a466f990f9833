// Applies a bootstrap file (docs/bootstrap.md): organizations, people, brands, ad accounts and
// API keys, all in one transaction. An invalid file writes nothing.

import type { Knex } from 'knex';
import { inTransaction } from './db/connection.js';
import { validationFailed, type FieldIssue } from './errors.js';
import { hashPassword, newApiKeySecret } from './auth/secrets.js';
import type { SchemaRegistry } from './schemas/registry.js';
import { encryptSecret, loadSecretBox } from './auth/encryption.js';
import type { Budget, IdentityType } from './platforms/port.js';
import { isCurrency } from './money/currencies.js';

interface BUser {
  ref: string;
  email: string;
  name: string;
  password: string;
  role: string;
  brands?: string[] | null;
}
interface BAccount {
  platform: 'meta' | 'tiktok';
  accountId: string;
  name?: string | null;
  timezone: string;
  currency: string;
  active: boolean;
  accessToken?: string;
  pageId?: string;
  instagramUserId?: string;
  identityId?: string;
  identityType?: IdentityType;
}
interface BBrand {
  ref: string;
  name: string;
  adAccounts?: BAccount[];
  sandbox?: Record<string, Array<Record<string, unknown> & { accountId: string }>>;
  tracker?: { apiKey: string; baseUrl: string };
}
interface BKey {
  ref: string;
  name: string;
  createdBy?: string;
  scopes: string[];
  surfaces?: { api?: boolean; mcp?: boolean };
  brands?: string[] | null;
  expiresAt?: string | null;
  publishCeilingDollars?: number | null;
  revoked?: boolean;
}
interface BOrg {
  ref: string;
  name: string;
  plan: string;
  subscriptionStatus: string;
  users?: BUser[];
  brands?: BBrand[];
  apiKeys?: BKey[];
}
export interface BootstrapFile {
  organizations: BOrg[];
}

export interface BootstrapResult {
  organizations: Record<
    string,
    {
      id: number;
      users: Record<string, { id: number }>;
      brands: Record<string, { id: number }>;
      apiKeys: Record<string, { id: number; secret: string }>;
    }
  >;
}

/** Puts what the simulated platform holds before the service touches the account into the sandbox tables. */
async function loadSandbox(trx: Knex.Transaction, brand: BBrand, now: number): Promise<void> {
  const platformOf = new Map((brand.adAccounts ?? []).map((a) => [a.accountId, a.platform]));
  const campaigns = brand.sandbox?.campaigns ?? [];
  const rows = campaigns.map((c) => ({
    platform: platformOf.get(c.accountId),
    account_id: c.accountId,
    level: 'campaign',
    object_id: String(c.id),
    parent_id: null,
    name: String(c.name),
    name_lower: String(c.name).toLowerCase(),
    marker: null,
    status: c.status,
    objective: c.objective,
    budget_period: (c.budget as Budget | null | undefined)?.period ?? null,
    budget_cents: (c.budget as Budget | null | undefined)?.amountMinorUnits ?? null,
    settings: '{}',
    created_at: now,
    updated_at: now,
  }));
  // The simulated platform holds one object per id: a file applied again describes the same objects.
  const known = new Set<string>();
  for (let i = 0; i < rows.length; i += 500) {
    const ids = rows.slice(i, i + 500).map((r) => r.object_id);
    for (const id of await trx('sandbox_objects').whereIn('object_id', ids).pluck('object_id')) known.add(id);
  }
  for (const r of rows.filter((x) => known.has(x.object_id))) {
    const { object_id: objectId, created_at: _created, ...rest } = r;
    await trx('sandbox_objects').where({ object_id: objectId }).update(rest);
  }
  const fresh = rows.filter((r) => !known.has(r.object_id));
  await trx.batchInsert('sandbox_objects', fresh, 500);
  await trx.batchInsert(
    'sandbox_status_events',
    rows.map((r) => ({ object_id: r.object_id, status: r.status, at: now })),
    500,
  );
  const assets = Object.entries(brand.sandbox ?? {})
    .filter(([kind]) => kind !== 'campaigns')
    .flatMap(([kind, items]) =>
      items.map((item) => ({
        account_id: item.accountId,
        kind,
        asset_id: String(item.id),
        page_id: (item.pageId as string | undefined) ?? null,
        name: (item.name as string | null | undefined) ?? null,
        payload: JSON.stringify(item),
      })),
    );
  for (const a of assets) await trx('sandbox_assets').where({ account_id: a.account_id, kind: a.kind, asset_id: a.asset_id }).delete();
  await trx.batchInsert('sandbox_assets', assets, 500);
}

const PREFIX: Record<BAccount['platform'], string> = { meta: 'act_', tiktok: 'biz_' };

/** Dollars to whole cents, or null when the amount has more than two decimals. */
export function dollarsToCents(dollars: number): number | null {
  const cents = Math.round(dollars * 100);
  return Math.abs(dollars * 100 - cents) < 1e-6 ? cents : null;
}

function checkSemantics(file: BootstrapFile): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const orgRefs = new Set<string>();
  file.organizations.forEach((org, i) => {
    const at = `organizations[${i}]`;
    if (orgRefs.has(org.ref)) issues.push({ field: `${at}.ref`, code: 'invalid_value', message: `ref "${org.ref}" is used twice` });
    orgRefs.add(org.ref);
    const userRefs = new Set<string>();
    const roles = new Map((org.users ?? []).map((u) => [u.ref, u.role]));
    const brandRefs = new Set<string>();
    const emails = new Set<string>();
    for (const [j, b] of (org.brands ?? []).entries()) {
      if (brandRefs.has(b.ref)) issues.push({ field: `${at}.brands[${j}].ref`, code: 'invalid_value', message: `ref "${b.ref}" is used twice` });
      brandRefs.add(b.ref);
      const accountIds = new Set<string>();
      for (const [k, a] of (b.adAccounts ?? []).entries()) {
        if (!a.accountId.startsWith(PREFIX[a.platform])) {
          issues.push({
            field: `${at}.brands[${j}].adAccounts[${k}].accountId`,
            code: 'invalid_value',
            message: `must start with ${PREFIX[a.platform]} on platform ${a.platform}`,
          });
        }
        if (accountIds.has(a.accountId))
          issues.push({ field: `${at}.brands[${j}].adAccounts[${k}].accountId`, code: 'invalid_value', message: `account ${a.accountId} is attached twice` });
        if (!isCurrency(a.currency))
          issues.push({
            field: `${at}.brands[${j}].adAccounts[${k}].currency`,
            code: 'invalid_value',
            message: `"${a.currency}" is not an ISO 4217 currency code (e.g. USD, EUR, JPY)`,
          });
        accountIds.add(a.accountId);
        // Who the ads speak as belongs to one platform: a Page on Meta, an identity on TikTok.
        const foreign = a.platform === 'meta' ? (['identityId', 'identityType'] as const) : (['pageId', 'instagramUserId'] as const);
        for (const key of foreign) {
          if (a[key] !== undefined)
            issues.push({
              field: `${at}.brands[${j}].adAccounts[${k}].${key}`,
              code: 'invalid_value',
              message: `is a ${a.platform === 'meta' ? 'TikTok' : 'Meta'} field; a ${a.platform} account names its ${a.platform === 'meta' ? 'Facebook Page with pageId (and instagramUserId)' : 'identity with identityId and identityType'}`,
            });
        }
        if (a.platform === 'tiktok' && (a.identityId === undefined) !== (a.identityType === undefined))
          issues.push({
            field: `${at}.brands[${j}].adAccounts[${k}].${a.identityId === undefined ? 'identityId' : 'identityType'}`,
            code: 'invalid_value',
            message: 'identityId and identityType go together: set both or neither',
          });
      }
      if ((b.adAccounts ?? []).some((a) => a.accessToken) && !process.env.TOKEN_ENCRYPTION_KEY) {
        issues.push({
          field: `${at}.brands[${j}].adAccounts`,
          code: 'invalid_value',
          message: 'accessToken needs TOKEN_ENCRYPTION_KEY in the environment (32 bytes, base64) to be stored encrypted',
        });
      }
      const campaignIds = new Set<string>();
      for (const [k, c] of (b.sandbox?.campaigns ?? []).entries()) {
        if (campaignIds.has(String(c.id)))
          issues.push({ field: `${at}.brands[${j}].sandbox.campaigns[${k}].id`, code: 'invalid_value', message: `campaign id ${c.id} is listed twice` });
        campaignIds.add(String(c.id));
      }
      for (const [kind, items] of Object.entries(b.sandbox ?? {})) {
        items.forEach((item, k) => {
          if (!accountIds.has(item.accountId)) {
            issues.push({
              field: `${at}.brands[${j}].sandbox.${kind}[${k}].accountId`,
              code: 'invalid_value',
              message: `names ${item.accountId}, which is not one of this brand's adAccounts`,
            });
          }
        });
      }
    }
    const brandListIssues = (list: string[] | null | undefined, field: string) => {
      for (const r of list ?? [])
        if (!brandRefs.has(r)) issues.push({ field, code: 'invalid_value', message: `brand ref "${r}" is not a brand of this organization` });
    };
    for (const [j, u] of (org.users ?? []).entries()) {
      if (userRefs.has(u.ref)) issues.push({ field: `${at}.users[${j}].ref`, code: 'invalid_value', message: `ref "${u.ref}" is used twice` });
      if (emails.has(u.email.toLowerCase())) issues.push({ field: `${at}.users[${j}].email`, code: 'invalid_value', message: `${u.email} is listed twice` });
      userRefs.add(u.ref);
      emails.add(u.email.toLowerCase());
      brandListIssues(u.brands, `${at}.users[${j}].brands`);
    }
    const keyRefs = new Set<string>();
    for (const [j, k] of (org.apiKeys ?? []).entries()) {
      const kat = `${at}.apiKeys[${j}]`;
      if (keyRefs.has(k.ref)) issues.push({ field: `${kat}.ref`, code: 'invalid_value', message: `ref "${k.ref}" is used twice` });
      keyRefs.add(k.ref);
      if (k.createdBy !== undefined && !userRefs.has(k.createdBy))
        issues.push({ field: `${kat}.createdBy`, code: 'invalid_value', message: `user ref "${k.createdBy}" is not a user of this organization` });
      else if (k.createdBy !== undefined && roles.get(k.createdBy) === 'member') {
        issues.push({
          field: `${kat}.createdBy`,
          code: 'invalid_value',
          message: `user "${k.createdBy}" is a member; only the organization's owner and admins create API keys (make them an admin, or name another creator)`,
        });
      }
      brandListIssues(k.brands, `${kat}.brands`);
      if (k.surfaces?.api && org.plan !== 'agency') {
        issues.push({ field: `${kat}.surfaces.api`, code: 'invalid_value', message: 'can be true only for an organization on the agency plan' });
      }
      if (typeof k.publishCeilingDollars === 'number' && dollarsToCents(k.publishCeilingDollars) === null) {
        issues.push({ field: `${kat}.publishCeilingDollars`, code: 'invalid_value', message: 'must have at most two decimals (whole cents)' });
      }
    }
  });
  return issues;
}

/** True when the database holds no organization yet (nothing was ever bootstrapped). */
export async function hasNoOrganization(knex: Knex): Promise<boolean> {
  const row = await knex('organizations').count({ n: '*' }).first();
  return Number(row?.n ?? 0) === 0;
}

/** Validates and applies a bootstrap document; throws `validation_failed` (nothing written) when invalid. */
export async function applyBootstrap(knex: Knex, schemas: SchemaRegistry, raw: unknown, now = Date.now()): Promise<BootstrapResult> {
  const file = schemas.validateInput<BootstrapFile>('bootstrap', raw);
  const issues = checkSemantics(file);
  if (issues.length) throw validationFailed(issues, `The bootstrap file is invalid: ${issues.length} issue(s); nothing was written.`);

  // Hash passwords before the transaction: scrypt is slow and must not hold locks.
  const hashes = new Map<BUser, string>();
  for (const org of file.organizations) for (const u of org.users ?? []) hashes.set(u, await hashPassword(u.password));
  // Tracker keys are sealed with the deployment's box, read (or made) before the transaction.
  const box = file.organizations.some((o) => (o.brands ?? []).some((b) => b.tracker)) ? await loadSecretBox(knex) : null;

  return inTransaction(knex, async (trx) => {
    const result: BootstrapResult = { organizations: {} };
    for (const org of file.organizations) {
      const [orgId] = await trx('organizations').insert({ name: org.name, plan: org.plan, subscription_status: org.subscriptionStatus, created_at: now });
      const out = {
        id: Number(orgId),
        users: {} as Record<string, { id: number }>,
        brands: {} as Record<string, { id: number }>,
        apiKeys: {} as Record<string, { id: number; secret: string }>,
      };
      result.organizations[org.ref] = out;
      const brandIds = new Map<string, number>();
      for (const b of org.brands ?? []) {
        const [brandId] = await trx('brands').insert({ organization_id: out.id, name: b.name, active: true, created_at: now });
        brandIds.set(b.ref, Number(brandId));
        out.brands[b.ref] = { id: Number(brandId) };
        for (const a of b.adAccounts ?? []) {
          await trx('ad_accounts').insert({
            organization_id: out.id,
            brand_id: Number(brandId),
            platform: a.platform,
            account_id: a.accountId,
            name: a.name ?? null,
            timezone: a.timezone,
            currency: a.currency,
            active: a.active,
            access_token_encrypted: a.accessToken ? encryptSecret(a.accessToken) : null,
            page_id: a.pageId ?? null,
            instagram_user_id: a.instagramUserId ?? null,
            identity_id: a.identityId ?? null,
            identity_type: a.identityType ?? null,
            created_at: now,
          });
        }
        await loadSandbox(trx, b, now);
        if (b.tracker) {
          await trx('tracker_connections').insert({
            brand_id: Number(brandId),
            base_url: b.tracker.baseUrl.replace(/\/+$/, ''),
            // The operator's address: called as given, the outbound address rule does not apply.
            base_url_origin: 'operator',
            api_key_sealed: box!.seal(b.tracker.apiKey),
            api_key_last4: b.tracker.apiKey.slice(-4),
            created_at: now,
            updated_at: now,
          });
        }
      }
      const userIds = new Map<string, number>();
      for (const u of org.users ?? []) {
        // One person, one user row: the same email in several organizations shares it.
        const email = u.email.toLowerCase();
        const existing = await trx('users').where({ email }).first('id');
        let userId: number;
        if (existing) {
          // The person already exists (perhaps in another organization): only the membership is new.
          userId = Number(existing.id);
        } else {
          [userId] = await trx('users').insert({ email, name: u.name, password_hash: hashes.get(u), created_at: now });
          userId = Number(userId);
        }
        userIds.set(u.ref, userId);
        out.users[u.ref] = { id: userId };
        const limited = Array.isArray(u.brands);
        const [membershipId] = await trx('memberships').insert({
          organization_id: out.id,
          user_id: userId,
          role: u.role,
          all_brands: !limited,
          created_at: now,
        });
        for (const r of u.brands ?? []) await trx('membership_brands').insert({ membership_id: Number(membershipId), brand_id: brandIds.get(r) });
      }
      for (const k of org.apiKeys ?? []) {
        const secret = newApiKeySecret();
        const limited = Array.isArray(k.brands);
        const [keyId] = await trx('api_keys').insert({
          organization_id: out.id,
          name: k.name,
          lookup_prefix: secret.lookupPrefix,
          salt: secret.salt,
          secret_hash: secret.hash,
          scopes: k.scopes.join(','),
          surface_api: k.surfaces?.api ?? false,
          surface_mcp: k.surfaces?.mcp ?? true,
          all_brands: !limited,
          expires_at: k.expiresAt ? Date.parse(k.expiresAt) : null,
          publish_ceiling_cents: typeof k.publishCeilingDollars === 'number' ? dollarsToCents(k.publishCeilingDollars) : null,
          committed_cents: 0,
          revoked_at: k.revoked ? now : null,
          created_by_user_id: k.createdBy ? userIds.get(k.createdBy) : null,
          created_at: now,
        });
        for (const r of k.brands ?? []) await trx('api_key_brands').insert({ api_key_id: Number(keyId), brand_id: brandIds.get(r) });
        out.apiKeys[k.ref] = { id: Number(keyId), secret: secret.secret };
      }
    }
    return result;
  });
}
