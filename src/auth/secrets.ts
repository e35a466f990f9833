// Credential secrets: random, prefixed, stored only as salted hashes; passwords use scrypt.

import crypto from 'node:crypto';
import { promisify } from 'node:util';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const scrypt = promisify(crypto.scrypt) as (pw: string, salt: Buffer, len: number, opts: crypto.ScryptOptions) => Promise<Buffer>;

/** A random base62 string; rejection sampling keeps every character equally likely. */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of crypto.randomBytes(length * 2)) {
      if (byte < 248) out += ALPHABET[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

export const API_KEY_PREFIX = 'svc_sk_';
const LOOKUP_LENGTH = 12;

export interface NewApiKeySecret {
  secret: string;
  lookupPrefix: string;
  salt: string;
  hash: string;
}

/** Creates a new API key secret, shown once; only the prefix, salt and hash are kept. */
export function newApiKeySecret(): NewApiKeySecret {
  const secret = API_KEY_PREFIX + randomBase62(LOOKUP_LENGTH + 32);
  const salt = crypto.randomBytes(16).toString('hex');
  return { secret, lookupPrefix: lookupPrefixOf(secret)!, salt, hash: hashSecret(secret, salt) };
}

/** The indexed part of a key (`svc_sk_` plus 12 characters), or null when it is not key-shaped. */
export function lookupPrefixOf(secret: string): string | null {
  if (!secret.startsWith(API_KEY_PREFIX) || !/^svc_sk_[A-Za-z0-9]{44}$/.test(secret)) return null;
  return secret.slice(0, API_KEY_PREFIX.length + LOOKUP_LENGTH);
}

export function hashSecret(secret: string, salt: string): string {
  return crypto.createHash('sha256').update(`${salt}:${secret}`).digest('hex');
}

export function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && crypto.timingSafeEqual(x, y);
}

const SCRYPT = { N: 16384, r: 8, p: 1 };

/** Hashes a password with scrypt: `scrypt$N$r$p$salt$hash`. */
export async function hashPassword(password: string): Promise<string> {
  const salt = crypto.randomBytes(16);
  const key = await scrypt(password, salt, 32, SCRYPT);
  return `scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$${salt.toString('base64')}$${key.toString('base64')}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [kind, n, r, p, salt, hash] = stored.split('$');
  if (kind !== 'scrypt') return false;
  const expected = Buffer.from(hash, 'base64');
  const key = await scrypt(password, Buffer.from(salt, 'base64'), expected.length, { N: Number(n), r: Number(r), p: Number(p) });
  return crypto.timingSafeEqual(key, expected);
}
