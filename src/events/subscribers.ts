// Outbox subscribers: the one way events reach their consumers. Each subscriber is consumed by one
// job (kind `event-subscriber`, key = its name) that reads the events after its stored position,
// hands those of its types to `handle` in one transaction and advances the position in that same
// transaction, so each event is handled exactly once, by whichever process holds the job.
//
// Nothing polls. An emit wakes the subscribers of its type once its transaction has committed (on
// SQLite within that transaction), and
// every worker start wakes them all, so a process that died between a commit and its wake loses
// nothing. An event with a smaller id may commit after larger ones (MySQL hands ids out at insert
// time): the ids skipped over are kept as gaps and looked up again on each later run, until the
// event shows up or the gap is older than SETTLE_MS (an id burned by a rolled-back transaction).

import type { Knex } from 'knex';
import { inTransaction } from '../db/connection.js';
import type { JobContext, JobKind } from '../jobs/kind.js';
import type { ClaimedJob } from '../jobs/queue/job.js';
import { SUBSCRIBER_JOB } from './outbox.js';
import { eventHeadsAfter, eventHeadsIn, lockPosition, savePosition, storedEvents, type EventHead, type Gap, type StoredEvent } from './store.js';

export type { EventHead, StoredEvent } from './store.js';

export interface EventSubscriber {
  /** Unique; the key of its job and of its position. */
  name: string;
  /** The event types it handles; others pass by. */
  types: string[];
  /** Handles `events` (by id) in `trx`, which also advances the position: throw to have them handed over again. */
  handle(ctx: JobContext, trx: Knex.Transaction, events: StoredEvent[]): Promise<void>;
  /**
   * Optional: of `heads` (of its types, by id), those it may act on, in order; the others pass by
   * without their rows being read (e.g. no endpoint or workflow of their organization can take them).
   */
  wants?(ctx: JobContext, trx: Knex.Transaction, heads: EventHead[]): Promise<EventHead[]>;
}

/** A subscriber without its functions: what the outbox needs at emit time, and whether it has `wants`. */
export interface SubscriberFacts {
  name: string;
  types: string[];
  wants?: true;
}

/** A subscriber that loads its module on first use; `load` answers it loaded (and checked). */
export interface LazySubscriber extends EventSubscriber {
  load(): Promise<EventSubscriber>;
}

/**
 * The subscriber `facts` describes, its functions taken from the one `load` answers on first use
 * (its module loads on the first run of its job, after the server listens). Loading checks that the
 * subscriber is the one described.
 */
export function lazySubscriber(facts: SubscriberFacts, load: () => Promise<EventSubscriber>): LazySubscriber {
  let loading: Promise<EventSubscriber> | null = null;
  const loaded = (): Promise<EventSubscriber> => {
    if (!loading) {
      loading = load().then((s) => {
        if (s.name !== facts.name || JSON.stringify(s.types) !== JSON.stringify(facts.types) || Boolean(s.wants) !== Boolean(facts.wants))
          throw new Error(`event subscriber "${facts.name}" is not what src/wiring/subscribers.ts says`);
        return s;
      });
      // A failed load (a file missing mid-deploy) is tried again by the next run.
      loading.catch(() => (loading = null));
    }
    return loading;
  };
  return {
    name: facts.name,
    types: facts.types,
    load: loaded,
    handle: async (ctx, trx, events) => (await loaded()).handle(ctx, trx, events),
    ...(facts.wants ? { wants: async (ctx: JobContext, trx: Knex.Transaction, heads: EventHead[]) => (await loaded()).wants!(ctx, trx, heads) } : {}),
  };
}

/** Events handed over per transaction, at most. */
const BATCH = 500;
/** Event heads read per transaction: those a subscriber does not want cost no more than their head. */
const HEADS = 5000;
/** How long an id skipped over is looked for before it counts as never committed. */
export const SETTLE_MS = 60_000;
/** Gaps kept at most (the oldest are given up first). */
const MAX_GAPS = 200;

/**
 * The next position: past every event read, with the ids skipped over in `fresh` added as gaps,
 * the ids `found` in the gaps taken out of them, and gaps older than the settle time dropped.
 */
export function advance(position: number, gaps: Gap[], fresh: EventHead[], found: EventHead[], now: number): { position: number; gaps: Gap[] } {
  const seen = found.map((e) => e.id).sort((a, b) => a - b);
  let next: Gap[] = [];
  for (const [from, to, since] of gaps) {
    let start = from;
    for (const id of seen) {
      if (id < start || id > to) continue;
      if (id > start) next.push([start, id - 1, since]);
      start = id + 1;
    }
    if (start <= to) next.push([start, to, since]);
  }
  let expected = position + 1;
  for (const e of fresh) {
    if (e.id > expected) next.push([expected, e.id - 1, now]);
    expected = e.id + 1;
  }
  next = next.filter(([, , since]) => now - since < SETTLE_MS).slice(-MAX_GAPS);
  return { position: fresh.length ? fresh[fresh.length - 1].id : position, gaps: next };
}

/**
 * Reads one batch for `subscriber` and handles it, in one transaction with the position's advance.
 * Answers true when more events may be waiting.
 */
export async function consumeBatch(ctx: JobContext, subscriber: EventSubscriber): Promise<boolean> {
  return inTransaction(ctx.knex, async (trx) => {
    const now = ctx.now();
    const p = await lockPosition(trx, subscriber.name, ctx.dialect === 'mysql', now);
    let found = await eventHeadsIn(
      trx,
      p.gaps.map(([from, to]) => [from, to]),
    );
    let fresh = await eventHeadsAfter(trx, p.position, HEADS);
    let more = fresh.length === HEADS;
    const types = new Set(subscriber.types);
    let wanted = [...found, ...fresh].filter((e) => types.has(e.type));
    if (wanted.length && subscriber.wants) wanted = await subscriber.wants(ctx, trx, wanted);
    if (wanted.length > BATCH) {
      // The heads after the BATCH-th wanted one wait for the next transaction (gaps stay gaps).
      const last = wanted[BATCH - 1].id;
      [found, fresh, wanted, more] = [found.filter((e) => e.id <= last), fresh.filter((e) => e.id <= last), wanted.slice(0, BATCH), true];
    }
    const next = advance(p.position, p.gaps, fresh, found, now);
    if (next.position === p.position && JSON.stringify(next.gaps) === JSON.stringify(p.gaps)) return false;
    if (wanted.length)
      await subscriber.handle(
        ctx,
        trx,
        await storedEvents(
          trx,
          wanted.map((e) => e.id),
        ),
      );
    await savePosition(trx, { ...p, ...next }, now);
    return more;
  });
}

/** The job kind that consumes `subscribers`, one job each. */
export function subscriberJobKind(subscribers: EventSubscriber[]): JobKind {
  const byName = new Map(subscribers.map((s) => [s.name, s]));
  if (byName.size !== subscribers.length) throw new Error('two event subscribers share a name');
  return {
    kind: SUBSCRIBER_JOB,
    startKeys: subscribers.map((s) => s.name),
    async run(ctx: JobContext, job: ClaimedJob) {
      const subscriber = byName.get(job.key);
      // A subscriber this build no longer has: its job goes (a build that has it wakes it again).
      if (!subscriber) return 'done';
      for (;;) {
        // Another worker took the job over (this one was too slow to renew): it reads on.
        if (!ctx.stillOwned()) return ctx.now();
        if (!(await consumeBatch(ctx, subscriber))) return null;
      }
    },
  };
}
