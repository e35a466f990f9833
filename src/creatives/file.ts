// A stored creative's file for a surface that shows it to a person already allowed to read the
// creative (get-creative answered them): its type and where its bytes are in the creatives folder.

import type { Knex } from 'knex';
import { creativePath } from './storage.js';
import { findCreative } from './store.js';

/** The file of creative `creativeId` of brand `brandId`, or undefined when there is no such creative. */
export async function creativeFileOf(
  db: Knex | Knex.Transaction,
  dir: string,
  brandId: number,
  creativeId: number,
): Promise<{ mime: string; path: string; sizeBytes: number; sha256: string } | undefined> {
  const row = await findCreative(db, brandId, creativeId);
  return row ? { mime: row.mime, path: creativePath(dir, row.storageKey), sizeBytes: row.sizeBytes, sha256: row.sha256 } : undefined;
}
