// The copy area's tables: `copy_generations` (one row per generated copy record, texts as JSON
// lists) and `brand_profiles` (one row per brand that set a profile). The only file that queries them.

import type { Knex } from 'knex';
import { notFound } from '../errors.js';
import type { CopyPlatform } from './port.js';

type Db = Knex | Knex.Transaction;

export interface CopyRecord {
  copyGenerationId: number;
  brandId: number;
  platform: CopyPlatform;
  tone: string | null;
  voice: string[];
  angle: string | null;
  productDescription: string | null;
  headlines: string[];
  primaryTexts: string[];
  descriptions: string[];
  creativeIds: number[];
  model: string;
  droppedTexts: number;
  createdAt: string;
}

/** A copy record to store: what was asked and what was written. */
export interface NewCopy {
  organizationId: number;
  brandId: number;
  platform: CopyPlatform;
  tone: string | null;
  voice: string[];
  angle: string | null;
  productDescription: string | null;
  creativeIds: number[];
  headlines: string[];
  primaryTexts: string[];
  descriptions: string[];
  model: string;
  dropped: number;
  createdAt: number;
}

export interface BrandProfile {
  voice: string[];
  productDescription: string | null;
  website: string | null;
  wordsToAvoid: string[];
  updatedAt: string | null;
}

function toCopy(r: Record<string, any>): CopyRecord {
  return {
    copyGenerationId: Number(r.id),
    brandId: Number(r.brand_id),
    platform: r.platform,
    tone: r.tone ?? null,
    voice: JSON.parse(r.voice),
    angle: r.angle ?? null,
    productDescription: r.product_description ?? null,
    headlines: JSON.parse(r.headlines),
    primaryTexts: JSON.parse(r.primary_texts),
    descriptions: JSON.parse(r.descriptions),
    creativeIds: JSON.parse(r.creative_ids),
    model: r.model,
    droppedTexts: Number(r.dropped),
    createdAt: new Date(Number(r.created_at)).toISOString(),
  };
}

/** Stores a copy record; answers its id. */
export async function insertCopy(db: Db, c: NewCopy): Promise<number> {
  const [id] = await db('copy_generations').insert({
    organization_id: c.organizationId,
    brand_id: c.brandId,
    platform: c.platform,
    tone: c.tone,
    voice: JSON.stringify(c.voice),
    angle: c.angle,
    product_description: c.productDescription,
    creative_ids: JSON.stringify(c.creativeIds),
    headlines: JSON.stringify(c.headlines),
    primary_texts: JSON.stringify(c.primaryTexts),
    descriptions: JSON.stringify(c.descriptions),
    model: c.model,
    dropped: c.dropped,
    created_at: c.createdAt,
  });
  return Number(id);
}

/** The copy record `id` of `brandId`, or 404 (also for a record of another brand). */
export async function loadCopy(db: Db, brandId: number, id: number): Promise<CopyRecord> {
  const row = await db('copy_generations').where({ id, brand_id: brandId }).first();
  if (!row) throw notFound(`Copy generation ${id} of brand ${brandId}`);
  return toCopy(row);
}

/** The brand's copy records newest first (only `platform`'s when given), below `beforeId` when given, at most `limit`. */
export async function copiesOf(db: Db, brandId: number, limit: number, filter: { platform?: CopyPlatform; beforeId?: number } = {}): Promise<CopyRecord[]> {
  const query = db('copy_generations').where({ brand_id: brandId }).orderBy('id', 'desc').limit(limit);
  if (filter.platform) query.where('platform', filter.platform);
  if (filter.beforeId !== undefined) query.where('id', '<', filter.beforeId);
  return (await query).map(toCopy);
}

/** The platform each of the brand's copy records among `ids` was written for (records of other brands are left out). */
export async function copyPlatforms(db: Db, brandId: number, ids: number[]): Promise<Map<number, CopyPlatform>> {
  if (!ids.length) return new Map();
  const rows = await db('copy_generations').where({ brand_id: brandId }).whereIn('id', ids).select('id', 'platform');
  return new Map(rows.map((r) => [Number(r.id), r.platform as CopyPlatform]));
}

/** The brand's profile; a brand that never set one reads as empty (updatedAt null). */
export async function loadProfile(db: Db, brandId: number): Promise<BrandProfile> {
  const row = await db('brand_profiles').where({ brand_id: brandId }).first();
  if (!row) return { voice: [], productDescription: null, website: null, wordsToAvoid: [], updatedAt: null };
  return {
    voice: JSON.parse(row.voice),
    productDescription: row.product_description ?? null,
    website: row.website ?? null,
    wordsToAvoid: JSON.parse(row.words_to_avoid),
    updatedAt: new Date(Number(row.updated_at)).toISOString(),
  };
}

/** Replaces the profile (fields not sent become empty) in one upsert statement. */
export async function saveProfile(db: Db, brandId: number, p: Omit<BrandProfile, 'updatedAt'>, now: number): Promise<void> {
  const row = {
    voice: JSON.stringify(p.voice),
    product_description: p.productDescription,
    website: p.website,
    words_to_avoid: JSON.stringify(p.wordsToAvoid),
    updated_at: now,
  };
  await db('brand_profiles')
    .insert({ brand_id: brandId, ...row })
    .onConflict('brand_id')
    .merge(row);
}
