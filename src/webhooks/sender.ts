// Sends one webhook message: a POST with the Standard Webhooks headers to the vetted address,
// 10 s at most, keeping connections alive per host. Never throws: the outcome says what happened.

import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { vettedAddress, type HostResolver } from './address-policy.js';
import { signatureHeader } from './signing.js';

export interface WebhookMessage {
  url: string;
  /** The event id, sent as `webhook-id`. */
  id: string;
  timestampSeconds: number;
  body: string;
  secrets: string[];
}

export interface SendOutcome {
  statusCode: number | null;
  durationMs: number;
  /** Why it did not succeed (network error, timeout, refusal); null on any HTTP answer. */
  error: string | null;
  /** The start of the receiver's answer, for the delivery log. */
  excerpt: string | null;
}

const TIMEOUT_MS = 10_000;
const EXCERPT_BYTES = 1024;

export class WebhookSender {
  private readonly agents = {
    'http:': new http.Agent({ keepAlive: true, maxSockets: 16 }),
    'https:': new https.Agent({ keepAlive: true, maxSockets: 16 }),
  };

  constructor(
    private readonly allowPrivate: boolean,
    private readonly resolve: HostResolver,
    private readonly timeoutMs = TIMEOUT_MS,
  ) {}

  async send(m: WebhookMessage): Promise<SendOutcome> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const url = new URL(m.url);
    let address: string;
    try {
      address = await vettedAddress(url, this.allowPrivate, this.resolve);
    } catch (err) {
      return { statusCode: null, durationMs: elapsed(), error: (err as Error).message.slice(0, 500), excerpt: null };
    }
    // Connect to the address that was checked, whatever DNS says a moment later.
    const lookup: LookupFunction = (_host, options, callback) => {
      const family = address.includes(':') ? 6 : 4;
      if ((options as { all?: boolean }).all) (callback as (e: null, a: Array<{ address: string; family: number }>) => void)(null, [{ address, family }]);
      else callback(null, address, family);
    };
    const client = url.protocol === 'https:' ? https : http;
    return new Promise<SendOutcome>((resolve) => {
      let settled = false;
      const done = (o: Omit<SendOutcome, 'durationMs'>) => {
        if (settled) return;
        settled = true;
        resolve({ ...o, durationMs: elapsed() });
      };
      const req = client.request(
        url,
        {
          method: 'POST',
          agent: this.agents[url.protocol as 'http:' | 'https:'],
          lookup,
          timeout: this.timeoutMs,
          headers: {
            'content-type': 'application/json',
            'user-agent': 'svc-webhooks/1.0',
            'webhook-id': m.id,
            'webhook-timestamp': String(m.timestampSeconds),
            'webhook-signature': signatureHeader(m.secrets, m.id, m.timestampSeconds, m.body),
            'content-length': String(Buffer.byteLength(m.body)),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (c: Buffer) => {
            if (size < EXCERPT_BYTES) chunks.push(c);
            size += c.length;
          });
          res.on('end', () => done({ statusCode: res.statusCode ?? null, error: null, excerpt: Buffer.concat(chunks).subarray(0, EXCERPT_BYTES).toString('utf8') || null }));
          res.on('error', (err) => done({ statusCode: res.statusCode ?? null, error: err.message.slice(0, 500), excerpt: null }));
        },
      );
      // The whole exchange, not just an idle socket, must finish within the timeout.
      const deadline = setTimeout(() => req.destroy(new Error(`no answer within ${this.timeoutMs / 1000} s`)), this.timeoutMs);
      req.on('timeout', () => req.destroy(new Error(`no answer within ${this.timeoutMs / 1000} s`)));
      req.on('error', (err) => done({ statusCode: null, error: err.message.slice(0, 500), excerpt: null }));
      req.on('close', () => clearTimeout(deadline));
      req.end(m.body);
    });
  }

  close(): void {
    this.agents['http:'].destroy();
    this.agents['https:'].destroy();
  }
}
