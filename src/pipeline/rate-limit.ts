// Per-organization rate limits: requests per minute (fixed window) and requests in flight.
// In memory for one process; in Redis (REDIS_URL) so several processes share one budget.

import type { Redis } from 'ioredis';
import type { RateLimitInfo } from '../catalogue/invoke-types.js';

export interface RateLimitOutcome {
  info: RateLimitInfo;
  /** null when admitted; otherwise why not and how long to wait. */
  refused: { reason: 'rate' | 'concurrency'; retryAfter: number } | null;
}

/** An admitted request's hold on an in-flight slot, given back with `release`. */
export interface RateLimitSlot extends RateLimitOutcome {
  readonly organizationId: number;
  readonly token: string;
  released: boolean;
}

export interface RateLimiter {
  /**
   * Counts a request of the organization and, when admitted, takes an in-flight slot. The
   * in-memory limiter answers at once; the Redis one through a promise.
   */
  acquire(organizationId: number, token: string): RateLimitSlot | Promise<RateLimitSlot>;
  /** Gives back the slot of an admitted request; a second release, or one of a refused request, does nothing. */
  release(slot: RateLimitSlot): void | Promise<void>;
  close(): Promise<void>;
}

const WINDOW_MS = 60_000;

interface Counts {
  count: number;
  admitted: boolean;
}

abstract class WindowLimiter implements RateLimiter {
  constructor(
    protected readonly perMinute: number,
    protected readonly concurrency: number,
    protected readonly now: () => number,
  ) {}

  protected abstract count(org: number, windowStart: number, token: string): Counts | Promise<Counts>;
  protected abstract leave(org: number, token: string): void | Promise<void>;
  abstract close(): Promise<void>;

  acquire(org: number, token: string): RateLimitSlot | Promise<RateLimitSlot> {
    const now = this.now();
    const windowStart = Math.floor(now / WINDOW_MS) * WINDOW_MS;
    const counted = this.count(org, windowStart, token);
    return counted instanceof Promise ? counted.then((c) => this.slotOf(org, token, now, windowStart, c)) : this.slotOf(org, token, now, windowStart, counted);
  }

  release(slot: RateLimitSlot): void | Promise<void> {
    if (slot.released || slot.refused) return;
    slot.released = true;
    return this.leave(slot.organizationId, slot.token);
  }

  private slotOf(organizationId: number, token: string, now: number, windowStart: number, { count, admitted }: Counts): RateLimitSlot {
    const resetSeconds = Math.max(1, Math.ceil((windowStart + WINDOW_MS - now) / 1000));
    const info = { limit: this.perMinute, remaining: Math.max(0, this.perMinute - count), resetSeconds };
    const refused =
      count > this.perMinute ? { reason: 'rate' as const, retryAfter: resetSeconds } : !admitted ? { reason: 'concurrency' as const, retryAfter: 1 } : null;
    return { info, refused, organizationId, token, released: false };
  }
}

/** One process's counters. */
export class MemoryRateLimiter extends WindowLimiter {
  private readonly windows = new Map<number, { start: number; count: number }>();
  private readonly inFlight = new Map<number, number>();

  protected count(org: number, windowStart: number): Counts {
    let w = this.windows.get(org);
    if (!w || w.start !== windowStart) {
      w = { start: windowStart, count: 0 };
      this.windows.set(org, w);
    }
    w.count += 1;
    if (w.count > this.perMinute) return { count: w.count, admitted: false };
    const flying = this.inFlight.get(org) ?? 0;
    if (flying >= this.concurrency) return { count: w.count, admitted: false };
    this.inFlight.set(org, flying + 1);
    return { count: w.count, admitted: true };
  }

  protected leave(org: number): void {
    const flying = (this.inFlight.get(org) ?? 1) - 1;
    if (flying <= 0) this.inFlight.delete(org);
    else this.inFlight.set(org, flying);
  }

  async close(): Promise<void> {}
}

// One round trip: count the request in its window; if within the rate, take an in-flight slot.
// In-flight slots are leased (scored by expiry) so a crashed process cannot hold them for ever.
const ACQUIRE = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
if count > tonumber(ARGV[5]) then return {count, 0} end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[2])
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[6]) then return {count, 0} end
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[4])
redis.call('PEXPIRE', KEYS[2], ARGV[1])
return {count, 1}
`;

/** Counters shared through Redis by every server process using the same database. */
export class RedisRateLimiter extends WindowLimiter {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    perMinute: number,
    concurrency: number,
    private readonly leaseMs: number,
    now: () => number,
  ) {
    super(perMinute, concurrency, now);
    this.redis.defineCommand('svcRateAcquire', { numberOfKeys: 2, lua: ACQUIRE });
  }

  protected async count(org: number, windowStart: number, token: string): Promise<Counts> {
    const now = this.now();
    const [count, admitted] = await (
      this.redis as unknown as {
        svcRateAcquire(...args: Array<string | number>): Promise<[number, number]>;
      }
    ).svcRateAcquire(
      `${this.prefix}rl:${org}:${windowStart}`,
      `${this.prefix}fl:${org}`,
      WINDOW_MS + 5_000,
      now,
      now + this.leaseMs,
      token,
      this.perMinute,
      this.concurrency,
    );
    return { count, admitted: admitted === 1 };
  }

  protected async leave(org: number, token: string): Promise<void> {
    await this.redis.zrem(`${this.prefix}fl:${org}`, token);
  }

  async close(): Promise<void> {
    await this.redis.quit();
  }
}
