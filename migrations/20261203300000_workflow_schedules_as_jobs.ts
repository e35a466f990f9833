// A schedule-triggered workflow's next run becomes a job (kind `workflow-schedule`, key = the
// workflow id, due at the next cron time, its payload naming that time): the jobs table is the one
// schedule store. Active schedules move their `next_run_at` into jobs; the column and its index go.

import type { Knex } from 'knex';

const KIND = 'workflow-schedule';

export async function up(knex: Knex): Promise<void> {
  const now = Date.now();
  const due: Array<{ id: number; next_run_at: number | string }> = await knex('workflows')
    .where({ status: 'active', trigger_kind: 'schedule' })
    .whereNotNull('next_run_at')
    .select('id', 'next_run_at');
  for (const w of due) {
    const at = Number(w.next_run_at);
    await knex('jobs')
      .insert({ kind: KIND, job_key: String(w.id), payload: JSON.stringify({ at }), run_at: at, attempts: 0, version: 1, created_at: now, updated_at: now })
      .onConflict(['kind', 'job_key'])
      .ignore();
  }
  await knex.schema.alterTable('workflows', (t) => {
    t.dropIndex(['status', 'trigger_kind', 'next_run_at']);
  });
  await knex.schema.alterTable('workflows', (t) => {
    t.dropColumn('next_run_at');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('workflows', (t) => {
    t.bigInteger('next_run_at').nullable();
    t.index(['status', 'trigger_kind', 'next_run_at']);
  });
  const jobs: Array<{ job_key: string; run_at: number | string | null }> = await knex('jobs').where({ kind: KIND }).select('job_key', 'run_at');
  for (const j of jobs) {
    await knex('workflows')
      .where({ id: Number(j.job_key) })
      .update({ next_run_at: j.run_at === null ? null : Number(j.run_at) });
  }
  await knex('jobs').where({ kind: KIND }).delete();
}
