// A live ad account the service cannot speak for: no access token stored, or one the platform
// refuses. The answer is 422 unprocessable naming the ad account and what to set, never the token.

import crypto from 'node:crypto';
import { expect } from 'chai';
import { FakeMetaServer } from '../../fakes/meta-server.js';
import { exampleWorld, liveExampleWorld } from '../../helpers/launches.js';
import { startWorld, type World } from '../../helpers/world.js';

describe('a live ad account without a usable access token (sqlite, fake Meta)', function () {
  this.timeout(60_000);
  let fake: FakeMetaServer;
  let tokenless: World;
  let refused: World;
  let savedKey: string | undefined;

  before(async () => {
    // The in-process service seals the bootstrap's tokens with the process's key, as svc-server would.
    savedKey = process.env.TOKEN_ENCRYPTION_KEY;
    if (!savedKey) process.env.TOKEN_ENCRYPTION_KEY = crypto.randomBytes(32).toString('base64');
    fake = await FakeMetaServer.start();
    fake.addAccount('act_1001');
    const env = { PLATFORM_MODE: 'live', META_GRAPH_URL: fake.url, TOKEN_ENCRYPTION_KEY: process.env.TOKEN_ENCRYPTION_KEY! };
    tokenless = await startWorld({ dialect: 'sqlite', bootstrap: exampleWorld(500), env });
    refused = await startWorld({ dialect: 'sqlite', bootstrap: liveExampleWorld(500, 'a-token-meta-does-not-know'), env });
  });
  after(async () => {
    await tokenless?.close();
    await refused?.close();
    await fake?.close();
    if (savedKey === undefined) delete process.env.TOKEN_ENCRYPTION_KEY;
  });

  const campaigns = (w: World) => w.request('GET', `/v1/brands/${w.brandId('acme', 'shoes')}/ad-accounts/act_1001/campaigns`, { key: w.key('acme', 'ci') });

  it('with no token stored: 422 naming the account, saying nothing was sent and what to set, and no request reached the platform', async () => {
    const before = fake.requests.length;
    const r = await campaigns(tokenless);
    expect(r.status).to.equal(422);
    expect(r.body.error.code).to.equal('unprocessable');
    expect(r.body.error.message).to.equal(
      'Ad account act_1001 has no access token, so nothing was sent to the ad platform: set adAccounts[].accessToken for act_1001 in a bootstrap file and apply it with svc-server bootstrap, TOKEN_ENCRYPTION_KEY set (docs/platforms.md, "Tokens").',
    );
    expect(r.body.error.details).to.include({ accountId: 'act_1001', platformError: 'authentication' });
    expect(fake.requests.length).to.equal(before);
  });

  it('with a token the platform refuses: 422 naming the account and what to do, never the token', async () => {
    const r = await campaigns(refused);
    expect(r.status).to.equal(422);
    expect(r.body.error.message).to.match(
      /^The ad platform refused the access token of ad account act_1001 \(.+\)\. Give it a new token: set adAccounts\[\]\.accessToken for act_1001/,
    );
    expect(r.body.error.details).to.include({ accountId: 'act_1001' });
    expect(JSON.stringify(r.body)).to.not.include('a-token-meta-does-not-know');
  });
});
