// Recurring job: approvals nobody decided within APPROVAL_TTL_HOURS expire (paths.md "Approvals by a
// person"). Each becomes `expired` in one conditional statement (still waiting, past its time: one
// decided meanwhile stays decided), with its approval.decided event (status expired) in the same
// transaction, and nothing moves. Reads already show such an approval as expired (store.ts), so a
// minute's wait for this job never lets one be decided.

import type { JobContext } from '../jobs/kind.js';
import { inTransaction } from '../db/connection.js';
import { dueToExpire, expireApproval } from './store.js';
import { decidedData } from './view.js';

export const kind = 'expire-approvals';
export const schedule = '* * * * *';

/** Approvals expired per batch (each in its own short transaction). */
const BATCH = 100;

export async function run(ctx: JobContext): Promise<void> {
  let expired = 0;
  for (;;) {
    const now = ctx.now();
    const due = await dueToExpire(ctx.knex, now, BATCH);
    for (const a of due) {
      if (!ctx.stillOwned()) return;
      await inTransaction(ctx.knex, async (trx) => {
        if ((await expireApproval(trx, a.id, now)) !== 1) return;
        expired++;
        await ctx.events.emit(trx, {
          organizationId: a.organizationId,
          brandId: a.brandId,
          type: 'approval.decided',
          data: decidedData(a, 'expired', 'the service (APPROVAL_TTL_HOURS passed)'),
        });
      });
    }
    if (due.length < BATCH) break;
  }
  if (expired) ctx.log.info({ job: kind, expired }, 'expired approvals nobody decided');
}
