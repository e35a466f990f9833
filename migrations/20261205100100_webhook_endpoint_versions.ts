// A version number per organization that goes up in the transaction of every change to its
// webhook endpoints (create, delete, and changes of what they receive or whether they are on): the
// webhooks subscriber keeps each organization's endpoint list in memory and reads it again only when
// the number moved. No row reads as version 0.

import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('webhook_endpoint_versions', (t) => {
    t.integer('organization_id').unsigned().primary();
    t.bigInteger('version').notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('webhook_endpoint_versions');
}
