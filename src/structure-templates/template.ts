// Structure templates: a reusable campaign tree (config), the audiences it is applied to, default
// settings, the brand's ad accounts it targets, and a status (store.ts). Checked on save and
// re-checked on read for accounts and audiences that no longer exist (NEEDS_ATTENTION).

import type { Knex } from 'knex';
import type { BrandContext } from '../catalogue/define.js';
import type { FieldIssue } from '../errors.js';
import { adAccountsOf } from '../brands/store.js';
import { parseTemplate } from '../naming/template.js';
import { referenceIssues, type Reference } from '../references/resolve.js';
import { markNeedsAttention, type StructureTemplate } from './store.js';

type Db = Knex | Knex.Transaction;

export function templateView(t: StructureTemplate) {
  return {
    templateId: t.id,
    brandId: t.brandId,
    name: t.name,
    config: t.config,
    settings: t.settings,
    audiences: t.audiences,
    accounts: t.accounts,
    scope: t.scope,
    status: t.status,
    statusReasons: t.statusReasons.map((r) => ({ field: r.field, message: r.message })),
    createdAt: new Date(t.createdAt).toISOString(),
    updatedAt: new Date(t.updatedAt).toISOString(),
  };
}

/**
 * What is wrong with a template's parts beyond their schema: names that are not valid naming
 * templates, an accountId in the campaign (accounts come from `accounts`), creatives and copy that
 * are not the brand's, audiences without what their kind needs, accounts that are not the brand's,
 * and scope `single` with several accounts. Only the parts given are checked.
 */
export async function checkTemplate(
  ctx: BrandContext,
  parts: Partial<Pick<StructureTemplate, 'config' | 'audiences' | 'accounts' | 'scope'>>,
  scopeSent: boolean,
): Promise<FieldIssue[]> {
  const issues: FieldIssue[] = [];
  const brandId = ctx.brand.id;
  const bad = (field: string, message: string) => issues.push({ field, message, code: 'invalid_value' });
  const nameOk = (field: string, name: unknown) => {
    if (typeof name === 'string') for (const p of parseTemplate(name).problems) bad(field, p.message);
  };
  if (parts.config) {
    const c = parts.config;
    nameOk('config.campaign.name', c.campaign.name);
    if (c.campaign.accountId !== undefined) bad('config.campaign.accountId', 'must be omitted: the template makes one campaign per ad account in accounts');
    c.adSets.forEach((s, i) => nameOk(`config.adSets[${i}].name`, s.name));
    c.ads.forEach((a, i) => nameOk(`config.ads[${i}].name`, a.name));
    const refs: Reference[] = c.ads.flatMap((a, i) => [
      ...(typeof a.creativeId === 'number' ? [{ kind: 'creative' as const, field: `config.ads[${i}].creativeId`, id: a.creativeId, brandId }] : []),
      ...(typeof a.copyGenerationId === 'number'
        ? [{ kind: 'copy' as const, field: `config.ads[${i}].copyGenerationId`, id: a.copyGenerationId, brandId }]
        : []),
    ]);
    issues.push(...(await referenceIssues(ctx.db, ctx.principal, refs)));
  }
  parts.audiences?.forEach((a, i) => {
    if (a.kind === 'targetingSet') {
      if (!a.targeting) bad(`audiences[${i}].targeting`, 'is required for a targetingSet');
      if (a.audienceId !== undefined) bad(`audiences[${i}].audienceId`, 'must be omitted for a targetingSet (use customAudience or savedAudience)');
    } else if (!a.audienceId) bad(`audiences[${i}].audienceId`, `is required for a ${a.kind}: the audience's id on the ad platform`);
  });
  if (parts.accounts) {
    issues.push(
      ...(await referenceIssues(
        ctx.db,
        ctx.principal,
        parts.accounts.map((a, i) => ({ kind: 'adAccount' as const, field: `accounts[${i}]`, id: a, brandId })),
      )),
    );
    if (parts.scope === 'single' && parts.accounts.length > 1) {
      bad(scopeSent ? 'scope' : 'accounts', `scope single allows one ad account; ${parts.accounts.length} are named (use scope multiple)`);
    }
  }
  return issues;
}

/** The ids of the brand's ad accounts. */
export async function accountIdsOf(db: Db, brandId: number): Promise<Set<string>> {
  return new Set((await adAccountsOf(db, brandId)).map((a) => a.accountId));
}

/**
 * Accounts and audiences the template names that no longer exist: accounts from the database,
 * audience ids (customAudience, savedAudience) from each account's platform when `platform` is set.
 * A platform that cannot be read is skipped unless `strict`, where its error propagates.
 */
export async function missingParts(
  ctx: BrandContext<'platforms'>,
  t: Pick<StructureTemplate, 'accounts' | 'audiences'>,
  options: { platform: boolean; strict?: boolean; known?: Set<string> },
): Promise<FieldIssue[]> {
  const reasons: FieldIssue[] = [];
  const known = options.known ?? (await accountIdsOf(ctx.db, ctx.brand.id));
  const present: string[] = [];
  t.accounts.forEach((a, i) => {
    if (known.has(a)) present.push(a);
    else reasons.push({ field: `accounts[${i}]`, message: `ad account ${a} no longer exists in this brand; remove it from accounts` });
  });
  const wanted = t.audiences.map((a, i) => ({ a, i })).filter(({ a }) => a.audienceId && a.kind !== 'targetingSet');
  if (!options.platform || !wanted.length) return reasons;
  for (const accountId of present) {
    let ids: Set<string>;
    try {
      const account = await ctx.platforms.account(ctx.db, ctx.brand.id, accountId);
      ids = new Set((await ctx.platforms.adapterFor(account.platform).listOptions(account, 'audiences')).map((o) => o.id));
    } catch (err) {
      if (options.strict) throw err;
      ctx.log.warn({ requestId: ctx.requestId, err, accountId }, 'could not read audiences to check a structure template');
      continue;
    }
    for (const { a, i } of wanted) {
      if (!ids.has(a.audienceId!))
        reasons.push({ field: `audiences[${i}].audienceId`, message: `audience ${a.audienceId} ("${a.name}") no longer exists in ad account ${accountId}` });
    }
  }
  return reasons;
}

/** Marks the template NEEDS_ATTENTION with `reasons` when there are any (stored); answers the template as it now is. */
export async function flagMissing(db: Db, t: StructureTemplate, reasons: FieldIssue[], now: number): Promise<StructureTemplate> {
  if (!reasons.length) return t;
  if (t.status === 'NEEDS_ATTENTION' && JSON.stringify(t.statusReasons) === JSON.stringify(reasons)) return t;
  await markNeedsAttention(db, t.id, reasons, now);
  return { ...t, status: 'NEEDS_ATTENTION', statusReasons: reasons, updatedAt: now };
}
