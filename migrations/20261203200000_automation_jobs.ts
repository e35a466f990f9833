// Automations run from the jobs table only: each ACTIVE automation's next run becomes its own
// evaluate-automations job (key: its id, lane `automations:<brandId>:<accountId>`), each action
// waiting for a retry a retry-automation-action job (key `<automationId>:<nodeId>`, same lane, its
// run and action in the payload, its failed retries so far as the job's attempts). The account jobs
// of before (key `<brandId>:<accountId>`), `automations.next_run_at` and `automation_pending_actions`
// go.

import type { Knex } from 'knex';

const lane = (brandId: number | string, accountId: string) => `automations:${Number(brandId)}:${accountId}`;

export async function up(knex: Knex): Promise<void> {
  const now = Date.now();
  const automations: Array<{ id: number; brand_id: number; account_id: string; next_run_at: number | string }> = await knex('automations')
    .where({ status: 'ACTIVE' })
    .whereNotNull('next_run_at')
    .select('id', 'brand_id', 'account_id', 'next_run_at');
  const pending: Array<Record<string, any>> = await knex('automation_pending_actions').select();
  const rows = [
    ...automations.map((a) => ({
      kind: 'evaluate-automations',
      job_key: String(a.id),
      lane: lane(a.brand_id, a.account_id),
      payload: null,
      run_at: Number(a.next_run_at),
      attempts: 0,
      last_error: null,
    })),
    ...pending.map((p) => ({
      kind: 'retry-automation-action',
      job_key: `${Number(p.automation_id)}:${p.node_id}`,
      lane: lane(p.brand_id, p.account_id),
      payload: JSON.stringify({ runId: Number(p.run_id), action: p.action }),
      run_at: Number(p.next_attempt_at),
      // The first attempt was in the run; the job counts the failed retries.
      attempts: Math.max(0, Number(p.attempts) - 1),
      last_error: p.last_error ?? null,
    })),
  ];
  // The account jobs of before: their key names an account, not an automation.
  await knex('jobs').where({ kind: 'evaluate-automations' }).where('job_key', 'like', '%:%').delete();
  for (let i = 0; i < rows.length; i += 200) {
    await knex('jobs')
      .insert(rows.slice(i, i + 200).map((r) => ({ ...r, version: 1, created_at: now, updated_at: now })))
      .onConflict(['kind', 'job_key'])
      .ignore();
  }
  await knex.schema.alterTable('automations', (t) => t.dropIndex(['brand_id', 'account_id', 'status', 'next_run_at']));
  await knex.schema.alterTable('automations', (t) => t.dropColumn('next_run_at'));
  await knex.schema.dropTable('automation_pending_actions');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.createTable('automation_pending_actions', (t) => {
    t.bigIncrements('id').primary();
    t.integer('automation_id').unsigned().notNullable();
    t.bigInteger('run_id').unsigned().notNullable();
    t.integer('brand_id').unsigned().notNullable();
    t.string('account_id', 64).notNullable();
    t.string('node_id', 40).notNullable();
    t.string('object_id', 64).notNullable();
    t.string('action', 16).notNullable();
    t.integer('attempts').notNullable().defaultTo(1);
    t.text('last_error').nullable();
    t.bigInteger('next_attempt_at').notNullable();
    t.bigInteger('created_at').notNullable();
    t.unique(['automation_id', 'node_id']);
    t.index(['account_id', 'next_attempt_at']);
  });
  await knex.schema.alterTable('automations', (t) => t.bigInteger('next_run_at').nullable());
  // Back to one row per automation's next run (the action jobs are dropped: their retries are lost).
  const jobs: Array<{ job_key: string; run_at: number | string | null }> = await knex('jobs')
    .where({ kind: 'evaluate-automations' })
    .select('job_key', 'run_at');
  for (const j of jobs)
    await knex('automations')
      .where({ id: Number(j.job_key) })
      .update({ next_run_at: j.run_at === null ? null : Number(j.run_at) });
  await knex('jobs').whereIn('kind', ['evaluate-automations', 'retry-automation-action']).delete();
  await knex.schema.alterTable('automations', (t) => t.index(['brand_id', 'account_id', 'status', 'next_run_at']));
}
