// Money across currencies: each spend commitment and money activity entry keeps the amount in the
// ad account's own minor units and currency beside the US cents it counted against the ceiling.

import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('spend_commitments', (t) => {
    t.string('account_id', 64).nullable();
    t.string('currency', 3).nullable();
    t.bigInteger('amount_minor_units').nullable();
  });
  await knex.schema.alterTable('activity_entries', (t) => {
    t.string('currency', 3).nullable();
    t.bigInteger('amount_minor_units').nullable();
    t.bigInteger('counted_usd_cents').nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('activity_entries', (t) => {
    t.dropColumn('currency');
    t.dropColumn('amount_minor_units');
    t.dropColumn('counted_usd_cents');
  });
  await knex.schema.alterTable('spend_commitments', (t) => {
    t.dropColumn('account_id');
    t.dropColumn('currency');
    t.dropColumn('amount_minor_units');
  });
}
