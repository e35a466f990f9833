// Applies a bootstrap file (docs/bootstrap.md): organizations, people, brands, ad accounts and
// API keys, all in one transaction. An invalid file writes nothing.

import type { Knex } from 'knex';
import { inTransaction } from './db/connection.js';
import { validationFailed, type FieldIssue } from './errors.js';
import { hashPassword, newApiKeySecret } from './auth/secrets.js';
import type { SchemaRegistry } from './schemas/registry.js';
import { encryptSecret, loadSecretBox } from './auth/encryption.js';
import type { Budget, IdentityType, RegionalIdentities } from './platforms/port.js';
import { isCurrency } from './money/currencies.js';
import { dollarsToCents } from './money/dollars.js';
import type { Role, Scope } from './auth/principal.js';
import { tokenEncryptionKey } from './config.js';
import { insertMembership, insertOrganization, organizationNames, setAgentPublishes, userIdForEmail } from './account/store.js';
import { foldEmail } from './account/email.js';
import { insertAdAccount, insertBrand, organizationsWithAdAccounts } from './brands/store.js';
import { insertApiKey } from './keys/store.js';
import { insertConnection } from './trackers/store.js';
import { seedObjects, type SeedAsset, type SeedCampaign } from './platforms/sandbox/store.js';

interface BUser {
  ref: string;
  email: string;
  name: string;
  password: string;
  role: Role;
  brands?: string[] | null;
  /** An owner's or admin's own ceiling for live budget changes made in the console. */
  publishCeilingDollars?: number | null;
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
  dsaBeneficiary?: string;
  dsaPayor?: string;
  identityBcId?: string;
  allowlisted?: string[];
  /** Taken by earlier versions: accepted and ignored. */
  declaredCountries?: string[];
  regionalIdentities?: RegionalIdentities;
  smartPlusAllowed?: boolean;
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
  scopes: Scope[];
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
  /** agentPublishes: direct (default) or person (paths.md "Approvals by a person"). */
  settings?: { agentPublishes?: 'direct' | 'person' };
}
export interface BootstrapFile {
  organizations: BOrg[];
}

/** Something the file did that works but is probably not what was meant: printed on standard error too. */
export interface BootstrapWarning {
  field: string;
  message: string;
}

export interface BootstrapResult {
  /** Present when there is something to warn about (an ad account id another organization already has). */
  warnings?: BootstrapWarning[];
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
  const campaigns: SeedCampaign[] = (brand.sandbox?.campaigns ?? []).map((c) => ({
    platform: platformOf.get(c.accountId),
    accountId: c.accountId,
    objectId: String(c.id),
    name: String(c.name),
    status: String(c.status),
    objective: String(c.objective),
    budget: (c.budget as Budget | null | undefined) ?? null,
  }));
  const assets: SeedAsset[] = Object.entries(brand.sandbox ?? {})
    .filter(([kind]) => kind !== 'campaigns')
    .flatMap(([kind, items]) =>
      items.map((item) => ({
        accountId: item.accountId,
        kind,
        assetId: String(item.id),
        pageId: (item.pageId as string | undefined) ?? null,
        name: (item.name as string | null | undefined) ?? null,
        payload: JSON.stringify(item),
      })),
    );
  await seedObjects(trx, campaigns, assets, now);
}

const PREFIX: Record<BAccount['platform'], string> = { meta: 'act_', tiktok: 'biz_' };

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
        const foreign =
          a.platform === 'meta'
            ? (['identityId', 'identityType', 'identityBcId', 'smartPlusAllowed'] as const)
            : (['pageId', 'instagramUserId', 'dsaBeneficiary', 'dsaPayor', 'regionalIdentities'] as const);
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
      if ((b.adAccounts ?? []).some((a) => a.accessToken) && !tokenEncryptionKey()) {
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
      if (emails.has(foldEmail(u.email))) issues.push({ field: `${at}.users[${j}].email`, code: 'invalid_value', message: `${u.email} is listed twice` });
      userRefs.add(u.ref);
      emails.add(foldEmail(u.email));
      brandListIssues(u.brands, `${at}.users[${j}].brands`);
      if (typeof u.publishCeilingDollars === 'number') {
        if (u.role === 'member')
          issues.push({
            field: `${at}.users[${j}].publishCeilingDollars`,
            code: 'invalid_value',
            message: 'only owners and admins change live campaigns; leave it out for a member',
          });
        else if (dollarsToCents(u.publishCeilingDollars) === null)
          issues.push({ field: `${at}.users[${j}].publishCeilingDollars`, code: 'invalid_value', message: 'must have at most two decimals (whole cents)' });
      }
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

/**
 * Ad account ids the file attaches that another organization already has, or that two organizations of
 * the file both name: each organization would then see and change the other's campaigns on the ad
 * platform, so the file is applied with a warning per account rather than silently.
 */
async function sharedAdAccounts(trx: Knex.Transaction, file: BootstrapFile): Promise<BootstrapWarning[]> {
  const places: Array<{ field: string; accountId: string; org: number }> = [];
  file.organizations.forEach((org, i) =>
    (org.brands ?? []).forEach((b, j) =>
      (b.adAccounts ?? []).forEach((a, k) =>
        places.push({ field: `organizations[${i}].brands[${j}].adAccounts[${k}].accountId`, accountId: a.accountId, org: i }),
      ),
    ),
  );
  const existing = await organizationsWithAdAccounts(trx, [...new Set(places.map((p) => p.accountId))]);
  const names = await organizationNames(
    trx,
    existing.map((e) => e.organizationId),
  );
  const warnings: BootstrapWarning[] = [];
  for (const p of places) {
    const others = existing
      .filter((e) => e.accountId === p.accountId)
      .map((e) => `organization ${e.organizationId} (${names.get(e.organizationId) ?? 'unnamed'})`);
    const inFile = places.filter((q) => q.accountId === p.accountId && q.org !== p.org).map((q) => `"${file.organizations[q.org].ref}" of this file`);
    const holders = [...others, ...inFile];
    if (!holders.length) continue;
    warnings.push({
      field: p.field,
      message: `Ad account ${p.accountId} is already attached to ${holders.join(' and ')}: both organizations' keys will list and change the same campaigns. Use the organization's own ad account unless that is meant.`,
    });
  }
  return warnings;
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
    const warnings = await sharedAdAccounts(trx, file);
    if (warnings.length) result.warnings = warnings;
    for (const org of file.organizations) {
      const out = {
        id: await insertOrganization(trx, { name: org.name, plan: org.plan, subscriptionStatus: org.subscriptionStatus }, now),
        users: {} as Record<string, { id: number }>,
        brands: {} as Record<string, { id: number }>,
        apiKeys: {} as Record<string, { id: number; secret: string }>,
      };
      result.organizations[org.ref] = out;
      if (org.settings?.agentPublishes) await setAgentPublishes(trx, out.id, org.settings.agentPublishes);
      const brandIds = new Map<string, number>();
      for (const b of org.brands ?? []) {
        const brandId = await insertBrand(trx, out.id, b.name, now);
        brandIds.set(b.ref, brandId);
        out.brands[b.ref] = { id: brandId };
        for (const a of b.adAccounts ?? []) {
          await insertAdAccount(
            trx,
            {
              organizationId: out.id,
              brandId,
              platform: a.platform,
              accountId: a.accountId,
              name: a.name ?? null,
              timezone: a.timezone,
              currency: a.currency,
              active: a.active,
              accessTokenEncrypted: a.accessToken ? encryptSecret(a.accessToken) : null,
              pageId: a.pageId ?? null,
              instagramUserId: a.instagramUserId ?? null,
              identityId: a.identityId ?? null,
              identityType: a.identityType ?? null,
              dsaBeneficiary: a.dsaBeneficiary ?? null,
              dsaPayor: a.dsaPayor ?? null,
              identityBcId: a.identityBcId ?? null,
              allowlisted: a.allowlisted ?? [],
              declaredCountries: [],
              regionalIdentities: a.regionalIdentities ?? null,
              smartPlusAllowed: a.smartPlusAllowed ?? false,
            },
            now,
          );
        }
        await loadSandbox(trx, b, now);
        if (b.tracker) {
          // The operator's address: called as given, the outbound address rule does not apply.
          const tracker = {
            baseUrl: b.tracker.baseUrl.replace(/\/+$/, ''),
            apiKeySealed: box!.seal(b.tracker.apiKey),
            apiKeyLast4: b.tracker.apiKey.slice(-4),
          };
          await insertConnection(trx, brandId, tracker, now, 'operator');
        }
      }
      const userIds = new Map<string, number>();
      for (const u of org.users ?? []) {
        // One person, one user row: the same email in several organizations shares it (their password stays as it was).
        const userId = await userIdForEmail(trx, u.email, { name: u.name, passwordHash: hashes.get(u)! }, now);
        userIds.set(u.ref, userId);
        out.users[u.ref] = { id: userId };
        const brands = Array.isArray(u.brands) ? u.brands.map((r) => brandIds.get(r)!) : null;
        const ceiling = typeof u.publishCeilingDollars === 'number' ? dollarsToCents(u.publishCeilingDollars) : null;
        await insertMembership(trx, { organizationId: out.id, userId, role: u.role, brandIds: brands, publishCeilingCents: ceiling }, now);
      }
      for (const k of org.apiKeys ?? []) {
        const secret = newApiKeySecret();
        const brands = Array.isArray(k.brands) ? k.brands.map((r) => brandIds.get(r)!) : null;
        const keyId = await insertApiKey(
          trx,
          {
            organizationId: out.id,
            name: k.name,
            lookupPrefix: secret.lookupPrefix,
            salt: secret.salt,
            secretHash: secret.hash,
            scopes: k.scopes,
            surfaceApi: k.surfaces?.api ?? false,
            surfaceMcp: k.surfaces?.mcp ?? true,
            allBrands: brands === null,
            expiresAt: k.expiresAt ? Date.parse(k.expiresAt) : null,
            publishCeilingCents: typeof k.publishCeilingDollars === 'number' ? dollarsToCents(k.publishCeilingDollars) : null,
            revokedAt: k.revoked ? now : null,
            createdByUserId: k.createdBy ? userIds.get(k.createdBy)! : null,
            createdAt: now,
          },
          brands,
        );
        out.apiKeys[k.ref] = { id: keyId, secret: secret.secret };
      }
    }
    return result;
  });
}
