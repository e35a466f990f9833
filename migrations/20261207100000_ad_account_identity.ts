// Who an ad account's ads speak as on its platform: a Meta Facebook Page (and Instagram account),
// a TikTok identity. Set from the bootstrap file or update-ad-account; null until then.

import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('ad_accounts', (t) => {
    t.string('page_id', 64).nullable();
    t.string('instagram_user_id', 64).nullable();
    t.string('identity_id', 128).nullable();
    t.string('identity_type', 16).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('ad_accounts', (t) => {
    t.dropColumn('identity_type');
    t.dropColumn('identity_id');
    t.dropColumn('instagram_user_id');
    t.dropColumn('page_id');
  });
}
