// The pipeline board (`board` in code): per brand, ordered columns (some publish, some are linked
// to a workflow) and cards, each holding one launch. Timestamps are integer ms (UTC).

import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('board_columns', (t) => {
    t.increments('id').primary();
    t.integer('organization_id').unsigned().notNullable().references('organizations.id');
    t.integer('brand_id').unsigned().notNullable().references('brands.id');
    t.string('name', 100).notNullable();
    // A sort key: answers show each column's index in the brand's order.
    t.integer('position').notNullable();
    t.boolean('publishes').notNullable().defaultTo(false);
    // The workflow whose pipeline-stage trigger this column fires: a plain number (no foreign key).
    t.integer('workflow_id').unsigned().nullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
    t.unique(['brand_id', 'name']);
    t.index(['brand_id', 'position']);
  });

  await knex.schema.createTable('board_cards', (t) => {
    t.increments('id').primary();
    t.integer('organization_id').unsigned().notNullable().references('organizations.id');
    t.integer('brand_id').unsigned().notNullable().references('brands.id');
    t.integer('column_id').unsigned().notNullable().references('board_columns.id');
    // A launch sits on the board once; deleting a draft launch takes its card with it.
    t.bigInteger('launch_id').unsigned().notNullable().unique().references('launches.id').onDelete('CASCADE');
    t.string('title', 200).notNullable();
    t.integer('position').notNullable();
    // Bumped by every change to the card: a move naming another version answers 409 stale_read.
    t.integer('version').notNullable().defaultTo(1);
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
    t.index(['column_id', 'position']);
    t.index(['brand_id', 'column_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('board_cards');
  await knex.schema.dropTableIfExists('board_columns');
}
