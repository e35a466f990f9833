// What the live ad-platform adapters share: HTTP through the outbound client (the platforms' URLs
// are the operator's: META_GRAPH_URL, TIKTOK_API_URL) with a timeout per exchange and a deadline per
// logical request, the retry policy (a throttle wait the request has time for is waited and the call
// retried once, a longer one answered at once as `throttled` with retryAfterMs; capped jittered
// backoff when the platform fails; never retry a refusal, never past the deadline), creating objects
// exactly once and exact money conversion.

import { AsyncLocalStorage } from 'node:async_hooks';
import { operatorTarget } from '../outbound/address-policy.js';
import { OutboundError, type OutboundClient } from '../outbound/client.js';
import { PlatformError, type ObjectLevel, type PlatformName } from './port.js';

export interface LiveHttpOptions {
  /** Waits between attempts; tests pass one that returns at once and records the waits. */
  sleep?: (ms: number) => Promise<void>;
  /** Uniform in [0, 1) for backoff jitter. */
  random?: () => number;
  /** Time allowed for one HTTP exchange, answer body included (default 15 s). */
  timeoutMs?: number;
  /** Attempts of a request that fails transiently, the first included (default 4). */
  maxAttempts?: number;
  /** First backoff ceiling; it doubles per attempt up to backoffMaxMs (defaults 500 ms and 8 s). */
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  /** Longest throttling wait served in place; a longer one is reported as `throttled` (default 60 s). */
  maxThrottleWaitMs?: number;
  /** Throttling waits per request before giving up (default 1: a short wait is waited and the call retried once). */
  maxThrottleWaits?: number;
  /** Time one logical request may take, every attempt and wait included (default 25 s, inside the service's 30 s request budget). */
  callDeadlineMs?: number;
}

export interface HttpReply {
  status: number;
  headers: Headers;
  /** The parsed JSON answer, or undefined when the answer is not JSON. */
  body: unknown;
}

/** The platform timing of work that runs outside any request, with no request budget to answer within. */
export interface BackgroundTiming {
  timeoutMs: number;
  callDeadlineMs: number;
}

/**
 * Work carried on outside a request (the finish-publish job) is not held to the request budget the
 * adapters' timing is made for: a platform slower than that budget would otherwise fail every call,
 * and a publish could never end. Each adapter takes the longer of its own timing and this one.
 */
const DEFAULT_BACKGROUND: BackgroundTiming = { timeoutMs: 15_000, callDeadlineMs: 60_000 };
const background = new AsyncLocalStorage<BackgroundTiming>();

/** Runs `work` with the platform timing of background work. */
export function outsideRequest<T>(work: () => Promise<T>, timing: BackgroundTiming = DEFAULT_BACKGROUND): Promise<T> {
  return background.run(timing, work);
}

/** Attempts and waits spent on one logical request, and when it must be over. */
export class RetryState {
  attempts = 1;
  throttleWaits = 0;
  constructor(readonly deadline: number) {}
}

/** One HTTP exchange at a time with a deadline, and the retry policy around it. */
export class LiveHttp {
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly random: () => number;
  readonly timeoutMs: number;
  private readonly maxAttempts: number;
  private readonly backoffBaseMs: number;
  private readonly backoffMaxMs: number;
  private readonly maxThrottleWaitMs: number;
  private readonly maxThrottleWaits: number;
  readonly callDeadlineMs: number;

  constructor(
    private readonly outbound: OutboundClient,
    options: LiveHttpOptions = {},
  ) {
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.random = options.random ?? Math.random;
    this.timeoutMs = options.timeoutMs ?? 15_000;
    this.maxAttempts = Math.max(1, options.maxAttempts ?? 4);
    this.backoffBaseMs = options.backoffBaseMs ?? 500;
    this.backoffMaxMs = options.backoffMaxMs ?? 8_000;
    this.maxThrottleWaitMs = options.maxThrottleWaitMs ?? 60_000;
    this.maxThrottleWaits = options.maxThrottleWaits ?? 1;
    this.callDeadlineMs = options.callDeadlineMs ?? 25_000;
  }

  /** A fresh retry state whose deadline is callDeadlineMs from now (longer outside a request). */
  newState(): RetryState {
    return new RetryState(Date.now() + Math.max(this.callDeadlineMs, background.getStore()?.callDeadlineMs ?? 0));
  }

  /** Time allowed for one exchange: timeoutMs, or longer outside a request. */
  private exchangeMs(): number {
    return Math.max(this.timeoutMs, background.getStore()?.timeoutMs ?? 0);
  }

  /** Waits `ms` (the injected sleep, so tests do not wait), e.g. between polls of a video being processed. */
  wait(ms: number): Promise<void> {
    return this.sleep(ms);
  }

  /** Sends one request; a failed connection or a missed timeout is a `transient` PlatformError. */
  async send(url: string, init: { method: string; headers?: Record<string, string>; body?: string | Uint8Array }): Promise<HttpReply> {
    let response: { status: number; headers: Headers; text(): string };
    let text: string;
    const timeoutMs = this.exchangeMs();
    try {
      response = await this.outbound.request(operatorTarget(url), { ...init, timeoutMs, maxResponseBytes: 32 * 1024 * 1024 });
      text = response.text();
    } catch (err) {
      if (!(err instanceof OutboundError)) throw err;
      throw new PlatformError(
        'transient',
        err.kind === 'timeout' ? `The ad platform did not answer within ${timeoutMs} ms.` : `The connection to the ad platform failed (${err.message}).`,
      );
    }
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    return { status: response.status, headers: response.headers, body };
  }

  /** Waits before another attempt after `err`, or rethrows it when the policy says to stop. */
  async pause(err: unknown, state: RetryState): Promise<void> {
    if (!(err instanceof PlatformError)) throw err;
    // No wait, and so no attempt, runs past the logical request's deadline.
    const left = state.deadline - Date.now();
    if (err.kind === 'throttled') {
      const wait = err.extra.retryAfterMs ?? this.backoffMaxMs;
      // A wait the request has no time for is answered at once: the caller says "retry after" then.
      if (wait > this.maxThrottleWaitMs || wait >= left || state.throttleWaits >= this.maxThrottleWaits) {
        throw err.extra.retryAfterMs === undefined ? new PlatformError('throttled', err.message, { ...err.extra, retryAfterMs: wait }) : err;
      }
      state.throttleWaits++;
      await this.sleep(wait);
      return;
    }
    if (err.kind === 'transient' && state.attempts < this.maxAttempts) {
      const ceiling = Math.min(this.backoffMaxMs, this.backoffBaseMs * 2 ** (state.attempts - 1));
      const wait = Math.round(ceiling / 2 + (this.random() * ceiling) / 2);
      if (wait >= left) throw err;
      state.attempts++;
      await this.sleep(wait);
      return;
    }
    throw err;
  }

  /** Runs an idempotent request under the retry policy. */
  async retrying<T>(op: () => Promise<T>): Promise<T> {
    const state = this.newState();
    for (;;) {
      try {
        return await op();
      } catch (err) {
        await this.pause(err, state);
      }
    }
  }
}

/** What one create request answered for each of its items: the new id, or why not. */
export type CreateOutcome = { id: string } | { error: PlatformError };

function retryable(err: PlatformError): boolean {
  return err.kind === 'throttled' || err.kind === 'transient';
}

/**
 * Creates `items` exactly once. A refusal is thrown at once; a throttled item is sent again after
 * the wait; an item whose fate is unknown (lost answer, timeout, platform error) is first looked
 * up by its marker with `find`, and only sent again when the platform does not have it.
 */
export async function createExactlyOnce<T>(
  http: LiveHttp,
  items: T[],
  send: (items: T[]) => Promise<CreateOutcome[]>,
  find: (items: T[]) => Promise<Map<T, string>>,
): Promise<Map<T, string>> {
  const ids = new Map<T, string>();
  const state = http.newState();
  let todo = items;
  while (todo.length) {
    let failure: PlatformError | null = null;
    let uncertain: T[] = [];
    let outcomes: CreateOutcome[] | null = null;
    try {
      outcomes = await send(todo);
    } catch (err) {
      if (!(err instanceof PlatformError) || !retryable(err)) throw err;
      failure = err;
      if (err.kind === 'transient') uncertain = todo;
    }
    for (const [k, outcome] of (outcomes ?? []).entries()) {
      if ('id' in outcome) {
        ids.set(todo[k], outcome.id);
        continue;
      }
      if (!retryable(outcome.error)) throw outcome.error;
      if (outcome.error.kind === 'transient') uncertain.push(todo[k]);
      if (!failure || outcome.error.kind === 'throttled') failure = outcome.error;
    }
    if (!failure) break;
    let stop: unknown = null;
    try {
      await http.pause(failure, state);
    } catch (err) {
      stop = err;
    }
    if (uncertain.length) {
      const found = await http.retrying(() => find(uncertain));
      for (const [item, id] of found) ids.set(item, id);
    }
    todo = todo.filter((item) => !ids.has(item));
    if (todo.length && stop) throw stop;
  }
  return ids;
}

/** Splits a list into runs of at most `size`. */
export function chunks<T>(list: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size));
  return out;
}

/** Digits after the decimal point of `currency` (ISO 4217: USD 2, JPY 0, KWD 3). */
export function currencyDigits(currency: string): number {
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    return 2;
  }
}

/** An amount in currency units ("12.34" or 12.34) as integer minor units, by decimal digits, not floats. */
export function decimalToMinor(value: string | number, digits: number): number {
  let text = typeof value === 'number' ? String(value) : value.trim();
  if (/e/i.test(text)) text = Number(text).toFixed(digits + 1);
  const match = /^(-?)(\d*)(?:\.(\d*))?$/.exec(text);
  if (!match || (match[2] === '' && !match[3])) throw new PlatformError('transient', `The ad platform sent an unreadable amount "${text}".`);
  const [, sign, whole, fraction = ''] = match;
  const kept = (fraction + '0'.repeat(digits)).slice(0, digits);
  let minor = Number((whole || '0') + kept);
  if (Number(fraction[digits] ?? '0') >= 5) minor += 1;
  return sign ? -minor : minor;
}

/** Integer minor units as a number of currency units (5010 USD → 50.1), exact in decimal. */
export function minorToDecimal(minor: number, digits: number): number {
  if (!Number.isInteger(minor)) throw new PlatformError('invalid_request', 'An amount must be whole minor units.', { field: 'amountMinorUnits' });
  if (digits === 0) return minor;
  const text = String(Math.abs(minor)).padStart(digits + 1, '0');
  return Number(`${minor < 0 ? '-' : ''}${text.slice(0, -digits)}.${text.slice(-digits)}`);
}

/** A name as campaigns published before issue 32 carry it (`name [svc:nd_...]`), split into the name and its old marker. */
export function splitMarkedName(name: string): { name: string; marker: string | null } {
  const match = /^(.*?) ?\[svc:([^\]]+)\]$/s.exec(name);
  return match ? { name: match[1], marker: match[2] } : { name, marker: null };
}

/** A level the platform cannot create or change that way. */
export function unsupportedLevel(platform: PlatformName, level: ObjectLevel, what: string): PlatformError {
  return new PlatformError('capability_unsupported', `${platform === 'meta' ? 'Meta' : 'TikTok'} cannot ${what} at the ${level} level.`);
}
