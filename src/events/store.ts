// The events area's storage: the outbox table (`events`) and each subscriber's read position
// (`event_positions`). Every query of these tables is here.

import type { Knex } from 'knex';
import { inList, prepared } from '../db/prepared.js';

type Db = Knex | Knex.Transaction;

export interface NewEventRow {
  publicId: string;
  organizationId: number;
  brandId: number | null;
  type: string;
  /** The event's data, already JSON. */
  data: string;
  createdAt: number;
}

/** An event as subscribers and readers see it. */
export interface StoredEvent {
  id: number;
  publicId: string;
  organizationId: number;
  brandId: number | null;
  type: string;
  data: Record<string, unknown>;
  createdAt: number;
}

/** What a subscriber reads first: enough to find gaps, pick its types and skip what it cannot use. */
export interface EventHead {
  id: number;
  type: string;
  organizationId: number;
}

/** An id range [from, to] not seen yet, first noticed at `since`. */
export type Gap = [from: number, to: number, since: number];

export interface Position {
  name: string;
  position: number;
  gaps: Gap[];
  turn: number;
}

const eventRow = (e: NewEventRow) => ({
  public_id: e.publicId,
  organization_id: e.organizationId,
  brand_id: e.brandId,
  type: e.type,
  data: e.data,
  created_at: e.createdAt,
});

/** Writes one event; answers its id. */
export async function insertEvent(db: Db, e: NewEventRow): Promise<number> {
  const [id] = await db('events').insert(eventRow(e));
  return Number(id);
}

/** Rows of one multi-row insert of events, at most. */
const EVENTS_PER_INSERT = 500;

/** Writes many events, in order, a few hundred per statement. */
export async function insertEvents(db: Db, events: NewEventRow[]): Promise<void> {
  for (let i = 0; i < events.length; i += EVENTS_PER_INSERT) {
    await db('events').insert(events.slice(i, i + EVENTS_PER_INSERT).map(eventRow));
  }
}

const headOf = (r: { id: number; type: string; organization_id: number }): EventHead => ({
  id: Number(r.id),
  type: r.type,
  organizationId: Number(r.organization_id),
});

/** The committed events after `after`, by id, at most `limit`. */
export async function eventHeadsAfter(db: Db, after: number, limit: number): Promise<EventHead[]> {
  const rows: Array<{ id: number; type: string; organization_id: number }> = await db('events')
    .where('id', '>', after)
    .orderBy('id')
    .limit(limit)
    .select('id', 'type', 'organization_id');
  return rows.map(headOf);
}

/** The committed events whose ids fall in one of `ranges`, by id. */
export async function eventHeadsIn(db: Db, ranges: Array<[number, number]>): Promise<EventHead[]> {
  if (!ranges.length) return [];
  const rows: Array<{ id: number; type: string; organization_id: number }> = await db('events')
    .where((q) => {
      for (const [from, to] of ranges) q.orWhereBetween('id', [from, to]);
    })
    .orderBy('id')
    .select('id', 'type', 'organization_id');
  return rows.map(headOf);
}

function storedEventOf(r: Record<string, any>): StoredEvent {
  return {
    id: Number(r.id),
    publicId: r.public_id,
    organizationId: Number(r.organization_id),
    brandId: r.brand_id === null ? null : Number(r.brand_id),
    type: r.type,
    data: JSON.parse(r.data),
    createdAt: Number(r.created_at),
  };
}

/** The events of `ids`, by id. */
export async function storedEvents(db: Db, ids: number[]): Promise<StoredEvent[]> {
  if (!ids.length) return [];
  const rows = await db('events').whereIn('id', ids).orderBy('id');
  return rows.map(storedEventOf);
}

/** An event to send as it is stored: its data still JSON text (a webhook body carries it as written). */
export interface EventText {
  id: number;
  publicId: string;
  type: string;
  /** The event's data, JSON. */
  data: string;
  createdAt: number;
}

/** The events of `ids` with their data as stored, in one prepared statement (the delivery threads read one batch's). */
export async function eventTexts(db: Db, ids: number[]): Promise<EventText[]> {
  if (!ids.length) return [];
  const list = inList(ids);
  return (await prepared(db, `select id, public_id, type, data, created_at from events where id in (${list.marks})`, list.params)).rows.map((r) => ({
    id: Number(r.id),
    publicId: String(r.public_id),
    type: String(r.type),
    data: String(r.data),
    createdAt: Number(r.created_at),
  }));
}

/** The highest event id written so far (0 when there is none). */
export async function lastEventId(db: Db): Promise<number> {
  const row = await db('events').max({ id: 'id' }).first();
  return Number(row?.id ?? 0);
}

/** Ids of events created before `before`, after id `after`, by id, at most `limit`. */
export async function eventIdsBefore(db: Db, before: number, after: number, limit: number): Promise<number[]> {
  return (await db('events').where('created_at', '<', before).where('id', '>', after).orderBy('id').limit(limit).pluck('id')).map(Number);
}

export async function deleteEvents(db: Db, ids: number[]): Promise<number> {
  if (!ids.length) return 0;
  return db('events').whereIn('id', ids).delete();
}

/**
 * The read position of subscriber `name` in `trx`, locked until it commits on MySQL (SQLite has one
 * writer; `savePosition` checks the turn instead). A subscriber without one starts after the last
 * event written so far.
 */
export async function lockPosition(trx: Knex.Transaction, name: string, lock: boolean, now: number): Promise<Position> {
  const read = async () => {
    const q = trx('event_positions').where({ name });
    return (lock ? q.forUpdate() : q).first();
  };
  let row = await read();
  if (!row) {
    const position = await lastEventId(trx);
    await trx('event_positions').insert({ name, position, gaps: '[]', turn: 0, updated_at: now }).onConflict('name').ignore();
    row = await read();
  }
  return { name, position: Number(row.position), gaps: JSON.parse(row.gaps) as Gap[], turn: Number(row.turn) };
}

/** Stores the new position; throws when another consumer advanced it since `lockPosition` (the transaction then rolls back). */
export async function savePosition(trx: Knex.Transaction, p: Position, now: number): Promise<void> {
  const n = await trx('event_positions')
    .where({ name: p.name, turn: p.turn })
    .update({ position: p.position, gaps: JSON.stringify(p.gaps), turn: p.turn + 1, updated_at: now });
  if (n !== 1) throw new Error(`event subscriber "${p.name}" was advanced by another consumer meanwhile`);
}

/** Where each subscriber stands (tests and the health of the outbox). */
export async function positions(db: Db): Promise<Position[]> {
  const rows = await db('event_positions').orderBy('name');
  return rows.map((r: Record<string, any>) => ({ name: r.name, position: Number(r.position), gaps: JSON.parse(r.gaps) as Gap[], turn: Number(r.turn) }));
}
