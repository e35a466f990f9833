// Claims due jobs under a lease: rows whose run_at has come and that nobody holds (or whose
// holder's lease ran out, e.g. a process that died). MySQL skips rows other claimers are locking;
// SQLite has a single writer, so the conditional UPDATE alone decides.
//
// Jobs with a lane are claimed by lane: the claimer leases the lane (its `job_lanes` row, which
// MySQL claimers lock with SKIP LOCKED, so two claimers never take one lane) and then up to a
// batch of the lane's due jobs, oldest due first, then by id. A lane whose lease has not run out is
// skipped, so one worker at a time runs a lane's jobs and they run in order.

import type { Knex } from 'knex';
import type { Dialect } from '../../db/connection.js';
import { inTransaction, retrying } from '../../db/connection.js';
import { claimedJobOf, type ClaimedJob } from './job.js';

export interface ClaimOptions {
  workerId: string;
  now: number;
  leaseMs: number;
  /** Runs to claim: a job without a lane is one run, the batch of one lane is one run. */
  limit: number;
  /** How many due jobs of one lane a run takes when the lane's oldest due job is of `kind` (default 1). */
  batchOf?: (kind: string) => number;
  /** The largest batch any kind takes: how many rows of one lane to read. */
  maxBatch?: number;
  /** Which jobs this claimer takes (default: all). */
  scope?: ClaimScope;
}

/**
 * A share of the queue: the lanes whose names start with one of `lanePrefixes`, and the jobs
 * without a lane that match one of `singles` (a kind, and a key when given). A claimer takes
 * `only` that share, or everything `except` it, so two workers of one process split the queue
 * between them (the webhook deliveries run on a thread of their own).
 */
export interface ClaimScope {
  mode: 'only' | 'except';
  lanePrefixes: string[];
  singles: Array<{ kind: string; key?: string }>;
}

/** `q` narrowed to the lanes of `scope` (its lane column named `column`). */
function scopedLanes(q: Knex.QueryBuilder, scope: ClaimScope | undefined, column: string): Knex.QueryBuilder {
  if (!scope) return q;
  const match = (w: Knex.QueryBuilder) => {
    if (!scope.lanePrefixes.length) w.whereRaw('1 = 0');
    for (const prefix of scope.lanePrefixes) w.orWhereRaw('substr(??, 1, ?) = ?', [column, prefix.length, prefix]);
  };
  return scope.mode === 'only' ? q.where(match) : q.whereNot(match);
}

/** `q` narrowed to the jobs without a lane of `scope`. */
function scopedSingles(q: Knex.QueryBuilder, scope: ClaimScope | undefined): Knex.QueryBuilder {
  if (!scope) return q;
  const match = (w: Knex.QueryBuilder) => {
    if (!scope.singles.length) w.whereRaw('1 = 0');
    for (const s of scope.singles) w.orWhere(s.key === undefined ? { kind: s.kind } : { kind: s.kind, job_key: s.key });
  };
  return scope.mode === 'only' ? q.where(match) : q.whereNot(match);
}

/** Leased lanes at most this many times the room are looked at per claim. */
const LANE_CANDIDATES = 4;

/**
 * Claims up to `limit` runs for `workerId`, oldest due first: jobs without a lane one each, and
 * the jobs of one lane together (they come out next to each other, in the order to run them).
 */
export async function claimJobs(knex: Knex, dialect: Dialect, o: ClaimOptions): Promise<ClaimedJob[]> {
  if (o.limit <= 0) return [];
  const until = o.now + o.leaseMs;
  const mysql = dialect === 'mysql';
  const free = (q: Knex.QueryBuilder) =>
    q
      .whereNotNull('run_at')
      .where('run_at', '<=', o.now)
      .where((w) => w.whereNull('locked_until').orWhere('locked_until', '<', o.now));
  const freeLane = (q: Knex.QueryBuilder) => q.where((w) => w.whereNull('locked_until').orWhere('locked_until', '<', o.now));

  // Lanes nobody holds whose earliest scheduled job is due, oldest due first: a plain read of the
  // lane rows, the first row of each lane in the jobs (lane, run_at) index, never a scan of every due job
  // (a queue of thousands of due deliveries made each claim scan them all). Every lane has its
  // row: scheduleJob creates it with the lane's first job.
  const earliest = knex('jobs').whereRaw('jobs.lane = l.lane').whereNotNull('jobs.run_at').orderBy('jobs.run_at').limit(1).select('jobs.run_at');
  const lanes: Array<{ lane: string; due: number }> = (
    await knex
      .select('lane', 'due')
      .from(
        scopedLanes(freeLane(knex('job_lanes as l')), o.scope, 'l.lane')
          .select('l.lane', earliest.as('due'))
          .as('d'),
      )
      .where('due', '<=', o.now)
      .orderBy('due')
      .limit(o.limit * LANE_CANDIDATES)
  ).map((r: { lane: string; due: number | string }) => ({ lane: r.lane, due: Number(r.due) }));

  // READ COMMITTED on MySQL: a claim's scan keeps no lock on the rows it passed over (under
  // REPEATABLE READ it would, and another claimer waiting on a lane's next job would meet it).
  const claim = (work: (trx: Knex.Transaction) => Promise<ClaimedJob[]>) =>
    mysql ? retrying(() => knex.transaction(work, { isolationLevel: 'read committed' })) : inTransaction(knex, work);
  return claim(async (trx) => {
    const pick = scopedSingles(free(trx('jobs')).whereNull('lane'), o.scope)
      .orderBy('run_at')
      .limit(o.limit)
      .select('id', 'run_at');
    const single: Array<{ id: number; due: number }> = (await (mysql ? pick.forUpdate().skipLocked() : pick)).map((r: { id: number; run_at: number }) => ({
      id: Number(r.id),
      due: Number(r.run_at),
    }));

    let lockable: string[] = [];
    if (lanes.length) {
      const q = freeLane(trx('job_lanes')).whereIn(
        'lane',
        lanes.map((l) => l.lane),
      );
      const got = new Set((await (mysql ? q.forUpdate().skipLocked() : q).select('lane')).map((r: { lane: string }) => r.lane));
      lockable = lanes.filter((l) => got.has(l.lane)).map((l) => l.lane);
    }

    // The oldest due runs, single jobs and lanes alike, up to the limit.
    const dueOfLane = new Map(lanes.map((l) => [l.lane, l.due]));
    const runs = [
      ...single.map((s) => ({ due: s.due, id: s.id, lane: null as string | null })),
      ...lockable.map((l) => ({ due: dueOfLane.get(l)!, id: 0, lane: l })),
    ]
      .sort((a, b) => a.due - b.due || a.id - b.id)
      .slice(0, o.limit);
    const ids = runs.filter((r) => r.lane === null).map((r) => r.id);
    const chosenLanes = runs.filter((r) => r.lane !== null).map((r) => r.lane as string);
    const laneJobs = new Map<string, number[]>();
    for (const lane of chosenLanes) {
      // Locked in order, waiting for a row another transaction holds for a moment rather than
      // skipping it: a lane's jobs run in order.
      const q = free(trx('jobs'))
        .where({ lane })
        .orderBy([{ column: 'run_at' }, { column: 'id' }])
        .limit(Math.max(1, o.maxBatch ?? 1))
        .select('id', 'kind');
      const rows: Array<{ id: number; kind: string }> = await (mysql ? q.forUpdate() : q);
      if (!rows.length) continue;
      const size = Math.max(1, o.batchOf?.(rows[0].kind) ?? 1);
      const taken: number[] = [];
      for (const r of rows) {
        if (r.kind !== rows[0].kind || taken.length >= size) break;
        taken.push(Number(r.id));
      }
      laneJobs.set(lane, taken);
    }
    if (laneJobs.size) {
      const leased = [...laneJobs.keys()];
      // MySQL holds the lane rows from the select above; on SQLite the condition decides. Either
      // way a lane not leased here is dropped (looked up only when fewer rows changed than asked).
      const n = await freeLane(trx('job_lanes').whereIn('lane', leased)).update({ locked_by: o.workerId, locked_until: until });
      if (n < leased.length) {
        const held = new Set(await trx('job_lanes').whereIn('lane', leased).where({ locked_by: o.workerId, locked_until: until }).pluck('lane'));
        for (const lane of leased) if (!held.has(lane)) laneJobs.delete(lane);
      }
    }

    const all = [...ids, ...[...laneJobs.values()].flat()];
    if (!all.length) return [];
    // MySQL already holds these rows from the selects: updating by id alone locks nothing more. SQLite's single writer needs the condition
    // checked again in the update.
    const picked = trx('jobs').whereIn('id', all);
    await (mysql ? picked : free(picked)).update({ locked_by: o.workerId, locked_until: until, updated_at: o.now });
    const rows = new Map<number, ClaimedJob>(
      (await trx('jobs').whereIn('id', all).where({ locked_by: o.workerId, locked_until: until })).map((r: Record<string, unknown>) => {
        const job = claimedJobOf(r);
        return [job.id, job];
      }),
    );
    const out: ClaimedJob[] = [];
    for (const r of runs) {
      const group = r.lane === null ? [r.id] : (laneJobs.get(r.lane) ?? []);
      for (const id of group) if (rows.has(id)) out.push(rows.get(id)!);
    }
    return out;
  });
}

/** Gives a lane back once its run is recorded, unless the lease was lost to another claimer. */
export async function releaseLane(knex: Knex, lane: string, lockedBy: string): Promise<void> {
  await retrying(() => knex('job_lanes').where({ lane, locked_by: lockedBy }).update({ locked_by: null, locked_until: null }));
}
