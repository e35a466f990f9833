// Who causes what an automation's run sets off (paths.md "Who may cause a publish"): the credential
// that last saved an automation (a scheduled run's cause), and whether a run's cause held `publish`
// (a monitor workflow it starts may launch or change a budget only then). Automations saved before
// this have no saver recorded: their scheduled runs count as caused without `publish` until saved again.

import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('automations', (t) => {
    t.string('saved_by_kind', 16).nullable();
    t.integer('saved_by_api_key_id').nullable();
    t.integer('saved_by_grant_id').nullable();
  });
  await knex.schema.alterTable('automation_runs', (t) => {
    t.boolean('cause_publish').notNullable().defaultTo(false);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('automation_runs', (t) => {
    t.dropColumn('cause_publish');
  });
  await knex.schema.alterTable('automations', (t) => {
    t.dropColumn('saved_by_kind');
    t.dropColumn('saved_by_api_key_id');
    t.dropColumn('saved_by_grant_id');
  });
}
