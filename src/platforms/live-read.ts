// Live reads from an ad platform through the metrics cache: the answer and when it was read.

import type { MetricsCache } from './metrics-cache.js';
import type { AdAccount } from './port.js';

/** The account's cache scope; publishes and budget edits invalidate it. */
export function accountScope(account: Pick<AdAccount, 'platform' | 'accountId'>): string {
  return `${account.platform}:${account.accountId}`;
}

/**
 * Reads through the short metrics cache; `asOf` is when the platform was actually asked.
 * `params` is keyed by its JSON: each call site builds it with its keys in one fixed order.
 */
export async function liveRead<T>(
  ctx: { metrics: MetricsCache; now: () => number },
  account: AdAccount,
  what: string,
  params: unknown,
  read: () => Promise<T>,
): Promise<{ value: T; asOf: string }> {
  const scope = accountScope(account);
  const key = `${what}:${JSON.stringify(params)}`;
  const hit = await ctx.metrics.get<T>(scope, key);
  if (hit) return { value: hit.value, asOf: new Date(hit.storedAt).toISOString() };
  const storedAt = ctx.now();
  const value = await read();
  await ctx.metrics.set(scope, key, { value, storedAt });
  return { value, asOf: new Date(storedAt).toISOString() };
}
