// Claimers find due lanes through their `job_lanes` rows (one index seek per lane instead of a scan
// of every due job), so every lane needs its row from its first job on: scheduleJob writes it from
// now on, and this adds the rows of lanes that only had jobs so far.

import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  const lanes: string[] = await knex('jobs')
    .whereNotNull('lane')
    .whereNotExists((q) => q.select(knex.raw('1')).from('job_lanes').whereRaw('job_lanes.lane = jobs.lane'))
    .distinct('lane')
    .pluck('lane');
  for (let i = 0; i < lanes.length; i += 500) {
    await knex('job_lanes')
      .insert(lanes.slice(i, i + 500).map((lane) => ({ lane, locked_by: null, locked_until: null })))
      .onConflict('lane')
      .ignore();
  }
}

export async function down(): Promise<void> {
  // The rows are harmless to a build that creates them on demand.
}
