// The sign-in form's token (login CSRF): a page that shows the form sets a short-lived cookie
// holding a random nonce and its expiry, signed with the deployment's form key; the form carries a
// token derived from that nonce (double submit). A sign-in is taken only when the posted token
// matches the cookie's and the cookie's signature and expiry hold, so a form another site posts
// (it can neither read nor set this site's cookie) signs nothing in.

import crypto from 'node:crypto';

/** The cookie that carries the nonce; HttpOnly, SameSite=Strict, path `/`. */
export const SIGN_IN_COOKIE = 'svc_signin';
/** How long a shown sign-in form can be sent. */
export const SIGN_IN_FORM_TTL_MS = 30 * 60_000;
/** A cookie with less left than this is replaced when a form is shown, so a form never expires while it is filled in. */
const RENEW_BEFORE_MS = 10 * 60_000;

const mac = (key: Buffer, label: string, value: string) => crypto.createHmac('sha256', key).update(`${label}\n${value}`).digest('base64url');

function equal(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && crypto.timingSafeEqual(x, y);
}

/** The nonce and expiry of a signed cookie value, or null when it is not one of ours or has expired. */
function opened(key: Buffer, cookie: string | undefined, now: number): { nonce: string; expiresAt: number } | null {
  if (!cookie || cookie.length > 200) return null;
  const [nonce, expires, signature] = cookie.split('.');
  if (!nonce || !expires || !signature || !/^\d{1,15}$/.test(expires)) return null;
  if (!equal(signature, mac(key, 'cookie', `${nonce}.${expires}`))) return null;
  const expiresAt = Number(expires);
  return expiresAt > now ? { nonce, expiresAt } : null;
}

/**
 * The cookie value to set (null: the present one stays) and the token the form carries. A cookie
 * with most of its life left is kept, so two tabs' forms both work.
 */
export function signInForm(key: Buffer, cookie: string | undefined, now = Date.now()): { cookie: string | null; token: string } {
  const present = opened(key, cookie, now);
  if (present && present.expiresAt - now >= RENEW_BEFORE_MS) return { cookie: null, token: mac(key, 'form', present.nonce) };
  const nonce = crypto.randomBytes(18).toString('base64url');
  const expires = String(now + SIGN_IN_FORM_TTL_MS);
  return { cookie: `${nonce}.${expires}.${mac(key, 'cookie', `${nonce}.${expires}`)}`, token: mac(key, 'form', nonce) };
}

/** True when `submitted` is the token of the form the cookie was set for, within its life. */
export function signInFormHolds(key: Buffer, cookie: string | undefined, submitted: unknown, now = Date.now()): boolean {
  const present = opened(key, cookie, now);
  return present !== null && typeof submitted === 'string' && equal(submitted, mac(key, 'form', present.nonce));
}

/**
 * True when a request's `Origin` (absent: a client that is not a browser, or an old one) is this
 * site: the issuer's origin or the origin the request was addressed to. `null` (a sandboxed or
 * privacy-stripped origin) is another site.
 */
export function sameSiteOrigin(origin: string | undefined, issuer: string, requestOrigin: string): boolean {
  if (origin === undefined || origin === '') return true;
  return origin === new URL(issuer).origin || origin === requestOrigin;
}
