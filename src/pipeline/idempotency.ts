// Idempotency records (store.ts): the first request with a key runs; a retry within 24 hours gets
// the stored response and acts again never. Safe across processes through a unique index.

import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { ServiceError } from '../errors.js';
import { isUniqueViolation } from '../db/connection.js';
import { canonicalJson } from '../pagination/cursor.js';
import { completeRecord, deleteExpiredRecord, deleteExpiredRecords, deleteRunningRecord, findRecord, insertRecord, moveLease } from './store.js';

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

export type Claim = { kind: 'run'; recordId: number; resumed: boolean; leaseExpiresAt: number } | { kind: 'replay'; status: number; body: unknown };

export interface ClaimRequest {
  organizationId: number;
  credentialId: string;
  operation: string;
  key: string;
  input: unknown;
  now: number;
  /** How long the claim holds before another process may take the work over (IDEMPOTENCY_LEASE_MS). */
  leaseMs: number;
}

const sha256 = (s: string) => crypto.createHash('sha256').update(s).digest('hex');

/**
 * The request as its key remembers it: a precondition (`planFingerprint`, the plan a person
 * confirmed) says when the request may act, not what it asks for, so a retry that names it or not is
 * the same request.
 */
function withoutPreconditions(input: unknown): unknown {
  if (!input || typeof input !== 'object' || !('planFingerprint' in input)) return input;
  const { planFingerprint: _precondition, ...rest } = input as Record<string, unknown>;
  return rest;
}

/** Claims `key` for this request, or answers how the earlier request with it ended. */
export async function claimIdempotencyKey(db: Knex, req: ClaimRequest): Promise<Claim> {
  const scopeHash = sha256(`${req.credentialId}\n${req.operation}\n${req.key}`);
  const fingerprint = sha256(canonicalJson(withoutPreconditions(req.input)));
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const id = await insertRecord(db, {
        organizationId: req.organizationId,
        scopeHash,
        fingerprint,
        leaseExpiresAt: req.now + req.leaseMs,
        createdAt: req.now,
        expiresAt: req.now + IDEMPOTENCY_TTL_MS,
      });
      return { kind: 'run', recordId: id, resumed: false, leaseExpiresAt: req.now + req.leaseMs };
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
    }
    const row = await findRecord(db, req.organizationId, scopeHash);
    if (!row) continue;
    if (row.expiresAt <= req.now) {
      await deleteExpiredRecord(db, row.id, row.expiresAt);
      continue;
    }
    if (row.fingerprint !== fingerprint) {
      throw new ServiceError('idempotency_conflict', 'This Idempotency-Key was already used with a different request. Use a new key for a new request.', {
        reason: 'different_request',
      });
    }
    if (row.state === 'done') {
      return { kind: 'replay', status: Number(row.statusCode), body: JSON.parse(row.responseBody ?? 'null') };
    }
    // Still running: another process owns it unless its lease ran out (it crashed); then take it over.
    if (row.leaseExpiresAt <= req.now) {
      const taken = await moveLease(db, row.id, row.leaseExpiresAt, req.now + req.leaseMs);
      if (taken === 1) return { kind: 'run', recordId: row.id, resumed: true, leaseExpiresAt: req.now + req.leaseMs };
    }
    throw new ServiceError(
      'idempotency_conflict',
      'The first request with this Idempotency-Key is still running. Retry with the same key after Retry-After seconds (when its lease ends) to get its response.',
      { reason: 'in_progress' },
      // When the running attempt's lease ends: it answers by then, or another request may take it over.
      Math.max(1, Math.ceil((row.leaseExpiresAt - req.now) / 1000)),
    );
  }
  throw new ServiceError('unavailable', 'Could not record the Idempotency-Key; nothing was done. Retry shortly.');
}

/** Stores the final response, in the operation's transaction when there is one. */
export async function completeIdempotencyKey(db: Knex | Knex.Transaction, recordId: number, status: number, body: unknown): Promise<void> {
  await completeRecord(db, recordId, status, JSON.stringify(body));
}

/** Forgets a claim whose request failed, so a retry with the same key acts again (unless another took it over). */
export async function releaseIdempotencyKey(db: Knex, recordId: number, leaseExpiresAt: number): Promise<void> {
  await deleteRunningRecord(db, recordId, leaseExpiresAt);
}

/**
 * Keeps a running claim's lease alive while its request works (a request may outlive its HTTP
 * answer after a 504); returns a function that stops renewing and gives the last lease end.
 */
export function renewIdempotencyLease(db: Knex, recordId: number, leaseExpiresAt: number, leaseMs: number, now: () => number): () => number {
  let current = leaseExpiresAt;
  const timer = setInterval(() => {
    const next = now() + leaseMs;
    moveLease(db, recordId, current, next)
      .then((n) => {
        if (n === 1) current = next;
      })
      .catch(() => {});
  }, leaseMs / 3);
  timer.unref();
  return () => {
    clearInterval(timer);
    return current;
  };
}

/** Deletes records older than 24 hours; returns how many went. */
export async function purgeExpiredIdempotencyKeys(db: Knex, now: number, batch = 1000): Promise<number> {
  return deleteExpiredRecords(db, now, batch);
}
