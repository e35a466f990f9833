// The job queue's own statements on MariaDB when they lose a real deadlock: completing or failing a
// run meets a claim that holds the row's run_at index entry, and must be repeated, or the job would
// stay held until its lease ran out. MariaDB only (SQLite has one writer and no deadlocks).

import { expect } from 'chai';
import type { Knex } from 'knex';
import { claimJobs } from '../../src/jobs/queue/claim.js';
import { completeJob } from '../../src/jobs/queue/complete.js';
import { failJob } from '../../src/jobs/queue/fail.js';
import type { ClaimedJob } from '../../src/jobs/queue/job.js';
import { wakeJob } from '../../src/jobs/queue/wake.js';
import { migratedDatabase, type MigratedDatabase } from '../helpers/databases.js';
import { waitUntil } from '../helpers/launches.js';

const cases: Array<{ name: string; finish: (knex: Knex, job: ClaimedJob, now: number) => Promise<unknown>; after: Record<string, unknown> }> = [
  { name: 'completeJob', finish: (knex, job, now) => completeJob(knex, job, null, now), after: { locked_by: null, run_at: null, attempts: 0 } },
  {
    name: 'failJob',
    finish: (knex, job, now) => failJob(knex, job, 'the run failed', now),
    after: { locked_by: null, attempts: 1, last_error: 'the run failed' },
  },
];

if (process.env.TEST_MYSQL_URL) {
  describe('job queue statements that lose a deadlock (mysql)', function () {
    this.timeout(60_000);
    // The deadlock is staged with MariaDB's lock timing, which a loaded host (the whole suite on two
    // cores) can upset before it is reached (once in CI, the finishing statement never showed LOCK
    // WAIT within 25 s): each attempt sets the scene up again from an empty queue.
    this.retries(2);
    let db: MigratedDatabase;
    before(async () => {
      db = await migratedDatabase('mysql');
    });
    after(async () => {
      await db?.close();
    });

    for (const [i, row] of cases.entries()) {
      it(`${row.name} is repeated when MariaDB picks it as the deadlock victim, and releases the job`, async () => {
        const { knex } = db;
        const now = Date.now();
        await knex('jobs').delete();
        for (let k = 1; k <= 3; k++) await wakeJob(knex, 'probe', String(k), now - 1000);
        const [job] = await claimJobs(knex, 'mysql', { workerId: `w-test.${i}`, now, leaseMs: 30_000, limit: 1 });

        // The shape of the deadlock the webhook benchmark met: a claim's SKIP LOCKED scan holds the
        // run_at index entry of a job whose row another transaction held at that moment...
        const holder = await knex.transaction();
        const claimer = await knex.transaction();
        try {
          await holder('jobs').where({ id: job.id }).forUpdate().first();
          // Undo entries make the claimer the heavier transaction, so MariaDB rolls the other one back.
          for (let n = 0; n < 50; n++) await claimer('service_settings').insert({ name: `weight-${i}-${n}`, value: 'x' });
          await claimer.raw('select id from jobs force index (jobs_run_at_index) where run_at <= ? for update skip locked', [now]);
          await holder.rollback();

          // ...the run finishes (row lock taken, waiting for the index entry), and the claim then
          // reaches for the row.
          let outcome: unknown;
          const finishing = row.finish(knex, job, now).then(
            () => (outcome = 'done'),
            (err) => (outcome = err),
          );
          // A loaded host (the whole suite on two cores) can take a while to get there.
          await waitUntil(
            async () => {
              const [rows] = await knex.raw("select count(*) as n from information_schema.innodb_trx where trx_state = 'LOCK WAIT'");
              return Number(rows[0].n) > 0 || outcome !== undefined;
            },
            `${row.name} to wait for the claim's lock`,
            25_000,
          );
          expect(outcome, `${row.name} ended before it met the claim's lock`).to.equal(undefined);
          await claimer('jobs').where({ id: job.id }).update({ updated_at: now });
          await claimer.commit();
          await finishing;
          expect(outcome).to.equal('done');
        } finally {
          if (!holder.isCompleted()) await holder.rollback();
          if (!claimer.isCompleted()) await claimer.rollback();
        }
        const stored = await knex('jobs').where({ id: job.id }).first();
        expect({ ...stored, attempts: Number(stored.attempts) }).to.deep.include(row.after);
      });
    }
  });
}
