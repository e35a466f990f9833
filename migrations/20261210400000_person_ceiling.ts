// A person's own publish ceiling (owners and admins change what already runs from the console: a
// live budget counts against it like a key's) and the commitments counted on it.

import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('memberships', (t) => {
    t.bigInteger('publish_ceiling_cents').nullable();
    t.bigInteger('committed_cents').notNullable().defaultTo(0);
  });
  await knex.schema.alterTable('spend_commitments', (t) => {
    t.integer('membership_id').unsigned().nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('spend_commitments', (t) => t.dropColumn('membership_id'));
  await knex.schema.alterTable('memberships', (t) => {
    t.dropColumn('committed_cents');
    t.dropColumn('publish_ceiling_cents');
  });
}
