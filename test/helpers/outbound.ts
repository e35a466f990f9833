// Outbound clients for tests: a fake resolver that answers what a test needs (never the real DNS),
// and a client whose caller hosts resolve through it.

import { OutboundClient } from '../../src/outbound/client.js';
import type { Resolver } from '../../src/outbound/resolver.js';

/**
 * A resolver answering from `answers`: a name maps to its addresses, or to a list of answers given
 * one per lookup (the last repeats), e.g. public at save and loopback at send. Unknown names do not
 * resolve (ENOTFOUND). Every lookup is recorded in `lookups`.
 */
export function fakeResolver(answers: Record<string, string[] | string[][]> = {}): Resolver & { lookups: string[] } {
  const seen = new Map<string, number>();
  const lookups: string[] = [];
  const resolve = async (host: string): Promise<string[]> => {
    lookups.push(host);
    const answer = answers[host];
    if (!answer) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    if (!Array.isArray(answer[0])) return answer as string[];
    const n = seen.get(host) ?? 0;
    seen.set(host, n + 1);
    const list = answer as string[][];
    return list[Math.min(n, list.length - 1)];
  };
  return Object.assign(resolve, { lookups });
}

/** A client for adapters that call the operator's addresses (fake platform servers on loopback). */
export function testOutbound(options: { allowPrivate?: boolean; resolve?: Resolver } = {}): OutboundClient {
  return new OutboundClient({ allowPrivate: options.allowPrivate ?? false, resolve: options.resolve ?? fakeResolver() });
}
