// The two migrations that made the jobs table the only schedule of workflows and the outbox the only
// way their triggers read events, on every storage dialect: an active schedule's next_run_at becomes
// its workflow-schedule job (a paused one's does not), the old trigger reader's position becomes the
// `workflows` subscriber's, the polling job and its table go. Down puts both back.

import { expect } from 'chai';
import { dialects, createTestDatabase, type TestDatabase } from '../helpers/databases.js';
import { openDatabase, type Database } from '../../src/db/connection.js';
import { migrateLatest } from '../../src/db/migrate.js';
import { applyBootstrap } from '../../src/bootstrap.js';
import { SchemaRegistry, loadSchemaFiles } from '../../src/schemas/registry.js';
import { standardWorld } from '../helpers/fixture.js';
import { projectPath } from '../../src/paths.js';

const AT = Date.UTC(2030, 0, 1, 12, 0);

interface Migration {
  up(knex: unknown): Promise<void>;
  down(knex: unknown): Promise<void>;
}

for (const dialect of dialects()) {
  describe(`workflow jobs and subscriber migrations (${dialect})`, function () {
    this.timeout(60_000);
    let db: TestDatabase;
    let conn: Database;
    let schedules: Migration;
    let triggers: Migration;

    before(async () => {
      db = await createTestDatabase(dialect);
      conn = openDatabase(db.url);
      await migrateLatest(conn.knex);
      schedules = await import(projectPath('dist', 'migrations', '20261203300000_workflow_schedules_as_jobs.js'));
      triggers = await import(projectPath('dist', 'migrations', '20261203300100_workflow_triggers_as_subscriber.js'));
    });
    after(async () => {
      await conn?.knex.destroy();
      await db?.drop();
    });

    it('moves active schedules into jobs and the trigger position into the subscriber; down moves both back', async () => {
      const { knex } = conn;
      const seed = await applyBootstrap(knex, new SchemaRegistry(loadSchemaFiles()), standardWorld);
      const org = seed.organizations.acme;
      const brandId = org.brands.shoes.id;
      await triggers.down(knex);
      await schedules.down(knex);

      const workflow = (name: string, status: string, nextRunAt: number | null) => ({
        organization_id: org.id,
        brand_id: brandId,
        name,
        type: 'custom',
        status,
        trigger_kind: 'schedule',
        trigger: JSON.stringify({ kind: 'schedule', cron: '0 * * * *' }),
        nodes: '[]',
        edges: '[]',
        reach_brand_ids: JSON.stringify([brandId]),
        created_by_kind: 'api_key',
        owner_kind: 'api_key',
        owner_label: 'Ops',
        next_run_at: nextRunAt,
        created_at: AT,
        updated_at: AT,
      });
      const [active] = await knex('workflows').insert(workflow('Hourly', 'active', AT + 3_600_000));
      const [paused] = await knex('workflows').insert(workflow('Paused', 'paused', AT + 7_200_000));
      await knex('workflow_trigger_positions').insert({ name: 'events', position: 42 });
      await knex('event_positions').where({ name: 'workflows' }).delete();
      await knex('jobs').insert({ kind: 'workflow-triggers', job_key: 'schedule', run_at: AT, attempts: 0, version: 1, created_at: AT, updated_at: AT });

      await schedules.up(knex);
      await triggers.up(knex);
      const jobs = await knex('jobs').where({ kind: 'workflow-schedule' }).select('job_key', 'run_at', 'payload');
      expect(jobs.map((j) => [j.job_key, Number(j.run_at), JSON.parse(j.payload)])).to.deep.equal([[String(active), AT + 3_600_000, { at: AT + 3_600_000 }]]);
      expect(await knex.schema.hasColumn('workflows', 'next_run_at')).to.equal(false);
      const position = await knex('event_positions').where({ name: 'workflows' }).first('position', 'gaps');
      expect([Number(position.position), JSON.parse(position.gaps)]).to.deep.equal([42, []]);
      expect(await knex('jobs').where({ kind: 'workflow-triggers' })).to.have.length(0);
      expect(await knex.schema.hasTable('workflow_trigger_positions')).to.equal(false);

      await triggers.down(knex);
      await schedules.down(knex);
      const back = await knex('workflows').whereIn('id', [active, paused]).orderBy('id').select('next_run_at');
      expect(back.map((r) => (r.next_run_at === null ? null : Number(r.next_run_at)))).to.deep.equal([AT + 3_600_000, null]);
      expect(await knex('jobs').where({ kind: 'workflow-schedule' })).to.have.length(0);
      expect(Number((await knex('workflow_trigger_positions').where({ name: 'events' }).first('position')).position)).to.equal(42);
      expect(await knex('event_positions').where({ name: 'workflows' })).to.have.length(0);
    });
  });
}
