// The automations area's operations: create, list, read, change, delete, arm or disarm, run now,
// preview, and the run history. Scheduled runs are the evaluate-automations job (jobs.ts); both use
// the engine (engine.ts).

import type { Knex } from 'knex';
import type { Principal } from '../auth/principal.js';
import { defineOperation, type OperationDefinition, type ServiceContext } from '../catalogue/define.js';
import { ServiceError, notFound, validationFailed, type FieldIssue } from '../errors.js';
import { evaluateAccount, type EngineDeps } from './engine.js';
import { automationView, type Automation } from './rule.js';
import { firstRunAt } from './schedule.js';
import { automationsOf, findAutomation, insertAutomation, removeAutomation, runsOf, saveAutomation, setStatus, type RunRow } from './store.js';
import { nextRunsOf, scheduleAutomation, unscheduleAutomation } from './queue.js';
import { referenceIssues } from '../references/resolve.js';
import { canPublish, credentialOf } from '../workflows/publish-rule.js';
import type { TrackerService } from '../catalogue/tracker-port.js';
import { TRACKER_METRICS } from './metrics.js';
import { approvalNeeded, fingerprintOf } from '../approvals/gate.js';

const write = { readOnly: false, destructive: false, idempotent: false, openWorld: false };
const read = { readOnly: true, destructive: false, idempotent: true, openWorld: false };
const iso = (ms: number | string) => new Date(Number(ms)).toISOString();

const RULE_HELP =
  'Units: money (spend, cpc, cpm, costPerResult values; guard.minSpend) in minor units of the account currency (2000 = $20.00); ctr in percent (1.5 = 1.5 %); ' +
  "roas and frequency as ratios; revenue, profit, roas and trackerConversions come from the brand's click tracker (level campaign only). Windows (today, yesterday, last_3d, last_7d, last_14d, last_30d, lifetime) are dates in the ad account's time zone; " +
  'every last_Nd window ends yesterday. All conditions must hold. mode shadow records what the rule would do (skipReason shadow) and changes nothing; ' +
  'mode live pauses through the ad platform and records activity as `Automation: <name>`. Example: pause campaigns that spent over $50 today with no results: ' +
  '{"automationName":"No results","accountId":"act_1001","level":"campaign","conditions":[{"metric":"spend","window":"today","operator":"gt","value":5000},' +
  '{"metric":"results","window":"today","operator":"lt","value":1}],"guard":{"minImpressions":1000},"action":"pause","frequency":"every_15_minutes","mode":"shadow"}.';
const RESUMES =
  'Resuming is money: saving (create, update) an automation with resumeWhenClear true, or running one by hand, needs the publish scope ' +
  '(else 403 insufficient_scope, details.requiredScope publish, nothing saved or run); a scheduled run of one whose last saver has lost publish ' +
  'pauses but resumes nothing (skipReason publish_scope_missing).';

/** Throws 403 insufficient_scope when `principal` may not save or run `a` by hand: an automation that may resume live objects moves money. */
function requireResumePublish(principal: Principal, a: Pick<Automation, 'resumeWhenClear'>, what: string): void {
  if (!a.resumeWhenClear || canPublish(principal)) return;
  throw new ServiceError(
    'insufficient_scope',
    `${what} an automation with resumeWhenClear true needs the "publish" scope (resuming a live object spends money again); this credential has ${[...principal.scopes].join(', ') || 'none'}. Set resumeWhenClear false, or use a key with publish.`,
    { requiredScope: 'publish' },
  );
}

/** The rule of `a` as a person approves it (what it watches, when it acts, whether it resumes), without who saved it when. */
function ruleOf(a: Omit<Automation, 'id'> & { id?: number }) {
  return {
    ...(a.id !== undefined ? { automationId: a.id } : {}),
    automationName: a.name,
    accountId: a.accountId,
    status: a.status,
    level: a.level,
    objectIds: a.objectIds,
    conditions: a.conditions,
    guard: a.guard,
    action: a.action,
    frequency: a.frequency,
    dailyHour: a.dailyHour,
    cooldownMinutes: a.cooldownMinutes,
    maxActionsPerDay: a.maxActionsPerDay,
    mode: a.mode,
    resumeWhenClear: a.resumeWhenClear,
  };
}

/**
 * Resuming is money (paths.md "Who may cause a publish"): in an organization where people decide, an
 * agent's save or run by hand of an automation that resumes waits for a person's approval of that
 * rule (an update: of the rule it changes too, so a rule changed since makes the approval stale).
 */
function resumeApproval(
  ctx: ServiceContext<'config' | 'events'>,
  operation: 'create-automation' | 'update-automation' | 'run-automation',
  input: Record<string, unknown>,
  rule: Omit<Automation, 'id'> & { id?: number },
  before?: Automation,
) {
  if (!rule.resumeWhenClear) return Promise.resolve(null);
  const plan = { operation, rule: ruleOf(rule), ...(before ? { before: ruleOf(before) } : {}) };
  return approvalNeeded(ctx, {
    kind: 'resume',
    brandId: rule.brandId,
    operation,
    input,
    launchId: null,
    nodeId: null,
    plan,
    planFingerprint: fingerprintOf('resume', plan),
    // What resuming spends is the budgets of the objects it resumes, known only when it runs.
    amounts: [],
  });
}

const FAILURES =
  'Failures: 400 validation_failed naming each wrong field (e.g. conditions[0].metric, dailyHour, objectIds[2], accountId); 404 not_found for an unknown automation; ' +
  '403 insufficient_scope / brand_not_allowed.';

type Db = Knex | Knex.Transaction;

/** The automation `automationId` of `brandId` (locked in a transaction when `lock`), or 404. */
async function loadAutomation(db: Db, brandId: number, automationId: number, lock = false): Promise<Automation> {
  const a = await findAutomation(db, brandId, automationId, lock);
  if (!a) throw notFound(`Automation ${automationId} of brand ${brandId}`);
  return a;
}

/** The rule checks a schema cannot make; every wrong field is named at once. */
async function checkRule(
  db: Db,
  principal: Principal,
  trackers: TrackerService,
  a: Omit<Automation, 'id'>,
  input: { actionLevel?: Automation['level'] },
  issues: FieldIssue[] = [],
): Promise<void> {
  // Tracker metrics: campaign level only, and a tracker connected to the brand (looked up once).
  const onTracker = a.conditions.map((c, i) => ({ c, i })).filter(({ c }) => TRACKER_METRICS.has(c.metric));
  const connected = onTracker.length && a.level === 'campaign' ? (await trackers.stored(db, a.brandId)) !== null : true;
  for (const { c, i } of onTracker) {
    if (a.level !== 'campaign')
      issues.push({
        field: `conditions[${i}].metric`,
        code: 'invalid_value',
        message: `${c.metric} comes from the click tracker, by campaign: use level campaign`,
      });
    else if (!connected)
      issues.push({
        field: `conditions[${i}].metric`,
        code: 'invalid_value',
        message: `${c.metric} comes from the click tracker, and this brand has none connected (connect-tracker)`,
      });
  }
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
    issues.push(...(await referenceIssues(db, principal, refs)));
  }
  if (issues.length) throw validationFailed(issues);
}

/** What a run or a preview of the engine needs of a handler's context. */
const ENGINE_SERVICES = ['platforms', 'events', 'invoke', 'progress', 'outbound', 'config', 'trackers', 'secrets'] as const;

function engineDeps(ctx: ServiceContext<(typeof ENGINE_SERVICES)[number]> & { db: Knex }): EngineDeps {
  return {
    knex: ctx.db,
    platforms: ctx.platforms,
    events: ctx.events,
    now: ctx.now,
    log: ctx.log,
    invoke: (n, p, i, o) => ctx.invoke(n, i, { principal: p, idempotencyKey: o.idempotencyKey }),
    progress: (update) => ctx.progress(update),
    outbound: ctx.outbound,
    chatWebhookUrl: ctx.config.chatWebhookUrl,
    profit: { trackers: ctx.trackers, secrets: ctx.secrets, fxRates: ctx.config.fxRates },
  };
}

/** When the automation's job runs it next, or null. */
async function nextRunOf(db: Db, automationId: number): Promise<number | null> {
  return (await nextRunsOf(db, [automationId])).get(automationId) ?? null;
}

function runView(r: Omit<RunRow, 'causePublish'>) {
  return {
    runId: r.id,
    automationId: r.automationId,
    startedAt: iso(r.startedAt),
    finishedAt: iso(r.finishedAt),
    trigger: r.trigger,
    mode: r.mode,
    objects: r.objects,
  };
}

const createAutomation = defineOperation({
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
    'shadow, paused_by_person, loop_detected, tracker_unavailable or publish_scope_missing. status ACTIVE (default) arms it; the first run is at once (daily: at dailyHour). Defaults: frequency hourly, ' +
    `cooldownMinutes 60, maxActionsPerDay 20, mode live, resumeWhenClear false. ${RULE_HELP} ${RESUMES} ${FAILURES}`,
  uses: ['platforms', 'trackers', 'config', 'events'],
  async handler(ctx, input) {
    const issues: FieldIssue[] = [];
    let timezone = 'UTC';
    const [accountIssue] = await referenceIssues(ctx.db, ctx.principal, [
      { kind: 'adAccount', field: 'accountId', id: input.accountId, brandId: ctx.brand.id },
    ]);
    if (accountIssue) issues.push(accountIssue);
    else timezone = (await ctx.platforms.account(ctx.db, ctx.brand.id, input.accountId)).timezone;
    const now = ctx.now();
    const frequency = input.frequency ?? 'hourly';
    const dailyHour = input.dailyHour ?? null;
    const status = input.status ?? 'ACTIVE';
    const a: Omit<Automation, 'id'> = {
      organizationId: ctx.principal.organizationId,
      brandId: ctx.brand.id,
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
      savedBy: credentialOf(ctx.principal),
      lastRunAt: null,
      createdAt: now,
      updatedAt: now,
    };
    requireResumePublish(ctx.principal, a, 'Saving');
    await checkRule(ctx.db, ctx.principal, ctx.trackers, a, input, issues);
    const waiting = await resumeApproval(ctx, 'create-automation', { ...input }, a);
    if (waiting) return waiting;
    const runAt = firstRunAt(frequency, dailyHour, now, timezone);
    const id = await insertAutomation(ctx.db, a);
    if (status === 'ACTIVE') await scheduleAutomation(ctx.db, { ...a, id }, runAt, now);
    return automationView({ ...a, id }, runAt);
  },
});

const listAutomations = defineOperation({
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
  uses: ['page'],
  async handler(ctx, input) {
    const after = ctx.page.position();
    const rows = await automationsOf(ctx.db, ctx.brand.id, { status: input.status, beforeId: after ? Number(after[0]) : undefined, limit: input.limit + 1 });
    const page = rows.slice(0, input.limit);
    const nextRuns = await nextRunsOf(
      ctx.db,
      page.map((a) => a.id),
    );
    return {
      automations: page.map((a) => {
        const v = automationView(a, nextRuns.get(a.id) ?? null);
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

const getAutomation = defineOperation({
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
  uses: [],
  async handler(ctx, input) {
    const a = await loadAutomation(ctx.db, ctx.brand.id, input.automationId);
    return automationView(a, await nextRunOf(ctx.db, a.id));
  },
});

const updateAutomation = defineOperation({
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
  description: `The ad account cannot change (create another automation). guard is merged key by key as a JSON merge patch: send only the minimum to change (null: no minimum). A changed schedule takes effect at once. ${RULE_HELP} ${RESUMES} ${FAILURES}`,
  uses: ['platforms', 'patch', 'trackers', 'config', 'events'],
  async handler(ctx, input) {
    const { automationId, brandId: _brandId, ...fields } = input;
    if (!Object.keys(fields).length) throw validationFailed([{ field: 'automationName', code: 'invalid_type', message: 'send at least one field to change' }]);
    const db = ctx.db;
    const current = await loadAutomation(db, ctx.brand.id, automationId, true);
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
      fields,
    );
    const { automationName, ...kept } = rule;
    const next: Automation = {
      ...current,
      ...kept,
      name: automationName,
      dailyHour: fields.dailyHour !== undefined ? fields.dailyHour : fields.frequency && fields.frequency !== 'daily' ? null : current.dailyHour,
      savedBy: credentialOf(ctx.principal),
      updatedAt: now,
    };
    requireResumePublish(ctx.principal, next, 'Saving');
    await checkRule(db, ctx.principal, ctx.trackers, next, fields);
    const waiting = await resumeApproval(ctx, 'update-automation', { ...input }, next, current);
    if (waiting) return waiting;
    await saveAutomation(db, next);
    // The schedule moves with a changed frequency or hour, or when armed; a disarmed one has none.
    let runAt: number | null = null;
    if (next.status !== 'ACTIVE') await unscheduleAutomation(db, next.id);
    else if (fields.frequency !== undefined || fields.dailyHour !== undefined || current.status !== 'ACTIVE') {
      const account = await ctx.platforms.account(db, next.brandId, next.accountId);
      runAt = firstRunAt(next.frequency, next.dailyHour, now, account.timezone);
      await scheduleAutomation(db, next, runAt, now);
    } else runAt = await nextRunOf(db, next.id);
    return automationView(next, runAt);
  },
});

const setAutomationStatus = defineOperation({
  name: 'set-automation-status',
  method: 'PATCH',
  path: '/brands/{brandId}/automations/{automationId}/status',
  scope: 'write',
  idempotency: 'none',
  input: 'set-automation-status#/$defs/input',
  output: 'set-automation-status#/$defs/output',
  annotations: { ...write, destructive: true, idempotent: true },
  tag: 'automations',
  toolset: 'automate',
  summary: 'Arm (status ACTIVE) or disarm (status PAUSED) a monitoring automation.',
  description:
    'ACTIVE: it runs on its schedule, the first time at once (daily: at its hour). PAUSED: it stops running; objects it paused stay paused. 404 not_found for an unknown automation.',
  uses: ['platforms'],
  async handler(ctx, input) {
    const db = ctx.db;
    const current = await loadAutomation(db, ctx.brand.id, input.automationId, true);
    if (current.status === input.status) return automationView(current, await nextRunOf(db, current.id));
    const now = ctx.now();
    const next: Automation = { ...current, status: input.status, savedBy: credentialOf(ctx.principal), updatedAt: now };
    let runAt: number | null = null;
    if (input.status === 'ACTIVE') {
      const account = await ctx.platforms.account(db, next.brandId, next.accountId);
      runAt = firstRunAt(next.frequency, next.dailyHour, now, account.timezone);
      await scheduleAutomation(db, next, runAt, now);
    } else await unscheduleAutomation(db, next.id);
    await setStatus(db, current.id, next);
    return automationView(next, runAt);
  },
});

const deleteAutomation = defineOperation({
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
  uses: [],
  async handler(ctx, input) {
    const a = await loadAutomation(ctx.db, ctx.brand.id, input.automationId, true);
    await removeAutomation(ctx.db, a.id);
    // Its schedule goes with it; an action of it waiting for a retry finds it gone and ends.
    await unscheduleAutomation(ctx.db, a.id);
    return { automationId: a.id, deleted: true };
  },
});

const runAutomation = defineOperation({
  name: 'run-automation',
  method: 'POST',
  path: '/brands/{brandId}/automations/{automationId}/runs',
  scope: 'write',
  idempotency: 'optional',
  input: 'run-automation#/$defs/input',
  output: 'run-automation#/$defs/output',
  annotations: { ...write, destructive: true, openWorld: true },
  tag: 'automations',
  toolset: 'automate',
  // Reads the ad platform and acts through it: never inside one database transaction.
  transactional: false,
  successStatus: 201,
  summary: 'Evaluate a monitoring automation now, by the same engine and rules as a scheduled run, and answer the run.',
  description:
    'Mode, cooldown and the daily limit apply (a shadow rule acts on nothing); works on a PAUSED automation too. The run lists every object evaluated with its metric values ' +
    "(money in minor units, ctr in percent), each condition's outcome, the action taken (paused, resumed, notified, none) or the skipReason. Failures: 404 not_found; " +
    `503 unavailable when the ad platform cannot be read (retry later). ${RESUMES}`,
  uses: ENGINE_SERVICES,
  async handler(ctx, input) {
    const a = await loadAutomation(ctx.db, ctx.brand.id, input.automationId);
    requireResumePublish(ctx.principal, a, 'Running');
    const waiting = await resumeApproval(ctx, 'run-automation', { brandId: a.brandId, automationId: a.id }, a);
    if (waiting) return waiting;
    const { runs } = await evaluateAccount(engineDeps(ctx), [a], {
      trigger: 'manual',
      act: true,
      // A run by hand is caused by its caller.
      causePublish: () => canPublish(ctx.principal),
    });
    const r = runs[0];
    return runView({
      id: r.runId!,
      automationId: a.id,
      brandId: a.brandId,
      startedAt: r.startedAt,
      finishedAt: r.finishedAt,
      trigger: 'manual',
      mode: a.mode,
      objects: r.objects,
    });
  },
});

const previewAutomation = defineOperation({
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
  // Reads the ad platform, writes nothing: no transaction.
  transactional: false,
  uses: ENGINE_SERVICES,
  async handler(ctx, input) {
    const a = await loadAutomation(ctx.db, ctx.brand.id, input.automationId);
    const { runs } = await evaluateAccount(engineDeps(ctx), [a], { trigger: 'manual', act: false });
    const objects = runs[0].objects.map((o) => ({
      ...o,
      action: o.intended && !o.skipReason && !o.error ? (o.intended === 'pause' ? 'paused' : o.intended === 'resume' ? 'resumed' : 'notified') : 'none',
    }));
    return { automationId: a.id, mode: a.mode, evaluatedAt: iso(runs[0].startedAt), matched: objects.filter((o) => o.matched).length, objects };
  },
});

const listAutomationRuns = defineOperation({
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
  uses: ['page'],
  async handler(ctx, input) {
    const a = await loadAutomation(ctx.db, ctx.brand.id, input.automationId);
    const after = ctx.page.position();
    const rows = await runsOf(ctx.db, a.id, { beforeId: after ? Number(after[0]) : undefined, limit: input.limit + 1 });
    const page = rows.slice(0, input.limit);
    return { runs: page.map(runView), nextCursor: rows.length > input.limit ? ctx.page.next([page[page.length - 1].id]) : null };
  },
});

export const operations: OperationDefinition[] = [
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
