// The oauth area's tables: registered apps (`oauth_clients`), single-use authorization codes
// (`oauth_codes`), rotating refresh tokens (`oauth_refresh_tokens`), revoked access tokens
// (`oauth_revoked_access_tokens`), the signing keys (`oauth_signing_keys`), and browser sign-in
// (`web_sessions`, `sign_in_attempts`). The only file that queries them; the grants themselves are
// the keys area's (src/keys/store.ts). Secrets are stored as SHA-256 hashes, never as given.

import type { Knex } from 'knex';

type Db = Knex | Knex.Transaction;

const msOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

// --- Clients

export interface ClientRow {
  id: string;
  name: string;
  redirectUris: string[];
}

export async function insertClient(db: Db, c: ClientRow & { createdAt: number }): Promise<void> {
  await db('oauth_clients').insert({ id: c.id, name: c.name, redirect_uris: JSON.stringify(c.redirectUris), created_at: c.createdAt });
}

/** Client `id`, or undefined. */
export async function findClient(db: Db, id: string): Promise<ClientRow | undefined> {
  const row = await db('oauth_clients').where({ id }).first();
  return row ? { id: row.id, name: row.name, redirectUris: JSON.parse(row.redirect_uris) } : undefined;
}

/** The names of the clients `ids`, by id. */
export async function clientNames(db: Db, ids: string[]): Promise<Map<string, string>> {
  if (!ids.length) return new Map();
  const rows = await db('oauth_clients')
    .whereIn('id', [...new Set(ids)])
    .select('id', 'name');
  return new Map(rows.map((r: Record<string, any>) => [r.id as string, r.name as string]));
}

// --- Authorization codes

export interface CodeRow {
  codeHash: string;
  grantId: number;
  redirectUri: string;
  codeChallenge: string;
  expiresAt: number;
  usedAt: number | null;
}

export async function insertCode(db: Db, c: Omit<CodeRow, 'usedAt'>): Promise<void> {
  await db('oauth_codes').insert({
    code_hash: c.codeHash,
    grant_id: c.grantId,
    redirect_uri: c.redirectUri,
    code_challenge: c.codeChallenge,
    expires_at: c.expiresAt,
    used_at: null,
  });
}

/** The code whose hash is `codeHash`, or undefined. */
export async function findCode(db: Db, codeHash: string): Promise<CodeRow | undefined> {
  const r = await db('oauth_codes').where({ code_hash: codeHash }).first();
  if (!r) return undefined;
  return {
    codeHash: r.code_hash,
    grantId: Number(r.grant_id),
    redirectUri: r.redirect_uri,
    codeChallenge: r.code_challenge,
    expiresAt: Number(r.expires_at),
    usedAt: msOrNull(r.used_at),
  };
}

/** Spends a code in one statement: 1 when this call spent it, 0 when it was already used. */
export async function spendCode(db: Db, codeHash: string, now: number): Promise<number> {
  return db('oauth_codes').where({ code_hash: codeHash }).whereNull('used_at').update({ used_at: now });
}

// --- Refresh tokens

export interface RefreshTokenRow {
  tokenHash: string;
  grantId: number;
  familyId: string;
  createdAt: number;
  expiresAt: number;
  usedAt: number | null;
  revokedAt: number | null;
}

export async function insertRefreshToken(db: Db, t: Omit<RefreshTokenRow, 'usedAt' | 'revokedAt'>): Promise<void> {
  await db('oauth_refresh_tokens').insert({
    token_hash: t.tokenHash,
    grant_id: t.grantId,
    family_id: t.familyId,
    created_at: t.createdAt,
    expires_at: t.expiresAt,
    used_at: null,
    revoked_at: null,
  });
}

/** The refresh token whose hash is `tokenHash`, or undefined. */
export async function findRefreshToken(db: Db, tokenHash: string): Promise<RefreshTokenRow | undefined> {
  const r = await db('oauth_refresh_tokens').where({ token_hash: tokenHash }).first();
  if (!r) return undefined;
  return {
    tokenHash: r.token_hash,
    grantId: Number(r.grant_id),
    familyId: r.family_id,
    createdAt: Number(r.created_at),
    expiresAt: Number(r.expires_at),
    usedAt: msOrNull(r.used_at),
    revokedAt: msOrNull(r.revoked_at),
  };
}

/** Spends a refresh token in one statement: 1 when this call spent it, 0 when it was already used. */
export async function spendRefreshToken(db: Db, tokenHash: string, now: number): Promise<number> {
  return db('oauth_refresh_tokens').where({ token_hash: tokenHash }).whereNull('used_at').update({ used_at: now });
}

/** Revokes every refresh token of a family (all rotated from one code) that is not revoked yet. */
export async function revokeRefreshFamily(db: Db, familyId: string, now: number): Promise<void> {
  await db('oauth_refresh_tokens').where({ family_id: familyId }).whereNull('revoked_at').update({ revoked_at: now });
}

/** Whether refresh-token family `familyId` was revoked (a reuse, or revocation): its access tokens no longer work either. */
export async function isRefreshFamilyRevoked(db: Db, familyId: string): Promise<boolean> {
  return Boolean(await db('oauth_refresh_tokens').where({ family_id: familyId }).whereNotNull('revoked_at').first('family_id'));
}

/** Revokes every refresh token of grant `grantId` that is not revoked yet. */
export async function revokeRefreshTokensOfGrant(db: Db, grantId: number, now: number): Promise<void> {
  await db('oauth_refresh_tokens').where({ grant_id: grantId }).whereNull('revoked_at').update({ revoked_at: now });
}

/** When each of the grants `grantIds` last got tokens (its newest refresh token), by grant id; grants that never did are absent. */
export async function lastTokenTimes(db: Db, grantIds: number[]): Promise<Map<number, number>> {
  if (!grantIds.length) return new Map();
  const rows = await db('oauth_refresh_tokens').whereIn('grant_id', grantIds).groupBy('grant_id').select('grant_id').max({ at: 'created_at' });
  return new Map(rows.map((r: Record<string, any>) => [Number(r.grant_id), Number(r.at)]));
}

// --- Revoked access tokens

/** Records access token `jti` as revoked until it expires anyway (revoking twice is harmless). */
export async function revokeAccessToken(db: Db, jti: string, expiresAt: number): Promise<void> {
  await db('oauth_revoked_access_tokens').insert({ jti, expires_at: expiresAt }).onConflict('jti').ignore();
}

export async function isAccessTokenRevoked(db: Db, jti: string): Promise<boolean> {
  return Boolean(await db('oauth_revoked_access_tokens').where({ jti }).first('jti'));
}

// --- Signing keys

/** The newest active signing key (its private JWK as JSON text), or undefined when there is none. */
export async function activeSigningKey(db: Db): Promise<{ kid: string; privateJwk: string } | undefined> {
  const row = await db('oauth_signing_keys').where({ active: true }).orderBy('created_at', 'desc').first('kid', 'private_jwk');
  return row ? { kid: row.kid, privateJwk: row.private_jwk } : undefined;
}

/** The public JWK (JSON text) of key `kid`, or undefined. */
export async function signingPublicJwk(db: Db, kid: string): Promise<string | undefined> {
  const row = await db('oauth_signing_keys').where({ kid }).first('public_jwk');
  return row?.public_jwk;
}

/** The public JWKs (JSON text) of every key, active or retired, newest first. */
export async function signingPublicJwks(db: Db): Promise<string[]> {
  return (await db('oauth_signing_keys').orderBy('created_at', 'desc').select('public_jwk')).map((r: { public_jwk: string }) => r.public_jwk);
}

/** Retires the active key and stores `key` as the active one, in the caller's transaction. */
export async function replaceActiveSigningKey(
  trx: Knex.Transaction,
  key: { kid: string; alg: string; privateJwk: string; publicJwk: string },
  now: number,
): Promise<void> {
  await trx('oauth_signing_keys').where({ active: true }).update({ active: false, retired_at: now });
  await trx('oauth_signing_keys').insert({
    kid: key.kid,
    alg: key.alg,
    private_jwk: key.privateJwk,
    public_jwk: key.publicJwk,
    active: true,
    created_at: now,
    retired_at: null,
  });
}

// --- Browser sign-in

/** A subject's sign-in attempts in its current window, counting the one being made. */
export interface AttemptCount {
  subject: string;
  attempts: number;
  windowStart: number;
}

/**
 * Counts one sign-in attempt against each of `subjects` before its password is checked, and answers
 * each subject's count in its window: one upsert that increments (or starts a new window when the
 * last began `windowMs` ago), then a read of the rows it holds locked, in one transaction. Attempts
 * sent at once each see a different count on SQLite (one writer) and on MariaDB (the upsert's row
 * lock holds until commit). Subjects are taken in sorted order so two attempts never wait on each other.
 */
export async function countSignInAttempt(knex: Knex, subjects: string[], now: number, windowMs: number): Promise<AttemptCount[]> {
  const sorted = [...new Set(subjects)].sort();
  const expired = now - windowMs;
  const mysql = knex.client.config.client === 'mysql2';
  // The attempts column is set before window_start: MySQL reads a column assigned earlier in the same SET as its new value.
  const update = mysql
    ? 'attempts = IF(window_start <= ?, 1, attempts + 1), window_start = IF(window_start <= ?, ?, window_start)'
    : 'attempts = CASE WHEN window_start <= ? THEN 1 ELSE attempts + 1 END, window_start = CASE WHEN window_start <= ? THEN ? ELSE window_start END';
  const rows = sorted.map(() => '(?, ?, 1)').join(', ');
  const sql = `INSERT INTO sign_in_attempts (subject, window_start, attempts) VALUES ${rows} ${mysql ? 'ON DUPLICATE KEY UPDATE' : 'ON CONFLICT (subject) DO UPDATE SET'} ${update}`;
  const bindings = [...sorted.flatMap((subject) => [subject, now]), expired, expired, now];
  return knex.transaction(async (trx) => {
    await trx.raw(sql, bindings);
    const read = trx('sign_in_attempts').whereIn('subject', sorted).select('subject', 'attempts', 'window_start');
    const counted: Array<Record<string, unknown>> = await (mysql ? read.forUpdate() : read);
    return counted.map((r) => ({ subject: String(r.subject), attempts: Number(r.attempts), windowStart: Number(r.window_start) }));
  });
}

/** Takes back an attempt that proved right (it was counted before the check): only wrong passwords use up the limit. */
export async function uncountSignInAttempt(db: Db, counted: AttemptCount[]): Promise<void> {
  for (const c of counted)
    await db('sign_in_attempts').where({ subject: c.subject, window_start: c.windowStart }).where('attempts', '>', 0).decrement('attempts', 1);
}

/** Forgets windows that began before `before`. */
export async function purgeSignInAttempts(db: Db, before: number): Promise<void> {
  await db('sign_in_attempts').where('window_start', '<', before).delete();
}

export interface SessionRow {
  userId: number;
  csrfToken: string;
  expiresAt: number;
}

export async function insertSession(db: Db, s: SessionRow & { idHash: string; createdAt: number }): Promise<void> {
  await db('web_sessions').insert({ id_hash: s.idHash, user_id: s.userId, csrf_token: s.csrfToken, created_at: s.createdAt, expires_at: s.expiresAt });
}

/** The session whose cookie hashes to `idHash`, or undefined. */
export async function findSession(db: Db, idHash: string): Promise<SessionRow | undefined> {
  const row = await db('web_sessions').where({ id_hash: idHash }).first('user_id', 'csrf_token', 'expires_at');
  return row ? { userId: Number(row.user_id), csrfToken: row.csrf_token, expiresAt: Number(row.expires_at) } : undefined;
}

/** Ends every session of `userId`. */
export async function deleteSessionsOf(db: Db, userId: number): Promise<void> {
  await db('web_sessions').where({ user_id: userId }).delete();
}
