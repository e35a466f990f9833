// The runs of a brand waiting at a review gate (list-workflow-reviews, the console's reviews page)
// are read by brand and status, newest first: an index on exactly that, so the read stays a range
// scan however many finished runs a brand keeps.

import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('workflow_executions', (t) => {
    t.index(['brand_id', 'status', 'id'], 'workflow_executions_brand_status_id');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('workflow_executions', (t) => {
    t.dropIndex(['brand_id', 'status', 'id'], 'workflow_executions_brand_status_id');
  });
}
