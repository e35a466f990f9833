// The service's Prometheus instruments, on a registry of its own (never prom-client's global one).
// prom-client is loaded only when METRICS_TOKEN is set; until then every instrument is a no-op.
// Labels come only from fixed vocabularies: surfaces, operation names, status codes, job kinds,
// platforms, adapter calls, outcomes and reasons; never an organization, brand, key, user or URL.

import type * as Prom from 'prom-client';

export type RequestSurface = 'api' | 'mcp' | 'console' | 'job';
export type JobRunOutcome = 'ok' | 'failed' | 'given_up';
export type WebhookOutcome = 'delivered' | 'rejected' | 'failed' | 'refused';
export type PlatformCallOutcome = 'ok' | 'throttled' | 'error';
export type RefusalReason = 'url' | 'address' | 'unresolved';

/** What the queue holds now, one row per kind with due jobs nobody holds. */
export interface QueueReading {
  kind: string;
  ready: number;
  /** Epoch ms of the oldest due run_at among them. */
  oldestDue: number;
}

interface Instruments {
  registry: Prom.Registry;
  requests: Prom.Counter<'surface' | 'operation' | 'status'>;
  requestSeconds: Prom.Histogram<'surface' | 'operation'>;
  jobsReady: Prom.Gauge<'kind'>;
  jobsOldestDue: Prom.Gauge<'kind'>;
  jobRuns: Prom.Counter<'kind' | 'outcome'>;
  webhookDeliveries: Prom.Counter<'outcome'>;
  platformCalls: Prom.Counter<'platform' | 'call' | 'outcome'>;
  platformSeconds: Prom.Histogram<'platform' | 'call'>;
  outboundRefused: Prom.Counter<'reason'>;
  automationCycleSeconds: Prom.Histogram<'trigger'>;
}

let on: Instruments | null = null;
let loading: Promise<void> | null = null;

/** Where the queue gauges are read at scrape time, and the job kinds always reported (0 when none is due). */
let queue: { read: (now: number) => Promise<QueueReading[]>; kinds: string[] } | null = null;

/** Loads prom-client and builds the instruments (once per process); called at start-up when METRICS_TOKEN is set. */
export function enableMetrics(): Promise<void> {
  return (loading ??= import('prom-client').then((prom) => {
    const registry = new prom.Registry();
    prom.collectDefaultMetrics({ register: registry });
    const registers = [registry];
    const seconds = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
    on = {
      registry,
      requests: new prom.Counter({
        name: 'svc_requests_total',
        help: 'Operations carried out, by surface (api, mcp, job), operation and HTTP status answered.',
        labelNames: ['surface', 'operation', 'status'],
        registers,
      }),
      requestSeconds: new prom.Histogram({
        name: 'svc_request_duration_seconds',
        help: 'Time from the pipeline taking an operation to its answer, by surface and operation.',
        labelNames: ['surface', 'operation'],
        buckets: seconds,
        registers,
      }),
      jobsReady: new prom.Gauge({
        name: 'svc_jobs_ready',
        help: 'Jobs due now that no process holds, by kind (read at scrape time).',
        labelNames: ['kind'],
        registers,
      }),
      jobsOldestDue: new prom.Gauge({
        name: 'svc_jobs_oldest_due_age_seconds',
        help: 'How long the oldest due job nobody holds has been waiting, by kind (0 when none is due; read at scrape time).',
        labelNames: ['kind'],
        registers,
      }),
      jobRuns: new prom.Counter({
        name: 'svc_job_runs_total',
        help: 'Jobs run by this process, by kind and outcome (ok, failed = retried later, given_up).',
        labelNames: ['kind', 'outcome'],
        registers,
      }),
      webhookDeliveries: new prom.Counter({
        name: 'svc_webhook_deliveries_total',
        help: 'Webhook sends, by outcome (delivered = 2xx, rejected = another status, failed = no answer, refused = address rule).',
        labelNames: ['outcome'],
        registers,
      }),
      platformCalls: new prom.Counter({
        name: 'svc_platform_calls_total',
        help: 'Ad-platform adapter calls, by platform, call and outcome (ok, throttled, error).',
        labelNames: ['platform', 'call', 'outcome'],
        registers,
      }),
      platformSeconds: new prom.Histogram({
        name: 'svc_platform_call_duration_seconds',
        help: 'Time of ad-platform adapter calls (their own retries and waits included), by platform and call.',
        labelNames: ['platform', 'call'],
        buckets: seconds,
        registers,
      }),
      outboundRefused: new prom.Counter({
        name: 'svc_outbound_refused_total',
        help: 'Outbound requests refused before anything was sent, by reason (url, address, unresolved).',
        labelNames: ['reason'],
        registers,
      }),
      automationCycleSeconds: new prom.Histogram({
        name: 'svc_automation_cycle_duration_seconds',
        help: 'Time of one automation cycle (every due automation of one ad account), by trigger.',
        labelNames: ['trigger'],
        buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
        registers,
      }),
    };
  }));
}

/** Tells the scrape how to read the queue gauges (one cheap query) and which job kinds exist. */
export function observeQueue(read: (now: number) => Promise<QueueReading[]>, kinds: string[]): () => void {
  const mine = { read, kinds };
  queue = mine;
  return () => {
    if (queue === mine) queue = null;
  };
}

/** Counts one operation answered on a surface. */
export function countRequest(surface: RequestSurface, operation: string, status: number, seconds: number): void {
  if (!on) return;
  on.requests.inc({ surface, operation, status: String(status) });
  on.requestSeconds.observe({ surface, operation }, seconds);
}

/** Counts one job run's outcome. */
export function countJobRun(kind: string, outcome: JobRunOutcome): void {
  on?.jobRuns.inc({ kind, outcome });
}

/** Counts one webhook send by its outcome. */
export function countWebhookDelivery(outcome: WebhookOutcome): void {
  on?.webhookDeliveries.inc({ outcome });
}

/** Counts one ad-platform adapter call and its time. */
export function countPlatformCall(platform: string, call: string, outcome: PlatformCallOutcome, seconds: number): void {
  if (!on) return;
  on.platformCalls.inc({ platform, call, outcome });
  on.platformSeconds.observe({ platform, call }, seconds);
}

/** Counts one outbound request refused before it was sent. */
export function countOutboundRefused(reason: RefusalReason): void {
  on?.outboundRefused.inc({ reason });
}

/** Times `cycle`, one automation cycle, whatever its outcome. */
export async function timeAutomationCycle<T>(trigger: 'schedule' | 'manual', cycle: () => Promise<T>): Promise<T> {
  if (!on) return cycle();
  const stop = on.automationCycleSeconds.startTimer({ trigger });
  try {
    return await cycle();
  } finally {
    stop();
  }
}

/** The exposition (Prometheus text format 0.0.4), the queue gauges read first; null when metrics are off. */
export async function exposition(now: number, onReadError: (err: unknown) => void): Promise<{ contentType: string; body: string } | null> {
  if (!on) return null;
  if (queue) {
    try {
      const rows = await queue.read(now);
      on.jobsReady.reset();
      on.jobsOldestDue.reset();
      for (const kind of queue.kinds) {
        on.jobsReady.set({ kind }, 0);
        on.jobsOldestDue.set({ kind }, 0);
      }
      for (const r of rows) {
        // A kind this build does not know (left by another version) is not a fixed label value.
        if (!queue.kinds.includes(r.kind)) continue;
        on.jobsReady.set({ kind: r.kind }, r.ready);
        on.jobsOldestDue.set({ kind: r.kind }, Math.max(0, (now - r.oldestDue) / 1000));
      }
    } catch (err) {
      onReadError(err);
    }
  }
  return { contentType: on.registry.contentType, body: await on.registry.metrics() };
}
