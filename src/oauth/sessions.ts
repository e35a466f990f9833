// Browser sign-in for the consent and account pages: email and password (scrypt), throttled
// against guessing, and a session cookie whose row carries the CSRF token of its forms.

import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { verifyPassword } from '../auth/secrets.js';
import { membershipsOfUser, userByEmail, usersByIds, type Membership } from '../account/store.js';
import { deleteSession, findSession, insertSession, loginFailuresSince, purgeLoginFailures, recordLoginFailures } from './store.js';

/** Name of the cookie that carries a sign-in session (consent and account pages). */
export const SESSION_COOKIE = 'svc_session';
export const SESSION_TTL_MS = 12 * 3600_000;
const FAILURE_WINDOW_MS = 15 * 60_000;
const MAX_FAILURES = 5;
/** One address may fail more often (shared offices), but not without bound. */
const MAX_FAILURES_PER_ADDRESS = 50;

const sha256 = (s: string) => crypto.createHash('sha256').update(s).digest('hex');

export interface WebSession {
  userId: number;
  csrf: string;
  name: string;
  email: string;
}

export type SignInResult = { ok: true; cookie: string } | { ok: false; reason: 'invalid' | 'throttled' };

/** Checks email and password; after 5 failures in 15 minutes for that email (50 for one address), refuses to try. */
export async function signIn(knex: Knex, email: string, password: string, remoteAddress: string, now = Date.now()): Promise<SignInResult> {
  const subjects = [`email:${email.trim().toLowerCase()}`, `ip:${remoteAddress}`];
  const recent = await loginFailuresSince(knex, subjects, now - FAILURE_WINDOW_MS);
  const failures = (subject: string) => recent.filter((r) => r === subject).length;
  if (failures(subjects[0]) >= MAX_FAILURES || failures(subjects[1]) >= MAX_FAILURES_PER_ADDRESS) return { ok: false, reason: 'throttled' };
  const user = await userByEmail(knex, email);
  // Unknown emails pay the same scrypt cost as wrong passwords, so timing tells nothing.
  const ok = user ? await verifyPassword(password, user.passwordHash) : (await verifyPassword(password, DUMMY_HASH), false);
  if (!ok || !user) {
    await recordLoginFailures(knex, subjects, now);
    return { ok: false, reason: 'invalid' };
  }
  const cookie = crypto.randomBytes(32).toString('base64url');
  await insertSession(knex, {
    idHash: sha256(cookie),
    userId: user.id,
    csrfToken: crypto.randomBytes(24).toString('base64url'),
    createdAt: now,
    expiresAt: now + SESSION_TTL_MS,
  });
  await purgeLoginFailures(knex, now - FAILURE_WINDOW_MS);
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

export async function signOut(knex: Knex, cookie: string | undefined): Promise<void> {
  if (cookie) await deleteSession(knex, sha256(cookie));
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
