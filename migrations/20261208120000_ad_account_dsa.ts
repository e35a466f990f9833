// Who benefits from and who pays for a Meta ad account's ads targeting the EU (Digital Services Act:
// AdSet dsa_beneficiary, dsa_payor). Set from the bootstrap file or update-ad-account; null until
// then, when Meta's own account defaults are used.

import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('ad_accounts', (t) => {
    t.string('dsa_beneficiary', 255).nullable();
    t.string('dsa_payor', 255).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('ad_accounts', (t) => {
    t.dropColumn('dsa_payor');
    t.dropColumn('dsa_beneficiary');
  });
}
