// The one way other areas write the jobs table: schedule a job at a time (creating or moving its
// row), cancel it, wake it now, and read when jobs are due. Call the writes inside the transaction
// of the change that made the work, so a rolled-back change schedules nothing.

import type { Knex } from 'knex';

export { wakeJob } from './wake.js';

export interface ScheduleJob {
  kind: string;
  key: string;
  /** When it is due; null parks it until something wakes or schedules it. */
  runAt: number | null;
  /** The lane it runs in (claimed together with the lane's other due jobs, in order). */
  lane?: string | null;
  /** Replaces the stored payload when given. */
  payload?: unknown;
  now: number;
}

/**
 * Upserts (kind, key) due at `runAt`. `version` goes up, so a worker running the job at this moment
 * leaves the new time in place when it finishes instead of writing its own.
 */
export async function scheduleJob(db: Knex | Knex.Transaction, s: ScheduleJob): Promise<void> {
  if (s.lane) await ensureLanes(db, [s.lane]);
  const payload = s.payload === undefined ? undefined : s.payload === null ? null : JSON.stringify(s.payload);
  const merge: Record<string, unknown> = { run_at: s.runAt, version: db.raw('jobs.version + 1'), updated_at: s.now };
  if (s.lane !== undefined) merge.lane = s.lane;
  if (payload !== undefined) merge.payload = payload;
  await db('jobs')
    .insert({
      kind: s.kind,
      job_key: s.key,
      lane: s.lane ?? null,
      payload: payload ?? null,
      run_at: s.runAt,
      attempts: 0,
      version: 1,
      created_at: s.now,
      updated_at: s.now,
    })
    .onConflict(['kind', 'job_key'])
    .merge(merge);
}

/** Deletes (kind, key): nothing runs it again, and a worker running it now finishes without rescheduling it. */
export async function cancelJob(db: Knex | Knex.Transaction, kind: string, key: string): Promise<void> {
  await db('jobs').where({ kind, job_key: key }).delete();
}

/** When (kind, key) is due: null when it is parked or does not exist. */
export async function jobDueAt(db: Knex | Knex.Transaction, kind: string, key: string): Promise<number | null> {
  return (await jobsDueAt(db, kind, [key])).get(key) ?? null;
}

/** When each of `keys` of `kind` is due; keys parked or without a job are absent. */
export async function jobsDueAt(db: Knex | Knex.Transaction, kind: string, keys: string[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  if (!keys.length) return out;
  const rows: Array<{ job_key: string; run_at: number | string | null }> = await db('jobs')
    .where({ kind })
    .whereIn('job_key', [...new Set(keys)])
    .whereNotNull('run_at')
    .select('job_key', 'run_at');
  for (const r of rows) out.set(r.job_key, Number(r.run_at));
  return out;
}

/** Makes the parked jobs of `lane` due now (e.g. an endpoint turned back on). */
export async function wakeLane(db: Knex | Knex.Transaction, lane: string, now: number): Promise<void> {
  await db('jobs')
    .where({ lane })
    .whereNull('run_at')
    .update({ run_at: now, version: db.raw('version + 1'), updated_at: now });
}

/** Deletes the jobs of `lane` nobody is running (one running finds its work gone). */
export async function cancelLane(db: Knex | Knex.Transaction, lane: string): Promise<void> {
  await db('jobs').where({ lane }).whereNull('locked_by').delete();
}

/**
 * Writes new one-off jobs due at `runAt` in one statement (their (kind, key) must not exist yet),
 * creating the lane rows they need: how a fan-out schedules many jobs at once.
 */
export async function insertJobs(
  db: Knex | Knex.Transaction,
  jobs: Array<{ kind: string; key: string; lane: string | null }>,
  runAt: number,
  now: number,
): Promise<void> {
  if (!jobs.length) return;
  const lanes = [...new Set(jobs.map((j) => j.lane).filter((l): l is string => l !== null))];
  if (lanes.length) await ensureLanes(db, lanes);
  // A few hundred rows per statement: its bound values stay far below SQLite's limit (32,766).
  for (let i = 0; i < jobs.length; i += 400)
    await db('jobs').insert(
      jobs
        .slice(i, i + 400)
        .map((j) => ({ kind: j.kind, job_key: j.key, lane: j.lane, payload: null, run_at: runAt, attempts: 0, version: 1, created_at: now, updated_at: now })),
    );
}

/**
 * Creates the lease rows of `lanes` that have none yet: claimers find due lanes through these
 * rows, so a lane's row is written with (before) its first job. A plain read first: an existing
 * row is never locked by a writer (a claim may hold it for a moment).
 */
export async function ensureLanes(db: Knex | Knex.Transaction, lanes: string[]): Promise<void> {
  const known = new Set(await db('job_lanes').whereIn('lane', lanes).pluck('lane'));
  const missing = lanes.filter((l) => !known.has(l)).sort();
  if (!missing.length) return;
  await db('job_lanes')
    .insert(missing.map((lane) => ({ lane, locked_by: null, locked_until: null })))
    .onConflict('lane')
    .ignore();
}
