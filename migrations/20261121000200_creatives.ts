// Creatives: images and videos uploaded per brand. The bytes live in the creatives folder under
// their sha256; a row keeps what was read from the file. Timestamps are integer milliseconds (UTC).

import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('creatives', (t) => {
    t.increments('id').primary();
    t.integer('organization_id').unsigned().notNullable().references('organizations.id');
    t.integer('brand_id').unsigned().notNullable().references('brands.id');
    t.string('name', 255).notNullable();
    t.string('type', 8).notNullable();
    t.string('mime', 32).notNullable();
    t.integer('width').unsigned().notNullable();
    t.integer('height').unsigned().notNullable();
    t.bigInteger('duration_ms').nullable();
    t.bigInteger('size_bytes').notNullable();
    t.string('sha256', 64).notNullable();
    t.string('storage_key', 255).notNullable();
    t.bigInteger('created_at').notNullable();
    t.index(['brand_id', 'id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('creatives');
}
