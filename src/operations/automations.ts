// Monitoring automations: create, list, read, change, delete, arm or disarm, run now, preview, and
// the run history. Scheduled runs are the evaluate-automations job; both use src/automations/engine.

import type { Knex } from 'knex';
import { defineOperation, type OperationContext } from '../catalogue/define.js';
import { notFound, validationFailed, type FieldIssue } from '../errors.js';
import { evaluateAccount, type EngineDeps, type RunObject } from '../automations/engine.js';
import { automationOf, automationView, rowOf, type Automation, type Condition, type Guard } from '../automations/rule.js';
import { firstRunAt } from '../automations/schedule.js';
import { wakeAccount } from '../automations/wake.js';
import { referenceIssues } from '../references/resolve.js';

const write = { readOnly: false, destructive: false, idempotent: false, openWorld: false };
const read = { readOnly: true, destructive: false, idempotent: true, openWorld: false };
const iso = (ms: number | string) => new Date(Number(ms)).toISOString();

const RULE_HELP =
  'Units: money (spend, cpc, cpm, costPerResult values; guard.minSpend) in minor units of the account currency (2000 = $20.00); ctr in percent (1.5 = 1.5 %); ' +
  "roas and frequency as ratios. Windows (today, yesterday, last_3d, last_7d, last_14d, last_30d, lifetime) are dates in the ad account's time zone; " +
  'every last_Nd window ends yesterday. All conditions must hold. mode shadow records what the rule would do (skipReason shadow) and changes nothing; ' +
  'mode live pauses through the ad platform and records activity as `Automation: <name>`. Example: pause campaigns that spent over $50 today with no results: ' +
  '{"automationName":"No results","accountId":"act_1001","level":"campaign","conditions":[{"metric":"spend","window":"today","operator":"gt","value":5000},' +
  '{"metric":"results","window":"today","operator":"lt","value":1}],"guard":{"minImpressions":1000},"action":"pause","frequency":"every_15_minutes","mode":"shadow"}.';
const FAILURES =
  'Failures: 400 validation_failed naming each wrong field (e.g. conditions[0].metric, dailyHour, objectIds[2], accountId); 404 not_found for an unknown automation; ' +
  '403 insufficient_scope / brand_not_allowed.';

type RuleInput = Partial<{
  automationName: string;
  level: Automation['level'];
  actionLevel: Automation['level'];
  objectIds: string[] | null;
  conditions: Condition[];
  guard: Partial<Guard>;
  action: Automation['action'];
  frequency: Automation['frequency'];
  dailyHour: number | null;
  cooldownMinutes: number;
  maxActionsPerDay: number;
  mode: Automation['mode'];
  resumeWhenClear: boolean;
  status: Automation['status'];
}>;

async function loadAutomation(ctx: OperationContext, automationId: string | number, db: Knex | Knex.Transaction = ctx.db, lock = false): Promise<Automation> {
  const q = db('automations').where({ id: Number(automationId), brand_id: ctx.brand!.id });
  const row = await (lock ? q.forUpdate() : q).first();
  if (!row) throw notFound(`Automation ${automationId} of brand ${ctx.brand!.id}`);
  return automationOf(row);
}

/** The rule checks a schema cannot make; every wrong field is named at once. */
async function checkRule(ctx: OperationContext, a: Omit<Automation, 'id'>, input: RuleInput, issues: FieldIssue[] = []): Promise<void> {
  if (input.actionLevel !== undefined && input.actionLevel !== a.level) {
    issues.push({ field: 'actionLevel', code: 'invalid_value', message: `must equal level (${a.level}): an automation acts on the objects it evaluates` });
  }
  if (a.frequency === 'daily' && a.dailyHour === null)
    issues.push({ field: 'dailyHour', code: 'invalid_type', message: 'is required (0-23, ad account time zone) with frequency daily' });
  if (a.frequency !== 'daily' && a.dailyHour !== null)
    issues.push({ field: 'dailyHour', code: 'invalid_value', message: `applies to frequency daily only; send null with ${a.frequency}` });
  a.conditions.forEach((c, i) => {
    if (['results', 'impressions', 'clicks', 'spend'].includes(c.metric) && !Number.isInteger(c.value)) {
      issues.push({
        field: `conditions[${i}].value`,
        code: 'invalid_value',
        message: `${c.metric} is a whole number${c.metric === 'spend' ? ' of minor units' : ''}`,
      });
    }
  });
  if (a.objectIds) {
    const refs = a.objectIds.map((id, i) => ({
      kind: 'liveObject' as const,
      field: `objectIds[${i}]`,
      id,
      brandId: a.brandId,
      accountId: a.accountId,
      level: a.level,
    }));
    issues.push(...(await referenceIssues(ctx.db, ctx.principal, refs)));
  }
  if (issues.length) throw validationFailed(issues);
}

function engineDeps(ctx: OperationContext): EngineDeps {
  return {
    knex: ctx.db as Knex,
    platforms: ctx.platforms,
    events: ctx.events,
    now: ctx.now,
    log: ctx.log,
    invoke: (n, p, i, o) => ctx.invoke(n, i, { principal: p, idempotencyKey: o.idempotencyKey }),
    progress: (update) => ctx.progress(update),
    outbound: ctx.outbound,
    chatWebhookUrl: ctx.config.chatWebhookUrl,
  };
}

function runView(row: {
  id: number | string;
  automation_id: number | string;
  started_at: number | string;
  finished_at: number | string;
  trigger: string;
  mode: string;
  objects: string | RunObject[];
}) {
  return {
    runId: Number(row.id),
    automationId: Number(row.automation_id),
    startedAt: iso(row.started_at),
    finishedAt: iso(row.finished_at),
    trigger: row.trigger,
    mode: row.mode,
    objects: typeof row.objects === 'string' ? JSON.parse(row.objects) : row.objects,
  };
}

export const createAutomation = defineOperation({
  name: 'create-automation',
  method: 'POST',
  path: '/brands/{brandId}/automations',
  scope: 'write',
  idempotency: 'optional',
  input: 'create-automation#/$defs/input',
  output: 'create-automation#/$defs/output',
  annotations: write,
  tag: 'automations',
  toolset: 'automate',
  successStatus: 201,
  summary: 'Create a monitoring rule that watches live campaigns, ad sets or ads of one ad account and pauses them or notifies when all its conditions hold.',
  description:
    'The rule watches objects launched by this service (objectIds, or every live object of the level). Each run reads the metrics per object over the ' +
    'condition windows, skips objects below the guard (insufficient_data), then acts unless skipped for cooldown, daily_limit_reached, already_paused, ' +
    'shadow, paused_by_person or loop_detected. status ACTIVE (default) arms it; the first run is at once (daily: at dailyHour). Defaults: frequency hourly, ' +
    `cooldownMinutes 60, maxActionsPerDay 20, mode live, resumeWhenClear false. ${RULE_HELP} ${FAILURES}`,
  async handler(
    ctx,
    input: RuleInput & {
      brandId: number;
      accountId: string;
      automationName: string;
      level: Automation['level'];
      conditions: Condition[];
      action: Automation['action'];
    },
  ) {
    const issues: FieldIssue[] = [];
    let timezone = 'UTC';
    const [accountIssue] = await referenceIssues(ctx.db, ctx.principal, [
      { kind: 'adAccount', field: 'accountId', id: input.accountId, brandId: ctx.brand!.id },
    ]);
    if (accountIssue) issues.push(accountIssue);
    else timezone = (await ctx.platforms.account(ctx.db, ctx.brand!.id, input.accountId)).timezone;
    const now = ctx.now();
    const frequency = input.frequency ?? 'hourly';
    const dailyHour = input.dailyHour ?? null;
    const status = input.status ?? 'ACTIVE';
    const a: Omit<Automation, 'id'> = {
      organizationId: ctx.principal.organizationId,
      brandId: ctx.brand!.id,
      accountId: input.accountId,
      name: input.automationName,
      status,
      level: input.level,
      objectIds: input.objectIds ?? null,
      conditions: input.conditions,
      guard: { minImpressions: input.guard?.minImpressions ?? null, minSpend: input.guard?.minSpend ?? null },
      action: input.action,
      frequency,
      dailyHour,
      cooldownMinutes: input.cooldownMinutes ?? 60,
      maxActionsPerDay: input.maxActionsPerDay ?? 20,
      mode: input.mode ?? 'live',
      resumeWhenClear: input.resumeWhenClear ?? false,
      createdByUserId: ctx.principal.userId,
      nextRunAt: null,
      lastRunAt: null,
      createdAt: now,
      updatedAt: now,
    };
    await checkRule(ctx, a, input, issues);
    a.nextRunAt = firstRunAt(frequency, dailyHour, now, timezone);
    const [id] = await ctx.db('automations').insert(rowOf(a));
    if (status === 'ACTIVE') await wakeAccount(ctx.db, a.brandId, a.accountId, now);
    return automationView({ ...a, id: Number(id) });
  },
});

export const listAutomations = defineOperation({
  name: 'list-automations',
  method: 'GET',
  path: '/brands/{brandId}/automations',
  scope: 'read',
  idempotency: 'none',
  input: 'list-automations#/$defs/input',
  output: 'list-automations#/$defs/output',
  annotations: read,
  tag: 'automations',
  toolset: 'automate',
  summary: "List the brand's monitoring automations, newest first, optionally only ACTIVE or PAUSED ones.",
  description:
    'Each item: automationId, automationName, status, action, actionLevel, frequency, accountId, level, mode, nextRunAt, lastRunAt. Read one with get_automation for its conditions.',
  async handler(ctx, input: { brandId: number; status?: string; limit: number }) {
    const after = ctx.page.position();
    const rows = await ctx
      .db('automations')
      .where({ brand_id: ctx.brand!.id })
      .modify((q) => {
        if (input.status) q.where({ status: input.status });
        if (after) q.where('id', '<', Number(after[0]));
      })
      .orderBy('id', 'desc')
      .limit(input.limit + 1);
    const page = rows.slice(0, input.limit).map(automationOf);
    return {
      automations: page.map((a: Automation) => {
        const v = automationView(a);
        return {
          automationId: a.id,
          automationName: a.name,
          status: a.status,
          action: a.action,
          actionLevel: a.level,
          frequency: a.frequency,
          accountId: a.accountId,
          level: a.level,
          mode: a.mode,
          nextRunAt: v.nextRunAt,
          lastRunAt: v.lastRunAt,
          createdAt: v.createdAt,
        };
      }),
      nextCursor: rows.length > input.limit ? ctx.page.next([page[page.length - 1].id]) : null,
    };
  },
});

export const getAutomation = defineOperation({
  name: 'get-automation',
  method: 'GET',
  path: '/brands/{brandId}/automations/{automationId}',
  scope: 'read',
  idempotency: 'none',
  input: 'get-automation#/$defs/input',
  output: 'get-automation#/$defs/output',
  annotations: read,
  tag: 'automations',
  toolset: 'automate',
  summary: 'Get one monitoring automation with its whole rule (conditions, guard, schedule, mode) and when it runs next.',
  async handler(ctx, input: { automationId: string | number }) {
    return automationView(await loadAutomation(ctx, input.automationId));
  },
});

export const updateAutomation = defineOperation({
  name: 'update-automation',
  method: 'PATCH',
  path: '/brands/{brandId}/automations/{automationId}',
  scope: 'write',
  idempotency: 'none',
  input: 'update-automation#/$defs/input',
  output: 'update-automation#/$defs/output',
  annotations: { ...write, idempotent: true },
  tag: 'automations',
  toolset: 'automate',
  summary: 'Change a monitoring automation: only the fields sent change (conditions and objectIds are replaced whole). Send mode live to arm a shadow rule.',
  description: `The ad account cannot change (create another automation). guard is merged key by key as a JSON merge patch: send only the minimum to change (null: no minimum). A changed schedule takes effect at once. ${RULE_HELP} ${FAILURES}`,
  async handler(ctx, input: RuleInput & { automationId: string | number }) {
    const { automationId: _id, ...fields } = input as RuleInput & { automationId: string | number; brandId?: number };
    delete (fields as { brandId?: number }).brandId;
    if (!Object.keys(fields).length) throw validationFailed([{ field: 'automationName', code: 'invalid_type', message: 'send at least one field to change' }]);
    const db = ctx.db as Knex.Transaction;
    const current = await loadAutomation(ctx, input.automationId, db, true);
    const now = ctx.now();
    // The rule as the wire names it, the body applied: guard merges key by key, lists replace, objectIds null is every object.
    const rule = ctx.patch(
      {
        automationName: current.name,
        level: current.level,
        objectIds: current.objectIds,
        conditions: current.conditions,
        guard: current.guard,
        action: current.action,
        frequency: current.frequency,
        cooldownMinutes: current.cooldownMinutes,
        maxActionsPerDay: current.maxActionsPerDay,
        mode: current.mode,
        resumeWhenClear: current.resumeWhenClear,
        status: current.status,
      },
      fields as Record<string, unknown>,
    );
    const { automationName, ...kept } = rule;
    const next: Automation = {
      ...current,
      ...kept,
      name: automationName,
      dailyHour: fields.dailyHour !== undefined ? fields.dailyHour : fields.frequency && fields.frequency !== 'daily' ? null : current.dailyHour,
      updatedAt: now,
    };
    await checkRule(ctx, next, { ...fields, level: next.level });
    if (fields.frequency !== undefined || fields.dailyHour !== undefined || (fields.status === 'ACTIVE' && current.status !== 'ACTIVE')) {
      const account = await ctx.platforms.account(db, next.brandId, next.accountId);
      next.nextRunAt = firstRunAt(next.frequency, next.dailyHour, now, account.timezone);
    }
    await db('automations').where({ id: current.id }).update(rowOf(next));
    await wakeAccount(db, next.brandId, next.accountId, now);
    return automationView(next);
  },
});

export const setAutomationStatus = defineOperation({
  name: 'set-automation-status',
  method: 'PATCH',
  path: '/brands/{brandId}/automations/{automationId}/status',
  scope: 'write',
  idempotency: 'none',
  input: 'set-automation-status#/$defs/input',
  output: 'set-automation-status#/$defs/output',
  annotations: { ...write, idempotent: true },
  tag: 'automations',
  toolset: 'automate',
  summary: 'Arm (status ACTIVE) or disarm (status PAUSED) a monitoring automation.',
  description:
    'ACTIVE: it runs on its schedule, the first time at once (daily: at its hour). PAUSED: it stops running; objects it paused stay paused. 404 not_found for an unknown automation.',
  async handler(ctx, input: { automationId: string | number; status: Automation['status'] }) {
    const db = ctx.db as Knex.Transaction;
    const current = await loadAutomation(ctx, input.automationId, db, true);
    if (current.status === input.status) return automationView(current);
    const now = ctx.now();
    const next: Automation = { ...current, status: input.status, updatedAt: now };
    if (input.status === 'ACTIVE') {
      const account = await ctx.platforms.account(db, next.brandId, next.accountId);
      next.nextRunAt = firstRunAt(next.frequency, next.dailyHour, now, account.timezone);
    }
    await db('automations').where({ id: current.id }).update({ status: next.status, next_run_at: next.nextRunAt, updated_at: now });
    await wakeAccount(db, next.brandId, next.accountId, now);
    return automationView(next);
  },
});

export const deleteAutomation = defineOperation({
  name: 'delete-automation',
  method: 'DELETE',
  path: '/brands/{brandId}/automations/{automationId}',
  scope: 'write',
  idempotency: 'none',
  input: 'delete-automation#/$defs/input',
  output: 'delete-automation#/$defs/output',
  annotations: { ...write, destructive: true, idempotent: true },
  tag: 'automations',
  toolset: 'automate',
  summary: 'Delete a monitoring automation and its run history. Objects it paused stay paused.',
  async handler(ctx, input: { automationId: string | number }) {
    const db = ctx.db as Knex.Transaction;
    const a = await loadAutomation(ctx, input.automationId, db, true);
    for (const table of ['automation_runs', 'automation_actions', 'automation_holds', 'automation_pending_actions'])
      await db(table).where({ automation_id: a.id }).delete();
    await db('automations').where({ id: a.id }).delete();
    return { automationId: a.id, deleted: true };
  },
});

export const runAutomation = defineOperation({
  name: 'run-automation',
  method: 'POST',
  path: '/brands/{brandId}/automations/{automationId}/runs',
  scope: 'write',
  idempotency: 'optional',
  input: 'run-automation#/$defs/input',
  output: 'run-automation#/$defs/output',
  annotations: { ...write, openWorld: true },
  tag: 'automations',
  toolset: 'automate',
  // Reads the ad platform and acts through it: never inside one database transaction.
  transactional: false,
  successStatus: 201,
  summary: 'Evaluate a monitoring automation now, by the same engine and rules as a scheduled run, and answer the run.',
  description:
    'Mode, cooldown and the daily limit apply (a shadow rule acts on nothing); works on a PAUSED automation too. The run lists every object evaluated with its metric values ' +
    "(money in minor units, ctr in percent), each condition's outcome, the action taken (paused, resumed, notified, none) or the skipReason. Failures: 404 not_found; " +
    '503 unavailable when the ad platform cannot be read (retry later).',
  async handler(ctx, input: { automationId: string | number }) {
    const a = await loadAutomation(ctx, input.automationId);
    const { runs } = await evaluateAccount(engineDeps(ctx), [a], { trigger: 'manual', act: true });
    const r = runs[0];
    return runView({
      id: r.runId!,
      automation_id: a.id,
      started_at: r.startedAt,
      finished_at: r.finishedAt,
      trigger: 'manual',
      mode: a.mode,
      objects: r.objects,
    });
  },
});

export const previewAutomation = defineOperation({
  name: 'preview-automation',
  method: 'POST',
  path: '/brands/{brandId}/automations/{automationId}/preview',
  scope: 'read',
  idempotency: 'none',
  input: 'preview-automation#/$defs/input',
  output: 'preview-automation#/$defs/output',
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: true },
  tag: 'automations',
  toolset: 'automate',
  summary: 'Show which watched objects match a monitoring automation now and what a run would do to each; changes nothing.',
  description:
    'Same evaluation as a run (guard, conditions, cooldown, daily limit, loops, who paused what), but nothing is paused, recorded or sent. action is what a run would ' +
    'do now; in shadow mode it is none with skipReason shadow (intended still says pause, resume or notify). Failures: 404 not_found; 503 unavailable.',
  async handler(ctx, input: { automationId: string | number }) {
    const a = await loadAutomation(ctx, input.automationId);
    const { runs } = await evaluateAccount(engineDeps(ctx), [a], { trigger: 'manual', act: false });
    const objects = runs[0].objects.map((o) => ({
      ...o,
      action: o.intended && !o.skipReason && !o.error ? (o.intended === 'pause' ? 'paused' : o.intended === 'resume' ? 'resumed' : 'notified') : 'none',
    }));
    return { automationId: a.id, mode: a.mode, evaluatedAt: iso(runs[0].startedAt), matched: objects.filter((o) => o.matched).length, objects };
  },
});

export const listAutomationRuns = defineOperation({
  name: 'list-automation-runs',
  method: 'GET',
  path: '/brands/{brandId}/automations/{automationId}/runs',
  scope: 'read',
  idempotency: 'none',
  input: 'list-automation-runs#/$defs/input',
  output: 'list-automation-runs#/$defs/output',
  annotations: read,
  tag: 'automations',
  toolset: 'automate',
  summary:
    'List the runs of a monitoring automation, newest first: every object evaluated, the metric values read, and the action taken or why it was skipped.',
  description:
    'skipReason: cooldown, daily_limit_reached, insufficient_data (below the guard), already_paused, shadow (shadow mode), paused_by_person (resumeWhenClear never resumes ' +
    'what a person paused), loop_detected (another automation acts the other way on the object), or null. A failed action carries error and is retried.',
  async handler(ctx, input: { automationId: string | number; limit: number }) {
    const a = await loadAutomation(ctx, input.automationId);
    const after = ctx.page.position();
    const rows = await ctx
      .db('automation_runs')
      .where({ automation_id: a.id })
      .modify((q) => (after ? q.where('id', '<', Number(after[0])) : q))
      .orderBy('id', 'desc')
      .limit(input.limit + 1);
    const page = rows.slice(0, input.limit);
    return { runs: page.map(runView), nextCursor: rows.length > input.limit ? ctx.page.next([Number(page[page.length - 1].id)]) : null };
  },
});

export const automationOperations = [
  createAutomation,
  listAutomations,
  getAutomation,
  updateAutomation,
  setAutomationStatus,
  deleteAutomation,
  runAutomation,
  previewAutomation,
  listAutomationRuns,
];
