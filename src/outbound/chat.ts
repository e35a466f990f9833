// Posts a message to a Slack-compatible incoming webhook ({"text": ...}) through the outbound client.
// Used by workflow chat steps, automation notices and approval notices (workflows/chat.ts checks a
// chat step's own address at save).

import type { OutboundTarget } from './address-policy.js';
import { OutboundError, type OutboundClient } from './client.js';

export interface ChatOutcome {
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  /** True when the address rule refused the URL: nothing was sent and a retry would not help. */
  refused: boolean;
}

const TIMEOUT_MS = 10_000;

/** Sends `text` to `target`; never throws. `dedupeKey` goes out as Idempotency-Key so a resent message can be recognised. */
export async function postChat(outbound: OutboundClient, target: OutboundTarget, text: string, dedupeKey: string): Promise<ChatOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  try {
    const res = await outbound.request(target, {
      method: 'POST',
      timeoutMs: TIMEOUT_MS,
      maxResponseBytes: 64 * 1024,
      headers: { 'content-type': 'application/json', 'user-agent': 'svc-workflows/1.0', 'idempotency-key': dedupeKey },
      body: JSON.stringify({ text }),
    });
    return { statusCode: res.status, error: null, durationMs: elapsed(), refused: false };
  } catch (err) {
    const refused = err instanceof OutboundError && err.kind === 'refused';
    return { statusCode: null, error: (err as Error).message.slice(0, 500), durationMs: elapsed(), refused };
  }
}
