// Webhook delivery throughput and latency: 10,000 events to 10 local receivers by the real job
// worker of an in-process Service and its delivery threads (DELIVERY_THREADS, the service's default
// unless BENCH_WEBHOOKS_THREADS says), against a bare loop of the same POSTs in the same run, on
// MariaDB (when it answers) and SQLite (BENCH_WEBHOOKS_DIALECTS picks). Targets: svc/bare >= 0.5; p99
// commit to receipt < 1 s. With more than one thread, a max run on one thread follows (the design
// before issue 55; BENCH_WEBHOOKS_ONE_THREAD=0 skips it).
//
// 10 endpoints, each filtered to its own brand; events spread over the 10 brands, so each goes to
// exactly one receiver.
//   - max: the events are committed first, then the worker starts; deliveries/s until the last
//     receipt. The bare loop sends the same signed POSTs (same receivers, one in flight each, as
//     each service lane has: its window lets up to 8 answers wait for their record, while the
//     lane's requests still go one at a time, so first attempts arrive in event order).
//   - paced: one event per transaction at 50% and at 25% of the measured max rate; p50/p99 from
//     commit (the emitting transaction resolved) to receipt (the receiver's handler), one clock.
// The service runs as `svc-server serve` does: its deliveries on the delivery threads (DELIVERY_THREAD=on),
// the producer and the receivers on the main thread; the bare loop's client and receivers share one
// thread. A stage breakdown of the max run, measured inside each delivery thread by a probe
// (bench/delivery-probe.ts: SQL statements and time per delivery for claim, fetch and record; the
// thread's CPU by component, from a sampling profile), with the sender's POST time, says where a
// delivery's time goes.

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { inTransaction, type Dialect } from '../src/db/connection.js';
import { messageBody } from '../src/webhooks/deliver.js';
import { signatureHeader } from '../src/webhooks/signing.js';
import { newEventId } from '../src/events/outbox.js';
import { producedData } from '../test/helpers/event-producer.js';
import type { ProbeFigures } from './delivery-probe.js';
import {
  availableDialects,
  dialectLabel,
  mainThreadCpuSeconds,
  progress,
  startBenchService,
  type BenchService,
  type Benchmark,
  type BenchmarkOutput,
  type ResultRow,
} from './lib.js';

/** BENCH_WEBHOOKS_EVENTS runs a shorter configuration while developing; the figures of record use 10,000. */
export const EVENTS = Number(process.env.BENCH_WEBHOOKS_EVENTS) || 10_000;
export const RECEIVERS = 10;
/** BENCH_WEBHOOKS_THREADS sets DELIVERY_THREADS (default: the service's own default, the machine's cores up to 4). */
const THREADS = Number(process.env.BENCH_WEBHOOKS_THREADS) || 0;
/** The service's WEBHOOK_WINDOW: answers of one endpoint that may wait for their record while the next request goes out. */
const WINDOW = 8;
/** Events per transaction while filling the queue before the max run (not measured). */
const FILL_BATCH = 100;
/** The paced runs emit at these shares of the measured max rate, each for PACED_SEC. */
const PACED_SHARES = [0.5, 0.25];
const PACED_SEC = 5;
/** A paced run whose last delivery came this long after its last commit had a growing queue. */
const SATURATED_LAG_MS = 500;
export const RATIO_TARGET = 0.5;
export const P99_TARGET_MS = 1_000;

const world = {
  organizations: [
    {
      ref: 'bench',
      name: 'Bench Hooks',
      plan: 'agency',
      subscriptionStatus: 'active',
      brands: Array.from({ length: RECEIVERS }, (_, i) => ({ ref: `b${i}`, name: `Brand ${i}`, adAccounts: [] })),
      apiKeys: [{ ref: 'ops', name: 'Bench ops', scopes: ['read', 'write'], surfaces: { api: true, mcp: false }, brands: null }],
    },
  ],
};

const percentile = (sorted: number[], p: number): number => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : NaN);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Ten node:http receivers answering 200 at once, recording when each webhook-id arrived. */
class Receivers {
  readonly arrivals = new Map<string, number>();
  urls: string[] = [];
  private servers: http.Server[] = [];
  private waiter: { count: number; resolve: () => void } | null = null;

  async start(): Promise<this> {
    for (let i = 0; i < RECEIVERS; i++) {
      const server = http.createServer((req, res) => {
        req.resume();
        req.on('end', () => {
          this.arrivals.set(String(req.headers['webhook-id']), performance.now());
          res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '2' });
          res.end('ok');
          if (this.waiter && this.arrivals.size >= this.waiter.count) {
            this.waiter.resolve();
            this.waiter = null;
          }
        });
      });
      server.keepAliveTimeout = 30_000;
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      this.servers.push(server);
      this.urls.push(`http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`);
    }
    return this;
  }

  /** Resolves once `count` distinct ids arrived since the last `reset`. */
  waitFor(count: number, timeoutMs: number): Promise<void> {
    if (this.arrivals.size >= count) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`receivers got ${this.arrivals.size} of ${count} in ${timeoutMs} ms`)), timeoutMs);
      this.waiter = { count, resolve: () => (clearTimeout(timer), resolve()) };
    });
  }

  reset(): void {
    this.arrivals.clear();
  }

  async close(): Promise<void> {
    for (const s of this.servers) {
      s.closeAllConnections();
      await new Promise<void>((r) => s.close(() => r()));
    }
  }
}

interface Throughput {
  rps: number;
  p50: number;
  p99: number;
  cpuUsPerDelivery: number;
  failures: number;
}

/**
 * The floor: every receiver gets its share of EVENTS as signed Standard Webhooks POSTs, one at a
 * time, from a keep-alive agent like the service's sender; the messages are built before timing.
 */
async function bareLoop(receivers: Receivers, secret: string, brandIds: number[]): Promise<Throughput> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
  const lanes = receivers.urls.map((url, lane) => {
    const out: Array<{ url: URL; headers: Record<string, string>; body: string }> = [];
    for (let n = lane; n < EVENTS; n += RECEIVERS) {
      const id = newEventId();
      const ts = Math.floor(Date.now() / 1000);
      const body = messageBody({ event_type: 'budget.changed', event_data: JSON.stringify(producedData(brandIds[lane], n)), event_created_at: Date.now() });
      out.push({
        url: new URL(url),
        body,
        headers: {
          'content-type': 'application/json',
          'user-agent': 'svc-webhooks/1.0',
          'webhook-id': id,
          'webhook-timestamp': String(ts),
          'webhook-signature': signatureHeader([secret], id, ts, body),
          'content-length': String(Buffer.byteLength(body)),
        },
      });
    }
    return out;
  });
  const post = (m: (typeof lanes)[number][number]) =>
    new Promise<number>((resolve, reject) => {
      const started = performance.now();
      const req = http.request(m.url, { method: 'POST', agent, headers: m.headers }, (res) => {
        res.resume();
        res.on('end', () => (res.statusCode === 200 ? resolve(performance.now() - started) : reject(new Error(`receiver answered ${res.statusCode}`))));
      });
      req.on('error', reject);
      req.end(m.body);
    });
  const times: number[] = [];
  const cpu0 = mainThreadCpuSeconds();
  const t0 = performance.now();
  await Promise.all(
    lanes.map(async (lane) => {
      for (const m of lane) times.push(await post(m));
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  const cpu = mainThreadCpuSeconds() - cpu0;
  agent.destroy();
  times.sort((a, b) => a - b);
  return { rps: EVENTS / seconds, p50: percentile(times, 50), p99: percentile(times, 99), cpuUsPerDelivery: (cpu * 1e6) / EVENTS, failures: 0 };
}

type Paced = Throughput & { share: number; rate: number; events: number; saturated: boolean; lagMs: number };

interface DialectFigures {
  bare: Throughput;
  max: Throughput;
  paced: Paced[];
  breakdown: string;
  /** Delivery threads the service ran. */
  threads: number;
}

/** The figures of every delivery thread as one: statements, times and CPU summed, profile shares weighted by each thread's CPU. */
function combined(all: ProbeFigures[]): ProbeFigures {
  const cpuSeconds = all.reduce((sum, f) => sum + f.cpuSeconds, 0);
  const out: ProbeFigures = {
    stages: { ms: { claim: 0, fetch: 0, record: 0, other: 0 }, statements: { claim: 0, fetch: 0, record: 0, other: 0 } },
    shares: { 'db client': 0, http: 0, crypto: 0, core: 0, bench: 0, gc: 0, other: 0 },
    cpuSeconds,
  };
  for (const f of all) {
    for (const k of Object.keys(out.stages.ms) as Array<keyof ProbeFigures['stages']['ms']>) {
      out.stages.ms[k] += f.stages.ms[k];
      out.stages.statements[k] += f.stages.statements[k];
    }
    for (const k of Object.keys(out.shares) as Array<keyof ProbeFigures['shares']>) out.shares[k] += cpuSeconds ? (f.shares[k] * f.cpuSeconds) / cpuSeconds : 0;
  }
  return out;
}

async function createEndpoints(svc: BenchService, receivers: Receivers, brandIds: number[]): Promise<string> {
  let secret = '';
  for (const [i, url] of receivers.urls.entries()) {
    const res = await fetch(`${svc.url}/v1/webhook-endpoints`, {
      method: 'POST',
      headers: { authorization: `Bearer ${svc.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url, events: ['budget.changed'], brandIds: [brandIds[i]] }),
    });
    const body = await res.json();
    if (res.status !== 201) throw new Error(`create-webhook-endpoint answered ${res.status}: ${JSON.stringify(body)}`);
    secret = body.secret;
  }
  return secret;
}

/** Emits `count` events, event n to brand n % 10, FILL_BATCH per transaction (retried on deadlock), one lane per brand. */
async function fill(svc: BenchService, organizationId: number, brandIds: number[], count: number): Promise<void> {
  const { knex, events } = svc.service;
  await Promise.all(
    brandIds.map(async (brandId, lane) => {
      const mine: number[] = [];
      for (let n = lane; n < count; n += RECEIVERS) mine.push(n);
      for (let i = 0; i < mine.length; i += FILL_BATCH) {
        await inTransaction(knex, async (trx) => {
          for (const n of mine.slice(i, i + FILL_BATCH))
            await events.emit(trx, { organizationId, brandId, type: 'budget.changed', data: producedData(brandId, n) });
        });
      }
    }),
  );
}

/**
 * Emits `count` events at `rate` per second, one per transaction, from a few producers side by
 * side (so one slow commit does not hold the pace back); commit to receipt percentiles.
 */
async function pacedRun(svc: BenchService, receivers: Receivers, organizationId: number, brandIds: number[], rate: number, count: number, first: number) {
  const committedAt = new Map<string, number>();
  const { knex, events } = svc.service;
  const lanes = 4;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: lanes }, async (_, lane) => {
      for (let n = lane; n < count; n += lanes) {
        const wait = start + (n * 1000) / rate - performance.now();
        if (wait > 0) await sleep(wait);
        const brandId = brandIds[n % RECEIVERS];
        // Retried on deadlock like an operation's transaction (a wake can lose one to a claim).
        const e = await inTransaction(knex, (trx) =>
          events.emit(trx, { organizationId, brandId, type: 'budget.changed', data: producedData(brandId, first + n) }),
        );
        committedAt.set(e.publicId, performance.now());
      }
    }),
  );
  const achieved = count / ((performance.now() - start) / 1000);
  await receivers.waitFor(count, 120_000);
  const latencies = [...committedAt].map(([id, at]) => receivers.arrivals.get(id)! - at).sort((a, b) => a - b);
  // How far the deliveries ended behind the producer: a queue that built up during the run.
  const lagMs = Math.max(...receivers.arrivals.values()) - Math.max(...committedAt.values());
  return { rps: achieved, p50: percentile(latencies, 50), p99: percentile(latencies, 99), saturated: lagMs > SATURATED_LAG_MS, lagMs };
}

/** One max run (and with `paced`, the paced runs) on a fresh service with `threads` delivery threads (0: the service's default). */
async function onDialect(dialect: Dialect, threads = THREADS, paced = true): Promise<DialectFigures> {
  const label = `webhooks/${dialectLabel(dialect)}: `;
  const receivers = await new Receivers().start();
  let svc: BenchService | null = null;
  try {
    progress(`${label}migrating and bootstrapping a fresh database`);
    svc = await startBenchService(dialect, {
      bootstrap: world,
      env: {
        WEBHOOK_ALLOW_PRIVATE: 'true',
        WEBHOOK_WINDOW: String(WINDOW),
        ...(threads ? { DELIVERY_THREADS: String(threads) } : {}),
        ...(process.env.BENCH_WEBHOOKS_PROFILE ? { BENCH_WEBHOOKS_PROFILE: process.env.BENCH_WEBHOOKS_PROFILE } : {}),
      },
      deliveryThread: { probe: new URL('./delivery-probe.js', import.meta.url).href },
    });
    const org = svc.seed.organizations.bench;
    const brandIds = Array.from({ length: RECEIVERS }, (_, i) => org.brands[`b${i}`].id);
    svc.key = org.apiKeys.ops.secret;
    const secret = await createEndpoints(svc, receivers, brandIds);

    progress(`${label}committing ${EVENTS} events (${FILL_BATCH} per transaction) before the worker starts`);
    const filled = performance.now();
    await fill(svc, org.id, brandIds, EVENTS);
    progress(`${label}committed in ${((performance.now() - filled) / 1000).toFixed(1)} s`);

    progress(`${label}bare loop: ${EVENTS} POSTs, one in flight per receiver`);
    const bare = await bareLoop(receivers, secret, brandIds);
    receivers.reset();

    progress(`${label}max: starting the worker and its delivery thread on ${EVENTS} due deliveries`);
    const deliveryThreads = svc.service.deliveryThreads!;
    const threadCount = deliveryThreads.threads.length;
    // The thread loads and opens its service first (as at a server's start): timing starts once it claims.
    await svc.service.startJobs();
    await deliveryThreads.ask('start');
    const before = receivers.arrivals.size;
    const cpu0 = mainThreadCpuSeconds();
    const t0 = performance.now();
    await receivers.waitFor(EVENTS, 300_000);
    const seconds = (performance.now() - t0) / 1000;
    const mainCpu = mainThreadCpuSeconds() - cpu0;
    const measured = combined((await deliveryThreads.ask('stop')) as ProbeFigures[]);
    const { stages, shares } = measured;
    const durations = (await svc.service.knex('webhook_attempts').pluck('duration_ms')).map(Number).sort((a, b) => a - b);
    const failures = Number(
      (await svc.service.knex('webhook_attempts').whereNot('status_code', 200).orWhereNull('status_code').count({ n: '*' }).first())?.n ?? 0,
    );
    const timed = EVENTS - before;
    const max: Throughput = {
      rps: timed / seconds,
      p50: percentile(durations, 50),
      p99: percentile(durations, 99),
      // Both threads, as the bare loop's one thread holds its client and the receivers.
      cpuUsPerDelivery: ((measured.cpuSeconds + mainCpu) * 1e6) / timed,
      failures,
    };
    // Ten jobs run side by side: a job spends RECEIVERS * seconds / EVENTS on each of its deliveries.
    const each = (x: number) => (x / timed).toFixed(2);
    const sendMs = durations.reduce((a, b) => a + b, 0);
    const threadUs = (measured.cpuSeconds * 1e6) / timed;
    const us = (share: number) => `${(share * threadUs).toFixed(0)}`;
    const breakdown =
      `${dialectLabel(dialect)} max on ${threadCount} delivery thread(s), stage breakdown per delivery: SQL statements claim/lease ${each(stages.statements.claim)}, fetch due ${each(stages.statements.fetch)}, ` +
      `record ${each(stages.statements.record)} (BEGIN and COMMIT included), other ${each(stages.statements.other)}; ` +
      `wall time in one job ${((RECEIVERS * seconds * 1000) / timed).toFixed(2)} ms = send ${each(sendMs)} (the sender's POST timing) + record SQL ${each(stages.ms.record)} + ` +
      `fetch SQL ${each(stages.ms.fetch)} + claim SQL ${each(stages.ms.claim)} ms + waiting for the event loop; ` +
      `CPU ${max.cpuUsPerDelivery.toFixed(0)} us per delivery (bare loop ${bare.cpuUsPerDelivery.toFixed(0)}, its receivers included) = main thread ${((mainCpu * 1e6) / timed).toFixed(0)} (the receivers, the nudges) + delivery threads ${threadUs.toFixed(0)} = ` +
      `db client ${us(shares['db client'])} (knex, ${dialect === 'mysql' ? 'mysql2 and its socket writes' : 'better-sqlite3 and SQLite itself'}) + http ${us(shares.http)} (node's HTTP stack of sender and receivers, with the callbacks it runs) + ` +
      `core ${us(shares.core)} + crypto ${us(shares.crypto)} + bench probe ${us(shares.bench)} + gc ${us(shares.gc)} + other ${us(shares.other)} us (sampling profile); ` +
      `each delivery thread ${((measured.cpuSeconds / (seconds * threadCount)) * 100).toFixed(0)}% busy, the main thread ${((mainCpu / seconds) * 100).toFixed(0)}%`;

    const pacedRuns: Paced[] = [];
    for (const share of paced ? PACED_SHARES : []) {
      const rate = Math.max(10, Math.round(max.rps * share));
      const count = Math.round(rate * PACED_SEC);
      progress(`${label}paced: ${count} events at ${rate}/s (${share * 100}% of max), one per transaction`);
      receivers.reset();
      const first = EVENTS * 2 + pacedRuns.length * 100_000;
      const r = await pacedRun(svc, receivers, org.id, brandIds, rate, count, first);
      pacedRuns.push({ ...r, share, rate, events: count, cpuUsPerDelivery: NaN, failures: 0 });
    }
    return { bare, max, paced: pacedRuns, breakdown, threads: threadCount };
  } finally {
    await svc?.close().catch((err) => progress(`${label}closing the service failed: ${(err as Error).message}`));
    await receivers.close();
  }
}

export const benchmark: Benchmark = {
  name: 'webhooks 10k',
  order: 30,
  async run(): Promise<BenchmarkOutput> {
    const { dialects, notes } = await availableDialects();
    for (const n of notes) progress(n);
    const rows: ResultRow[] = [];
    notes.push(
      `webhooks: ${EVENTS} events to ${RECEIVERS} loopback receivers, each event to one of them, by an in-process Service's delivery threads (producer and receivers on the main thread, as a served process's requests would be). ` +
        `bare = the same signed POSTs from a loop, one in flight per receiver (each svc lane may have WEBHOOK_INFLIGHT, default 8, in flight, and WEBHOOK_WINDOW=${WINDOW} answers waiting for their record); bare and svc max p50/p99 = POST round trip (svc: the sender's recorded duration, whole ms); ` +
        `svc paced p50/p99 = commit to receipt, one event per transaction for ${PACED_SEC} s at ${PACED_SHARES.map((x) => `${x * 100}%`).join(' and ')} of the svc max rate (req/s = achieved rate).`,
    );
    const only = process.env.BENCH_WEBHOOKS_DIALECTS?.split(',').map((d) => d.trim());
    const chosen = (dialects.includes('mysql') ? (['mysql', 'sqlite'] as Dialect[]) : dialects).filter(
      (d) => !only || only.includes(d) || only.includes(dialectLabel(d)),
    );
    for (const dialect of chosen) {
      const f = await onDialect(dialect);
      // Beside it, the design before this issue's threads: one delivery thread (with this issue's statements).
      const one = f.threads > 1 && process.env.BENCH_WEBHOOKS_ONE_THREAD !== '0' ? await onDialect(dialect, 1, false) : null;
      const db = dialectLabel(dialect);
      const ratio = f.bare.rps > 0 ? f.max.rps / f.bare.rps : 0;
      const row = (target: string, t: Throughput, r?: number): ResultRow => ({
        benchmark: this.name,
        dialect,
        target,
        rps: t.rps,
        p50: t.p50,
        p99: t.p99,
        cpuUsPerRequest: t.cpuUsPerDelivery,
        ratio: r,
        failures: t.failures,
      });
      rows.push(
        row('bare POST loop', f.bare),
        row(`svc deliveries max, ${f.threads} threads`, f.max, ratio),
        ...(one ? [row('bare POST loop (1-thread run)', one.bare), row('svc deliveries max, 1 thread', one.max, one.max.rps / one.bare.rps)] : []),
        ...f.paced.map((p) => row(`svc paced ${p.rate}/s`, p)),
      );
      // The latency target is judged at half the maximum rate, the issue's point: a run there that
      // saturated the process (its queue grew) misses it, whatever its p99 says.
      const judged = f.paced.find((p) => p.share === 0.5) ?? f.paced[0];
      const p99Verdict = judged.saturated
        ? `NOT MET (saturated at ${judged.share * 100}%)`
        : `${judged.p99 < P99_TARGET_MS ? 'MET' : 'NOT MET'} (judged at ${judged.share * 100}%)`;
      notes.push(
        `webhooks ${db}: ${f.max.rps.toFixed(0)} deliveries/s vs bare ${f.bare.rps.toFixed(0)}/s, ratio ${ratio.toFixed(3)} (target >= ${RATIO_TARGET}): ${ratio >= RATIO_TARGET ? 'MET' : 'NOT MET'}; ` +
          f.paced
            .map(
              (p) =>
                `paced ${p.events} events at ${p.rps.toFixed(0)}/s (${p.share * 100}% asked, ${p.rate}/s): commit to receipt p50 ${p.p50.toFixed(1)} ms, p99 ${p.p99.toFixed(1)} ms` +
                (p.saturated
                  ? ` (saturated: the last delivery came ${p.lagMs.toFixed(0)} ms after the last commit, since producing shares the worker's thread)`
                  : ''),
            )
            .join('; ') +
          `; target p99 < ${P99_TARGET_MS} ms at half the max rate, not saturated: ${p99Verdict}`,
        f.breakdown,
        ...(one
          ? [
              `webhooks ${db}, before this issue's threads (one delivery thread, DELIVERY_THREADS=1): ${one.max.rps.toFixed(0)} deliveries/s vs bare ${one.bare.rps.toFixed(0)}/s, ratio ${(one.max.rps / one.bare.rps).toFixed(3)}`,
              one.breakdown,
            ]
          : []),
      );
      if (ratio < RATIO_TARGET) {
        notes.push(
          `webhooks ${db}: a lane has up to WEBHOOK_INFLIGHT requests in flight, so on loopback the bound is the delivery thread's CPU per delivery (above, against the bare loop's), ` +
            `not the round trip (the receiver-50-ms benchmark shows what the window does to a real one). ` +
            `The database's part is the records (one multi-row insert for the attempts answered together, committed while the lane's next requests go out, at most ${WINDOW} unrecorded).` +
            (dialect === 'sqlite'
              ? ` Each SQLite commit also syncs the log file (synchronous=FULL) on the committing thread's event loop, and the threads and the producer take turns at the file's one write lock.`
              : ''),
        );
      }
      if (f.max.failures) notes.push(`WARNING webhooks ${db}: ${f.max.failures} attempts did not answer 200; the figures are suspect.`);
    }
    return { rows, notes };
  },
};
