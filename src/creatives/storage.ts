// Keeps creative files in the creatives folder (CREATIVES_DIR), each named by the sha256 of its
// bytes: the same file uploaded twice is stored once, and a name never points at other bytes.

import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { storageFault } from '../pipeline/faults.js';
import type { StagedUpload } from '../catalogue/invoke-types.js';
import { clearLeftovers, dropStaged } from './staging.js';

export interface StoredFile {
  sha256: string;
  /** Path relative to the creatives folder, e.g. `3f/3fa9...c2.png`. */
  storageKey: string;
}

/** The absolute path of a stored creative. */
export function creativePath(dir: string, storageKey: string): string {
  return path.resolve(dir, storageKey);
}

/**
 * Writes `bytes` under `dir` unless a file with the same content is already there. The write goes
 * through a temporary file and a rename, so a reader never sees half a file.
 */
export async function storeCreativeFile(dir: string, bytes: Buffer, extension: string): Promise<StoredFile> {
  const sha256 = crypto.createHash('sha256').update(bytes).digest('hex');
  // Two-character fan-out keeps any one folder small.
  const storageKey = `${sha256.slice(0, 2)}/${sha256}.${extension}`;
  const target = creativePath(dir, storageKey);
  const existing = await fs.stat(target).catch(() => null);
  if (existing?.size === bytes.length) return { sha256, storageKey };
  const temp = `${target}.${crypto.randomBytes(6).toString('hex')}.tmp`;
  try {
    await fs.mkdir(path.dirname(target), { recursive: true });
    await fs.writeFile(temp, bytes);
    await fs.rename(temp, target);
  } catch (err) {
    await fs.rm(temp, { force: true }).catch(() => {});
    // A folder that cannot be written is the operator's storage failing, not a bug: 503 unavailable.
    throw storageFault('store a creative file', err);
  }
  return { sha256, storageKey };
}

/**
 * Moves a staged upload (staging.ts) to its place, named by the sha256 it was hashed to as it
 * arrived, unless a file with the same content is already there (then the staged one goes). A
 * rename within the creatives folder: nothing is read or copied.
 */
export async function keepStagedFile(dir: string, staged: StagedUpload, extension: string): Promise<StoredFile> {
  const storageKey = `${staged.sha256.slice(0, 2)}/${staged.sha256}.${extension}`;
  const target = creativePath(dir, storageKey);
  const existing = await fs.stat(target).catch(() => null);
  if (existing?.size === staged.size) {
    await dropStaged(staged.path);
    return { sha256: staged.sha256, storageKey };
  }
  try {
    await fs.mkdir(path.dirname(target), { recursive: true });
    await fs.rename(staged.path, target);
  } catch (err) {
    throw storageFault('store a creative file', err);
  }
  return { sha256: staged.sha256, storageKey };
}

/**
 * Checks at start-up that the creatives folder exists (created if missing) and takes a file;
 * throws an error naming CREATIVES_DIR and the folder otherwise.
 */
export async function checkCreativesDir(dir: string): Promise<void> {
  const probe = path.join(dir, `.write-check-${crypto.randomBytes(6).toString('hex')}`);
  try {
    await fs.mkdir(dir, { recursive: true });
    await fs.writeFile(probe, '');
    await fs.rm(probe, { force: true });
    await clearLeftovers(dir);
  } catch (err) {
    throw new Error(
      `CREATIVES_DIR ${path.resolve(dir)} cannot be written (${(err as Error).message}); point CREATIVES_DIR at a folder this process can write, or fix its permissions.`,
      { cause: err },
    );
  }
}
