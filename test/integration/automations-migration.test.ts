// The migration that makes the jobs table the only schedule of automations, on every storage
// dialect: an ACTIVE automation's next_run_at becomes its evaluate-automations job in its account's
// lane, a pending action a retry-automation-action job (its failed retries as attempts), the old
// per-account job goes, and so do the column and the table. Down puts the schedule back.

import { expect } from 'chai';
import { dialects, createTestDatabase, type TestDatabase } from '../helpers/databases.js';
import { openDatabase, type Database } from '../../src/db/connection.js';
import { migrateLatest } from '../../src/db/migrate.js';
import { applyBootstrap } from '../../src/bootstrap.js';
import { SchemaRegistry, loadSchemaFiles } from '../../src/schemas/registry.js';
import { standardWorld } from '../helpers/fixture.js';
import { projectPath } from '../../src/paths.js';

const AT = Date.UTC(2030, 0, 1, 12, 0);

for (const dialect of dialects()) {
  describe(`automation jobs migration (${dialect})`, function () {
    this.timeout(60_000);
    let db: TestDatabase;
    let conn: Database;
    let migration: { up(knex: unknown): Promise<void>; down(knex: unknown): Promise<void> };

    before(async () => {
      db = await createTestDatabase(dialect);
      conn = openDatabase(db.url);
      await migrateLatest(conn.knex);
      migration = await import(projectPath('dist', 'migrations', '20261203200000_automation_jobs.js'));
    });
    after(async () => {
      await conn?.knex.destroy();
      await db?.drop();
    });

    it('moves next runs and pending actions into jobs and drops the column and the table; down moves the schedule back', async () => {
      const { knex } = conn;
      const seed = await applyBootstrap(knex, new SchemaRegistry(loadSchemaFiles()), standardWorld);
      const org = seed.organizations.acme;
      const brandId = org.brands.shoes.id;
      await migration.down(knex);

      const automation = (name: string, status: string, nextRunAt: number | null) => ({
        organization_id: org.id,
        brand_id: brandId,
        account_id: 'act_1001',
        name,
        status,
        level: 'campaign',
        action: 'pause',
        frequency: 'hourly',
        mode: 'live',
        rule: '{}',
        created_by_user_id: 0,
        next_run_at: nextRunAt,
        last_run_at: null,
        created_at: AT,
        updated_at: AT,
      });
      const [armed] = await knex('automations').insert(automation('Armed', 'ACTIVE', AT + 3_600_000));
      const [disarmed] = await knex('automations').insert(automation('Disarmed', 'PAUSED', AT + 3_600_000));
      await knex('automation_pending_actions').insert({
        automation_id: Number(armed),
        run_id: 7,
        brand_id: brandId,
        account_id: 'act_1001',
        node_id: 'nd_pending',
        object_id: 'obj_1',
        action: 'pause',
        attempts: 2,
        last_error: 'unavailable: throttled',
        next_attempt_at: AT + 120_000,
        created_at: AT,
      });
      await knex('jobs').insert({
        kind: 'evaluate-automations',
        job_key: `${brandId}:act_1001`,
        run_at: AT,
        attempts: 0,
        version: 1,
        created_at: AT,
        updated_at: AT,
      });

      await migration.up(knex);
      const jobs = await knex('jobs').whereIn('kind', ['evaluate-automations', 'retry-automation-action']).orderBy('kind');
      expect(jobs.map((j) => [j.kind, j.job_key, j.lane, Number(j.run_at), Number(j.attempts), j.payload && JSON.parse(j.payload)])).to.deep.equal([
        ['evaluate-automations', String(armed), `automations:${brandId}:act_1001`, AT + 3_600_000, 0, null],
        ['retry-automation-action', `${armed}:nd_pending`, `automations:${brandId}:act_1001`, AT + 120_000, 1, { runId: 7, action: 'pause' }],
      ]);
      expect(jobs.some((j) => j.job_key === String(disarmed))).to.equal(false);
      expect(await knex.schema.hasColumn('automations', 'next_run_at')).to.equal(false);
      expect(await knex.schema.hasTable('automation_pending_actions')).to.equal(false);

      await migration.down(knex);
      const back = await knex('automations').whereIn('id', [armed, disarmed]).orderBy('id').select('next_run_at');
      expect(back.map((r) => (r.next_run_at === null ? null : Number(r.next_run_at)))).to.deep.equal([AT + 3_600_000, null]);
      expect(await knex('jobs').whereIn('kind', ['evaluate-automations', 'retry-automation-action'])).to.have.length(0);
      await migration.up(knex);
      expect(await knex('jobs').where({ kind: 'evaluate-automations' }).pluck('job_key')).to.deep.equal([String(armed)]);
    });
  });
}
