// Storage of the pipeline board (`board` in code; the API says "pipeline"): columns and cards of
// one brand, their views, and the ordering rules. Positions are indexes from 0 in the brand's
// column order or in a column; every change renumbers what it displaced under the locks below.
// Lock order, always: the brand row (column layout changes), then columns by id, then cards.

import type { Knex } from 'knex';
import { notFound } from '../errors.js';

type Db = Knex | Knex.Transaction;

/** Columns a brand's board may have. */
export const MAX_COLUMNS = 50;
/** Cards a brand's board may hold (get-pipeline answers them all). */
export const MAX_CARDS = 1000;

export interface ColumnRow {
  id: number;
  brandId: number;
  name: string;
  position: number;
  publishes: boolean;
  workflowId: number | null;
  createdAt: number;
  updatedAt: number;
}

export interface CardRow {
  id: number;
  brandId: number;
  columnId: number;
  launchId: number;
  title: string;
  position: number;
  version: number;
  createdAt: number;
  updatedAt: number;
}

const iso = (ms: number) => new Date(ms).toISOString();

function toColumn(r: Record<string, any>): ColumnRow {
  return {
    id: Number(r.id),
    brandId: Number(r.brand_id),
    name: r.name,
    position: Number(r.position),
    publishes: Boolean(r.publishes),
    workflowId: r.workflow_id === null || r.workflow_id === undefined ? null : Number(r.workflow_id),
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
  };
}

function toCard(r: Record<string, any>): CardRow {
  return {
    id: Number(r.id),
    brandId: Number(r.brand_id),
    columnId: Number(r.column_id),
    launchId: Number(r.launch_id),
    title: r.title,
    position: Number(r.position),
    version: Number(r.version),
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
  };
}

export function columnView(c: ColumnRow) {
  return {
    columnId: c.id,
    brandId: c.brandId,
    name: c.name,
    position: c.position,
    publishes: c.publishes,
    workflowId: c.workflowId,
    createdAt: iso(c.createdAt),
    updatedAt: iso(c.updatedAt),
  };
}

export function cardView(c: CardRow, launchStatus: string) {
  return {
    cardId: c.id,
    brandId: c.brandId,
    columnId: c.columnId,
    launchId: String(c.launchId),
    launchStatus,
    title: c.title,
    position: c.position,
    version: c.version,
    createdAt: iso(c.createdAt),
    updatedAt: iso(c.updatedAt),
  };
}

/** The brand's columns in board order, each with its index as `position`. */
export async function loadColumns(db: Db, brandId: number, forUpdate = false): Promise<ColumnRow[]> {
  // Locked in id order, the order card operations lock columns in, so the two never wait on each other in a cycle.
  if (forUpdate) await db('board_columns').where({ brand_id: brandId }).orderBy('id').forUpdate().select('id');
  const q = db('board_columns')
    .where({ brand_id: brandId })
    .orderBy([{ column: 'position' }, { column: 'id' }]);
  return (await q).map((r: Record<string, any>, i: number) => ({ ...toColumn(r), position: i }));
}

/** Locks the columns (by id, the lock order) and answers them; 404 naming the first that is missing. */
export async function lockColumns(trx: Knex.Transaction, brandId: number, columnIds: number[]): Promise<Map<number, ColumnRow>> {
  const ids = [...new Set(columnIds)].sort((a, b) => a - b);
  const rows = await trx('board_columns').whereIn('id', ids).where({ brand_id: brandId }).orderBy('id').forUpdate();
  const found = new Map(rows.map((r: Record<string, any>) => [Number(r.id), toColumn(r)]));
  for (const id of columnIds) if (!found.has(id)) throw notFound(`Pipeline column ${id} of brand ${brandId}`);
  return found;
}

/** Locks the brand's row: column layout changes (create, reorder, delete) take it first. */
export async function lockBrand(trx: Knex.Transaction, brandId: number): Promise<void> {
  await trx('brands').where({ id: brandId }).forUpdate().first('id');
}

/** One card of the brand with its index in its column as `position`; 404 when missing or another brand's. */
export async function loadCard(db: Db, brandId: number, cardId: number, forUpdate = false): Promise<CardRow> {
  const q = db('board_cards').where({ id: cardId, brand_id: brandId }).first();
  if (forUpdate) q.forUpdate();
  const row = await q;
  if (!row) throw notFound(`Pipeline card ${cardId} of brand ${brandId}`);
  const card = toCard(row);
  const before = await db('board_cards')
    .where({ column_id: card.columnId })
    .andWhere((q2) => q2.where('position', '<', card.position).orWhere((q3) => q3.where('position', card.position).andWhere('id', '<', card.id)))
    .count({ n: '*' })
    .first();
  return { ...card, position: Number(before?.n ?? 0) };
}

/** The cards of a column in order (ids only), optionally leaving one out. */
export async function columnOrder(db: Db, columnId: number, without?: number): Promise<number[]> {
  const ids: unknown[] = await db('board_cards')
    .where({ column_id: columnId })
    .orderBy([{ column: 'position' }, { column: 'id' }])
    .pluck('id');
  return ids.map(Number).filter((id) => id !== without);
}

/** `order` with `id` put at `position` (past the end: last); answers the index it got. */
export function insertAt(order: number[], id: number, position: number | undefined): number {
  const at = position === undefined ? order.length : Math.min(position, order.length);
  order.splice(at, 0, id);
  return at;
}

/** Stores each row's index in `order` as its position, in one statement per 500 rows. */
export async function renumber(trx: Knex.Transaction, table: 'board_columns' | 'board_cards', order: number[]): Promise<void> {
  for (let start = 0; start < order.length; start += 500) {
    const chunk = order.slice(start, start + 500);
    const cases = chunk.map(() => 'when ? then ?').join(' ');
    await trx(table)
      .whereIn('id', chunk)
      .update({
        position: trx.raw(
          `case id ${cases} end`,
          chunk.flatMap((id, i) => [id, start + i]),
        ),
      });
  }
}

/** The brand's board: columns in order, then every card in column order and position. */
export async function loadBoard(db: Db, brandId: number) {
  const columns = await loadColumns(db, brandId);
  const rows = await db('board_cards as c')
    .join('launches as l', 'l.id', 'c.launch_id')
    .where('c.brand_id', brandId)
    .select('c.*', 'l.status as launch_status')
    .orderBy([{ column: 'c.position' }, { column: 'c.id' }]);
  const byColumn = new Map<number, Array<ReturnType<typeof cardView>>>();
  for (const r of rows) {
    const list = byColumn.get(Number(r.column_id)) ?? [];
    list.push(cardView({ ...toCard(r), position: list.length }, r.launch_status));
    byColumn.set(Number(r.column_id), list);
  }
  return {
    columns: columns.map(columnView),
    cards: columns.flatMap((c) => byColumn.get(c.id) ?? []),
  };
}

/** The card's launch status now, for its view. */
export async function launchStatusOf(db: Db, launchId: number): Promise<string> {
  const row = await db('launches').where({ id: launchId }).first('status');
  return row?.status ?? 'draft';
}
