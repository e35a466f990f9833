// Data: the demo organization's tracker was answered by the simulator through a switch that no
// longer exists; its baseUrl becomes the literal `sandbox:` that selects the simulator now.

import type { Knex } from 'knex';

const OLD_DEMO_TRACKER = 'https://tracker.demo.test';

export async function up(knex: Knex): Promise<void> {
  await knex('tracker_connections').where({ base_url: OLD_DEMO_TRACKER }).update({ base_url: 'sandbox:', base_url_origin: 'operator' });
}

export async function down(knex: Knex): Promise<void> {
  await knex('tracker_connections').where({ base_url: 'sandbox:' }).update({ base_url: OLD_DEMO_TRACKER });
}
