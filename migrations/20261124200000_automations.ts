// Monitoring automations: the rules, their runs (every object evaluated, as JSON), the ledger of
// actions they took (cooldown, daily limit, loop detection), the objects each one holds paused
// (so a resume only ever turns on what this automation paused) and actions waiting for a retry.

import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('automations', (t) => {
    t.increments('id').primary();
    t.integer('organization_id').unsigned().notNullable().references('organizations.id');
    t.integer('brand_id').unsigned().notNullable().references('brands.id');
    t.string('account_id', 64).notNullable();
    t.string('name', 200).notNullable();
    t.string('status', 16).notNullable();
    t.string('level', 16).notNullable();
    t.string('action', 24).notNullable();
    t.string('frequency', 24).notNullable();
    t.string('mode', 16).notNullable();
    // The rest of the rule (objectIds, conditions, guard, dailyHour, cooldown, limits), as sent.
    t.text('rule').notNullable();
    t.integer('created_by_user_id').unsigned().notNullable().defaultTo(0);
    t.bigInteger('next_run_at').nullable();
    t.bigInteger('last_run_at').nullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
    t.index(['brand_id', 'id']);
    t.index(['brand_id', 'account_id', 'status', 'next_run_at']);
  });

  await knex.schema.createTable('automation_runs', (t) => {
    t.bigIncrements('id').primary();
    t.integer('automation_id').unsigned().notNullable();
    t.integer('brand_id').unsigned().notNullable();
    t.string('trigger', 16).notNullable();
    t.string('mode', 16).notNullable();
    t.bigInteger('started_at').notNullable();
    t.bigInteger('finished_at').notNullable();
    t.text('objects', 'mediumtext').notNullable();
    t.index(['automation_id', 'id']);
  });

  await knex.schema.createTable('automation_actions', (t) => {
    t.bigIncrements('id').primary();
    t.integer('automation_id').unsigned().notNullable();
    t.bigInteger('run_id').unsigned().notNullable();
    t.string('account_id', 64).notNullable();
    t.string('object_id', 64).notNullable();
    t.string('action', 16).notNullable();
    t.bigInteger('at').notNullable();
    t.index(['account_id', 'at']);
    t.index(['automation_id', 'at']);
  });

  await knex.schema.createTable('automation_holds', (t) => {
    t.bigIncrements('id').primary();
    t.integer('automation_id').unsigned().notNullable();
    t.string('account_id', 64).notNullable();
    t.string('node_id', 40).notNullable();
    t.string('object_id', 64).notNullable();
    // The node's updated_at right after this automation paused it: any later change is someone else's.
    t.bigInteger('node_updated_at').notNullable();
    t.bigInteger('paused_at').notNullable();
    t.unique(['automation_id', 'node_id']);
    t.index(['account_id']);
  });

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

  // The engine reads an account's live objects of one level every cycle.
  await knex.schema.alterTable('launch_nodes', (t) => t.index(['account_id', 'status', 'node_type'], 'launch_nodes_account_status_type_index'));
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('launch_nodes', (t) => t.dropIndex(['account_id', 'status', 'node_type'], 'launch_nodes_account_status_type_index'));
  for (const table of ['automation_pending_actions', 'automation_holds', 'automation_actions', 'automation_runs', 'automations']) {
    await knex.schema.dropTableIfExists(table);
  }
}
