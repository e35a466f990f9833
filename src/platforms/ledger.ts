// The ledger of what an adapter sends: one table per platform (meta/ledger.ts, tiktok/ledger.ts) of
// every parameter, where it goes, its source and the versions that take it. The ledger test records
// every request the adapters send to the fakes during publishes and checks each parameter here: one the
// table does not list, or one the called version no longer takes, is a problem (docs/platforms.md,
// "What we send, version by version").

/** One parameter an adapter sends. */
export interface LedgerEntry {
  /** The parameter's path: nested keys by dots, list items by `[]` (`targeting.geo_locations.countries`). */
  field: string;
  /**
   * Where it goes: `METHOD /path` with ids as `{id}` (`POST /act_{id}/adsets`), each optionally followed by
   * ` > key` when the field is nested under that parameter there (`POST /act_{id}/ads > creative`); `*`:
   * every endpoint.
   */
  where: readonly string[];
  /** What the platform's own pages, changelogs and SDKs say of it (or "not found"). */
  source: string;
  /** The first version that takes it, when later than every version the service knows ("v23.0"). */
  added?: string;
  /** The first version that no longer takes it. */
  removed?: string;
}

/** One request as a fake recorded it: method, path below the version, parameters as sent. */
export interface SentRequest {
  method: string;
  path: string;
  params: Record<string, unknown>;
}

/** A parameter value as JSON when it is a JSON object or list sent as text (Graph form parameters), else itself. */
function parsed(value: unknown): unknown {
  if (typeof value !== 'string' || !/^[[{]/.test(value)) return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

/** The leaf paths of a parameter set: objects by dots, lists of objects by `[]`; a list of scalars is a leaf. */
export function paramPaths(params: Record<string, unknown>): string[] {
  const out = new Set<string>();
  const walk = (value: unknown, at: string): void => {
    const v = parsed(value);
    if (Array.isArray(v) && v.some((x) => x && typeof x === 'object')) {
      for (const item of v) walk(item, `${at}[]`);
    } else if (v && typeof v === 'object' && !Array.isArray(v) && !Buffer.isBuffer(v) && Object.keys(v).length) {
      for (const [k, x] of Object.entries(v)) walk(x, at ? `${at}.${k}` : k);
    } else out.add(at);
  };
  for (const [k, v] of Object.entries(params)) walk(v, k);
  return [...out];
}

/** Ids in a path as `{id}` (`/act_1001/ads` → `/act_{id}/ads`, `/120210000001` → `/{id}`). */
export function endpointOf(method: string, path: string): string {
  const normal = path
    .split('/')
    .map((part) => part.replace(/^act_\d+$/, 'act_{id}').replace(/^\d+(_\d+)?$/, '{id}'))
    .join('/');
  return `${method.toUpperCase()} ${normal}`;
}

const number = (version: string): number => Number(/^v?(\d+(?:\.\d+)?)/.exec(version)?.[1] ?? NaN);

/** The ledger entry of `path` sent to `endpoint`, or undefined. */
export function entryOf(ledger: readonly LedgerEntry[], endpoint: string, path: string): LedgerEntry | undefined {
  return ledger.find((e) =>
    e.where.some((w) => {
      const [at, under] = w.split(' > ');
      return (at === '*' || at === endpoint) && path === (under ? `${under}.${e.field}` : e.field);
    }),
  );
}

/**
 * What `requests` send that `ledger` does not allow for `version`: a parameter it does not list at its
 * endpoint, or one it marks added after or removed by that version. One sentence per problem; empty when
 * every parameter is the table's.
 */
export function ledgerProblems(ledger: readonly LedgerEntry[], requests: readonly SentRequest[], version: string): string[] {
  const problems = new Set<string>();
  const called = number(version);
  for (const r of requests) {
    const endpoint = endpointOf(r.method, r.path);
    for (const path of paramPaths(r.params)) {
      const entry = entryOf(ledger, endpoint, path);
      if (!entry) problems.add(`${endpoint}: ${path} is not in the ledger`);
      else if (entry.removed && called >= number(entry.removed)) problems.add(`${endpoint}: ${path} was removed in ${entry.removed} (called ${version})`);
      else if (entry.added && called < number(entry.added)) problems.add(`${endpoint}: ${path} is taken from ${entry.added} only (called ${version})`);
    }
  }
  return [...problems];
}
