// The automations area's tables: the rules (`automations`), their runs (`automation_runs`, every
// object evaluated as JSON), the ledger of actions taken (`automation_actions`: cooldown, daily
// limit, loops), the objects each automation holds paused (`automation_holds`) and the actions
// waiting for a retry (`automation_pending_actions`). The only file that queries them; it answers
// camelCase rows and hides the column names.

import type { Knex } from 'knex';
import type { Automation, Intent, RunObject } from './rule.js';

type Db = Knex | Knex.Transaction;

/** The stored JSON part of a rule. */
type StoredRule = Pick<Automation, 'objectIds' | 'conditions' | 'guard' | 'dailyHour' | 'cooldownMinutes' | 'maxActionsPerDay' | 'resumeWhenClear'>;

function toAutomation(row: Record<string, any>): Automation {
  const rule = JSON.parse(row.rule) as StoredRule;
  return {
    id: Number(row.id),
    organizationId: Number(row.organization_id),
    brandId: Number(row.brand_id),
    accountId: row.account_id,
    name: row.name,
    status: row.status,
    level: row.level,
    action: row.action,
    frequency: row.frequency,
    mode: row.mode,
    ...rule,
    createdByUserId: Number(row.created_by_user_id),
    nextRunAt: row.next_run_at === null ? null : Number(row.next_run_at),
    lastRunAt: row.last_run_at === null ? null : Number(row.last_run_at),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

function rowOf(a: Omit<Automation, 'id'>): Record<string, unknown> {
  const rule: StoredRule = {
    objectIds: a.objectIds,
    conditions: a.conditions,
    guard: a.guard,
    dailyHour: a.dailyHour,
    cooldownMinutes: a.cooldownMinutes,
    maxActionsPerDay: a.maxActionsPerDay,
    resumeWhenClear: a.resumeWhenClear,
  };
  return {
    organization_id: a.organizationId,
    brand_id: a.brandId,
    account_id: a.accountId,
    name: a.name,
    status: a.status,
    level: a.level,
    action: a.action,
    frequency: a.frequency,
    mode: a.mode,
    rule: JSON.stringify(rule),
    created_by_user_id: a.createdByUserId,
    next_run_at: a.nextRunAt,
    last_run_at: a.lastRunAt,
    created_at: a.createdAt,
    updated_at: a.updatedAt,
  };
}

// ---- automations

/** Stores a new automation; answers its id. */
export async function insertAutomation(db: Db, a: Omit<Automation, 'id'>): Promise<number> {
  const [id] = await db('automations').insert(rowOf(a));
  return Number(id);
}

/** The automation `id` of `brandId`, or undefined; locked in a transaction when `forUpdate`. */
export async function findAutomation(db: Db, brandId: number, id: number, forUpdate = false): Promise<Automation | undefined> {
  const q = db('automations').where({ id, brand_id: brandId });
  const row = await (forUpdate ? q.forUpdate() : q).first();
  return row ? toAutomation(row) : undefined;
}

/** The automation `id` whatever its brand (a pending action's), or undefined. */
export async function automationById(db: Db, id: number): Promise<Automation | undefined> {
  const row = await db('automations').where({ id }).first();
  return row ? toAutomation(row) : undefined;
}

/** The brand's automations, newest first, below `beforeId`, at most `limit`. */
export async function automationsOf(db: Db, brandId: number, f: { status?: string; beforeId?: number; limit: number }): Promise<Automation[]> {
  const rows = await db('automations')
    .where({ brand_id: brandId })
    .modify((q) => {
      if (f.status) q.where({ status: f.status });
      if (f.beforeId !== undefined) q.where('id', '<', f.beforeId);
    })
    .orderBy('id', 'desc')
    .limit(f.limit);
  return rows.map(toAutomation);
}

/** Writes every field of `a` (its id and account stay). */
export async function saveAutomation(db: Db, a: Automation): Promise<void> {
  await db('automations').where({ id: a.id }).update(rowOf(a));
}

/** Arms or disarms: the status, the next run and the change time. */
export async function setStatus(db: Db, id: number, change: Pick<Automation, 'status' | 'nextRunAt' | 'updatedAt'>): Promise<void> {
  await db('automations').where({ id }).update({ status: change.status, next_run_at: change.nextRunAt, updated_at: change.updatedAt });
}

/** Deletes the automation with its runs, ledger, holds and pending actions. */
export async function removeAutomation(db: Db, id: number): Promise<void> {
  for (const table of ['automation_runs', 'automation_actions', 'automation_holds', 'automation_pending_actions'])
    await db(table).where({ automation_id: id }).delete();
  await db('automations').where({ id }).delete();
}

/** The account's ACTIVE automations due at `now`. */
export async function dueAutomations(db: Db, brandId: number, accountId: string, now: number): Promise<Automation[]> {
  const rows = await db('automations').where({ brand_id: brandId, account_id: accountId, status: 'ACTIVE' }).where('next_run_at', '<=', now);
  return rows.map(toAutomation);
}

/** Moves an automation still ACTIVE on to its next run. */
export async function setNextRunAt(db: Db, id: number, at: number): Promise<void> {
  await db('automations').where({ id, status: 'ACTIVE' }).update({ next_run_at: at });
}

/** When the account's next ACTIVE automation is due, or null. */
export async function nextRunOnAccount(db: Db, brandId: number, accountId: string): Promise<number | null> {
  const row = await db('automations').where({ brand_id: brandId, account_id: accountId, status: 'ACTIVE' }).min({ at: 'next_run_at' }).first();
  return row?.at === null || row?.at === undefined ? null : Number(row.at);
}

/** Records when the automation last ran. */
export async function setLastRunAt(db: Db, id: number, at: number): Promise<void> {
  await db('automations').where({ id }).update({ last_run_at: at });
}

// ---- automation_runs

export interface RunRow {
  id: number;
  automationId: number;
  brandId: number;
  trigger: 'schedule' | 'manual';
  mode: Automation['mode'];
  startedAt: number;
  finishedAt: number;
  objects: RunObject[];
}

function toRun(r: Record<string, any>): RunRow {
  return {
    id: Number(r.id),
    automationId: Number(r.automation_id),
    brandId: Number(r.brand_id),
    trigger: r.trigger,
    mode: r.mode,
    startedAt: Number(r.started_at),
    finishedAt: Number(r.finished_at),
    objects: typeof r.objects === 'string' ? JSON.parse(r.objects) : r.objects,
  };
}

/** Opens a run (no objects yet, finished when started); answers its id. */
export async function insertRun(db: Db, r: Omit<RunRow, 'id' | 'finishedAt' | 'objects'>): Promise<number> {
  const [id] = await db('automation_runs').insert({
    automation_id: r.automationId,
    brand_id: r.brandId,
    trigger: r.trigger,
    mode: r.mode,
    started_at: r.startedAt,
    finished_at: r.startedAt,
    objects: '[]',
  });
  return Number(id);
}

/** Closes a run with its objects. */
export async function finishRun(db: Db, id: number, finishedAt: number, objects: RunObject[]): Promise<void> {
  await db('automation_runs')
    .where({ id })
    .update({ finished_at: finishedAt, objects: JSON.stringify(objects) });
}

/** The objects of a run, or undefined when it is gone. */
export async function runObjects(db: Db, id: number): Promise<RunObject[] | undefined> {
  const row = await db('automation_runs').where({ id }).first('objects');
  return row ? JSON.parse(row.objects) : undefined;
}

/** Replaces the objects of a run (a retried action landing in it). */
export async function setRunObjects(db: Db, id: number, objects: RunObject[]): Promise<void> {
  await db('automation_runs')
    .where({ id })
    .update({ objects: JSON.stringify(objects) });
}

/** The automation's runs, newest first, below `beforeId`, at most `limit`. */
export async function runsOf(db: Db, automationId: number, f: { beforeId?: number; limit: number }): Promise<RunRow[]> {
  const rows = await db('automation_runs')
    .where({ automation_id: automationId })
    .modify((q) => (f.beforeId !== undefined ? q.where('id', '<', f.beforeId) : q))
    .orderBy('id', 'desc')
    .limit(f.limit);
  return rows.map(toRun);
}

// ---- the ledger: automation_actions, automation_holds, automation_pending_actions

export interface LedgerAction {
  automationId: number;
  objectId: string;
  action: string;
  at: number;
}

export interface HoldRow {
  automationId: number;
  nodeId: string;
  nodeUpdatedAt: number;
  pausedAt: number;
}

/** What the engine judges an account's objects against: actions since `since` (oldest first), holds, and pending (automation, node) pairs. */
export async function ledgerOf(
  db: Db,
  accountId: string,
  since: number,
): Promise<{ actions: LedgerAction[]; holds: HoldRow[]; pending: Array<{ automationId: number; nodeId: string }> }> {
  const [actions, holds, pending] = await Promise.all([
    db('automation_actions').where({ account_id: accountId }).where('at', '>=', since).orderBy('id').select('automation_id', 'object_id', 'action', 'at'),
    db('automation_holds').where({ account_id: accountId }).select('automation_id', 'node_id', 'node_updated_at', 'paused_at'),
    db('automation_pending_actions').where({ account_id: accountId }).select('automation_id', 'node_id'),
  ]);
  return {
    actions: actions.map((r) => ({ automationId: Number(r.automation_id), objectId: r.object_id, action: r.action, at: Number(r.at) })),
    holds: holds.map((r) => ({
      automationId: Number(r.automation_id),
      nodeId: r.node_id,
      nodeUpdatedAt: Number(r.node_updated_at),
      pausedAt: Number(r.paused_at),
    })),
    pending: pending.map((r) => ({ automationId: Number(r.automation_id), nodeId: r.node_id })),
  };
}

/**
 * Records an action taken: the ledger row, and for a pause the hold (the node's updated_at right
 * after, so any later change is someone else's); a resume releases the hold.
 */
export async function recordAction(
  db: Db,
  r: { automationId: number; runId: number; accountId: string; nodeId: string; objectId: string; action: 'paused' | 'resumed' | 'notified'; at: number },
  nodeUpdatedAt: number,
): Promise<void> {
  await db('automation_actions').insert({
    automation_id: r.automationId,
    run_id: r.runId,
    account_id: r.accountId,
    object_id: r.objectId,
    action: r.action,
    at: r.at,
  });
  if (r.action === 'paused') {
    await db('automation_holds').where({ automation_id: r.automationId, node_id: r.nodeId }).delete();
    await db('automation_holds').insert({
      automation_id: r.automationId,
      account_id: r.accountId,
      node_id: r.nodeId,
      object_id: r.objectId,
      node_updated_at: nodeUpdatedAt,
      paused_at: r.at,
    });
  } else if (r.action === 'resumed') {
    await db('automation_holds').where({ automation_id: r.automationId, node_id: r.nodeId }).delete();
  }
}

export interface PendingAction {
  id: number;
  automationId: number;
  runId: number;
  brandId: number;
  accountId: string;
  nodeId: string;
  objectId: string;
  action: Intent;
  attempts: number;
  lastError: string | null;
  nextAttemptAt: number;
}

/** Queues a failed action for a retry, unless one of the automation on the node waits already. */
export async function insertPendingAction(db: Db, p: Omit<PendingAction, 'id'>, now: number): Promise<void> {
  await db('automation_pending_actions')
    .insert({
      automation_id: p.automationId,
      run_id: p.runId,
      brand_id: p.brandId,
      account_id: p.accountId,
      node_id: p.nodeId,
      object_id: p.objectId,
      action: p.action,
      attempts: p.attempts,
      last_error: p.lastError,
      next_attempt_at: p.nextAttemptAt,
      created_at: now,
    })
    .onConflict(['automation_id', 'node_id'])
    .ignore();
}

/** The account's pending actions due at `now`, oldest first. */
export async function duePendingActions(db: Db, brandId: number, accountId: string, now: number): Promise<PendingAction[]> {
  const rows = await db('automation_pending_actions').where({ brand_id: brandId, account_id: accountId }).where('next_attempt_at', '<=', now).orderBy('id');
  return rows.map((r) => ({
    id: Number(r.id),
    automationId: Number(r.automation_id),
    runId: Number(r.run_id),
    brandId: Number(r.brand_id),
    accountId: r.account_id,
    nodeId: r.node_id,
    objectId: r.object_id,
    action: r.action,
    attempts: Number(r.attempts),
    lastError: r.last_error ?? null,
    nextAttemptAt: Number(r.next_attempt_at),
  }));
}

/** Counts a failed retry and sets when to try again. */
export async function deferPendingAction(db: Db, id: number, attempts: number, lastError: string, nextAttemptAt: number): Promise<void> {
  await db('automation_pending_actions').where({ id }).update({ attempts, last_error: lastError, next_attempt_at: nextAttemptAt });
}

export async function deletePendingAction(db: Db, id: number): Promise<void> {
  await db('automation_pending_actions').where({ id }).delete();
}

/** When the account's next pending retry is due, or null. */
export async function nextRetryOnAccount(db: Db, brandId: number, accountId: string): Promise<number | null> {
  const row = await db('automation_pending_actions').where({ brand_id: brandId, account_id: accountId }).min({ at: 'next_attempt_at' }).first();
  return row?.at === null || row?.at === undefined ? null : Number(row.at);
}
