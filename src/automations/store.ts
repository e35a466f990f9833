// The automations area's tables: the rules (`automations`), their runs (`automation_runs`, every
// object evaluated in one compact record per run: run-record.ts), the ledger of actions taken (`automation_actions`: cooldown, daily
// limit, loops) and the objects each automation holds paused (`automation_holds`). The only file
// that queries them; it answers camelCase rows and hides the column names. When an automation runs
// next and which actions wait for a retry are jobs (queue.ts), not rows here.

import type { Knex } from 'knex';
import type { Automation, RunObject } from './rule.js';
import { decodeRunObjects, encodeRunObjects } from './run-record.js';

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
    savedBy:
      row.saved_by_kind === 'api_key' || row.saved_by_kind === 'user'
        ? {
            kind: row.saved_by_kind,
            apiKeyId: row.saved_by_api_key_id === null ? null : Number(row.saved_by_api_key_id),
            grantId: row.saved_by_grant_id === null ? null : Number(row.saved_by_grant_id),
          }
        : null,
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
    saved_by_kind: a.savedBy?.kind ?? null,
    saved_by_api_key_id: a.savedBy?.apiKeyId ?? null,
    saved_by_grant_id: a.savedBy?.grantId ?? null,
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

/** The automations of `ids` whatever their brand (a job's), in id order. */
export async function automationsByIds(db: Db, ids: number[]): Promise<Automation[]> {
  if (!ids.length) return [];
  return (await db('automations').whereIn('id', ids).orderBy('id')).map(toAutomation);
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

/** Arms or disarms. */
export async function setStatus(db: Db, id: number, change: Pick<Automation, 'status' | 'updatedAt' | 'savedBy'>): Promise<void> {
  await db('automations')
    .where({ id })
    .update({
      status: change.status,
      updated_at: change.updatedAt,
      saved_by_kind: change.savedBy?.kind ?? null,
      saved_by_api_key_id: change.savedBy?.apiKeyId ?? null,
      saved_by_grant_id: change.savedBy?.grantId ?? null,
    });
}

/** Deletes the automation with its runs, ledger and holds. */
export async function removeAutomation(db: Db, id: number): Promise<void> {
  for (const table of ['automation_runs', 'automation_actions', 'automation_holds']) await db(table).where({ automation_id: id }).delete();
  await db('automations').where({ id }).delete();
}

/** Records when the automations last ran. */
export async function setLastRunAt(db: Db, ids: number[], at: number): Promise<void> {
  for (let i = 0; i < ids.length; i += 500)
    await db('automations')
      .whereIn('id', ids.slice(i, i + 500))
      .update({ last_run_at: at });
}

// ---- automation_runs

export interface RunRow {
  id: number;
  automationId: number;
  brandId: number;
  trigger: 'schedule' | 'manual';
  mode: Automation['mode'];
  /** Whether the run's cause (a manual run's caller, a scheduled run's last saver) held `publish`. */
  causePublish: boolean;
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
    causePublish: Boolean(r.cause_publish),
    startedAt: Number(r.started_at),
    finishedAt: Number(r.finished_at),
    objects: decodeRunObjects(String(r.objects)),
  };
}

/**
 * Opens runs of one cycle together (each with the objects the engine gives: all of them, or an acting run's entries about to act);
 * answers their ids in order. Two statements: the insert, and the read of the ids it gave.
 */
export async function insertRuns(db: Db, runs: Array<Omit<RunRow, 'id'>>): Promise<number[]> {
  if (!runs.length) return [];
  const rows = runs.map((r) => ({
    automation_id: r.automationId,
    brand_id: r.brandId,
    trigger: r.trigger,
    mode: r.mode,
    cause_publish: r.causePublish,
    started_at: r.startedAt,
    finished_at: r.finishedAt,
    objects: encodeRunObjects(r.objects),
  }));
  for (const part of byteBounded(rows, (r) => r.objects.length)) await db('automation_runs').insert(part);
  // The newest run of each automation started then is this cycle's (one cycle per automation at a time: its lane).
  const ids = new Map<number, number>();
  for (let i = 0; i < runs.length; i += 500) {
    const part = runs.slice(i, i + 500);
    const rows: Array<{ automation_id: number; id: number }> = await db('automation_runs')
      .whereIn(
        'automation_id',
        part.map((r) => r.automationId),
      )
      .where({ started_at: part[0].startedAt })
      .groupBy('automation_id')
      .select('automation_id')
      .max({ id: 'id' });
    for (const r of rows) ids.set(Number(r.automation_id), Number(r.id));
  }
  return runs.map((r) => ids.get(r.automationId)!);
}

/** Whether each run's cause held `publish`, by run id (runs not found are absent). */
export async function runCauses(db: Db, runIds: number[]): Promise<Map<number, boolean>> {
  const out = new Map<number, boolean>();
  for (let i = 0; i < runIds.length; i += 500) {
    const rows = await db('automation_runs')
      .whereIn('id', runIds.slice(i, i + 500))
      .select('id', 'cause_publish');
    for (const r of rows) out.set(Number(r.id), Boolean(r.cause_publish));
  }
  return out;
}

/** Closes runs with their objects (a few statements for many runs). */
export async function finishRuns(db: Db, runs: Array<{ id: number; finishedAt: number; objects: RunObject[] }>): Promise<void> {
  const rows = runs.map((r) => ({ id: r.id, finishedAt: r.finishedAt, objects: encodeRunObjects(r.objects) }));
  for (const part of byteBounded(rows, (r) => r.objects.length)) {
    const cases = part.map(() => 'when ? then ?').join(' ');
    await db('automation_runs')
      .whereIn(
        'id',
        part.map((r) => r.id),
      )
      .update({
        finished_at: db.raw(
          `case id ${cases} end`,
          part.flatMap((r) => [r.id, r.finishedAt]),
        ),
        objects: db.raw(
          `case id ${cases} end`,
          part.flatMap((r) => [r.id, r.objects]),
        ),
      });
  }
}

/** Rows of one multi-row statement of runs, at most, and the JSON it may carry (well below MySQL's max_allowed_packet). */
const RUNS_PER_STATEMENT = 200;
const JSON_PER_STATEMENT = 4_000_000;

/** `rows` in runs of at most RUNS_PER_STATEMENT holding at most JSON_PER_STATEMENT characters of `size` (one row alone may hold more). */
function byteBounded<T>(rows: T[], size: (row: T) => number): T[][] {
  const out: T[][] = [];
  let part: T[] = [];
  let chars = 0;
  for (const row of rows) {
    if (part.length && (part.length >= RUNS_PER_STATEMENT || chars + size(row) > JSON_PER_STATEMENT)) {
      out.push(part);
      part = [];
      chars = 0;
    }
    part.push(row);
    chars += size(row);
  }
  if (part.length) out.push(part);
  return out;
}

/** The objects of a run, or undefined when it is gone. */
export async function runObjects(db: Db, id: number): Promise<RunObject[] | undefined> {
  const row = await db('automation_runs').where({ id }).first('objects');
  return row ? decodeRunObjects(String(row.objects)) : undefined;
}

/** Replaces the objects of a run (a retried action landing in it). */
export async function setRunObjects(db: Db, id: number, objects: RunObject[]): Promise<void> {
  await db('automation_runs')
    .where({ id })
    .update({ objects: encodeRunObjects(objects) });
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

// ---- the ledger: automation_actions, automation_holds

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

/** What the engine judges an account's objects against: actions since `since` (oldest first) and holds. */
export async function ledgerOf(db: Db, accountId: string, since: number): Promise<{ actions: LedgerAction[]; holds: HoldRow[] }> {
  const [actions, holds] = await Promise.all([
    db('automation_actions').where({ account_id: accountId }).where('at', '>=', since).orderBy('id').select('automation_id', 'object_id', 'action', 'at'),
    db('automation_holds').where({ account_id: accountId }).select('automation_id', 'node_id', 'node_updated_at', 'paused_at'),
  ]);
  return {
    actions: actions.map((r) => ({ automationId: Number(r.automation_id), objectId: r.object_id, action: r.action, at: Number(r.at) })),
    holds: holds.map((r) => ({
      automationId: Number(r.automation_id),
      nodeId: r.node_id,
      nodeUpdatedAt: Number(r.node_updated_at),
      pausedAt: Number(r.paused_at),
    })),
  };
}

/** An action taken, as the ledger records it. */
export interface TakenAction {
  automationId: number;
  runId: number;
  accountId: string;
  nodeId: string;
  objectId: string;
  action: 'paused' | 'resumed' | 'notified';
  at: number;
  /** For a pause: the node's updated_at right after it (any later change is someone else's). */
  nodeUpdatedAt: number;
}

/**
 * Records many actions taken at once: the ledger rows, the holds of the pauses (replacing any
 * earlier hold of the same automation on the node) and the release of the resumed ones' holds.
 */
export async function recordActions(db: Db, actions: TakenAction[]): Promise<void> {
  for (let i = 0; i < actions.length; i += 500) {
    const part = actions.slice(i, i + 500);
    await db('automation_actions').insert(
      part.map((r) => ({ automation_id: r.automationId, run_id: r.runId, account_id: r.accountId, object_id: r.objectId, action: r.action, at: r.at })),
    );
    const moved = part.filter((r) => r.action !== 'notified');
    if (moved.length) {
      await db('automation_holds')
        .where((q) => {
          for (const r of moved) q.orWhere({ automation_id: r.automationId, node_id: r.nodeId });
        })
        .delete();
    }
    const paused = part.filter((r) => r.action === 'paused');
    if (paused.length) {
      await db('automation_holds').insert(
        paused.map((r) => ({
          automation_id: r.automationId,
          account_id: r.accountId,
          node_id: r.nodeId,
          object_id: r.objectId,
          node_updated_at: r.nodeUpdatedAt,
          paused_at: r.at,
        })),
      );
    }
  }
}
