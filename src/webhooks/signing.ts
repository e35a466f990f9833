// Standard Webhooks 1.0 signatures: `v1,<base64 HMAC-SHA256>` over `id.timestamp.body`, keyed with
// the base64 part of each `whsec_` secret; several secrets give several space-separated signatures.

import crypto from 'node:crypto';

const PREFIX = 'whsec_';

/** A new endpoint secret: `whsec_` and 32 random bytes in base64. */
export function newWebhookSecret(): string {
  return PREFIX + crypto.randomBytes(32).toString('base64');
}

/** The `webhook-signature` header value for one message. */
export function signatureHeader(secrets: string[], id: string, timestampSeconds: number, body: string): string {
  return secrets
    .map((secret) => {
      const key = Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64');
      return `v1,${crypto.createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64')}`;
    })
    .join(' ');
}
