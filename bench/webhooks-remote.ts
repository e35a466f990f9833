// Webhook deliveries to one endpoint 50 ms away: a loopback receiver that answers every POST after
// 50 ms (a real receiver is tens of milliseconds from the service), fed by the real delivery thread
// of an in-process Service, with the endpoint's window at WEBHOOK_INFLIGHT=8 (the default) against
// one request at a time (WEBHOOK_INFLIGHT=1, the design before issue 64), on MariaDB (when it
// answers) and SQLite. One at a time, an endpoint's rate is one over the round trip (about 20/s);
// the window lets eight overlap. Target: the window at least 4x one at a time.

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { inTransaction, type Dialect } from '../src/db/connection.js';
import { producedData } from '../test/helpers/event-producer.js';
import { availableDialects, dialectLabel, progress, startBenchService, type Benchmark, type BenchmarkOutput, type ResultRow } from './lib.js';

/** Events per run: enough for a steady rate at ~20/s one at a time. */
const EVENTS = Number(process.env.BENCH_WEBHOOKS_REMOTE_EVENTS) || 200;
const DELAY_MS = 50;
const WINDOW = 8;
export const REMOTE_TARGET = 4;

const world = {
  organizations: [
    {
      ref: 'bench',
      name: 'Bench Remote Hooks',
      plan: 'agency',
      subscriptionStatus: 'active',
      brands: [{ ref: 'b0', name: 'Brand 0', adAccounts: [] }],
      apiKeys: [{ ref: 'ops', name: 'Bench ops', scopes: ['read', 'write'], surfaces: { api: true, mcp: false }, brands: null }],
    },
  ],
};

/** A receiver that answers 200 after DELAY_MS, counting arrivals and the most requests it held at once. */
class SlowReceiver {
  url = '';
  answered = 0;
  private inflight = 0;
  maxInflight = 0;
  private server!: http.Server;
  private waiter: { count: number; resolve: () => void } | null = null;

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => {
      this.inflight++;
      this.maxInflight = Math.max(this.maxInflight, this.inflight);
      req.resume();
      req.on('end', () =>
        setTimeout(() => {
          this.inflight--;
          res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
          this.answered++;
          if (this.waiter && this.answered >= this.waiter.count) this.waiter.resolve();
        }, DELAY_MS),
      );
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks`;
    return this;
  }

  waitFor(count: number, timeoutMs: number): Promise<void> {
    if (this.answered >= count) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the receiver got ${this.answered} of ${count} in ${timeoutMs} ms`)), timeoutMs);
      this.waiter = { count, resolve: () => (clearTimeout(timer), resolve()) };
    });
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}

/** Deliveries a second to the one endpoint, with `inflight` requests allowed at once. */
async function run(dialect: Dialect, inflight: number): Promise<{ rps: number; maxInflight: number; p50: number; p99: number; failures: number }> {
  const label = `webhooks 50 ms/${dialectLabel(dialect)} (WEBHOOK_INFLIGHT=${inflight}): `;
  const receiver = await new SlowReceiver().start();
  progress(`${label}migrating and bootstrapping a fresh database`);
  const svc = await startBenchService(dialect, {
    bootstrap: world,
    env: { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_INFLIGHT: String(inflight), DELIVERY_THREADS: '1' },
    deliveryThread: {},
  });
  try {
    const org = svc.seed.organizations.bench;
    const created = await fetch(`${svc.url}/v1/webhook-endpoints`, {
      method: 'POST',
      headers: { authorization: `Bearer ${org.apiKeys.ops.secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: receiver.url, events: ['budget.changed'], brandIds: null }),
    });
    if (created.status !== 201) throw new Error(`create-webhook-endpoint answered ${created.status}: ${await created.text()}`);
    progress(`${label}committing ${EVENTS} events before the worker starts`);
    const brandId = org.brands.b0.id;
    for (let done = 0; done < EVENTS; done += 50) {
      await inTransaction(svc.service.knex, async (trx) => {
        for (let i = done; i < Math.min(EVENTS, done + 50); i++)
          await svc.service.events.emit(trx, { organizationId: org.id, brandId, type: 'budget.changed', data: producedData(brandId, i) });
      });
    }
    await svc.service.startJobs();
    const t0 = performance.now();
    await receiver.waitFor(EVENTS, 120_000);
    const seconds = (performance.now() - t0) / 1000;
    const durations = (await svc.service.knex('webhook_attempts').pluck('duration_ms')).map(Number).sort((a, b) => a - b);
    const at = (p: number) => durations[Math.min(durations.length - 1, Math.floor((p / 100) * durations.length))] ?? NaN;
    const failures = Number(
      (await svc.service.knex('webhook_attempts').whereNot('status_code', 200).orWhereNull('status_code').count({ n: '*' }).first())?.n ?? 0,
    );
    return { rps: EVENTS / seconds, maxInflight: receiver.maxInflight, p50: at(50), p99: at(99), failures };
  } finally {
    await svc.close().catch((err) => progress(`${label}closing the service failed: ${(err as Error).message}`));
    await receiver.close();
  }
}

export const benchmark: Benchmark = {
  name: 'webhooks to a receiver 50 ms away',
  order: 31,
  async run(): Promise<BenchmarkOutput> {
    const { dialects, notes } = await availableDialects();
    const rows: ResultRow[] = [];
    for (const dialect of dialects.includes('mysql') ? (['mysql', 'sqlite'] as Dialect[]) : dialects) {
      const one = await run(dialect, 1);
      const window = await run(dialect, WINDOW);
      const gain = window.rps / one.rps;
      const row = (target: string, f: typeof one, ratio?: number): ResultRow => ({
        benchmark: this.name,
        dialect,
        target,
        rps: f.rps,
        p50: f.p50,
        p99: f.p99,
        cpuUsPerRequest: NaN,
        ratio,
        failures: f.failures,
      });
      rows.push(row('one endpoint, one request at a time', one), row(`one endpoint, window of ${WINDOW}`, window, gain));
      notes.push(
        `webhooks 50 ms ${dialectLabel(dialect)}: ${EVENTS} events to one endpoint whose receiver answers after ${DELAY_MS} ms: ` +
          `${one.rps.toFixed(1)}/s one at a time (at most ${one.maxInflight} in flight), ${window.rps.toFixed(1)}/s with WEBHOOK_INFLIGHT=${WINDOW} ` +
          `(at most ${window.maxInflight} in flight): ${gain.toFixed(2)}x (target >= ${REMOTE_TARGET}x): ${gain >= REMOTE_TARGET ? 'MET' : 'NOT MET'}; ` +
          `the svc/bare column of the window row is this gain. p50/p99 = the sender's recorded POST time.`,
      );
    }
    return { rows, notes };
  },
};
