// The SQLite client (src/db/sqlite-client.ts): a multi-row insert is one `values` list, with the
// same rows, bindings and answers as Knex's own form: defaults for missing columns (null), on
// conflict ignore and merge (columns or values, with a where), returning, inserts from a query,
// an insert inside a `with`, and a single row as Knex writes it.

import { expect } from 'chai';
import type { Knex } from 'knex';
import { openDatabase } from '../../src/db/connection.js';

describe('SQLite client: multi-row inserts as one VALUES list', () => {
  let knex: Knex;

  beforeEach(async () => {
    knex = openDatabase('sqlite::memory:').knex;
    await knex.schema.createTable('t', (t) => {
      t.increments('id');
      t.string('a').notNullable().unique();
      t.integer('b');
    });
  });
  afterEach(() => knex.destroy());

  const rows = () => knex('t').select('id', 'a', 'b').orderBy('id');

  it('compiles several rows as `values (...), (...)` with the bindings row by row, null for a missing column', async () => {
    const q = knex('t').insert([{ a: 'x', b: 1 }, { a: 'y' }]);
    const { sql, bindings } = q.toSQL().toNative();
    expect(sql).to.equal('insert into `t` (`a`, `b`) values (?, ?), (?, ?)');
    expect(bindings).to.deep.equal(['x', 1, 'y', null]);
    expect(await q).to.deep.equal([2]);
    expect(await rows()).to.deep.equal([
      { id: 1, a: 'x', b: 1 },
      { id: 2, a: 'y', b: null },
    ]);
  });

  it('keeps onConflict().ignore() and returning: the conflicting row is left alone, the new one returned', async () => {
    await knex('t').insert([
      { a: 'x', b: 1 },
      { a: 'y', b: 2 },
    ]);
    const q = knex('t')
      .insert([
        { a: 'x', b: 5 },
        { a: 'z', b: 3 },
      ])
      .onConflict('a')
      .ignore()
      .returning(['a', 'b']);
    expect(q.toSQL().toNative().sql).to.equal('insert into `t` (`a`, `b`) values (?, ?), (?, ?) on conflict (`a`) do nothing returning `a`, `b`');
    expect(await q).to.deep.equal([{ a: 'z', b: 3 }]);
    expect((await rows()).map(({ a, b }) => ({ a, b }))).to.deep.equal([
      { a: 'x', b: 1 },
      { a: 'y', b: 2 },
      { a: 'z', b: 3 },
    ]);
  });

  it('keeps onConflict().merge() by columns and by values with a where', async () => {
    await knex('t').insert([
      { a: 'x', b: 1 },
      { a: 'y', b: 2 },
    ]);
    const merged = await knex('t')
      .insert([
        { a: 'x', b: 7 },
        { a: 'w', b: 4 },
      ])
      .onConflict('a')
      .merge(['b'])
      .returning(['a', 'b']);
    expect(merged).to.deep.equal([
      { a: 'x', b: 7 },
      { a: 'w', b: 4 },
    ]);
    const q = knex('t')
      .insert([
        { a: 'x', b: 0 },
        { a: 'y', b: 0 },
      ])
      .onConflict('a')
      .merge({ b: knex.raw('?? + 100', ['t.b']) })
      .where('t.b', '>', 5);
    expect(q.toSQL().toNative().sql).to.match(
      /^insert into `t` \(`a`, `b`\) values \(\?, \?\), \(\?, \?\) on conflict \(`a`\) do update set .* where `t`.`b` > \?$/,
    );
    await q;
    expect((await rows()).map(({ a, b }) => ({ a, b }))).to.deep.equal([
      { a: 'x', b: 107 },
      { a: 'y', b: 2 },
      { a: 'w', b: 4 },
    ]);
  });

  it('leaves one row, an insert from a query and a with clause as they were', async () => {
    expect(knex('t').insert({ a: 'x', b: 1 }).toSQL().toNative().sql).to.equal('insert into `t` (`a`, `b`) values (?, ?)');
    await knex('t').insert({ a: 'x', b: 1 });
    const fromQuery = knex('t').insert(knex('t').select(knex.raw("a || '2'"), 'b'));
    expect(fromQuery.toSQL().toNative().sql).to.match(/^insert into `t` select /);
    await fromQuery.into(knex.raw('?? (??, ??)', ['t', 'a', 'b']));
    await knex
      .with('src', knex.raw("select 'q' as a"))
      .insert([
        { a: 'q1', b: 8 },
        { a: 'q2', b: 9 },
      ])
      .into('t');
    expect((await rows()).map((r) => r.a)).to.deep.equal(['x', 'x2', 'q1', 'q2']);
  });
});
