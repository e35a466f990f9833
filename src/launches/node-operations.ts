// Nodes of a launch: campaigns, ad sets and ads. Add, update, read an ad set, remove (cascading)
// and duplicate. Drafts change freely; a live node changes only its status (pushed to the platform).

import { defineOperation, type OperationDefinition, type OwnTransactions, type ServiceContext } from '../catalogue/define.js';
import { ServiceError, notFound, validationFailed } from '../errors.js';
import { mergePatch } from '../merge-patch.js';
import { findAdAccount } from '../brands/store.js';
import { accountScope } from '../platforms/live-read.js';
import { inTransaction } from '../db/connection.js';
import { loadCopy } from '../copy/store.js';
import { adTextsFromCopy } from '../copy/attach.js';
import { requireReferences, type Reference } from '../references/resolve.js';
import { validationContextFor } from './context.js';
import { liveChangeFingerprint, requireLiveChange, statusChange } from './live-change.js';
import { approvalNeeded } from '../approvals/gate.js';
import { planFingerprint as launchPlanFingerprint } from './publish-view.js';
import {
  childNodes,
  deleteNodes,
  findNode,
  insertNodes,
  loadLaunch,
  loadNodes,
  newNodeId,
  setCampaignAccount,
  touchLaunch,
  updateNodeProperties,
  type LaunchRow,
  type NodeRow,
  type NodeType,
} from './store.js';
import { budgetOf, childrenOf, draftNode } from './tree.js';
import { validateLaunch } from './validate.js';
import { nodeView } from './views.js';

const write = { readOnly: false, destructive: false, idempotent: false, openWorld: false };
const PARENT: Record<NodeType, NodeType | null> = { campaign: null, adset: 'campaign', ad: 'adset' };

function editable(l: LaunchRow): void {
  if (l.status !== 'draft' && l.status !== 'publish_failed') {
    throw new ServiceError('conflict', `Launch ${l.id} is ${l.status}; its tree can no longer be added to or duplicated. Start a new launch.`, {
      status: l.status,
    });
  }
}

/** The node of the launch, or 404. */
async function nodeOf(ctx: ServiceContext, launchId: number, nodeId: string): Promise<NodeRow> {
  const node = await findNode(ctx.db, launchId, nodeId);
  if (!node) throw notFound(`Node ${nodeId} of launch ${launchId}`);
  return node;
}

/** The creative and copy an ad's settings name, as references of the brand (fields below `prefix`). */
function adReferences(brandId: number, settings: Record<string, unknown>, prefix: string): Reference[] {
  const refs: Reference[] = [];
  if (typeof settings.creativeId === 'number') refs.push({ kind: 'creative', field: `${prefix}creativeId`, id: settings.creativeId, brandId });
  if (typeof settings.copyGenerationId === 'number') refs.push({ kind: 'copy', field: `${prefix}copyGenerationId`, id: settings.copyGenerationId, brandId });
  return refs;
}

/** 400 on properties.accountId unless it is an ad account of the brand. */
async function requireBrandAccount(db: ServiceContext['db'], brandId: number, accountId: string): Promise<void> {
  if (!(await findAdAccount(db, brandId, accountId))) {
    throw validationFailed([{ field: 'properties.accountId', code: 'invalid_value', message: `${accountId} is not an ad account of this brand` }]);
  }
}

const createNode = defineOperation({
  name: 'create-node',
  method: 'POST',
  path: '/brands/{brandId}/launches/{launchId}/nodes',
  scope: 'write',
  idempotency: 'optional',
  input: 'create-node#/$defs/input',
  output: 'create-node#/$defs/output',
  annotations: write,
  tag: 'launches',
  toolset: 'launch',
  successStatus: 201,
  summary: 'Add a campaign, an ad set (parentId: its campaign) or an ad (parentId: its ad set) to a draft launch.',
  description: 'properties carry the settings of the level; see the node-properties schema. Completeness is checked when the launch is published.',
  uses: ['validate', 'activity'],
  async handler(ctx, input) {
    const l = await loadLaunch(ctx.db, ctx.brand.id, input.launchId, true);
    editable(l);
    const properties = ctx.validate<Record<string, any>>(`node-properties#/$defs/${input.nodeType}`, input.properties ?? {}, 'properties');
    await requireReferences(ctx.db, ctx.principal, adReferences(l.brandId, properties, 'properties.'));
    const wanted = PARENT[input.nodeType];
    let accountId: string | null;
    if (wanted === null) {
      if (input.parentId) throw validationFailed([{ field: 'parentId', code: 'invalid_value', message: 'must be omitted for a campaign' }]);
      if (properties.accountId) await requireBrandAccount(ctx.db, l.brandId, properties.accountId);
      accountId = properties.accountId ?? l.accountId;
    } else {
      if (!input.parentId)
        throw validationFailed([{ field: 'parentId', code: 'invalid_type', message: `is required: the ${wanted} this ${input.nodeType} belongs to` }]);
      const parent = await findNode(ctx.db, l.id, input.parentId);
      if (!parent || parent.nodeType !== wanted) {
        throw validationFailed([{ field: 'parentId', code: 'invalid_value', message: `must be the id of a ${wanted} of this launch` }]);
      }
      accountId = parent.accountId;
    }
    const now = ctx.now();
    const id = newNodeId();
    await insertNodes(ctx.db, [draftNode({ id, launchId: l.id, parentId: input.parentId ?? null, nodeType: input.nodeType, accountId, properties }, now)]);
    await touchLaunch(ctx.db, l.id, now);
    await ctx.activity.record({
      brandId: l.brandId,
      accountId,
      entityType: input.nodeType,
      entityId: id,
      entityName: properties.name ?? null,
      action: `${input.nodeType}.created`,
    });
    return nodeView(await nodeOf(ctx, l.id, id));
  },
});

const updateNode = defineOperation({
  name: 'update-node',
  method: 'PATCH',
  path: '/brands/{brandId}/launches/{launchId}/nodes/{nodeId}',
  scope: 'write',
  errors: ['conflict', 'stale_read', 'capability_unsupported', 'unavailable'],
  idempotency: 'none',
  input: 'update-node#/$defs/input',
  output: 'update-node#/$defs/output',
  // A live node's status set ACTIVE spends again on the ad platform (paths.md "Who may cause a publish").
  annotations: { ...write, destructive: true, idempotent: true, openWorld: true },
  tag: 'launches',
  toolset: 'launch',
  // A live change calls the ad platform, which must not happen inside a database transaction.
  transactional: false,
  summary: 'Attach a creative, generated copy or existing post to an ad, or change node settings (properties, merged as a JSON merge patch).',
  description:
    "At least one of creativeId, copyGenerationId, postId or properties. copyGenerationId (from generate-copy) sets the ad's headline, primaryText and description from the copy's first texts unless properties names others; a copy written for the other platform answers 400 validation_failed. A creativeId or copyGenerationId (attached or in properties; numbers or digits) that is not the brand's answers 400 validation_failed on that field, the same for a missing one as for another brand's. On a live node only properties.status (ACTIVE or PAUSED) may change, and the change is pushed to the ad platform; it needs the publish scope (403 insufficient_scope otherwise, nothing sent) and, with planFingerprint (the fingerprint answered for this status change), makes only that change (another status or node, a launch preview's fingerprint, or a node changed since: 409 stale_read with the change's own fingerprint, nothing sent). Live budgets change through edit-live-campaign.",
  uses: ['validate', 'activity', 'platforms', 'metrics', 'config', 'events'],
  async handler(ctx, input) {
    const attach = (['creativeId', 'copyGenerationId', 'postId'] as const).filter((k) => input[k] !== undefined);
    if (!attach.length && input.properties === undefined) {
      throw validationFailed([
        { field: 'properties', code: 'invalid_type', message: 'send at least one of creativeId, copyGenerationId, postId or properties' },
      ]);
    }
    const l = await loadLaunch(ctx.db, ctx.brand.id, input.launchId);
    const node = await nodeOf(ctx, l.id, input.nodeId);
    if (attach.length && node.nodeType !== 'ad') {
      throw validationFailed(
        attach.map((k) => ({ field: k, code: 'invalid_value', message: `can be attached to an ad only; node ${node.id} is a ${node.nodeType}` })),
      );
    }
    // Every creative and copy named, attached or in properties, must be the brand's (400 on its field otherwise).
    await requireReferences(ctx.db, ctx.principal, [
      ...adReferences(l.brandId, { ...input }, ''),
      ...adReferences(l.brandId, input.properties ?? {}, 'properties.'),
    ]);
    const patch: Record<string, any> = {};
    if (input.copyGenerationId !== undefined) {
      // The copy's first texts become the ad's, unless the request names its own in properties.
      const copy = await loadCopy(ctx.db, l.brandId, input.copyGenerationId);
      const account = node.accountId ? await findAdAccount(ctx.db, l.brandId, node.accountId) : undefined;
      if (account && account.platform !== copy.platform) {
        throw validationFailed([
          {
            field: 'copyGenerationId',
            code: 'invalid_value',
            message: `copy ${copy.copyGenerationId} was written for ${copy.platform}; this ad publishes to ${account.platform} (${node.accountId})`,
          },
        ]);
      }
      Object.assign(patch, adTextsFromCopy(copy));
    }
    Object.assign(patch, input.properties ?? {});
    for (const k of attach) patch[k] = input[k];
    if (node.status === 'live') return liveStatusChange(ctx, l, node, patch, input.planFingerprint);
    return inTransaction(ctx.db, async (trx) => {
      const locked = await loadLaunch(trx, l.brandId, l.id, true);
      editable(locked);
      const current = (await findNode(trx, l.id, node.id))!;
      const merged = ctx.validate<Record<string, any>>(
        `node-properties#/$defs/${node.nodeType}`,
        mergePatch(current.properties, patch) as Record<string, unknown>,
        'properties',
      );
      if (node.nodeType === 'campaign' && merged.accountId && merged.accountId !== current.properties.accountId)
        await requireBrandAccount(trx, l.brandId, merged.accountId);
      const now = ctx.now();
      await updateNodeProperties(trx, node.id, merged, now, merged.name ?? null);
      // Children follow their campaign's ad account.
      if (node.nodeType === 'campaign') await setCampaignAccount(trx, l.id, node.id, merged.accountId ?? locked.accountId);
      await touchLaunch(trx, l.id, now);
      await ctx.activity.record(
        {
          brandId: l.brandId,
          accountId: node.accountId,
          entityType: node.nodeType,
          entityId: node.id,
          entityName: merged.name ?? null,
          action: `${node.nodeType}.updated`,
        },
        trx,
      );
      return nodeView((await findNode(trx, l.id, node.id))!);
    });
  },
});

/** The budget a live node spends when it runs: its own, else the nearest of its parents' (an ad: its ad set's or campaign's). */
function budgetSpentBy(node: NodeRow, nodes: NodeRow[]) {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  for (let n: NodeRow | undefined = node; n; n = n.parentId ? byId.get(n.parentId) : undefined) {
    const b = budgetOf(n.properties);
    if (b) return { nodeId: n.id, ...b };
  }
  return null;
}

/** A live node: only its status may change (with `publish`), pushed to the ad platform first, then recorded. */
async function liveStatusChange(
  ctx: ServiceContext<'activity' | 'platforms' | 'metrics' | 'config' | 'events'> & OwnTransactions,
  l: LaunchRow,
  node: NodeRow,
  patch: Record<string, any>,
  planFingerprint: string | undefined,
) {
  const keys = Object.keys(patch);
  if (keys.length !== 1 || keys[0] !== 'status' || (patch.status !== 'ACTIVE' && patch.status !== 'PAUSED')) {
    throw new ServiceError(
      'conflict',
      `Node ${node.id} is live: only properties.status (ACTIVE or PAUSED) can change; budgets change through edit-live-campaign.`,
      {
        status: 'live',
      },
    );
  }
  // A live object's status is money (a paused campaign set ACTIVE spends again): publish, like edit-live-campaign; nothing is sent without it.
  if (!ctx.principal.scopes.has('publish')) {
    throw new ServiceError(
      'insufficient_scope',
      `Changing the status of ${node.nodeType} ${node.id}, which is live on the ad platform, needs the "publish" scope; this credential has ${[...ctx.principal.scopes].join(', ') || 'none'}. Drafts change with "write".`,
      { requiredScope: 'publish' },
    );
  }
  const nodes = await loadNodes(ctx.db, l.id);
  const change = statusChange(node, patch.status);
  const launchPlan = launchPlanFingerprint(nodes);
  requireLiveChange(change, launchPlan, planFingerprint, 'no status was changed');
  const account = await ctx.platforms.account(ctx.db, l.brandId, node.accountId!);
  // An organization where people decide: an agent's status change waits for a person's approval of exactly this change.
  const budget = patch.status === 'ACTIVE' ? budgetSpentBy(node, nodes) : null;
  const waiting = await approvalNeeded(ctx, {
    kind: 'live_status',
    brandId: l.brandId,
    operation: 'update-node',
    input: {
      brandId: l.brandId,
      launchId: l.id,
      nodeId: node.id,
      properties: { status: patch.status },
      planFingerprint: liveChangeFingerprint(change, launchPlan),
    },
    launchId: l.id,
    nodeId: node.id,
    plan: { title: l.title, name: node.properties.name ?? null, platform: account.platform, change, ...(budget ? { budget } : {}) },
    planFingerprint: liveChangeFingerprint(change, launchPlan),
    // Set ACTIVE, the object spends its budget again (a status change counts nothing against the ceiling).
    amounts: budget ? [{ accountId: account.accountId, currency: account.currency, amountMinorUnits: budget.amountMinorUnits, countedUsdCents: 0 }] : [],
  });
  if (waiting) return waiting;
  await ctx.platforms.adapterFor(account.platform).setStatus(account, [{ level: node.nodeType, id: node.platformId! }], patch.status);
  const merged: Record<string, any> = { ...node.properties, status: patch.status };
  await ctx.metrics.invalidate(accountScope(account));
  await inTransaction(ctx.db, async (trx) => {
    await updateNodeProperties(trx, node.id, merged, ctx.now());
    await ctx.activity.record(
      {
        brandId: l.brandId,
        accountId: account.accountId,
        entityType: node.nodeType,
        entityId: node.id,
        entityName: merged.name ?? null,
        action: patch.status === 'ACTIVE' ? `${node.nodeType}.activated` : `${node.nodeType}.paused`,
      },
      trx,
    );
  });
  return nodeView(await nodeOf(ctx, l.id, node.id));
}

const getAdSet = defineOperation({
  name: 'get-ad-set',
  method: 'GET',
  path: '/brands/{brandId}/launches/{launchId}/ad-sets/{adsetId}',
  scope: 'read',
  idempotency: 'none',
  input: 'get-ad-set#/$defs/input',
  output: 'get-ad-set#/$defs/output',
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  tag: 'launches',
  toolset: 'launch',
  summary: 'Read an ad set: settings, targeting, budget, schedule, placements, optimization, assets, links and its ads.',
  uses: [],
  async handler(ctx, input) {
    const l = await loadLaunch(ctx.db, ctx.brand.id, input.launchId);
    const node = await nodeOf(ctx, l.id, input.adsetId);
    if (node.nodeType !== 'adset') throw notFound(`Ad set ${input.adsetId} of launch ${l.id}`);
    const ads = await childNodes(ctx.db, l.id, node.id);
    const p = node.properties;
    return {
      id: node.id,
      launchId: String(l.id),
      campaignId: node.parentId,
      name: p.name ?? null,
      status: node.status,
      platformId: node.platformId,
      settings: { name: p.name ?? null, billingEvent: p.billingEvent ?? null, bidAmount: p.bidAmount ?? null },
      targeting: p.targeting ?? {},
      budget: budgetOf(p),
      schedule: p.schedule ?? {},
      placements: p.placements ?? { automatic: true },
      optimization: { optimizationGoal: p.optimizationGoal ?? null, billingEvent: p.billingEvent ?? null, promotedObject: p.promotedObject ?? null },
      assets: {
        creativeIds: ads.map((a) => a.properties.creativeId).filter((x) => x !== undefined),
        postIds: ads.map((a) => a.properties.postId).filter((x) => x !== undefined),
      },
      links: {
        linkUrls: [...new Set(ads.map((a) => a.properties.linkUrl).filter(Boolean))],
        urlTags: [...new Set(ads.map((a) => a.properties.urlTags).filter(Boolean))],
      },
      ads: ads.map(nodeView),
    };
  },
});

const removeNodes = defineOperation({
  name: 'remove-nodes',
  method: 'POST',
  path: '/brands/{brandId}/launches/{launchId}/nodes/remove',
  scope: 'write',
  errors: ['conflict'],
  idempotency: 'optional',
  input: 'remove-nodes#/$defs/input',
  output: 'remove-nodes#/$defs/output',
  annotations: { readOnly: false, destructive: true, idempotent: false, openWorld: false },
  tag: 'launches',
  toolset: 'launch',
  summary: "Remove 1 to 200 nodes (with their children) from a launch's tree. Cannot be undone; anything already published keeps running on the ad platform.",
  description:
    'notFound lists requested ids that are not in this launch with that nodeType; cascadedIds the children removed with them; validation checks what is left.',
  uses: ['activity', 'platforms', 'metrics', 'trackers'],
  async handler(ctx, input) {
    const l = await loadLaunch(ctx.db, ctx.brand.id, input.launchId, true);
    if (l.status === 'publishing') {
      throw new ServiceError('conflict', `Launch ${l.id} is being published; remove nodes once it is published or has failed.`, { status: l.status });
    }
    const nodes = await loadNodes(ctx.db, l.id);
    const byId = new Map(nodes.map((n) => [n.id, n]));
    const removed: string[] = [];
    const notFoundIds: string[] = [];
    for (const { nodeId, nodeType } of input.nodes) {
      const n = byId.get(nodeId);
      if (n && n.nodeType === nodeType) {
        if (!removed.includes(nodeId)) removed.push(nodeId);
      } else if (!notFoundIds.includes(nodeId)) notFoundIds.push(nodeId);
    }
    const kids = childrenOf(nodes);
    const cascaded: string[] = [];
    const walk = (id: string) => {
      for (const c of kids.get(id) ?? []) {
        if (!removed.includes(c.id) && !cascaded.includes(c.id)) cascaded.push(c.id);
        walk(c.id);
      }
    };
    removed.forEach(walk);
    const gone = new Set([...removed, ...cascaded]);
    if (gone.size) {
      await deleteNodes(ctx.db, [...gone]);
      await touchLaunch(ctx.db, l.id, ctx.now());
    }
    // A removed live node is no longer "imported" in the live campaign list.
    for (const accountId of new Set(nodes.filter((n) => gone.has(n.id) && n.platformId && n.accountId).map((n) => n.accountId!))) {
      const account = await ctx.platforms.account(ctx.db, l.brandId, accountId);
      await ctx.metrics.invalidate(accountScope(account));
    }
    for (const id of removed) {
      const n = byId.get(id)!;
      await ctx.activity.record({
        brandId: l.brandId,
        accountId: n.accountId,
        entityType: n.nodeType,
        entityId: n.id,
        entityName: n.properties.name ?? null,
        action: `${n.nodeType}.removed`,
      });
    }
    const left = nodes.filter((n) => !gone.has(n.id));
    const { issues } = validateLaunch(left, await validationContextFor(ctx, l, left));
    return {
      removedIds: removed,
      deleted: removed,
      notFound: notFoundIds,
      count: removed.length,
      cascadedIds: cascaded,
      totalRemoved: removed.length + cascaded.length,
      validation: { valid: issues.length === 0, issueCount: issues.length, issues: issues.map((i) => `${i.field}: ${i.message}`) },
    };
  },
});

const duplicateNode = defineOperation({
  name: 'duplicate-node',
  method: 'POST',
  path: '/brands/{brandId}/launches/{launchId}/nodes/{nodeId}/duplicate',
  scope: 'write',
  idempotency: 'optional',
  input: 'duplicate-node#/$defs/input',
  output: 'duplicate-node#/$defs/output',
  annotations: write,
  tag: 'launches',
  toolset: 'launch',
  summary: 'Copy an ad set or an ad 1 to 50 times, with all its settings and children, under the same parent.',
  uses: ['activity'],
  async handler(ctx, input) {
    const l = await loadLaunch(ctx.db, ctx.brand.id, input.launchId, true);
    editable(l);
    const node = await nodeOf(ctx, l.id, input.nodeId);
    if (node.nodeType !== input.nodeType) {
      throw validationFailed([{ field: 'nodeType', code: 'invalid_value', message: `node ${node.id} is a ${node.nodeType}, not an ${input.nodeType}` }]);
    }
    const children = input.nodeType === 'adset' ? await childNodes(ctx.db, l.id, node.id) : [];
    const now = ctx.now();
    // Creation time orders a tree; one millisecond apart keeps the copies in order.
    let order = 0;
    const copyOf = (n: NodeRow, id: string, parentId: string | null, name: string | null): NodeRow => ({
      ...n,
      id,
      parentId,
      name,
      properties: name === null ? n.properties : { ...n.properties, name },
      platformId: null,
      status: 'draft',
      createdAt: now + order++,
      updatedAt: now,
    });
    const copies: string[] = [];
    const rows: NodeRow[] = [];
    for (let i = 0; i < input.count; i++) {
      const id = newNodeId();
      copies.push(id);
      rows.push(
        copyOf(node, id, node.parentId, node.properties.name ? `${node.properties.name} - Copy${input.count > 1 ? ` ${i + 1}` : ''}`.slice(0, 400) : null),
      );
      for (const c of children) rows.push(copyOf(c, newNodeId(), id, c.properties.name ?? null));
    }
    await insertNodes(ctx.db, rows);
    await touchLaunch(ctx.db, l.id, now);
    await ctx.activity.record({
      brandId: l.brandId,
      accountId: node.accountId,
      entityType: node.nodeType,
      entityId: node.id,
      entityName: node.properties.name ?? null,
      action: `${node.nodeType}.duplicated`,
    });
    return { success: true, count: input.count, nodeType: input.nodeType, nodeIds: copies };
  },
});

/** The node operations, in catalogue order. */
export const nodeOperations: OperationDefinition[] = [createNode, updateNode, getAdSet, removeNodes, duplicateNode];
