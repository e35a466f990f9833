// The activity area's table, `activity_entries`: written by every recorded change (recorder.ts)
// and read back page by page (list-activity). The only file that queries it.

import type { Knex } from 'knex';

type Db = Knex | Knex.Transaction;

/** One stored change, as the recorder writes it. */
export interface ActivityEntryRow {
  organizationId: number;
  brandId: number;
  accountId: string | null;
  userId: number;
  userName: string;
  apiKeyId: number | null;
  entityType: string;
  entityId: string;
  entityName: string | null;
  action: string;
  amountMinorUnits: number | null;
  currency: string | null;
  countedUsdCents: number | null;
  createdAt: number;
}

/** A stored change read back, with its id (newest have the highest). */
export interface StoredActivityEntry extends ActivityEntryRow {
  id: number;
}

/** Writes one entry through `db` (the caller's transaction when it has one). */
export async function insertActivityEntry(db: Db, e: ActivityEntryRow): Promise<void> {
  await db('activity_entries').insert(rowOf(e));
}

/** Writes many entries, in order, a few hundred per statement. */
export async function insertActivityEntries(db: Db, entries: ActivityEntryRow[]): Promise<void> {
  for (let i = 0; i < entries.length; i += 500) await db('activity_entries').insert(entries.slice(i, i + 500).map(rowOf));
}

function rowOf(e: ActivityEntryRow): Record<string, unknown> {
  return {
    organization_id: e.organizationId,
    brand_id: e.brandId,
    account_id: e.accountId,
    user_id: e.userId,
    user_name: e.userName,
    api_key_id: e.apiKeyId,
    entity_type: e.entityType,
    entity_id: e.entityId,
    entity_name: e.entityName,
    action: e.action,
    amount_minor_units: e.amountMinorUnits,
    currency: e.currency,
    counted_usd_cents: e.countedUsdCents,
    created_at: e.createdAt,
  };
}

export interface ActivityFilter {
  brandId: number;
  /** Entries at or after this time (ms). */
  since: number;
  accountId?: string;
  userId?: number;
  entityId?: string;
  entityType?: string;
  action?: string;
  /** Keyset position: entries with a lower id only. */
  beforeId?: number;
  /** Rows to read (a page plus one, to know whether another page follows). */
  limit: number;
}

/** The brand's entries matching `f`, newest first. */
export async function activityEntries(db: Db, f: ActivityFilter): Promise<StoredActivityEntry[]> {
  const query = db('activity_entries').where('brand_id', f.brandId).where('created_at', '>=', f.since).orderBy('id', 'desc').limit(f.limit);
  if (f.accountId !== undefined) query.where('account_id', f.accountId);
  if (f.userId !== undefined) query.where('user_id', f.userId);
  if (f.entityId !== undefined) query.where('entity_id', f.entityId);
  if (f.entityType !== undefined) query.where('entity_type', f.entityType);
  if (f.action !== undefined) query.where('action', f.action);
  if (f.beforeId !== undefined) query.where('id', '<', f.beforeId);
  const rows = await query;
  return rows.map((r) => ({
    id: Number(r.id),
    organizationId: Number(r.organization_id),
    brandId: Number(r.brand_id),
    accountId: r.account_id ?? null,
    userId: Number(r.user_id),
    userName: r.user_name,
    apiKeyId: r.api_key_id === null ? null : Number(r.api_key_id),
    entityType: r.entity_type,
    entityId: r.entity_id,
    entityName: r.entity_name ?? null,
    action: r.action,
    amountMinorUnits: r.amount_minor_units === null ? null : Number(r.amount_minor_units),
    currency: r.currency ?? null,
    countedUsdCents: r.counted_usd_cents === null || r.counted_usd_cents === undefined ? null : Number(r.counted_usd_cents),
    createdAt: Number(r.created_at),
  }));
}
