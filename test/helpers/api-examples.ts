// Replays the example request of an operation (schemas/examples) against a running server. Ids
// the service makes at random (node ids, ad-platform ids, event ids) differ from run to run, so the
// replay learns them: each answer is walked beside its example answer, and an id that differs is
// put in place of the example's wherever a later request names it.

import type { OperationDefinition } from '../../src/catalogue/define.js';
import type { OperationExample } from '../../src/schemas/examples.js';
import { requestJson, type HttpReply } from './http.js';

const ID_KEY = /^(id|.*Id)$/;
const ID_LIST_KEY = /Ids$/;

type Scalar = string | number;
const isScalar = (v: unknown): v is Scalar => typeof v === 'string' || typeof v === 'number';

/** The ids the examples name and the ones this run was given instead. */
export class IdTranslator {
  private readonly ids = new Map<string, Scalar>();

  /** Walks an answer beside its example answer, noting every id that came out differently. */
  learn(example: unknown, actual: unknown, key = ''): void {
    if (Array.isArray(example) && Array.isArray(actual)) {
      example.forEach((e, i) => this.learn(e, actual[i], ID_LIST_KEY.test(key) ? 'id' : key));
    } else if (example && actual && typeof example === 'object' && typeof actual === 'object') {
      for (const [k, v] of Object.entries(example)) this.learn(v, (actual as Record<string, unknown>)[k], k);
    } else if (ID_KEY.test(key) && isScalar(example) && isScalar(actual) && example !== actual) {
      this.ids.set(JSON.stringify(example), actual);
    }
  }

  /** The id this run has for an example id (the same value when none was learned). */
  id<T>(value: T): T | Scalar {
    return isScalar(value) ? (this.ids.get(JSON.stringify(value)) ?? value) : value;
  }

  /** A request part with every id-valued field (`id`, `...Id`, the entries of `...Ids`) translated. */
  translate(value: unknown, key = ''): unknown {
    if (Array.isArray(value)) return value.map((v) => this.translate(v, ID_LIST_KEY.test(key) ? 'id' : key));
    if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.translate(v, k)]));
    return ID_KEY.test(key) ? this.id(value) : value;
  }
}

export interface ReplayOptions {
  baseUrl: string;
  key: string;
  ids: IdTranslator;
  /** Strings to put in place of others anywhere in the request (e.g. a receiver's address for an example host). */
  rewrite?: Record<string, string>;
}

function rewritten(value: unknown, rewrite: Record<string, string>): unknown {
  if (typeof value === 'string') return rewrite[value] ?? value;
  if (Array.isArray(value)) return value.map((v) => rewritten(v, rewrite));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, rewritten(v, rewrite)]));
  return value;
}

/** An example request as this run sends it: ids translated, example addresses rewritten. */
export function requestAsSent(example: OperationExample, ids: IdTranslator, rewrite: Record<string, string> = {}): OperationExample['request'] {
  const r = example.request;
  const out: OperationExample['request'] = {};
  if (r.path) out.path = Object.fromEntries(Object.entries(r.path).map(([k, v]) => [k, ids.id(v)]));
  if (r.query) out.query = ids.translate(r.query) as Record<string, unknown>;
  if (r.headers) out.headers = r.headers;
  if (r.body !== undefined) out.body = rewritten(ids.translate(r.body), rewrite);
  return out;
}

/** The path (with query) of a request as sent. */
export function examplePath(op: OperationDefinition, request: OperationExample['request']): string {
  const params = request.path ?? {};
  const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    if (params[name] === undefined) throw new Error(`the example of ${op.name} has no path parameter ${name}`);
    return encodeURIComponent(String(params[name]));
  });
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(request.query ?? {})) {
    for (const v of Array.isArray(value) ? value : [value]) query.append(name, String(v));
  }
  const q = query.toString();
  return `/v1${path}${q ? `?${q}` : ''}`;
}

/** Sends an operation's example request and learns the ids of its answer; also answers the request as sent. */
export async function replayExample(
  op: OperationDefinition,
  example: OperationExample,
  options: ReplayOptions,
): Promise<HttpReply & { sent: OperationExample['request'] }> {
  const sent = requestAsSent(example, options.ids, options.rewrite);
  const reply = await requestJson(options.baseUrl, op.method, examplePath(op, sent), { key: options.key, body: sent.body, headers: sent.headers ?? {} });
  if (reply.status === example.response.status) options.ids.learn(example.response.body, reply.body);
  return { ...reply, sent };
}

/**
 * The order the examples replay in: `listed` first (those that have an example), each other example
 * right after the operation its `after` names (or after the listed ones when that is not in the
 * order), the rest last; the unlisted ones in name order.
 */
export function replayOrder(listed: readonly string[], examples: ReadonlyMap<string, OperationExample>): string[] {
  const order = listed.filter((n) => examples.has(n));
  const rest = [...examples.keys()].filter((n) => !listed.includes(n)).sort();
  const placed = new Set<string>();
  // Placed in rounds, so an example may follow one that is placed by its own `after`.
  for (let progress = true; progress;) {
    progress = false;
    for (const name of rest.filter((n) => !placed.has(n) && examples.get(n)!.after)) {
      const at = order.lastIndexOf(examples.get(name)!.after!);
      if (at < 0) continue;
      // After the named one and any placed after it earlier (they keep name order).
      let end = at + 1;
      while (end < order.length && placed.has(order[end]) && examples.get(order[end])!.after === examples.get(name)!.after) end++;
      order.splice(end, 0, name);
      placed.add(name);
      progress = true;
    }
  }
  return [...order, ...rest.filter((n) => !placed.has(n))];
}
