// What the queue holds now, for the metrics scrape: one grouped read over the due rows (the run_at
// index), never kept in step by the runs themselves.

import type { Knex } from 'knex';

export interface ReadyKind {
  kind: string;
  /** Due jobs nobody holds. */
  ready: number;
  /** Epoch ms of the oldest due run_at among them. */
  oldestDue: number;
}

/** Due, unheld jobs by kind: how many, and since when the oldest has waited. */
export async function readyJobsByKind(knex: Knex, now: number): Promise<ReadyKind[]> {
  const rows: Array<{ kind: string; ready: number | string; oldest: number | string }> = await knex('jobs')
    .whereNotNull('run_at')
    .where('run_at', '<=', now)
    .where((w) => w.whereNull('locked_until').orWhere('locked_until', '<', now))
    .groupBy('kind')
    .select('kind')
    .count({ ready: '*' })
    .min({ oldest: 'run_at' });
  return rows.map((r) => ({ kind: r.kind, ready: Number(r.ready), oldestDue: Number(r.oldest) }));
}
