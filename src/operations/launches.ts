// Launches: draft containers of campaign → ad set → ad trees; create, list, read, update, delete,
// and snapshot templates of their campaign-level settings.

import { defineOperation } from '../catalogue/define.js';
import { ServiceError, notFound, validationFailed } from '../errors.js';
import { countsByLaunch, launchSummary, launchTree, loadLaunch, loadNodes, newNodeId } from '../launches/store.js';
import { draftNode, insertLaunch, insertNodes } from '../launches/create.js';

const write = { readOnly: false, destructive: false, idempotent: false, openWorld: false };
const read = { readOnly: true, destructive: false, idempotent: true, openWorld: false };

export const createLaunch = defineOperation({
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
  description: 'title defaults to "Untitled Batch". The launch takes the brand\'s ad account when it has exactly one; with several, each campaign names its accountId.',
  async handler(ctx, input: { title: string; description?: string }) {
    const l = await insertLaunch(ctx, input.title, input.description ?? null);
    return { id: String(l.id), title: l.title, brandId: l.brandId, brandName: ctx.brand!.name, accountId: l.accountId, description: l.description, status: l.status, createdAt: new Date(l.createdAt).toISOString() };
  },
});

export const listLaunches = defineOperation({
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
  async handler(ctx, input: { status?: string; search?: string; limit: number }) {
    const after = ctx.page.position();
    const q = ctx.db('launches').where({ brand_id: ctx.brand!.id }).orderBy('id', 'desc').limit(input.limit + 1);
    if (input.status) q.where('status', input.status);
    if (input.search) q.whereRaw("lower(title) like ? escape '!'", [`%${input.search.toLowerCase().replace(/[!%_]/g, (c) => `!${c}`)}%`]);
    if (after) q.where('id', '<', Number(after[0]));
    const rows = await q.select('id');
    const page = rows.slice(0, input.limit).map((r) => Number(r.id));
    const counts = await countsByLaunch(ctx.db, page);
    const batches = [];
    for (const id of page) batches.push(launchSummary(await loadLaunch(ctx.db, ctx.brand!.id, id), ctx.brand!.name, counts.get(id)!));
    return { batches, nextCursor: rows.length > input.limit ? ctx.page.next([page[page.length - 1]]) : null };
  },
});

export const getLaunch = defineOperation({
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
  async handler(ctx, input: { launchId: string }) {
    const l = await loadLaunch(ctx.db, ctx.brand!.id, input.launchId);
    return launchTree(l, ctx.brand!.name, await loadNodes(ctx.db, l.id));
  },
});

export const updateLaunch = defineOperation({
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
  async handler(ctx, input: { launchId: string; title?: string; description?: string | null }) {
    if (input.title === undefined && input.description === undefined) {
      throw validationFailed([{ field: 'title', code: 'invalid_type', message: 'send title or description (or both)' }]);
    }
    const l = await loadLaunch(ctx.db, ctx.brand!.id, input.launchId, true);
    const change: Record<string, unknown> = { updated_at: ctx.now() };
    if (input.title !== undefined) change.title = input.title;
    if (input.description !== undefined) change.description = input.description;
    await ctx.db('launches').where({ id: l.id }).update(change);
    await ctx.activity.record({ brandId: l.brandId, accountId: l.accountId, entityType: 'unknown', entityId: String(l.id), entityName: input.title ?? l.title, action: 'launch.updated' });
    return launchSummary(await loadLaunch(ctx.db, l.brandId, l.id), ctx.brand!.name, (await countsByLaunch(ctx.db, [l.id])).get(l.id)!);
  },
});

export const deleteLaunch = defineOperation({
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
  async handler(ctx, input: { launchId: string }) {
    const l = await loadLaunch(ctx.db, ctx.brand!.id, input.launchId, true);
    if (l.status !== 'draft' && l.status !== 'publish_failed') {
      throw new ServiceError('conflict', `Launch ${l.id} is ${l.status}; only draft launches can be deleted.`, { status: l.status });
    }
    await ctx.db('launch_nodes').where({ launch_id: l.id }).delete();
    await ctx.db('launches').where({ id: l.id }).delete();
    await ctx.activity.record({ brandId: l.brandId, accountId: l.accountId, entityType: 'unknown', entityId: String(l.id), entityName: l.title, action: 'launch.deleted' });
    return { id: String(l.id), deleted: true as const };
  },
});

function templateView(r: Record<string, any>) {
  return {
    id: Number(r.id),
    name: r.name,
    description: r.description ?? null,
    brandId: Number(r.brand_id),
    sourceLaunchId: r.source_launch_id === null ? null : String(r.source_launch_id),
    campaigns: JSON.parse(r.campaigns),
    createdAt: new Date(Number(r.created_at)).toISOString(),
  };
}

export const createSnapshotTemplate = defineOperation({
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
  async handler(ctx, input: { launchId: string; name: string; description?: string }) {
    const l = await loadLaunch(ctx.db, ctx.brand!.id, input.launchId);
    const campaigns = (await loadNodes(ctx.db, l.id)).filter((n) => n.nodeType === 'campaign').map((n) => n.properties);
    const [id] = await ctx.db('snapshot_templates').insert({
      organization_id: ctx.principal.organizationId,
      brand_id: l.brandId,
      source_launch_id: l.id,
      name: input.name,
      description: input.description ?? null,
      campaigns: JSON.stringify(campaigns),
      created_at: ctx.now(),
    });
    await ctx.activity.record({ brandId: l.brandId, accountId: l.accountId, entityType: 'unknown', entityId: String(l.id), entityName: input.name, action: 'snapshot_template.created' });
    return templateView(await ctx.db('snapshot_templates').where({ id }).first());
  },
});

export const listSnapshotTemplates = defineOperation({
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
  async handler(ctx, input: { limit: number }) {
    const after = ctx.page.position();
    const q = ctx.db('snapshot_templates').where({ brand_id: ctx.brand!.id }).orderBy('id', 'desc').limit(input.limit + 1);
    if (after) q.where('id', '<', Number(after[0]));
    const rows = await q;
    const page = rows.slice(0, input.limit);
    return { templates: page.map(templateView), nextCursor: rows.length > input.limit ? ctx.page.next([Number(page[page.length - 1].id)]) : null };
  },
});

export const createLaunchFromSnapshot = defineOperation({
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
  async handler(ctx, input: { templateId: number; title?: string; description?: string }) {
    const t = await ctx.db('snapshot_templates').where({ id: input.templateId, brand_id: ctx.brand!.id }).first();
    if (!t) throw notFound(`Snapshot template ${input.templateId} of brand ${ctx.brand!.id}`);
    const l = await insertLaunch(ctx, input.title ?? t.name.slice(0, 200), input.description ?? null);
    const now = ctx.now();
    // Creation time orders a tree; one millisecond apart keeps the template's order.
    const campaigns = (JSON.parse(t.campaigns) as Array<Record<string, unknown>>).map((properties, i) =>
      draftNode({ id: newNodeId(), launchId: l.id, parentId: null, nodeType: 'campaign', accountId: (properties.accountId as string) ?? l.accountId, properties }, now + i),
    );
    await insertNodes(ctx.db, campaigns);
    return launchTree(l, ctx.brand!.name, await loadNodes(ctx.db, l.id));
  },
});
