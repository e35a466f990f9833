// Encryption at rest for third-party secrets (ad-platform access tokens, webhook signing secrets,
// tracker keys): AES-256-GCM with a 32-byte key, from TOKEN_ENCRYPTION_KEY (base64) when set.

import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { ensureSetting } from '../db/settings.js';
import { tokenEncryptionKey } from '../config.js';

/** Seals and opens secrets with one key; `v1.<iv>.<tag>.<ciphertext>`, all base64url. */
export class SecretBox {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error('TOKEN_ENCRYPTION_KEY must be 32 bytes, base64-encoded (e.g. `openssl rand -base64 32`)');
  }

  seal(plain: string): string {
    const iv = crypto.randomBytes(12);
    const cipher = crypto.createCipheriv('aes-256-gcm', this.key, iv);
    const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), data.toString('base64url')].join('.');
  }

  open(sealed: string): string {
    const [version, iv, tag, data] = sealed.split('.');
    if (version !== 'v1') throw new Error('unknown secret format');
    const decipher = crypto.createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
  }
}

function envBox(): SecretBox {
  const raw = tokenEncryptionKey();
  return new SecretBox(raw ? Buffer.from(raw, 'base64') : Buffer.alloc(0));
}

export function encryptSecret(plain: string): string {
  return envBox().seal(plain);
}

export function decryptSecret(sealed: string): string {
  return envBox().open(sealed);
}

/**
 * The box that seals third-party secrets of this deployment: TOKEN_ENCRYPTION_KEY when set, else a
 * key created once and kept in the database (so bootstrap, migrations and every process agree).
 */
export async function loadSecretBox(knex: Knex): Promise<SecretBox> {
  const raw = tokenEncryptionKey() || (await ensureSetting(knex, 'secret_box_key', () => crypto.randomBytes(32).toString('base64')));
  return new SecretBox(Buffer.from(raw, 'base64'));
}
