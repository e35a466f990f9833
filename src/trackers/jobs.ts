// The tracker area's job kind: the spend push of one brand (key = brand id), one cycle at a time.
// Due every hour (PUSH_CRON, UTC), it starts a scheduled run; run-tracker-push makes it due at once,
// and then it carries out the manual run that operation started. A run interrupted by a crash is
// carried out again (costs are set, never added). A push turned off or a tracker disconnected parks
// the job until set-tracker-push turns it on again (push.ts).

import type { JobContext, JobNext } from '../jobs/kind.js';
import type { ClaimedJob } from '../jobs/queue/job.js';
import { PUSH_JOB_KIND, pushTurn } from './push.js';

export const kind = PUSH_JOB_KIND;

export function run(ctx: JobContext, job: ClaimedJob): Promise<JobNext> {
  return pushTurn(
    { knex: ctx.knex, trackers: ctx.trackers, platforms: ctx.platforms, secrets: ctx.secrets, events: ctx.events, now: ctx.now, log: ctx.log },
    Number(job.key),
  );
}
