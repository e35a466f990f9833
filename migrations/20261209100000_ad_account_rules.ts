// What an ad account's platform allows it beyond the defaults (live-platforms.md, "More rules the
// platforms enforce"): the Business Center of a TikTok BC_AUTH_TT identity, the allowlist-only
// features the account has been granted, and the countries the advertiser has made the platform's
// declaration for. Set from the bootstrap file or update-ad-account; lists are JSON arrays.

import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('ad_accounts', (t) => {
    t.string('identity_bc_id', 64).nullable();
    t.text('allowlisted').nullable();
    t.text('declared_countries').nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('ad_accounts', (t) => {
    t.dropColumn('declared_countries');
    t.dropColumn('allowlisted');
    t.dropColumn('identity_bc_id');
  });
}
