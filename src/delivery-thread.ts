// The delivery threads, seen from the process that serves requests (DELIVERY_THREAD=on, JOBS=on):
// DELIVERY_THREADS worker threads (src/delivery-thread-main.ts), each opening the service again with
// its own database connection, outbound client and job worker, and claiming only its share of the
// webhook deliveries: the endpoints' lanes whose endpoint id modulo the thread count is its index
// (so an endpoint's deliveries always go out from one thread, in order), and thread 0 also the
// fan-out of events into deliveries. The request loop writes events; the threads sign and send them.
// Nothing crosses between them but nudges: the queue in the database is the truth, so a thread that
// dies loses nothing (its leases run out, and the thread started again in its place takes them over).

import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';

/** What the thread is told when it starts. */
export interface DeliveryThreadData {
  /** The environment it builds its configuration from (the process's own, as `svc-server serve` read it). */
  env: Record<string, string | undefined>;
  /** Which share of the endpoints' lanes the thread claims: endpoint id modulo `count` equal to `index` (set by DeliveryThreads). */
  shard?: { count: number; index: number };
  /** A module the thread imports once its service is open (benchmarks load their probes this way). */
  probe?: string;
}

/** Messages from the process to the thread. */
export type ToThread = { type: 'nudge' } | { type: 'stop'; graceMs: number } | { type: 'probe'; id: number; request: unknown };

/** Messages from the thread to the process. */
export type FromThread = { type: 'claiming'; claiming: boolean } | { type: 'stopped' } | { type: 'probe'; id: number; answer: unknown };

/** A thread that died is started again after this long. */
const RESTART_MS = 1_000;

/** One delivery thread, started again after RESTART_MS whenever it ends without being asked to. */
export class DeliveryThread {
  private worker: Worker | null = null;
  /** Times the thread was started (the first start included). */
  private starts = 0;
  private claimingNow = false;
  private nudgeQueued = false;
  private stopping: Promise<void> | null = null;
  private restart: NodeJS.Timeout | null = null;
  private probes = new Map<number, (answer: unknown) => void>();
  private nextProbe = 0;

  constructor(
    private readonly data: DeliveryThreadData,
    private readonly log: Logger,
  ) {}

  /**
   * Starts the thread (it opens its service and starts claiming on its own). Resolves once it
   * claims, or once it ended without claiming (the failure is logged and the thread started again).
   */
  start(): Promise<void> {
    if (this.worker || this.stopping) return Promise.resolve();
    const worker = new Worker(new URL('./delivery-thread-main.js', import.meta.url), { workerData: this.data, env: this.data.env });
    this.worker = worker;
    this.starts++;
    let started: () => void = () => {};
    const claimed = new Promise<void>((resolve) => (started = resolve));
    worker.on('message', (m: FromThread) => {
      if (m.type === 'claiming') {
        this.claimingNow = m.claiming;
        if (m.claiming) started();
      } else if (m.type === 'probe') {
        this.probes.get(m.id)?.(m.answer);
        this.probes.delete(m.id);
      }
    });
    worker.on('error', (err) => this.log.error({ err }, 'the delivery thread failed'));
    worker.on('exit', (code) => {
      started();
      this.worker = null;
      this.claimingNow = false;
      if (this.stopping) return;
      this.log.error({ code, restartInMs: RESTART_MS, shard: this.data.shard }, 'the delivery thread ended; starting it again');
      this.restart = setTimeout(() => {
        this.restart = null;
        void this.start();
      }, RESTART_MS);
    });
    return claimed;
  }

  /** True once the thread's worker claims (readiness). */
  claiming(): boolean {
    return this.claimingNow;
  }

  /** How many times the thread was started: 1, plus one per restart after it died. */
  get started(): number {
    return this.starts;
  }

  /**
   * Ends the thread at once, as a crash would (its requests cut off, its leases left to run out):
   * it is started again like a thread that died. For tests and diagnostics.
   */
  async kill(): Promise<void> {
    await this.worker?.terminate();
  }

  /** Tells the thread that work became due (folded: one message per turn of the event loop). */
  nudge(): void {
    if (this.nudgeQueued || !this.worker) return;
    this.nudgeQueued = true;
    queueMicrotask(() => {
      this.nudgeQueued = false;
      this.worker?.postMessage({ type: 'nudge' } satisfies ToThread);
    });
  }

  /** Asks the thread's probe (see DeliveryThreadData.probe) and waits for its answer. */
  ask(request: unknown): Promise<unknown> {
    const worker = this.worker;
    if (!worker) return Promise.reject(new Error('the delivery thread is not running'));
    const id = ++this.nextProbe;
    return new Promise((resolve) => {
      this.probes.set(id, resolve);
      worker.postMessage({ type: 'probe', id, request } satisfies ToThread);
    });
  }

  /**
   * Stops the thread: it claims no more, its running deliveries get `graceMs` and are then released
   * to other processes, and its pools close. A thread that does not end 10 s after that is terminated.
   */
  stop(graceMs: number): Promise<void> {
    return (this.stopping ??= this.stopNow(graceMs));
  }

  private async stopNow(graceMs: number): Promise<void> {
    if (this.restart) clearTimeout(this.restart);
    const worker = this.worker;
    if (!worker) return;
    const ended = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.postMessage({ type: 'stop', graceMs: Number.isFinite(graceMs) ? graceMs : 2 ** 31 - 1 } satisfies ToThread);
    const timer = setTimeout(
      () => {
        this.log.error('the delivery thread did not stop in time; terminating it');
        void worker.terminate();
      },
      (Number.isFinite(graceMs) ? graceMs : 30_000) + 10_000,
    );
    await ended;
    clearTimeout(timer);
  }
}

/** The process's delivery threads (DELIVERY_THREADS of them), each claiming its share of the endpoints' lanes. */
export class DeliveryThreads {
  readonly threads: DeliveryThread[];

  constructor(data: DeliveryThreadData, count: number, log: Logger) {
    this.threads = Array.from({ length: count }, (_, index) => new DeliveryThread({ ...data, shard: { count, index } }, log.child({ deliveryThread: index })));
  }

  /** Starts every thread; resolves once each claims (or ended without claiming and is being started again). */
  async start(): Promise<void> {
    await Promise.all(this.threads.map((t) => t.start()));
  }

  /** True once every thread claims (readiness). */
  claiming(): boolean {
    return this.threads.every((t) => t.claiming());
  }

  /** Tells every thread that work became due (the queue says whose it is). */
  nudge(): void {
    for (const t of this.threads) t.nudge();
  }

  /** Asks every thread's probe, answers in thread order. */
  ask(request: unknown): Promise<unknown[]> {
    return Promise.all(this.threads.map((t) => t.ask(request)));
  }

  /** Stops every thread (see DeliveryThread.stop). */
  async stop(graceMs: number): Promise<void> {
    await Promise.all(this.threads.map((t) => t.stop(graceMs)));
  }
}
