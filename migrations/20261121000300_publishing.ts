// Spend commitments against publish ceilings (a ledger beside the key's running total) and
// snapshot templates of launches.

import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('spend_commitments', (t) => {
    t.bigIncrements('id').primary();
    t.integer('organization_id').unsigned().notNullable();
    t.integer('api_key_id').unsigned().nullable();
    t.bigInteger('launch_id').unsigned().nullable();
    t.string('node_id', 40).nullable();
    t.string('kind', 16).notNullable();
    t.bigInteger('amount_cents').notNullable();
    t.string('state', 16).notNullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
    t.index(['launch_id', 'state']);
    t.index(['api_key_id']);
  });

  await knex.schema.createTable('snapshot_templates', (t) => {
    t.increments('id').primary();
    t.integer('organization_id').unsigned().notNullable();
    t.integer('brand_id').unsigned().notNullable().references('brands.id');
    t.bigInteger('source_launch_id').unsigned().nullable();
    t.string('name', 191).notNullable();
    t.string('description', 191).nullable();
    t.text('campaigns', 'mediumtext').notNullable();
    t.bigInteger('created_at').notNullable();
    t.index(['brand_id', 'id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('snapshot_templates');
  await knex.schema.dropTableIfExists('spend_commitments');
}
