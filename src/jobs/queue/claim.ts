// Claims due jobs under a lease: rows whose run_at has come and that nobody holds (or whose
// holder's lease ran out, e.g. a process that died). MySQL skips rows other claimers are locking;
// SQLite has a single writer, so the conditional UPDATE alone decides.

import type { Knex } from 'knex';
import type { Dialect } from '../../db/connection.js';
import { inTransaction } from '../../db/connection.js';
import { claimedJobOf, type ClaimedJob } from './job.js';

export interface ClaimOptions {
  workerId: string;
  now: number;
  leaseMs: number;
  limit: number;
}

/** Claims up to `limit` due jobs for `workerId`, oldest due first. */
export async function claimJobs(knex: Knex, dialect: Dialect, o: ClaimOptions): Promise<ClaimedJob[]> {
  if (o.limit <= 0) return [];
  const until = o.now + o.leaseMs;
  const free = (q: Knex.QueryBuilder) =>
    q
      .whereNotNull('run_at')
      .where('run_at', '<=', o.now)
      .where((w) => w.whereNull('locked_until').orWhere('locked_until', '<', o.now));
  return inTransaction(knex, async (trx) => {
    const pick = free(trx('jobs')).orderBy('run_at').limit(o.limit).select('id');
    const ids = (await (dialect === 'mysql' ? pick.forUpdate().skipLocked() : pick)).map((r: { id: number }) => Number(r.id));
    if (!ids.length) return [];
    // MySQL already holds these rows from the select: updating by id alone locks nothing more.
    // SQLite's single writer needs the condition checked again in the update.
    const picked = trx('jobs').whereIn('id', ids);
    await (dialect === 'mysql' ? picked : free(picked)).update({ locked_by: o.workerId, locked_until: until, updated_at: o.now });
    const rows = await trx('jobs').whereIn('id', ids).where({ locked_by: o.workerId, locked_until: until });
    return rows.map(claimedJobOf);
  });
}
