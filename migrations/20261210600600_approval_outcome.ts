// Approvals by a person, the rest of it (paths.md "Approvals by a person"): what carrying an approval
// out answered (`result`, for the agent that asked: get-approval, and an MCP call that waited for the
// decision), and the index the expire-approvals job reads waiting approvals past their time by.

import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('approvals', (t) => {
    t.text('result').nullable();
    t.index(['status', 'expires_at'], 'approvals_status_expires_at_index');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('approvals', (t) => {
    t.dropIndex(['status', 'expires_at'], 'approvals_status_expires_at_index');
    t.dropColumn('result');
  });
}
