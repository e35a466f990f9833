// What the fake platform servers (meta-server.ts, tiktok-server.ts) share: a loopback HTTP server
// that logs every request, the fault switches every platform has (a bare 5xx, a slow answer, a create
// that is applied but whose answer is dropped), and the small value helpers both APIs need.

import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A bare 5xx answer, queued by `serverErrorNext`. */
export interface ServerFault {
  kind: 'server';
  status: number;
}

/** One request as the server received it, body read. */
export interface ReceivedRequest {
  req: http.IncomingMessage;
  url: URL;
  method: string;
  body: Buffer;
}

/**
 * A fake platform API on loopback. A subclass turns a request into an answer (`respond`, taking the
 * next queued fault itself) and writes it out (`write`); this class holds the request log and the
 * shared fault switches, and decides whether, and when, the answer is sent.
 */
export abstract class FaultServer<
  Answer extends { created?: boolean },
  Fault,
  Logged extends { method: string; path: string } = { method: string; path: string },
> {
  /** Every HTTP request, in order. */
  readonly requests: Logged[] = [];
  /** For each of `requests` (same index), ms from its arrival to its answer written (benchmarks read it). */
  readonly answerMs: number[] = [];
  /** Delay added before every answer. */
  delayMs = 0;
  /** Faults for the next requests, one each, in order. */
  protected readonly faults: Array<Fault | ServerFault> = [];
  private readonly slow: number[] = [];
  private dropCreates = 0;
  private downUntil = 0;
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly server = http.createServer((req, res) => void this.handle(req, res));

  /** `basePath`: the path of the API's root below the server's origin (`url` ends with it). */
  protected constructor(private readonly basePath: string) {}

  protected async listen(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return this;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}${this.basePath}`;
  }

  get roundTrips(): number {
    return this.requests.length;
  }

  async close(): Promise<void> {
    for (const t of this.timers) clearTimeout(t);
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  // ---- fault switches ------------------------------------------------------------------------

  protected queueFaults(n: number, fault: Fault | ServerFault): void {
    for (let i = 0; i < n; i++) this.faults.push(fault);
  }

  /** The next `n` requests answer a bare 5xx without the API's body. */
  serverErrorNext(n: number, status = 503): void {
    this.queueFaults(n, { kind: 'server', status });
  }

  /** The next `n` requests are handled at once but answered only after `ms`. */
  slowNext(n: number, ms: number): void {
    for (let i = 0; i < n; i++) this.slow.push(ms);
  }

  /** Every request for the next `ms` answers a bare 503 without the API's body (an outage), whatever it asks. */
  outageFor(ms: number): void {
    this.downUntil = Date.now() + ms;
  }

  /** The next request that creates objects is applied, then its connection is closed without an answer. */
  dropNextCreate(): void {
    this.dropCreates++;
  }

  // ---- HTTP ----------------------------------------------------------------------------------

  /** Logs the request, applies the next fault or routes it, and gives back the answer. */
  protected abstract respond(request: ReceivedRequest): Answer;

  /** Writes an answer out. */
  protected abstract write(res: http.ServerResponse, answer: Answer): void;

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const arrived = performance.now();
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const url = new URL(req.url ?? '/', 'http://fake');
    const method = (req.method ?? 'GET').toUpperCase();
    if (Date.now() < this.downUntil) {
      res.writeHead(503, { 'content-type': 'text/plain' });
      res.end('Service Unavailable');
      return;
    }
    const index = this.requests.length;
    const answer = this.respond({ req, url, method, body: Buffer.concat(chunks) });

    if (answer.created && this.dropCreates > 0) {
      this.dropCreates--;
      req.socket.destroy();
      return;
    }
    const send = () => {
      if (!res.destroyed) this.write(res, answer);
      this.answerMs[index] = performance.now() - arrived;
    };
    const delay = this.slow.shift() ?? this.delayMs;
    if (delay > 0) {
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        send();
      }, delay);
      this.timers.add(timer);
    } else {
      send();
    }
  }
}

// ---- values --------------------------------------------------------------------------------

/** Digits after the decimal point of a currency (2 for USD, 0 for JPY, 3 for KWD). */
export function digitsOf(currency: string): number {
  return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
}

/** Minor units as a decimal string in currency units. */
export function decimal(minor: number, digits: number): string {
  if (digits === 0) return String(minor);
  const text = String(minor).padStart(digits + 1, '0');
  return `${text.slice(0, -digits)}.${text.slice(-digits)}`;
}

/** A JSON-encoded parameter parsed, or the value as it is when it is not a string or not JSON. */
export function parseJson(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}
