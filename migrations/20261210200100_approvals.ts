// Approvals by a person (paths.md "Approvals by a person"): an organization may say that agents
// prepare and people decide (`agent_publishes`: direct, the default, or person). With person, a
// money path taken by an API key or an OAuth token records an approval of exactly the plan it would
// carry out, which an owner or admin (never the person behind the requesting credential) approves
// or rejects in the console; it expires after APPROVAL_TTL_HOURS.

import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('organizations', (t) => {
    t.string('agent_publishes', 16).notNullable().defaultTo('direct');
  });
  await knex.schema.createTable('approvals', (t) => {
    t.increments('id').primary();
    t.integer('organization_id').unsigned().notNullable().references('organizations.id');
    t.integer('brand_id').unsigned().notNullable();
    t.string('kind', 32).notNullable();
    /** The operation approving carries out, and its arguments (what was asked, bound to plan_fingerprint). */
    t.string('operation', 64).notNullable();
    t.text('input').notNullable();
    t.integer('launch_id').nullable();
    t.string('node_id', 40).nullable();
    t.text('plan').notNullable();
    t.string('plan_fingerprint', 64).notNullable();
    t.text('amounts').notNullable();
    t.string('requested_by_kind', 16).notNullable();
    t.integer('requested_by_api_key_id').nullable();
    t.integer('requested_by_grant_id').nullable();
    t.integer('requested_by_user_id').notNullable();
    t.string('requested_by', 255).notNullable();
    t.bigInteger('requested_at').notNullable();
    t.bigInteger('expires_at').notNullable();
    t.string('status', 16).notNullable();
    t.string('decided_by', 255).nullable();
    t.integer('decided_by_user_id').nullable();
    t.bigInteger('decided_at').nullable();
    t.string('comment', 1000).nullable();
    t.index(['brand_id', 'id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('approvals');
  await knex.schema.alterTable('organizations', (t) => {
    t.dropColumn('agent_publishes');
  });
}
