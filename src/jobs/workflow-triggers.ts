// Recurring job: fires the event-driven triggers of workflows (schedules are jobs of their own,
// src/workflows/schedule.ts). `automation.triggered` and `pipeline.card.moved` events after the
// stored read position start the workflows they name. Each start is unique per (workflow, event),
// so an event starts its run once across processes; the position advances in the same transaction
// as the starts of its events.

import type { Knex } from 'knex';
import type { JobContext } from './kind.js';
import { inTransaction } from '../db/connection.js';
import { startTriggered } from '../workflows/runs.js';
import { advanceTriggerPosition, columnWorkflows, monitorWorkflows, triggerPosition, workflowOfBrand, type Workflow } from '../workflows/store.js';

export const kind = 'workflow-triggers';
export const schedule = '*/2 * * * * *';

const POSITION = 'events';
const EVENT_TYPES = ['automation.triggered', 'pipeline.card.moved'];
const BATCH = 500;
/**
 * Events younger than this are read again on the next pass instead of being passed over: an event
 * with a smaller id may still be committing. Starts are unique per event, so reading twice is harmless.
 */
const SETTLE_MS = 10_000;

interface EventRow {
  id: number;
  public_id: string;
  organization_id: number;
  brand_id: number | null;
  type: string;
  data: string;
  created_at: number;
}

/** The workflows an event starts. */
async function workflowsFor(trx: Knex.Transaction, e: EventRow, data: Record<string, any>): Promise<Workflow[]> {
  const org = Number(e.organization_id);
  const brand = e.brand_id === null ? null : Number(e.brand_id);
  // A monitor fires on an automation of its own brand only: a run never starts across brands.
  if (e.type === 'automation.triggered') return monitorWorkflows(trx, org, brand, data.automationId, Number(e.created_at));
  // A card entering a column: workflows armed on that column, and the column's linked workflow.
  const byColumn = await columnWorkflows(trx, org, brand, data.toColumnId, Number(e.created_at));
  const linked = typeof data.workflowId === 'number' ? await workflowOfBrand(trx, org, brand, data.workflowId) : undefined;
  return linked && !byColumn.some((w) => w.id === linked.id) ? [...byColumn, linked] : byColumn;
}

async function fireEvents(ctx: JobContext): Promise<void> {
  for (;;) {
    if (!ctx.stillOwned()) return;
    const now = ctx.now();
    const position = await triggerPosition(ctx.knex, POSITION);
    const events: EventRow[] = await ctx.knex('events').where('id', '>', position).whereIn('type', EVENT_TYPES).orderBy('id').limit(BATCH);
    if (!events.length) return;
    await inTransaction(ctx.knex, async (trx) => {
      let settled = position;
      let open = false;
      for (const e of events) {
        const data = JSON.parse(e.data) as Record<string, any>;
        for (const w of await workflowsFor(trx, e, data)) {
          const triggerData =
            e.type === 'pipeline.card.moved'
              ? { eventId: e.public_id, cardId: data.cardId, launchId: data.launchId, fromColumnId: data.fromColumnId, toColumnId: data.toColumnId }
              : { eventId: e.public_id, automationId: data.automationId, objectId: data.objectId, level: data.level, action: data.action };
          await startTriggered(
            trx,
            w,
            { kind: w.triggerKind === 'monitor' ? 'monitor' : 'pipeline_stage', key: `event:${e.id}`, data: triggerData },
            now,
            ctx.events,
          );
        }
        if (!open && Number(e.created_at) <= now - SETTLE_MS) settled = Number(e.id);
        else open = true;
      }
      if (settled > position) await advanceTriggerPosition(trx, POSITION, position, settled);
      if (open) return;
    });
    if (events.length < BATCH || events.some((e) => Number(e.created_at) > now - SETTLE_MS)) return;
  }
}

export async function run(ctx: JobContext): Promise<void> {
  await fireEvents(ctx);
}
