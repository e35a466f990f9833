// Workflows: definitions (a trigger and a graph of steps), their executions with one result row per
// node, and the stored read position of the event-driven triggers. Timestamps are integer ms (UTC).
// Pipeline columns and automations named by triggers are plain integers (their tables are separate).

import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('workflows', (t) => {
    t.increments('id').primary();
    t.integer('organization_id').unsigned().notNullable().references('organizations.id');
    t.integer('brand_id').unsigned().notNullable().references('brands.id');
    t.string('name', 200).notNullable();
    t.string('type', 64).notNullable();
    t.string('status', 16).notNullable();
    t.string('trigger_kind', 32).notNullable();
    t.text('trigger').notNullable();
    t.text('nodes', 'mediumtext').notNullable();
    t.text('edges', 'mediumtext').notNullable();
    // Every brand the trigger and steps reach (JSON array); a brand-limited key sees the workflow only when it covers them all.
    t.text('reach_brand_ids').notNullable();
    t.boolean('acts').notNullable().defaultTo(false);
    t.string('created_by_kind', 16).notNullable();
    // Whose credential a trigger-started run uses: the last saver's key or OAuth grant.
    t.string('owner_kind', 16).notNullable();
    t.integer('owner_api_key_id').unsigned().nullable();
    t.bigInteger('owner_grant_id').unsigned().nullable();
    t.string('owner_label', 255).notNullable();
    t.integer('version').notNullable().defaultTo(1);
    t.string('hook_id', 64).nullable().unique();
    t.text('hook_secret_sealed').nullable();
    t.integer('trigger_column_id').unsigned().nullable();
    t.integer('trigger_automation_id').unsigned().nullable();
    t.bigInteger('next_run_at').nullable();
    // When the trigger was last armed: events from before it start nothing.
    t.bigInteger('armed_at').nullable();
    t.integer('run_count').notNullable().defaultTo(0);
    t.bigInteger('last_run_at').nullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
    t.index(['brand_id', 'id']);
    t.index(['status', 'trigger_kind', 'next_run_at']);
    t.index(['organization_id', 'trigger_column_id']);
    t.index(['organization_id', 'trigger_automation_id']);
  });

  await knex.schema.createTable('workflow_executions', (t) => {
    t.bigIncrements('id').primary();
    t.integer('organization_id').unsigned().notNullable();
    t.integer('brand_id').unsigned().notNullable();
    t.integer('workflow_id').unsigned().notNullable().references('workflows.id').onDelete('CASCADE');
    t.string('status', 16).notNullable();
    t.string('trigger_kind', 32).notNullable();
    // What started it, unique per workflow (an event id, a schedule time, a hook message id), so a start happens once.
    t.string('trigger_key', 191).nullable();
    t.text('trigger_data', 'mediumtext').nullable();
    t.string('runner_kind', 16).notNullable();
    t.integer('runner_api_key_id').unsigned().nullable();
    t.bigInteger('runner_grant_id').unsigned().nullable();
    t.integer('runner_user_id').unsigned().nullable();
    t.string('runner_label', 255).notNullable();
    // The definition as it was when the run started: later saves do not change a run under way.
    t.text('definition', 'mediumtext').notNullable();
    t.text('error').nullable();
    t.bigInteger('started_at').notNullable();
    t.bigInteger('finished_at').nullable();
    t.bigInteger('updated_at').notNullable();
    t.unique(['workflow_id', 'trigger_key']);
    t.index(['workflow_id', 'id']);
  });

  await knex.schema.createTable('workflow_node_results', (t) => {
    t.bigIncrements('id').primary();
    t.bigInteger('execution_id').unsigned().notNullable().references('workflow_executions.id').onDelete('CASCADE');
    t.string('node_id', 64).notNullable();
    t.string('status', 16).notNullable();
    t.text('result', 'mediumtext').nullable();
    t.text('error').nullable();
    t.bigInteger('started_at').nullable();
    t.bigInteger('finished_at').nullable();
    // When a waiting review gate times out.
    t.bigInteger('deadline_at').nullable();
    t.unique(['execution_id', 'node_id']);
  });

  // Where each event-reading trigger stopped (one row per reader).
  await knex.schema.createTable('workflow_trigger_positions', (t) => {
    t.string('name', 64).primary();
    t.bigInteger('position').notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('workflow_trigger_positions');
  await knex.schema.dropTableIfExists('workflow_node_results');
  await knex.schema.dropTableIfExists('workflow_executions');
  await knex.schema.dropTableIfExists('workflows');
}
