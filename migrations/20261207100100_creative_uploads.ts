// The platform's reference to a creative once it is uploaded to an ad account (Meta image hash or
// video id, TikTok image_id or video_id): a creative goes to each account once, and every later
// publish reuses the reference.

import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('creative_uploads', (t) => {
    t.increments('id').primary();
    t.integer('creative_id').unsigned().notNullable().references('creatives.id');
    t.string('account_id', 64).notNullable();
    t.string('platform', 8).notNullable();
    t.string('ref', 255).notNullable();
    t.string('thumbnail_ref', 255).nullable();
    t.bigInteger('created_at').notNullable();
    t.unique(['creative_id', 'account_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('creative_uploads');
}
