// The click-tracker integration: the connection's key sealed at rest (shown by its last four
// characters), manual campaign mappings, the spend push setting of each brand, the final push
// already made per ad account, and what the built-in sandbox tracker holds as cost.

import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('tracker_connections', (t) => {
    t.text('api_key_sealed').nullable();
    t.string('api_key_last4', 4).nullable();
    t.bigInteger('updated_at').nullable();
  });

  // Manual mappings only: automatic ones are derived from the tracker's clicks when read.
  await knex.schema.createTable('tracker_mappings', (t) => {
    t.integer('brand_id').unsigned().notNullable().references('brands.id');
    t.string('provider_campaign_id', 64).notNullable();
    t.string('tracker_campaign_id', 64).notNullable();
    t.bigInteger('updated_at').notNullable();
    t.integer('updated_by_user_id').notNullable();
    t.primary(['brand_id', 'provider_campaign_id']);
  });

  await knex.schema.createTable('tracker_push_settings', (t) => {
    t.integer('brand_id').unsigned().primary().references('brands.id');
    t.boolean('enabled').notNullable().defaultTo(false);
    t.string('disabled_reason', 32).nullable();
    t.integer('final_local_hour').notNullable();
    t.integer('request_interval_seconds').notNullable();
    t.bigInteger('last_push_at').nullable();
    t.integer('last_campaigns_pushed').notNullable().defaultTo(0);
    t.text('last_error').nullable();
    t.bigInteger('last_error_at').nullable();
    t.integer('unmatched_count').notNullable().defaultTo(0);
    t.bigInteger('updated_at').notNullable();
  });

  // The last local date whose final spend was pushed, per ad account: the final push runs once a day.
  await knex.schema.createTable('tracker_final_pushes', (t) => {
    t.integer('brand_id').unsigned().notNullable();
    t.string('account_id', 64).notNullable();
    t.string('final_date', 10).notNullable();
    t.bigInteger('pushed_at').notNullable();
    t.primary(['brand_id', 'account_id']);
  });

  // The sandbox tracker's cost store: one row per campaign, date range and sub_id_3 filter ('' = none); a push sets it.
  await knex.schema.createTable('sandbox_tracker_costs', (t) => {
    t.bigIncrements('id').primary();
    t.integer('brand_id').unsigned().notNullable();
    t.string('tracker_campaign_id', 64).notNullable();
    t.string('start_date', 19).notNullable();
    t.string('end_date', 19).notNullable();
    t.string('sub_id_3', 64).notNullable();
    t.string('cost', 32).notNullable();
    t.string('currency', 3).notNullable();
    t.string('timezone', 64).notNullable();
    t.bigInteger('updated_at').notNullable();
    t.unique(['brand_id', 'tracker_campaign_id', 'start_date', 'end_date', 'sub_id_3'], { indexName: 'sandbox_tracker_costs_range_unique' });
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['sandbox_tracker_costs', 'tracker_final_pushes', 'tracker_push_settings', 'tracker_mappings']) {
    await knex.schema.dropTableIfExists(table);
  }
  await knex.schema.alterTable('tracker_connections', (t) => {
    t.dropColumn('api_key_sealed');
    t.dropColumn('api_key_last4');
    t.dropColumn('updated_at');
  });
}
