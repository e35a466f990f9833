// Makes a job due now, creating its row if needed. Called inside the transaction that made the
// work (so a rolled-back change wakes nothing); bumping `version` tells a running holder to look again.

import type { Knex } from 'knex';

/** Upserts (kind, key) with run_at = `now` and version + 1. */
export async function wakeJob(db: Knex | Knex.Transaction, kind: string, key: string, now: number, payload: unknown = null): Promise<void> {
  await db('jobs')
    .insert({
      kind,
      job_key: key,
      payload: payload === null ? null : JSON.stringify(payload),
      run_at: now,
      attempts: 0,
      version: 1,
      created_at: now,
      updated_at: now,
    })
    .onConflict(['kind', 'job_key'])
    .merge({ run_at: now, version: db.raw('jobs.version + 1'), updated_at: now });
}

/** Which of `kinds` have no row with `key` (recurring jobs not scheduled yet). */
export async function missingJobs(db: Knex | Knex.Transaction, kinds: string[], key: string): Promise<Set<string>> {
  if (!kinds.length) return new Set();
  const found = new Set<string>(await db('jobs').whereIn('kind', kinds).where({ job_key: key }).pluck('kind'));
  return new Set(kinds.filter((k) => !found.has(k)));
}

/** Creates a (kind, key) row due at `runAt` unless it exists (recurring jobs keep one row each). */
export async function ensureJob(db: Knex | Knex.Transaction, kind: string, key: string, runAt: number, now: number): Promise<void> {
  await db('jobs')
    .insert({ kind, job_key: key, payload: null, run_at: runAt, attempts: 0, version: 0, created_at: now, updated_at: now })
    .onConflict(['kind', 'job_key'])
    .ignore();
}
