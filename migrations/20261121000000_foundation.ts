// Foundation tables: tenants, people, brands, ad accounts, API keys, activity, idempotency.
// Timestamps are integer milliseconds since the epoch (UTC); money is integer cents.

import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('service_settings', (t) => {
    t.string('name', 64).primary();
    t.string('value', 255).notNullable();
  });

  await knex.schema.createTable('organizations', (t) => {
    t.increments('id').primary();
    t.string('name', 200).notNullable();
    t.string('plan', 16).notNullable();
    t.string('subscription_status', 16).notNullable();
    t.bigInteger('created_at').notNullable();
  });

  await knex.schema.createTable('users', (t) => {
    t.increments('id').primary();
    t.string('email', 254).notNullable().unique();
    t.string('name', 200).notNullable();
    t.string('password_hash', 255).notNullable();
    t.bigInteger('created_at').notNullable();
  });

  await knex.schema.createTable('memberships', (t) => {
    t.increments('id').primary();
    t.integer('organization_id').unsigned().notNullable().references('organizations.id');
    t.integer('user_id').unsigned().notNullable().references('users.id');
    t.string('role', 16).notNullable();
    t.boolean('all_brands').notNullable().defaultTo(true);
    t.bigInteger('created_at').notNullable();
    t.unique(['organization_id', 'user_id']);
  });

  await knex.schema.createTable('brands', (t) => {
    t.increments('id').primary();
    t.integer('organization_id').unsigned().notNullable().references('organizations.id');
    t.string('name', 200).notNullable();
    t.boolean('active').notNullable().defaultTo(true);
    t.bigInteger('created_at').notNullable();
    t.index(['organization_id', 'id']);
  });

  await knex.schema.createTable('membership_brands', (t) => {
    t.integer('membership_id').unsigned().notNullable().references('memberships.id');
    t.integer('brand_id').unsigned().notNullable().references('brands.id');
    t.primary(['membership_id', 'brand_id']);
  });

  await knex.schema.createTable('ad_accounts', (t) => {
    t.increments('id').primary();
    t.integer('organization_id').unsigned().notNullable().references('organizations.id');
    t.integer('brand_id').unsigned().notNullable().references('brands.id');
    t.string('platform', 16).notNullable();
    t.string('account_id', 64).notNullable();
    t.string('name', 200).nullable();
    t.string('timezone', 64).notNullable();
    t.string('currency', 3).notNullable();
    t.boolean('active').notNullable().defaultTo(true);
    t.bigInteger('created_at').notNullable();
    t.unique(['brand_id', 'account_id']);
  });

  await knex.schema.createTable('api_keys', (t) => {
    t.increments('id').primary();
    t.integer('organization_id').unsigned().notNullable().references('organizations.id');
    t.string('name', 200).notNullable();
    t.string('lookup_prefix', 32).notNullable().unique();
    t.string('salt', 64).notNullable();
    t.string('secret_hash', 128).notNullable();
    t.string('scopes', 64).notNullable();
    t.boolean('surface_api').notNullable().defaultTo(false);
    t.boolean('surface_mcp').notNullable().defaultTo(true);
    t.boolean('all_brands').notNullable().defaultTo(true);
    t.bigInteger('expires_at').nullable();
    t.bigInteger('publish_ceiling_cents').nullable();
    t.bigInteger('committed_cents').notNullable().defaultTo(0);
    t.bigInteger('revoked_at').nullable();
    t.integer('created_by_user_id').unsigned().nullable().references('users.id');
    t.bigInteger('created_at').notNullable();
  });

  await knex.schema.createTable('api_key_brands', (t) => {
    t.integer('api_key_id').unsigned().notNullable().references('api_keys.id');
    t.integer('brand_id').unsigned().notNullable().references('brands.id');
    t.primary(['api_key_id', 'brand_id']);
  });

  await knex.schema.createTable('activity_entries', (t) => {
    t.bigIncrements('id').primary();
    t.integer('organization_id').unsigned().notNullable();
    t.integer('brand_id').unsigned().notNullable().references('brands.id');
    t.string('account_id', 64).nullable();
    t.integer('user_id').unsigned().notNullable();
    t.string('user_name', 255).notNullable();
    t.integer('api_key_id').unsigned().nullable();
    t.string('entity_type', 16).notNullable();
    t.string('entity_id', 64).notNullable();
    t.string('entity_name', 255).nullable();
    t.string('action', 64).notNullable();
    t.bigInteger('created_at').notNullable();
    t.index(['brand_id', 'id']);
    t.index(['brand_id', 'created_at']);
  });

  await knex.schema.createTable('idempotency_records', (t) => {
    t.bigIncrements('id').primary();
    t.integer('organization_id').unsigned().notNullable();
    // sha256 of credential, operation and key: keeps the unique index short on MySQL.
    t.string('scope_hash', 64).notNullable();
    t.string('fingerprint', 64).notNullable();
    t.string('state', 16).notNullable();
    t.integer('status_code').nullable();
    t.text('response_body', 'longtext').nullable();
    t.bigInteger('lease_expires_at').notNullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('expires_at').notNullable();
    t.unique(['organization_id', 'scope_hash']);
    t.index(['expires_at']);
  });

  await knex.schema.createTable('tracker_connections', (t) => {
    t.integer('brand_id').unsigned().primary().references('brands.id');
    t.string('base_url', 500).notNullable();
    t.string('api_key', 255).notNullable();
    t.bigInteger('created_at').notNullable();
  });

  // What the simulated ad platform holds before the service touches an account (bootstrap `sandbox`).
  await knex.schema.createTable('sandbox_seeds', (t) => {
    t.bigIncrements('id').primary();
    t.integer('brand_id').unsigned().notNullable().references('brands.id');
    t.string('kind', 32).notNullable();
    t.string('account_id', 64).nullable();
    t.text('payload', 'mediumtext').notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of [
    'sandbox_seeds', 'tracker_connections', 'idempotency_records', 'activity_entries', 'api_key_brands',
    'api_keys', 'ad_accounts', 'membership_brands', 'brands', 'memberships', 'users', 'organizations', 'service_settings',
  ]) {
    await knex.schema.dropTableIfExists(table);
  }
}
