// Prepared-statement reuse on SQLite (src/db/statement-cache.ts): the same SQL text gets the same
// prepared statement back, the least recently used one goes when the cache is full, size 0 turns
// reuse off, and a service connection opened through knexConfigFor reuses its statements.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import knexFactory from 'knex';
import { knexConfigFor } from '../../src/db/connection.js';
import { DEFAULT_STATEMENT_CACHE_SIZE, reusePreparedStatements, setStatementCacheSize } from '../../src/db/statement-cache.js';

describe('SQLite prepared-statement reuse', () => {
  afterEach(() => setStatementCacheSize(DEFAULT_STATEMENT_CACHE_SIZE));

  function connection(): Database.Database {
    const db = new Database(':memory:');
    db.exec('create table t (a integer)');
    return db;
  }

  it('hands out the same prepared statement for the same SQL text, and a fresh one for other text', () => {
    const db = connection();
    reusePreparedStatements(db);
    const first = db.prepare('select a from t where a = ?');
    expect(db.prepare('select a from t where a = ?')).to.equal(first);
    expect(db.prepare('select a from t where a > ?')).to.not.equal(first);
    db.prepare('insert into t (a) values (?)').run(7);
    db.prepare('insert into t (a) values (?)').run(8);
    expect(db.prepare('select a from t where a = ?').all(8)).to.deep.equal([{ a: 8 }]);
    db.close();
  });

  it('drops the least recently used statement when full', () => {
    setStatementCacheSize(2);
    const db = connection();
    reusePreparedStatements(db);
    const a = db.prepare('select 1');
    const b = db.prepare('select 2');
    expect(db.prepare('select 1')).to.equal(a);
    db.prepare('select 3');
    expect(db.prepare('select 1')).to.equal(a);
    expect(db.prepare('select 2')).to.not.equal(b);
    db.close();
  });

  it('prepares afresh every time with size 0', () => {
    setStatementCacheSize(0);
    const db = connection();
    reusePreparedStatements(db);
    expect(db.prepare('select 1')).to.not.equal(db.prepare('select 1'));
    db.close();
  });

  it('reuses statements on a service connection, across queries with other bindings', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-stmt-'));
    const knex = knexFactory(knexConfigFor(`sqlite:${path.join(dir, 'x.sqlite')}`).config);
    try {
      await knex.schema.createTable('t', (t) => t.integer('a'));
      for (let i = 0; i < 3; i++) await knex('t').insert({ a: i });
      expect(await knex('t').where('a', '>', 0).pluck('a')).to.deep.equal([1, 2]);
      const conn = (await knex.client.acquireConnection()) as Database.Database;
      try {
        // The statement Knex prepared for the inserts is the one the connection hands out again.
        const sql = knex('t').insert({ a: 9 }).toSQL().toNative().sql;
        expect(conn.prepare(sql)).to.equal(conn.prepare(sql));
      } finally {
        await knex.client.releaseConnection(conn);
      }
    } finally {
      await knex.destroy();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
