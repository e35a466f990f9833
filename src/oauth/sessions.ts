// Browser sign-in for the consent and account pages: email and password (scrypt), throttled
// against guessing, and a session cookie whose row carries the CSRF token of its forms.

import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { verifyPassword } from '../auth/secrets.js';
import { membershipsOfUser, userByEmail, usersByIds, type Membership } from '../account/store.js';
import { countSignInAttempt, deleteSessionsOf, findSession, insertSession, purgeSignInAttempts, uncountSignInAttempt } from './store.js';
import { emailLookalikeKey } from '../account/email.js';

/** Name of the cookie that carries a sign-in session (consent and account pages). */
export const SESSION_COOKIE = 'svc_session';
export const SESSION_TTL_MS = 12 * 3600_000;
const ATTEMPT_WINDOW_MS = 15 * 60_000;
/** Wrong passwords an account may take in a window. */
const MAX_ATTEMPTS = 5;
/** One address may fail more often (shared offices), but not without bound. */
const MAX_ATTEMPTS_PER_ADDRESS = 20;

const sha256 = (s: string) => crypto.createHash('sha256').update(s).digest('hex');

export interface WebSession {
  userId: number;
  csrf: string;
  name: string;
  email: string;
}

export type SignInResult = { ok: true; cookie: string } | { ok: false; reason: 'invalid' } | { ok: false; reason: 'throttled'; retryAfterSeconds: number };

/**
 * Checks email and password. Each attempt is counted before the check, against the account (its
 * email and every look-alike of it, email.ts) and the client's address, so attempts sent at once
 * count too: past 5 in 15 minutes for the account, or 20 for the address, it answers `throttled`
 * without checking. An attempt that proves right is taken back; only wrong ones use up the limit.
 */
export async function signIn(knex: Knex, email: string, password: string, remoteAddress: string, now = Date.now()): Promise<SignInResult> {
  const account = `email:${emailLookalikeKey(email)}`;
  const counted = await countSignInAttempt(knex, [account, `ip:${remoteAddress}`], now, ATTEMPT_WINDOW_MS);
  const over = counted.filter((c) => c.attempts > (c.subject === account ? MAX_ATTEMPTS : MAX_ATTEMPTS_PER_ADDRESS));
  if (over.length) {
    const until = Math.max(...over.map((c) => c.windowStart + ATTEMPT_WINDOW_MS));
    return { ok: false, reason: 'throttled', retryAfterSeconds: Math.max(1, Math.ceil((until - now) / 1000)) };
  }
  const user = await userByEmail(knex, email);
  // Unknown emails pay the same scrypt cost as wrong passwords, so timing tells nothing.
  const ok = user ? await verifyPassword(password, user.passwordHash) : (await verifyPassword(password, DUMMY_HASH), false);
  if (!ok || !user) return { ok: false, reason: 'invalid' };
  await uncountSignInAttempt(knex, counted);
  const cookie = crypto.randomBytes(32).toString('base64url');
  await insertSession(knex, {
    idHash: sha256(cookie),
    userId: user.id,
    csrfToken: crypto.randomBytes(24).toString('base64url'),
    createdAt: now,
    expiresAt: now + SESSION_TTL_MS,
  });
  await purgeSignInAttempts(knex, now - ATTEMPT_WINDOW_MS);
  return { ok: true, cookie };
}

const DUMMY_HASH = 'scrypt$16384$8$1$c2FsdHNhbHRzYWx0c2FsdA==$YWFhYWFhYWFhYWFhYWFhYWFhYWFhYWFhYWFhYWFhYWE=';

/** The signed-in person of a session cookie, or null. */
export async function sessionOf(knex: Knex, cookie: string | undefined, now = Date.now()): Promise<WebSession | null> {
  if (!cookie || cookie.length > 100) return null;
  const session = await findSession(knex, sha256(cookie));
  if (!session || session.expiresAt <= now) return null;
  const user = (await usersByIds(knex, [session.userId])).get(session.userId);
  if (!user) return null;
  return { userId: session.userId, csrf: session.csrfToken, name: user.name, email: user.email };
}

/** True while the session of `cookie` is open: one read by key, made on every console request so a sign-out anywhere holds at once. */
export async function sessionOpen(knex: Knex, cookie: string, now = Date.now()): Promise<boolean> {
  const session = await findSession(knex, sha256(cookie));
  return session !== undefined && session.expiresAt > now;
}

/**
 * Signing out ends the person's sessions: every session of the person the cookie signs in (the
 * console and the account pages share them), in every process at once (each reads its session).
 */
export async function signOut(knex: Knex, cookie: string | undefined): Promise<void> {
  if (!cookie || cookie.length > 100) return;
  const session = await findSession(knex, sha256(cookie));
  if (session) await deleteSessionsOf(knex, session.userId);
}

/** Constant-time comparison of a submitted CSRF token with the session's. */
export function csrfMatches(session: WebSession, submitted: unknown): boolean {
  if (typeof submitted !== 'string') return false;
  const a = Buffer.from(session.csrf);
  const b = Buffer.from(submitted);
  return a.length === b.length && crypto.timingSafeEqual(a, b);
}

export type { Membership };

/** The person's memberships, in organization id order. */
export async function membershipsOf(knex: Knex, userId: number): Promise<Membership[]> {
  return membershipsOfUser(knex, userId);
}
