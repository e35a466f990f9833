// Who creates API keys, over the account surface's real HTTP (forms posted with fetch, no browser):
// the organization's owner and admins do; a member is answered 403 forbidden and no key is written.
// (The bootstrap file refuses a member as a key's creator too: test/e2e/cli/svc-server.test.ts.)

import { expect } from 'chai';
import { dialects } from '../../helpers/databases.js';
import { standardWorld } from '../../helpers/fixture.js';
import { get, postForm, signIn, startOAuthWorld } from '../../helpers/oauth.js';
import type { World } from '../../helpers/world.js';

const csrfOf = (html: string) => /name="csrf_token" value="([^"]+)"/.exec(html)?.[1] ?? '';

for (const dialect of dialects()) {
  describe(`who creates API keys on the account surface (${dialect})`, function () {
    this.timeout(60_000);
    let w: World;
    let orgId: number;

    before(async () => {
      w = await startOAuthWorld(dialect, standardWorld);
      orgId = w.seed.organizations.acme.id;
    });
    after(async () => {
      await w?.close();
    });

    const keyCount = async () => Number((await w.service.knex('api_keys').where({ organization_id: orgId }).count({ n: '*' }).first())!.n);

    /** Signs in and posts the new-key form as the account page would. */
    async function createKeyAs(email: string, password: string, name: string) {
      const session = await signIn(w.url, email, password);
      expect(session.cookie, `sign-in of ${email}`).to.be.a('string');
      const page = await get(`${w.url}/account?org=${orgId}`, { cookie: session.cookie! });
      expect(page.status).to.equal(200);
      const csrf = csrfOf(page.text);
      expect(csrf, 'the account page carries a CSRF token').not.to.equal('');
      return postForm(
        `${w.url}/account/keys`,
        { csrf_token: csrf, organization_id: String(orgId), name, scope: 'read', surface_mcp: '1', brand_limit: 'all' },
        { cookie: session.cookie! },
      );
    }

    it('answers a member 403 forbidden and writes no key', async () => {
      const before = await keyCount();
      const refused = await createKeyAs('mia@acme.test', 'correct horse 2', 'Mia wants a key');
      expect(refused.status).to.equal(403);
      expect(refused.text).to.include('<code id="error-code">forbidden</code>');
      expect(refused.text).to.include('Only the organization owner and admins');
      expect(refused.text).not.to.include('svc_sk_');
      expect(await keyCount()).to.equal(before);
      expect(await w.service.knex('api_keys').where({ name: 'Mia wants a key' }).first()).to.equal(undefined);
    });

    it('lets an admin create a key, recorded as created by them, its secret shown once', async () => {
      const before = await keyCount();
      const created = await createKeyAs('ada@acme.test', 'correct horse 3', 'Ada key');
      expect(created.status).to.equal(200);
      expect(created.text).to.match(/svc_sk_[A-Za-z0-9_-]+/);
      expect(await keyCount()).to.equal(before + 1);
      const row = await w.service.knex('api_keys').where({ name: 'Ada key' }).first('created_by_user_id');
      expect(Number(row.created_by_user_id)).to.equal(w.seed.organizations.acme.users.ada.id);
    });
  });
}
