// Work on its own time: the event outbox, the table of due jobs (claimed under a lease), and
// webhook endpoints with their deliveries and attempts. Timestamps are integer ms (UTC).

import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // Written in the same transaction as the change it reports (transactional outbox).
  await knex.schema.createTable('events', (t) => {
    t.bigIncrements('id').primary();
    t.string('public_id', 40).notNullable().unique();
    t.integer('organization_id').unsigned().notNullable().references('organizations.id');
    t.integer('brand_id').unsigned().nullable();
    t.string('type', 64).notNullable();
    t.text('data', 'mediumtext').notNullable();
    t.bigInteger('created_at').notNullable();
    t.index(['organization_id', 'id']);
    t.index(['created_at']);
  });

  // One row per unit of due work. `run_at` null = parked until something wakes it; `version` is
  // bumped by every wake so a runner finishing a claim can tell it was woken meanwhile.
  await knex.schema.createTable('jobs', (t) => {
    t.bigIncrements('id').primary();
    t.string('kind', 64).notNullable();
    t.string('job_key', 191).notNullable();
    t.text('payload').nullable();
    t.bigInteger('run_at').nullable();
    t.integer('attempts').notNullable().defaultTo(0);
    t.integer('version').notNullable().defaultTo(0);
    t.string('locked_by', 64).nullable();
    t.bigInteger('locked_until').nullable();
    t.text('last_error').nullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
    t.unique(['kind', 'job_key']);
    t.index(['run_at']);
  });

  await knex.schema.createTable('webhook_endpoints', (t) => {
    t.increments('id').primary();
    t.integer('organization_id').unsigned().notNullable().references('organizations.id');
    t.string('url', 2048).notNullable();
    t.string('description', 500).nullable();
    t.text('events').notNullable();
    t.text('brand_ids').nullable();
    t.boolean('enabled').notNullable().defaultTo(true);
    t.string('disabled_reason', 16).nullable();
    t.text('secret_sealed').notNullable();
    // Secrets replaced in the last 24 hours (JSON), still signing beside the current one.
    t.text('previous_secrets').nullable();
    t.bigInteger('failing_since').nullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
    t.index(['organization_id', 'id']);
  });

  await knex.schema.createTable('webhook_deliveries', (t) => {
    t.bigIncrements('id').primary();
    t.integer('endpoint_id').unsigned().notNullable().references('webhook_endpoints.id').onDelete('CASCADE');
    t.bigInteger('event_id').unsigned().notNullable().references('events.id');
    t.string('status', 16).notNullable();
    t.integer('attempt_count').notNullable().defaultTo(0);
    t.bigInteger('next_attempt_at').nullable();
    t.bigInteger('redelivery_of').unsigned().nullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
    t.index(['endpoint_id', 'status', 'next_attempt_at']);
    t.index(['endpoint_id', 'id']);
    t.index(['status', 'next_attempt_at']);
  });

  await knex.schema.createTable('webhook_attempts', (t) => {
    t.bigIncrements('id').primary();
    t.bigInteger('delivery_id').unsigned().notNullable().references('webhook_deliveries.id').onDelete('CASCADE');
    t.bigInteger('at').notNullable();
    t.integer('status_code').nullable();
    t.integer('duration_ms').notNullable();
    t.string('error', 500).nullable();
    t.text('response_excerpt').nullable();
    t.index(['delivery_id', 'id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['webhook_attempts', 'webhook_deliveries', 'webhook_endpoints', 'jobs', 'events']) {
    await knex.schema.dropTableIfExists(table);
  }
}
