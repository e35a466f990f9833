// What Meta and TikTok grant an ad account this round (bootstrap.md): the verified beneficiary and payer
// identity ids Meta issued per country that needs them (Singapore, Taiwan; a JSON object by country),
// and whether a TikTok advertiser may use the Smart+ endpoints. Set from the bootstrap file or
// update-ad-account.

import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('ad_accounts', (t) => {
    t.text('regional_identities').nullable();
    t.boolean('smart_plus_allowed').notNullable().defaultTo(false);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('ad_accounts', (t) => {
    t.dropColumn('smart_plus_allowed');
    t.dropColumn('regional_identities');
  });
}
