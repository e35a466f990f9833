// Posts a workflow chat step's message to a Slack-compatible incoming webhook ({"text": ...}).
// The address policy of webhooks applies: the host is resolved once, every address checked (private
// ones only with WEBHOOK_ALLOW_PRIVATE=true), and the connection goes to the checked address.

import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { vettedAddress, type HostResolver } from '../webhooks/address-policy.js';

export interface ChatOutcome {
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

const TIMEOUT_MS = 10_000;

/** Sends `text` to `url`; never throws. `dedupeKey` goes out as Idempotency-Key so a resent message can be recognised. */
export async function postChat(url: string, text: string, dedupeKey: string, allowPrivate: boolean, resolve: HostResolver): Promise<ChatOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const target = new URL(url);
  let address: string;
  try {
    address = await vettedAddress(target, allowPrivate, resolve);
  } catch (err) {
    return { statusCode: null, error: (err as Error).message.slice(0, 500), durationMs: elapsed() };
  }
  const lookup: LookupFunction = (_host, options, callback) => {
    const family = address.includes(':') ? 6 : 4;
    if ((options as { all?: boolean }).all) (callback as (e: null, a: Array<{ address: string; family: number }>) => void)(null, [{ address, family }]);
    else callback(null, address, family);
  };
  const body = JSON.stringify({ text });
  const client = target.protocol === 'https:' ? https : http;
  return new Promise<ChatOutcome>((done) => {
    let settled = false;
    const finish = (o: Omit<ChatOutcome, 'durationMs'>) => {
      if (!settled) (settled = true), done({ ...o, durationMs: elapsed() });
    };
    const req = client.request(
      target,
      {
        method: 'POST',
        lookup,
        timeout: TIMEOUT_MS,
        headers: { 'content-type': 'application/json', 'user-agent': 'svc-workflows/1.0', 'idempotency-key': dedupeKey, 'content-length': String(Buffer.byteLength(body)) },
      },
      (res) => {
        res.resume();
        res.on('end', () => finish({ statusCode: res.statusCode ?? null, error: null }));
        res.on('error', (err) => finish({ statusCode: res.statusCode ?? null, error: err.message.slice(0, 500) }));
      },
    );
    const deadline = setTimeout(() => req.destroy(new Error(`no answer within ${TIMEOUT_MS / 1000} s`)), TIMEOUT_MS);
    req.on('timeout', () => req.destroy(new Error(`no answer within ${TIMEOUT_MS / 1000} s`)));
    req.on('error', (err) => finish({ statusCode: null, error: err.message.slice(0, 500) }));
    req.on('close', () => clearTimeout(deadline));
    req.end(body);
  });
}
