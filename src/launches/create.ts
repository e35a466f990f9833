// Creating a draft launch of a brand (with its activity entry): every operation that starts a
// launch (create-launch, snapshot and structure templates) goes through here.

import type { Knex } from 'knex';
import type { ServiceContext } from '../catalogue/define.js';
import { adAccountsOf } from '../brands/store.js';
import { insertLaunch, loadLaunch, type LaunchRow } from './store.js';

/** Inserts an empty draft launch of `brandId` through `db` (the caller's transaction when given); the launch takes the brand's ad account when it has exactly one. */
export async function createDraftLaunch(
  ctx: ServiceContext<'activity'>,
  brandId: number,
  title: string,
  description: string | null,
  db: Knex | Knex.Transaction = ctx.db,
): Promise<LaunchRow> {
  const now = ctx.now();
  const accounts = await adAccountsOf(db, brandId);
  const accountId = accounts.length === 1 ? accounts[0].accountId : null;
  const id = await insertLaunch(db, {
    organizationId: ctx.principal.organizationId,
    brandId,
    accountId,
    title,
    description,
    status: 'draft',
    createdAt: now,
    updatedAt: now,
  });
  await ctx.activity.record({ brandId, accountId, entityType: 'unknown', entityId: String(id), entityName: title, action: 'launch.created' }, db);
  return loadLaunch(db, brandId, id);
}
