// Applying a structure template: one campaign tree per ad account, one ad set per config ad set
// and audience (the audience's targeting merged over the ad set's), each holding every config ad.
// Names are rendered with the naming-convention renderer. The tree is checked by the launch
// validation before anything is stored, and each issue is named by the template field behind it.

import type { BrandContext } from '../catalogue/define.js';
import type { FieldIssue } from '../errors.js';
import { namingConventionsAmong } from '../ad-accounts/store.js';
import { adAccountsOf } from '../brands/store.js';
import { adTextsFromCopy } from '../copy/attach.js';
import { loadCopy, type CopyRecord } from '../copy/store.js';
import { creativesAmong } from '../creatives/store.js';
import { draftNode } from '../launches/tree.js';
import { newNodeId, type NodeRow } from '../launches/store.js';
import { validationContextFor } from '../launches/context.js';
import { validateLaunch } from '../launches/validate.js';
import { DEFAULT_TEMPLATES, renderTemplate } from '../naming/template.js';
import type { Audience, StructureTemplate } from './store.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** Where a node came from in the template, to name the template field behind a validation issue. */
interface Origin {
  accountId: string;
  accountIndex: number;
  level: 'campaign' | 'adset' | 'ad';
  adSetIndex?: number;
  audienceIndex?: number;
  adIndex?: number;
  budgetFromSettings?: boolean;
  scheduleFromSettings?: boolean;
  targetingKeysFromAudience?: Set<string>;
}

export interface BuiltTree {
  nodes: NodeRow[];
  origins: Map<string, Origin>;
}

/** The audience's targeting over the ad set's; a custom or saved audience joins customAudiences. */
export function mergeTargeting(base: Record<string, any> | undefined, audience: Audience): Record<string, any> {
  const out: Record<string, any> = { ...(base ?? {}), ...(audience.targeting ?? {}) };
  if (audience.kind !== 'targetingSet' && audience.audienceId) {
    out.customAudiences = [...new Set([...(out.customAudiences ?? []), audience.audienceId])];
  }
  return out;
}

const cut = (s: string) => s.slice(0, 400);

/** Builds the launch's nodes in memory (nothing stored; `launchId` is set when the launch exists). */
export async function buildTree(ctx: BrandContext, t: StructureTemplate): Promise<BuiltTree> {
  const launchId = 0;
  const brandId = ctx.brand.id;
  const now = ctx.now();
  const named = new Set(t.accounts);
  const accounts = new Map((await adAccountsOf(ctx.db, brandId)).filter((a) => named.has(a.accountId)).map((a) => [a.accountId, a]));
  const conventions = await namingConventionsAmong(ctx.db, brandId, t.accounts);
  const creativeIds = [...new Set(t.config.ads.map((a) => a.creativeId).filter((x): x is number => typeof x === 'number'))];
  const creatives = new Map((await creativesAmong(ctx.db, brandId, creativeIds)).map((c) => [c.id, c]));
  const copies = new Map<number, CopyRecord>();
  for (const id of new Set(t.config.ads.map((a) => a.copyGenerationId).filter((x): x is number => typeof x === 'number')))
    copies.set(id, await loadCopy(ctx.db, brandId, id));

  const nodes: NodeRow[] = [];
  const origins = new Map<string, Origin>();
  let order = 0;
  const add = (parentId: string | null, nodeType: NodeRow['nodeType'], accountId: string, properties: Record<string, any>, origin: Origin) => {
    const id = newNodeId();
    nodes.push(draftNode({ id, launchId, parentId, nodeType, accountId, properties }, now + order++));
    origins.set(id, origin);
    return id;
  };

  const setBudgets = t.config.adSets.some((s) => s.budget);
  const allTargeting = t.config.adSets.flatMap((s) => t.audiences.map((a) => mergeTargeting(s.targeting, a)));
  const countries = [...new Set(allTargeting.flatMap((x) => x.countries ?? []))].join('+');

  t.accounts.forEach((accountId, accountIndex) => {
    const account = accounts.get(accountId);
    const naming = conventions.get(accountId) ?? DEFAULT_TEMPLATES;
    const base = { brand: ctx.brand.name, account: account?.name ?? accountId, platform: account?.platform ?? '', name: t.name };
    const { name: campaignName, ...campaignRest } = t.config.campaign;
    const campaign: Record<string, any> = { ...campaignRest, accountId };
    const budgetFromSettings = !campaign.budget && !setBudgets && Boolean(t.settings.budget);
    if (budgetFromSettings) campaign.budget = { dailyAmount: t.settings.budget!.dailyAmount };
    const objective = campaign.objective ?? '';
    campaign.name = cut(
      renderTemplate(
        campaignName ?? naming.campaign,
        { ...base, objective, country: countries, audience: t.audiences.map((a) => a.name).join(' + '), index: String(accountIndex + 1) },
        now,
      ),
    );
    const campaignId = add(null, 'campaign', accountId, campaign, { accountId, accountIndex, level: 'campaign', budgetFromSettings });

    let setIndex = 0;
    t.config.adSets.forEach((adSet, adSetIndex) => {
      t.audiences.forEach((audience, audienceIndex) => {
        const { name: setName, ...setRest } = adSet;
        const props: Record<string, any> = { ...setRest, targeting: mergeTargeting(adSet.targeting, audience) };
        if (!props.placements && t.settings.placements) props.placements = t.settings.placements;
        const scheduleFromSettings = !props.schedule && (Boolean(t.settings.startOffsetDays) || Boolean(t.settings.durationDays));
        if (scheduleFromSettings) {
          const start = t.settings.startOffsetDays ? now + t.settings.startOffsetDays * DAY_MS : null;
          props.schedule = {
            ...(start !== null ? { startTime: new Date(start).toISOString() } : {}),
            ...(t.settings.durationDays ? { endTime: new Date((start ?? now) + t.settings.durationDays * DAY_MS).toISOString() } : {}),
          };
        }
        const tg = props.targeting;
        props.name = cut(
          renderTemplate(
            setName ?? naming.adset,
            {
              ...base,
              objective,
              audience: audience.name,
              country: (tg.countries ?? []).join('+'),
              age: `${tg.ageMin ?? 18}-${tg.ageMax ?? 65}`,
              index: String(++setIndex),
            },
            now,
          ),
        );
        const setId = add(campaignId, 'adset', accountId, props, {
          accountId,
          accountIndex,
          level: 'adset',
          adSetIndex,
          audienceIndex,
          scheduleFromSettings,
          targetingKeysFromAudience: new Set(Object.keys(audience.targeting ?? {})),
        });
        t.config.ads.forEach((ad, adIndex) => {
          const { name: adName, ...adRest } = ad;
          const creative = typeof ad.creativeId === 'number' ? creatives.get(ad.creativeId) : undefined;
          const copy = typeof ad.copyGenerationId === 'number' ? copies.get(ad.copyGenerationId) : undefined;
          const adProps: Record<string, any> = { ...adRest, ...(copy ? adTextsFromCopy(copy, adRest) : {}) };
          adProps.name = cut(
            renderTemplate(
              adName ?? naming.ad,
              {
                ...base,
                objective,
                audience: audience.name,
                creative: creative?.name ?? '',
                format: creative?.type ?? '',
                index: String(adIndex + 1),
              },
              now,
            ),
          );
          add(setId, 'ad', accountId, adProps, { accountId, accountIndex, level: 'ad', adIndex });
        });
      });
    });
  });
  return { nodes, origins };
}

/** The template field behind one launch-validation issue. */
function templateField(issue: FieldIssue, origin: Origin | undefined): string {
  const m = /^(?:campaigns|adSets|ads)\[[^\]]+\]\.(.+)$/.exec(issue.field);
  if (!origin || !m) return issue.field === 'campaigns' ? 'accounts' : issue.field;
  const rest = m[1];
  if (origin.level === 'campaign') {
    if (rest === 'accountId') return `accounts[${origin.accountIndex}]`;
    if (rest.startsWith('budget') && origin.budgetFromSettings) return 'settings.budget.dailyAmount';
    if (rest === 'adSets') return 'config.adSets';
    return `config.campaign.${rest}`;
  }
  if (origin.level === 'adset') {
    const key = rest.split('.')[1];
    if (rest.startsWith('targeting.') && origin.targetingKeysFromAudience?.has(key)) return `audiences[${origin.audienceIndex}].targeting.${key}`;
    if (rest.startsWith('schedule.') && origin.scheduleFromSettings)
      return rest === 'schedule.startTime' ? 'settings.startOffsetDays' : 'settings.durationDays';
    if (rest === 'ads') return 'config.ads';
    return `config.adSets[${origin.adSetIndex}].${rest}`;
  }
  return `config.ads[${origin.adIndex}].${rest}`;
}

/** Launch validation of the built tree, each issue named by its template field (once, with the accounts it hits). */
export async function templateIssues(ctx: BrandContext<'trackers' | 'platforms'>, tree: BuiltTree): Promise<FieldIssue[]> {
  const vctx = await validationContextFor(ctx, { brandId: ctx.brand.id, accountId: null }, tree.nodes);
  const { issues } = validateLaunch(tree.nodes, vctx);
  const merged = new Map<string, { field: string; message: string; accounts: Set<string> }>();
  for (const issue of issues) {
    const id = /\[([^\]]+)\]/.exec(issue.field)?.[1];
    const origin = id ? tree.origins.get(id) : undefined;
    const field = templateField(issue, origin);
    const key = `${field}\u0000${issue.message}`;
    const entry = merged.get(key) ?? { field, message: issue.message, accounts: new Set<string>() };
    if (origin) entry.accounts.add(origin.accountId);
    merged.set(key, entry);
  }
  return [...merged.values()].map((e) => ({
    field: e.field,
    code: 'invalid_value',
    message: e.accounts.size ? `${e.message} (ad account${e.accounts.size > 1 ? 's' : ''} ${[...e.accounts].join(', ')})` : e.message,
  }));
}
