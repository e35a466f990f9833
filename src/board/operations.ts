// The board area's operations (`board` in code, "pipeline" on the wire), read top to bottom: a
// brand's ordered columns and the cards on them, each holding a launch. A card created in or moved
// into a column that publishes publishes its launch through launch-campaign, after the card's own
// transaction committed (publish.ts).

import type { Knex } from 'knex';
import { lockBrand } from '../brands/store.js';
import { defineOperation, type BrandContext, type OperationDefinition } from '../catalogue/define.js';
import { inTransaction, isUniqueViolation } from '../db/connection.js';
import { ServiceError, notFound, validationFailed } from '../errors.js';
import { loadLaunch } from '../launches/store.js';
import { requireReferences } from '../references/resolve.js';
import { canPublish } from '../workflows/publish-rule.js';
import { publishOnEntry } from './publish.js';
import {
  MAX_CARDS,
  MAX_COLUMNS,
  cardOfLaunch,
  columnIn,
  columnOrder,
  countCards,
  deleteCard,
  deleteColumn,
  insertAt,
  insertCard,
  insertColumn,
  loadCard,
  loadColumn,
  loadColumns,
  lockCard,
  lockColumns,
  moveCard,
  renumber,
  updateColumn,
  type CardRow,
  type ColumnRow,
} from './store.js';
import { boardView, cardView, columnView, launchStatusOf } from './views.js';

const TAG = 'pipeline';
const PUBLISH_NOTE =
  'A card created in or moved into a column with publishes: true publishes its launch as launch-campaign with confirm: true would: ' +
  "with the publish scope the campaign budget is reserved against the key's publish ceiling (released if the publish fails); " +
  'without it the card is placed and nothing is published (publish.reason publish_scope_missing). The card is placed even when ' +
  'the publish fails: publish {attempted, published, reason} says what happened, reason being null, publish_scope_missing or the ' +
  'error code that stopped the publish (spend_ceiling_exceeded, spend_ceiling_required, validation_failed, ...), and publishError ' +
  'carries that error (for validation_failed, one detail per launch issue). Amounts are cents.';

function nameTaken(columns: ColumnRow[], name: string, except?: number): ServiceError | null {
  const clash = columns.find((c) => c.id !== except && c.name.toLowerCase() === name.toLowerCase());
  return clash
    ? new ServiceError('conflict', `The board already has a column named "${clash.name}" (column ${clash.id}); column names are unique per brand.`, {
        columnId: clash.id,
      })
    : null;
}

function staleCard(cardId: number, current: number, sent: number): ServiceError {
  return new ServiceError(
    'stale_read',
    `Pipeline card ${cardId} changed since it was read: it is at version ${current}, the request sent ${sent}. Read the board again and retry with version ${current}.`,
    { cardId, currentVersion: current },
  );
}

/**
 * Records a card entering a column: the event (with the column's workflow, who placed the card and
 * whether they could publish, which decides the workflows it may start, and the plan they confirmed,
 * which binds those workflows' launch step) and the activity entry, in the placing's transaction.
 */
async function recordEntry(
  ctx: BrandContext<'events' | 'activity'>,
  trx: Knex.Transaction,
  card: CardRow,
  from: number | null,
  to: ColumnRow,
  action: string,
  planFingerprint: string | undefined,
): Promise<void> {
  await ctx.events.emit(trx, {
    organizationId: ctx.principal.organizationId,
    brandId: card.brandId,
    type: 'pipeline.card.moved',
    data: {
      brandId: card.brandId,
      cardId: card.id,
      launchId: String(card.launchId),
      fromColumnId: from,
      toColumnId: to.id,
      workflowId: to.workflowId,
      movedBy: ctx.principal.actorLabel.slice(0, 255),
      canPublish: canPublish(ctx.principal),
      ...(planFingerprint !== undefined ? { planFingerprint } : {}),
    },
  });
  await ctx.activity.record({ brandId: card.brandId, entityType: 'unknown', entityId: String(card.launchId), entityName: card.title, action }, trx);
}

const getPipeline = defineOperation({
  name: 'get-pipeline',
  method: 'GET',
  path: '/brands/{brandId}/pipeline',
  scope: 'read',
  idempotency: 'none',
  input: 'get-pipeline#/$defs/input',
  output: 'get-pipeline#/$defs/output',
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  tag: TAG,
  toolset: 'board',
  summary: "Read a brand's pipeline board: its columns in order and every card, column by column.",
  description:
    'Columns come in board order (position 0 first), each with publishes and its linked workflowId (or null). Cards come column by ' +
    "column in that order, each column's cards by position, each with its launch's status and its version (send it to " +
    'move-pipeline-card). A board holds at most 50 columns and 1000 cards, all answered at once.',
  uses: [],
  async handler(ctx) {
    return boardView(ctx.db, ctx.brand.id);
  },
});

const createPipelineColumn = defineOperation({
  name: 'create-pipeline-column',
  method: 'POST',
  path: '/brands/{brandId}/pipeline/columns',
  scope: 'write',
  errors: ['conflict', 'unprocessable'],
  idempotency: 'none',
  input: 'create-pipeline-column#/$defs/input',
  output: 'create-pipeline-column#/$defs/output',
  annotations: { readOnly: false, destructive: false, idempotent: false, openWorld: false },
  tag: TAG,
  toolset: 'board',
  successStatus: 201,
  summary: "Add a column to a brand's pipeline board, optionally one that publishes or one linked to a workflow.",
  description:
    'position is the index to insert at (from 0; omitted or past the end: last). publishes: true makes a card entering the column ' +
    'publish its launch (with the publish scope). workflowId links the column to a workflow of this brand that this credential may reach ' +
    "(else 400 validation_failed on workflowId, the same for a missing workflow as for another brand's): a card entering it starts that workflow's " +
    'pipeline-stage trigger. Names are unique per brand (409 conflict); at most 50 columns (422 unprocessable).',
  uses: [],
  async handler(ctx, input) {
    const brandId = ctx.brand.id;
    const trx = ctx.db;
    if (input.workflowId !== undefined && input.workflowId !== null)
      await requireReferences(trx, ctx.principal, [{ kind: 'workflow', field: 'workflowId', id: input.workflowId, brandId }]);
    await lockBrand(trx, brandId);
    const columns = await loadColumns(trx, brandId, true);
    if (columns.length >= MAX_COLUMNS) {
      throw new ServiceError('unprocessable', `Brand ${brandId}'s board already has ${columns.length} columns, the most it may have. Delete one first.`, {
        limit: MAX_COLUMNS,
      });
    }
    const taken = nameTaken(columns, input.name);
    if (taken) throw taken;
    const now = ctx.now();
    let id: number;
    try {
      id = await insertColumn(trx, {
        organizationId: ctx.principal.organizationId,
        brandId,
        name: input.name,
        position: columns.length,
        publishes: input.publishes,
        workflowId: input.workflowId ?? null,
        now,
      });
    } catch (err) {
      if (isUniqueViolation(err))
        throw new ServiceError('conflict', `The board already has a column named "${input.name}"; column names are unique per brand.`, null);
      throw err;
    }
    const order = columns.map((c) => c.id);
    insertAt(order, id, input.position);
    await renumber(trx, 'board_columns', order);
    return columnView(await loadColumn(trx, brandId, id));
  },
});

const updatePipelineColumn = defineOperation({
  name: 'update-pipeline-column',
  method: 'PATCH',
  path: '/brands/{brandId}/pipeline/columns/{columnId}',
  scope: 'write',
  errors: ['conflict'],
  idempotency: 'none',
  input: 'update-pipeline-column#/$defs/input',
  output: 'update-pipeline-column#/$defs/output',
  annotations: { readOnly: false, destructive: false, idempotent: true, openWorld: false },
  tag: TAG,
  toolset: 'board',
  summary: 'Rename a pipeline column, move it to another position, turn publishing on or off, or link or unlink its workflow.',
  description:
    'Only the fields sent change. position is the new index (from 0; past the end: last); the other columns close up around it. ' +
    'workflowId null unlinks the workflow; any other must be a workflow of this brand this credential may reach (else 400 validation_failed on workflowId). ' +
    'Cards already in the column are not published or started by the change: only cards ' +
    'entering it afterwards. A name another column has: 409 conflict. 404 not_found for a column of another brand.',
  uses: [],
  async handler(ctx, input) {
    const { columnId, ...fields } = input;
    if (!Object.keys(fields).some((k) => k !== 'brandId')) {
      throw validationFailed([{ field: 'name', code: 'invalid_type', message: 'send at least one of name, publishes, workflowId or position' }]);
    }
    const brandId = ctx.brand.id;
    const trx = ctx.db;
    await lockBrand(trx, brandId);
    const columns = await loadColumns(trx, brandId, true);
    await lockColumns(trx, brandId, [columnId]);
    if (fields.workflowId !== undefined && fields.workflowId !== null)
      await requireReferences(trx, ctx.principal, [{ kind: 'workflow', field: 'workflowId', id: fields.workflowId, brandId }]);
    if (fields.name !== undefined) {
      const taken = nameTaken(columns, fields.name, columnId);
      if (taken) throw taken;
    }
    await updateColumn(trx, columnId, { name: fields.name, publishes: fields.publishes, workflowId: fields.workflowId, now: ctx.now() });
    if (fields.position !== undefined) {
      const order = columns.map((c) => c.id).filter((id) => id !== columnId);
      insertAt(order, columnId, fields.position);
      await renumber(trx, 'board_columns', order);
    }
    return columnView(await loadColumn(trx, brandId, columnId));
  },
});

const deletePipelineColumn = defineOperation({
  name: 'delete-pipeline-column',
  method: 'DELETE',
  path: '/brands/{brandId}/pipeline/columns/{columnId}',
  scope: 'write',
  errors: ['conflict'],
  idempotency: 'none',
  input: 'delete-pipeline-column#/$defs/input',
  output: 'delete-pipeline-column#/$defs/output',
  annotations: { readOnly: false, destructive: true, idempotent: true, openWorld: false },
  tag: TAG,
  toolset: 'board',
  summary: 'Delete an empty pipeline column; the columns after it move one place left.',
  description:
    'A column that still holds cards answers 409 conflict with details.cards: move or delete them first. 404 not_found for a column of another brand.',
  uses: [],
  async handler(ctx, input) {
    const brandId = ctx.brand.id;
    const trx = ctx.db;
    await lockBrand(trx, brandId);
    await lockColumns(trx, brandId, [input.columnId]);
    const cards = await countCards(trx, { columnId: input.columnId });
    if (cards > 0) {
      throw new ServiceError('conflict', `Pipeline column ${input.columnId} still holds ${cards} cards; move or delete them first.`, {
        columnId: input.columnId,
        cards,
      });
    }
    await deleteColumn(trx, input.columnId);
    await renumber(
      trx,
      'board_columns',
      (await loadColumns(trx, brandId, true)).map((c) => c.id),
    );
    return { columnId: input.columnId, deleted: true as const };
  },
});

const createPipelineCard = defineOperation({
  name: 'create-pipeline-card',
  method: 'POST',
  path: '/brands/{brandId}/pipeline/cards',
  scope: 'write',
  errors: ['conflict', 'unprocessable'],
  idempotency: 'optional',
  input: 'create-pipeline-card#/$defs/input',
  output: 'create-pipeline-card#/$defs/output',
  // Can start a publish (a publishing column, or a workflow that moves money).
  annotations: { readOnly: false, destructive: true, idempotent: false, openWorld: true },
  tag: TAG,
  toolset: 'board',
  successStatus: 201,
  // The card commits first; a publish it starts runs afterwards through launch-campaign, in transactions of its own.
  transactional: false,
  summary: "Put one of the brand's launches on the pipeline board, in a column; in a column that publishes, this publishes the launch.",
  description:
    `${PUBLISH_NOTE} position is the index in the column (from 0; omitted or past the end: last); title defaults to the launch's ` +
    'title. launchId and columnId (numbers or digits) must be a launch and a column of this brand: otherwise 400 validation_failed on that field, ' +
    'the same for a missing id as for one of another brand; a launch already on the board: 409 conflict (details.cardId); a board with ' +
    '1000 cards: 422 unprocessable. Send an Idempotency-Key so a retry neither adds a second card nor publishes twice.',
  uses: ['events', 'activity', 'invoke', 'idempotency'],
  async handler(ctx, input) {
    const brandId = ctx.brand.id;
    const columnId = input.columnId;
    const placed = await inTransaction(ctx.db, async (trx) => {
      await requireReferences(trx, ctx.principal, [
        { kind: 'launch', field: 'launchId', id: input.launchId, brandId },
        { kind: 'pipelineColumn', field: 'columnId', id: columnId, brandId },
      ]);
      const launch = await loadLaunch(trx, brandId, input.launchId);
      const column = columnIn(await lockColumns(trx, brandId, [columnId]), columnId);
      const existing = await cardOfLaunch(trx, launch.id);
      if (existing) {
        // A crashed first attempt with this Idempotency-Key placed the card: carry on with it (and its publish).
        if (ctx.idempotency?.resumed && existing.columnId === columnId) return { card: await loadCard(trx, brandId, existing.id), column };
        throw new ServiceError('conflict', `Launch ${launch.id} is already on the board as card ${existing.id}; move that card instead.`, {
          cardId: existing.id,
        });
      }
      const count = await countCards(trx, { brandId });
      if (count >= MAX_CARDS) {
        throw new ServiceError('unprocessable', `Brand ${brandId}'s board already holds ${count} cards, the most it may. Delete some first.`, {
          limit: MAX_CARDS,
        });
      }
      const now = ctx.now();
      let id: number;
      try {
        id = await insertCard(trx, {
          organizationId: ctx.principal.organizationId,
          brandId,
          columnId,
          launchId: launch.id,
          title: input.title ?? launch.title,
          now,
        });
      } catch (err) {
        if (isUniqueViolation(err)) throw new ServiceError('conflict', `Launch ${launch.id} is already on the board; move its card instead.`, null);
        throw err;
      }
      const order = await columnOrder(trx, columnId, id);
      insertAt(order, id, input.position);
      await renumber(trx, 'board_cards', order);
      const card = await loadCard(trx, brandId, id);
      await recordEntry(ctx, trx, card, null, column, 'pipeline.card.created', input.planFingerprint);
      return { card, column };
    });
    const outcome = await publishOnEntry(ctx, placed.card, placed.column, true, input.planFingerprint);
    return { ...cardView(placed.card, await launchStatusOf(ctx.db, placed.card.launchId)), ...outcome };
  },
});

const movePipelineCard = defineOperation({
  name: 'move-pipeline-card',
  method: 'PATCH',
  path: '/brands/{brandId}/pipeline/cards/{cardId}',
  scope: 'write',
  errors: ['conflict', 'stale_read'],
  idempotency: 'none',
  input: 'move-pipeline-card#/$defs/input',
  output: 'move-pipeline-card#/$defs/output',
  // Can start a publish (a publishing column, or a workflow that moves money).
  annotations: { readOnly: false, destructive: true, idempotent: false, openWorld: true },
  tag: TAG,
  toolset: 'board',
  transactional: false,
  summary:
    'Move a pipeline card to another column or position (or retitle it), guarded by its version; into a column that publishes, this publishes its launch.',
  description:
    `${PUBLISH_NOTE} version is the card's version as last read: another one answers 409 stale_read (details.currentVersion) and ` +
    'nothing changes, so of two moves sent on the same read only the first happens. position is the index in the destination column ' +
    '(from 0; past the end: last; omitted: last in a new column, unchanged in the same one). Only a change of column publishes or ' +
    "starts the column's workflow. A card of another brand: 404 not_found; a columnId that is not a column of this brand: 400 validation_failed on columnId.",
  uses: ['events', 'activity', 'invoke'],
  async handler(ctx, input) {
    if (input.columnId === undefined && input.position === undefined && input.title === undefined) {
      throw validationFailed([{ field: 'columnId', code: 'invalid_type', message: 'send at least one of columnId, position or title' }]);
    }
    const brandId = ctx.brand.id;
    const placed = await inTransaction(ctx.db, async (trx) => {
      const seen = await loadCard(trx, brandId, input.cardId);
      if (seen.version !== input.version) throw staleCard(seen.id, seen.version, input.version);
      const to = input.columnId ?? seen.columnId;
      if (input.columnId !== undefined)
        await requireReferences(trx, ctx.principal, [{ kind: 'pipelineColumn', field: 'columnId', id: input.columnId, brandId }]);
      const columns = await lockColumns(trx, brandId, [seen.columnId, to]);
      const locked = await lockCard(trx, seen.id);
      if (!locked) throw notFound(`Pipeline card ${seen.id} of brand ${brandId}`);
      if (locked.version !== input.version) throw staleCard(seen.id, locked.version, input.version);
      const moved = to !== seen.columnId;
      const changed = await moveCard(trx, seen.id, input.version, { columnId: to, title: input.title, now: ctx.now() });
      if (changed !== 1) throw staleCard(seen.id, input.version + 1, input.version);
      // Where the card stands now that its column is locked (a neighbour may have moved since the first read).
      const standing = moved ? -1 : (await columnOrder(trx, to)).indexOf(seen.id);
      const order = await columnOrder(trx, to, seen.id);
      insertAt(order, seen.id, input.position ?? (moved ? undefined : standing));
      await renumber(trx, 'board_cards', order);
      if (moved) await renumber(trx, 'board_cards', await columnOrder(trx, seen.columnId));
      const card = await loadCard(trx, brandId, seen.id);
      const column = columnIn(columns, to);
      if (moved) await recordEntry(ctx, trx, card, seen.columnId, column, 'pipeline.card.moved', input.planFingerprint);
      return { card, column, moved };
    });
    const outcome = await publishOnEntry(ctx, placed.card, placed.column, placed.moved, input.planFingerprint);
    return { ...cardView(placed.card, await launchStatusOf(ctx.db, placed.card.launchId)), ...outcome };
  },
});

const deletePipelineCard = defineOperation({
  name: 'delete-pipeline-card',
  method: 'DELETE',
  path: '/brands/{brandId}/pipeline/cards/{cardId}',
  scope: 'write',
  idempotency: 'none',
  input: 'delete-pipeline-card#/$defs/input',
  output: 'delete-pipeline-card#/$defs/output',
  annotations: { readOnly: false, destructive: true, idempotent: true, openWorld: false },
  tag: TAG,
  toolset: 'board',
  summary: 'Take a card off the pipeline board; its launch is not changed (a published launch stays live).',
  description: 'The cards below it in its column move up one place. A card of another brand: 404 not_found.',
  uses: ['activity'],
  async handler(ctx, input) {
    const brandId = ctx.brand.id;
    const trx = ctx.db;
    const seen = await loadCard(trx, brandId, input.cardId);
    await lockColumns(trx, brandId, [seen.columnId]);
    // A move committed between the read and the lock took the card elsewhere: its column is locked now.
    const card = await loadCard(trx, brandId, input.cardId, true);
    if (card.columnId !== seen.columnId) await lockColumns(trx, brandId, [card.columnId]);
    await deleteCard(trx, card.id);
    await renumber(trx, 'board_cards', await columnOrder(trx, card.columnId));
    await ctx.activity.record({ brandId, entityType: 'unknown', entityId: String(card.launchId), entityName: card.title, action: 'pipeline.card.deleted' });
    return { cardId: card.id, deleted: true as const };
  },
});

export const operations: OperationDefinition[] = [
  getPipeline,
  createPipelineColumn,
  updatePipelineColumn,
  deletePipelineColumn,
  createPipelineCard,
  movePipelineCard,
  deletePipelineCard,
];
