// Worker thread for bench/lib.ts `loadTest`: runs autocannon (warm-up, then the measured run)
// away from the main thread that serves the requests, and posts the figures back.
//
// Off the main thread autocannon returns its raw per-instance result (no aggregation, and its
// latency histogram has 1 ms resolution), so the figures are computed here: throughput from the
// completed requests over the measured duration, percentiles from every response time (float ms).

import { parentPort, workerData } from 'node:worker_threads';
import autocannon from 'autocannon';
import type { WorkerLoadResult } from './lib.js';

interface Job {
  url: string;
  headers: Record<string, string>;
  connections: number;
  durationSec: number;
  warmupSec: number;
  method?: 'GET' | 'POST';
  body?: string;
}

interface RawResult {
  totalCompletedRequests: number;
  duration: number;
  non2xx: number;
  errors: number;
  timeouts: number;
}

function run(job: Job, seconds: number): Promise<{ raw: RawResult; times: Float64Array }> {
  const opts: autocannon.Options = {
    url: job.url,
    method: job.method ?? 'GET',
    body: job.body,
    headers: job.headers,
    connections: job.connections,
    duration: seconds,
    timeout: 10,
  };
  let times = new Float64Array(1 << 16);
  let n = 0;
  return new Promise((resolve, reject) => {
    const instance = autocannon(opts, (err, result) => {
      if (err) reject(err);
      else resolve({ raw: result as unknown as RawResult, times: times.subarray(0, n) });
    });
    instance.on('response', (_client: unknown, _status: number, _bytes: number, ms: number) => {
      if (n === times.length) {
        const bigger = new Float64Array(times.length * 2);
        bigger.set(times);
        times = bigger;
      }
      times[n++] = ms;
    });
  });
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return 0;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i];
}

const job = workerData as Job;
if (job.warmupSec > 0) await run(job, job.warmupSec);
parentPort!.postMessage({ measuring: true });
const { raw, times } = await run(job, job.durationSec);
times.sort();
const result: WorkerLoadResult = {
  rps: raw.duration > 0 ? raw.totalCompletedRequests / raw.duration : 0,
  p50: percentile(times, 50),
  p99: percentile(times, 99),
  total: raw.totalCompletedRequests,
  non2xx: raw.non2xx,
  errors: raw.errors,
  timeouts: raw.timeouts,
};
parentPort!.postMessage({ result });
