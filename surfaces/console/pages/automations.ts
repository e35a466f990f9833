// /console/brands/{brandId}/automations: each automation (list-automations) with its status, mode,
// action and its last runs (list-automation-runs: what matched, what was done, or would have been in
// shadow mode); a button Pause (active) or Resume (paused) follows set-automation-status.

import { ServiceError } from '../../../src/errors.js';
import { badge, esc, hidden, table } from '../layout.js';
import { money, when } from '../format.js';
import type { BrandScope, ConsoleRequest } from '../request.js';
import { one, type Page } from './page.js';

interface Automation {
  automationId: number;
  automationName: string;
  status: 'ACTIVE' | 'PAUSED';
  action: string;
  actionLevel: string;
  frequency: string;
  accountId?: string;
  level?: string;
  mode?: 'live' | 'shadow';
  nextRunAt?: string | null;
  lastRunAt?: string | null;
  conditions?: Array<{ metric: string; window: string; operator: string; value: number }>;
  resumeWhenClear?: boolean;
}

const OPERATORS: Record<string, string> = { gt: '>', gte: '≥', lt: '<', lte: '≤' };
const MONEY_METRICS = new Set(['spend', 'cpc', 'cpm', 'costPerResult', 'revenue', 'profit']);
const METRIC_WORDS: Record<string, string> = {
  costPerResult: 'cost per result',
  trackerConversions: 'tracker conversions',
  roas: 'ROAS',
  ctr: 'CTR',
  cpc: 'CPC',
  cpm: 'CPM',
};

/** A rule's conditions as a person reads them: "spend (lifetime) > $100.00 and results (lifetime) < 1". */
export function conditionsText(a: Automation, currency: string): string {
  return (a.conditions ?? [])
    .map((c) => {
      const value = MONEY_METRICS.has(c.metric) ? money(c.value, currency) : c.metric === 'ctr' ? `${c.value}%` : String(c.value);
      return `${METRIC_WORDS[c.metric] ?? c.metric} (${c.window.replace(/_/g, ' ')}) ${OPERATORS[c.operator] ?? c.operator} ${value}`;
    })
    .join(' and ');
}

interface Run {
  runId: number;
  startedAt: string;
  trigger: string;
  mode: string;
  objects: Array<{ name: string | null; matched: boolean; intended: string | null; action: string; skipReason: string | null; error: string | null }>;
}

const ACTION_WORDS: Record<string, string> = { pause: 'pause', notify: 'notify', pause_and_notify: 'pause and notify' };
const NOTICES: Record<string, string> = {
  paused: 'The automation was paused: it does not run until resumed.',
  resumed: 'The automation was resumed: it runs on its schedule again.',
};

/** What a run did to its matching objects, in words. */
function runSummary(run: Run): string {
  const matched = run.objects.filter((o) => o.matched);
  if (!matched.length) return `Checked ${run.objects.length} ${run.objects.length === 1 ? 'object' : 'objects'}; none matched.`;
  const did = matched.map((o) => {
    const name = esc(o.name ?? 'an object');
    if (o.error) return `${name}: failed (${esc(o.error)})`;
    if (o.action !== 'none') return `${name}: ${esc(o.action)}`;
    if (o.skipReason === 'shadow')
      return `${name}: would have been ${esc(o.intended === 'pause' ? 'paused' : o.intended === 'resume' ? 'resumed' : 'notified')} (shadow mode)`;
    return `${name}: nothing done (${esc((o.skipReason ?? 'skipped').replace(/_/g, ' '))})`;
  });
  return `Matched ${matched.length}: ${did.join('; ')}.`;
}

export async function automationsPage(
  req: ConsoleRequest,
  brand: BrandScope,
  query: Record<string, unknown>,
  o: { error?: string; status?: number } = {},
): Promise<Page> {
  const base = `/console/brands/${brand.id}`;
  const cursor = one(query.cursor);
  const list = await req.call<{ automations: Automation[]; nextCursor: string | null }>(brand.principal, 'list-automations', {
    brandId: brand.id,
    limit: 25,
    ...(cursor ? { cursor } : {}),
  });
  const items: string[] = [];
  for (const a of list.automations) {
    const account = brand.accounts.find((x) => x.accountId === a.accountId);
    const tz = account?.timezone ?? brand.timezone;
    const conditions = conditionsText(a, account?.currency ?? brand.currency);
    const runs = await req.call<{ runs: Run[] }>(brand.principal, 'list-automation-runs', { brandId: brand.id, automationId: a.automationId, limit: 3 });
    const next = a.status === 'ACTIVE' ? 'PAUSED' : 'ACTIVE';
    items.push(`<article class="card automation" id="automation-${a.automationId}" data-automation-id="${a.automationId}">
<h2>${esc(a.automationName)} ${badge(a.status)} ${a.mode === 'shadow' ? badge('shadow') : ''}</h2>
<p>${esc(ACTION_WORDS[a.action] ?? a.action)} at the ${esc(a.actionLevel)} level, ${esc(a.frequency.replace(/_/g, ' '))}${a.accountId ? ` on <code>${esc(a.accountId)}</code>` : ''}${
      a.mode === 'shadow' ? '; shadow mode: it records what it would do and changes nothing' : ''
    }. Next run ${a.status === 'ACTIVE' ? when(a.nextRunAt, tz) : '<span class="muted">none while paused</span>'}.</p>
${conditions ? `<p class="conditions">When ${esc(conditions)}${a.resumeWhenClear ? '; resumes what it paused once they no longer hold' : ''}.</p>` : ''}
${table({
  id: `runs-${a.automationId}`,
  caption: 'Last runs',
  head: ['When', 'How it started', 'Mode', 'What matched and what was done'],
  rows: runs.runs.map((r) => [
    when(r.startedAt, tz),
    esc(r.trigger === 'manual' ? 'Run by hand (run-automation)' : 'On its schedule'),
    esc(r.mode),
    runSummary(r),
  ]),
  empty: 'It has not run yet. It runs on its schedule while active.',
})}
<form method="post" action="${base}/automations/${a.automationId}/status" class="decide">${hidden({ csrf_token: req.viewer.csrf, status: next })}<button type="submit"${next === 'PAUSED' ? ' class="secondary"' : ''}>${next === 'PAUSED' ? 'Pause' : 'Resume'}</button></form>
</article>`);
  }
  const more = list.nextCursor
    ? `<div class="pager"><a rel="next" href="${base}/automations?${new URLSearchParams({ cursor: list.nextCursor })}">More automations</a></div>`
    : '';
  const body = `<h1>Automations</h1><p class="lead">Rules that watch ${esc(brand.name)}'s live campaigns and pause or notify when their conditions hold.</p>
${items.join('') || '<p class="empty" id="no-automations">No automations yet. An agent or integration creates one (create-automation); it shows here with its last runs.</p>'}${more}`;
  return { title: 'Automations', body, notice: NOTICES[one(query.notice)] ?? null, error: o.error ?? null, status: o.status };
}

/** Pause or Resume: set-automation-status as the person. */
export async function setAutomationStatus(
  req: ConsoleRequest,
  brand: BrandScope,
  idText: string,
  body: Record<string, unknown>,
): Promise<{ redirect: string } | Page> {
  if (!/^[1-9]\d{0,15}$/.test(idText)) throw new ServiceError('not_found', 'That automation was not found.', null);
  const status = typeof body.status === 'string' ? body.status : '';
  if (status !== 'ACTIVE' && status !== 'PAUSED')
    return automationsPage(req, brand, {}, { status: 400, error: 'Choose Pause or Resume; nothing was changed.' });
  await req.call(brand.principal, 'set-automation-status', { brandId: brand.id, automationId: Number(idText), status });
  return { redirect: `/console/brands/${brand.id}/automations?notice=${status === 'PAUSED' ? 'paused' : 'resumed'}#automation-${idText}` };
}
