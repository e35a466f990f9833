// Browser sign-in for the consent and account pages: email and password (scrypt), throttled
// against guessing, and a session cookie whose row carries the CSRF token of its forms.

import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { verifyPassword } from '../auth/secrets.js';

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
  const recent = await knex('login_failures')
    .whereIn('subject', subjects)
    .where('at', '>', now - FAILURE_WINDOW_MS)
    .select('subject');
  const failures = (s: string) => recent.filter((r) => r.subject === s).length;
  if (failures(subjects[0]) >= MAX_FAILURES || failures(subjects[1]) >= MAX_FAILURES_PER_ADDRESS) return { ok: false, reason: 'throttled' };
  const user = await knex('users').where({ email: email.trim().toLowerCase() }).first('id', 'password_hash');
  // Unknown emails pay the same scrypt cost as wrong passwords, so timing tells nothing.
  const ok = user ? await verifyPassword(password, user.password_hash) : (await verifyPassword(password, DUMMY_HASH), false);
  if (!ok) {
    await knex('login_failures').insert(subjects.map((subject) => ({ subject, at: now })));
    return { ok: false, reason: 'invalid' };
  }
  const cookie = crypto.randomBytes(32).toString('base64url');
  await knex('web_sessions').insert({
    id_hash: sha256(cookie),
    user_id: user.id,
    csrf_token: crypto.randomBytes(24).toString('base64url'),
    created_at: now,
    expires_at: now + SESSION_TTL_MS,
  });
  await knex('login_failures')
    .where('at', '<', now - FAILURE_WINDOW_MS)
    .delete();
  return { ok: true, cookie };
}

const DUMMY_HASH = 'scrypt$16384$8$1$c2FsdHNhbHRzYWx0c2FsdA==$YWFhYWFhYWFhYWFhYWFhYWFhYWFhYWFhYWFhYWFhYWE=';

/** The signed-in person of a session cookie, or null. */
export async function sessionOf(knex: Knex, cookie: string | undefined, now = Date.now()): Promise<WebSession | null> {
  if (!cookie || cookie.length > 100) return null;
  const row = await knex('web_sessions as s')
    .join('users as u', 'u.id', 's.user_id')
    .where('s.id_hash', sha256(cookie))
    .first('s.user_id', 's.csrf_token', 's.expires_at', 'u.name', 'u.email');
  if (!row || Number(row.expires_at) <= now) return null;
  return { userId: Number(row.user_id), csrf: row.csrf_token, name: row.name, email: row.email };
}

export async function signOut(knex: Knex, cookie: string | undefined): Promise<void> {
  if (cookie)
    await knex('web_sessions')
      .where({ id_hash: sha256(cookie) })
      .delete();
}

/** Constant-time comparison of a submitted CSRF token with the session's. */
export function csrfMatches(session: WebSession, submitted: unknown): boolean {
  if (typeof submitted !== 'string') return false;
  const a = Buffer.from(session.csrf);
  const b = Buffer.from(submitted);
  return a.length === b.length && crypto.timingSafeEqual(a, b);
}

export interface Membership {
  organizationId: number;
  organizationName: string;
  plan: string;
  subscriptionStatus: string;
  role: 'owner' | 'admin' | 'member';
}

export async function membershipsOf(knex: Knex, userId: number): Promise<Membership[]> {
  const rows = await knex('memberships as m')
    .join('organizations as o', 'o.id', 'm.organization_id')
    .where('m.user_id', userId)
    .orderBy('o.id')
    .select('o.id', 'o.name', 'o.plan', 'o.subscription_status', 'm.role');
  return rows.map((r) => ({ organizationId: Number(r.id), organizationName: r.name, plan: r.plan, subscriptionStatus: r.subscription_status, role: r.role }));
}
