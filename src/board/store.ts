// The board area's tables (`board` in code; the API says "pipeline"): `board_columns` and
// `board_cards`, the columns and cards of one brand, and the ordering rules. The only file that
// queries them. Positions are indexes from 0 in the brand's column order or in a column; every
// change renumbers what it displaced under the locks below. Lock order, always: the brand row
// (column layout changes, brands/store.ts lockBrand), then columns by id, then cards.

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
export async function lockColumns(trx: Db, brandId: number, columnIds: number[]): Promise<Map<number, ColumnRow>> {
  const ids = [...new Set(columnIds)].sort((a, b) => a - b);
  const rows = await trx('board_columns').whereIn('id', ids).where({ brand_id: brandId }).orderBy('id').forUpdate();
  const found = new Map(rows.map((r: Record<string, any>) => [Number(r.id), toColumn(r)]));
  for (const id of columnIds) if (!found.has(id)) throw notFound(`Pipeline column ${id} of brand ${brandId}`);
  return found;
}

/** The column `id` of a map lockColumns answered (it throws for a missing one, so this never does but for a column not asked for). */
export function columnIn(columns: Map<number, ColumnRow>, id: number): ColumnRow {
  const c = columns.get(id);
  if (!c) throw notFound(`Pipeline column ${id}`);
  return c;
}

/** The column `id` of the brand with its index as `position`; 404 when missing or another brand's. */
export async function loadColumn(db: Db, brandId: number, id: number): Promise<ColumnRow> {
  const c = (await loadColumns(db, brandId)).find((x) => x.id === id);
  if (!c) throw notFound(`Pipeline column ${id} of brand ${brandId}`);
  return c;
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
export async function renumber(trx: Db, table: 'board_columns' | 'board_cards', order: number[]): Promise<void> {
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

/** Every card of the brand, in position order (then id): callers group them by column. */
export async function cardsOfBrand(db: Db, brandId: number): Promise<CardRow[]> {
  const rows = await db('board_cards')
    .where({ brand_id: brandId })
    .orderBy([{ column: 'position' }, { column: 'id' }]);
  return rows.map(toCard);
}

/** Cards in a column, or on a brand's whole board. */
export async function countCards(db: Db, where: { columnId: number } | { brandId: number }): Promise<number> {
  const q = db('board_cards');
  if ('columnId' in where) q.where({ column_id: where.columnId });
  else q.where({ brand_id: where.brandId });
  return Number((await q.count({ n: '*' }).first())?.n ?? 0);
}

// ---- columns

/** Stores a new column (a name another column of the brand has: a unique violation); answers its id. */
export async function insertColumn(
  db: Db,
  c: { organizationId: number; brandId: number; name: string; position: number; publishes: boolean; workflowId: number | null; now: number },
): Promise<number> {
  const [id] = await db('board_columns').insert({
    organization_id: c.organizationId,
    brand_id: c.brandId,
    name: c.name,
    position: c.position,
    publishes: c.publishes,
    workflow_id: c.workflowId,
    created_at: c.now,
    updated_at: c.now,
  });
  return Number(id);
}

/** Changes the fields of a column that are given. */
export async function updateColumn(db: Db, id: number, change: { name?: string; publishes?: boolean; workflowId?: number | null; now: number }): Promise<void> {
  await db('board_columns')
    .where({ id })
    .update({
      updated_at: change.now,
      ...(change.name !== undefined ? { name: change.name } : {}),
      ...(change.publishes !== undefined ? { publishes: change.publishes } : {}),
      ...(change.workflowId !== undefined ? { workflow_id: change.workflowId } : {}),
    });
}

export async function deleteColumn(db: Db, id: number): Promise<void> {
  await db('board_columns').where({ id }).delete();
}

// ---- cards

/** The card holding `launchId` (a launch sits on the board once), or undefined. */
export async function cardOfLaunch(db: Db, launchId: number): Promise<{ id: number; brandId: number; columnId: number } | undefined> {
  const row = await db('board_cards').where({ launch_id: launchId }).first('id', 'brand_id', 'column_id');
  return row ? { id: Number(row.id), brandId: Number(row.brand_id), columnId: Number(row.column_id) } : undefined;
}

/** Stores a new card at the end of its column (a launch already on the board: a unique violation); answers its id. */
export async function insertCard(
  db: Db,
  c: { organizationId: number; brandId: number; columnId: number; launchId: number; title: string; now: number },
): Promise<number> {
  const [id] = await db('board_cards').insert({
    organization_id: c.organizationId,
    brand_id: c.brandId,
    column_id: c.columnId,
    launch_id: c.launchId,
    title: c.title,
    position: 1_000_000,
    version: 1,
    created_at: c.now,
    updated_at: c.now,
  });
  return Number(id);
}

/** Locks a card and answers its version and column, or undefined when it is gone. */
export async function lockCard(trx: Db, id: number): Promise<{ version: number; columnId: number } | undefined> {
  const row = await trx('board_cards').where({ id }).forUpdate().first('version', 'column_id');
  return row ? { version: Number(row.version), columnId: Number(row.column_id) } : undefined;
}

/**
 * Moves a card at `version` to `columnId` (and retitles it), version + 1, in one conditional
 * statement: 1 when it did, 0 when the card changed meanwhile.
 */
export async function moveCard(db: Db, id: number, version: number, change: { columnId: number; title?: string; now: number }): Promise<number> {
  return db('board_cards')
    .where({ id, version })
    .update({ column_id: change.columnId, ...(change.title !== undefined ? { title: change.title } : {}), version: version + 1, updated_at: change.now });
}

export async function deleteCard(db: Db, id: number): Promise<void> {
  await db('board_cards').where({ id }).delete();
}
