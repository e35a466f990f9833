// The workflows area's outbox subscriber: `automation.triggered` starts the active monitor
// workflows watching that automation, `pipeline.card.moved` the active pipeline-stage workflows
// armed on the column the card entered and the column's linked workflow. Events from before a
// trigger was armed start nothing; a run never starts across brands; a card placed by a caller
// without `publish` starts no workflow that moves money, a shadow automation run starts nothing, and
// a run records whether its cause held `publish` (publish-rule.ts) and the plan the card's mover
// confirmed, which its launch step then publishes only. Each start is unique per (workflow, event),
// in the transaction that advances the subscriber's position.

import type { Knex } from 'knex';
import type { EventSubscriber, StoredEvent } from '../events/subscribers.js';
import type { JobContext } from '../jobs/kind.js';
import { confirmedStep } from './plans.js';
import { mayStart } from './publish-rule.js';
import { startTriggered } from './runs.js';
import { columnWorkflows, monitorWorkflowsOf, organizationsWithMonitors, workflowOfBrand, type Workflow } from './store.js';

const num = (v: unknown): number | null => (typeof v === 'number' ? v : typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : null);

/** The monitor workflows that may start from the batch's automation.triggered events, by automation (one read). */
async function monitorsOf(trx: Knex.Transaction, events: StoredEvent[]): Promise<Map<number, Workflow[]>> {
  const triggered = events.filter((e) => e.type === 'automation.triggered');
  const ids = [...new Set(triggered.map((e) => num(e.data.automationId)).filter((id): id is number => id !== null))];
  const out = new Map<number, Workflow[]>();
  if (!ids.length) return out;
  const latest = Math.max(...triggered.map((e) => e.createdAt));
  for (const { automationId, workflow } of await monitorWorkflowsOf(trx, ids, latest)) out.set(automationId, [...(out.get(automationId) ?? []), workflow]);
  return out;
}

/** The workflows an event starts (`monitors`: the batch's monitor workflows by automation). */
async function workflowsFor(trx: Knex.Transaction, e: StoredEvent, monitors: Map<number, Workflow[]>): Promise<Workflow[]> {
  if (e.type === 'automation.triggered') {
    const automationId = num(e.data.automationId);
    // A shadow run only says what it would have done: it fires no trigger.
    if (automationId === null || e.data.mode === 'shadow') return [];
    // Of the event's organization and brand, armed by the time it happened.
    return (monitors.get(automationId) ?? []).filter(
      (w) => w.organizationId === e.organizationId && w.brandId === e.brandId && w.armedAt !== null && w.armedAt <= e.createdAt,
    );
  }
  const columnId = num(e.data.toColumnId);
  const byColumn = columnId === null ? [] : await columnWorkflows(trx, e.organizationId, e.brandId, columnId, e.createdAt);
  const linkedId = typeof e.data.workflowId === 'number' ? e.data.workflowId : null;
  const linked = linkedId === null ? undefined : await workflowOfBrand(trx, e.organizationId, e.brandId, linkedId);
  const all = linked && !byColumn.some((w) => w.id === linked.id) ? [...byColumn, linked] : byColumn;
  // An event from before the mover's scope was recorded says nothing of it: such a mover is taken as one without publish.
  return all.filter((w) => mayStart(w, e.data.canPublish === true));
}

/** What a run started by `e` records as its trigger. */
function triggerDataOf(e: StoredEvent): Record<string, unknown> {
  const d = e.data;
  // Whether what caused the event held publish (the card's mover; the automation run's caller or saver): publish-rule.ts.
  const causeCanPublish = d.canPublish === true;
  return e.type === 'pipeline.card.moved'
    ? { eventId: e.publicId, cardId: d.cardId, launchId: d.launchId, fromColumnId: d.fromColumnId, toColumnId: d.toColumnId, causeCanPublish }
    : { eventId: e.publicId, automationId: d.automationId, objectId: d.objectId, level: d.level, action: d.action, causeCanPublish };
}

export const workflowSubscriber: EventSubscriber = {
  name: 'workflows',
  types: ['automation.triggered', 'pipeline.card.moved'],
  // automation.triggered is read in full only in organizations with an active monitor workflow.
  async wants(_ctx, trx, heads) {
    const triggered = heads.filter((e) => e.type === 'automation.triggered');
    if (!triggered.length) return heads;
    const watched = await organizationsWithMonitors(trx, [...new Set(triggered.map((e) => e.organizationId))]);
    return heads.filter((e) => e.type !== 'automation.triggered' || watched.has(e.organizationId));
  },
  async handle(ctx: JobContext, trx: Knex.Transaction, events: StoredEvent[]): Promise<void> {
    const now = ctx.now();
    const monitors = await monitorsOf(trx, events);
    for (const e of events) {
      for (const w of await workflowsFor(trx, e, monitors)) {
        const kind = w.triggerKind === 'monitor' ? 'monitor' : 'pipeline_stage';
        const data = triggerDataOf(e);
        // The plan the card's mover confirmed binds the run's launch step, as run-workflow's planFingerprint does.
        const confirmed = typeof e.data.planFingerprint === 'string' ? confirmedStep(w, data, e.data.planFingerprint) : null;
        await startTriggered(trx, w, { kind, key: `event:${e.id}`, data: confirmed ? { ...data, confirmedPlan: confirmed } : data }, now, ctx.events);
      }
    }
  },
};
