// Runs the compiled `svc-server` binary as child processes, the way operators and outside harnesses
// do: one-shot commands (migrate, bootstrap) and long-running servers that print their URL.
// Every child is tracked; `stopAllServers()` (call it in `after` hooks) leaves nothing running.

import { spawn, type ChildProcess } from 'node:child_process';
import { projectPath } from '../../src/paths.js';

/** The compiled server binary (package.json `bin.svc-server`). */
export const SERVER_BIN = projectPath('dist', 'surfaces', 'cli', 'svc-server.js');

// Variables the service reads (the README configuration table and src/config.ts): a child sees only the ones a
// test passes, never whatever the shell running the tests happens to export.
const SERVICE_ENV = [
  'PORT',
  'HOST',
  'DATABASE_URL',
  'BASE_URL',
  'MCP_URL',
  'PLATFORM_MODE',
  'REDIS_URL',
  'RATE_LIMIT_PER_MINUTE',
  'RATE_LIMIT_CONCURRENCY',
  'LOG_LEVEL',
  'REQUEST_TIMEOUT_MS',
  'KEY_CACHE_MS',
  'SVC_STRICT_OUTPUT',
  'METRICS_CACHE_SECONDS',
  'META_GRAPH_URL',
  'TIKTOK_API_URL',
  'WEBHOOKS_ENABLED',
  'WEBHOOK_ALLOW_PRIVATE',
  'JOBS',
  'JOB_LEASE_MS',
  'JOB_CONCURRENCY',
  'IDEMPOTENCY_LEASE_MS',
  'PUBLISH_DEADLINE_MS',
  'PUBLISH_MAX_RETRIES',
  'TOKEN_ENCRYPTION_KEY',
  'METRICS_TOKEN',
  'OTEL_EXPORTER_OTLP_ENDPOINT',
  'SHUTDOWN_GRACE_MS',
];

function childEnv(env: Record<string, string> = {}): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = { ...process.env };
  for (const name of SERVICE_ENV) delete base[name];
  return { ...base, ...env };
}

const live = new Set<ChildProcess>();

// Last resort: if the test process ends while a child still runs, take the child down with it.
process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

interface Spawned {
  child: ChildProcess;
  output: { stdout: string; stderr: string };
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function spawnServer(args: string[], env: Record<string, string> | undefined, input: string | undefined, cwd?: string): Spawned {
  // In the run's own folder (root-hooks.ts) unless told, so a default relative path (./data/...) never lands in the project.
  const child = spawn(process.execPath, [SERVER_BIN, ...args], {
    cwd: cwd ?? process.cwd(),
    env: childEnv(env),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  live.add(child);
  const output = { stdout: '', stderr: '' };
  child.stdout!.setEncoding('utf8');
  child.stderr!.setEncoding('utf8');
  child.stdout!.on('data', (chunk: string) => (output.stdout += chunk));
  child.stderr!.on('data', (chunk: string) => (output.stderr += chunk));
  // A child that exits before reading its stdin must not crash the test process with EPIPE.
  child.stdin!.on('error', () => {});
  child.stdin!.end(input ?? '');
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
    child.once('error', (err) => {
      live.delete(child);
      reject(err);
    });
    // 'close' fires after the exit and after stdout/stderr are drained, so the output is complete.
    child.once('close', (code, signal) => {
      live.delete(child);
      resolve({ code, signal });
    });
  });
  exited.catch(() => {});
  return { child, output, exited };
}

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  env?: Record<string, string>;
  /** Written to the child's standard input, which is then closed (closed empty when absent). */
  input?: string;
  timeoutMs?: number;
  /** The folder it runs in (default: the test run's own). */
  cwd?: string;
}

/** Runs `svc-server <args>` to completion and returns its exit code and whole output. */
export async function runSvcServer(args: string[], options: RunOptions = {}): Promise<RunResult> {
  const { child, output, exited } = spawnServer(args, options.env, options.input, options.cwd);
  const timeoutMs = options.timeoutMs ?? 15_000;
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`svc-server ${args.join(' ')} did not finish within ${timeoutMs} ms\nstdout:\n${output.stdout}\nstderr:\n${output.stderr}`));
    }, timeoutMs);
  });
  try {
    const { code, signal } = await Promise.race([exited, timedOut]);
    return { code, signal, stdout: output.stdout, stderr: output.stderr };
  } finally {
    clearTimeout(timer);
  }
}

const LISTENING = /listening on (http:\/\/[^\s"]+)/;

/** A running `svc-server serve` child. */
export class ServerProcess {
  private exitCode: number | null | undefined;

  constructor(
    private readonly spawned: Spawned,
    /** The URL from the `listening on http://HOST:PORT` line. */
    readonly url: string,
  ) {
    spawned.exited.then(({ code }) => (this.exitCode = code)).catch(() => {});
  }

  get pid(): number | undefined {
    return this.spawned.child.pid;
  }

  get stdout(): string {
    return this.spawned.output.stdout;
  }

  get stderr(): string {
    return this.spawned.output.stderr;
  }

  get running(): boolean {
    return this.exitCode === undefined;
  }

  /** Sends `signal` (SIGTERM by default) and resolves with the exit code; SIGKILLs and throws if it hangs. */
  async stop(signal: NodeJS.Signals = 'SIGTERM', timeoutMs = 15_000): Promise<number | null> {
    if (!this.running) return this.exitCode ?? null;
    this.spawned.child.kill(signal);
    let timer: NodeJS.Timeout | undefined;
    const hung = new Promise<'hung'>((resolve) => {
      timer = setTimeout(() => resolve('hung'), timeoutMs);
    });
    try {
      const outcome = await Promise.race([this.spawned.exited, hung]);
      if (outcome === 'hung') {
        this.spawned.child.kill('SIGKILL');
        await this.spawned.exited;
        throw new Error(`svc-server (pid ${this.pid}) did not exit within ${timeoutMs} ms of ${signal}`);
      }
      return outcome.code;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Waits for the child to exit on its own. */
  async exited(): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    return this.spawned.exited;
  }
}

export interface StartOptions {
  env?: Record<string, string>;
  timeoutMs?: number;
  /** The folder it runs in (default: the run's own); its relative defaults (./data/...) are read there. */
  cwd?: string;
}

/**
 * Starts `svc-server <args>` (default `serve`) with PORT=0 and HOST=127.0.0.1 unless `env` says
 * otherwise, and resolves once it prints its `listening on http://...` line.
 */
export async function startSvcServer(args: string[] = ['serve'], options: StartOptions = {}): Promise<ServerProcess> {
  const env = { PORT: '0', HOST: '127.0.0.1', ...(options.env ?? {}) };
  const spawned = spawnServer(args, env, undefined, options.cwd);
  const { child, output, exited } = spawned;
  const timeoutMs = options.timeoutMs ?? 20_000;
  const describe = () => `stdout:\n${output.stdout}\nstderr:\n${output.stderr}`;
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`svc-server ${args.join(' ')} printed no listening line within ${timeoutMs} ms\n${describe()}`)),
        timeoutMs,
      );
      const check = () => {
        const match = LISTENING.exec(output.stdout);
        if (match) {
          clearTimeout(timer);
          child.stdout!.off('data', check);
          resolve(match[1]);
        }
      };
      child.stdout!.on('data', check);
      check();
      exited.then(
        ({ code, signal }) => {
          clearTimeout(timer);
          reject(new Error(`svc-server ${args.join(' ')} exited (code ${code}, signal ${signal}) before listening\n${describe()}`));
        },
        (err) => {
          clearTimeout(timer);
          reject(err);
        },
      );
    });
    return new ServerProcess(spawned, url);
  } catch (err) {
    child.kill('SIGKILL');
    await exited.catch(() => {});
    throw err;
  }
}

/** Kills every child still running (SIGKILL, by pid) and waits until they are gone. */
export async function stopAllServers(): Promise<void> {
  const children = [...live];
  await Promise.all(
    children.map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) {
            live.delete(child);
            return resolve();
          }
          child.once('close', () => resolve());
          child.kill('SIGKILL');
        }),
    ),
  );
}

/** Number of children started by this helper that are still running (tests can assert 0). */
export function runningChildren(): number {
  return live.size;
}
