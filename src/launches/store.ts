// The launches area's tables: `launches`, their node trees (`launch_nodes`), `snapshot_templates`
// and the `spend_commitments` publishing and live budget edits make. The only file that queries
// them; every launch read is scoped to one brand, and other areas call these functions.

import type { Knex } from 'knex';
import { notFound } from '../errors.js';
import { randomBase62 } from '../auth/secrets.js';

type Db = Knex | Knex.Transaction;

export type NodeType = 'campaign' | 'adset' | 'ad';
export type LaunchStatus = 'draft' | 'publishing' | 'published' | 'publish_failed';

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

/** Nodes of a launch per level. */
export interface Counts {
  campaigns: number;
  adSets: number;
  ads: number;
}

/** A new node id (`nd_` and 16 base62 characters). */
export function newNodeId(): string {
  return `nd_${randomBase62(16)}`;
}

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

function toNode(r: Record<string, any>): NodeRow {
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

// ---- launches

/** The launch `launchId` of `brandId`, or 404 (also for a launch of another brand); locked in a transaction when `forUpdate`. */
export async function loadLaunch(db: Db, brandId: number, launchId: string | number, forUpdate = false): Promise<LaunchRow> {
  const q = db('launches')
    .where({ id: Number(launchId), brand_id: brandId })
    .first();
  if (forUpdate && (db as Knex.Transaction).isTransaction) q.forUpdate();
  const row = await q;
  if (!row) throw notFound(`Launch ${launchId} of brand ${brandId}`);
  return toLaunch(row);
}

/** The ids among `ids` of the brand's launches. */
export async function launchesAmong(db: Db, brandId: number, ids: number[]): Promise<number[]> {
  if (!ids.length) return [];
  return (await db('launches').where({ brand_id: brandId }).whereIn('id', ids).pluck('id')).map(Number);
}

/** The status of each launch of `launchIds` that exists, by id. */
export async function launchStatuses(db: Db, launchIds: number[]): Promise<Map<number, LaunchStatus>> {
  if (!launchIds.length) return new Map();
  const rows = await db('launches')
    .whereIn('id', [...new Set(launchIds)])
    .select('id', 'status');
  return new Map(rows.map((r: { id: number; status: LaunchStatus }) => [Number(r.id), r.status]));
}

/** Stores a new launch; answers its id. */
export async function insertLaunch(db: Db, l: Omit<LaunchRow, 'id' | 'statusReason' | 'publishedAt'>): Promise<number> {
  const [id] = await db('launches').insert({
    organization_id: l.organizationId,
    brand_id: l.brandId,
    account_id: l.accountId,
    title: l.title,
    description: l.description,
    status: l.status,
    created_at: l.createdAt,
    updated_at: l.updatedAt,
  });
  return Number(id);
}

/** Ids of the brand's launches, newest first: with `status`, with `search` in the title (any case), below `beforeId`, at most `limit`. */
export async function launchIds(db: Db, brandId: number, f: { status?: string; search?: string; beforeId?: number; limit: number }): Promise<number[]> {
  const q = db('launches').where({ brand_id: brandId }).orderBy('id', 'desc').limit(f.limit);
  if (f.status) q.where('status', f.status);
  if (f.search) q.whereRaw("lower(title) like ? escape '!'", [`%${f.search.toLowerCase().replace(/[!%_]/g, (c) => `!${c}`)}%`]);
  if (f.beforeId !== undefined) q.where('id', '<', f.beforeId);
  return (await q.select('id')).map((r) => Number(r.id));
}

/** Changes the title and/or description of a launch. */
export async function updateLaunch(db: Db, id: number, change: { title?: string; description?: string | null; updatedAt: number }): Promise<void> {
  const row: Record<string, unknown> = { updated_at: change.updatedAt };
  if (change.title !== undefined) row.title = change.title;
  if (change.description !== undefined) row.description = change.description;
  await db('launches').where({ id }).update(row);
}

/** Marks a launch changed at `at` (its tree changed). */
export async function touchLaunch(db: Db, id: number, at: number): Promise<void> {
  await db('launches').where({ id }).update({ updated_at: at });
}

/** Deletes a launch and its nodes. */
export async function deleteLaunch(db: Db, id: number): Promise<void> {
  await db('launch_nodes').where({ launch_id: id }).delete();
  await db('launches').where({ id }).delete();
}

/**
 * Moves a draft (or failed) launch to publishing in one statement, starting a new publish attempt
 * that carries `plan` (what another process needs to carry it on); answers 1 when it moved, 0 when
 * another request got there first.
 */
export async function claimForPublishing(db: Db, id: number, at: number, plan: unknown, owner: string): Promise<number> {
  return db('launches')
    .where({ id })
    .whereIn('status', ['draft', 'publish_failed'])
    .update({
      status: 'publishing',
      status_reason: null,
      updated_at: at,
      publish_attempt: db.raw('publish_attempt + 1'),
      publish_plan: JSON.stringify(plan),
      rollback_started_at: null,
      publish_owner: owner,
    });
}

/** Keeps `owner`'s claim on a publishing launch fresh; answers 0 once another runner took it over. */
export async function renewPublishing(db: Db, id: number, owner: string, at: number): Promise<number> {
  return db('launches').where({ id, status: 'publishing', publish_owner: owner }).update({ updated_at: at });
}

/**
 * Takes over a publish whose runner stopped (a crash, an outage): only if the launch is still
 * publishing and unchanged since `seenUpdatedAt` (1 when taken, 0 when someone else holds it).
 */
export async function takeOverPublishing(db: Db, id: number, seenUpdatedAt: number, owner: string, at: number): Promise<number> {
  return db('launches').where({ id, status: 'publishing', updated_at: seenUpdatedAt }).update({ updated_at: at, publish_owner: owner });
}

/** A published launch: it and every node live. */
export async function markPublished(db: Db, id: number, at: number): Promise<void> {
  await db('launches').where({ id }).update({ status: 'published', status_reason: null, published_at: at, updated_at: at, rollback_started_at: null });
  await db('launch_nodes').where({ launch_id: id }).update({ status: 'live', updated_at: at });
}

/** A failed publish: the launch says why; its nodes forget their platform ids unless objects stayed behind (`keepPlatformIds`). */
export async function markPublishFailed(db: Db, id: number, reason: string, keepPlatformIds: boolean, at: number): Promise<void> {
  await db('launch_nodes')
    .where({ launch_id: id })
    .update({ platform_id: keepPlatformIds ? db.raw('platform_id') : null, updated_at: at });
  await db('launches').where({ id }).update({ status: 'publish_failed', status_reason: reason, updated_at: at, rollback_started_at: null });
}

/** Where a launch's publish stands: its attempt, the plan it was started with, and whether it is rolling back. */
export interface PublishRecord {
  attempt: number;
  plan: unknown;
  rollbackStartedAt: number | null;
}

/** The publish record of launch `id` (any brand: the recovery job knows the launch only by id), or undefined. */
export async function publishRecordOf(db: Db, id: number): Promise<(PublishRecord & { launch: LaunchRow }) | undefined> {
  const row = await db('launches').where({ id }).first();
  if (!row) return undefined;
  return {
    launch: toLaunch(row),
    attempt: Number(row.publish_attempt),
    plan: row.publish_plan ? JSON.parse(row.publish_plan) : null,
    rollbackStartedAt: row.rollback_started_at === null ? null : Number(row.rollback_started_at),
  };
}

/** Records that the publishing launch goes backward from now on (only removing what exists); answers 1 when it was publishing. */
export async function markRollbackStarted(db: Db, id: number, at: number): Promise<number> {
  return db('launches')
    .where({ id, status: 'publishing' })
    .update({ rollback_started_at: db.raw('coalesce(rollback_started_at, ?)', [at]), updated_at: at });
}

export type PublishAction = 'create' | 'activate' | 'delete';

/** Records a platform step before it is sent (state `intent`); answers its id. */
export async function recordStepIntent(
  db: Db,
  launchId: number,
  step: { attempt: number; action: PublishAction; level: string | null; accountId: string | null; nodeIds: string[]; platformIds?: string[] | null },
  at: number,
): Promise<number> {
  const [id] = await db('publish_steps').insert({
    launch_id: launchId,
    attempt: step.attempt,
    action: step.action,
    level: step.level,
    account_id: step.accountId,
    node_ids: JSON.stringify(step.nodeIds),
    platform_ids: step.platformIds ? JSON.stringify(step.platformIds) : null,
    state: 'intent',
    created_at: at,
    updated_at: at,
  });
  return Number(id);
}

/** Records how a step ended: `done` with the platform ids it made or removed, or `failed` with why. */
export async function finishStep(db: Db, id: number, state: 'done' | 'failed', platformIds: string[] | null, detail: string | null, at: number): Promise<void> {
  const change: Record<string, unknown> = { state, detail: detail?.slice(0, 2000) ?? null, updated_at: at };
  if (platformIds) change.platform_ids = JSON.stringify(platformIds);
  await db('publish_steps').where({ id }).update(change);
}

/** Nodes whose platform objects were deleted: they forget those ids, so nothing deleted is used again. */
export async function forgetPlatformIds(db: Db, launchId: number, nodeIds: string[], at: number): Promise<void> {
  if (!nodeIds.length) return;
  await db('launch_nodes').where({ launch_id: launchId }).whereIn('id', nodeIds).update({ platform_id: null, updated_at: at });
}

/** How many of the brand's published launches have a campaign on `accountId`, and the `limit` most recently published of them. */
export async function publishedOnAccount(
  db: Db,
  brandId: number,
  accountId: string,
  limit: number,
): Promise<{ total: number; sample: Array<{ id: number; publishedAt: number }> }> {
  const published = db('launches as l')
    .where({ 'l.brand_id': brandId, 'l.status': 'published' })
    .whereExists((q) =>
      q.select(db.raw('1')).from('launch_nodes as n').whereRaw('n.launch_id = l.id').where({ 'n.node_type': 'campaign', 'n.account_id': accountId }),
    );
  const [total, sample] = await Promise.all([
    published.clone().count({ n: '*' }).first(),
    published
      .clone()
      .orderBy([
        { column: 'l.published_at', order: 'desc' },
        { column: 'l.id', order: 'desc' },
      ])
      .limit(limit)
      .select('l.id', 'l.published_at'),
  ]);
  return { total: Number(total?.n ?? 0), sample: sample.map((s) => ({ id: Number(s.id), publishedAt: Number(s.published_at) })) };
}

// ---- launch_nodes

/** The nodes of a launch in creation order (a tree's order: parents before children). */
export async function loadNodes(db: Db, launchId: number): Promise<NodeRow[]> {
  const rows = await db('launch_nodes')
    .where({ launch_id: launchId })
    .orderBy([{ column: 'created_at' }, { column: 'id' }]);
  return rows.map(toNode);
}

/** One node of the launch, or undefined. */
export async function findNode(db: Db, launchId: number, nodeId: string): Promise<NodeRow | undefined> {
  const row = await db('launch_nodes').where({ launch_id: launchId, id: nodeId }).first();
  return row ? toNode(row) : undefined;
}

/**
 * The live campaigns the brand's launches put on an ad platform (with a platform id), oldest launch
 * first, each with its ad account (the node's, else its launch's).
 */
export async function liveCampaignsOf(db: Db, brandId: number): Promise<Array<{ node: NodeRow; accountId: string | null }>> {
  const rows = await db('launch_nodes as n')
    .join('launches as l', 'l.id', 'n.launch_id')
    .where({ 'l.brand_id': brandId, 'n.node_type': 'campaign', 'n.status': 'live' })
    .whereNotNull('n.platform_id')
    .orderBy(['l.id', 'n.created_at', 'n.id'])
    .select('n.*', db.raw('coalesce(n.account_id, l.account_id) as campaign_account_id'));
  return rows.map((r) => ({ node: toNode(r), accountId: r.campaign_account_id ?? null }));
}

/** A node by its id alone (an automation's pending action names it), or undefined. */
export async function nodeById(db: Db, nodeId: string): Promise<NodeRow | undefined> {
  const row = await db('launch_nodes').where({ id: nodeId }).first();
  return row ? toNode(row) : undefined;
}

/** The brand's live nodes of one level on an ad account that have a platform object (what automations watch). */
export async function liveNodesOn(db: Db, brandId: number, accountId: string, nodeType: NodeType): Promise<NodeRow[]> {
  const rows = await db('launch_nodes as n')
    .join('launches as l', 'l.id', 'n.launch_id')
    .where({ 'n.account_id': accountId, 'n.status': 'live', 'n.node_type': nodeType, 'l.brand_id': brandId })
    .whereNotNull('n.platform_id')
    .select('n.*');
  return rows.map(toNode);
}

/** The ids among `nodeIds` of nodes of launch `launchId` of the brand. */
export async function nodesAmong(db: Db, brandId: number, launchId: number, nodeIds: string[]): Promise<string[]> {
  return db('launch_nodes as n')
    .join('launches as l', 'l.id', 'n.launch_id')
    .where({ 'l.brand_id': brandId, 'n.launch_id': launchId })
    .whereIn('n.id', nodeIds)
    .pluck('n.id');
}

/** The platform ids among `platformIds` of the brand's live nodes of one level on an ad account. */
export async function liveObjectsAmong(db: Db, brandId: number, accountId: string, nodeType: string, platformIds: string[]): Promise<string[]> {
  return db('launch_nodes as n')
    .join('launches as l', 'l.id', 'n.launch_id')
    .where({ 'l.brand_id': brandId, 'n.account_id': accountId, 'n.status': 'live', 'n.node_type': nodeType })
    .whereIn('n.platform_id', platformIds)
    .pluck('n.platform_id');
}

/** The children of a node, in creation order. */
export async function childNodes(db: Db, launchId: number, parentId: string): Promise<NodeRow[]> {
  return (await db('launch_nodes').where({ launch_id: launchId, parent_id: parentId }).orderBy(['created_at', 'id'])).map(toNode);
}

/** Stores new nodes (parents before children), in batches. */
export async function insertNodes(db: Db, nodes: NodeRow[]): Promise<void> {
  const rows = nodes.map((n) => ({
    id: n.id,
    launch_id: n.launchId,
    parent_id: n.parentId,
    node_type: n.nodeType,
    account_id: n.accountId,
    name: n.name,
    properties: JSON.stringify(n.properties),
    platform_id: n.platformId,
    status: n.status,
    created_at: n.createdAt,
    updated_at: n.updatedAt,
  }));
  await db.batchInsert('launch_nodes', rows, 200);
}

/** Saves a node's settings (and its name, when given: drafts keep it beside their properties). */
export async function updateNodeProperties(db: Db, nodeId: string, properties: Record<string, unknown>, at: number, name?: string | null): Promise<void> {
  await db('launch_nodes')
    .where({ id: nodeId })
    .update({ properties: JSON.stringify(properties), ...(name !== undefined ? { name } : {}), updated_at: at });
}

/** The live nodes among `nodeIds` on `accountId` of the brand (absent: not found, not live or another account's). */
export async function liveNodesAmong(db: Db, brandId: number, accountId: string, nodeIds: string[]): Promise<NodeRow[]> {
  const out: NodeRow[] = [];
  for (let i = 0; i < nodeIds.length; i += 500) {
    const rows = await db('launch_nodes as n')
      .join('launches as l', 'l.id', 'n.launch_id')
      .where({ 'n.account_id': accountId, 'n.status': 'live', 'l.brand_id': brandId })
      .whereNotNull('n.platform_id')
      .whereIn('n.id', nodeIds.slice(i, i + 500))
      .select('n.*');
    out.push(...rows.map(toNode));
  }
  return out;
}

/** Writes the properties of many nodes at once (a few statements), all updated at `at`. */
export async function setNodesProperties(db: Db, changes: Array<{ id: string; properties: Record<string, unknown> }>, at: number): Promise<void> {
  for (let i = 0; i < changes.length; i += 200) {
    const part = changes.slice(i, i + 200);
    const cases = part.map(() => 'when ? then ?').join(' ');
    await db('launch_nodes')
      .whereIn(
        'id',
        part.map((c) => c.id),
      )
      .update({
        properties: db.raw(
          `case id ${cases} end`,
          part.flatMap((c) => [c.id, JSON.stringify(c.properties)]),
        ),
        updated_at: at,
      });
  }
}

/** Moves a campaign, its ad sets and their ads to `accountId`. */
export async function setCampaignAccount(db: Db, launchId: number, campaignId: string, accountId: string | null): Promise<void> {
  const adSets = await db('launch_nodes').where({ launch_id: launchId, parent_id: campaignId }).pluck('id');
  await db('launch_nodes').where({ id: campaignId }).update({ account_id: accountId });
  if (adSets.length) {
    await db('launch_nodes').whereIn('id', adSets).update({ account_id: accountId });
    await db('launch_nodes').whereIn('parent_id', adSets).update({ account_id: accountId });
  }
}

/** Deletes nodes by id, 500 at a time. */
export async function deleteNodes(db: Db, ids: string[]): Promise<void> {
  for (let i = 0; i < ids.length; i += 500)
    await db('launch_nodes')
      .whereIn('id', ids.slice(i, i + 500))
      .delete();
}

/** Records the platform ids of a chunk of nodes in one statement (and on the node objects). */
export async function recordPlatformIds(db: Db, nodes: NodeRow[], platformIds: string[], at: number): Promise<void> {
  if (!nodes.length) return;
  const cases = nodes.map(() => 'when ? then ?').join(' ');
  await db('launch_nodes')
    .whereIn(
      'id',
      nodes.map((n) => n.id),
    )
    .update({
      platform_id: db.raw(
        `case id ${cases} end`,
        nodes.flatMap((n, i) => [n.id, platformIds[i]]),
      ),
      updated_at: at,
    });
  nodes.forEach((n, i) => (n.platformId = platformIds[i]));
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

/** The platform ids among `platformIds` that belong to nodes launched by this service. */
export async function launchedPlatformIds(db: Db, platformIds: string[]): Promise<Set<string>> {
  return new Set<string>(platformIds.length ? await db('launch_nodes').whereIn('platform_id', platformIds).pluck('platform_id') : []);
}

/** The platform ids of the campaigns of `launchIds` on `accountId`, sorted. */
export async function campaignPlatformIds(db: Db, launchIds: number[], accountId: string): Promise<string[]> {
  if (!launchIds.length) return [];
  return db('launch_nodes')
    .whereIn('launch_id', launchIds)
    .where({ node_type: 'campaign', account_id: accountId })
    .whereNotNull('platform_id')
    .orderBy('platform_id')
    .pluck('platform_id');
}

/**
 * When each of `platformIds` (campaigns on `accountId`) came to be on the platform, as far as the
 * service knows: its launch's first publish (a seeded live launch: the node's own time). Campaigns
 * the service did not publish are absent.
 */
export async function campaignFirstTimes(db: Db, accountId: string, platformIds: string[]): Promise<Map<string, number>> {
  const first = new Map<string, number>();
  for (let i = 0; i < platformIds.length; i += 500) {
    const rows = await db('launch_nodes as n')
      .join('launches as l', 'l.id', 'n.launch_id')
      .where({ 'n.node_type': 'campaign', 'n.account_id': accountId })
      .whereIn('n.platform_id', platformIds.slice(i, i + 500))
      .select('n.platform_id', 'l.published_at', 'n.created_at');
    for (const r of rows) {
      const at = Number(r.published_at ?? r.created_at);
      const id = String(r.platform_id);
      if (!first.has(id) || at < first.get(id)!) first.set(id, at);
    }
  }
  return first;
}

// ---- snapshot_templates

export interface SnapshotTemplateRow {
  id: number;
  organizationId: number;
  brandId: number;
  sourceLaunchId: number | null;
  name: string;
  description: string | null;
  /** The campaign-level properties saved, in tree order. */
  campaigns: Array<Record<string, unknown>>;
  createdAt: number;
}

function toTemplate(r: Record<string, any>): SnapshotTemplateRow {
  return {
    id: Number(r.id),
    organizationId: Number(r.organization_id),
    brandId: Number(r.brand_id),
    sourceLaunchId: r.source_launch_id === null ? null : Number(r.source_launch_id),
    name: r.name,
    description: r.description ?? null,
    campaigns: JSON.parse(r.campaigns),
    createdAt: Number(r.created_at),
  };
}

/** Stores a snapshot template; answers its id. */
export async function insertSnapshotTemplate(db: Db, t: Omit<SnapshotTemplateRow, 'id'>): Promise<number> {
  const [id] = await db('snapshot_templates').insert({
    organization_id: t.organizationId,
    brand_id: t.brandId,
    source_launch_id: t.sourceLaunchId,
    name: t.name,
    description: t.description,
    campaigns: JSON.stringify(t.campaigns),
    created_at: t.createdAt,
  });
  return Number(id);
}

/** The brand's snapshot template `id`, or undefined (also for another brand's). */
export async function findSnapshotTemplate(db: Db, brandId: number, id: number): Promise<SnapshotTemplateRow | undefined> {
  const row = await db('snapshot_templates').where({ id, brand_id: brandId }).first();
  return row ? toTemplate(row) : undefined;
}

/** The brand's snapshot templates newest first, below `beforeId` when given, at most `limit`. */
export async function snapshotTemplatesOf(db: Db, brandId: number, limit: number, beforeId?: number): Promise<SnapshotTemplateRow[]> {
  const q = db('snapshot_templates').where({ brand_id: brandId }).orderBy('id', 'desc').limit(limit);
  if (beforeId !== undefined) q.where('id', '<', beforeId);
  return (await q).map(toTemplate);
}

// ---- spend_commitments

/** What a publish or a live budget edit reserved, then committed or released, for one ad account. */
export interface Commitment {
  id: number;
  organizationId: number;
  /** The ledger that counted it: the API key, or the OAuth grant. */
  apiKeyId: number | null;
  grantId: number | null;
  /** A person's membership (a live change made in the console). */
  membershipId?: number | null;
  launchId: number;
  nodeId: string | null;
  kind: 'publish' | 'budget_edit';
  /** Null on commitments made before amounts were kept per ad account. */
  accountId: string | null;
  currency: string | null;
  amountMinorUnits: number | null;
  /** What it counted against the ceiling, US cents. */
  countedUsdCents: number;
  state: 'reserved' | 'committed' | 'released';
}

function toCommitment(r: Record<string, any>): Commitment {
  return {
    id: Number(r.id),
    organizationId: Number(r.organization_id),
    apiKeyId: r.api_key_id === null ? null : Number(r.api_key_id),
    grantId: r.grant_id === null ? null : Number(r.grant_id),
    membershipId: r.membership_id === null || r.membership_id === undefined ? null : Number(r.membership_id),
    launchId: Number(r.launch_id),
    nodeId: r.node_id ?? null,
    kind: r.kind,
    accountId: r.account_id ?? null,
    currency: r.currency ?? null,
    amountMinorUnits: r.amount_minor_units === null ? null : Number(r.amount_minor_units),
    countedUsdCents: Number(r.amount_cents),
    state: r.state,
  };
}

/** Stores reserved commitments made at `at`; answers the id of the first (the only one for a single commitment). */
export async function insertCommitments(db: Db, commitments: Array<Omit<Commitment, 'id' | 'state'>>, at: number): Promise<number> {
  const [id] = await db('spend_commitments').insert(
    commitments.map((c) => ({
      organization_id: c.organizationId,
      api_key_id: c.apiKeyId,
      grant_id: c.grantId,
      membership_id: c.membershipId ?? null,
      launch_id: c.launchId,
      node_id: c.nodeId,
      kind: c.kind,
      amount_cents: c.countedUsdCents,
      account_id: c.accountId,
      currency: c.currency,
      amount_minor_units: c.amountMinorUnits,
      state: 'reserved',
      created_at: at,
      updated_at: at,
    })),
  );
  return Number(id);
}

/** The launch's commitments in a state (of a kind, when given), in id order. */
export async function commitmentsOf(db: Db, launchId: number, state: Commitment['state'], kind?: Commitment['kind']): Promise<Commitment[]> {
  const q = db('spend_commitments').where({ launch_id: launchId, state }).orderBy('id');
  if (kind) q.where({ kind });
  return (await q).map(toCommitment);
}

/** Moves one commitment to a new state. */
export async function settleCommitment(db: Db, id: number, state: 'committed' | 'released', at: number): Promise<void> {
  await db('spend_commitments').where({ id }).update({ state, updated_at: at });
}

/** Commits every reserved commitment of the launch (its publish succeeded). */
export async function commitReserved(db: Db, launchId: number, at: number): Promise<void> {
  await db('spend_commitments').where({ launch_id: launchId, state: 'reserved' }).update({ state: 'committed', updated_at: at });
}
