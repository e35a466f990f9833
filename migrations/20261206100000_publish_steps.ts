// A publish as a recoverable state machine: each launch remembers its publish attempt, what that
// attempt needs to be carried on by another process (who asked, the accounts, the amounts) and
// whether it is rolling back; `publish_steps` records each platform step before (intent) and after
// (result), so a resume or a rollback knows what was attempted and what was deleted.

import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('launches', (t) => {
    t.integer('publish_attempt').notNullable().defaultTo(0);
    t.text('publish_plan').nullable();
    t.bigInteger('rollback_started_at').nullable();
    t.string('publish_owner', 64).nullable();
  });
  await knex.schema.createTable('publish_steps', (t) => {
    t.increments('id').primary();
    t.integer('launch_id').unsigned().notNullable();
    t.integer('attempt').notNullable();
    t.string('action', 16).notNullable();
    t.string('level', 16).nullable();
    t.string('account_id', 64).nullable();
    t.text('node_ids').notNullable();
    t.text('platform_ids').nullable();
    t.string('state', 16).notNullable();
    t.string('detail', 2000).nullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
    t.index(['launch_id', 'attempt']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('publish_steps');
  await knex.schema.alterTable('launches', (t) => {
    t.dropColumn('publish_attempt');
    t.dropColumn('publish_plan');
    t.dropColumn('rollback_started_at');
    t.dropColumn('publish_owner');
  });
}
