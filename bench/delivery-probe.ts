// The webhooks benchmark's probe in each delivery thread (loaded there through DeliveryThreadData.probe):
// while the max run goes on it counts the thread's SQL statements and query time by stage (Knex's
// and the prepared ones of src/db/prepared.ts), samples its CPU profile by component, and reads the
// thread's own CPU time, then answers the figures.

import fs from 'node:fs';
import { Session, type Profiler } from 'node:inspector/promises';
import { threadId } from 'node:worker_threads';
import type { Knex } from 'knex';
import type { Service } from '../src/service.js';
import { observePrepared } from '../src/db/prepared.js';
import { thisThreadCpuSeconds } from './lib.js';

export type Stage = 'claim' | 'fetch' | 'record' | 'other';

/** Statements and query time of the service's knex by stage while a run goes on (BEGIN and COMMIT count with their transaction). */
class StageClock {
  readonly ms: Record<Stage, number> = { claim: 0, fetch: 0, record: 0, other: 0 };
  readonly statements: Record<Stage, number> = { claim: 0, fetch: 0, record: 0, other: 0 };
  private readonly open = new Map<string, { stage: Stage; at: number }>();
  private readonly trxStage = new Map<string, Stage>();
  private readonly pendingBegins = new Map<string, number>();
  private readonly onQuery = (q: { sql: string; __knexQueryUid: string; __knexTxId?: string }) => {
    const sql = q.sql.toLowerCase();
    const tx = q.__knexTxId;
    if (tx && (sql.startsWith('begin') || sql.startsWith('start transaction'))) {
      this.pendingBegins.set(tx, (this.pendingBegins.get(tx) ?? 0) + 1);
      return;
    }
    if (tx && (sql.startsWith('commit') || sql.startsWith('rollback'))) {
      this.statements[this.trxStage.get(tx) ?? 'other']++;
      this.trxStage.delete(tx);
      return;
    }
    const stage = stageOf(sql);
    if (tx && !this.trxStage.has(tx)) {
      this.trxStage.set(tx, stage);
      this.statements[stage] += this.pendingBegins.get(tx) ?? 0;
      this.pendingBegins.delete(tx);
    }
    this.statements[stage]++;
    this.open.set(q.__knexQueryUid, { stage, at: performance.now() });
  };
  private readonly onEnd = (_r: unknown, q: { __knexQueryUid: string }) => {
    const o = this.open.get(q.__knexQueryUid);
    if (!o) return;
    this.open.delete(q.__knexQueryUid);
    this.ms[o.stage] += performance.now() - o.at;
  };

  /** A prepared statement (src/db/prepared.ts), told once it ran. */
  private readonly onPrepared = (text: string, ms: number, tx: string | undefined) => {
    const stage = stageOf(text.toLowerCase());
    if (tx && !this.trxStage.has(tx)) {
      this.trxStage.set(tx, stage);
      this.statements[stage] += this.pendingBegins.get(tx) ?? 0;
      this.pendingBegins.delete(tx);
    }
    this.statements[stage]++;
    this.ms[stage] += ms;
  };

  private readonly unobserve: () => void;

  constructor(private readonly knex: Knex) {
    knex.on('query', this.onQuery).on('query-response', this.onEnd).on('query-error', this.onEnd);
    this.unobserve = observePrepared({ after: this.onPrepared });
  }

  stop(): void {
    this.knex.off('query', this.onQuery).off('query-response', this.onEnd).off('query-error', this.onEnd);
    this.unobserve();
  }
}

function stageOf(sql: string): Stage {
  if (/[`" ](jobs|job_lanes)[`" ]/.test(sql)) return 'claim';
  if (sql.startsWith('select') && sql.includes('webhook_deliveries')) return 'fetch';
  if (sql.includes('webhook_attempts') || sql.includes('webhook_deliveries') || sql.includes('webhook_endpoints')) return 'record';
  return 'other';
}

export type Component = 'db client' | 'http' | 'crypto' | 'core' | 'bench' | 'gc' | 'other';

/** CPU of `work` on this thread by component, from a sampling profile (socket writes count with their writer). */
async function profiled<T>(work: () => Promise<T>): Promise<{ result: T; shares: Record<Component, number> }> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 1000 });
  await session.post('Profiler.start');
  let result: T;
  let profile: Profiler.Profile;
  try {
    result = await work();
  } finally {
    profile = (await session.post('Profiler.stop')).profile;
    session.disconnect();
  }
  // BENCH_WEBHOOKS_PROFILE=<path prefix> keeps each thread's profile (open it in Chrome's DevTools).
  if (process.env.BENCH_WEBHOOKS_PROFILE) fs.writeFileSync(`${process.env.BENCH_WEBHOOKS_PROFILE}-thread${threadId}.cpuprofile`, JSON.stringify(profile));
  type Node = { id: number; callFrame: { functionName: string; url: string }; children?: number[] };
  const nodes = new Map<number, Node>((profile.nodes as Node[]).map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of nodes.values()) for (const c of n.children ?? []) parent.set(c, n.id);
  // A sample's stack is searched for each component in this order: the database client never
  // calls into HTTP, and HTTP callbacks (receivers, the sender's answer handling) count as HTTP.
  const tests: Array<[Component, (url: string, fn: string) => boolean]> = [
    [
      'db client',
      (url, fn) =>
        /node_modules\/(knex|mysql2|tarn|sql-escaper|luxon|lodash|better-sqlite3|generate-function|lru\.min|long|iconv-lite|denque|seq-queue|named-placeholders)\//.test(
          url,
        ) ||
        // src/db/ (the prepared statements) and better-sqlite3's native calls, which have no script.
        url.includes('/dist/src/db/') ||
        (!url && (fn === 'run' || fn === 'all' || fn === 'get')),
    ],
    ['http', (url) => /^node:(_http_|http$|https$|net$)/.test(url)],
    ['crypto', (url) => url.startsWith('node:internal/crypto') || url === 'node:crypto'],
    ['core', (url) => url.includes('/dist/src/')],
    ['bench', (url) => url.includes('/dist/bench/') || url.includes('/dist/test/')],
    ['gc', (_url, fn) => fn === '(garbage collector)'],
  ];
  const shares: Record<Component, number> = { 'db client': 0, http: 0, crypto: 0, core: 0, bench: 0, gc: 0, other: 0 };
  let counted = 0;
  for (const id of profile.samples as number[]) {
    if (nodes.get(id)!.callFrame.functionName === '(idle)') continue;
    counted++;
    const stack: Node['callFrame'][] = [];
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) stack.push(nodes.get(cur)!.callFrame);
    const hit = tests.find(([, test]) => stack.some((f) => test(f.url, f.functionName)));
    shares[hit ? hit[0] : 'other']++;
  }
  for (const k of Object.keys(shares) as Component[]) shares[k] = counted ? shares[k] / counted : 0;
  return { result, shares };
}

/** What the thread measured over one run. */
export interface ProbeFigures {
  stages: { ms: Record<Stage, number>; statements: Record<Stage, number> };
  shares: Record<Component, number>;
  /** The delivery thread's CPU seconds over the run. */
  cpuSeconds: number;
}

let running: { stop: () => void; done: Promise<{ shares: Record<Component, number> }>; clock: StageClock; cpu0: number } | null = null;

/** `start` begins a run's measurement; `stop` ends it and answers its ProbeFigures. */
export async function probe(service: Service, request: unknown): Promise<unknown> {
  if (request === 'start') {
    let stop: () => void = () => {};
    const over = new Promise<void>((resolve) => (stop = resolve));
    const clock = new StageClock(service.knex);
    running = { stop, clock, cpu0: thisThreadCpuSeconds(), done: profiled(() => over) };
    return 'started';
  }
  if (request === 'stop' && running) {
    const r = running;
    running = null;
    r.stop();
    const { shares } = await r.done;
    r.clock.stop();
    return { stages: { ms: r.clock.ms, statements: r.clock.statements }, shares, cpuSeconds: thisThreadCpuSeconds() - r.cpu0 } satisfies ProbeFigures;
  }
  throw new Error(`unknown probe request ${JSON.stringify(request)}`);
}
