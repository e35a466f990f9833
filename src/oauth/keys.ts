// Signing keys of the authorization server: ES256 key pairs kept in the database so every
// process signs and verifies alike; rotation adds a new active key and keeps the old ones
// published until their tokens have expired.

import crypto from 'node:crypto';
import type { Knex } from 'knex';
import type { JWK, CryptoKey } from 'jose';
import { isUniqueViolation } from '../db/connection.js';
import { activeSigningKey, replaceActiveSigningKey, signingPublicJwk, signingPublicJwks } from './store.js';

export const ALG = 'ES256';

export interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
}

/** Creates a new active key; earlier keys stay in the JWKS (for verification) but stop signing. */
export async function rotateSigningKey(knex: Knex, now = Date.now()): Promise<string> {
  // jose is loaded on first use, not at start-up.
  const { exportJWK, generateKeyPair } = await import('jose');
  const { privateKey, publicKey } = await generateKeyPair(ALG, { extractable: true });
  const kid = `k_${crypto.randomBytes(8).toString('hex')}`;
  const priv = { ...(await exportJWK(privateKey)), kid, alg: ALG };
  const pub = { ...(await exportJWK(publicKey)), kid, alg: ALG, use: 'sig' };
  await knex.transaction((trx) => replaceActiveSigningKey(trx, { kid, alg: ALG, privateJwk: JSON.stringify(priv), publicJwk: JSON.stringify(pub) }, now));
  return kid;
}

/** How long a process signs with the key it loaded before looking for a newer one (rotation). */
const SIGNER_TTL_MS = 5 * 60_000;

export class SigningKeys {
  private signer: SigningKey | null = null;
  private signerLoadedAt = 0;
  private readonly verifiers = new Map<string, CryptoKey>();

  constructor(
    private readonly knex: Knex,
    private readonly now: () => number = Date.now,
  ) {}

  /** The active key (created on first use; a rotation elsewhere is picked up within 5 minutes). */
  async active(): Promise<SigningKey> {
    if (this.signer && this.now() - this.signerLoadedAt < SIGNER_TTL_MS) return this.signer;
    let row = await activeSigningKey(this.knex);
    if (!row) {
      try {
        await rotateSigningKey(this.knex);
      } catch (err) {
        if (!isUniqueViolation(err)) throw err;
      }
      row = await activeSigningKey(this.knex);
      if (!row) throw new Error('No active signing key after creating one.');
    }
    const { importJWK } = await import('jose');
    this.signer = { kid: row.kid, privateKey: (await importJWK(JSON.parse(row.privateJwk) as JWK, ALG)) as CryptoKey };
    this.signerLoadedAt = this.now();
    return this.signer;
  }

  /** The public key of `kid`, or null when there is none (an unknown or forged kid). */
  async publicKey(kid: string): Promise<CryptoKey | null> {
    const hit = this.verifiers.get(kid);
    if (hit) return hit;
    const jwk = await signingPublicJwk(this.knex, kid);
    if (!jwk) return null;
    const { importJWK } = await import('jose');
    const key = (await importJWK(JSON.parse(jwk) as JWK, ALG)) as CryptoKey;
    this.verifiers.set(kid, key);
    return key;
  }

  /** The JSON Web Key Set of every key, active or retired. */
  async jwks(): Promise<{ keys: JWK[] }> {
    await this.active();
    return { keys: (await signingPublicJwks(this.knex)).map((jwk) => JSON.parse(jwk) as JWK) };
  }

  /** Forgets the cached signer, e.g. after a rotation by another process. */
  reset(): void {
    this.signer = null;
  }
}
