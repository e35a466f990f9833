// OAuth 2.1: clients (dynamic registration), signing keys, sign-in sessions, authorization codes,
// grants (a person's approval of an app, carrying scopes, resource and spend limit) and rotating
// refresh tokens. Spend commitments can belong to a grant as well as to a key.

import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('oauth_clients', (t) => {
    t.string('id', 64).primary();
    t.string('name', 200).notNullable();
    t.text('redirect_uris').notNullable();
    t.bigInteger('created_at').notNullable();
  });
  await knex.schema.createTable('oauth_signing_keys', (t) => {
    t.string('kid', 64).primary();
    t.string('alg', 16).notNullable();
    t.text('private_jwk').notNullable();
    t.text('public_jwk').notNullable();
    t.boolean('active').notNullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('retired_at').nullable();
  });
  await knex.schema.createTable('web_sessions', (t) => {
    t.string('id_hash', 64).primary();
    t.integer('user_id').unsigned().notNullable().references('users.id');
    t.string('csrf_token', 64).notNullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('expires_at').notNullable();
  });
  await knex.schema.createTable('login_failures', (t) => {
    t.bigIncrements('id').primary();
    t.string('subject', 300).notNullable();
    t.bigInteger('at').notNullable();
    t.index(['subject', 'at']);
  });
  await knex.schema.createTable('oauth_grants', (t) => {
    t.bigIncrements('id').primary();
    t.integer('organization_id').unsigned().notNullable().references('organizations.id');
    t.integer('user_id').unsigned().notNullable().references('users.id');
    t.string('client_id', 64).notNullable().references('oauth_clients.id');
    t.string('scopes', 64).notNullable();
    t.string('resource', 500).nullable();
    t.bigInteger('publish_ceiling_cents').nullable();
    t.bigInteger('committed_cents').notNullable().defaultTo(0);
    t.bigInteger('created_at').notNullable();
    t.bigInteger('revoked_at').nullable();
    t.index(['user_id']);
  });
  await knex.schema.createTable('oauth_codes', (t) => {
    t.string('code_hash', 64).primary();
    t.bigInteger('grant_id').unsigned().notNullable().references('oauth_grants.id');
    t.string('redirect_uri', 2000).notNullable();
    t.string('code_challenge', 128).notNullable();
    t.bigInteger('expires_at').notNullable();
    t.bigInteger('used_at').nullable();
  });
  await knex.schema.createTable('oauth_refresh_tokens', (t) => {
    t.string('token_hash', 64).primary();
    t.bigInteger('grant_id').unsigned().notNullable().references('oauth_grants.id');
    t.string('family_id', 64).notNullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('expires_at').notNullable();
    t.bigInteger('used_at').nullable();
    t.bigInteger('revoked_at').nullable();
    t.index(['family_id']);
  });
  await knex.schema.createTable('oauth_revoked_access_tokens', (t) => {
    t.string('jti', 64).primary();
    t.bigInteger('expires_at').notNullable();
  });
  await knex.schema.alterTable('spend_commitments', (t) => {
    t.bigInteger('grant_id').unsigned().nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('spend_commitments', (t) => t.dropColumn('grant_id'));
  for (const table of ['oauth_revoked_access_tokens', 'oauth_refresh_tokens', 'oauth_codes', 'oauth_grants', 'login_failures', 'web_sessions', 'oauth_signing_keys', 'oauth_clients']) {
    await knex.schema.dropTableIfExists(table);
  }
}
