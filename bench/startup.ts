// Start-up and the command-line client, each as a fresh node process, beside the floor of any node
// program on this machine:
//
// - `svc-server serve` on a fresh SQLite file (migrations included, as the first `npm start` does)
//   until GET /healthz answers 200, against a bare node:http server spawned and polled the same way;
//   also `serve --demo` (npm start itself) and `serve` on a database already migrated (a restart);
// - `svc list-brands` against a running server until it exits, against `node -e 0`.
//
// Medians of BENCH_STARTUP_RUNS runs (default 7), the two sides interleaved so that load from other
// processes falls on both. Targets: start-up at most 10x bare, `svc list-brands` at most 3x `node -e 0`.

import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { projectPath } from '../src/paths.js';
import { progress, type Benchmark, type BenchmarkOutput } from './lib.js';

const RUNS = Math.max(1, Number(process.env.BENCH_STARTUP_RUNS) || 7);
const POLL_MS = 5;
const GIVE_UP_MS = 60_000;
const TARGET_STARTUP = 10;
const TARGET_CLI = 3;

const SERVER_BIN = projectPath('dist', 'surfaces', 'cli', 'svc-server.js');
const SVC_BIN = projectPath('dist', 'surfaces', 'cli', 'svc.js');

/** The floor: node:http answering 200 on every path, nothing loaded. */
const BARE_SERVER = `require('node:http').createServer((q, s) => { s.writeHead(200, { 'content-type': 'application/json' }); s.end('{"status":"ok"}'); }).listen(Number(process.env.PORT), '127.0.0.1');`;

// Variables the service reads (src/config.ts) that the shell running the bench may export: the child sees only ours.
const SERVICE_ENV =
  /^(PORT|HOST|DATABASE_URL|BASE_URL|MCP_URL|REDIS_URL|LOG_LEVEL|JOBS|CREATIVES_DIR|SVC_.*|XDG_CONFIG_HOME|PLATFORM_MODE|TOKEN_ENCRYPTION_KEY)$/;

function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!SERVICE_ENV.test(k)) env[k] = v;
  return { ...env, ...extra };
}

const median = (values: number[]): number => {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
};

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
  stdout: () => string;
  stop(): Promise<void>;
}

/** Spawns `node args`, polls GET /healthz on `port` every few ms and answers at the first 200. */
async function startUntilHealthy(args: string[], port: number, env: Record<string, string>): Promise<Started> {
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
    if ((await statusOf(`http://127.0.0.1:${port}/healthz`)) === 200) break;
    if (dead || ms(process.hrtime.bigint() - t0) > GIVE_UP_MS) {
      await stop();
      throw new Error(`${args.join(' ')} never answered /healthz: ${stderr.slice(-800)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  return { child, elapsedMs: ms(process.hrtime.bigint() - t0), stdout: () => stdout, stop };
}

/** Runs `node args` to its end; answers the wall time in milliseconds (a non-zero exit throws). */
async function timeRun(args: string[], env: Record<string, string>): Promise<number> {
  const t0 = process.hrtime.bigint();
  const child = spawn(process.execPath, args, { cwd: os.tmpdir(), env: childEnv(env), stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const code = await new Promise<number | null>((resolve) => child.once('close', (c) => resolve(c)));
  const elapsed = ms(process.hrtime.bigint() - t0);
  if (code !== 0) throw new Error(`node ${args.join(' ')} exited ${code}: ${stderr.slice(-800)}`);
  return elapsed;
}

function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-startup-'));
}

function serverEnv(dir: string, port: number): Record<string, string> {
  return {
    HOST: '127.0.0.1',
    DATABASE_URL: `sqlite:${path.join(dir, 'svc.sqlite')}`,
    BASE_URL: `http://localhost:${port}`,
    CREATIVES_DIR: path.join(dir, 'creatives'),
    LOG_LEVEL: 'warn',
  };
}

/** One server start-up on the database in `dir` (created on first use), timed to the first 200 of /healthz. */
async function timeServe(extraArgs: string[], dir: string): Promise<number> {
  const port = await freePort();
  const started = await startUntilHealthy([SERVER_BIN, 'serve', ...extraArgs], port, serverEnv(dir, port));
  await started.stop();
  return started.elapsedMs;
}

async function timeBare(): Promise<number> {
  const port = await freePort();
  const started = await startUntilHealthy(['-e', BARE_SERVER], port, {});
  await started.stop();
  return started.elapsedMs;
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
    const bare: number[] = [];
    const fresh: number[] = [];
    const demo: number[] = [];
    const restart: number[] = [];
    const dirs: string[] = [];
    try {
      for (let i = 0; i < RUNS; i++) {
        progress(`start-up run ${i + 1} of ${RUNS}`);
        bare.push(await timeBare());
        const dir = tempDir();
        dirs.push(dir);
        fresh.push(await timeServe([], dir));
        // The same database again: migrations already applied (a restart).
        restart.push(await timeServe([], dir));
        const demoDir = tempDir();
        dirs.push(demoDir);
        demo.push(await timeServe(['--demo'], demoDir));
      }

      // The client: one GET through `svc list-brands` against a running demo server.
      const dir = tempDir();
      dirs.push(dir);
      const port = await freePort();
      const server = await startUntilHealthy([SERVER_BIN, 'serve', '--demo'], port, serverEnv(dir, port));
      const nodeOnly: number[] = [];
      const cli: number[] = [];
      const help: number[] = [];
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

      const b = median(bare);
      const n = median(nodeOnly);
      const rows: Array<[string, number, number, string]> = [
        ['bare node:http server to 200', b, 1, '(baseline)'],
        ['svc-server serve, fresh SQLite', median(fresh), median(fresh) / b, verdict(median(fresh) / b, TARGET_STARTUP)],
        ['svc-server serve --demo, fresh SQLite', median(demo), median(demo) / b, ''],
        ['svc-server serve, migrated SQLite', median(restart), median(restart) / b, ''],
        ['node -e 0', n, 1, '(baseline)'],
        ['svc list-brands (one GET)', median(cli), median(cli) / n, verdict(median(cli) / n, TARGET_CLI)],
        ['svc list-brands --help (no request)', median(help), median(help) / n, ''],
      ];
      const lines = [
        `start-up and svc (median of ${RUNS}; ${host}):`,
        `${'what'.padEnd(40)} ${'median'.padStart(9)} ${'ratio'.padStart(7)}`,
        ...rows.map(([what, t, r, v]) => `${what.padEnd(40)} ${fmt(t).padStart(9)} ${`${r.toFixed(1)}x`.padStart(7)}${v ? `  ${v}` : ''}`),
        `startup sqlite: serve ${fmt(median(fresh))} bare ${fmt(b)} ratio ${(median(fresh) / b).toFixed(1)} (${verdict(median(fresh) / b, TARGET_STARTUP)})`,
        `svc list-brands: ${fmt(median(cli))} node -e 0 ${fmt(n)} ratio ${(median(cli) / n).toFixed(1)} (${verdict(median(cli) / n, TARGET_CLI)})`,
      ];
      return { rows: [], notes: [lines.join('\n')] };
    } finally {
      for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
    }
  },
};
