// The automation engine: evaluates every given automation of one ad account together, reading each
// window's delivery once per level (one platform read per account, window and level), decides per
// object (guard, conditions, cooldown, daily limit, loops, who paused it: decide.ts), then writes
// in a few multi-row statements: the runs (one per automation; every object evaluated, or for an
// acting run only the entries about to act until it closes) with the shadow events and the
// automations' last run time in one transaction, the cycle's actions as one
// batch operation through `invoke` (apply-automation-actions, actions.ts: one platform request per
// batch the platform allows, one transaction for nodes, activity, ledger and one
// automation.triggered per action taken; when every action succeeds the acting runs close there too,
// each with its whole object list, once), and otherwise the acting runs' outcomes with the failed
// actions' retry jobs and automation.action_failed events (one transaction, so a run's error and
// its retry land together). A failed action is retried by its own job (queue.ts) through the same
// operation. A notifying automation posts one notice per live run to CHAT_WEBHOOK_URL; a shadow run
// acts on nothing and posts nothing, but emits one automation.triggered (mode shadow) per run and
// action it would have taken, listing the objects. Preview uses the same path without acting or writing.

import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Principal } from '../auth/principal.js';
import { inTransaction } from '../db/connection.js';
import { ServiceError, type ErrorCode } from '../errors.js';
import type { NewEvent, Outbox } from '../catalogue/services.js';
import type { InvokeOptions, InvokeResult, ProgressUpdate } from '../pipeline/invoke.js';
import type { ObjectInsights, InsightsLevel } from '../platforms/port.js';
import type { Platforms } from '../platforms/registry.js';
import { localDate } from '../time/zones.js';
import { decide, holdKey, ledgerFrom, localDayStart, ledgerSince, targetsOf, type LiveObject } from './decide.js';
import type { Automation, Intent, Outcome, RunObject } from './rule.js';
import { automationsByIds, finishRuns, insertRuns, ledgerOf, runObjects, setLastRunAt, setRunObjects } from './store.js';
import { APPLY_ACTIONS, PAST, accountAutomationsPrincipal, type ActionOutcome, type ActionRequest, type ClosingRun } from './actions.js';
import { pendingActions, scheduleActionRetry, type ActionPayload } from './queue.js';
import type { ClaimedJob } from '../jobs/queue/job.js';
import { liveNodesOn, nodeById, type NodeRow } from '../launches/store.js';
import { resolveWindow, type RuleWindow } from './windows.js';
import { postNotice } from './notice.js';
import { TRACKER_METRICS, type MetricInput } from './metrics.js';
import { readTrackerRevenue, type ProfitDeps } from '../reports/profit.js';
import type { OutboundClient } from '../outbound/client.js';

export interface EngineDeps {
  knex: Knex;
  platforms: Platforms;
  events: Outbox;
  now: () => number;
  log: Logger;
  invoke(name: string, principal: Principal, input: Record<string, unknown>, options: InvokeOptions): Promise<InvokeResult>;
  /** Notices go out through it (operator address: CHAT_WEBHOOK_URL). */
  outbound: OutboundClient;
  chatWebhookUrl: string | null;
  /** Hears how far a run has come (a manual run's caller); scheduled runs have nobody listening. */
  progress?: (update: ProgressUpdate) => void;
  /** The click tracker, for conditions on revenue, profit, roas and trackerConversions (read once per window and run). */
  profit: ProfitDeps;
}

export interface EvaluationResult {
  runs: Array<{ automation: Automation; runId: number | null; startedAt: number; finishedAt: number; objects: RunObject[] }>;
  /** Platform reads made (one per window and level at most). */
  reads: number;
  /** Tracker reads made (one per window that a condition on a tracker metric names, at most). */
  trackerReads: number;
}

/** Attempts of a failed pause or resume (the first included) before automation.action_failed. */
export const MAX_ACTION_ATTEMPTS = 4;
const RETRY_BASE_MS = 30_000;

const RETRYABLE = new Set(['unavailable', 'rate_limited', 'timeout', 'internal_error']);

/** Backoff of the `attempts`-th retry of an action: 30 s, 2 min, 8 min..., or the platform's own wait when longer. */
export function actionRetryDelay(attempts: number, retryAfterSeconds: number | null): number {
  return Math.max(RETRY_BASE_MS * 4 ** (attempts - 1), (retryAfterSeconds ?? 0) * 1000);
}

function liveObjectOf(n: NodeRow): LiveObject {
  return {
    nodeId: n.id,
    launchId: n.launchId,
    level: n.nodeType,
    objectId: n.platformId!,
    name: n.name,
    status: (n.properties.status ?? 'ACTIVE') === 'PAUSED' ? 'PAUSED' : 'ACTIVE',
    updatedAt: n.updatedAt,
    createdAt: n.createdAt,
  };
}

async function liveObjects(knex: Knex, brandId: number, accountId: string, level: InsightsLevel): Promise<LiveObject[]> {
  return (await liveNodesOn(knex, brandId, accountId, level)).map(liveObjectOf);
}

/**
 * Evaluates `automations` (all of one brand and ad account). With `act` false nothing is changed or
 * written (preview); otherwise each automation gets a run row, and in live mode its actions.
 */
export async function evaluateAccount(
  deps: EngineDeps,
  automations: Automation[],
  options: {
    trigger: 'schedule' | 'manual';
    act: boolean;
    /** Whether the run's cause holds publish (publish-rule.ts): a manual run's caller; scheduled runs ask of each automation's last saver. */
    causePublish?: (a: Automation) => boolean | Promise<boolean>;
  },
): Promise<EvaluationResult> {
  if (!automations.length) return { runs: [], reads: 0, trackerReads: 0 };
  const { brandId, accountId } = automations[0];
  const startedAt = deps.now();
  const account = await deps.platforms.account(deps.knex, brandId, accountId);
  const adapter = deps.platforms.adapterFor(account.platform);
  const sorted = [...automations].sort((x, y) => x.id - y.id);

  // The live objects of each level, and which of them each automation watches.
  const live = new Map<InsightsLevel, LiveObject[]>();
  for (const level of new Set(sorted.map((a) => a.level))) live.set(level, await liveObjects(deps.knex, brandId, accountId, level));
  const targets = new Map(sorted.map((a) => [a.id, targetsOf(a, live.get(a.level)!)]));

  // One read per (level, window) for the union of the objects every automation needs there.
  const needed = new Map<string, { level: InsightsLevel; window: RuleWindow; ids: Set<string>; since: number }>();
  for (const a of sorted) {
    for (const c of a.conditions) {
      const key = `${a.level}|${c.window}`;
      const slot = needed.get(key) ?? { level: a.level, window: c.window, ids: new Set<string>(), since: Infinity };
      for (const o of targets.get(a.id)!) {
        slot.ids.add(o.objectId);
        slot.since = Math.min(slot.since, o.createdAt);
      }
      needed.set(key, slot);
    }
  }
  const delivery = new Map<string, Map<string, ObjectInsights>>();
  let reads = 0;
  // Progress: one step per platform read, one per action taken, one to record the runs (announced
  // before it, so the last notification never arrives with the answer).
  const planned = [...needed.values()].filter((slot) => slot.ids.size).length;
  deps.progress?.({ progress: 0, total: planned + 1, message: `Reading metrics (${planned} platform reads)` });
  for (const [key, slot] of needed) {
    if (!slot.ids.size) continue;
    const lifetimeSince = Number.isFinite(slot.since) ? localDate(slot.since, account.timezone) : undefined;
    const window = resolveWindow(slot.window, startedAt, account.timezone, lifetimeSince);
    const rows = await adapter.insightsByObject(account, slot.level, [...slot.ids], window);
    reads++;
    delivery.set(key, new Map(rows.map((r) => [r.objectId, r])));
    deps.progress?.({ progress: reads, total: planned + 1, message: `Read ${slot.level} metrics over ${slot.window}` });
  }

  // Tracker metrics (campaign level only): one tracker read per window for every campaign the
  // automations judging them watch, joined to that window's delivery; an automation whose tracker
  // did not answer skips every object (tracker_unavailable).
  const trackerUnavailable = new Set<number>();
  const trackerWindows = new Map<RuleWindow, { automations: Automation[]; ids: Set<string>; since: number }>();
  for (const a of sorted) {
    if (a.level !== 'campaign') continue;
    for (const c of a.conditions) {
      if (!TRACKER_METRICS.has(c.metric)) continue;
      const slot = trackerWindows.get(c.window) ?? { automations: [], ids: new Set<string>(), since: Infinity };
      if (!slot.automations.includes(a)) slot.automations.push(a);
      for (const o of targets.get(a.id)!) {
        slot.ids.add(o.objectId);
        slot.since = Math.min(slot.since, o.createdAt);
      }
      trackerWindows.set(c.window, slot);
    }
  }
  let trackerReads = 0;
  for (const [ruleWindow, slot] of trackerWindows) {
    if (slot.automations.every((a) => trackerUnavailable.has(a.id))) continue;
    const lifetimeSince = Number.isFinite(slot.since) ? localDate(slot.since, account.timezone) : undefined;
    const window = resolveWindow(ruleWindow, startedAt, account.timezone, lifetimeSince);
    const read = slot.ids.size
      ? await readTrackerRevenue(deps.profit, deps.knex, brandId, account, window, [...slot.ids])
      : { kind: 'ok' as const, byCampaign: new Map() };
    if (slot.ids.size) trackerReads++;
    if (read.kind !== 'ok') {
      deps.log.warn(
        { brandId, accountId, window: ruleWindow, reason: read.kind === 'error' ? read.message : 'no tracker connected' },
        'tracker metrics unavailable',
      );
      for (const a of slot.automations) trackerUnavailable.add(a.id);
      continue;
    }
    for (const [id, row] of delivery.get(`campaign|${ruleWindow}`) ?? []) {
      const t = read.byCampaign.get(id);
      (row as MetricInput).tracked = { revenue: t?.revenue ?? 0, conversions: t?.conversions ?? 0 };
    }
  }

  const stored = await ledgerOf(deps.knex, accountId, ledgerSince(sorted, startedAt));
  const today = localDayStart(startedAt, account.timezone);
  // Resuming is money: an automation that may resume, run for a cause without publish, pauses but resumes nothing.
  const resumeRefused = new Set<number>();
  if (options.act && options.causePublish) for (const a of sorted) if (a.resumeWhenClear && !(await options.causePublish(a))) resumeRefused.add(a.id);
  const cycle = { automations: sorted, targets, delivery, now: startedAt, dayStart: today, trackerUnavailable, resumeRefused };
  let decisions = decide({ ...cycle, ledger: ledgerFrom(stored) });
  // An earlier action of the automation on the object waiting for a retry holds this one back: looked
  // up for the pairs that want to act (few), then decided again with them when there are any.
  const pending = await pendingActions(deps.knex, [
    ...new Set(decisions.filter((d) => d.entry.intended).map((d) => holdKey(d.automation.id, d.object.nodeId))),
  ]);
  if (pending.size) decisions = decide({ ...cycle, ledger: ledgerFrom(stored, pending) });

  if (!options.act) {
    const finishedAt = deps.now();
    return {
      runs: sorted.map((a) => ({
        automation: a,
        runId: null,
        startedAt,
        finishedAt,
        objects: decisions.filter((d) => d.automation === a).map((d) => d.entry),
      })),
      reads,
      trackerReads,
    };
  }

  // The runs, opened together with the automations' last run time (one transaction with the shadow
  // events). A run that acts on nothing is final then, with every object it evaluated; an acting one
  // opens with only the entries about to act (as decided: intended, action none) and gets its whole
  // list once, when closed after acting. A run left open (a crash between the two) so still reads as
  // what it was about to do.
  // One pass over the decisions: each run's objects, the acting ones, and the shadow ones (a shadow
  // run acts on nothing: its events say what a live run would have done, one per run and action
  // listing the objects, written with the runs in one transaction).
  const objectsOf = new Map<number, RunObject[]>();
  const actingOf = new Map<number, RunObject[]>();
  const acting: typeof decisions = [];
  const shadows: typeof decisions = [];
  let objects: RunObject[] = [];
  for (const a of sorted) objectsOf.set(a.id, []);
  let current: Automation | null = null;
  for (const d of decisions) {
    if (d.automation !== current) {
      current = d.automation;
      objects = objectsOf.get(current.id)!;
    }
    const { entry } = d;
    objects.push(entry);
    if (!entry.intended) continue;
    if (entry.skipReason === 'shadow') shadows.push(d);
    else if (!entry.skipReason && !entry.error) {
      acting.push(d);
      const list = actingOf.get(current.id);
      if (list) list.push(entry);
      else actingOf.set(current.id, [entry]);
    }
  }
  // The cause matters only to the runs that act (their events may start monitor workflows).
  const causes = new Map<number, boolean>();
  for (const a of sorted) if (actingOf.has(a.id) && options.causePublish) causes.set(a.id, await options.causePublish(a));
  const decidedAt = deps.now();
  const runIds = await inTransaction(deps.knex, async (trx) => {
    const ids = await insertRuns(
      trx,
      sorted.map((a) => ({
        automationId: a.id,
        brandId,
        trigger: options.trigger,
        mode: a.mode,
        causePublish: causes.get(a.id) === true,
        startedAt,
        finishedAt: decidedAt,
        objects: actingOf.get(a.id) ?? objectsOf.get(a.id)!,
      })),
    );
    const byAutomation = new Map(sorted.map((a, i) => [a.id, ids[i]]));
    await setLastRunAt(
      trx,
      sorted.map((a) => a.id),
      startedAt,
    );
    await deps.events.emitMany(trx, shadowEvents(shadows, byAutomation));
    return byAutomation;
  });
  const total = reads + acting.length + 1;
  const followUps: FollowUps = { retries: [], failed: [] };
  let closed = false;
  if (acting.length) {
    // One batch operation for the account's actions of this cycle; when they all succeed it closes
    // the acting runs in the transaction that records them.
    const closing = sorted.filter((a) => actingOf.has(a.id)).map((a) => ({ runId: runIds.get(a.id)!, objects: objectsOf.get(a.id)! }));
    const applied = await applyActions(
      deps,
      sorted[0],
      acting.map((d) => ({ automationId: d.automation.id, runId: runIds.get(d.automation.id)!, nodeId: d.object.nodeId, intent: d.entry.intended! })),
      closing,
    );
    const outcomes = applied.outcomes;
    closed = applied.runsClosed;
    let done = reads;
    for (const [k, d] of acting.entries()) {
      settle(deps, d.automation, d.object, d.entry, runIds.get(d.automation.id)!, outcomes[k], followUps);
      deps.progress?.({
        progress: ++done,
        total,
        message: `${d.entry.error ? `Could not ${d.entry.intended}` : d.entry.action} ${d.object.name ?? d.object.objectId}`,
      });
    }
  }
  deps.progress?.({ progress: total, total, message: 'Recording the run' });
  const finishedAt = acting.length ? deps.now() : decidedAt;
  // Only the acting runs are written again, now with all their objects, unless the actions' own
  // transaction closed them; the others were final when opened. The failed actions' retry jobs and
  // automation.action_failed events go in with the outcomes they follow from.
  if (actingOf.size && !closed)
    await inTransaction(deps.knex, async (trx) => {
      await finishRuns(
        trx,
        sorted.filter((a) => actingOf.has(a.id)).map((a) => ({ id: runIds.get(a.id)!, finishedAt, objects: objectsOf.get(a.id)! })),
      );
      for (const r of followUps.retries) await scheduleActionRetry(trx, r.action, r.runAt, r.now);
      await deps.events.emitMany(trx, followUps.failed);
    });
  const runs: EvaluationResult['runs'] = sorted.map((a) => ({
    automation: a,
    runId: runIds.get(a.id)!,
    startedAt,
    finishedAt: actingOf.has(a.id) ? finishedAt : decidedAt,
    objects: objectsOf.get(a.id)!,
  }));
  // Notices go out once the runs are recorded; a chat that fails changes nothing of what was done.
  for (const r of runs) await postNotice(deps, r.automation, r.runId!, r.objects, account.currency);
  return { runs, reads, trackerReads };
}

/** Objects a shadow run's automation.triggered lists by id, at most (data.objectCount says how many in all). */
export const SHADOW_OBJECTS_LISTED = 1_000;

/**
 * The events of the shadow decisions of one cycle: one automation.triggered per run and action it
 * would have taken, listing the objects (the first SHADOW_OBJECTS_LISTED, in the order the run
 * judged them) and their count. A shadow run acts on nothing, so one event says it all.
 */
function shadowEvents(shadows: Array<{ automation: Automation; object: LiveObject; entry: RunObject }>, runIds: Map<number, number>): NewEvent[] {
  const groups = new Map<string, { a: Automation; action: Outcome; level: InsightsLevel; objects: string[]; count: number }>();
  for (const d of shadows) {
    const action = PAST[d.entry.intended!];
    const key = `${d.automation.id}|${action}`;
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { a: d.automation, action, level: d.object.level, objects: [], count: 0 }));
    if (g.objects.length < SHADOW_OBJECTS_LISTED) g.objects.push(d.object.objectId);
    g.count++;
  }
  return [...groups.values()].map((g) =>
    eventOf(g.a, 'automation.triggered', {
      runId: runIds.get(g.a.id)!,
      level: g.level,
      action: g.action,
      mode: 'shadow',
      objects: g.objects,
      objectCount: g.count,
    }),
  );
}

/** An event of automation `a`; `data` adds to the fields every automation event names. */
function eventOf(a: Automation, type: string, data: Record<string, unknown>): NewEvent {
  return {
    organizationId: a.organizationId,
    brandId: a.brandId,
    type,
    data: { brandId: a.brandId, automationId: a.id, automationName: a.name, accountId: a.accountId, ...data },
  };
}

interface Failure {
  message: string;
  retryable: boolean;
  retryAfter: number | null;
}

/** Actions of one account per batch operation, at most. */
const ACTIONS_PER_CALL = 5_000;

/**
 * Applies `actions` (all of the account of `a`) through the batch operation, as the account's
 * automations: each one's outcome, in order (a call that fails as a whole fails each of its actions),
 * and whether the runs of `closeRuns` were closed with them (only when one call holds every action).
 */
async function applyActions(
  deps: EngineDeps,
  a: Automation,
  actions: ActionRequest[],
  closeRuns: ClosingRun[] = [],
): Promise<{ outcomes: Array<{ action: Outcome; failure: Failure | null }>; runsClosed: boolean }> {
  const out: Array<{ action: Outcome; failure: Failure | null }> = [];
  let runsClosed = false;
  for (let i = 0; i < actions.length; i += ACTIONS_PER_CALL) {
    const part = actions.slice(i, i + ACTIONS_PER_CALL);
    const closing = actions.length <= ACTIONS_PER_CALL && closeRuns.length ? { closeRuns } : {};
    try {
      const answer = await deps.invoke(
        APPLY_ACTIONS,
        accountAutomationsPrincipal(a),
        { brandId: a.brandId, accountId: a.accountId, actions: part, ...closing },
        { requestId: `automations-${a.brandId}-${a.accountId}-run-${part[0].runId}-${i}`, log: deps.log },
      );
      const body = answer.body as { outcomes: ActionOutcome[]; runsClosed: boolean };
      runsClosed = body.runsClosed;
      for (const o of body.outcomes) {
        out.push({
          action: o.action,
          failure: o.error ? failureOf(new ServiceError(o.error.code as ErrorCode, o.error.message, null, o.error.retryAfter)) : null,
        });
      }
    } catch (err) {
      const failure = failureOf(err);
      for (let k = 0; k < part.length; k++) out.push({ action: 'none', failure });
    }
  }
  return { outcomes: out, runsClosed };
}

/** What failed actions leave to do, written with the runs' outcomes: retry jobs, and automation.action_failed for the others. */
interface FollowUps {
  retries: Array<{ action: Parameters<typeof scheduleActionRetry>[1]; runAt: number; now: number }>;
  failed: NewEvent[];
}

/** Lands one action's outcome in its run entry; a failure is queued for a retry or reported (in `followUps`). */
function settle(
  deps: EngineDeps,
  a: Automation,
  o: LiveObject,
  entry: RunObject,
  runId: number,
  outcome: { action: Outcome; failure: Failure | null },
  followUps: FollowUps,
): void {
  const { failure } = outcome;
  if (!failure) {
    entry.action = outcome.action;
    return;
  }
  entry.error = failure.message;
  deps.log.warn({ automationId: a.id, objectId: o.objectId, err: failure.message }, 'automation action failed');
  if (failure.retryable) {
    const now = deps.now();
    // Its job, in the account's lane, tries again (actionRetry times the later attempts).
    followUps.retries.push({
      action: { automationId: a.id, nodeId: o.nodeId, brandId: a.brandId, accountId: a.accountId, runId, action: entry.intended! },
      runAt: now + actionRetryDelay(1, failure.retryAfter),
      now,
    });
  } else {
    followUps.failed.push(actionFailedEvent(a, o.objectId, entry.intended!, failure.message));
  }
}

function failureOf(err: unknown): Failure {
  if (err instanceof ServiceError) return { message: `${err.code}: ${err.message}`, retryable: RETRYABLE.has(err.code), retryAfter: err.retryAfter };
  return { message: (err as Error)?.message ?? String(err), retryable: true, retryAfter: null };
}

function actionFailedEvent(a: Automation, objectId: string, intent: Intent, message: string): NewEvent {
  return eventOf(a, 'automation.action_failed', { objectId, action: intent, error: message.slice(0, 2000) });
}

function actionFailed(deps: EngineDeps, a: Automation, objectId: string, intent: Intent, message: string): Promise<void> {
  return inTransaction(deps.knex, async (trx) => {
    await deps.events.emit(trx, actionFailedEvent(a, objectId, intent, message));
  });
}

/** One action through the batch operation (a retry); its failure is thrown. */
async function perform(deps: EngineDeps, a: Automation, o: LiveObject, intent: Intent, runId: number): Promise<void> {
  const [outcome] = (await applyActions(deps, a, [{ automationId: a.id, runId, nodeId: o.nodeId, intent }])).outcomes;
  if (outcome.failure) throw Object.assign(new Error(outcome.failure.message), { failure: outcome.failure });
}

/** The wait before the next try after failure number `attempts` of an action's job (the first try was in the run): null gives up. */
export function actionRetry(attempts: number): number | null {
  return attempts + 1 < MAX_ACTION_ATTEMPTS ? actionRetryDelay(attempts + 1, null) : null;
}

/** Lands an outcome of a retried action in the run it failed in, as if it had gone that way the first time. */
async function landInRun(deps: EngineDeps, runId: number, nodeId: string, outcome: Partial<RunObject>): Promise<void> {
  const objects = await runObjects(deps.knex, runId);
  if (!objects) return;
  const entry = objects.find((x) => x.nodeId === nodeId);
  if (entry) Object.assign(entry, outcome);
  await setRunObjects(deps.knex, runId, objects);
}

/** The automation, the object and the payload of an action job; null when the automation is gone or disarmed, or the object gone. */
async function actionOf(deps: EngineDeps, job: ClaimedJob): Promise<{ a: Automation; o: LiveObject; p: ActionPayload } | null> {
  const split = job.key.indexOf(':');
  const [a] = await automationsByIds(deps.knex, [Number(job.key.slice(0, split))]);
  const node = await nodeById(deps.knex, job.key.slice(split + 1));
  if (!a || !node || a.status !== 'ACTIVE') return null;
  return { a, o: liveObjectOf(node), p: job.payload as ActionPayload };
}

/**
 * Tries a failed action again (the action job's run). A success lands in its run as if it had
 * worked the first time; a failure worth retrying throws (the job's retry policy, actionRetry, says
 * when again or gives up); one that is not ends in automation.action_failed at once.
 */
export async function retryAction(deps: EngineDeps, job: ClaimedJob): Promise<'done'> {
  const found = await actionOf(deps, job);
  if (!found) return 'done';
  const { a, o, p } = found;
  try {
    await perform(deps, a, o, p.action, p.runId);
  } catch (err) {
    const failure = (err as { failure?: Failure }).failure ?? failureOf(err);
    if (failure.retryable) {
      // The job's retry policy says when again, or gives up (giveUpAction).
      await landInRun(deps, p.runId, o.nodeId, { error: failure.message });
      throw new Error(failure.message, { cause: err });
    }
    await giveUp(deps, a, o, p, failure.message, job.attempts + 2);
    return 'done';
  }
  await landInRun(deps, p.runId, o.nodeId, { action: PAST[p.action], error: null });
  return 'done';
}

/** An action job given up after its last retry: automation.action_failed, and the run says so. */
export async function giveUpAction(deps: EngineDeps, job: ClaimedJob, error: string): Promise<void> {
  const found = await actionOf(deps, job);
  if (found) await giveUp(deps, found.a, found.o, found.p, error, job.attempts + 2);
}

async function giveUp(deps: EngineDeps, a: Automation, o: LiveObject, p: ActionPayload, message: string, attempts: number): Promise<void> {
  await actionFailed(deps, a, o.objectId, p.action, `${message} (after ${attempts} attempts)`);
  await landInRun(deps, p.runId, o.nodeId, { error: `${message} (gave up after ${attempts} attempts)` });
}
