// The automations area's jobs, named once, and how the area writes and reads them through the
// queue (src/jobs/queue/schedule.ts). Every automation that is ACTIVE has one evaluation job (key:
// its id) due at its next run; every failed action waiting for a retry has one action job (key:
// `<automationId>:<nodeId>`). Both run in the ad account's lane, `automations:<brandId>:<accountId>`,
// so one worker at a time acts on an account and its due automations are claimed together.

import type { Knex } from 'knex';
import { cancelJob, jobsDueAt, scheduleJob } from '../jobs/queue/schedule.js';
import type { Intent } from './rule.js';

type Db = Knex | Knex.Transaction;

/** Evaluates due automations of one account together (key: the automation id). */
export const AUTOMATION_JOB = 'evaluate-automations';
/** Retries one failed pause, resume or notice (key: `<automationId>:<nodeId>`). */
export const ACTION_JOB = 'retry-automation-action';

/** The lane of an ad account's automation jobs. */
export const laneOf = (brandId: number, accountId: string) => `automations:${brandId}:${accountId}`;

export const actionKey = (automationId: number, nodeId: string) => `${automationId}:${nodeId}`;

/** Schedules the automation's next evaluation at `runAt` (inside the transaction that armed or changed it). */
export function scheduleAutomation(db: Db, a: { id: number; brandId: number; accountId: string }, runAt: number, now: number): Promise<void> {
  return scheduleJob(db, { kind: AUTOMATION_JOB, key: String(a.id), lane: laneOf(a.brandId, a.accountId), runAt, now });
}

/** Cancels the automation's evaluations (disarmed or deleted). */
export function unscheduleAutomation(db: Db, automationId: number): Promise<void> {
  return cancelJob(db, AUTOMATION_JOB, String(automationId));
}

/** When each automation runs next (absent: not scheduled). */
export async function nextRunsOf(db: Db, automationIds: number[]): Promise<Map<number, number>> {
  const due = await jobsDueAt(db, AUTOMATION_JOB, automationIds.map(String));
  return new Map([...due].map(([key, at]) => [Number(key), at]));
}

/** What an action job carries beyond its key. */
export interface ActionPayload {
  runId: number;
  action: Intent;
}

/** Queues a retry of a failed action at `runAt`. */
export function scheduleActionRetry(
  db: Db,
  p: { automationId: number; nodeId: string; brandId: number; accountId: string; runId: number; action: Intent },
  runAt: number,
  now: number,
): Promise<void> {
  const payload: ActionPayload = { runId: p.runId, action: p.action };
  return scheduleJob(db, { kind: ACTION_JOB, key: actionKey(p.automationId, p.nodeId), lane: laneOf(p.brandId, p.accountId), runAt, payload, now });
}

/** The `<automationId>:<nodeId>` pairs among `keys` with an action waiting for a retry. */
export async function pendingActions(db: Db, keys: string[]): Promise<Set<string>> {
  const out = new Set<string>();
  // Bounded statements: a cycle of many rules may name many pairs.
  for (let i = 0; i < keys.length; i += 500) for (const key of (await jobsDueAt(db, ACTION_JOB, keys.slice(i, i + 500))).keys()) out.add(key);
  return out;
}
