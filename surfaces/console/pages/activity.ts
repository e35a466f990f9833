// /console/brands/{brandId}/activity: the activity log (list-activity), newest first, with filters
// (user, entity type, action, days; the account when the brand has several) and paging.

import { ServiceError } from '../../../src/errors.js';
import { esc, select, table } from '../layout.js';
import { money, usd, when } from '../format.js';
import type { BrandScope, ConsoleRequest } from '../request.js';
import { one, type Page } from './page.js';

interface Entry {
  userId: number;
  userName: string;
  entityType: string;
  entityId: string;
  entityName: string | null;
  action: string;
  when: string;
  accountId?: string | null;
  amountMinorUnits?: number;
  currency?: string;
  countedUsdCents?: number;
}

const TYPES: Array<readonly [string, string]> = [
  ['', 'Any'],
  ['campaign', 'Campaign'],
  ['adset', 'Ad set'],
  ['ad', 'Ad'],
  ['unknown', 'Launch or other'],
];
const DAYS = ['1', '7', '30', '90'];

/**
 * What an entry of type `unknown` is about, by its action's first word (the log's entity types name
 * only campaigns, ad sets and ads): a creative, a pipeline card, a template, a review decision...
 */
const SUBJECTS: Array<readonly [RegExp, string]> = [
  [/^launch\./, 'Launch'],
  [/^creative\./, 'Creative'],
  [/^pipeline\.card\./, 'Card'],
  [/^structure_template\./, 'Structure template'],
  [/^snapshot_template\./, 'Launch template'],
  [/^copy\./, 'Ad copy'],
  [/^workflow\.review_/, 'Review gate of workflow'],
  [/^ad_account\./, 'Ad account'],
  [/^brand_profile\./, 'Brand profile'],
  [/^naming_convention\./, 'Naming convention'],
];

/** The subject of an entry, as a person reads it. */
export function subjectOf(e: { entityType: string; action: string }): string {
  if (e.entityType !== 'unknown') return TYPES.find(([v]) => v === e.entityType)?.[1] ?? e.entityType;
  return SUBJECTS.find(([re]) => re.test(e.action))?.[1] ?? 'Other';
}

export async function activityPage(req: ConsoleRequest, brand: BrandScope, query: Record<string, unknown>): Promise<Page> {
  const base = `/console/brands/${brand.id}`;
  const f = {
    accountId: one(query.accountId) || (brand.accounts.length > 1 ? brand.accounts[0].accountId : ''),
    userId: one(query.userId),
    entityType: one(query.entityType),
    action: one(query.action).trim(),
    days: one(query.days) || '7',
  };
  const input: Record<string, unknown> = { brandId: brand.id, limit: 50 };
  if (f.accountId) input.accountId = f.accountId;
  if (f.userId) input.userId = /^\d{1,10}$/.test(f.userId) ? Number(f.userId) : f.userId;
  if (f.entityType) input.entityType = f.entityType;
  if (f.action) input.action = f.action;
  input.days = /^\d{1,3}$/.test(f.days) ? Number(f.days) : f.days;
  const cursor = one(query.cursor);
  if (cursor) input.cursor = cursor;
  let answer: { activities: Entry[]; nextCursor: string | null };
  let error: string | null = null;
  try {
    answer = await req.call(brand.principal, 'list-activity', input);
  } catch (err) {
    if (!(err instanceof ServiceError) || err.code !== 'validation_failed') throw err;
    const details = Array.isArray(err.details) ? (err.details as Array<{ field: string; message: string }>) : [];
    error = `These filters cannot be used: ${details.map((d) => `${d.field} ${d.message}`).join('; ') || err.message}. Change them and try again.`;
    answer = { activities: [], nextCursor: null };
  }
  const users = new Map<string, string>(answer.activities.map((e) => [String(e.userId), e.userName]));
  if (f.userId && !users.has(f.userId)) users.set(f.userId, `User ${f.userId}`);
  const rows = answer.activities.map((e) => {
    const tz = brand.accounts.find((a) => a.accountId === e.accountId)?.timezone ?? brand.timezone;
    const isLaunch = e.entityType === 'unknown' && e.action.startsWith('launch.') && /^\d+$/.test(e.entityId);
    const name = esc(e.entityName ?? e.entityId);
    const subject = esc(subjectOf(e));
    const entity = isLaunch ? `${subject} <a href="${base}/launches/${esc(e.entityId)}">${name}</a>` : `${subject} ${name}`;
    const amount =
      e.amountMinorUnits !== undefined && e.currency
        ? `${money(e.amountMinorUnits, e.currency)}${e.countedUsdCents !== undefined ? ` <span class="muted">(counted ${usd(e.countedUsdCents)})</span>` : ''}`
        : '';
    return [when(e.when, tz), esc(e.userName), `<code>${esc(e.action)}</code>`, entity, amount];
  });
  const kept = Object.fromEntries(Object.entries(f).filter(([, v]) => v));
  const next = answer.nextCursor
    ? `<div class="pager"><a rel="next" href="${base}/activity?${new URLSearchParams({ ...kept, cursor: answer.nextCursor })}">Older entries</a></div>`
    : '';
  const filtered = Boolean(f.userId || f.entityType || f.action);
  const body = `<h1>Activity</h1><p class="lead">Who changed what in ${esc(brand.name)}, newest first. Changes made with a key show as “API key: name”.</p>
<form method="get" class="filters" action="${base}/activity">
${brand.accounts.length > 1 ? select({ id: 'accountId', name: 'accountId', label: 'Account', value: f.accountId, options: brand.accounts.map((a) => [a.accountId, a.name ?? a.accountId] as const) }) : ''}
${select({ id: 'userId', name: 'userId', label: 'User', value: f.userId, options: [['', 'Anyone'], ...[...users].map(([id, name]) => [id, name] as const)] })}
${select({ id: 'entityType', name: 'entityType', label: 'Entity type', value: f.entityType, options: TYPES })}
<div class="field"><label for="action">Action</label><input id="action" name="action" type="text" maxlength="64" placeholder="e.g. launch.published" value="${esc(f.action)}"></div>
${select({ id: 'days', name: 'days', label: 'Days', value: f.days, options: [...new Set([...DAYS, f.days])].map((d) => [d, d === '1' ? 'Last day' : `Last ${d} days`] as const) })}
<button type="submit">Filter</button></form>
${table({
  id: 'activity',
  head: ['When', 'Who', 'Action', 'What', 'Amount'],
  rows,
  empty: filtered
    ? 'No change matches these filters. Widen the days or clear a filter.'
    : `No change in the last ${esc(f.days)} days. Widen the days to see older ones.`,
})}${next}`;
  return { title: 'Activity', body, error, status: error ? 400 : undefined };
}
