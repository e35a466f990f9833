// get-insights at campaign level, by day, for an ad account of 1,000 sandbox campaigns over 90 days
// (90,000 rows): the time to the first page (limit 100, uncached: METRICS_CACHE_SECONDS=0, so each
// request computes every row, pages the first 100 and sums all 90,000 for the totals in one pass),
// against a bare read of the same rows measured in the same run (the sandbox adapter's `report` called
// in-process, no HTTP, pipeline, paging or totals), on SQLite. Target: first page p50 under 500 ms.

import http from 'node:http';
import { SandboxPlatform } from '../src/platforms/sandbox/adapter.js';
import type { AdAccount, ReportRow } from '../src/platforms/port.js';
import { addDays, localDate } from '../src/time/zones.js';
import { sumRows } from '../src/reports/figures.js';
import { benchWorld, median, progress, startBenchService, type Benchmark, type BenchmarkOutput, type ResultRow } from './lib.js';

const CAMPAIGNS = 1_000;
const DAYS = 90;
const RUNS = 7;
const FIRST_PAGE_TARGET_MS = 500;
const ACCOUNT = 'act_1001';
const TIME_ZONE = 'America/New_York';

/**
 * GET on a connection of its own: the bare read blocks this process's event loop for a while, and a
 * kept-alive socket the server closed meanwhile would fail the next request (ECONNRESET).
 */
function getFresh(url: string, key: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent: false, headers: { authorization: `Bearer ${key}` } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

function world(): typeof benchWorld {
  const w = structuredClone(benchWorld);
  const brand = w.organizations[0].brands.find((b) => b.ref === 'b1')!;
  const campaigns = Array.from({ length: CAMPAIGNS }, (_, i) => ({
    accountId: ACCOUNT,
    id: `1203${String(1_000_000_000 + i).padStart(13, '0')}`,
    name: `Report campaign #${String(i + 1).padStart(4, '0')}`,
    status: 'ACTIVE',
    objective: 'OUTCOME_SALES',
    budget: { period: 'daily', amountMinorUnits: 2_000 + ((i * 37) % 8_000) },
  }));
  Object.assign(brand, { sandbox: { campaigns } });
  return w;
}

export const benchmark: Benchmark = {
  name: 'get-insights 1000x90',
  order: 40,
  async run(): Promise<BenchmarkOutput> {
    const notes: string[] = [];
    const rows: ResultRow[] = [];
    progress(`insights: bootstrapping ${CAMPAIGNS} sandbox campaigns live for ${DAYS + 1} days`);
    const svc = await startBenchService('sqlite', { env: { METRICS_CACHE_SECONDS: '0' }, bootstrap: world() });
    try {
      // The seeded campaigns went live when bootstrapped: move their history back before the period.
      const now = Date.now();
      await svc.service.knex('sandbox_status_events').update({ at: now - (DAYS + 2) * 86_400_000 });
      const today = localDate(now, TIME_ZONE);
      const period = { since: addDays(today, -DAYS), until: addDays(today, -1) };
      const brandId = svc.seed.organizations.bench.brands.b1.id;
      const url = `${svc.url}/v1/brands/${brandId}/ad-accounts/${ACCOUNT}/insights?level=campaign&breakdown=day&since=${period.since}&until=${period.until}&limit=100`;

      const platform = new SandboxPlatform('meta', svc.service.knex);
      const account: AdAccount = { platform: 'meta', accountId: ACCOUNT, timezone: TIME_ZONE, currency: 'USD', accessToken: null };
      const bare: number[] = [];
      const first: number[] = [];
      let all: ReportRow[] = [];
      let answer: { rows: unknown[]; totals: { spend: number; impressions: number; clicks: number; results: number }; nextCursor: string | null } | null = null;
      for (let i = 0; i < RUNS; i++) {
        let t = performance.now();
        all = await platform.report(account, { level: 'campaign', window: period, breakdown: 'day', campaignIds: null });
        bare.push(performance.now() - t);
        t = performance.now();
        const res = await getFresh(url, svc.key);
        const text = res.text;
        first.push(performance.now() - t);
        if (res.status !== 200) throw new Error(`GET insights answered ${res.status}: ${text.slice(0, 300)}`);
        answer = JSON.parse(text);
      }
      if (all.length !== CAMPAIGNS * DAYS) throw new Error(`the bare read has ${all.length} rows, expected ${CAMPAIGNS * DAYS}`);
      const sums = sumRows(all);
      if (!answer || answer.rows.length !== 100 || !answer.nextCursor) throw new Error('the first page does not hold 100 rows and a next cursor');
      for (const k of ['spend', 'impressions', 'clicks', 'results'] as const) {
        if (answer.totals[k] !== sums[k]) throw new Error(`totals.${k} ${answer.totals[k]} is not the sum of the 90,000 rows (${sums[k]})`);
      }
      const t = performance.now();
      for (let i = 0; i < 10; i++) sumRows(all);
      const totalsMs = (performance.now() - t) / 10;
      const p50 = median(first);
      const bareP50 = median(bare);
      rows.push(
        {
          benchmark: this.name,
          dialect: 'sqlite',
          target: 'bare report read',
          rps: 1000 / bareP50,
          p50: bareP50,
          p99: Math.max(...bare),
          cpuUsPerRequest: NaN,
          failures: 0,
        },
        {
          benchmark: this.name,
          dialect: 'sqlite',
          target: 'first page + totals',
          rps: 1000 / p50,
          p50,
          p99: Math.max(...first),
          cpuUsPerRequest: NaN,
          ratio: bareP50 / p50,
          failures: 0,
        },
      );
      notes.push(
        `get-insights: ${CAMPAIGNS} campaigns x ${DAYS} days = ${all.length} rows, level campaign, breakdown day, limit 100, uncached; ${RUNS} requests, ` +
          `p50 ${p50.toFixed(0)} ms (slowest ${Math.max(...first).toFixed(0)} ms) against a bare read of the same rows p50 ${bareP50.toFixed(0)} ms ` +
          `(svc/bare = bare time / svc time ${(bareP50 / p50).toFixed(2)}); the totals over all ${all.length} rows take ${totalsMs.toFixed(1)} ms in one pass ` +
          `and equal the rows' sums. Target first page < ${FIRST_PAGE_TARGET_MS} ms: ${p50 < FIRST_PAGE_TARGET_MS ? 'met' : 'not met'}.`,
      );
      return { rows, notes };
    } finally {
      await svc.close();
    }
  },
};
