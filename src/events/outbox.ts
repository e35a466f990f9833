// The transactional outbox: an event row is written through the caller's transaction, so a change
// is never without its event and an event of a rolled-back change never leaves. Its consumers are
// the outbox subscribers (src/events/subscribers.ts): on MySQL the jobs of those of its type are
// woken after the commit (the emitting transaction holds no job row, so it never keeps claimers out,
// and the wakes of many emits at once are folded into one; should the process die in between, the
// next worker start wakes them); on SQLite, one writer, the emitting transaction wakes them itself.

import crypto from 'node:crypto';
import type { Knex } from 'knex';
import type { SchemaRegistry } from '../schemas/registry.js';
import { eventType } from './catalogue.js';
import { wakeJob } from '../jobs/queue/wake.js';
import { insertEvent, insertEvents } from './store.js';
import type { EmittedEvent, NewEvent } from '../catalogue/services.js';

export type { EmittedEvent, NewEvent };

/** The kind of the outbox subscribers' jobs (key = the subscriber's name), which an emit wakes. */
export const SUBSCRIBER_JOB = 'event-subscriber';

type Db = Knex | Knex.Transaction;

/**
 * `evt_` and 22 base64url characters (16 bytes: the time in ms, 6 bytes, then 10 random ones): the
 * `webhook-id` receivers dedupe on. Ids written together share their first characters, so a batch
 * lands in a few pages of the unique index instead of one page per id (a cycle's 60k shadow events
 * dirtied most of the index at each commit on SQLite).
 */
export function newEventId(random: Buffer = crypto.randomBytes(10)): string {
  const bytes = Buffer.allocUnsafe(16);
  bytes.writeUIntBE(Date.now(), 0, 6);
  random.copy(bytes, 6, 0, 10);
  return `evt_${bytes.toString('base64url')}`;
}

export class EventOutbox {
  /** Subscribers waiting for a wake, and the wake in flight. */
  private readonly toWake = new Set<string>();
  private waking: Promise<void> | null = null;
  /**
   * SQLite has one writer, so a wake inside the emitting transaction keeps no claimer out, and it
   * saves a commit per emit: each SQLite commit syncs the log file, which stops the event loop.
   * MySQL wakes after the commit (a job row held by the emitting transaction would keep claimers waiting).
   */
  private readonly wakeInTransaction: boolean;
  /** The subscribers each open transaction has woken already. */
  private readonly wokenIn = new WeakMap<Knex.Transaction, Set<string>>();

  constructor(
    private readonly knex: Knex,
    private readonly schemas: SchemaRegistry,
    private readonly now: () => number,
    /** Kept for the composition root's signature: whether webhooks run is the webhooks subscriber's business. */
    _webhooksEnabled: boolean,
    /** Called after the emitting transaction commits: the local worker claims at once. */
    private readonly committed: () => void,
    /** The outbox subscribers (name and types): those of an event's type are woken after its commit. */
    private readonly subscribers: ReadonlyArray<{ name: string; types: readonly string[] }> = [],
  ) {
    this.wakeInTransaction = String((knex as { client?: { config?: { client?: unknown } } } | null)?.client?.config?.client ?? '').includes('sqlite');
  }

  /** Writes `event` through `db` (the caller's transaction); its data must match the catalogue schema. */
  async emit(db: Db, event: NewEvent): Promise<EmittedEvent> {
    this.check(event);
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
    const trx = db as Knex.Transaction;
    if (subscribers.length && this.wakeInTransaction && trx.isTransaction) {
      // SQLite: the emitting transaction wakes the jobs itself, once per subscriber, and the local
      // worker is told after its commit.
      let woken = this.wokenIn.get(trx);
      if (!woken) {
        this.wokenIn.set(trx, (woken = new Set()));
        void this.afterCommitDo(db, async () => this.committed());
      }
      for (const name of subscribers) {
        if (woken.has(name)) continue;
        woken.add(name);
        await wakeJob(trx, SUBSCRIBER_JOB, name, now);
      }
    } else if (subscribers.length) void this.afterCommitDo(db, () => this.wakeSubscribers(subscribers));
    return { id, publicId, type: event.type, createdAt: now };
  }

  /**
   * Writes `events` through `db` (the caller's transaction) in a few multi-row statements, each
   * checked against its catalogue schema as `emit` does; the subscribers of their types are woken
   * once after the commit.
   */
  async emitMany(db: Db, events: NewEvent[]): Promise<void> {
    if (!events.length) return;
    const now = this.now();
    const types = new Set<string>();
    // One draw of randomness for every id of the batch.
    const random = crypto.randomBytes(10 * events.length);
    const rows = events.map((event, i) => {
      this.check(event);
      types.add(event.type);
      return {
        publicId: newEventId(random.subarray(10 * i, 10 * i + 10)),
        organizationId: event.organizationId,
        brandId: event.brandId,
        type: event.type,
        data: JSON.stringify(event.data),
        createdAt: now,
      };
    });
    await insertEvents(db, rows);
    const subscribers = this.subscribers.filter((sub) => sub.types.some((t) => types.has(t))).map((sub) => sub.name);
    if (subscribers.length) void this.afterCommitDo(db, () => this.wakeSubscribers(subscribers));
  }

  /** Throws unless the event's type is in the catalogue and its data matches the type's schema. */
  private check(event: NewEvent): void {
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
  }

  /**
   * Once `db`'s transaction has committed (at once outside a transaction), wakes the local worker:
   * called by a change that made jobs due (scheduleJob in the same transaction).
   */
  async afterCommit(db: Db): Promise<void> {
    await this.afterCommitDo(db, async () => this.committed());
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
