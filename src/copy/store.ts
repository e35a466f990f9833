// Stored copy records: one row per generation, texts as JSON lists, read back per brand.

import type { Knex } from 'knex';
import { notFound } from '../errors.js';
import type { CopyPlatform } from './port.js';

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

export function copyView(r: Record<string, any>): CopyRecord {
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

/** The copy record `id` of `brandId`, or 404 (also for a record of another brand). */
export async function loadCopy(db: Knex | Knex.Transaction, brandId: number, id: number): Promise<CopyRecord> {
  const row = await db('copy_generations').where({ id, brand_id: brandId }).first();
  if (!row) throw notFound(`Copy generation ${id} of brand ${brandId}`);
  return copyView(row);
}

/** The platform each of the brand's copy records among `ids` was written for (records of other brands are left out). */
export async function copyPlatforms(db: Knex | Knex.Transaction, brandId: number, ids: number[]): Promise<Map<number, CopyPlatform>> {
  if (!ids.length) return new Map();
  const rows = await db('copy_generations').where({ brand_id: brandId }).whereIn('id', ids).select('id', 'platform');
  return new Map(rows.map((r) => [Number(r.id), r.platform as CopyPlatform]));
}
