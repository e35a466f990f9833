// The inbound endpoint of a video_review trigger: an external review tool reports an asset
// approved by POSTing to /v1/workflow-hooks/{hookId}, signed with Standard Webhooks 1.0 using the
// workflow's secret (shown once). The signature and timestamp are checked here; a message id
// starts at most one run (a redelivery answers with the run it started).
//
// Not a catalogue operation: a sender proves itself with a signature over the exact bytes it sent,
// not with a credential (catalogue routes authenticate first, then parse JSON); its body limit is
// 256 KB, not 5 MB; it answers 202 for a new run and 200 for a redelivery (an operation has one
// success status); and an operation would appear as an MCP tool, a CLI command and in OpenAPI. So
// surfaces/rest/app.ts serves it and calls receiveWorkflowHook.

import crypto from 'node:crypto';
import type { Knex } from 'knex';
import type { SecretBox } from '../auth/encryption.js';
import { inTransaction } from '../db/connection.js';
import { ServiceError, notFound } from '../errors.js';
import type { Outbox } from '../catalogue/services.js';
import { signatureHeader } from '../webhooks/signing.js';
import { startTriggered } from './runs.js';
import { executionOfTrigger, workflowOfHook } from './store.js';

/** How far a message's timestamp may be from now (Standard Webhooks' usual tolerance). */
export const HOOK_TOLERANCE_MS = 5 * 60 * 1000;

export interface HookDeps {
  knex: Knex;
  secrets: SecretBox;
  events: Outbox;
  now: () => number;
}

export interface HookAnswer {
  status: number;
  body: { executionId: number; status: string; duplicate: boolean };
}

const unverified = (why: string) =>
  new ServiceError('unauthenticated', `The message is not verified: ${why}. Sign it with the workflow's whsec_ secret (Standard Webhooks).`);

function verify(secret: string, headers: Record<string, string | undefined>, body: string, now: number): string {
  const id = headers['webhook-id'];
  const ts = headers['webhook-timestamp'];
  const sig = headers['webhook-signature'];
  if (!id || !ts || !sig) throw unverified('webhook-id, webhook-timestamp and webhook-signature headers are required');
  if (id.length > 191) throw unverified('webhook-id is longer than 191 characters');
  const seconds = Number(ts);
  if (!Number.isInteger(seconds) || Math.abs(now - seconds * 1000) > HOOK_TOLERANCE_MS)
    throw unverified('webhook-timestamp is missing or more than 5 minutes away from now');
  const expected = Buffer.from(signatureHeader([secret], id, seconds, body).slice(3), 'base64');
  const ok = sig.split(' ').some((part) => {
    if (!part.startsWith('v1,')) return false;
    const given = Buffer.from(part.slice(3), 'base64');
    return given.length === expected.length && crypto.timingSafeEqual(given, expected);
  });
  if (!ok) throw unverified('no v1 signature matches');
  return id;
}

/** Verifies and acts on one hook message; throws ServiceErrors (404 unknown hook, 401 bad signature, 409 inactive, 400 bad body). */
export async function receiveWorkflowHook(deps: HookDeps, hookId: string, headers: Record<string, string | undefined>, body: string): Promise<HookAnswer> {
  const w = await workflowOfHook(deps.knex, hookId);
  if (!w?.hookSecretSealed) throw notFound(`Workflow hook ${hookId}`);
  const messageId = verify(deps.secrets.open(w.hookSecretSealed), headers, body, deps.now());
  let payload: unknown;
  try {
    payload = JSON.parse(body);
  } catch {
    throw new ServiceError('validation_failed', 'The message body is not valid JSON.', null);
  }
  if (w.status !== 'active')
    throw new ServiceError('conflict', `Workflow ${w.id} is not active; activate it to take video-review messages.`, { status: w.status });
  return inTransaction(deps.knex, async (trx) => {
    const key = `hook:${messageId}`;
    const started = await startTriggered(trx, w, { kind: 'video_review', key, data: { messageId, payload } }, deps.now(), deps.events);
    if (started) return { status: 202, body: { executionId: started.id, status: started.status, duplicate: false } };
    const earlier = await executionOfTrigger(trx, w.id, key);
    if (!earlier) throw new Error(`workflow ${w.id}: the run of ${key} is neither new nor stored`);
    return { status: 200, body: { executionId: earlier.id, status: earlier.status, duplicate: true } };
  });
}
