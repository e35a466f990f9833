// Sends one request to the service, retrying 429, 503 and (when repeating is safe) 504 up to three
// attempts in all, waiting what Retry-After says, capped. The same request, headers included, is
// sent each time, so a retried 504 carries the same Idempotency-Key. The service's address is the
// operator's (SVC_BASE_URL or "svc login"), called as given through src/outbound/one-shot.ts: one
// plain request per attempt, so a command loads no HTTP client library (bench/startup.ts).

import { oneShotRequest, type OneShotAnswer } from '../../src/outbound/one-shot.js';
import { CliError, EXIT } from './exit-codes.js';
import type { OutgoingRequest } from './request.js';

export const MAX_ATTEMPTS = 3;
const WAIT_CAP_SECONDS = 30;
/** The largest answer read (a whole list with --all is one answer per page). */
const MAX_ANSWER_BYTES = 256 * 1024 * 1024;

export interface Reply {
  status: number;
  /** The answer's headers by name (any case). */
  headers: { get(name: string): string | null };
  /** Parsed JSON, or null for an empty body; the text when it is not JSON. */
  body: unknown;
}

export interface SendOptions {
  baseUrl: string;
  apiKey: string;
  idempotencyKey?: string;
  /** Upper bound of one wait, in seconds (SVC_MAX_RETRY_WAIT may lower the default 30). */
  maxWaitSeconds?: number;
  /** Told before each wait, for a line on standard error. */
  onRetry?: (status: number, waitSeconds: number, attempt: number) => void;
}

/** The wait cap: 30 s, or SVC_MAX_RETRY_WAIT when that is a smaller non-negative number. */
export function maxWaitFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.SVC_MAX_RETRY_WAIT;
  const n = raw === undefined || raw === '' ? NaN : Number(raw);
  return Number.isFinite(n) && n >= 0 ? Math.min(n, WAIT_CAP_SECONDS) : WAIT_CAP_SECONDS;
}

/** Seconds to wait from a Retry-After header (delta seconds or an HTTP date); null when absent or unreadable. */
export function retryAfterSeconds(header: string | null, now = Date.now()): number | null {
  if (!header) return null;
  const trimmed = header.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Number(trimmed);
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? null : Math.max(0, (at - now) / 1000);
}

function retryable(status: number, req: OutgoingRequest, idempotencyKey: string | undefined): boolean {
  if (status === 429 || status === 503) return true;
  // A timed-out write may still finish: repeat it only when the key makes the repeat a replay.
  return status === 504 && (req.method === 'GET' || idempotencyKey !== undefined);
}

/** The bytes and content type of a request body; a form (an upload) is encoded as multipart/form-data. */
async function encoded(req: OutgoingRequest): Promise<{ body?: string | Buffer; contentType?: string }> {
  // Checked without touching FormData, whose first use loads node's fetch implementation.
  if (req.body === undefined || typeof req.body === 'string') return { body: req.body, contentType: req.contentType };
  const multipart = new Response(req.body);
  return { body: Buffer.from(await multipart.arrayBuffer()), contentType: multipart.headers.get('content-type') ?? undefined };
}

async function once(req: OutgoingRequest, headers: Record<string, string>, baseUrl: string): Promise<Reply> {
  const { body: payload, contentType } = await encoded(req);
  let res: OneShotAnswer;
  try {
    // No time limit of its own: the service answers within its 30 s budget.
    res = await oneShotRequest(
      baseUrl + req.target,
      { method: req.method, headers: contentType ? { ...headers, 'content-type': contentType } : headers, body: payload },
      MAX_ANSWER_BYTES,
    );
  } catch (err) {
    throw new CliError(EXIT.unavailable, `Cannot reach the service at ${baseUrl}: ${(err as Error).message}. Check SVC_BASE_URL or "svc login".`);
  }
  const { text } = res;
  let body: unknown = text || null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    // not JSON: the caller shows the text
  }
  return { status: res.status, headers: { get: res.header }, body };
}

/** Sends `req`, retrying as the header comment says; resolves with the last answer. */
export async function send(req: OutgoingRequest, options: SendOptions): Promise<Reply> {
  const headers: Record<string, string> = { accept: 'application/json', authorization: `Bearer ${options.apiKey}`, 'user-agent': 'svc-cli' };
  if (options.idempotencyKey !== undefined) headers['idempotency-key'] = options.idempotencyKey;
  const cap = options.maxWaitSeconds ?? WAIT_CAP_SECONDS;
  for (let attempt = 1; ; attempt++) {
    const reply = await once(req, headers, options.baseUrl);
    if (attempt >= MAX_ATTEMPTS || !retryable(reply.status, req, options.idempotencyKey)) return reply;
    const wait = Math.min(retryAfterSeconds(reply.headers.get('retry-after')) ?? attempt, cap);
    options.onRetry?.(reply.status, wait, attempt);
    await new Promise((resolve) => setTimeout(resolve, wait * 1000));
  }
}
