// Lanes: jobs of one lane (e.g. the deliveries of one webhook endpoint) are claimed together, in
// order, by one worker at a time. `jobs.lane` names the lane; `job_lanes` holds each lane's lease,
// the one row claimers lock (MySQL skips a lane another claimer is locking), so two workers never
// hold one lane.

import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('jobs', (t) => {
    t.string('lane', 191).nullable();
    t.index(['lane', 'run_at']);
  });
  await knex.schema.createTable('job_lanes', (t) => {
    t.string('lane', 191).primary();
    t.string('locked_by', 64).nullable();
    t.bigInteger('locked_until').nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('job_lanes');
  await knex.schema.alterTable('jobs', (t) => {
    t.dropIndex(['lane', 'run_at']);
    t.dropColumn('lane');
  });
}
