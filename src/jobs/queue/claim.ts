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
import { inList, prepared } from '../../db/prepared.js';
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
 * between them (the webhook deliveries run on threads of their own).
 */
export interface ClaimScope {
  mode: 'only' | 'except';
  lanePrefixes: string[];
  singles: Array<{ kind: string; key?: string }>;
  /**
   * With `only`: of those lanes, the ones whose number after the prefix (an endpoint id) is `index`
   * modulo `count`. N claimers with indexes 0..N-1 split the lanes, and a lane always goes to the same one.
   */
  shard?: { count: number; index: number };
}

/** SQL narrowing `column` (a lane) to `scope`, with its parameters; empty without a scope. */
function laneScopeSql(scope: ClaimScope | undefined, column: string, dialect: Dialect): { sql: string; params: unknown[] } {
  if (!scope) return { sql: '', params: [] };
  if (!scope.lanePrefixes.length) return { sql: scope.mode === 'only' ? ' and 1 = 0' : '', params: [] };
  const int = dialect === 'mysql' ? 'unsigned' : 'integer';
  const shard = scope.mode === 'only' ? scope.shard : undefined;
  const parts: string[] = [];
  const params: unknown[] = [];
  for (const prefix of scope.lanePrefixes) {
    if (shard) {
      parts.push(`(substr(${column}, 1, ${prefix.length}) = ? and cast(substr(${column}, ${prefix.length + 1}) as ${int}) % ? = ?)`);
      params.push(prefix, shard.count, shard.index);
    } else {
      parts.push(`substr(${column}, 1, ${prefix.length}) = ?`);
      params.push(prefix);
    }
  }
  return { sql: ` and ${scope.mode === 'only' ? '' : 'not '}(${parts.join(' or ')})`, params };
}

/** SQL narrowing jobs without a lane to `scope`, with its parameters. */
function singlesScopeSql(scope: ClaimScope | undefined): { sql: string; params: unknown[] } {
  if (!scope) return { sql: '', params: [] };
  if (!scope.singles.length) return { sql: scope.mode === 'only' ? ' and 1 = 0' : '', params: [] };
  const parts = scope.singles.map((s) => (s.key === undefined ? 'kind = ?' : '(kind = ? and job_key = ?)'));
  const params = scope.singles.flatMap((s) => (s.key === undefined ? [s.kind] : [s.kind, s.key]));
  return { sql: ` and ${scope.mode === 'only' ? '' : 'not '}(${parts.join(' or ')})`, params };
}

/** Leased lanes at most this many times the room are looked at per claim. */
const LANE_CANDIDATES = 4;

/** A job nobody holds whose time has come (parameters: now, now). */
const FREE = 'run_at is not null and run_at <= ? and (locked_until is null or locked_until < ?)';
/** A lane nobody holds (parameter: now). */
const FREE_LANE = '(locked_until is null or locked_until < ?)';

/**
 * Claims up to `limit` runs for `workerId`, oldest due first: jobs without a lane one each, and
 * the jobs of one lane together (they come out next to each other, in the order to run them).
 * Every statement is a prepared one (src/db/prepared.ts): a claim runs after every emit.
 */
export async function claimJobs(knex: Knex, dialect: Dialect, o: ClaimOptions): Promise<ClaimedJob[]> {
  if (o.limit <= 0) return [];
  const until = o.now + o.leaseMs;
  const mysql = dialect === 'mysql';
  const lock = mysql ? ' for update skip locked' : '';
  const laneScope = laneScopeSql(o.scope, 'l.lane', dialect);

  // Lanes nobody holds whose earliest scheduled job is due, oldest due first: a plain read of the
  // lane rows, the first row of each lane in the jobs (lane, run_at) index, never a scan of every due job
  // (a queue of thousands of due deliveries made each claim scan them all). Every lane has its
  // row: scheduleJob creates it with the lane's first job.
  const lanes = (
    await prepared(
      knex,
      'select lane, due from (select l.lane as lane, (select j.run_at from jobs j where j.lane = l.lane and j.run_at is not null order by j.run_at limit 1) as due ' +
        `from job_lanes l where (l.locked_until is null or l.locked_until < ?)${laneScope.sql}) d where due <= ? order by due limit ${o.limit * LANE_CANDIDATES}`,
      [o.now, ...laneScope.params, o.now],
    )
  ).rows.map((r) => ({ lane: String(r.lane), due: Number(r.due) }));

  // READ COMMITTED on MySQL: a claim's scan keeps no lock on the rows it passed over (under
  // REPEATABLE READ it would, and another claimer waiting on a lane's next job would meet it).
  const claim = (work: (trx: Knex.Transaction) => Promise<ClaimedJob[]>) =>
    mysql ? retrying(() => knex.transaction(work, { isolationLevel: 'read committed' })) : inTransaction(knex, work);
  return claim(async (trx) => {
    const singles = singlesScopeSql(o.scope);
    const single = (
      await prepared(trx, `select id, run_at from jobs where ${FREE} and lane is null${singles.sql} order by run_at limit ${o.limit}${lock}`, [
        o.now,
        o.now,
        ...singles.params,
      ])
    ).rows.map((r) => ({ id: Number(r.id), due: Number(r.run_at) }));

    let lockable: string[] = [];
    if (lanes.length) {
      const names = inList(lanes.map((l) => l.lane));
      const got = new Set(
        (await prepared(trx, `select lane from job_lanes where ${FREE_LANE} and lane in (${names.marks})${lock}`, [o.now, ...names.params])).rows.map((r) =>
          String(r.lane),
        ),
      );
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
      const rows = (
        await prepared(
          trx,
          `select id, kind from jobs where ${FREE} and lane = ? order by run_at, id limit ${Math.max(1, o.maxBatch ?? 1)}${mysql ? ' for update' : ''}`,
          [o.now, o.now, lane],
        )
      ).rows;
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
      const leased = inList([...laneJobs.keys()]);
      // MySQL holds the lane rows from the select above; on SQLite the condition decides. Either
      // way a lane not leased here is dropped (looked up only when fewer rows changed than asked).
      const n = (
        await prepared(trx, `update job_lanes set locked_by = ?, locked_until = ? where ${FREE_LANE} and lane in (${leased.marks})`, [
          o.workerId,
          until,
          o.now,
          ...leased.params,
        ])
      ).changes;
      if (n < laneJobs.size) {
        const held = new Set(
          (
            await prepared(trx, `select lane from job_lanes where lane in (${leased.marks}) and locked_by = ? and locked_until = ?`, [
              ...leased.params,
              o.workerId,
              until,
            ])
          ).rows.map((r) => String(r.lane)),
        );
        for (const lane of [...laneJobs.keys()]) if (!held.has(lane)) laneJobs.delete(lane);
      }
    }

    const all = [...ids, ...[...laneJobs.values()].flat()];
    if (!all.length) return [];
    // MySQL already holds these rows from the selects: updating by id alone locks nothing more. SQLite's single writer needs the condition
    // checked again in the update.
    const picked = inList(all);
    await prepared(
      trx,
      `update jobs set locked_by = ?, locked_until = ?, updated_at = ? where id in (${picked.marks})${mysql ? '' : ` and ${FREE}`}`,
      mysql ? [o.workerId, until, o.now, ...picked.params] : [o.workerId, until, o.now, ...picked.params, o.now, o.now],
    );
    const rows = new Map<number, ClaimedJob>(
      (
        await prepared(trx, `select * from jobs where id in (${picked.marks}) and locked_by = ? and locked_until = ?`, [...picked.params, o.workerId, until])
      ).rows.map((r) => {
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
  await retrying(() => prepared(knex, 'update job_lanes set locked_by = null, locked_until = null where lane = ? and locked_by = ?', [lane, lockedBy]));
}
