// Sends one webhook message: a POST with the Standard Webhooks headers through the outbound client
// (the caller's URL, checked again against the address rule when it connects), 10 s at most.
// Never throws: the outcome says what happened, a refusal included (nothing was sent then).

import { callerTarget } from '../outbound/address-policy.js';
import { OutboundError, type OutboundClient } from '../outbound/client.js';
import { signatureHeader } from './signing.js';
import type { SendOutcome, WebhookMessage } from '../catalogue/services.js';
import { countWebhookDelivery } from '../observability/metrics.js';

export type { SendOutcome, WebhookMessage };

const TIMEOUT_MS = 10_000;
const EXCERPT_BYTES = 1024;
/** More than the excerpt is read only to let the connection be reused; past this the answer is cut off. */
const MAX_ANSWER_BYTES = 1024 * 1024;

export class WebhookSender {
  constructor(
    private readonly outbound: OutboundClient,
    private readonly timeoutMs = TIMEOUT_MS,
  ) {}

  async send(m: WebhookMessage): Promise<SendOutcome> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    try {
      const res = await this.outbound.request(callerTarget(m.url), {
        method: 'POST',
        timeoutMs: this.timeoutMs,
        maxResponseBytes: MAX_ANSWER_BYTES,
        headers: {
          'content-type': 'application/json',
          'user-agent': 'svc-webhooks/1.0',
          'webhook-id': m.id,
          'webhook-timestamp': String(m.timestampSeconds),
          'webhook-signature': signatureHeader(m.secrets, m.id, m.timestampSeconds, m.body),
          // Several messages to one endpoint may be in flight at once: this restores their order.
          ...(m.sequence !== undefined ? { 'webhook-sequence': String(m.sequence) } : {}),
        },
        body: m.body,
      });
      countWebhookDelivery(res.status >= 200 && res.status < 300 ? 'delivered' : 'rejected');
      return { statusCode: res.status, durationMs: elapsed(), error: null, excerpt: res.body.subarray(0, EXCERPT_BYTES).toString('utf8') || null };
    } catch (err) {
      const message = err instanceof OutboundError ? err.message : (err as Error).message;
      countWebhookDelivery(err instanceof OutboundError && err.kind === 'refused' ? 'refused' : 'failed');
      return { statusCode: null, durationMs: elapsed(), error: message.slice(0, 500), excerpt: null };
    }
  }
}
