// Arming a money workflow binds its plans (paths.md "Who may cause a publish"): activate-workflow, and
// a save of an active workflow, record what each launch and budget step would do now (the launch's
// planFingerprint, the budget step's live change, the amounts), and runs its trigger starts carry a
// money step out only while its plan is the one bound. Workflows armed before this have none bound:
// their runs act as before until they are activated or saved again.

import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('workflows', (t) => {
    t.text('bound_plans').nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('workflows', (t) => {
    t.dropColumn('bound_plans');
  });
}
