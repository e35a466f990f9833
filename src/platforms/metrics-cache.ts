// A short cache for live reads from ad platforms (METRICS_CACHE_SECONDS, default 60): in memory,
// or in Redis when REDIS_URL is set. Entries are grouped per ad account under a generation number,
// so a publish or budget edit makes the account's cached reads stale at once.

import type { Redis } from 'ioredis';

export interface Cached<T> {
  value: T;
  /** When the value was read from the platform (ms). */
  storedAt: number;
}

export interface MetricsCache {
  get<T>(scope: string, key: string): Promise<Cached<T> | null>;
  set<T>(scope: string, key: string, entry: Cached<T>): Promise<void>;
  /** Forgets every entry of `scope` (an ad account). */
  invalidate(scope: string): Promise<void>;
}

export class MemoryMetricsCache implements MetricsCache {
  private readonly entries = new Map<string, { entry: Cached<unknown>; expires: number }>();
  private readonly generations = new Map<string, number>();

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
    private readonly max = 5_000,
  ) {}

  private full(scope: string, key: string): string {
    return `${scope}#${this.generations.get(scope) ?? 0}#${key}`;
  }

  async get<T>(scope: string, key: string): Promise<Cached<T> | null> {
    const full = this.full(scope, key);
    const hit = this.entries.get(full);
    if (!hit) return null;
    if (hit.expires <= this.now()) {
      this.entries.delete(full);
      return null;
    }
    return hit.entry as Cached<T>;
  }

  async set<T>(scope: string, key: string, entry: Cached<T>): Promise<void> {
    if (this.ttlMs <= 0) return;
    if (this.entries.size >= this.max) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(this.full(scope, key), { entry, expires: this.now() + this.ttlMs });
  }

  async invalidate(scope: string): Promise<void> {
    this.generations.set(scope, (this.generations.get(scope) ?? 0) + 1);
  }
}

export class RedisMetricsCache implements MetricsCache {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly ttlMs: number,
  ) {}

  private async full(scope: string, key: string): Promise<string> {
    const generation = (await this.redis.get(`${this.prefix}gen:${scope}`)) ?? '0';
    return `${this.prefix}mc:${scope}:${generation}:${key}`;
  }

  async get<T>(scope: string, key: string): Promise<Cached<T> | null> {
    const raw = await this.redis.get(await this.full(scope, key));
    return raw ? (JSON.parse(raw) as Cached<T>) : null;
  }

  async set<T>(scope: string, key: string, entry: Cached<T>): Promise<void> {
    if (this.ttlMs <= 0) return;
    await this.redis.set(await this.full(scope, key), JSON.stringify(entry), 'PX', this.ttlMs);
  }

  async invalidate(scope: string): Promise<void> {
    await this.redis.incr(`${this.prefix}gen:${scope}`);
  }
}
