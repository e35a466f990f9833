// The start-up check of TOKEN_ENCRYPTION_KEY against the ad accounts' stored access tokens: a key
// that is missing in live mode, or that cannot open them, stops the start instead of turning every
// platform call into a 500 later.

import type { Knex } from 'knex';
import { decryptSecret } from '../auth/encryption.js';
import { sealedAccessTokens } from './store.js';

/**
 * What is wrong between the key and the stored tokens, in one sentence, or null: live mode with
 * tokens and no key, or a key (in any mode) that cannot open the tokens stored with another.
 */
export async function storedTokenProblem(knex: Knex, options: { live: boolean; keySet: boolean }): Promise<string | null> {
  const { count, sample } = await sealedAccessTokens(knex);
  if (!sample) return null;
  const accounts = count === 1 ? '1 ad account holds' : `${count} ad accounts hold`;
  if (!options.keySet)
    return options.live
      ? `PLATFORM_MODE=live, and ${accounts} access tokens sealed with TOKEN_ENCRYPTION_KEY, which is not set: set it to the key the tokens were stored with`
      : null;
  try {
    decryptSecret(sample.sealed);
    return null;
  } catch {
    return `TOKEN_ENCRYPTION_KEY does not open the access token stored for ad account ${sample.accountId} (${accounts} tokens): set the key they were stored with, or store new tokens with svc-server bootstrap`;
  }
}
