// The brand profile: voice (tone words), product description, website and words to avoid. Copy
// falls back to it; a brand without one reads as empty.

import type { Knex } from 'knex';

export interface BrandProfile {
  voice: string[];
  productDescription: string | null;
  website: string | null;
  wordsToAvoid: string[];
  updatedAt: string | null;
}

export async function loadProfile(db: Knex | Knex.Transaction, brandId: number): Promise<BrandProfile> {
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

/** Replaces the profile (fields not sent become empty) in one statement per dialect-neutral upsert. */
export async function saveProfile(db: Knex | Knex.Transaction, brandId: number, p: Omit<BrandProfile, 'updatedAt'>, now: number): Promise<void> {
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
