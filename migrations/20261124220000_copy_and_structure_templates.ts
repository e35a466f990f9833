// Ad copy and structure templates: the brand profile the copy falls back to, generated copy records
// (texts already checked against the platform's limits), and reusable launch structures.
// Timestamps are integer ms (UTC); JSON lives in text columns.

import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('brand_profiles', (t) => {
    t.integer('brand_id').unsigned().notNullable().primary().references('brands.id');
    t.text('voice').notNullable();
    t.text('product_description').nullable();
    t.string('website', 2000).nullable();
    t.text('words_to_avoid').notNullable();
    t.bigInteger('updated_at').notNullable();
  });

  await knex.schema.createTable('copy_generations', (t) => {
    t.increments('id').primary();
    t.integer('organization_id').unsigned().notNullable();
    t.integer('brand_id').unsigned().notNullable().references('brands.id');
    t.string('platform', 16).notNullable();
    t.string('tone', 32).nullable();
    t.text('voice').notNullable();
    t.string('angle', 500).nullable();
    t.text('product_description').nullable();
    t.text('creative_ids').notNullable();
    t.text('headlines', 'mediumtext').notNullable();
    t.text('primary_texts', 'mediumtext').notNullable();
    t.text('descriptions', 'mediumtext').notNullable();
    t.string('model', 200).notNullable();
    t.integer('dropped').notNullable().defaultTo(0);
    t.bigInteger('created_at').notNullable();
    t.index(['brand_id', 'id']);
  });

  await knex.schema.createTable('structure_templates', (t) => {
    t.increments('id').primary();
    t.integer('organization_id').unsigned().notNullable();
    t.integer('brand_id').unsigned().notNullable().references('brands.id');
    t.string('name', 191).notNullable();
    t.text('config', 'mediumtext').notNullable();
    t.text('settings').notNullable();
    t.text('audiences', 'mediumtext').notNullable();
    t.text('accounts').notNullable();
    t.string('scope', 16).notNullable();
    t.string('status', 24).notNullable();
    // Why the service set NEEDS_ATTENTION (JSON list of {field, message}); empty otherwise.
    t.text('status_reasons').notNullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
    t.index(['brand_id', 'id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('structure_templates');
  await knex.schema.dropTableIfExists('copy_generations');
  await knex.schema.dropTableIfExists('brand_profiles');
}
