// GET /v1/brands under load, against a bare node:http server answering the same JSON in the same
// run: throughput ratio svc/bare and p50/p99 latency, on SQLite and (when it answers) MariaDB.
// Target: ratio >= 0.5 on MariaDB.
//
// Other benchmarks reuse `measureBrands` (one load run) or `compareBrandsWithBare` (bare baseline
// then the service) to print their figures beside these.

import type { Dialect } from '../src/db/connection.js';
import {
  availableDialects,
  defaultLoad,
  dialectLabel,
  failuresOf,
  loadTest,
  progress,
  resultRow,
  startBareServer,
  startBenchService,
  startKoaFloorServer,
  type BareServer,
  type Benchmark,
  type BenchmarkOutput,
  type LoadOptions,
  type LoadResult,
  type ResultRow,
} from './lib.js';

export const BRANDS_PATH = '/v1/brands';
export const MARIADB_RATIO_TARGET = 0.5;

export interface BrandsComparison {
  bare: LoadResult;
  /** Koa with the contract's headers and nothing else (only when asked for). */
  koa: LoadResult | null;
  svc: LoadResult;
  /** svc requests/s divided by bare requests/s. */
  ratio: number;
  bodyBytes: number;
}

/** The answer of GET /v1/brands, as bytes and content-type; throws unless it is a 200. */
export async function fetchBrands(baseUrl: string, key: string): Promise<{ body: Buffer; contentType: string }> {
  const res = await fetch(baseUrl + BRANDS_PATH, { headers: { authorization: `Bearer ${key}` } });
  const body = Buffer.from(await res.arrayBuffer());
  if (res.status !== 200) throw new Error(`GET ${BRANDS_PATH} answered ${res.status}: ${body.toString('utf8').slice(0, 300)}`);
  return { body, contentType: res.headers.get('content-type') ?? 'application/json; charset=utf-8' };
}

/** Loads GET /v1/brands of a running service with `key` (warm-up, then the measured run). */
export function measureBrands(baseUrl: string, key: string, options: LoadOptions = defaultLoad): Promise<LoadResult> {
  return loadTest(baseUrl + BRANDS_PATH, { authorization: `Bearer ${key}` }, options);
}

/**
 * Fetches the service's GET /v1/brands answer once, serves the same bytes from a bare node:http
 * server (and, with `withKoaFloor`, from Koa with the contract's headers and nothing else), loads
 * those first and then the service, with the same settings.
 */
export async function compareBrandsWithBare(
  baseUrl: string,
  key: string,
  options: LoadOptions = defaultLoad,
  label = '',
  withKoaFloor = false,
): Promise<BrandsComparison> {
  const { body, contentType } = await fetchBrands(baseUrl, key);
  const headers = { authorization: `Bearer ${key}` };
  const load = `${options.warmupSec}s warm-up + ${options.durationSec}s, ${options.connections} connections`;
  const loadServer = async (what: string, server: BareServer): Promise<LoadResult> => {
    try {
      progress(`${label}${what} (${body.length} B body): ${load}`);
      return await loadTest(server.url + BRANDS_PATH, headers, options);
    } finally {
      await server.close();
    }
  };
  const bare = await loadServer('bare node:http', await startBareServer(body, contentType));
  const koa = withKoaFloor ? await loadServer('Koa with the contract headers only', await startKoaFloorServer(body, contentType)) : null;
  progress(`${label}svc GET ${BRANDS_PATH}: ${load}`);
  const svc = await measureBrands(baseUrl, key, options);
  return { bare, koa, svc, ratio: bare.rps > 0 ? svc.rps / bare.rps : 0, bodyBytes: body.length };
}

/** Starts the service on `dialect`, compares it with the bare server, stops it and drops the database. */
export async function brandsOnDialect(dialect: Dialect, options: LoadOptions = defaultLoad): Promise<BrandsComparison> {
  const label = `brands/${dialectLabel(dialect)}: `;
  progress(`${label}migrating and bootstrapping a fresh database`);
  const svc = await startBenchService(dialect);
  try {
    progress(`${label}service listening on ${svc.url}`);
    return await compareBrandsWithBare(svc.url, svc.key, options, label, true);
  } finally {
    await svc.close();
  }
}

export const benchmark: Benchmark = {
  name: 'GET /v1/brands',
  order: 0,
  async run(): Promise<BenchmarkOutput> {
    const { dialects, notes } = await availableDialects();
    for (const n of notes) progress(n);
    const rows: ResultRow[] = [];
    for (const dialect of dialects) {
      const c = await brandsOnDialect(dialect);
      const row = (target: string, r: LoadResult, ratio?: number) => resultRow(this.name, dialect, target, r, ratio);
      rows.push(row('bare', c.bare));
      if (c.koa) rows.push(row('koa only', c.koa, c.bare.rps > 0 ? c.koa.rps / c.bare.rps : 0));
      rows.push(row('svc', c.svc, c.ratio));
      for (const [who, r] of [
        ['bare', c.bare],
        ['koa only', c.koa],
        ['svc', c.svc],
      ] as const) {
        if (!r) continue;
        if (failuresOf(r) > 0) {
          notes.push(
            `WARNING ${dialectLabel(dialect)} ${who}: ${r.non2xx} non-2xx, ${r.errors} errors, ${r.timeouts} timeouts out of ${r.total}; its figures are suspect.`,
          );
        }
      }
      if (c.koa && c.koa.rps > 0) {
        notes.push(
          `${dialectLabel(dialect)}: Koa answering the same bytes with the contract's headers and nothing else reaches ` +
            `${(c.koa.rps / c.bare.rps).toFixed(3)} of bare; the service reaches ${(c.svc.rps / c.koa.rps).toFixed(3)} of that.`,
        );
      }
      if (dialect === 'mysql') {
        const met = c.ratio >= MARIADB_RATIO_TARGET;
        notes.push(`MariaDB target (svc/bare >= ${MARIADB_RATIO_TARGET}): ${met ? 'MET' : 'NOT MET'} (ratio ${c.ratio.toFixed(3)})`);
      }
    }
    if (!dialects.includes('mysql')) notes.push(`MariaDB target (svc/bare >= ${MARIADB_RATIO_TARGET}): not measured (MariaDB skipped)`);
    return { rows, notes };
  },
};
