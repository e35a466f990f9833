// Creating drafts: a new launch row and the rows of new draft nodes. Every operation that makes
// launches or nodes (create-launch, create-node, snapshot and structure templates) goes through here.

import type { Knex } from 'knex';
import type { OperationContext } from '../catalogue/define.js';
import { loadLaunch, type LaunchRow, type NodeRow } from './store.js';

/** The ad account a new launch takes: the brand's only one; null when it has none or several. */
async function defaultAccount(db: Knex | Knex.Transaction, brandId: number): Promise<string | null> {
  const ids: string[] = await db('ad_accounts').where({ brand_id: brandId }).pluck('account_id');
  return ids.length === 1 ? ids[0] : null;
}

/** Inserts an empty draft launch of the calling brand (with its activity entry) through `db`. */
export async function insertLaunch(ctx: OperationContext, title: string, description: string | null, db: Knex | Knex.Transaction = ctx.db): Promise<LaunchRow> {
  const now = ctx.now();
  const brandId = ctx.brand!.id;
  const accountId = await defaultAccount(db, brandId);
  const [id] = await db('launches').insert({
    organization_id: ctx.principal.organizationId,
    brand_id: brandId,
    account_id: accountId,
    title,
    description,
    status: 'draft',
    created_at: now,
    updated_at: now,
  });
  await ctx.activity.record({ brandId, accountId, entityType: 'unknown', entityId: String(id), entityName: title, action: 'launch.created' }, db);
  return loadLaunch(db, brandId, Number(id));
}

/** A new draft node, not yet stored; `createdAt` orders siblings. */
export function draftNode(n: Pick<NodeRow, 'id' | 'launchId' | 'parentId' | 'nodeType' | 'accountId' | 'properties'>, createdAt: number): NodeRow {
  return { ...n, name: n.properties.name ?? null, platformId: null, status: 'draft', createdAt, updatedAt: createdAt };
}

/** Stores draft nodes (parents before children), in batches. */
export async function insertNodes(db: Knex | Knex.Transaction, nodes: NodeRow[]): Promise<void> {
  const rows = nodes.map((n) => ({
    id: n.id, launch_id: n.launchId, parent_id: n.parentId, node_type: n.nodeType, account_id: n.accountId,
    name: n.name, properties: JSON.stringify(n.properties), platform_id: n.platformId, status: n.status, created_at: n.createdAt, updated_at: n.updatedAt,
  }));
  await db.batchInsert('launch_nodes', rows, 200);
}
