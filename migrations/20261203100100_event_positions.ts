// Outbox subscribers: how far each one has read the events table. `position` is the highest event
// id it has handled; `gaps` (JSON) lists id ranges below it not seen yet, each with the time it was
// first noticed, because an event with a smaller id may commit after larger ones; `turn` goes up
// with every advance, so two consumers racing on one subscriber cannot both advance it.

import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('event_positions', (t) => {
    t.string('name', 64).primary();
    t.bigInteger('position').notNullable().defaultTo(0);
    t.text('gaps').notNullable();
    t.integer('turn').notNullable().defaultTo(0);
    t.bigInteger('updated_at').notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('event_positions');
}
