// The launches area's operations, read top to bottom: launches (draft containers of campaign → ad
// set → ad trees) here, with snapshot templates of their campaign-level settings; the node
// operations are in node-operations.ts, publishing and live budgets in publish-operations.ts.

import { defineOperation, type OperationDefinition } from '../catalogue/define.js';
import { ServiceError, notFound, validationFailed } from '../errors.js';
import { createDraftLaunch } from './create.js';
import { nodeOperations } from './node-operations.js';
import { previewLaunch } from './preview-operation.js';
import { publishOperations } from './publish-operations.js';
import {
  countsByLaunch,
  deleteLaunch as deleteLaunchRows,
  findSnapshotTemplate,
  insertNodes,
  insertSnapshotTemplate,
  launchIds,
  loadLaunch,
  loadNodes,
  newNodeId,
  snapshotTemplatesOf,
  updateLaunch as updateLaunchRow,
  type SnapshotTemplateRow,
} from './store.js';
import { draftNode } from './tree.js';
import { launchSummary, launchTree } from './views.js';

const write = { readOnly: false, destructive: false, idempotent: false, openWorld: false };
const read = { readOnly: true, destructive: false, idempotent: true, openWorld: false };

const createLaunch = defineOperation({
  name: 'create-launch',
  method: 'POST',
  path: '/brands/{brandId}/launches',
  scope: 'write',
  idempotency: 'optional',
  input: 'create-launch#/$defs/input',
  output: 'create-launch#/$defs/output',
  annotations: write,
  tag: 'launches',
  toolset: 'launch',
  successStatus: 201,
  summary: 'Create an empty draft launch (a batch) for a brand.',
  description:
    'title defaults to "Untitled Batch". The launch takes the brand\'s ad account when it has exactly one; with several, each campaign names its accountId.',
  uses: ['activity'],
  async handler(ctx, input) {
    const l = await createDraftLaunch(ctx, ctx.brand.id, input.title, input.description ?? null);
    return {
      id: String(l.id),
      title: l.title,
      brandId: l.brandId,
      brandName: ctx.brand.name,
      accountId: l.accountId,
      description: l.description,
      status: l.status,
      createdAt: new Date(l.createdAt).toISOString(),
    };
  },
});

const listLaunches = defineOperation({
  name: 'list-launches',
  method: 'GET',
  path: '/brands/{brandId}/launches',
  scope: 'read',
  idempotency: 'none',
  input: 'list-launches#/$defs/input',
  output: 'list-launches#/$defs/output',
  annotations: read,
  tag: 'launches',
  toolset: 'launch',
  summary: 'List launches of a brand, newest first, with status and campaign, ad set and ad counts.',
  uses: ['page'],
  async handler(ctx, input) {
    const ids = await launchIds(ctx.db, ctx.brand.id, { status: input.status, search: input.search, beforeId: ctx.page.beforeId(), limit: input.limit + 1 });
    const { rows: page, nextCursor } = ctx.page.pageOf(ids, (id) => [id]);
    const counts = await countsByLaunch(ctx.db, page);
    const batches = [];
    for (const id of page) batches.push(launchSummary(await loadLaunch(ctx.db, ctx.brand.id, id), ctx.brand.name, counts.get(id)!));
    return { batches, nextCursor };
  },
});

const getLaunch = defineOperation({
  name: 'get-launch',
  method: 'GET',
  path: '/brands/{brandId}/launches/{launchId}',
  scope: 'read',
  idempotency: 'none',
  input: 'get-launch#/$defs/input',
  output: 'get-launch#/$defs/output',
  annotations: read,
  tag: 'launches',
  toolset: 'launch',
  summary: 'Get a launch with its whole tree: campaigns, their ad sets and their ads, with platform ids once published.',
  uses: [],
  async handler(ctx, input) {
    const l = await loadLaunch(ctx.db, ctx.brand.id, input.launchId);
    return launchTree(l, ctx.brand.name, await loadNodes(ctx.db, l.id));
  },
});

const updateLaunch = defineOperation({
  name: 'update-launch',
  method: 'PATCH',
  path: '/brands/{brandId}/launches/{launchId}',
  scope: 'write',
  idempotency: 'none',
  input: 'update-launch#/$defs/input',
  output: 'update-launch#/$defs/output',
  annotations: { ...write, idempotent: true },
  tag: 'launches',
  toolset: 'launch',
  summary: 'Change the title or description of a launch.',
  uses: ['activity'],
  async handler(ctx, input) {
    if (input.title === undefined && input.description === undefined) {
      throw validationFailed([{ field: 'title', code: 'invalid_type', message: 'send title or description (or both)' }]);
    }
    const l = await loadLaunch(ctx.db, ctx.brand.id, input.launchId, true);
    await updateLaunchRow(ctx.db, l.id, { title: input.title, description: input.description, updatedAt: ctx.now() });
    await ctx.activity.record({
      brandId: l.brandId,
      accountId: l.accountId,
      entityType: 'unknown',
      entityId: String(l.id),
      entityName: input.title ?? l.title,
      action: 'launch.updated',
    });
    return launchSummary(await loadLaunch(ctx.db, l.brandId, l.id), ctx.brand.name, (await countsByLaunch(ctx.db, [l.id])).get(l.id)!);
  },
});

const deleteLaunch = defineOperation({
  name: 'delete-launch',
  method: 'DELETE',
  path: '/brands/{brandId}/launches/{launchId}',
  scope: 'write',
  errors: ['conflict'],
  idempotency: 'none',
  input: 'delete-launch#/$defs/input',
  output: 'delete-launch#/$defs/output',
  annotations: { readOnly: false, destructive: true, idempotent: false, openWorld: false },
  tag: 'launches',
  toolset: 'launch',
  summary: 'Delete a draft launch and its nodes. Published launches cannot be deleted (409).',
  uses: ['activity'],
  async handler(ctx, input) {
    const l = await loadLaunch(ctx.db, ctx.brand.id, input.launchId, true);
    if (l.status !== 'draft' && l.status !== 'publish_failed') {
      throw new ServiceError('conflict', `Launch ${l.id} is ${l.status}; only draft launches can be deleted.`, { status: l.status });
    }
    await deleteLaunchRows(ctx.db, l.id);
    await ctx.activity.record({
      brandId: l.brandId,
      accountId: l.accountId,
      entityType: 'unknown',
      entityId: String(l.id),
      entityName: l.title,
      action: 'launch.deleted',
    });
    return { id: String(l.id), deleted: true as const };
  },
});

function templateView(t: SnapshotTemplateRow) {
  return {
    id: t.id,
    name: t.name,
    description: t.description,
    brandId: t.brandId,
    sourceLaunchId: t.sourceLaunchId === null ? null : String(t.sourceLaunchId),
    campaigns: t.campaigns,
    createdAt: new Date(t.createdAt).toISOString(),
  };
}

const createSnapshotTemplate = defineOperation({
  name: 'create-snapshot-template',
  method: 'POST',
  path: '/brands/{brandId}/launches/{launchId}/snapshot-templates',
  scope: 'write',
  idempotency: 'optional',
  input: 'create-snapshot-template#/$defs/input',
  output: 'create-snapshot-template#/$defs/output',
  annotations: write,
  tag: 'templates',
  toolset: 'templates',
  successStatus: 201,
  summary: 'Save the campaign-level settings of a launch as a snapshot template (ad sets, ads and creatives are not captured).',
  uses: ['activity'],
  async handler(ctx, input) {
    const l = await loadLaunch(ctx.db, ctx.brand.id, input.launchId);
    const campaigns = (await loadNodes(ctx.db, l.id)).filter((n) => n.nodeType === 'campaign').map((n) => n.properties);
    const id = await insertSnapshotTemplate(ctx.db, {
      organizationId: ctx.principal.organizationId,
      brandId: l.brandId,
      sourceLaunchId: l.id,
      name: input.name,
      description: input.description ?? null,
      campaigns,
      createdAt: ctx.now(),
    });
    await ctx.activity.record({
      brandId: l.brandId,
      accountId: l.accountId,
      entityType: 'unknown',
      entityId: String(l.id),
      entityName: input.name,
      action: 'snapshot_template.created',
    });
    return templateView((await findSnapshotTemplate(ctx.db, l.brandId, id))!);
  },
});

const listSnapshotTemplates = defineOperation({
  name: 'list-snapshot-templates',
  method: 'GET',
  path: '/brands/{brandId}/snapshot-templates',
  scope: 'read',
  idempotency: 'none',
  input: 'list-snapshot-templates#/$defs/input',
  output: 'list-snapshot-templates#/$defs/output',
  annotations: read,
  tag: 'templates',
  toolset: 'templates',
  summary: 'List the snapshot templates of a brand, newest first.',
  uses: ['page'],
  async handler(ctx, input) {
    const { rows, nextCursor } = ctx.page.pageOf(await snapshotTemplatesOf(ctx.db, ctx.brand.id, input.limit + 1, ctx.page.beforeId()), (t) => [t.id]);
    return { templates: rows.map(templateView), nextCursor };
  },
});

const createLaunchFromSnapshot = defineOperation({
  name: 'create-launch-from-snapshot',
  method: 'POST',
  path: '/brands/{brandId}/snapshot-templates/{templateId}/launches',
  scope: 'write',
  idempotency: 'optional',
  input: 'create-launch-from-snapshot#/$defs/input',
  output: 'create-launch-from-snapshot#/$defs/output',
  annotations: write,
  tag: 'templates',
  toolset: 'templates',
  successStatus: 201,
  summary: 'Start a new draft launch whose campaigns carry the settings saved in a snapshot template.',
  uses: ['activity'],
  async handler(ctx, input) {
    const t = await findSnapshotTemplate(ctx.db, ctx.brand.id, input.templateId);
    if (!t) throw notFound(`Snapshot template ${input.templateId} of brand ${ctx.brand.id}`);
    const l = await createDraftLaunch(ctx, ctx.brand.id, input.title ?? t.name.slice(0, 200), input.description ?? null);
    const now = ctx.now();
    // Creation time orders a tree; one millisecond apart keeps the template's order.
    const campaigns = t.campaigns.map((properties, i) =>
      draftNode(
        { id: newNodeId(), launchId: l.id, parentId: null, nodeType: 'campaign', accountId: (properties.accountId as string) ?? l.accountId, properties },
        now + i,
      ),
    );
    await insertNodes(ctx.db, campaigns);
    return launchTree(l, ctx.brand.name, await loadNodes(ctx.db, l.id));
  },
});

/** The launches area's operations, in catalogue order. */
export const operations: OperationDefinition[] = [
  createLaunch,
  listLaunches,
  getLaunch,
  previewLaunch,
  updateLaunch,
  deleteLaunch,
  ...nodeOperations,
  ...publishOperations,
  createSnapshotTemplate,
  listSnapshotTemplates,
  createLaunchFromSnapshot,
];
