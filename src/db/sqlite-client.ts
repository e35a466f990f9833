// The better-sqlite3 Knex client with one change: a multi-row insert is compiled as
// `insert into t (a, b) values (?, ?), (?, ?)` instead of Knex's `insert into t (a, b) select ? as a, ? as b
// union all select ?, ?` (a form kept from SQLite versions before 3.7.11). SQLite parses and runs the
// VALUES list faster, and it is not a compound select, so no `where true` is needed before an
// `on conflict` clause. Everything else (single-row inserts, inserts from a query, empty rows,
// `onConflict().ignore()/merge()`, `returning`) is Knex's own compilation, with the same bindings in
// the same order.

import { createRequire } from 'node:module';
import type { Knex } from 'knex';

const require = createRequire(import.meta.url);

interface Compiler {
  client: {
    valueForUndefined: unknown;
    parameterize(values: unknown[], notSetValue: unknown, builder: unknown, bindingsHolder: unknown): string;
  };
  builder: unknown;
  bindingsHolder: unknown;
  tableName: string;
  formatter: { columnize(columns: string[]): string };
  single: {
    insert?: unknown;
    returning?: unknown;
    onConflict?: unknown;
    ignore?: boolean;
    merge?: { updates: unknown };
  };
  with(): string;
  where(): string;
  _prepInsert(data: unknown): string | { columns: string[]; values: unknown[][] };
  _ignore(columns: unknown): string;
  _merge(updates: unknown, columns: unknown, insert: unknown): string;
  _returning(returning: unknown): string;
  insert(): unknown;
}

type CompilerClass = new (...args: unknown[]) => Compiler;
type ClientClass = new (config: Knex.Config) => { queryCompiler(builder: unknown, formatter: unknown): Compiler };

const BaseCompiler = require('knex/lib/dialects/sqlite3/query/sqlite-querycompiler.js') as CompilerClass;
const BaseClient = require('knex/lib/dialects/better-sqlite3/index.js') as ClientClass;

class ValuesInsertCompiler extends BaseCompiler {
  override insert(): unknown {
    const rows = this.single.insert;
    if (!Array.isArray(rows) || rows.length < 2) return super.insert();
    const data = this._prepInsert(rows);
    if (typeof data === 'string' || data.columns.length === 0 || data.values.length < 2) return super.insert();
    const notSet = this.client.valueForUndefined;
    // Without useNullAsDefault Knex refuses undefined values; its own path raises that error.
    if (notSet !== null && data.values.some((row) => row.some((v) => v === undefined))) return super.insert();

    let sql = `${this.with()}insert into ${this.tableName} (${this.formatter.columnize(data.columns)}) values `;
    sql += data.values.map((row) => `(${this.client.parameterize(row, notSet, this.builder, this.bindingsHolder)})`).join(', ');
    const { onConflict, ignore, merge, returning } = this.single;
    if (onConflict && ignore) sql += this._ignore(onConflict);
    else if (onConflict && merge) {
      sql += this._merge(merge.updates, onConflict, rows);
      const wheres = this.where();
      if (wheres) sql += ` ${wheres}`;
    }
    if (returning) sql += this._returning(returning);
    return { sql, returning };
  }
}

/** Knex's better-sqlite3 client compiling multi-row inserts as one `values` list. */
export class SqliteClient extends BaseClient {
  override queryCompiler(builder: unknown, formatter: unknown): Compiler {
    return new ValuesInsertCompiler(this, builder, formatter);
  }
}
