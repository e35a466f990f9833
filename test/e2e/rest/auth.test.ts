// The credential matrix over a real listening server: every way a key can be refused, and the
// brand rules, on each storage dialect.

import { expect } from 'chai';
import { dialects } from '../../helpers/databases.js';
import { startWorld, type World } from '../../helpers/world.js';

for (const dialect of dialects()) {
  describe(`REST credentials (${dialect})`, function () {
    let world: World;
    before(async () => {
      world = await startWorld({ dialect });
    });
    after(async () => world?.close());

    const expectError = (reply: { status: number; headers: Headers; body: any }, status: number, code: string) => {
      expect(reply.status, JSON.stringify(reply.body)).to.equal(status);
      expect(reply.body.error.code).to.equal(code);
      expect(reply.body.error.requestId).to.equal(reply.headers.get('service-request-id'));
      expect(reply.body.error.message).to.be.a('string').and.not.empty;
    };

    const matrix: Array<{ name: string; key: (w: World) => string | null; status: number; code: string }> = [
      { name: 'no credential', key: () => null, status: 401, code: 'unauthenticated' },
      { name: 'an unknown key', key: () => 'svc_sk_' + 'A'.repeat(44), status: 401, code: 'unauthenticated' },
      { name: 'a malformed credential', key: () => 'not-a-key', status: 401, code: 'unauthenticated' },
      { name: 'a revoked key', key: (w) => w.key('acme', 'revoked'), status: 401, code: 'unauthenticated' },
      { name: 'an expired key', key: (w) => w.key('acme', 'expired'), status: 401, code: 'unauthenticated' },
      { name: 'a key on a plan that is not agency', key: (w) => w.key('pro', 'proKey'), status: 403, code: 'plan_required' },
      { name: 'a key whose subscription is not active', key: (w) => w.key('lapsed', 'lapsedKey'), status: 403, code: 'plan_required' },
      { name: 'a key with the API surface off', key: (w) => w.key('acme', 'mcpOnly'), status: 403, code: 'surface_disabled' },
    ];
    for (const row of matrix) {
      it(`refuses ${row.name} with ${row.status} ${row.code}`, async () => {
        const reply = await world.request('GET', '/v1/brands', { key: row.key(world) });
        expectError(reply, row.status, row.code);
      });
    }

    it('says what is wrong with an Authorization header that lacks "Bearer ", and with none at all', async () => {
      const bare = await world.request('GET', '/v1/brands', { key: null, headers: { authorization: world.key('acme', 'ci') } });
      expectError(bare, 401, 'unauthenticated');
      expect(bare.body.error.message).to.equal(
        'The Authorization header must be "Bearer " followed by the credential: send "Authorization: Bearer <API key or access token>".',
      );
      const none = await world.request('GET', '/v1/brands', { key: null });
      expect(none.body.error.message).to.equal('Missing credential: send "Authorization: Bearer <API key or access token>".');
    });

    it('refuses a key whose secret is right in prefix but wrong in the rest', async () => {
      const real = world.key('acme', 'ci');
      const forged = real.slice(0, 19) + (real[19] === 'a' ? 'b' : 'a') + real.slice(20);
      expectError(await world.request('GET', '/v1/brands', { key: forged }), 401, 'unauthenticated');
    });

    it('refuses a call outside the key scopes with insufficient_scope naming the scope', async () => {
      const reply = await world.request('GET', `/v1/brands`, { key: world.key('acme', 'writer') });
      expectError(reply, 403, 'insufficient_scope');
      expect(reply.body.error.details).to.deep.equal({ requiredScope: 'read' });
    });

    it('answers brand_not_allowed with details.reason for a brand outside the key limit', async () => {
      const reply = await world.request('GET', `/v1/brands/${world.brandId('acme', 'hats')}/activity`, { key: world.key('acme', 'limited') });
      expectError(reply, 403, 'brand_not_allowed');
      expect(reply.body.error.details.reason).to.equal('brand_not_allowed');
    });

    it('answers 404 for a brand of another organization, exactly like a missing brand', async () => {
      const foreign = await world.request('GET', `/v1/brands/${world.brandId('other', 'rival')}/activity`, { key: world.key('acme', 'ci') });
      const missing = await world.request('GET', `/v1/brands/999999/activity`, { key: world.key('acme', 'ci') });
      expectError(foreign, 404, 'not_found');
      expectError(missing, 404, 'not_found');
      expect(foreign.body.error.message.replace(/\d+/g, 'N')).to.equal(missing.body.error.message.replace(/\d+/g, 'N'));
    });

    it('lists only the brands of a brand-limited key', async () => {
      const reply = await world.request('GET', '/v1/brands', { key: world.key('acme', 'limited') });
      expect(reply.status).to.equal(200);
      expect(reply.body.accounts.map((a: any) => a.brandId)).to.deep.equal([world.brandId('acme', 'shoes')]);
    });

    it('lists every brand of the organization, one row per brand, for an unlimited key', async () => {
      const reply = await world.request('GET', '/v1/brands', { key: world.key('acme', 'ci') });
      expect(reply.status).to.equal(200);
      const org = world.seed.organizations.acme;
      expect(reply.body).to.deep.equal({
        accounts: [
          {
            brandId: org.brands.shoes.id,
            brandName: 'Shoes Co',
            accountId: 'act_1001',
            accountName: 'Shoes US',
            connected: true,
            active: true,
            organizationId: org.id,
          },
          { brandId: org.brands.hats.id, brandName: 'Hats Co', accountId: null, accountName: null, connected: false, active: false, organizationId: org.id },
          {
            brandId: org.brands.multi.id,
            brandName: 'Multi Co',
            accountId: 'act_2001',
            accountName: 'Multi Meta',
            connected: true,
            active: true,
            organizationId: org.id,
          },
        ],
        nextCursor: null,
      });
    });

    it('stops accepting a revoked key within 5 seconds even though verified keys are cached', async function () {
      this.timeout(15_000);
      const bootstrap = world.service.knex;
      const key = world.key('acme', 'reader');
      expect((await world.request('GET', '/v1/brands', { key })).status).to.equal(200);
      const revokedAt = Date.now();
      await bootstrap('api_keys').where({ id: world.seed.organizations.acme.apiKeys.reader.id }).update({ revoked_at: revokedAt });
      let status = 200;
      while (Date.now() - revokedAt < 5_000) {
        status = (await world.request('GET', '/v1/brands', { key })).status;
        if (status === 401) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(status).to.equal(401);
    });
  });
}
