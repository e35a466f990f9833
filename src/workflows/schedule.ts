// A schedule trigger's next run is a job (kind `workflow-schedule`, key = the workflow id) due at
// the next cron time, its payload naming that time (the run it starts is unique per workflow and
// scheduled time). Activating, saving, deactivating and deleting a workflow schedule or cancel it
// in their own transaction; the job starts the run and schedules the time after.

import type { Knex } from 'knex';
import type { ClaimedJob } from '../jobs/queue/job.js';
import { cancelJob, jobDueAt, scheduleJob } from '../jobs/queue/schedule.js';
import type { Trigger } from './definition.js';
import { SCHEDULE_JOB } from './kinds.js';
import { nextRunOf } from './trigger.js';

type Db = Knex | Knex.Transaction;

/** Makes the schedule job of workflow `workflowId` due at `at`, for the run of that scheduled time. */
export async function scheduleRunAt(db: Db, workflowId: number, at: number, now: number): Promise<void> {
  await scheduleJob(db, { kind: SCHEDULE_JOB, key: String(workflowId), runAt: at, payload: { at }, now });
}

/**
 * Arms a workflow's schedule as it now stands: its job due at the next cron time after `now` when it
 * is active with a schedule trigger, no job otherwise. Call it in the transaction of the change.
 */
export async function armSchedule(db: Db, w: { id: number; status: 'active' | 'inactive'; trigger: Trigger }, now: number): Promise<void> {
  const next = nextRunOf(w.trigger, w.status, now);
  if (next === null) await cancelJob(db, SCHEDULE_JOB, String(w.id));
  else await scheduleRunAt(db, w.id, next, now);
}

/** Removes a workflow's schedule job (the workflow is deleted). */
export async function disarmSchedule(db: Db, workflowId: number): Promise<void> {
  await cancelJob(db, SCHEDULE_JOB, String(workflowId));
}

/** When the workflow's next scheduled run is due, or null when none is scheduled. */
export async function nextScheduledRun(db: Db, workflowId: number): Promise<number | null> {
  return jobDueAt(db, SCHEDULE_JOB, String(workflowId));
}

/** The scheduled time a claimed schedule job is for, or null when its payload names none. */
export function scheduledTimeOf(job: ClaimedJob): number | null {
  const p = job.payload;
  return p !== null && typeof p === 'object' && 'at' in p && typeof p.at === 'number' ? p.at : null;
}
