// Webhook deliveries become jobs: each pending delivery gets a `deliver-webhook` job (key = the
// delivery id) in its endpoint's lane `webhooks:<endpointId>`, due when its next attempt was, with
// its failed attempts so far (the retry schedule goes on from there). The per-endpoint delivery
// jobs and the sweep job go, and so does `webhook_deliveries.next_attempt_at`: the job row holds
// when a delivery is due. Events reach webhooks through the `webhooks` outbox subscriber, which
// starts after the last event written so far (earlier ones already have their deliveries).

import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  const now = Date.now();
  const pending: Array<{ id: number; endpoint_id: number; attempt_count: number; next_attempt_at: number | null }> = await knex('webhook_deliveries')
    .where({ status: 'pending' })
    .select('id', 'endpoint_id', 'attempt_count', 'next_attempt_at');
  for (let i = 0; i < pending.length; i += 500) {
    await knex('jobs')
      .insert(
        pending.slice(i, i + 500).map((d) => ({
          kind: 'deliver-webhook',
          job_key: String(d.id),
          lane: `webhooks:${d.endpoint_id}`,
          payload: null,
          run_at: d.next_attempt_at === null ? null : Number(d.next_attempt_at),
          attempts: Number(d.attempt_count),
          version: 1,
          created_at: now,
          updated_at: now,
        })),
      )
      .onConflict(['kind', 'job_key'])
      .ignore();
  }
  await knex('jobs').whereIn('kind', ['deliver-webhooks', 'sweep-deliveries']).delete();
  const last = await knex('events').max({ id: 'id' }).first();
  await knex('event_positions')
    .insert({ name: 'webhooks', position: Number(last?.id ?? 0), gaps: '[]', turn: 0, updated_at: now })
    .onConflict('name')
    .ignore();

  await knex.schema.alterTable('webhook_deliveries', (t) => {
    t.dropIndex(['endpoint_id', 'status', 'next_attempt_at']);
    t.dropIndex(['status', 'next_attempt_at']);
  });
  await knex.schema.alterTable('webhook_deliveries', (t) => {
    t.dropColumn('next_attempt_at');
    t.index(['status', 'created_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('webhook_deliveries', (t) => {
    t.dropIndex(['status', 'created_at']);
    t.bigInteger('next_attempt_at').nullable();
  });
  await knex.schema.alterTable('webhook_deliveries', (t) => {
    t.index(['endpoint_id', 'status', 'next_attempt_at']);
    t.index(['status', 'next_attempt_at']);
  });
  const jobs: Array<{ job_key: string; run_at: number | null }> = await knex('jobs').where({ kind: 'deliver-webhook' }).select('job_key', 'run_at');
  for (const j of jobs)
    await knex('webhook_deliveries')
      .where({ id: Number(j.job_key) })
      .update({ next_attempt_at: j.run_at });
  await knex('jobs').where({ kind: 'deliver-webhook' }).delete();
  await knex('event_positions').where({ name: 'webhooks' }).delete();
}
