// The store boundary: only an area's store.ts queries the database (plus the job queue and src/db/;
// Knex's builder and the prepared statements of src/db/prepared.ts alike;
// nothing else: bootstrap seeds through the stores too), and each table is queried by one store only; other code calls store functions.

import fs from 'node:fs';
import ts from 'typescript';
import { expect } from 'chai';
import { projectPath } from '../../src/paths.js';
import { sourceFiles } from '../helpers/source-files.js';

/** An area's store (src/<area>/store.ts), or the store of a part of one (src/platforms/sandbox/store.ts). */
const STORE = /^src\/[a-z-]+(\/[a-z-]+)?\/store\.ts$/;
/** Files that may query besides the stores: the queue's statements, the connection and migrations runner. */
const ALLOWED = [STORE, /^src\/jobs\/queue\/[a-z-]+\.ts$/, /^src\/db\/[a-z-]+\.ts$/];

/** Names that hold a Knex instance or transaction by convention (`ctx.db`, `deps.knex`, `this.knex`, `trx`). */
const HANDLE_NAMES = ['knex', 'db', 'trx'];
/** A declared type that makes a name a handle whatever it is called: Knex, Knex.Transaction, a `Db` alias, unions of them. */
const HANDLE_TYPE = /^(Knex(\.Transaction)?(<[^>]*>)?|Db)(\s*\|\s*(Knex(\.Transaction)?(<[^>]*>)?|Db))*$/;
/** Methods of a handle that build or run a query. */
const QUERY_METHODS = new Set(['raw', 'from', 'table', 'into', 'batchInsert', 'select', 'insert', 'update', 'delete', 'queryBuilder', 'with', 'schema']);
/** Builder methods whose first argument names a table (joins take at least two arguments, unlike Array#join). */
const TABLE_METHODS = new Set(['from', 'table', 'into', 'batchInsert']);
const JOIN_METHODS = new Set(['join', 'leftJoin', 'rightJoin', 'innerJoin', 'leftOuterJoin', 'fullOuterJoin']);

interface Query {
  file: string;
  line: number;
  text: string;
}

const tableOf = (node: ts.Node | undefined): string | null => (node && ts.isStringLiteralLike(node) ? node.text.split(/\s+as\s+/i)[0].trim() : null);

/**
 * The query calls of one file, found by syntax: a handle called (`db('launches')`, `ctx.db(...)`,
 * `this.knex(...)`) or asked for a query (`knex.raw(...)`, `trx.batchInsert(...)`); and the tables
 * its queries name (their first argument, joins and subqueries included).
 */
function scan(file: string): { queries: Query[]; tables: Set<string> } {
  const source = ts.createSourceFile(file, fs.readFileSync(projectPath(file), 'utf8'), ts.ScriptTarget.Latest, true);
  const handles = new Set(HANDLE_NAMES);
  const isHandle = (e: ts.Expression, builders: ReadonlySet<string>): boolean => {
    if (ts.isAsExpression(e) || ts.isParenthesizedExpression(e)) return isHandle(e.expression, builders);
    return (ts.isIdentifier(e) && (handles.has(e.text) || builders.has(e.text))) || (ts.isPropertyAccessExpression(e) && handles.has(e.name.text));
  };
  // A name typed as Knex, or set from a handle (`through = db`, `const k = ctx.db as Knex`), is a handle whatever it is called.
  const noteHandles = (node: ts.Node) => {
    if ((ts.isParameter(node) || ts.isVariableDeclaration(node) || ts.isPropertyDeclaration(node)) && ts.isIdentifier(node.name)) {
      if ((node.type && HANDLE_TYPE.test(node.type.getText(source).trim())) || (node.initializer && isHandle(node.initializer, new Set())))
        handles.add(node.name.text);
    }
    ts.forEachChild(node, noteHandles);
  };
  noteHandles(source);
  noteHandles(source);
  const queries: Query[] = [];
  const tables = new Set<string>();
  /** The handle a call chain starts from (`ctx.db` in `ctx.db('x').where(...).first()`), or null. */
  const rootOf = (e: ts.Expression, builders: ReadonlySet<string>): ts.Expression | null => {
    for (let at: ts.Expression = e; ;) {
      if (isHandle(at, builders)) return at;
      if (ts.isCallExpression(at) || ts.isPropertyAccessExpression(at)) at = at.expression;
      else return null;
    }
  };
  const visit = (node: ts.Node, builders: ReadonlySet<string>): void => {
    if (!ts.isCallExpression(node)) return ts.forEachChild(node, (child) => visit(child, builders));
    const callee = node.expression;
    const method = ts.isPropertyAccessExpression(callee) ? callee.name.text : null;
    if (isHandle(callee, builders) && !builders.has(callee.getText(source))) {
      queries.push({
        file,
        line: source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1,
        text: node.getText(source).split('\n')[0].slice(0, 100),
      });
      const table = tableOf(node.arguments[0]);
      if (table) tables.add(table);
    } else if (method && ts.isPropertyAccessExpression(callee) && QUERY_METHODS.has(method) && isHandle(callee.expression, new Set())) {
      queries.push({
        file,
        line: source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1,
        text: node.getText(source).split('\n')[0].slice(0, 100),
      });
    }
    // A prepared statement (src/db/prepared.ts) is a query too; its SQL text names its tables.
    if (ts.isIdentifier(callee) && callee.text === 'prepared') {
      queries.push({
        file,
        line: source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1,
        text: node.getText(source).split('\n')[0].slice(0, 100),
      });
      const sql = node.arguments[1] ? node.arguments[1].getText(source) : '';
      for (const m of sql.matchAll(/\b(?:from|into|update|join)\s+([a-z_]+)/gi)) tables.add(m[1]);
    }
    const inQuery = rootOf(callee, builders) !== null;
    if (inQuery && method && (TABLE_METHODS.has(method) || (JOIN_METHODS.has(method) && node.arguments.length >= 2))) {
      const table = tableOf(node.arguments[0]);
      if (table) tables.add(table);
    }
    visit(callee, builders);
    for (const arg of node.arguments) {
      // The parameter of a callback given to a query (`whereExists((q) => q.from(...))`) is a builder of it.
      if (inQuery && (ts.isArrowFunction(arg) || ts.isFunctionExpression(arg))) {
        const inner = new Set(builders);
        for (const p of arg.parameters) if (ts.isIdentifier(p.name)) inner.add(p.name.text);
        visit(arg, inner);
      } else visit(arg, builders);
    }
  };
  visit(source, new Set());
  return { queries, tables };
}

const allowed = (file: string) => ALLOWED.some((re) => re.test(file));

describe('store boundary', () => {
  const files = [...sourceFiles('src'), ...sourceFiles('surfaces')].filter((f) => !f.endsWith('.generated.ts'));
  const scans = new Map(files.map((f) => [f, scan(f)] as const));
  const queries = new Map([...scans].map(([f, s]) => [f, s.queries] as const));

  it('finds the queries it looks for (a store of a moved area holds some)', () => {
    expect(queries.get('src/launches/store.ts')?.length).to.be.greaterThan(5);
  });

  it('has no query outside the stores, the queue and src/db/ (bootstrap included)', () => {
    const outside = [...queries].filter(([f, q]) => q.length && !allowed(f));
    const lines = outside.flatMap(([, q]) => q.map((x) => `${x.file}:${x.line}: ${x.text}`));
    expect(lines, "move these queries into their area's store.ts and call its functions").to.deep.equal([]);
  });

  it('has each table queried by one store only (other areas call that store)', () => {
    const owners = new Map<string, Set<string>>();
    for (const [file, { tables }] of scans) {
      if (!STORE.test(file)) continue;
      for (const table of tables) owners.set(table, (owners.get(table) ?? new Set()).add(file));
    }
    const shared = [...owners].filter(([, by]) => by.size > 1).map(([table, by]) => `${table}: ${[...by].join(', ')}`);
    expect(shared).to.deep.equal([]);
  });
});
