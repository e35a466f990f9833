// Start-up and the command-line client, each as a fresh node process, beside the floor of any node
// program on this machine:
//
// - `svc-server serve` on a fresh SQLite file (migrations included, as the first `npm start` does)
//   until GET /healthz answers 200, against a bare node:http server spawned and polled the same way;
//   also `serve --demo` (npm start itself) and `serve` on a database already migrated (a restart);
// - `svc-server serve` on MariaDB (when it answers): a database already migrated (a restart, the
//   target row: a server starts many times on one database) and a fresh one, whose wall time is mostly
//   MariaDB's own DDL (InnoDB creates each table with its files; the server's CPU stays that of a restart);
// - `svc list-brands` against a running server until it exits, against `node -e 0`.
//
// Medians of BENCH_STARTUP_RUNS runs (default 7), the two sides interleaved so that load from other
// processes falls on both. Targets: start-up at most 10x bare, `svc list-brands` at most 3x `node -e 0`.
// Beside the wall time, the CPU time the child used (Linux): a server's at its first 200 from
// /proc/<pid>/stat, a command's from process.cpuUsage() at its exit (a preload writes it to fd 3).
// On a machine shared with other work the CPU figures move much less than the wall times.

import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { projectPath } from '../src/paths.js';
import { availableDialects, createBenchDatabase, median, progress, type Benchmark, type BenchmarkOutput } from './lib.js';

const RUNS = Math.max(1, Number(process.env.BENCH_STARTUP_RUNS) || 7);
const POLL_MS = 5;
const GIVE_UP_MS = 60_000;
const TARGET_STARTUP = 5;
const TARGET_CLI = 3;

/** Preloaded into one-shot commands: their CPU time (user + system, microseconds) written to fd 3 at exit. */
const CPU_AT_EXIT = `data:text/javascript,import { writeSync } from 'node:fs'; process.on('exit', () => { const u = process.cpuUsage(); try { writeSync(3, String(u.user + u.system)); } catch {} });`;

/** Linux reports process CPU times in USER_HZ ticks, 100 a second. */
const CLOCK_TICKS = 100;

/** CPU milliseconds (user + system, every thread) a running process used so far; NaN without /proc. */
function processCpuMs(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS) * 1000;
  } catch {
    return NaN;
  }
}

const SERVER_BIN = projectPath('dist', 'surfaces', 'cli', 'svc-server.js');
const SVC_BIN = projectPath('dist', 'surfaces', 'cli', 'svc.js');

/** The floor: node:http answering 200 on every path, nothing loaded. */
const BARE_SERVER = `require('node:http').createServer((q, s) => { s.writeHead(200, { 'content-type': 'application/json' }); s.end('{"status":"ok"}'); }).listen(Number(process.env.PORT), '127.0.0.1');`;

// Variables the service reads (src/config.ts) that the shell running the bench may export: the child sees only ours.
const SERVICE_ENV =
  /^(PORT|HOST|DATABASE_URL|BASE_URL|MCP_URL|REDIS_URL|LOG_LEVEL|JOBS|DELIVERY_THREADS?|CREATIVES_DIR|SVC_.*|XDG_CONFIG_HOME|PLATFORM_MODE|TOKEN_ENCRYPTION_KEY|METRICS_TOKEN|OTEL_.*|SHUTDOWN_GRACE_MS)$/;

function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!SERVICE_ENV.test(k)) env[k] = v;
  return { ...env, ...extra };
}

const ms = (ns: bigint): number => Number(ns) / 1e6;

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The status of one GET, or 0 when nothing answers yet. */
function statusOf(url: string): Promise<number> {
  return new Promise((resolve) => {
    const req = http.get(url, { agent: false, timeout: 1_000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', () => resolve(0));
    req.on('timeout', () => req.destroy());
  });
}

interface Started {
  child: ChildProcess;
  /** Milliseconds from spawn to the first 200 of /healthz. */
  elapsedMs: number;
  /** Milliseconds from spawn to the REST surface's first answer (GET /v1/brands without a key: 401), when asked for. */
  restMs: number;
  /** CPU milliseconds the process had used by then. */
  cpuMs: number;
  stdout: () => string;
  stop(): Promise<void>;
}

/**
 * Spawns `node args`, polls GET /healthz on `port` every few ms and answers at the first 200; with
 * `rest`, then sends GET /v1/brands (no key) and notes when the REST surface first answers (401).
 */
async function startUntilHealthy(args: string[], port: number, env: Record<string, string>, rest = false): Promise<Started> {
  const t0 = process.hrtime.bigint();
  const child = spawn(process.execPath, args, { cwd: projectPath(), env: childEnv({ ...env, PORT: String(port) }), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  let dead = false;
  void exited.then(() => (dead = true));
  const stop = async () => {
    if (!dead) child.kill('SIGTERM');
    await exited;
  };
  for (;;) {
    if ((await statusOf(`http://127.0.0.1:${port}/healthz`)) === 200) {
      const cpuMs = processCpuMs(child.pid!);
      const elapsedMs = ms(process.hrtime.bigint() - t0);
      const restStatus = rest ? await statusOf(`http://127.0.0.1:${port}/v1/brands`) : 0;
      if (rest && restStatus !== 401) throw new Error(`GET /v1/brands without a key answered ${restStatus}, not 401`);
      return { child, elapsedMs, restMs: rest ? ms(process.hrtime.bigint() - t0) : NaN, cpuMs, stdout: () => stdout, stop };
    }
    if (dead || ms(process.hrtime.bigint() - t0) > GIVE_UP_MS) {
      await stop();
      throw new Error(`${args.join(' ')} never answered /healthz: ${stderr.slice(-800)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

interface Timed {
  wallMs: number;
  cpuMs: number;
  /** To the REST surface's first answer (fresh SQLite runs only). */
  restMs?: number;
}

/** Runs `node args` to its end; answers its wall and CPU time in milliseconds (a non-zero exit throws). */
async function timeRun(args: string[], env: Record<string, string>): Promise<Timed> {
  const t0 = process.hrtime.bigint();
  const child = spawn(process.execPath, ['--import', CPU_AT_EXIT, ...args], {
    cwd: os.tmpdir(),
    env: childEnv(env),
    stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  let cpu = '';
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  (child.stdio[3] as NodeJS.ReadableStream).setEncoding('utf8').on('data', (c: string) => (cpu += c));
  const code = await new Promise<number | null>((resolve) => child.once('close', (c) => resolve(c)));
  const wallMs = ms(process.hrtime.bigint() - t0);
  if (code !== 0) throw new Error(`node ${args.join(' ')} exited ${code}: ${stderr.slice(-800)}`);
  return { wallMs, cpuMs: cpu ? Number(cpu) / 1000 : NaN };
}

function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-startup-'));
}

function serverEnv(dir: string, port: number, databaseUrl?: string): Record<string, string> {
  return {
    HOST: '127.0.0.1',
    DATABASE_URL: databaseUrl ?? `sqlite:${path.join(dir, 'svc.sqlite')}`,
    BASE_URL: `http://localhost:${port}`,
    CREATIVES_DIR: path.join(dir, 'creatives'),
    LOG_LEVEL: 'warn',
  };
}

/** One server start-up on the database in `dir` (created on first use), timed to the first 200 of /healthz. */
async function timeServe(extraArgs: string[], dir: string, databaseUrl?: string, extraEnv: Record<string, string> = {}, rest = false): Promise<Timed> {
  const port = await freePort();
  const started = await startUntilHealthy([SERVER_BIN, 'serve', ...extraArgs], port, { ...serverEnv(dir, port, databaseUrl), ...extraEnv }, rest);
  await started.stop();
  return { wallMs: started.elapsedMs, cpuMs: started.cpuMs, restMs: started.restMs };
}

async function timeBare(): Promise<Timed> {
  const port = await freePort();
  const started = await startUntilHealthy(['-e', BARE_SERVER], port, {});
  await started.stop();
  return { wallMs: started.elapsedMs, cpuMs: started.cpuMs };
}

const verdict = (ratio: number, target: number) => `target <= ${target}x: ${ratio <= target ? 'MET' : 'NOT MET'}`;
const fmt = (n: number) => `${n.toFixed(0)} ms`;

export const benchmark: Benchmark = {
  name: 'start-up and svc',
  order: 30,
  async run(): Promise<BenchmarkOutput> {
    const host = `${os.cpus().length} cores, node ${process.version}, load ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`;
    const bare: Timed[] = [];
    const fresh: Timed[] = [];
    const demo: Timed[] = [];
    const restart: Timed[] = [];
    const metricsOn: Timed[] = [];
    const mariadbFresh: Timed[] = [];
    const mariadbRestart: Timed[] = [];
    const dirs: string[] = [];
    const { dialects, notes: skipped } = await availableDialects();
    try {
      for (let i = 0; i < RUNS; i++) {
        progress(`start-up run ${i + 1} of ${RUNS}`);
        bare.push(await timeBare());
        const dir = tempDir();
        dirs.push(dir);
        fresh.push(await timeServe([], dir, undefined, {}, true));
        // The same database again: migrations already applied (a restart).
        restart.push(await timeServe([], dir));
        // The same restart with /metrics on (prom-client loaded, the instruments built) and tracing off.
        metricsOn.push(await timeServe([], dir, undefined, { METRICS_TOKEN: 'bench-metrics-token' }));
        const demoDir = tempDir();
        dirs.push(demoDir);
        demo.push(await timeServe(['--demo'], demoDir));
        if (dialects.includes('mysql')) {
          // A fresh MariaDB database: the server creates its tables at start, as on SQLite.
          const db = await createBenchDatabase('mysql');
          try {
            mariadbFresh.push(await timeServe([], dir, db.url));
            mariadbRestart.push(await timeServe([], dir, db.url));
          } finally {
            await db.drop();
          }
        }
      }

      // The client: one GET through `svc list-brands` against a running demo server.
      const dir = tempDir();
      dirs.push(dir);
      const port = await freePort();
      const server = await startUntilHealthy([SERVER_BIN, 'serve', '--demo'], port, serverEnv(dir, port));
      const nodeOnly: Timed[] = [];
      const cli: Timed[] = [];
      const help: Timed[] = [];
      try {
        const key = /API key:\s+(\S+)/.exec(server.stdout())?.[1];
        if (!key) throw new Error(`serve --demo printed no API key: ${server.stdout().slice(0, 500)}`);
        const env = { SVC_BASE_URL: `http://127.0.0.1:${port}`, SVC_API_KEY: key, XDG_CONFIG_HOME: path.join(dir, 'config') };
        for (let i = 0; i < RUNS; i++) {
          progress(`svc run ${i + 1} of ${RUNS}`);
          nodeOnly.push(await timeRun(['-e', '0'], {}));
          cli.push(await timeRun([SVC_BIN, 'list-brands'], env));
          help.push(await timeRun([SVC_BIN, 'list-brands', '--help'], env));
        }
      } finally {
        await server.stop();
      }

      const wall = (t: Timed[]) => median(t.map((x) => x.wallMs));
      const cpu = (t: Timed[]) => median(t.map((x) => x.cpuMs));
      const row = (what: string, t: Timed[], base: Timed[], target?: number): string => {
        const r = wall(t) / wall(base);
        const c = cpu(t) / cpu(base);
        const cells = [
          what.padEnd(40),
          fmt(wall(t)).padStart(9),
          `${r.toFixed(1)}x`.padStart(7),
          fmt(cpu(t)).padStart(9),
          Number.isFinite(c) ? `${c.toFixed(1)}x`.padStart(7) : '-'.padStart(7),
        ];
        return cells.join(' ') + (t === base ? '  (baseline)' : target ? `  ${verdict(r, target)}` : '');
      };
      const lines = [
        `start-up and svc (median of ${RUNS}; ${host}):`,
        `${'what'.padEnd(40)} ${'wall'.padStart(9)} ${'ratio'.padStart(7)} ${'cpu'.padStart(9)} ${'ratio'.padStart(7)}`,
        row('bare node:http server to 200', bare, bare),
        row('svc-server serve, fresh SQLite', fresh, bare, TARGET_STARTUP),
        row('svc-server serve --demo, fresh SQLite', demo, bare),
        row('svc-server serve, migrated SQLite', restart, bare),
        row('  the same, METRICS_TOKEN set', metricsOn, bare),
        ...(mariadbFresh.length
          ? [row('svc-server serve, fresh MariaDB (DDL)', mariadbFresh, bare), row('svc-server serve, migrated MariaDB', mariadbRestart, bare, TARGET_STARTUP)]
          : []),
        row('node -e 0', nodeOnly, nodeOnly),
        row('svc list-brands (one GET)', cli, nodeOnly, TARGET_CLI),
        row('svc list-brands --help (no request)', help, nodeOnly),
        `startup sqlite: serve ${fmt(wall(fresh))} bare ${fmt(wall(bare))} ratio ${(wall(fresh) / wall(bare)).toFixed(1)} (${verdict(wall(fresh) / wall(bare), TARGET_STARTUP)}); cpu ${fmt(cpu(fresh))} bare ${fmt(cpu(bare))} ratio ${(cpu(fresh) / cpu(bare)).toFixed(1)}; ` +
          `the REST surface's first answer (GET /v1/brands without a key, sent after the first 200 of /healthz) ${fmt(median(fresh.map((x) => x.restMs ?? NaN)))} after the spawn ` +
          `(GET /healthz is answered before the REST surface has loaded; it loads on the first request or once the jobs run). Before issue 55 (measured at its start on the 2-core VM): 489 ms against 79 ms bare on a quiet host, 6.2x`,
        ...(mariadbFresh.length
          ? [
              `startup mariadb: serve ${fmt(wall(mariadbRestart))} bare ${fmt(wall(bare))} ratio ${(wall(mariadbRestart) / wall(bare)).toFixed(1)} (${verdict(wall(mariadbRestart) / wall(bare), TARGET_STARTUP)}); cpu ${fmt(cpu(mariadbRestart))} bare ${fmt(cpu(bare))} ratio ${(cpu(mariadbRestart) / cpu(bare)).toFixed(1)}; ` +
                `a fresh database ${fmt(wall(mariadbFresh))} (cpu ${fmt(cpu(mariadbFresh))}): the wait is MariaDB creating the tables, once per database`,
            ]
          : skipped),
        `metrics on (METRICS_TOKEN set, tracing off), migrated SQLite: serve ${fmt(wall(metricsOn))} vs ${fmt(wall(restart))} off (${(((wall(metricsOn) - wall(restart)) / wall(restart)) * 100).toFixed(0)}%); cpu ${fmt(cpu(metricsOn))} vs ${fmt(cpu(restart))} (${(((cpu(metricsOn) - cpu(restart)) / cpu(restart)) * 100).toFixed(0)}%)`,
        `svc list-brands: ${fmt(wall(cli))} node -e 0 ${fmt(wall(nodeOnly))} ratio ${(wall(cli) / wall(nodeOnly)).toFixed(1)} (${verdict(wall(cli) / wall(nodeOnly), TARGET_CLI)}); cpu ${fmt(cpu(cli))} node -e 0 ${fmt(cpu(nodeOnly))} ratio ${(cpu(cli) / cpu(nodeOnly)).toFixed(1)}`,
      ];
      return { rows: [], notes: [lines.join('\n')] };
    } finally {
      for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
    }
  },
};
