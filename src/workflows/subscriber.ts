// The workflows area's outbox subscriber: `automation.triggered` starts the active monitor
// workflows watching that automation, `pipeline.card.moved` the active pipeline-stage workflows
// armed on the column the card entered and the column's linked workflow. Events from before a
// trigger was armed start nothing; a run never starts across brands. Each start is unique per
// (workflow, event), in the transaction that advances the subscriber's position.

import type { Knex } from 'knex';
import type { EventSubscriber, StoredEvent } from '../events/subscribers.js';
import type { JobContext } from '../jobs/kind.js';
import { startTriggered } from './runs.js';
import { columnWorkflows, monitorWorkflows, workflowOfBrand, type Workflow } from './store.js';

const num = (v: unknown): number | null => (typeof v === 'number' ? v : typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : null);

/** The workflows an event starts. */
async function workflowsFor(trx: Knex.Transaction, e: StoredEvent): Promise<Workflow[]> {
  if (e.type === 'automation.triggered') {
    const automationId = num(e.data.automationId);
    return automationId === null ? [] : monitorWorkflows(trx, e.organizationId, e.brandId, automationId, e.createdAt);
  }
  const columnId = num(e.data.toColumnId);
  const byColumn = columnId === null ? [] : await columnWorkflows(trx, e.organizationId, e.brandId, columnId, e.createdAt);
  const linkedId = typeof e.data.workflowId === 'number' ? e.data.workflowId : null;
  const linked = linkedId === null ? undefined : await workflowOfBrand(trx, e.organizationId, e.brandId, linkedId);
  return linked && !byColumn.some((w) => w.id === linked.id) ? [...byColumn, linked] : byColumn;
}

/** What a run started by `e` records as its trigger. */
function triggerDataOf(e: StoredEvent): Record<string, unknown> {
  const d = e.data;
  return e.type === 'pipeline.card.moved'
    ? { eventId: e.publicId, cardId: d.cardId, launchId: d.launchId, fromColumnId: d.fromColumnId, toColumnId: d.toColumnId }
    : { eventId: e.publicId, automationId: d.automationId, objectId: d.objectId, level: d.level, action: d.action };
}

export const workflowSubscriber: EventSubscriber = {
  name: 'workflows',
  types: ['automation.triggered', 'pipeline.card.moved'],
  async handle(ctx: JobContext, trx: Knex.Transaction, events: StoredEvent[]): Promise<void> {
    const now = ctx.now();
    for (const e of events) {
      for (const w of await workflowsFor(trx, e)) {
        const kind = w.triggerKind === 'monitor' ? 'monitor' : 'pipeline_stage';
        await startTriggered(trx, w, { kind, key: `event:${e.id}`, data: triggerDataOf(e) }, now, ctx.events);
      }
    }
  },
};
