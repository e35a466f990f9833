// A fresh SQLite file starts from a snapshot of the migrated schema (src/db/sqlite-snapshot.ts): the
// snapshot must be what the generator writes now from the migrations themselves, and a file started
// from it must hold what the migrations leave (every sqlite_master entry, every table's rows, the
// migrations recorded), so that later migrations apply to it as to a migrated one.

import fs from 'node:fs';
import { expect } from 'chai';
import { SQLITE_SNAPSHOT_FILE, migratedSqlite, renderSqliteSnapshot, sqliteContents } from '../../scripts/write-sqlite-snapshot.js';
import { migrateLatest, migrationFiles, pendingMigrations } from '../../src/db/migrate.js';
import { projectPath } from '../../src/paths.js';

const shipped = () => migrationFiles(projectPath('dist', 'migrations')).map((f) => f.replace(/\.js$/, '.ts'));

describe('SQLite schema snapshot', function () {
  this.timeout(60_000);

  it('matches src/db/sqlite-schema.generated.json (run `npm run generate` after adding a migration)', async () => {
    const committed = fs.readFileSync(SQLITE_SNAPSHOT_FILE, 'utf8');
    expect(committed === (await renderSqliteSnapshot()), 'src/db/sqlite-schema.generated.json is stale: run `npm run generate`').to.equal(true);
  });

  it('gives a fresh file what the migrations give it: sqlite_master, every row, the migrations recorded', async () => {
    const migrated = await migratedSqlite(sqliteContents);
    let applied: string[] = [];
    const started = await migratedSqlite(sqliteContents, async (knex) => {
      applied = await migrateLatest(knex);
    });
    expect(applied).to.deep.equal(shipped());
    // Started from the snapshot, which creates every table before any index of its own statement.
    const kinds = started.master.filter((m) => m.sql !== null).map((m) => m.type);
    expect(kinds.indexOf('index')).to.be.greaterThan(kinds.lastIndexOf('table'));
    // The same entries; the snapshot creates every table before the indexes, so their rowids differ.
    const byName = (master: typeof migrated.master) => [...master].sort((a, b) => `${a.type} ${a.name}`.localeCompare(`${b.type} ${b.name}`));
    expect(byName(started.master)).to.deep.equal(byName(migrated.master));
    expect(started.rows).to.deep.equal(migrated.rows);
    expect(started.rows.knex_migrations.map((r) => r.name)).to.deep.equal(shipped());
  });

  it('leaves nothing pending, and the next migrateLatest finds nothing to do', async () => {
    await migratedSqlite(
      async () => {},
      async (knex) => {
        await migrateLatest(knex);
        expect(await pendingMigrations(knex)).to.deep.equal([]);
        expect(await migrateLatest(knex)).to.deep.equal([]);
      },
    );
  });
});
