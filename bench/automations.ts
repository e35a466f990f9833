// Monitoring automations at scale: 1,000 automations over 100 ad accounts holding 50,000 live
// objects in the sandbox (per account 50 campaigns, 50 ad sets, 400 ads; one campaign in ten spends
// with no results), and twice that (2,000 over 200 accounts, 100,000 objects), on SQLite and on
// MariaDB when it answers. One full evaluation cycle by the real job worker of an in-process
// Service: wall time, platform reads per cycle (target: at most one per account, window and level),
// SQL statements per action taken (target: at most 4; every statement the cycle sends counts, the
// sandbox platform's own included) and CPU per evaluated object, beside a baseline measured in the
// same run: the bare cost of the same insights reads made straight on the sandbox adapter. Target:
// the cycle at most 2x the bare reads. BENCH_AUTOMATIONS_SCALES (e.g. "1") picks scales (1 = 1k, 2 =
// 2k); BENCH_AUTOMATIONS_STATEMENT_CACHE=compare adds a SQLite 1k cycle without prepared-statement
// reuse (src/db/statement-cache.ts); BENCH_AUTOMATIONS_SQL=1 prints the cycle's busiest statements;
// BENCH_AUTOMATIONS_DIALECTS (sqlite, mariadb) picks dialects; BENCH_AUTOMATIONS_PROFILE=<path prefix>
// writes a CPU profile of each cycle and prints its main-thread time by component. On SQLite the
// note also gives the cycle's statements, their time and the bytes they wrote by stage (platform
// reads, the sandbox platform's write, the cycle's own reads, opening the runs with their shadow
// events, recording the actions and closing the runs, jobs and outbox), and the bytes of run JSON
// and events written; BENCH_AUTOMATIONS_SQL=1 adds each statement shape's time.

import fs from 'node:fs';
import inspector from 'node:inspector';
import { createRequire } from 'node:module';
import type { Knex } from 'knex';
import type { Dialect } from '../src/db/connection.js';
import { SandboxPlatform } from '../src/platforms/sandbox/adapter.js';
import { seedLiveLaunch } from '../src/launches/live-launch.js';
import type { AdAccount, DateWindow, InsightsLevel, PlatformAdapter } from '../src/platforms/port.js';
import { DEFAULT_STATEMENT_CACHE_SIZE, setStatementCacheSize } from '../src/db/statement-cache.js';
import { decodeRunObjects } from '../src/automations/run-record.js';
import { observePrepared } from '../src/db/prepared.js';
import {
  availableDialects,
  dialectLabel,
  mainThreadCpuSeconds,
  progress,
  startBenchService,
  type Benchmark,
  type BenchmarkOutput,
  type ResultRow,
} from './lib.js';

const ACCOUNTS_PER_BRAND = 10;
const CAMPAIGNS = 50;
const ADS_PER_ADSET = 8;
/** The cycle at most this many times the bare reads. */
const RATIO_TARGET = 2;
/** SQL statements per action taken, at most. */
const STATEMENTS_TARGET = 4;
const ZONES = ['America/New_York', 'Europe/Berlin', 'UTC', 'Asia/Tokyo', 'America/Los_Angeles'];

const worldOf = (brands: number) => ({
  organizations: [
    {
      ref: 'bench',
      name: 'Bench Agency',
      plan: 'agency',
      subscriptionStatus: 'active',
      users: [{ ref: 'owner', email: 'owner@bench.test', name: 'Bench Owner', password: 'correct horse 1', role: 'owner' }],
      brands: Array.from({ length: brands }, (_, b) => ({
        ref: `b${b}`,
        name: `Brand ${b}`,
        adAccounts: Array.from({ length: ACCOUNTS_PER_BRAND }, (_, a) => ({
          platform: 'meta',
          accountId: `act_${1000 + b * 100 + a}`,
          name: `Account ${b}.${a}`,
          timezone: ZONES[(b + a) % ZONES.length],
          currency: 'USD',
          active: true,
        })),
      })),
      apiKeys: [{ ref: 'writer', name: 'Bench writer', createdBy: 'owner', scopes: ['read', 'write'], surfaces: { api: true, mcp: true }, brands: null }],
    },
  ],
});

/** Ten rules per account over three levels and two windows: six reads per account at most. */
const RULES: Array<{ level: InsightsLevel; action: string; mode: string; conditions: unknown[] }> = [
  {
    level: 'campaign',
    action: 'pause',
    mode: 'live',
    conditions: [
      { metric: 'spend', window: 'today', operator: 'gt', value: 100 },
      { metric: 'results', window: 'today', operator: 'lt', value: 1 },
    ],
  },
  // (roas comes from a click tracker since issue 45's change; the bare reads are the platform's only.)
  { level: 'campaign', action: 'notify', mode: 'live', conditions: [{ metric: 'results', window: 'last_3d', operator: 'lt', value: 1 }] },
  { level: 'campaign', action: 'notify', mode: 'shadow', conditions: [{ metric: 'cpm', window: 'today', operator: 'gt', value: 1500 }] },
  { level: 'campaign', action: 'pause_and_notify', mode: 'shadow', conditions: [{ metric: 'frequency', window: 'last_3d', operator: 'gt', value: 3 }] },
  { level: 'adset', action: 'notify', mode: 'live', conditions: [{ metric: 'ctr', window: 'today', operator: 'lt', value: 0.3 }] },
  { level: 'adset', action: 'pause', mode: 'shadow', conditions: [{ metric: 'costPerResult', window: 'last_3d', operator: 'gt', value: 5000 }] },
  { level: 'adset', action: 'notify', mode: 'shadow', conditions: [{ metric: 'cpc', window: 'today', operator: 'gt', value: 200 }] },
  { level: 'ad', action: 'notify', mode: 'shadow', conditions: [{ metric: 'ctr', window: 'today', operator: 'lt', value: 0.5 }] },
  {
    level: 'ad',
    action: 'pause',
    mode: 'shadow',
    conditions: [
      { metric: 'spend', window: 'last_3d', operator: 'gt', value: 2000 },
      { metric: 'results', window: 'last_3d', operator: 'lt', value: 1 },
    ],
  },
  { level: 'ad', action: 'notify', mode: 'shadow', conditions: [{ metric: 'clicks', window: 'today', operator: 'lt', value: 5 }] },
];

interface Read {
  account: AdAccount;
  level: InsightsLevel;
  ids: string[];
  window: DateWindow;
}

interface Figures {
  cycleMs: number;
  cpuSec: number;
  objects: number;
  reads: number;
  accounts: number;
  pairs: number;
  baselineMs: number;
  baselineCpuSec: number;
  runs: number;
  actions: number;
  statements: number;
  /** Of `statements`, those the sandbox platform's reads and writes sent. */
  platformStatements: number;
  baselineStatements: number;
  /** Characters of the runs' object lists, and the events (rows, characters of data) the cycle wrote. */
  runBytes: number;
  events: number;
  eventBytes: number;
  /** MB the process wrote during the cycle (write calls; to storage). */
  writtenMB: number;
  storageMB: number;
  /** SQL statements and time by stage. */
  stages: string;
  /** Main-thread CPU by component, when profiled. */
  components: Record<Component, number> | null;
}

/** Starts the V8 CPU profiler; the answer stops it and writes the profile to a file. */
async function startProfile(): Promise<(file: string) => Promise<Record<Component, number>>> {
  const session = new inspector.Session();
  session.connect();
  const post = (method: string, params?: object) =>
    new Promise<any>((resolve, reject) => session.post(method, params, (err, result) => (err ? reject(err) : resolve(result))));
  await post('Profiler.enable');
  await post('Profiler.start');
  return async (file) => {
    const { profile } = await post('Profiler.stop');
    fs.writeFileSync(file, JSON.stringify(profile));
    session.disconnect();
    return componentsOf(profile);
  };
}

type Stage = 'platform reads' | 'platform write' | 'cycle reads' | 'open runs' | 'record actions and close' | 'jobs and outbox';
const STAGES: Stage[] = ['platform reads', 'platform write', 'cycle reads', 'open runs', 'record actions and close', 'jobs and outbox'];

/** The stage a statement belongs to (one outside a transaction, or the first of one). */
function stageOf(sql: string): Stage {
  if (sql.includes('sandbox_')) return sql.startsWith('select') ? 'platform reads' : 'platform write';
  if (/[`" ](jobs|job_lanes|event_positions)[`" ]/.test(sql) || sql.startsWith('select `id`, `type`, `organization_id` from `events`'))
    return 'jobs and outbox';
  if (sql.startsWith('insert into `automation_runs`') || sql.startsWith('insert into "automation_runs"')) return 'open runs';
  return sql.startsWith('select') ? 'cycle reads' : 'record actions and close';
}

/** What better-sqlite3's statements run with (every connection's share one prototype). */
interface StatementProto {
  run(...args: unknown[]): unknown;
  all(...args: unknown[]): unknown;
}

function statementPrototype(): StatementProto {
  const Database = createRequire(import.meta.url)('better-sqlite3') as new (file: string) => { prepare(sql: string): object; close(): void };
  const db = new Database(':memory:');
  try {
    return Object.getPrototypeOf(db.prepare('select 1')) as StatementProto;
  } finally {
    db.close();
  }
}

/**
 * SQLite statements and their time by stage while the cycle runs: a transaction counts, BEGIN and
 * COMMIT included, with the stage of its first statement. better-sqlite3 runs a statement
 * synchronously right after Knex announces it, so the time in its `run` or `all` is the main
 * thread's (a COMMIT's included: the WAL sync of synchronous=FULL).
 */
class StageClock {
  readonly ms = Object.fromEntries(STAGES.map((s) => [s, 0])) as Record<Stage, number>;
  readonly statements = Object.fromEntries(STAGES.map((s) => [s, 0])) as Record<Stage, number>;
  readonly commits = Object.fromEntries(STAGES.map((s) => [s, 0])) as Record<Stage, number>;
  readonly commitMs = Object.fromEntries(STAGES.map((s) => [s, 0])) as Record<Stage, number>;
  /** Bytes written by each stage's statements (SQLite writes at commit, or at once outside a transaction). */
  readonly bytes = Object.fromEntries(STAGES.map((s) => [s, 0])) as Record<Stage, number>;
  /** Time by statement shape (with BENCH_AUTOMATIONS_SQL=1). */
  readonly shapeMs = new Map<string, number>();
  /** The statement running: its stage, whether it is a COMMIT, whether it writes to disk (a COMMIT, or a write outside a transaction). */
  private current: { stage: Stage; commit: boolean; writes: boolean; shape: string } | null = null;
  private readonly trxStage = new Map<string, Stage>();
  private readonly begun = new Set<string>();
  private readonly proto = statementPrototype();
  private readonly original = { run: this.proto.run, all: this.proto.all };
  private readonly onQuery = (q: { sql: string; __knexTxId?: string }) => {
    const sql = q.sql.toLowerCase();
    const tx = q.__knexTxId;
    if (tx && sql.startsWith('begin')) {
      // Counted with the transaction's first statement, whose stage it takes.
      this.begun.add(tx);
      this.current = { stage: 'cycle reads', commit: false, writes: false, shape: 'BEGIN' };
      return;
    }
    const commit = Boolean(tx && (sql.startsWith('commit') || sql.startsWith('rollback')));
    let stage = (tx && this.trxStage.get(tx)) || stageOf(sql);
    if (tx && !commit && !this.trxStage.has(tx)) {
      this.trxStage.set(tx, stage);
      if (this.begun.delete(tx)) this.statements[stage]++;
    }
    if (commit) {
      stage = this.trxStage.get(tx!) ?? stage;
      this.trxStage.delete(tx!);
      this.commits[stage]++;
    }
    this.statements[stage]++;
    const shape = !this.byShape ? '' : commit ? `COMMIT (${stage})` : shapeOf(q.sql);
    this.current = { stage, commit, writes: commit || (!tx && !sql.startsWith('select')), shape };
  };

  /** A prepared statement (src/db/prepared.ts), which Knex does not announce: its stage is its transaction's, or its own. */
  private readonly onPrepared = (text: string, tx: string | undefined) => {
    const sql = text.toLowerCase();
    const stage = (tx && this.trxStage.get(tx)) || stageOf(sql);
    if (tx && !this.trxStage.has(tx)) {
      this.trxStage.set(tx, stage);
      if (this.begun.delete(tx)) this.statements[stage]++;
    }
    this.statements[stage]++;
    this.current = { stage, commit: false, writes: !tx && !sql.startsWith('select'), shape: this.byShape ? shapeOf(text) : '' };
  };

  private readonly unobserve: () => void;

  /** `byShape`: also time each statement shape (the text is folded per statement, which costs). */
  constructor(
    private readonly knex: Knex,
    private readonly byShape = false,
  ) {
    knex.on('query', this.onQuery);
    this.unobserve = observePrepared({ before: this.onPrepared });
    const measure = (work: () => unknown) => this.measure(work);
    // A statement's own `this` is the statement: a function, not an arrow.
    const timed = (fn: (...args: unknown[]) => unknown) =>
      function (this: unknown, ...args: unknown[]) {
        return measure(() => fn.apply(this, args));
      };
    this.proto.run = timed(this.original.run);
    this.proto.all = timed(this.original.all);
  }

  /** Runs one statement's `run` or `all`, counting its time (and bytes written) to the statement Knex announced last. */
  private measure(work: () => unknown): unknown {
    const c = this.current ?? { stage: 'cycle reads', commit: false, writes: false, shape: '' };
    // Reading /proc costs about 30 us: only around the statements that write to disk.
    const written = c.writes ? writtenBytes().wchar : 0;
    const at = performance.now();
    try {
      return work();
    } finally {
      const ms = performance.now() - at;
      this.ms[c.stage] += ms;
      if (c.writes) this.bytes[c.stage] += writtenBytes().wchar - written;
      if (this.byShape) this.shapeMs.set(c.shape, (this.shapeMs.get(c.shape) ?? 0) + ms);
      if (c.commit) this.commitMs[c.stage] += ms;
    }
  }

  stop(): void {
    this.knex.off('query', this.onQuery);
    this.unobserve();
    Object.assign(this.proto, this.original);
  }

  describe(): string {
    return STAGES.filter((s) => this.statements[s])
      .map(
        (s) =>
          `${s} ${this.statements[s]} statements ${(this.ms[s] / 1000).toFixed(2)} s ${(this.bytes[s] / 1e6).toFixed(0)} MB` +
          (this.commits[s] ? ` (${this.commits[s]} commits ${(this.commitMs[s] / 1000).toFixed(2)} s)` : ''),
      )
      .join('; ');
  }
}

type Component = 'sqlite' | 'knex' | 'sandbox platform' | 'decisions' | 'automations' | 'events' | 'pipeline' | 'gc' | 'other';

/** A profile's samples by component (the innermost frame that names one; native SQLite calls by their name), in seconds. */
function componentsOf(profile: { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] }): Record<Component, number> {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const tests: Array<[Component, (url: string, fn: string) => boolean]> = [
    ['sqlite', (url, fn) => (!url && (fn === 'run' || fn === 'all' || fn === 'get' || fn === 'Statement')) || url.includes('/better-sqlite3/')],
    ['knex', (url) => /node_modules\/(knex|tarn|lodash)\//.test(url)],
    ['sandbox platform', (url) => url.includes('/dist/src/platforms/')],
    ['decisions', (url) => /\/dist\/src\/automations\/(decide|metrics)\.js/.test(url)],
    ['automations', (url) => url.includes('/dist/src/automations/') || url.includes('/dist/src/launches/')],
    ['events', (url) => url.includes('/dist/src/events/')],
    ['pipeline', (url) => url.includes('/dist/src/')],
    ['gc', (_url, fn) => fn === '(garbage collector)'],
  ];
  const out = Object.fromEntries([...tests.map(([c]) => c), 'other'].map((c) => [c, 0])) as Record<Component, number>;
  for (const [i, id] of profile.samples.entries()) {
    if (nodes.get(id)!.callFrame.functionName === '(idle)') continue;
    const at = (profile.timeDeltas[i] ?? 0) / 1e6;
    let hit: Component = 'other';
    for (let cur: number | undefined = id; cur !== undefined && hit === 'other'; cur = parent.get(cur)) {
      const f = nodes.get(cur)!.callFrame;
      hit = tests.find(([, test]) => test(f.url, f.functionName))?.[0] ?? 'other';
    }
    out[hit] += at;
  }
  return out;
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}

/** Bytes this process has written (wchar: through write calls; write_bytes: to storage), from /proc/self/io; zeros where there is none. */
function writtenBytes(): { wchar: number; storage: number } {
  try {
    const io = fs.readFileSync('/proc/self/io', 'utf8');
    const field = (name: string) => Number(new RegExp(`^${name}: (\\d+)`, 'm').exec(io)?.[1] ?? 0);
    return { wchar: field('wchar'), storage: field('write_bytes') };
  } catch {
    return { wchar: 0, storage: 0 };
  }
}

/** Statement text with its literals folded, for the busiest-statements list. */
const shapeOf = (sql: string) =>
  sql
    .replace(/\(\?(, ?\?)*\)/g, '(?...)')
    .replace(/\b\d+\b/g, 'N')
    .slice(0, 160);

async function onDialect(dialect: Dialect, brands: number): Promise<Figures> {
  const bench = await startBenchService(dialect, { bootstrap: worldOf(brands) });
  try {
    const { service, seed } = bench;
    const org = seed.organizations.bench;
    const principal = await service.authenticate(`Bearer ${org.apiKeys.writer.secret}`, 'api');
    const at = Date.now() - 2 * 86_400_000;
    progress(`automations ${dialectLabel(dialect)}: seeding ${brands * ACCOUNTS_PER_BRAND} accounts x ${CAMPAIGNS * (2 + ADS_PER_ADSET)} live objects`);
    let n = 0;
    for (let b = 0; b < brands; b++) {
      for (let a = 0; a < ACCOUNTS_PER_BRAND; a++) {
        const accountId = `act_${1000 + b * 100 + a}`;
        await seedLiveLaunch(service.knex, {
          organizationId: org.id,
          brandId: org.brands[`b${b}`].id,
          accountId,
          platform: 'meta',
          title: `Launch ${accountId}`,
          at,
          campaigns: Array.from({ length: CAMPAIGNS }, (_, c) => ({
            name: c % 10 === 0 ? `Campaign ${c} - no results` : `Campaign ${c}`,
            dailyBudget: 10_000 + c * 100,
            adSets: 1,
            adsPerAdSet: ADS_PER_ADSET,
          })),
        });
        for (const [i, rule] of RULES.entries()) {
          await service.invoke(
            'create-automation',
            principal,
            {
              brandId: org.brands[`b${b}`].id,
              automationName: `Rule ${i} on ${accountId}`,
              accountId,
              level: rule.level,
              conditions: rule.conditions,
              action: rule.action,
              mode: rule.mode,
              frequency: 'every_15_minutes',
              cooldownMinutes: 60,
            },
            { requestId: `bench-${++n}` },
          );
        }
      }
    }
    // Count (and record) every platform read the cycle makes.
    const adapter = (service as unknown as { deps: { platforms: { adapterFor(p: string): PlatformAdapter } } }).deps.platforms.adapterFor('meta');
    const reads: Read[] = [];
    const original = adapter.insightsByObject.bind(adapter);
    adapter.insightsByObject = async (account, level, ids, window) => {
      reads.push({ account, level, ids: [...ids], window });
      return original(account, level, ids, window);
    };
    // Count every statement the cycle sends, and those of the sandbox platform's tables.
    let statements = 0;
    let platformStatements = 0;
    const shapes = new Map<string, number>();
    const listSql = process.env.BENCH_AUTOMATIONS_SQL === '1';
    const count = (q: { sql: string }) => {
      statements++;
      if (/sandbox_/.test(q.sql)) platformStatements++;
      if (listSql) shapes.set(shapeOf(q.sql), (shapes.get(shapeOf(q.sql)) ?? 0) + 1);
    };
    service.knex.on('query', count);
    // The queue's statements are prepared ones (src/db/prepared.ts), which Knex does not announce.
    const uncount = observePrepared({ before: (sql) => count({ sql }) });
    progress(`automations ${dialectLabel(dialect)}: one evaluation cycle`);
    const profile = process.env.BENCH_AUTOMATIONS_PROFILE ? await startProfile() : null;
    const clock = dialect === 'sqlite' && process.env.BENCH_AUTOMATIONS_STAGES !== '0' ? new StageClock(service.knex, listSql) : null;
    const io0 = writtenBytes();
    const cpu0 = mainThreadCpuSeconds();
    const t0 = performance.now();
    await service.jobs.drain();
    const cycleMs = performance.now() - t0;
    const cpuSec = mainThreadCpuSeconds() - cpu0;
    const io1 = writtenBytes();
    clock?.stop();
    const components = profile ? await profile(`${process.env.BENCH_AUTOMATIONS_PROFILE}-${dialect}-${brands * ACCOUNTS_PER_BRAND}.cpuprofile`) : null;
    service.knex.off('query', count);
    uncount();
    adapter.insightsByObject = original;
    if (listSql)
      for (const [shape, n] of [...shapes].sort((a, b) => b[1] - a[1]).slice(0, 40))
        progress(`  ${String(n).padStart(6)}  ${clock ? `${(clock.shapeMs.get(shape) ?? 0).toFixed(0).padStart(6)} ms  ` : ''}${shape}`);
    if (listSql && clock)
      for (const [shape, ms] of [...clock.shapeMs].filter(([shape]) => shape.startsWith('COMMIT') || shape === 'BEGIN'))
        progress(`  ${ms.toFixed(0).padStart(6)} ms  ${shape}`);
    const runs = await service.knex('automation_runs').select('objects');
    const objects = runs.reduce((sum, r) => sum + decodeRunObjects(String(r.objects)).length, 0);
    const runBytes = runs.reduce((sum, r) => sum + String(r.objects).length, 0);
    const events = await service.knex('events').select('data');
    const eventBytes = events.reduce((sum, r) => sum + String(r.data).length, 0);
    const actions = Number((await service.knex('automation_actions').count({ n: '*' }).first())?.n ?? 0);
    const pairs = new Set(reads.map((r) => `${r.account.accountId}|${r.level}|${r.window.since}|${r.window.until}`)).size;
    // Baseline: the same reads, made straight on a sandbox adapter, nothing else.
    const bare = new SandboxPlatform('meta', service.knex);
    let baselineStatements = 0;
    const countBare = () => void baselineStatements++;
    service.knex.on('query', countBare);
    const bcpu0 = mainThreadCpuSeconds();
    const b0 = performance.now();
    for (const r of reads) await bare.insightsByObject(r.account, r.level, r.ids, r.window);
    const baselineMs = performance.now() - b0;
    const baselineCpuSec = mainThreadCpuSeconds() - bcpu0;
    service.knex.off('query', countBare);
    return {
      cycleMs,
      cpuSec,
      objects,
      reads: reads.length,
      accounts: new Set(reads.map((r) => r.account.accountId)).size,
      pairs,
      baselineMs,
      baselineCpuSec,
      runs: runs.length,
      actions,
      statements,
      platformStatements,
      baselineStatements,
      stages: clock?.describe() ?? '',
      writtenMB: (io1.wchar - io0.wchar) / 1e6,
      storageMB: (io1.storage - io0.storage) / 1e6,
      runBytes,
      events: events.length,
      eventBytes,
      components,
    };
  } finally {
    await bench.close();
  }
}

function rowsOf(name: string, dialect: Dialect, f: Figures): ResultRow[] {
  const perObjectUs = (f.cpuSec * 1e6) / Math.max(1, f.objects);
  const barePerObjectUs = (f.baselineCpuSec * 1e6) / Math.max(1, f.objects);
  return [
    {
      benchmark: name,
      dialect,
      target: 'bare insights reads',
      rps: f.objects / (f.baselineMs / 1000),
      p50: f.baselineMs,
      p99: f.baselineMs,
      cpuUsPerRequest: barePerObjectUs,
      failures: 0,
    },
    {
      benchmark: name,
      dialect,
      target: 'svc evaluation cycle',
      rps: f.objects / (f.cycleMs / 1000),
      p50: f.cycleMs,
      p99: f.cycleMs,
      cpuUsPerRequest: perObjectUs,
      ratio: f.baselineMs / f.cycleMs,
      failures: 0,
    },
  ];
}

function noteOf(dialect: Dialect, f: Figures, label = ''): string {
  const perObjectUs = (f.cpuSec * 1e6) / Math.max(1, f.objects);
  const barePerObjectUs = (f.baselineCpuSec * 1e6) / Math.max(1, f.objects);
  const ratio = f.cycleMs / f.baselineMs;
  const perAction = f.statements / Math.max(1, f.actions);
  return (
    `automations ${dialectLabel(dialect)}${label}: ${f.runs} automations over ${f.accounts} accounts, ${f.objects} object evaluations, ${f.actions} actions taken; ` +
    `cycle ${(f.cycleMs / 1000).toFixed(2)} s = ${ratio.toFixed(2)}x the bare reads (target <= ${RATIO_TARGET}x: ${ratio <= RATIO_TARGET ? 'MET' : 'NOT MET'}); ` +
    `platform reads ${f.reads} for ${f.pairs} distinct (account, level, window) ` +
    `(${(f.reads / f.accounts).toFixed(1)} per account; target <= 1 per account, window and level: ${f.reads <= f.pairs ? 'MET' : 'NOT MET'}); ` +
    `SQL statements ${f.statements} (${f.platformStatements} of them the sandbox platform's; the bare reads alone ${f.baselineStatements}) = ` +
    `${perAction.toFixed(2)} per action (target <= ${STATEMENTS_TARGET}: ${perAction <= STATEMENTS_TARGET ? 'MET' : 'NOT MET'}); ` +
    `CPU ${perObjectUs.toFixed(0)} us per evaluated object vs ${barePerObjectUs.toFixed(0)} us for the bare reads; bare reads ${(f.baselineMs / 1000).toFixed(2)} s. ` +
    `Stages (main-thread CPU): ${f.cpuSec.toFixed(2)} s in all for a ${(f.cycleMs / 1000).toFixed(2)} s cycle; the same reads alone ${f.baselineCpuSec.toFixed(2)} s; ` +
    `the other ${(f.cpuSec - f.baselineCpuSec).toFixed(2)} s are evaluation, run records and the ${f.actions} actions, one batch operation per account. ` +
    `Written during the cycle: ${f.writtenMB.toFixed(0)} MB through write calls (${f.storageMB.toFixed(0)} MB to storage); the runs' object lists ${(f.runBytes / 1e6).toFixed(1)} MB of JSON, ${f.events} events (${(f.eventBytes / 1e6).toFixed(1)} MB of data). ` +
    (f.stages ? `SQLite by stage (main-thread time in the statements; BEGIN and COMMIT with their transaction): ${f.stages}. ` : '') +
    (f.components
      ? `Profile by component: ${Object.entries(f.components)
          .filter(([, sec]) => sec > 0)
          .map(([c, sec]) => `${c} ${sec.toFixed(2)} s`)
          .join(', ')}. `
      : '') +
    `(rows: req/s = object evaluations per second, p50/p99 = the cycle's wall ms, cpu us/req = CPU per evaluated object.)`
  );
}

export const benchmark: Benchmark = {
  name: 'automations',
  order: 40,
  async run(): Promise<BenchmarkOutput> {
    const rows: ResultRow[] = [];
    const available = await availableDialects();
    const notes = available.notes;
    const only = process.env.BENCH_AUTOMATIONS_DIALECTS?.split(',').map((d) => d.trim());
    const dialects = available.dialects.filter((d) => !only || only.includes(d) || only.includes(dialectLabel(d)));
    const scales = (process.env.BENCH_AUTOMATIONS_SCALES ?? '1,2')
      .split(',')
      .map((x) => Number(x.trim()))
      .filter((x) => x === 1 || x === 2);
    for (const scale of scales) {
      const name = `automations ${scale}k`;
      for (const dialect of dialects) {
        const f = await onDialect(dialect, 10 * scale);
        rows.push(...rowsOf(name, dialect, f));
        notes.push(noteOf(dialect, f));
      }
    }
    if (process.env.BENCH_AUTOMATIONS_STATEMENT_CACHE === 'compare') {
      // The same 1k cycle on SQLite with every statement prepared afresh (Knex's own behaviour).
      setStatementCacheSize(0);
      try {
        const f = await onDialect('sqlite', 10);
        rows.push(...rowsOf('automations 1k, no stmt reuse', 'sqlite', f));
        notes.push(noteOf('sqlite', f, ' without prepared-statement reuse'));
      } finally {
        setStatementCacheSize(DEFAULT_STATEMENT_CACHE_SIZE);
      }
    }
    return { rows, notes };
  },
};
