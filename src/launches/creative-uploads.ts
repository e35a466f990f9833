// Puts the creatives a publish's ads use on their ad account before the ads are created, once per
// creative and account: the platform's reference is kept (creative_uploads) and every later publish
// to that account reuses it instead of uploading again.

import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import type { ServiceContext } from '../catalogue/define.js';
import { ServiceError } from '../errors.js';
import { keepUpload, uploadsOn, type CreativeRow } from '../creatives/store.js';
import { creativePath } from '../creatives/storage.js';
import type { BrandAdAccount } from '../platforms/registry.js';
import type { ObjectSpec } from '../platforms/port.js';
import type { NodeRow } from './store.js';

/** An ad's creative as the adapter takes it (ObjectSpec.creative). */
export type AdCreative = NonNullable<ObjectSpec['creative']>;

/**
 * The creative of each creative id the `ads` name, on `account`: uploaded now when the account does
 * not hold it yet (the file's bytes and MD5), else the reference kept from before.
 */
export async function creativesOnAccount(
  ctx: ServiceContext<'platforms'>,
  account: BrandAdAccount,
  ads: NodeRow[],
  creatives: Map<number, CreativeRow>,
  creativesDir: string,
): Promise<Map<number, AdCreative>> {
  const ids = [...new Set(ads.map((a) => a.properties.creativeId).filter((id): id is number => typeof id === 'number'))];
  const kept = await uploadsOn(ctx.db, account.accountId, ids);
  const out = new Map<number, AdCreative>();
  for (const id of ids) {
    const row = creatives.get(id);
    if (!row) continue;
    let upload = kept.get(id);
    if (!upload) {
      const bytes = await fs.readFile(creativePath(creativesDir, row.storageKey)).catch(() => {
        throw new ServiceError('unavailable', `The file of creative ${id} (${row.name}) is missing from the creatives folder; upload it again.`, {
          creativeId: id,
        });
      });
      const answer = await ctx.platforms.adapterFor(account.platform).uploadCreative(
        account,
        {
          creativeId: id,
          type: row.type,
          name: row.name,
          mime: row.mime,
          bytes,
          width: row.width,
          height: row.height,
          md5: crypto.createHash('md5').update(bytes).digest('hex'),
        },
        // The publish's progress counts created objects; a video's processing goes to the log.
        (message) => ctx.log.info({ requestId: ctx.requestId, creativeId: id, accountId: account.accountId }, message),
      );
      upload = await keepUpload(ctx.db, {
        creativeId: id,
        accountId: account.accountId,
        platform: account.platform,
        ref: answer.ref,
        thumbnailRef: answer.thumbnailRef,
        createdAt: ctx.now(),
      });
    }
    out.set(id, { type: row.type, ref: upload.ref, thumbnailRef: upload.thumbnailRef });
  }
  return out;
}
