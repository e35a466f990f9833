// Token-signing keys live in the database and rotate: new tokens use the new key, tokens of the
// old key keep verifying, and the JWKS publishes both.

import { expect } from 'chai';
import type { Knex } from 'knex';
import { SigningKeys, rotateSigningKey } from '../../src/oauth/keys.js';
import { issueAccessToken, verifyAccessToken } from '../../src/oauth/tokens.js';
import { dialects, migratedDatabase, type MigratedDatabase } from '../helpers/databases.js';
import { rejectionOf } from '../helpers/assert.js';

for (const dialect of dialects()) {
  describe(`OAuth signing keys (${dialect})`, () => {
    let database: MigratedDatabase;
    let knex: Knex;
    before(async () => {
      database = await migratedDatabase(dialect);
      knex = database.knex;
    });
    after(async () => database?.close());
    const issue = (keys: SigningKeys) =>
      issueAccessToken(keys, {
        issuer: 'https://svc.test',
        audience: 'https://svc.test/v1',
        userId: 1,
        scopes: ['read'],
        clientId: 'cli_x',
        grantId: 1,
        organizationId: 1,
      });
    const kidOf = (token: string) => JSON.parse(Buffer.from(token.slice('svc_at_'.length).split('.')[0], 'base64url').toString()).kid;

    it('creates a key on first use, then signs with the rotated one while the old one keeps verifying', async () => {
      let clock = Date.now();
      const keys = new SigningKeys(knex, () => clock);
      const before = await issue(keys);
      const oldKid = kidOf(before.token);
      const newKid = await rotateSigningKey(knex);
      expect(newKid).to.not.equal(oldKid);
      clock += 6 * 60_000; // past the signer's reload interval
      const after = await issue(keys);
      expect(kidOf(after.token)).to.equal(newKid);
      const verifier = new SigningKeys(knex);
      expect((await verifyAccessToken(verifier, before.token, 'https://svc.test')).aud).to.equal('https://svc.test/v1');
      expect((await verifyAccessToken(verifier, after.token, 'https://svc.test')).aud).to.equal('https://svc.test/v1');
      const jwks = await verifier.jwks();
      expect(jwks.keys.map((k) => k.kid)).to.include.members([oldKid, newKid]);
      expect(
        jwks.keys.every((k) => k.d === undefined),
        'no private parts in the JWKS',
      ).to.equal(true);
      expect((await knex('oauth_signing_keys').where({ active: true })).map((r) => r.kid)).to.deep.equal([newKid]);
    });

    it('refuses a token whose issuer differs', async () => {
      const keys = new SigningKeys(knex);
      const { token } = await issue(keys);
      expect((await rejectionOf(verifyAccessToken(keys, token, 'https://other.test'))).message).to.match(/iss/);
    });
  });
}
