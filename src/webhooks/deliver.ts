// One delivery attempt and what follows from its outcome: the attempt logged, the delivery
// succeeded, left pending for its retry or given up, and the endpoint disabled when the receiver is
// gone (410) or has failed for five days. Used by the delivery job and by the synchronous test send.

import type { Knex } from 'knex';
import type { SecretBox } from '../auth/encryption.js';
import { inTransaction } from '../db/connection.js';
import type { EventText, StoredEvent } from '../events/store.js';
import type { SendOutcome, WebhookSending } from '../catalogue/services.js';
import { insertAttempts, recordAttempt, setDeliveryOutcomes, updateEndpoint, type BatchDelivery, type DeliveryRow, type EndpointRow } from './store.js';

export type { EndpointRow } from './store.js';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** Waits before each retry: 5 s, 5 min, 30 min, 2 h, 5 h, then every 10 h. */
export const RETRY_DELAYS_MS = [5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR];
/** A delivery is retried for three days after its event, then marked failed. */
export const RETRY_WINDOW_MS = 3 * DAY;
/** An endpoint that has failed every attempt for five days is disabled (`failing`). */
export const FAILING_DISABLE_MS = 5 * DAY;

export function retryDelayMs(attemptsSoFar: number): number {
  return RETRY_DELAYS_MS[Math.min(attemptsSoFar - 1, RETRY_DELAYS_MS.length - 1)];
}

/**
 * The delivery job's retry policy: the wait after failed attempt number `attempts`, or null once
 * the next attempt would come more than the retry window after the first (the schedule's own
 * times: 12 attempts in all).
 */
export function deliveryRetry(attempts: number): number | null {
  let at = 0;
  for (let n = 1; n <= attempts; n++) at += retryDelayMs(n);
  return at > RETRY_WINDOW_MS ? null : retryDelayMs(attempts);
}

/** A delivery about to be attempted, with its event. */
export interface DueDelivery {
  id: number;
  attempt_count: number;
  created_at: number;
  event_public_id: string;
  event_type: string;
  event_data: string;
  event_created_at: number;
}

/** A delivery with its event: as stored (data JSON text, sent as written) or as parsed (serialised again). */
export function dueDelivery(d: DeliveryRow, e: StoredEvent | EventText): DueDelivery {
  return {
    id: d.id,
    attempt_count: d.attemptCount,
    created_at: d.createdAt,
    event_public_id: e.publicId,
    event_type: e.type,
    event_data: typeof e.data === 'string' ? e.data : JSON.stringify(e.data),
    event_created_at: e.createdAt,
  };
}

export interface DeliveryDeps {
  knex: Knex;
  secrets: SecretBox;
  sender: WebhookSending;
  now: () => number;
}

export interface AttemptResult extends SendOutcome {
  succeeded: boolean;
  /** False when the delivery stays pending for a retry. */
  final: boolean;
  /** Set when this attempt disabled the endpoint. */
  disabledReason: 'gone' | 'failing' | null;
}

/** Secrets replaced within the last 24 hours, still signing beside the current one. */
export interface RetiredSecret {
  sealed: string;
  expiresAt: number;
}

export function retiredSecrets(e: Pick<EndpointRow, 'previous_secrets'>, now: number): RetiredSecret[] {
  return e.previous_secrets ? (JSON.parse(e.previous_secrets) as RetiredSecret[]).filter((s) => s.expiresAt > now) : [];
}

/** The secrets that sign now: the current one, and each one replaced less than 24 hours ago. */
export function signingSecrets(box: SecretBox, e: EndpointRow, now: number): string[] {
  return [box.open(e.secret_sealed), ...retiredSecrets(e, now).map((s) => box.open(s.sealed))];
}

/** The Standard Webhooks body of an event: `{type, timestamp, data}`. */
export function messageBody(d: Pick<DueDelivery, 'event_type' | 'event_data' | 'event_created_at'>): string {
  return `{"type":${JSON.stringify(d.event_type)},"timestamp":${JSON.stringify(new Date(Number(d.event_created_at)).toISOString())},"data":${d.event_data}}`;
}

/**
 * Sends `delivery` to `endpoint` once and records the outcome. With `retry` false (test sends) a
 * failure is final at once.
 */
export async function attemptDelivery(deps: DeliveryDeps, endpoint: EndpointRow, delivery: DueDelivery, retry = true): Promise<AttemptResult> {
  const started = deps.now();
  const outcome = await send(deps, endpoint, delivery, started);
  const now = deps.now();
  const attempts = Number(delivery.attempt_count) + 1;
  const { succeeded, failingSince, disabledReason, giveUp } = judge(endpoint, outcome, attempts, Number(delivery.created_at), now, retry);
  const status = outcome.statusCode;

  await inTransaction(deps.knex, async (trx) => {
    await recordAttempt(
      trx,
      { deliveryId: delivery.id, at: started, statusCode: status, durationMs: outcome.durationMs, error: outcome.error, responseExcerpt: outcome.excerpt },
      succeeded ? 'succeeded' : giveUp ? 'failed' : 'pending',
      attempts,
      now,
    );
    // Only a change is written: most attempts leave the endpoint row as it was.
    if (disabledReason) await updateEndpoint(trx, endpoint.id, { failingSince, enabled: false, disabledReason, updatedAt: now });
    else if ((failingSince === null) !== (endpoint.failing_since === null)) await updateEndpoint(trx, endpoint.id, { failingSince });
  });
  endpoint.failing_since = failingSince;
  if (disabledReason) endpoint.enabled = false;
  return { ...outcome, succeeded, final: succeeded || giveUp, disabledReason };
}

function send(deps: DeliveryDeps, endpoint: EndpointRow, delivery: DueDelivery, started: number, secrets?: string[]): Promise<SendOutcome> {
  return deps.sender.send({
    url: endpoint.url,
    id: delivery.event_public_id,
    timestampSeconds: Math.floor(started / 1000),
    body: messageBody(delivery),
    secrets: secrets ?? signingSecrets(deps.secrets, endpoint, started),
    sequence: delivery.id,
  });
}

/** An answer slower than this halves the endpoint's window. */
const SLOW_ANSWER_MS = 2_000;

/**
 * How many requests may be in flight to one endpoint (per process): `max` (WEBHOOK_INFLIGHT) while
 * it answers well; a failed attempt (no answer, or not 2xx) shrinks it to one and a slow answer
 * halves it, so an endpoint that fails or slows is backed off as a whole; each good answer grows it
 * back by one.
 */
export class EndpointWindow {
  size: number;
  /** Requests sent so far (each send takes the next number). */
  private sent = 0;
  /** Answers to requests sent up to this number say nothing new after a failure: they do not grow the window. */
  private quietUntil = 0;

  constructor(readonly max: number) {
    this.size = max;
  }

  /** Numbers a request as it leaves; pass the number to `observe` with its answer. */
  send(): number {
    return ++this.sent;
  }

  observe(succeeded: boolean, durationMs: number, sentAs = Infinity): void {
    if (!succeeded) {
      this.size = 1;
      // Requests already in flight when it failed may still succeed: growing back waits for one sent after.
      this.quietUntil = this.sent;
    } else if (durationMs >= SLOW_ANSWER_MS) this.size = Math.max(1, Math.floor(this.size / 2));
    else if (sentAs > this.quietUntil) this.size = Math.min(this.max, this.size + 1);
  }
}

const windows = new Map<number, EndpointWindow>();

/** The window of endpoint `id` in this process (its size carried from batch to batch). */
export function endpointWindow(id: number, max: number): EndpointWindow {
  let w = windows.get(id);
  if (!w || w.max !== max) windows.set(id, (w = new EndpointWindow(max)));
  return w;
}

/**
 * The endpoint's signing secrets for a batch, opened once: opened again only when a retired
 * secret's 24 hours run out during the batch.
 */
function batchSecrets(box: SecretBox, endpoint: EndpointRow): (now: number) => string[] {
  let secrets: string[] = [];
  let validUntil = -Infinity;
  return (now) => {
    if (now >= validUntil) {
      secrets = signingSecrets(box, endpoint, now);
      validUntil = Math.min(Infinity, ...retiredSecrets(endpoint, now).map((s) => s.expiresAt));
    }
    return secrets;
  };
}

/** What one answer means: success, the endpoint's failing-since time, whether it disables the endpoint, whether the delivery is given up. */
function judge(endpoint: EndpointRow, outcome: SendOutcome, attempts: number, createdAt: number, now: number, retry: boolean) {
  const status = outcome.statusCode;
  const succeeded = status !== null && status >= 200 && status < 300;
  const failingSince = succeeded ? null : endpoint.failing_since === null ? now : Number(endpoint.failing_since);
  let disabledReason: AttemptResult['disabledReason'] = null;
  if (status === 410) disabledReason = 'gone';
  else if (failingSince !== null && now - failingSince >= FAILING_DISABLE_MS) disabledReason = 'failing';
  const giveUp = !retry || disabledReason !== null || now + retryDelayMs(attempts) > createdAt + RETRY_WINDOW_MS;
  return { succeeded, failingSince, disabledReason, giveUp };
}

/** How one delivery of a batch ended: done, parked until its endpoint is on again, or failed for a retry. */
export type BatchOutcome = 'done' | 'parked' | { retry: string };

/**
 * Sends the due deliveries of one endpoint in the order they happened, with up to the endpoint's
 * window (`inflight`, see EndpointWindow) of requests in flight at once; each answer's attempt is
 * logged while the next requests go out, with at most `window` messages sent and not yet logged (a
 * crash sends those again, with the same webhook-id; a delivery whose log holds a 2xx is marked
 * succeeded without a send). Statuses are written once for the batch, with the last attempt
 * answered. Stops sending when `stillOwned` turns false (what is left is answered as a retry, which
 * the queue ignores for a lease it lost).
 */
export async function deliverBatch(
  deps: DeliveryDeps & { enabled: boolean; stillOwned: () => boolean; window: number; inflight?: number; groupCommitMs?: number },
  endpoint: EndpointRow | undefined,
  batch: Array<{ delivery: BatchDelivery | undefined; event: EventText | undefined }>,
): Promise<BatchOutcome[]> {
  const out: BatchOutcome[] = new Array(batch.length);
  const statuses: DeliveryOutcome[] = [];
  const secretsAt = endpoint ? batchSecrets(deps.secrets, endpoint) : () => [];
  const flight = endpoint ? endpointWindow(endpoint.id, deps.inflight ?? 1) : new EndpointWindow(1);
  // Sends not yet answered (started or not): the answer that brings it to 0 carries the batch's statuses.
  let unanswered = 0;
  for (const { delivery } of batch) if (delivery?.status === 'pending' && !delivery.answered) unanswered++;
  // How many of `statuses` went with an attempt; the rest are written after the loop.
  let written = 0;
  const records = new RecordWindow(deps.window);
  const sending = new Set<Promise<void>>();
  // Changes to the endpoint row, in the order the answers that made them arrived.
  let endpointWrites: Promise<void> = Promise.resolve();
  let failure: { err: unknown } | null = null;

  const sendOne = async (i: number, delivery: BatchDelivery, event: EventText, endpoint: EndpointRow) => {
    const started = deps.now();
    const number = flight.send();
    const outcome = await send(deps, endpoint, dueDelivery(delivery, event), started, secretsAt(started));
    const now = deps.now();
    const attempts = delivery.recordedAttempts + 1;
    const j = judge(endpoint, outcome, attempts, delivery.createdAt, now, true);
    const final = j.succeeded || j.giveUp;
    flight.observe(j.succeeded, outcome.durationMs, number);
    statuses.push({ id: delivery.id, status: j.succeeded ? 'succeeded' : final ? 'failed' : 'pending', attemptCount: attempts });
    unanswered--;
    // The endpoint row changes rarely: then its update and the statuses go in statements of their own.
    const endpointChanges = j.disabledReason !== null || (j.failingSince === null) !== (endpoint.failing_since === null);
    const carryStatuses = unanswered === 0 && !endpointChanges;
    records.add(
      attemptLog(deps.knex, deps.groupCommitMs ?? 0).write(
        {
          deliveryId: delivery.id,
          at: started,
          statusCode: outcome.statusCode,
          durationMs: outcome.durationMs,
          error: outcome.error,
          responseExcerpt: outcome.excerpt,
        },
        carryStatuses ? { outcomes: [...statuses], now } : null,
      ),
    );
    if (carryStatuses) written = statuses.length;
    // The state is this process's at once (later answers judge against it); the row follows, after the attempts before it.
    const failingSince = j.failingSince;
    endpoint.failing_since = failingSince;
    if (j.disabledReason) endpoint.enabled = false;
    out[i] = final ? 'done' : { retry: outcome.statusCode === null ? `not delivered: ${outcome.error}` : `the receiver answered ${outcome.statusCode}` };
    if (endpointChanges) {
      const reason = j.disabledReason;
      endpointWrites = endpointWrites.then(async () => {
        await records.drain();
        if (reason) await updateEndpoint(deps.knex, endpoint.id, { failingSince, enabled: false, disabledReason: reason, updatedAt: now });
        else await updateEndpoint(deps.knex, endpoint.id, { failingSince });
      });
      await endpointWrites;
    }
  };

  try {
    for (const [i, { delivery, event }] of batch.entries()) {
      if (!delivery || delivery.status !== 'pending' || !endpoint) {
        out[i] = 'done';
        continue;
      }
      if (delivery.answered) {
        statuses.push({ id: delivery.id, status: 'succeeded', attemptCount: delivery.recordedAttempts });
        out[i] = 'done';
        continue;
      }
      // Wait for a place in the endpoint's window (and in the window of unlogged attempts) before deciding.
      await records.room();
      while (sending.size >= flight.size && !failure) await Promise.race(sending);
      if (failure) break;
      if (!endpoint.enabled || !deps.enabled) {
        unanswered--;
        out[i] = 'parked';
        continue;
      }
      if (deps.now() > delivery.createdAt + RETRY_WINDOW_MS || !event) {
        unanswered--;
        statuses.push({ id: delivery.id, status: 'failed', attemptCount: delivery.recordedAttempts });
        out[i] = 'done';
        continue;
      }
      if (!deps.stillOwned()) {
        unanswered--;
        out[i] = { retry: 'the lease of the lane was lost' };
        continue;
      }
      const p: Promise<void> = sendOne(i, delivery, event, endpoint)
        .catch((err: unknown) => {
          failure ??= { err };
        })
        .finally(() => sending.delete(p));
      sending.add(p);
    }
  } finally {
    // Whatever ended the loop, no request of this batch is still out when it returns or throws.
    await Promise.allSettled(sending);
  }
  await endpointWrites.catch(() => undefined);
  if (failure) throw (failure as { err: unknown }).err;
  await records.drain();
  await setDeliveryOutcomes(deps.knex, statuses.slice(written), deps.now());
  return out;
}

/** The attempt logs of one lane still being written: at most `size` at once; the first failure is thrown by the next wait. */
class RecordWindow {
  private writing: Array<Promise<void>> = [];
  private failure: { err: unknown } | null = null;

  constructor(private readonly size: number) {}

  add(write: Promise<void>): void {
    this.writing.push(
      write.catch((err: unknown) => {
        this.failure ??= { err };
      }),
    );
  }

  /** Waits until one more message may be sent: fewer than `size` logs still being written. */
  async room(): Promise<void> {
    while (this.writing.length >= this.size) await this.writing.shift();
    if (this.failure) throw this.failure.err;
  }

  /** Waits for every log being written. */
  async drain(): Promise<void> {
    await Promise.all(this.writing.splice(0));
    if (this.failure) throw this.failure.err;
  }
}

type DeliveryOutcome = { id: number; status: DeliveryRow['status']; attemptCount: number };

/** Statuses of a batch written with its last attempt (in that statement's transaction). */
interface CarriedStatuses {
  outcomes: DeliveryOutcome[];
  now: number;
}

/**
 * Writes the attempts of every lane of this process that got an answer at about the same moment in
 * one multi-row insert (a group commit), in the order they were written; a lane goes on sending
 * while its attempts wait here, within its window.
 */
class AttemptLog {
  private queued: Array<{ row: AttemptRow; statuses: CarriedStatuses | null; done: (err?: unknown) => void }> = [];
  private flushing = false;

  constructor(
    private readonly knex: Knex,
    /** How long the first queued attempt waits for others before their commit (0: the rest of this turn of the event loop). */
    private readonly waitMs: number,
  ) {}

  /** Logs `row`; `statuses` (a batch ending with this attempt) are written in the same transaction. */
  write(row: AttemptRow, statuses: CarriedStatuses | null = null): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queued.push({ row, statuses, done: (err) => (err ? reject(err) : resolve()) });
      if (!this.flushing) void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    try {
      while (this.queued.length) {
        // Lanes whose answers arrive in this turn of the event loop (or within waitMs) join the statement.
        await new Promise((r) => (this.waitMs > 0 ? setTimeout(r, this.waitMs) : setImmediate(r)));
        const batch = this.queued;
        this.queued = [];
        const rows = batch.map((b) => b.row);
        const statuses = batch.flatMap((b) => (b.statuses ? [b.statuses] : []));
        try {
          // Lanes ending their batch write their statuses in the same commit: on SQLite each
          // commit is a sync of the log file, which stops the event loop.
          if (statuses.length)
            await inTransaction(this.knex, async (trx) => {
              await insertAttempts(trx, rows);
              for (const s of statuses) await setDeliveryOutcomes(trx, s.outcomes, s.now);
            });
          else await insertAttempts(this.knex, rows);
          for (const b of batch) b.done();
        } catch (err) {
          for (const b of batch) b.done(err);
        }
      }
    } finally {
      this.flushing = false;
    }
  }
}

type AttemptRow = Parameters<typeof insertAttempts>[1][number];

const attemptLogs = new WeakMap<Knex, AttemptLog>();

function attemptLog(knex: Knex, waitMs: number): AttemptLog {
  let log = attemptLogs.get(knex);
  if (!log) attemptLogs.set(knex, (log = new AttemptLog(knex, waitMs)));
  return log;
}
