// The creatives area's tables: `creatives`, one row per uploaded file of a brand (the bytes live in
// the creatives folder, storage.ts), and `creative_uploads`, the ad platform's reference to a
// creative once it is on an ad account. The only file that queries them.

import type { Knex } from 'knex';
import { isUniqueViolation } from '../db/connection.js';
import type { PlatformName } from '../platforms/port.js';

type Db = Knex | Knex.Transaction;

/** A creative row, as stored. */
export interface CreativeRow {
  id: number;
  organizationId: number;
  brandId: number;
  name: string;
  type: 'image' | 'video';
  mime: string;
  width: number;
  height: number;
  durationMs: number | null;
  sizeBytes: number;
  sha256: string;
  storageKey: string;
  createdAt: number;
}

function toCreative(r: Record<string, any>): CreativeRow {
  return {
    id: Number(r.id),
    organizationId: Number(r.organization_id),
    brandId: Number(r.brand_id),
    name: r.name,
    type: r.type,
    mime: r.mime,
    width: Number(r.width),
    height: Number(r.height),
    durationMs: r.duration_ms === null ? null : Number(r.duration_ms),
    sizeBytes: Number(r.size_bytes),
    sha256: r.sha256,
    storageKey: r.storage_key,
    createdAt: Number(r.created_at),
  };
}

/** Stores a new creative row; answers its id. */
export async function insertCreative(db: Db, c: Omit<CreativeRow, 'id'>): Promise<number> {
  const [id] = await db('creatives').insert({
    organization_id: c.organizationId,
    brand_id: c.brandId,
    name: c.name,
    type: c.type,
    mime: c.mime,
    width: c.width,
    height: c.height,
    duration_ms: c.durationMs,
    size_bytes: c.sizeBytes,
    sha256: c.sha256,
    storage_key: c.storageKey,
    created_at: c.createdAt,
  });
  return Number(id);
}

/** The brand's creatives newest first, below `beforeId` when given, at most `limit`. */
export async function creativesOf(db: Db, brandId: number, limit: number, beforeId?: number): Promise<CreativeRow[]> {
  const query = db('creatives').where('brand_id', brandId).orderBy('id', 'desc').limit(limit);
  if (beforeId !== undefined) query.where('id', '<', beforeId);
  return (await query).map(toCreative);
}

/** The brand's creative `id`, or undefined (also for another brand's). */
export async function findCreative(db: Db, brandId: number, id: number): Promise<CreativeRow | undefined> {
  const row = await db('creatives').where({ id, brand_id: brandId }).first();
  return row ? toCreative(row) : undefined;
}

/** The brand's creatives among `ids` (any order); none for an empty list. */
export async function creativesAmong(db: Db, brandId: number, ids: number[]): Promise<CreativeRow[]> {
  if (!ids.length) return [];
  return (await db('creatives').where({ brand_id: brandId }).whereIn('id', ids)).map(toCreative);
}

/** A creative as uploaded to one ad account: the platform's reference to it. */
export interface CreativeUploadRow {
  creativeId: number;
  accountId: string;
  platform: PlatformName;
  ref: string;
  thumbnailRef: string | null;
  createdAt: number;
}

/** The references the ad account `accountId` holds for any of `creativeIds`, by creative id. */
export async function uploadsOn(db: Db, accountId: string, creativeIds: number[]): Promise<Map<number, CreativeUploadRow>> {
  if (!creativeIds.length) return new Map();
  const rows = await db('creative_uploads').where({ account_id: accountId }).whereIn('creative_id', creativeIds);
  return new Map(
    rows.map((r) => [
      Number(r.creative_id),
      {
        creativeId: Number(r.creative_id),
        accountId: r.account_id,
        platform: r.platform,
        ref: r.ref,
        thumbnailRef: r.thumbnail_ref ?? null,
        createdAt: Number(r.created_at),
      },
    ]),
  );
}

/**
 * Keeps the platform's reference to a creative on an ad account. When another publish kept one first
 * (two publishes uploading at once), the row already there wins and is answered.
 */
export async function keepUpload(db: Db, upload: CreativeUploadRow): Promise<CreativeUploadRow> {
  try {
    await db('creative_uploads').insert({
      creative_id: upload.creativeId,
      account_id: upload.accountId,
      platform: upload.platform,
      ref: upload.ref,
      thumbnail_ref: upload.thumbnailRef,
      created_at: upload.createdAt,
    });
    return upload;
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    return (await uploadsOn(db, upload.accountId, [upload.creativeId])).get(upload.creativeId)!;
  }
}
