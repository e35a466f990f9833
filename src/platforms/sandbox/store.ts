// The sandbox platforms' tables: `sandbox_objects` (campaigns, ad sets and ads of both simulated
// platforms), `sandbox_status_events` (each object's status history) and `sandbox_assets` (pages,
// pixels, audiences, lead forms...). The only file that queries them besides bootstrap seeding;
// the adapter (adapter.ts) and the live-launch seeder (src/launches/live-launch.ts) call these functions.

import type { Knex } from 'knex';
import type { Budget, ObjectLevel, PlatformName, PlatformStatus } from '../port.js';

type Db = Knex | Knex.Transaction;

/** A simulated object as the budget and delivery rules read it. */
export interface TreeRow {
  objectId: string;
  parentId: string | null;
  name: string;
  budgetPeriod: Budget['period'] | null;
  budgetCents: number | null;
}

/** A campaign row of a campaign listing; `rowId` is its keyset position. */
export interface CampaignRow {
  rowId: number;
  objectId: string;
  name: string;
  status: PlatformStatus;
  objective: string | null;
  budgetPeriod: Budget['period'] | null;
  budgetCents: number | null;
  createdAt: number;
}

/** A new simulated object. */
export interface NewObject {
  platform: PlatformName;
  accountId: string;
  level: ObjectLevel;
  objectId: string;
  parentId: string | null;
  name: string;
  marker: string | null;
  status: string;
  objective: string | null;
  budget: Budget | null;
  settings: Record<string, unknown>;
  at: number;
}

const cents = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

function toTreeRow(r: Record<string, any>): TreeRow {
  return { objectId: r.object_id, parentId: r.parent_id ?? null, name: r.name, budgetPeriod: r.budget_period ?? null, budgetCents: cents(r.budget_cents) };
}

function objects(db: Db, accountId: string, level: ObjectLevel) {
  return db('sandbox_objects').where({ account_id: accountId, level });
}

/**
 * One page of the account's campaigns that are not deleted, newest first, below `beforeRowId`,
 * with `filters` (SQL conditions on the row and their bindings) applied; and, in the same pass,
 * how many campaigns the account has and how many of them match the filters.
 */
export async function campaignPage(
  db: Knex,
  accountId: string,
  filters: Array<[string, unknown[]]>,
  beforeRowId: number | null,
  limit: number,
): Promise<{ rows: CampaignRow[]; total: number; matched: number }> {
  // MariaDB otherwise scans backwards from the newest row to reach a deep keyset position.
  const table =
    db.client.config.client === 'mysql2' ? db.raw('?? force index (??)', ['sandbox_objects', 'sandbox_objects_account_id_level_id_index']) : 'sandbox_objects';
  const page = db(table as string)
    .where({ account_id: accountId, level: 'campaign' })
    .whereNot('status', 'DELETED')
    .orderBy('id', 'desc')
    .limit(limit);
  for (const [sql, bindings] of filters) page.whereRaw(sql, bindings as never[]);
  if (beforeRowId !== null) page.where('id', '<', beforeRowId);
  const matchedSql = filters.length ? `sum(case when ${filters.map(([sql]) => sql).join(' and ')} then 1 else 0 end)` : 'count(*)';
  const [totals, rows] = await Promise.all([
    objects(db, accountId, 'campaign')
      .whereNot('status', 'DELETED')
      .first(db.raw(`count(*) as total, ${matchedSql} as matched`, filters.flatMap(([, b]) => b) as never[])),
    page.select('id', 'object_id', 'name', 'status', 'objective', 'budget_period', 'budget_cents', 'created_at'),
  ]);
  return {
    rows: rows.map((r: Record<string, any>) => ({
      rowId: Number(r.id),
      objectId: r.object_id,
      name: r.name,
      status: r.status,
      objective: r.objective ?? null,
      budgetPeriod: r.budget_period ?? null,
      budgetCents: cents(r.budget_cents),
      createdAt: Number(r.created_at),
    })),
    total: Number(totals?.total ?? 0),
    matched: Number(totals?.matched ?? 0),
  };
}

/** The lead forms of a page of the account, in id order after `afterRowId`, at most `limit`. */
export async function leadForms(
  db: Db,
  accountId: string,
  pageId: string,
  afterRowId: number | null,
  limit: number,
): Promise<Array<{ rowId: number; assetId: string; name: string | null }>> {
  const q = db('sandbox_assets').where({ account_id: accountId, kind: 'leadForms', page_id: pageId }).orderBy('id').limit(limit);
  if (afterRowId !== null) q.where('id', '>', afterRowId);
  const rows = await q.select('id', 'asset_id', 'name');
  return rows.map((r: Record<string, any>) => ({ rowId: Number(r.id), assetId: r.asset_id, name: r.name ?? null }));
}

/** The stored payloads (JSON text) of the account's assets of `kind`, in id order. */
export async function assetPayloads(db: Db, accountId: string, kind: string): Promise<string[]> {
  return (await db('sandbox_assets').where({ account_id: accountId, kind }).orderBy('id').select('payload')).map((r: { payload: string }) => r.payload);
}

/** The status changes of the objects `ids`, each object's in time order. */
export async function statusHistories(db: Db, ids: string[]): Promise<Array<{ objectId: string; status: string; at: number }>> {
  if (!ids.length) return [];
  const rows = await db('sandbox_status_events').whereIn('object_id', ids).orderBy(['object_id', 'at', 'id']).select('object_id', 'status', 'at');
  return rows.map((r: Record<string, any>) => ({ objectId: r.object_id, status: r.status, at: Number(r.at) }));
}

/** The account's objects of `level` whose `column` (their own id, or their parent's) is one of `ids`. */
export async function objectsWhere(db: Db, accountId: string, level: ObjectLevel, column: 'objectId' | 'parentId', ids: string[]): Promise<TreeRow[]> {
  if (!ids.length) return [];
  const rows = await objects(db, accountId, level)
    .whereIn(column === 'objectId' ? 'object_id' : 'parent_id', ids)
    .select('object_id', 'parent_id', 'name', 'budget_period', 'budget_cents');
  return rows.map(toTreeRow);
}

/** Every object of `level` on the account (deleted ones too: they delivered until they were), by object id. */
export async function allObjects(db: Db, accountId: string, level: ObjectLevel): Promise<TreeRow[]> {
  const rows = await objects(db, accountId, level).orderBy('object_id').select('object_id', 'parent_id', 'name', 'budget_period', 'budget_cents');
  return rows.map(toTreeRow);
}

/** How many objects of `level` that are not deleted each of `parentIds` has (parents without any are absent). */
export async function childCounts(db: Db, accountId: string, level: ObjectLevel, parentIds: string[]): Promise<Map<string, number>> {
  if (!parentIds.length) return new Map();
  const rows: Array<{ parent_id: string; n: number | string }> = await objects(db, accountId, level)
    .whereIn('parent_id', parentIds)
    .whereNot('status', 'DELETED')
    .groupBy('parent_id')
    .select('parent_id', db.raw('count(*) as n'));
  return new Map(rows.map((r) => [String(r.parent_id), Number(r.n)]));
}

/** Stores new objects and their first status, in the caller's transaction. */
export async function insertObjects(trx: Knex.Transaction, list: NewObject[]): Promise<void> {
  const rows = list.map((o) => ({
    platform: o.platform,
    account_id: o.accountId,
    level: o.level,
    object_id: o.objectId,
    parent_id: o.parentId,
    name: o.name,
    name_lower: o.name.toLowerCase(),
    marker: o.marker,
    status: o.status,
    objective: o.objective,
    budget_period: o.budget?.period ?? null,
    budget_cents: o.budget?.amountMinorUnits ?? null,
    settings: JSON.stringify(o.settings),
    created_at: o.at,
    updated_at: o.at,
  }));
  await trx.batchInsert('sandbox_objects', rows, 200);
  await trx.batchInsert(
    'sandbox_status_events',
    list.map((o) => ({ object_id: o.objectId, status: o.status, at: o.at })),
    200,
  );
}

/** The ids of the account's objects of `level` created with any of `markers` and not deleted, by marker. */
export async function objectIdsByMarkers(db: Db, accountId: string, level: ObjectLevel, markers: string[]): Promise<Map<string, string>> {
  if (!markers.length) return new Map();
  const rows = await objects(db, accountId, level).whereIn('marker', markers).whereNot('status', 'DELETED').orderBy('id').select('marker', 'object_id');
  return new Map(rows.map((r) => [r.marker as string, r.object_id as string]));
}

/** Which of `ids` are creatives (uploaded files) of the account. */
export async function creativeObjectIds(db: Db, accountId: string, ids: string[]): Promise<string[]> {
  if (!ids.length) return [];
  return objects(db, accountId, 'creative').whereIn('object_id', ids).pluck('object_id');
}

/** Which of `ids` are objects of the account. */
export async function existingObjectIds(db: Db, accountId: string, ids: string[]): Promise<string[]> {
  return db('sandbox_objects').where('account_id', accountId).whereIn('object_id', ids).pluck('object_id');
}

/** Which of `ids` are objects of `level` of the account that are not deleted. */
export async function heldObjectIds(db: Db, accountId: string, level: ObjectLevel, ids: string[]): Promise<string[]> {
  if (!ids.length) return [];
  return objects(db, accountId, level).whereIn('object_id', ids).whereNot('status', 'DELETED').pluck('object_id');
}

/** The ids of the account's objects of `level` under any of `parentIds` that are not deleted. */
export async function childIds(db: Db, accountId: string, level: ObjectLevel, parentIds: string[]): Promise<string[]> {
  if (!parentIds.length) return [];
  return objects(db, accountId, level).whereIn('parent_id', parentIds).whereNot('status', 'DELETED').pluck('object_id');
}

/** The ad sets (not deleted) under each of `campaignIds`: id, name and settings, oldest first. */
export async function adSetsUnder(
  db: Db,
  accountId: string,
  campaignIds: string[],
): Promise<Map<string, Array<{ id: string; name: string; properties: Record<string, unknown> }>>> {
  const out = new Map<string, Array<{ id: string; name: string; properties: Record<string, unknown> }>>();
  if (!campaignIds.length) return out;
  const rows = await objects(db, accountId, 'adset')
    .whereIn('parent_id', campaignIds)
    .whereNot('status', 'DELETED')
    .orderBy('created_at')
    .orderBy('object_id')
    .select('object_id', 'parent_id', 'name', 'settings');
  for (const r of rows) {
    const list = out.get(String(r.parent_id)) ?? [];
    list.push({ id: r.object_id, name: r.name, properties: r.settings ? (JSON.parse(r.settings) as Record<string, unknown>) : {} });
    out.set(String(r.parent_id), list);
  }
  return out;
}

/** The settings of object `objectId` (an empty object when it has none, or is gone). */
export async function objectSettings(db: Db, objectId: string): Promise<Record<string, unknown>> {
  const row = await db('sandbox_objects').where({ object_id: objectId }).first('settings');
  return row?.settings ? (JSON.parse(row.settings) as Record<string, unknown>) : {};
}

/** Changes an object's name and settings (each when given). */
export async function updateObjectFields(db: Db, objectId: string, change: { name?: string; settings?: Record<string, unknown> }, at: number): Promise<void> {
  const update: Record<string, unknown> = { updated_at: at };
  if (change.name !== undefined) Object.assign(update, { name: change.name, name_lower: change.name.toLowerCase() });
  if (change.settings) update.settings = JSON.stringify(change.settings);
  await db('sandbox_objects').where({ object_id: objectId }).update(update);
}

/** Sets the status of objects `ids` and records the change in their histories, in one transaction. */
export async function setObjectStatus(db: Knex, ids: string[], status: string, at: number): Promise<void> {
  await db.transaction(async (trx) => {
    await trx('sandbox_objects').whereIn('object_id', ids).update({ status, updated_at: at });
    await trx.batchInsert(
      'sandbox_status_events',
      ids.map((id) => ({ object_id: id, status, at })),
      200,
    );
  });
}

/** Sets an object's budget. */
export async function setObjectBudget(db: Db, objectId: string, budget: Budget, at: number): Promise<void> {
  await db('sandbox_objects').where({ object_id: objectId }).update({ budget_period: budget.period, budget_cents: budget.amountMinorUnits, updated_at: at });
}

/** A campaign the simulated platform holds before the service touches the account (a bootstrap file's `sandbox`). */
export interface SeedCampaign {
  platform: string | undefined;
  accountId: string;
  objectId: string;
  name: string;
  status: string;
  objective: string;
  budget: Budget | null;
}

/** An asset (page, pixel, audience, lead form...) the simulated platform holds, as the file gave it. */
export interface SeedAsset {
  accountId: string;
  kind: string;
  assetId: string;
  pageId: string | null;
  name: string | null;
  payload: string;
}

/** Puts seeded campaigns and assets in place: one object per id, so a file applied again describes the same objects. */
export async function seedObjects(trx: Knex.Transaction, campaigns: SeedCampaign[], assets: SeedAsset[], now: number): Promise<void> {
  const rows = campaigns.map((c) => ({
    platform: c.platform,
    account_id: c.accountId,
    level: 'campaign',
    object_id: c.objectId,
    parent_id: null,
    name: c.name,
    name_lower: c.name.toLowerCase(),
    marker: null,
    status: c.status,
    objective: c.objective,
    budget_period: c.budget?.period ?? null,
    budget_cents: c.budget?.amountMinorUnits ?? null,
    settings: '{}',
    created_at: now,
    updated_at: now,
  }));
  const known = new Set<string>();
  for (let i = 0; i < rows.length; i += 500) {
    const ids = rows.slice(i, i + 500).map((r) => r.object_id);
    for (const id of await trx('sandbox_objects').whereIn('object_id', ids).pluck('object_id')) known.add(id);
  }
  for (const r of rows.filter((x) => known.has(x.object_id))) {
    const { object_id: objectId, created_at: _created, ...rest } = r;
    await trx('sandbox_objects').where({ object_id: objectId }).update(rest);
  }
  await trx.batchInsert(
    'sandbox_objects',
    rows.filter((r) => !known.has(r.object_id)),
    500,
  );
  await trx.batchInsert(
    'sandbox_status_events',
    rows.map((r) => ({ object_id: r.object_id, status: r.status, at: now })),
    500,
  );
  for (const a of assets) await trx('sandbox_assets').where({ account_id: a.accountId, kind: a.kind, asset_id: a.assetId }).delete();
  await trx.batchInsert(
    'sandbox_assets',
    assets.map((a) => ({ account_id: a.accountId, kind: a.kind, asset_id: a.assetId, page_id: a.pageId, name: a.name, payload: a.payload })),
    500,
  );
}
