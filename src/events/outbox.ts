// The transactional outbox: an event row is written through the caller's transaction, with one
// pending delivery per subscribed webhook endpoint, so a change is never without its event and an
// event of a rolled-back change never leaves. The endpoints' delivery jobs and the jobs of the
// outbox subscribers of its type are woken after the commit (the emitting transaction holds no job
// row, so it never keeps claimers out, and wakes of many emits at once are folded into one); should
// the process die in between, the sweep job wakes the deliveries within a minute and the next
// worker start wakes the subscribers.

import crypto from 'node:crypto';
import type { Knex } from 'knex';
import type { SchemaRegistry } from '../schemas/registry.js';
import { eventType } from './catalogue.js';
import { wakeJob } from '../jobs/queue/wake.js';
import { insertEvent } from './store.js';

/** The kind of the outbox subscribers' jobs (key = the subscriber's name), which an emit wakes. */
export const SUBSCRIBER_JOB = 'event-subscriber';

export const DELIVERY_JOB = 'deliver-webhooks';

export interface NewEvent {
  organizationId: number;
  brandId: number | null;
  type: string;
  data: Record<string, unknown>;
}

export interface EmittedEvent {
  id: number;
  publicId: string;
  type: string;
  createdAt: number;
  /** Deliveries created for it, by endpoint id. */
  deliveries: Map<number, number>;
}

export interface EmitOptions {
  /** Deliver to this endpoint only, whatever it subscribes to (test sends). */
  onlyEndpointId?: number;
  /** False: create the delivery rows but leave the sending to the caller (test sends). */
  queue?: boolean;
}

type Db = Knex | Knex.Transaction;

/** `evt_` and 22 random base64url characters: the `webhook-id` receivers dedupe on. */
export function newEventId(): string {
  return `evt_${crypto.randomBytes(16).toString('base64url')}`;
}

/** True when an endpoint filtered by `brandIds` (null = every brand) receives an event of `brandId`. */
export function endpointCovers(brandIds: number[] | null, brandId: number | null): boolean {
  return brandIds === null || (brandId !== null && brandIds.includes(brandId));
}

export class EventOutbox {
  constructor(
    private readonly knex: Knex,
    private readonly schemas: SchemaRegistry,
    private readonly now: () => number,
    private readonly webhooksEnabled: boolean,
    /** Called after the emitting transaction commits: the local worker claims at once. */
    private readonly committed: () => void,
    /** The outbox subscribers (name and types): those of an event's type are woken after its commit. */
    private readonly subscribers: ReadonlyArray<{ name: string; types: readonly string[] }> = [],
  ) {}

  /** Subscribers waiting for a wake, and the wake in flight. */
  private readonly toWake = new Set<string>();
  private waking: Promise<void> | null = null;

  /** Writes `event` through `db` (the caller's transaction); its data must match the catalogue schema. */
  async emit(db: Db, event: NewEvent, options: EmitOptions = {}): Promise<EmittedEvent> {
    const entry = eventType(event.type);
    if (!entry) throw new Error(`event type "${event.type}" is not in the catalogue`);
    try {
      this.schemas.validateInput(entry.schema, event.data);
    } catch (err) {
      // Our own event breaking its schema is a bug here, never the caller's fault.
      throw new Error(`event ${event.type} breaks its schema: ${JSON.stringify((err as { details?: unknown }).details ?? (err as Error).message)}`, {
        cause: err,
      });
    }
    const now = this.now();
    const publicId = newEventId();
    const id = await insertEvent(db, {
      publicId,
      organizationId: event.organizationId,
      brandId: event.brandId,
      type: event.type,
      data: JSON.stringify(event.data),
      createdAt: now,
    });
    const subscribers = this.subscribers.filter((sub) => sub.types.includes(event.type)).map((sub) => sub.name);
    if (subscribers.length) this.afterCommitDo(db, () => this.wakeSubscribers(subscribers));
    const emitted: EmittedEvent = { id, publicId, type: event.type, createdAt: now, deliveries: new Map() };
    if (!this.webhooksEnabled) return emitted;

    const endpoints: Array<{ id: number; events: string; brand_ids: string | null }> = await db('webhook_endpoints')
      .where({ organization_id: event.organizationId })
      .modify((q) => (options.onlyEndpointId === undefined ? q.where({ enabled: true }) : q.where({ id: options.onlyEndpointId })))
      .orderBy('id')
      .select('id', 'events', 'brand_ids');
    const targets =
      options.onlyEndpointId !== undefined
        ? endpoints
        : endpoints.filter(
            (e) => (JSON.parse(e.events) as string[]).includes(event.type) && endpointCovers(e.brand_ids ? JSON.parse(e.brand_ids) : null, event.brandId),
          );
    const queue = options.queue !== false;
    for (const endpoint of targets) {
      const [deliveryId] = await db('webhook_deliveries').insert({
        endpoint_id: endpoint.id,
        event_id: emitted.id,
        status: 'pending',
        attempt_count: 0,
        next_attempt_at: queue ? now : null,
        created_at: now,
        updated_at: now,
      });
      emitted.deliveries.set(endpoint.id, Number(deliveryId));
    }
    if (queue && targets.length)
      await this.afterCommit(
        db,
        targets.map((t) => t.id),
      );
    return emitted;
  }

  /**
   * Once `db`'s transaction has committed (at once outside a transaction), makes the delivery jobs
   * of `endpointIds` due and wakes the local worker. A failed wake is left to the sweep job.
   */
  async afterCommit(db: Db, endpointIds: number[] = []): Promise<void> {
    const wake = async () => {
      try {
        for (const id of endpointIds) await wakeJob(this.knex, DELIVERY_JOB, String(id), this.now());
      } finally {
        this.committed();
      }
    };
    await this.afterCommitDo(db, wake);
  }

  private afterCommitDo(db: Db, work: () => Promise<void>): Promise<void> {
    const trx = db as Knex.Transaction;
    if (trx.isTransaction && trx.executionPromise) {
      trx.executionPromise.then(work, () => {}).catch(() => {});
      return Promise.resolve();
    }
    return work().catch(() => {});
  }

  /**
   * Makes the jobs of `names` due, folding the wakes of emits that commit meanwhile into the next
   * statement: each wake runs after the commits it covers. A failed wake is left to the next
   * worker start.
   */
  private wakeSubscribers(names: string[]): Promise<void> {
    for (const n of names) this.toWake.add(n);
    if (!this.waking)
      this.waking = (async () => {
        try {
          while (this.toWake.size) {
            const batch = [...this.toWake];
            this.toWake.clear();
            for (const name of batch) await wakeJob(this.knex, SUBSCRIBER_JOB, name, this.now());
            this.committed();
          }
        } finally {
          this.waking = null;
        }
      })();
    return this.waking;
  }
}
