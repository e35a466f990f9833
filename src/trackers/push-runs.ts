// A tracker push run: one push cycle as a resource (contract: `run-tracker-push` answers 202 with it,
// `get-tracker-push-run` reads it). The cycle writes its progress here as it goes, so a caller can
// follow it; pushed costs, skipped campaigns and the drift read back after a final push are kept.

import type { Knex } from 'knex';

/** One cost the run set in the tracker (the wire view drops costMinorUnits and sub3Filter). */
export interface PushedCost {
  providerCampaignId: string;
  trackerCampaignId: string;
  date: string;
  final: boolean;
  costMinorUnits: number;
  cost: string;
  currency: string;
  timezone: string;
  sub3Filter: string | null;
}

/** Spend drift after a final push: what the ad platform reported against what the tracker holds. */
export interface Drift {
  providerCampaignId: string;
  trackerCampaignId: string;
  date: string;
  platformMinorUnits: number;
  trackerMinorUnits: number;
  /** trackerMinorUnits - platformMinorUnits: 0 when the tracker holds exactly the pushed spend. */
  differenceMinorUnits: number;
}

export type RunTrigger = 'manual' | 'schedule';
export type RunStatus = 'running' | 'succeeded' | 'failed';

/** What a run has done so far. */
export interface RunState {
  pushed: PushedCost[];
  skipped: Array<{ providerCampaignId: string; reason: string }>;
  drift: Drift[];
  done: number;
  total: number;
}

export interface PushRunRow {
  id: number;
  brand_id: number;
  trigger: RunTrigger;
  status: RunStatus;
  started_at: number | string;
  finished_at: number | string | null;
  progress_done: number;
  progress_total: number;
  pushed: string;
  skipped: string;
  drift: string;
  error: string | null;
}

const iso = (ms: number | string | null) => (ms === null ? null : new Date(Number(ms)).toISOString());

/** Starts a run of the brand (status running, nothing done yet); answers its id. */
export async function startPushRun(db: Knex | Knex.Transaction, brandId: number, trigger: RunTrigger, now: number): Promise<number> {
  const [id] = await db('tracker_push_runs').insert({
    brand_id: brandId,
    trigger,
    status: 'running',
    started_at: now,
    progress_done: 0,
    progress_total: 0,
    pushed: '[]',
    skipped: '[]',
    drift: '[]',
  });
  return Number(id);
}

/** Writes what the run has done so far. */
export async function saveRunProgress(db: Knex | Knex.Transaction, runId: number, s: RunState): Promise<void> {
  await db('tracker_push_runs')
    .where({ id: runId })
    .update({
      progress_done: s.done,
      progress_total: s.total,
      pushed: JSON.stringify(s.pushed),
      skipped: JSON.stringify(s.skipped),
      drift: JSON.stringify(s.drift),
    });
}

/** Ends the run as `status`, with what it did and why it failed. */
export async function finishRun(
  db: Knex | Knex.Transaction,
  runId: number,
  s: RunState,
  status: Exclude<RunStatus, 'running'>,
  error: string | null,
  now: number,
): Promise<void> {
  await saveRunProgress(db, runId, s);
  await db('tracker_push_runs')
    .where({ id: runId })
    .update({ status, error: error?.slice(0, 2000) ?? null, finished_at: now });
}

/** The brand's run still going (the oldest), or null. */
export async function runningRun(db: Knex | Knex.Transaction, brandId: number): Promise<PushRunRow | null> {
  return (await db('tracker_push_runs').where({ brand_id: brandId, status: 'running' }).orderBy('id').first()) ?? null;
}

/** Run `runId` of the brand, or null (a run of another brand answers as a missing one). */
export async function loadRun(db: Knex | Knex.Transaction, brandId: number, runId: number): Promise<PushRunRow | null> {
  return (await db('tracker_push_runs').where({ id: runId, brand_id: brandId }).first()) ?? null;
}

/** The contract's push run. */
export function runView(r: PushRunRow) {
  const pushed = JSON.parse(r.pushed) as PushedCost[];
  return {
    runId: Number(r.id),
    brandId: Number(r.brand_id),
    status: r.status,
    trigger: r.trigger,
    startedAt: iso(r.started_at)!,
    finishedAt: iso(r.finished_at),
    progress: { done: Number(r.progress_done), total: Number(r.progress_total) },
    pushed: pushed.map((p) => ({
      providerCampaignId: p.providerCampaignId,
      trackerCampaignId: p.trackerCampaignId,
      date: p.date,
      final: p.final,
      cost: p.cost,
      currency: p.currency,
      timezone: p.timezone,
    })),
    skipped: JSON.parse(r.skipped) as RunState['skipped'],
    error: r.error ?? null,
    drift: JSON.parse(r.drift) as Drift[],
  };
}
