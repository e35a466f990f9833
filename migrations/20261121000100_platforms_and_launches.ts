// The simulated ad platform's state (sandbox), access tokens and naming conventions of ad
// accounts, and the launch tables that the overview rolls up.

import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('sandbox_objects', (t) => {
    t.bigIncrements('id').primary();
    t.string('platform', 16).notNullable();
    t.string('account_id', 64).notNullable();
    t.string('level', 16).notNullable();
    t.string('object_id', 40).notNullable().unique();
    t.string('parent_id', 40).nullable();
    t.string('name', 400).notNullable();
    t.string('name_lower', 400).notNullable();
    t.string('marker', 64).nullable();
    t.string('status', 16).notNullable();
    t.string('objective', 64).nullable();
    t.string('budget_period', 16).nullable();
    t.bigInteger('budget_cents').nullable();
    t.text('settings', 'mediumtext').notNullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
    t.index(['account_id', 'level', 'id']);
    t.index(['account_id', 'level', 'status', 'id']);
    t.index(['marker']);
    t.index(['parent_id']);
  });

  await knex.schema.createTable('sandbox_status_events', (t) => {
    t.bigIncrements('id').primary();
    t.string('object_id', 40).notNullable();
    t.string('status', 16).notNullable();
    t.bigInteger('at').notNullable();
    t.index(['object_id', 'at']);
  });

  await knex.schema.createTable('sandbox_assets', (t) => {
    t.bigIncrements('id').primary();
    t.string('account_id', 64).notNullable();
    t.string('kind', 32).notNullable();
    t.string('asset_id', 64).notNullable();
    t.string('page_id', 64).nullable();
    t.string('name', 400).nullable();
    t.text('payload', 'mediumtext').notNullable();
    t.index(['account_id', 'kind', 'id']);
  });

  await knex.schema.dropTableIfExists('sandbox_seeds');

  await knex.schema.alterTable('ad_accounts', (t) => {
    // AES-256-GCM with TOKEN_ENCRYPTION_KEY; only used in PLATFORM_MODE=live.
    t.text('access_token_encrypted').nullable();
  });

  await knex.schema.createTable('naming_conventions', (t) => {
    t.integer('brand_id').unsigned().notNullable().references('brands.id');
    t.string('account_id', 64).notNullable();
    t.string('campaign_template', 500).notNullable();
    t.string('adset_template', 500).notNullable();
    t.string('ad_template', 500).notNullable();
    t.bigInteger('updated_at').notNullable();
    t.primary(['brand_id', 'account_id']);
  });

  await knex.schema.createTable('launches', (t) => {
    t.bigIncrements('id').primary();
    t.integer('organization_id').unsigned().notNullable().references('organizations.id');
    t.integer('brand_id').unsigned().notNullable().references('brands.id');
    t.string('account_id', 64).nullable();
    t.string('title', 200).notNullable();
    t.text('description').nullable();
    t.string('status', 16).notNullable();
    t.text('status_reason').nullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
    t.bigInteger('published_at').nullable();
    t.index(['brand_id', 'id']);
    t.index(['brand_id', 'account_id', 'status', 'published_at']);
  });

  await knex.schema.createTable('launch_nodes', (t) => {
    t.string('id', 40).primary();
    t.bigInteger('launch_id').unsigned().notNullable().references('launches.id');
    t.string('parent_id', 40).nullable();
    t.string('node_type', 16).notNullable();
    t.string('account_id', 64).nullable();
    t.string('name', 400).nullable();
    t.text('properties', 'mediumtext').notNullable();
    t.string('platform_id', 40).nullable();
    t.string('status', 16).notNullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
    t.index(['launch_id', 'node_type']);
    t.index(['platform_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['launch_nodes', 'launches', 'naming_conventions', 'sandbox_assets', 'sandbox_status_events', 'sandbox_objects']) {
    await knex.schema.dropTableIfExists(table);
  }
  await knex.schema.alterTable('ad_accounts', (t) => t.dropColumn('access_token_encrypted'));
}
