// The shapes the board operations answer with: a column, a card with its launch's status, and the
// whole board (columns in order, then every card column by column).

import type { Knex } from 'knex';
import { launchStatuses } from '../launches/store.js';
import { cardsOfBrand, loadColumns, type CardRow, type ColumnRow } from './store.js';

type Db = Knex | Knex.Transaction;

const iso = (ms: number) => new Date(ms).toISOString();

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

/** The card's launch status now, for its view. */
export async function launchStatusOf(db: Db, launchId: number): Promise<string> {
  return (await launchStatuses(db, [launchId])).get(launchId) ?? 'draft';
}

/** The brand's board: columns in order, then every card in column order and position. */
export async function boardView(db: Db, brandId: number) {
  const columns = await loadColumns(db, brandId);
  const cards = await cardsOfBrand(db, brandId);
  const statuses = await launchStatuses(
    db,
    cards.map((c) => c.launchId),
  );
  const byColumn = new Map<number, Array<ReturnType<typeof cardView>>>();
  for (const card of cards) {
    const status = statuses.get(card.launchId);
    if (status === undefined) continue;
    const list = byColumn.get(card.columnId) ?? [];
    list.push(cardView({ ...card, position: list.length }, status));
    byColumn.set(card.columnId, list);
  }
  return {
    columns: columns.map(columnView),
    cards: columns.flatMap((c) => byColumn.get(c.id) ?? []),
  };
}
