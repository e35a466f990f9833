// Monitor and pipeline-stage triggers are the `workflows` outbox subscriber instead of the 2 s
// `workflow-triggers` polling job: the subscriber starts where the old reader stood (events after
// it are read again; a start is unique per workflow and event, so none starts twice), the old
// job's row and its read position table go.

import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  const old = await knex('workflow_trigger_positions').where({ name: 'events' }).first('position');
  if (old) {
    await knex('event_positions')
      .insert({ name: 'workflows', position: Number(old.position), gaps: '[]', turn: 0, updated_at: Date.now() })
      .onConflict('name')
      .ignore();
  }
  await knex('jobs').where({ kind: 'workflow-triggers' }).delete();
  await knex.schema.dropTable('workflow_trigger_positions');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.createTable('workflow_trigger_positions', (t) => {
    t.string('name', 64).primary();
    t.bigInteger('position').notNullable();
  });
  const now = await knex('event_positions').where({ name: 'workflows' }).first('position');
  if (now) await knex('workflow_trigger_positions').insert({ name: 'events', position: Number(now.position) });
  await knex('event_positions').where({ name: 'workflows' }).delete();
}
