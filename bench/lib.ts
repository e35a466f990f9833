// Shared pieces of the benchmarks: a load generator on its own thread, a bare node:http baseline,
// and a real service on a fresh database (SQLite file or a throw-away MariaDB database).

import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { Worker } from 'node:worker_threads';
import knexFactory from 'knex';
import Koa from 'koa';
import { pino } from 'pino';
import { applyBootstrap, type BootstrapResult } from '../src/bootstrap.js';
import { loadConfig } from '../src/config.js';
import { openDatabase, type Dialect } from '../src/db/connection.js';
import { migrateLatest } from '../src/db/migrate.js';
import { SchemaRegistry, loadSchemaFiles } from '../src/schemas/registry.js';
import { Service } from '../src/service.js';
import { startHttpServer, type RunningServer } from '../surfaces/http-server.js';

// ---------------------------------------------------------------------------------------------
// Reporting

/** One line of the results table. */
export interface ResultRow {
  benchmark: string;
  dialect: Dialect | '-';
  /** What was loaded, e.g. "bare" or "svc". */
  target: string;
  rps: number;
  p50: number;
  p99: number;
  /** Server main-thread CPU per request (µs); NaN when unknown. */
  cpuUsPerRequest: number;
  /** svc / bare throughput, on the svc row. */
  ratio?: number;
  /** Non-2xx answers, connection errors and timeouts; anything but 0 makes the figures suspect. */
  failures: number;
}

export interface BenchmarkOutput {
  rows: ResultRow[];
  /** Lines printed under the table: verdicts, skipped dialects. */
  notes: string[];
}

/** A benchmark module in bench/ exports `benchmark` of this shape; bench/run.ts finds and runs it. */
export interface Benchmark {
  name: string;
  /** Lower runs first (the GET /v1/brands baseline is 0). */
  order?: number;
  run(): Promise<BenchmarkOutput>;
}

/** The median of `values` (the mean of the middle two when their count is even). */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Progress goes to stderr, so stdout carries only the results table. */
export function progress(message: string): void {
  process.stderr.write(`[bench] ${message}\n`);
}

// ---------------------------------------------------------------------------------------------
// Load generation

export interface LoadOptions {
  connections: number;
  /** Measured seconds. */
  durationSec: number;
  /** Seconds of load thrown away before measuring. */
  warmupSec: number;
  /** Request method and body (default GET without a body). */
  method?: 'GET' | 'POST';
  body?: string;
}

export const defaultLoad: LoadOptions = { connections: 10, durationSec: 5, warmupSec: 1.5 };

export interface LoadResult {
  /** Mean requests per second over the measured period. */
  rps: number;
  /** Latency percentiles in milliseconds. */
  p50: number;
  p99: number;
  total: number;
  /**
   * CPU time of this process's main thread (the server under test) per completed request, in
   * microseconds, from /proc (Linux); NaN elsewhere. It moves less than req/s when other
   * processes compete for the cores, so it shows where a change helps even on a busy machine.
   */
  cpuUsPerRequest: number;
  non2xx: number;
  errors: number;
  timeouts: number;
}

/** Non-2xx answers, connection errors and timeouts of a load run; anything but 0 makes its figures suspect. */
export const failuresOf = (r: LoadResult): number => r.non2xx + r.errors + r.timeouts;

/** One results-table line from one load run. */
export function resultRow(benchmark: string, dialect: Dialect | '-', target: string, r: LoadResult, ratio?: number): ResultRow {
  return { benchmark, dialect, target, rps: r.rps, p50: r.p50, p99: r.p99, cpuUsPerRequest: r.cpuUsPerRequest, ratio, failures: failuresOf(r) };
}

/** Linux reports thread CPU times in USER_HZ ticks, which is 100 on every architecture Node runs on. */
const CLOCK_TICKS = 100;

/** CPU seconds (user + system) used so far by this process's main thread; NaN when /proc is absent. */
export const mainThreadCpuSeconds = (): number => threadCpuSeconds(`/proc/self/task/${process.pid}/stat`);

/** CPU seconds used so far by the thread that calls it (a worker thread's own, in a worker). */
export const thisThreadCpuSeconds = (): number => threadCpuSeconds('/proc/thread-self/stat');

function threadCpuSeconds(statFile: string): number {
  try {
    const stat = fs.readFileSync(statFile, 'utf8');
    // Fields after the command name (which may hold spaces) start at field 3; utime and stime are 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return NaN;
  }
}

/** The figures the load worker posts back, before the main thread adds its CPU time. */
export type WorkerLoadResult = Omit<LoadResult, 'cpuUsPerRequest'>;

/**
 * Loads `url` with autocannon on a worker thread (so the load generator never competes with the
 * server for the main event loop): a warm-up run that is discarded, then the measured run.
 */
export function loadTest(url: string, headers: Record<string, string>, options: LoadOptions = defaultLoad): Promise<LoadResult> {
  const target = new URL(url);
  if (target.hostname !== '127.0.0.1') throw new Error(`benchmarks only load 127.0.0.1; refusing ${url}`);
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./load-worker.js', import.meta.url), { workerData: { url, headers, ...options } });
    let settled = false;
    let cpuAtStart = NaN;
    worker.on('message', (message: { measuring: true } | { result: WorkerLoadResult }) => {
      if ('measuring' in message) {
        cpuAtStart = mainThreadCpuSeconds();
        return;
      }
      const cpu = mainThreadCpuSeconds() - cpuAtStart;
      const { result } = message;
      settled = true;
      resolve({ ...result, cpuUsPerRequest: result.total > 0 ? (cpu * 1e6) / result.total : NaN });
    });
    worker.once('error', (err) => {
      settled = true;
      reject(err);
    });
    worker.once('exit', (code) => {
      if (!settled) reject(new Error(`load worker exited with code ${code} before reporting`));
    });
  });
}

// ---------------------------------------------------------------------------------------------
// Bare baseline

export interface BareServer {
  url: string;
  close(): Promise<void>;
}

/** A node:http server answering every request with `body` and `contentType`, on a free 127.0.0.1 port. */
export async function startBareServer(body: Buffer, contentType: string): Promise<BareServer> {
  return listen(
    http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': contentType, 'content-length': body.length });
      res.end(body);
    }),
  );
}

/**
 * The floor of any Koa service on this machine: Koa answering `body` with the headers the
 * contract puts on every authenticated answer (a fresh Service-Request-Id, the three RateLimit-*
 * headers), and nothing else: no routing, authentication, rate limiting, validation or operation.
 * Loading it beside the bare server shows how much of the gap is the chosen framework itself.
 * `work`, when given, runs before each answer (the stage benchmark adds pieces of the service).
 */
export async function startKoaFloorServer(
  body: Buffer,
  contentType: string,
  work?: (authorization: string | undefined, requestId: string) => Promise<unknown>,
): Promise<BareServer> {
  const app = new Koa();
  let remaining = 1_000_000;
  app.use(async (ctx) => {
    const requestId = `req_${crypto.randomUUID().replace(/-/g, '')}`;
    if (work) await work(ctx.get('authorization') || undefined, requestId);
    ctx.set('Service-Request-Id', requestId);
    ctx.set('RateLimit-Limit', '1000000');
    ctx.set('RateLimit-Remaining', String((remaining = remaining > 0 ? remaining - 1 : 1_000_000)));
    ctx.set('RateLimit-Reset', '60');
    ctx.set('Content-Type', contentType);
    ctx.body = body;
  });
  return listen(http.createServer(app.callback()));
}

async function listen(server: http.Server): Promise<BareServer> {
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

// ---------------------------------------------------------------------------------------------
// Databases

const MYSQL_SERVER = process.env.BENCH_MYSQL_URL || 'mysql://root@127.0.0.1:3306';

export interface BenchDatabase {
  url: string;
  dialect: Dialect;
  drop(): Promise<void>;
}

function mysqlAdmin(server: URL) {
  return knexFactory({
    client: 'mysql2',
    connection: {
      host: server.hostname,
      port: Number(server.port || 3306),
      user: decodeURIComponent(server.username),
      password: decodeURIComponent(server.password),
      connectTimeout: 3_000,
    },
    pool: { min: 0, max: 1 },
    acquireConnectionTimeout: 4_000,
    // The reason a server does not answer is reported once, in the skip note; knex would also log it.
    log: { warn() {}, error() {}, deprecate() {}, debug() {} },
  });
}

/** Null when the MariaDB/MySQL server answers `select 1`; otherwise why not. */
export async function mysqlUnavailable(): Promise<string | null> {
  const admin = mysqlAdmin(new URL(MYSQL_SERVER));
  try {
    await admin.raw('select 1');
    return null;
  } catch (err) {
    return (err as Error).message || String(err);
  } finally {
    await admin.destroy().catch(() => {});
  }
}

/** The server the MariaDB runs use, without credentials, for messages. */
export function mysqlServerLabel(): string {
  const u = new URL(MYSQL_SERVER);
  return `${u.protocol}//${u.hostname}:${u.port || 3306}`;
}

// Databases not yet dropped, so an interrupted run (Ctrl-C) still cleans up after itself.
const openDatabases = new Set<BenchDatabase>();
let interruptHandlerInstalled = false;

function track(db: BenchDatabase): BenchDatabase {
  if (!interruptHandlerInstalled) {
    interruptHandlerInstalled = true;
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      process.once(signal, () => {
        progress(`${signal}: dropping ${openDatabases.size} benchmark database(s)`);
        void Promise.allSettled([...openDatabases].map((d) => d.drop())).then(() => process.exit(130));
      });
    }
  }
  let dropped = false;
  const tracked: BenchDatabase = {
    ...db,
    drop: async () => {
      if (dropped) return;
      dropped = true;
      openDatabases.delete(tracked);
      await db.drop();
    },
  };
  openDatabases.add(tracked);
  return tracked;
}

/** A fresh SQLite file in a temp folder, or a fresh `svc_bench_<random>` MariaDB database. */
export async function createBenchDatabase(dialect: Dialect): Promise<BenchDatabase> {
  const suffix = crypto.randomBytes(5).toString('hex');
  if (dialect === 'sqlite') {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-'));
    return track({ url: `sqlite:${path.join(dir, 'svc.sqlite')}`, dialect, drop: async () => fs.rmSync(dir, { recursive: true, force: true }) });
  }
  const server = new URL(MYSQL_SERVER);
  const name = `svc_bench_${suffix}`;
  const admin = mysqlAdmin(server);
  try {
    await admin.raw(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
  } finally {
    await admin.destroy();
  }
  const url = new URL(server.href);
  url.pathname = `/${name}`;
  return track({
    url: url.href,
    dialect,
    drop: async () => {
      const a = mysqlAdmin(server);
      try {
        await a.raw(`DROP DATABASE IF EXISTS \`${name}\``);
      } finally {
        await a.destroy();
      }
    },
  });
}

// ---------------------------------------------------------------------------------------------
// The service under test

/** One agency organization with a handful of brands and a read key on both surfaces. */
export const benchWorld = {
  organizations: [
    {
      ref: 'bench',
      name: 'Bench Agency',
      plan: 'agency',
      subscriptionStatus: 'active',
      brands: [
        {
          ref: 'b1',
          name: 'Shoes Co',
          adAccounts: [{ platform: 'meta', accountId: 'act_1001', name: 'Shoes US', timezone: 'America/New_York', currency: 'USD', active: true }],
        },
        { ref: 'b2', name: 'Hats Co', adAccounts: [] },
        {
          ref: 'b3',
          name: 'Multi Co',
          adAccounts: [
            { platform: 'meta', accountId: 'act_2001', name: 'Multi Meta', timezone: 'UTC', currency: 'USD', active: true },
            { platform: 'tiktok', accountId: 'biz_2002', name: 'Multi TikTok', timezone: 'UTC', currency: 'USD', active: false },
          ],
        },
        {
          ref: 'b4',
          name: 'Socks Co',
          adAccounts: [{ platform: 'tiktok', accountId: 'biz_3001', name: 'Socks TikTok', timezone: 'Europe/Paris', currency: 'EUR', active: true }],
        },
        {
          ref: 'b5',
          name: 'Gloves Co',
          adAccounts: [{ platform: 'meta', accountId: 'act_4001', name: 'Gloves EU', timezone: 'Europe/Berlin', currency: 'EUR', active: true }],
        },
      ],
      apiKeys: [{ ref: 'reader', name: 'Bench reader', scopes: ['read'], surfaces: { api: true, mcp: true }, brands: null }],
    },
  ],
};

/** Environment for the service under test: limits out of the way, no logs. */
export const benchEnv: Record<string, string> = {
  PORT: '0',
  HOST: '127.0.0.1',
  LOG_LEVEL: 'silent',
  RATE_LIMIT_PER_MINUTE: '10000000',
  RATE_LIMIT_CONCURRENCY: '100000',
};

export interface BenchService {
  dialect: Dialect;
  url: string;
  /** The API key secret of the bootstrapped reader key. */
  key: string;
  seed: BootstrapResult;
  service: Service;
  server: RunningServer;
  close(): Promise<void>;
}

/**
 * Migrates and bootstraps a fresh database, then starts the real server in this process on a
 * free 127.0.0.1 port. `close` stops the server, the service (and its delivery thread) and drops
 * the database.
 */
export async function startBenchService(
  dialect: Dialect,
  options: { env?: Record<string, string>; bootstrap?: unknown; deliveryThread?: { probe?: string } } = {},
): Promise<BenchService> {
  const db = await createBenchDatabase(dialect);
  try {
    const setup = openDatabase(db.url);
    let seed: BootstrapResult;
    try {
      await migrateLatest(setup.knex);
      seed = await applyBootstrap(setup.knex, new SchemaRegistry(loadSchemaFiles()), options.bootstrap ?? benchWorld);
    } finally {
      await setup.knex.destroy();
    }
    const env = { ...benchEnv, DATABASE_URL: db.url, ...(options.env ?? {}) };
    const config = loadConfig(env);
    // With deliveryThread, startJobs starts the delivery thread as `svc-server serve` does (its configuration from the same variables).
    const deliveryThread = options.deliveryThread ? { env, probe: options.deliveryThread.probe } : undefined;
    const service = await Service.open({ config, log: pino({ level: config.logLevel }), deliveryThread });
    let server: RunningServer;
    try {
      server = await startHttpServer(service, 0, '127.0.0.1');
    } catch (err) {
      await service.close();
      throw err;
    }
    const firstOrg = Object.values(seed.organizations)[0];
    const key = Object.values(firstOrg.apiKeys)[0].secret;
    return {
      dialect,
      url: server.url,
      key,
      seed,
      service,
      server,
      close: async () => {
        try {
          await server.close(1_000);
          await service.close();
        } finally {
          await db.drop();
        }
      },
    };
  } catch (err) {
    await db.drop().catch(() => {});
    throw err;
  }
}

/** The dialects to run, with a note for each one skipped. */
export async function availableDialects(): Promise<{ dialects: Dialect[]; notes: string[] }> {
  const dialects: Dialect[] = ['sqlite'];
  const notes: string[] = [];
  const why = await mysqlUnavailable();
  if (why === null) dialects.push('mysql');
  else notes.push(`MariaDB skipped: ${mysqlServerLabel()} does not answer (${why}).`);
  return { dialects, notes };
}

export const dialectLabel = (d: Dialect | '-'): string => (d === 'mysql' ? 'mariadb' : d);
