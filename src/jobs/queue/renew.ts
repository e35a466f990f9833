// Extends the lease of a job its holder is still running; false when the lease was lost.

import type { Knex } from 'knex';
import { retrying } from '../../db/connection.js';
import type { ClaimedJob } from './job.js';

export async function renewLease(knex: Knex, job: ClaimedJob, until: number): Promise<boolean> {
  const n = await retrying(() => knex('jobs').where({ id: job.id, locked_by: job.lockedBy }).update({ locked_until: until }));
  return n === 1;
}
