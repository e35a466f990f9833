// Where a tracker's baseUrl came from (operator: the bootstrap file; caller: the API), so every
// send knows which outbound address rule applies, and the tracker push runs as resources: one row
// per cycle with its progress and outcome, read while the cycle goes on.

import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('tracker_connections', (t) => {
    // Rows from before this release are treated as a caller's: the stricter rule.
    t.string('base_url_origin', 16).notNullable().defaultTo('caller');
  });

  await knex.schema.createTable('tracker_push_runs', (t) => {
    t.bigIncrements('id').primary();
    t.integer('brand_id').unsigned().notNullable().references('brands.id');
    t.string('trigger', 16).notNullable();
    t.string('status', 16).notNullable();
    t.bigInteger('started_at').notNullable();
    t.bigInteger('finished_at').nullable();
    t.integer('progress_done').notNullable().defaultTo(0);
    t.integer('progress_total').notNullable().defaultTo(0);
    t.text('pushed').notNullable();
    t.text('skipped').notNullable();
    t.text('drift').notNullable();
    t.text('error').nullable();
    t.index(['brand_id', 'status'], 'tracker_push_runs_brand_status');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('tracker_push_runs');
  await knex.schema.alterTable('tracker_connections', (t) => t.dropColumn('base_url_origin'));
}
