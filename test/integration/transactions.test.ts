// Storage: migrations apply on each dialect, and a transaction that loses a real deadlock is
// retried as a whole transaction.

import { expect } from 'chai';
import type { Knex } from 'knex';
import { inTransaction, openDatabase } from '../../src/db/connection.js';
import { migrateLatest } from '../../src/db/migrate.js';
import { createTestDatabase, dialects, type TestDatabase } from '../helpers/databases.js';
import { rejectionOf } from '../helpers/assert.js';

for (const dialect of dialects()) {
  describe(`storage (${dialect})`, () => {
    let db: TestDatabase;
    let knex: Knex;
    before(async () => {
      db = await createTestDatabase(dialect);
      knex = openDatabase(db.url).knex;
    });
    after(async () => {
      await knex?.destroy();
      await db?.drop();
    });

    it('applies every migration once; a second run applies none', async () => {
      const first = await migrateLatest(knex);
      expect(first).to.include('20261121000000_foundation.ts');
      expect(await migrateLatest(knex)).to.deep.equal([]);
      for (const table of ['organizations', 'users', 'memberships', 'brands', 'ad_accounts', 'api_keys', 'activity_entries', 'idempotency_records']) {
        expect(await knex.schema.hasTable(table), table).to.equal(true);
      }
    });

    it('rolls a failed transaction back whole', async () => {
      await knex('service_settings').insert({ name: 'probe', value: 'before' });
      const failure = inTransaction(knex, async (trx) => {
        await trx('service_settings').where({ name: 'probe' }).update({ value: 'changed' });
        await trx('service_settings').insert({ name: 'probe', value: 'duplicate' });
      });
      const err = await rejectionOf(failure);
      expect(err.message).to.match(/UNIQUE|Duplicate/i);
      expect((await knex('service_settings').where({ name: 'probe' }).first()).value).to.equal('before');
    });

    if (dialect === 'mysql') {
      it('retries the whole transaction that MariaDB picks as a deadlock victim (1213)', async function () {
        this.timeout(20_000);
        await knex('service_settings').insert([
          { name: 'lock-a', value: '0' },
          { name: 'lock-b', value: '0' },
        ]);
        let attempts = 0;
        const gate = { count: 0, waiters: [] as Array<() => void> };
        // Both transactions take one row, meet at the gate, then reach for the other's row: a true deadlock.
        const meet = () =>
          new Promise<void>((resolve) => {
            gate.count += 1;
            gate.waiters.push(resolve);
            if (gate.count === 2) gate.waiters.forEach((w) => w());
          });
        const crossing = (first: string, second: string) =>
          inTransaction(knex, async (trx) => {
            attempts += 1;
            await trx('service_settings')
              .where({ name: first })
              .update({ value: knex.raw('value + 1') });
            if (gate.count < 2) await meet();
            await trx('service_settings')
              .where({ name: second })
              .update({ value: knex.raw('value + 1') });
          });
        await Promise.all([crossing('lock-a', 'lock-b'), crossing('lock-b', 'lock-a')]);
        expect(attempts).to.be.greaterThan(2);
        const rows = await knex('service_settings').whereIn('name', ['lock-a', 'lock-b']).orderBy('name');
        // Each transaction committed exactly once: every row was incremented twice in all.
        expect(rows.map((r) => Number(r.value))).to.deep.equal([2, 2]);
      });
    }
  });
}
