// A webhook receiver for tests: a real HTTP server on loopback that verifies every request with the
// `standardwebhooks` package (with each secret it is given, so rotations can be followed), records
// what arrived, and answers as the test says (a status per request, or held until released). A
// request whose sender went away before the answer (e.g. it was killed) is dropped, not delivered.

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface Received {
  id: string;
  timestamp: string;
  signature: string;
  /** The `webhook-sequence` header: increases with each event sent to the endpoint (null when absent). */
  sequence: number | null;
  body: { type: string; timestamp: string; data: Record<string, any> };
  /** Secrets (by index in `secrets`) whose signature verified. */
  verifiedWith: number[];
  /** False when the sender went away before the answer was written (not delivered). */
  answered: boolean;
}

export interface ReceiverOptions {
  /** Status to answer each request with (default 200); may look at how many came before. */
  status?: (n: number, r: Received) => number;
  /** Milliseconds to wait before answering. */
  delayMs?: number;
}

export class WebhookReceiver {
  /** Requests answered, in the order they were answered. */
  readonly received: Received[] = [];
  /** Requests whose sender went away before they were answered (e.g. it was killed): not delivered. */
  readonly dropped: Received[] = [];
  secrets: string[] = [];
  /** Requests being handled right now, and the most there ever were at once. */
  inflight = 0;
  maxInflight = 0;
  private server!: http.Server;
  private held: Array<() => void> | null = null;
  private waiters: Array<{ count: number; resolve: () => void }> = [];
  url = '';

  constructor(private readonly options: ReceiverOptions = {}) {}

  async start(path = '/hooks'): Promise<this> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => void this.handle(req, res, Buffer.concat(chunks).toString('utf8')));
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}${path}`;
    return this;
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse, raw: string): Promise<void> {
    const headers = {
      'webhook-id': String(req.headers['webhook-id']),
      'webhook-timestamp': String(req.headers['webhook-timestamp']),
      'webhook-signature': String(req.headers['webhook-signature']),
    };
    const verifiedWith: number[] = [];
    this.secrets.forEach((secret, i) => {
      try {
        new Webhook(secret).verify(raw, headers);
        verifiedWith.push(i);
      } catch {
        // not signed with this secret
      }
    });
    const r: Received = {
      id: headers['webhook-id'],
      timestamp: headers['webhook-timestamp'],
      signature: headers['webhook-signature'],
      sequence: req.headers['webhook-sequence'] === undefined ? null : Number(req.headers['webhook-sequence']),
      body: JSON.parse(raw),
      verifiedWith,
      answered: false,
    };
    let senderGone = false;
    this.inflight++;
    this.maxInflight = Math.max(this.maxInflight, this.inflight);
    const gone = () => {
      if (senderGone || r.answered) return;
      senderGone = true;
      this.inflight--;
      this.dropped.push(r);
    };
    // A sender that dies closes its socket: the request is dropped at once, even while it is held.
    res.on('close', () => {
      if (!res.writableFinished) gone();
    });
    if (this.held) await new Promise<void>((resume) => this.held!.push(resume));
    if (this.options.delayMs) await new Promise((d) => setTimeout(d, this.options.delayMs));
    if (res.destroyed || req.socket.destroyed) gone();
    if (senderGone) return;
    const status = this.options.status ? this.options.status(this.received.length, r) : 200;
    r.answered = true;
    this.inflight--;
    this.received.push(r);
    res.writeHead(status, { 'content-type': 'text/plain' });
    res.end(status < 300 ? 'ok' : `status ${status}`);
    this.waiters = this.waiters.filter((w) => (this.received.length >= w.count ? (w.resolve(), false) : true));
  }

  /** Resolves once `count` requests were answered. */
  waitFor(count: number, timeoutMs = 20_000): Promise<void> {
    if (this.received.length >= count) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`receiver got ${this.received.length} of ${count} deliveries in ${timeoutMs} ms`)), timeoutMs);
      this.waiters.push({ count, resolve: () => (clearTimeout(timer), resolve()) });
    });
  }

  /** From now on requests wait unanswered until `release`. */
  hold(): void {
    this.held ??= [];
  }

  /** Requests waiting unanswered right now (a dropped one stays counted until `release`). */
  get waiting(): number {
    return this.held?.length ?? 0;
  }

  release(): void {
    const held = this.held ?? [];
    this.held = null;
    for (const resume of held) resume();
  }

  /** Event ids answered more than once (a receiver deduping by webhook-id would have dropped them). */
  duplicates(): string[] {
    const seen = new Set<string>();
    const twice = new Set<string>();
    for (const r of this.received) (seen.has(r.id) ? twice : seen).add(r.id);
    return [...twice];
  }

  async close(): Promise<void> {
    this.release();
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}
