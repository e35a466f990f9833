// Data: seal every tracker key stored in plain text before this release, then drop the plain column.

import type { Knex } from 'knex';
import { loadSecretBox } from '../src/auth/encryption.js';

export async function up(knex: Knex): Promise<void> {
  const rows: Array<{ brand_id: number; api_key: string; created_at: number }> = await knex('tracker_connections').select('brand_id', 'api_key', 'created_at');
  if (rows.length) {
    const box = await loadSecretBox(knex);
    for (const r of rows) {
      await knex('tracker_connections')
        .where({ brand_id: r.brand_id })
        .update({ api_key_sealed: box.seal(r.api_key), api_key_last4: r.api_key.slice(-4), updated_at: r.created_at });
    }
  }
  await knex.schema.alterTable('tracker_connections', (t) => t.dropColumn('api_key'));
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('tracker_connections', (t) => t.string('api_key', 255).nullable());
}
