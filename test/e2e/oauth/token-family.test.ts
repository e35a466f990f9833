// Issue 43, finding 6: a spent refresh token presented again revokes its whole family at once, the
// access tokens issued with it included: they answer 401 on REST and MCP from that moment (paths.md
// "Limits"), even right after they were used (nothing cached lets them through).

import { expect } from 'chai';
import { dialects } from '../../helpers/databases.js';
import type { World } from '../../helpers/world.js';
import { mcpPost, refresh, startOAuthWorld, tokensFor } from '../../helpers/oauth.js';
import { workflowWorld } from '../../helpers/workflows.js';

const olive = { email: 'olive@acme.test', password: 'correct horse 1' };

for (const dialect of dialects()) {
  describe(`OAuth token families (${dialect})`, function () {
    this.timeout(60_000);
    let w: World;
    before(async () => {
      w = await startOAuthWorld(dialect, workflowWorld);
    });
    after(async () => w?.close());

    const rest = async (token: string) => (await fetch(`${w.url}/v1/brands`, { headers: { authorization: `Bearer ${token}` } })).status;

    it('MCP: reuse of a spent refresh token makes the access tokens of its family answer 401 at once; another family is untouched', async () => {
      const t = await tokensFor(w.url, olive);
      const other = await tokensFor(w.url, olive);
      expect((await mcpPost(w.url, t.access_token)).status).to.equal(200);
      const next = await refresh(w.url, t.refresh_token, t.flow.clientId);
      expect(next.status, next.text).to.equal(200);
      expect((await mcpPost(w.url, next.body.access_token)).status).to.equal(200);
      const reuse = await refresh(w.url, t.refresh_token, t.flow.clientId);
      expect(reuse.status).to.equal(400);
      expect(reuse.body.error).to.equal('invalid_grant');
      for (const token of [t.access_token, next.body.access_token]) {
        const r = await mcpPost(w.url, token);
        expect(r.status, r.text).to.equal(401);
      }
      expect((await refresh(w.url, next.body.refresh_token, t.flow.clientId)).status).to.equal(400);
      expect((await mcpPost(w.url, other.access_token)).status, 'another sign-in is another family').to.equal(200);
    });

    it('REST: the same, for tokens of the API resource', async () => {
      const opts = { resource: `${w.url}/v1`, scope: 'read write', scopes: ['read', 'write'] };
      const t = await tokensFor(w.url, olive, opts);
      expect(await rest(t.access_token)).to.equal(200);
      const next = await refresh(w.url, t.refresh_token, t.flow.clientId);
      expect(next.status, next.text).to.equal(200);
      expect(await rest(next.body.access_token)).to.equal(200);
      expect((await refresh(w.url, t.refresh_token, t.flow.clientId)).status).to.equal(400);
      expect(await rest(t.access_token)).to.equal(401);
      expect(await rest(next.body.access_token)).to.equal(401);
    });
  });
}
