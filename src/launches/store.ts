// Reading and shaping launches and their node trees; every launch read is scoped to one brand.

import type { Knex } from 'knex';
import { notFound } from '../errors.js';
import { randomBase62 } from '../auth/secrets.js';
import type { Budget } from '../platforms/port.js';

export type NodeType = 'campaign' | 'adset' | 'ad';
export type LaunchStatus = 'draft' | 'publishing' | 'published' | 'publish_failed';
type Db = Knex | Knex.Transaction;

export interface LaunchRow {
  id: number;
  organizationId: number;
  brandId: number;
  accountId: string | null;
  title: string;
  description: string | null;
  status: LaunchStatus;
  statusReason: string | null;
  createdAt: number;
  updatedAt: number;
  publishedAt: number | null;
}

export interface NodeRow {
  id: string;
  launchId: number;
  parentId: string | null;
  nodeType: NodeType;
  accountId: string | null;
  name: string | null;
  properties: Record<string, any>;
  platformId: string | null;
  status: 'draft' | 'live';
  createdAt: number;
  updatedAt: number;
}

export function newNodeId(): string {
  return `nd_${randomBase62(16)}`;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

function toLaunch(r: Record<string, any>): LaunchRow {
  return {
    id: Number(r.id),
    organizationId: Number(r.organization_id),
    brandId: Number(r.brand_id),
    accountId: r.account_id ?? null,
    title: r.title,
    description: r.description ?? null,
    status: r.status,
    statusReason: r.status_reason ?? null,
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
    publishedAt: r.published_at === null ? null : Number(r.published_at),
  };
}

export function toNode(r: Record<string, any>): NodeRow {
  return {
    id: r.id,
    launchId: Number(r.launch_id),
    parentId: r.parent_id ?? null,
    nodeType: r.node_type,
    accountId: r.account_id ?? null,
    name: r.name ?? null,
    properties: JSON.parse(r.properties),
    platformId: r.platform_id ?? null,
    status: r.status,
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
  };
}

/** The launch `launchId` of `brandId`, or 404 (also for a launch of another brand). */
export async function loadLaunch(db: Db, brandId: number, launchId: string | number, forUpdate = false): Promise<LaunchRow> {
  const q = db('launches').where({ id: Number(launchId), brand_id: brandId }).first();
  if (forUpdate && (db as Knex.Transaction).isTransaction) q.forUpdate();
  const row = await q;
  if (!row) throw notFound(`Launch ${launchId} of brand ${brandId}`);
  return toLaunch(row);
}

export async function loadNodes(db: Db, launchId: number): Promise<NodeRow[]> {
  const rows = await db('launch_nodes').where({ launch_id: launchId }).orderBy([{ column: 'created_at' }, { column: 'id' }]);
  return rows.map(toNode);
}

export function nodeView(n: NodeRow) {
  return {
    id: n.id,
    nodeType: n.nodeType,
    parentId: n.parentId,
    status: n.status,
    accountId: n.accountId,
    properties: n.properties,
    platformId: n.platformId,
    createdAt: iso(n.createdAt)!,
    updatedAt: iso(n.updatedAt)!,
  };
}

export interface Counts {
  campaigns: number;
  adSets: number;
  ads: number;
}

export function countsOf(nodes: Pick<NodeRow, 'nodeType'>[]): Counts {
  return {
    campaigns: nodes.filter((n) => n.nodeType === 'campaign').length,
    adSets: nodes.filter((n) => n.nodeType === 'adset').length,
    ads: nodes.filter((n) => n.nodeType === 'ad').length,
  };
}

export function launchSummary(l: LaunchRow, brandName: string | null, counts: Counts) {
  return {
    id: String(l.id),
    title: l.title,
    description: l.description,
    brandId: l.brandId,
    brandName,
    accountId: l.accountId,
    status: l.status,
    statusReason: l.statusReason,
    counts,
    createdAt: iso(l.createdAt)!,
    updatedAt: iso(l.updatedAt)!,
    publishedAt: iso(l.publishedAt),
  };
}

/** Children of each node id, in creation order. */
export function childrenOf(nodes: NodeRow[]): Map<string | null, NodeRow[]> {
  const out = new Map<string | null, NodeRow[]>();
  for (const n of nodes) {
    const list = out.get(n.parentId) ?? [];
    list.push(n);
    out.set(n.parentId, list);
  }
  return out;
}

/** The launch with its whole tree: campaigns → ad sets → ads. */
export function launchTree(l: LaunchRow, brandName: string | null, nodes: NodeRow[]) {
  const kids = childrenOf(nodes);
  return {
    ...launchSummary(l, brandName, countsOf(nodes)),
    campaigns: (kids.get(null) ?? []).map((c) => ({
      node: nodeView(c),
      adSets: (kids.get(c.id) ?? []).map((s) => ({ node: nodeView(s), ads: (kids.get(s.id) ?? []).map(nodeView) })),
    })),
  };
}

/** A budget property `{dailyAmount}` or `{lifetimeAmount}` as the platform port's Budget. */
export function budgetOf(props: Record<string, any>): Budget | null {
  const b = props.budget;
  if (!b) return null;
  if (typeof b.dailyAmount === 'number') return { period: 'daily', amountMinorUnits: b.dailyAmount };
  if (typeof b.lifetimeAmount === 'number') return { period: 'lifetime', amountMinorUnits: b.lifetimeAmount };
  return null;
}

/** Counts of nodes per launch, for lists. */
export async function countsByLaunch(db: Db, launchIds: number[]): Promise<Map<number, Counts>> {
  const out = new Map<number, Counts>(launchIds.map((id) => [id, { campaigns: 0, adSets: 0, ads: 0 }]));
  if (!launchIds.length) return out;
  const rows: Array<{ launch_id: number; node_type: NodeType; n: number | string }> = await db('launch_nodes')
    .whereIn('launch_id', launchIds)
    .groupBy('launch_id', 'node_type')
    .select('launch_id', 'node_type', db.raw('count(*) as n'));
  for (const r of rows) {
    const c = out.get(Number(r.launch_id))!;
    const n = Number(r.n);
    if (r.node_type === 'campaign') c.campaigns = n;
    else if (r.node_type === 'adset') c.adSets = n;
    else c.ads = n;
  }
  return out;
}
