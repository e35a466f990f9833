// A live ad account the service cannot speak for: no access token stored, or one the platform
// refuses. The answer is 422 unprocessable naming the ad account and what to set, never the token,
// for a read and for a launch's preview and publish alike; the activity log records a refused token.

import crypto from 'node:crypto';
import { expect } from 'chai';
import { FakeMetaServer } from '../../fakes/meta-server.js';
import { exampleWorld, liveExampleWorld } from '../../helpers/launches.js';
import { brandApi, buildLaunch, idem } from '../../helpers/launch-builders.js';
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

  it("a launch's preview and publish with a token the platform refuses: 422 naming the account, never the token; nothing created, the launch a draft", async () => {
    const api = brandApi(refused, refused.key('acme', 'ci'), refused.brandId('acme', 'shoes'));
    const built = await buildLaunch(api, { title: 'Refused token' });
    for (const body of [{}, { confirm: true }]) {
      const r = await api('POST', `/launches/${built.launchId}/publish`, body, idem('refused-token'));
      expect(r.status, JSON.stringify(r.body)).to.equal(422);
      expect(r.body.error.code).to.equal('unprocessable');
      expect(r.body.error.message).to.match(/^The ad platform refused the access token of ad account act_1001 \(.+\)\. Give it a new token/);
      expect(r.body.error.details).to.include({ accountId: 'act_1001', platformError: 'authentication' });
      expect(JSON.stringify(r.body)).to.not.include('a-token-meta-does-not-know');
    }
    expect(fake.objectsOf('act_1001')).to.deep.equal([]);
    expect((await api('GET', `/launches/${built.launchId}`)).body.status).to.equal('draft');
  });

  it('the activity log records a refused token, naming the ad account, once an hour however often it is refused; never the token, nor a missing one', async () => {
    const refusals = async (w: World) => {
      const r = await w.request('GET', `/v1/brands/${w.brandId('acme', 'shoes')}/activity`, { key: w.key('acme', 'ci') });
      expect(r.status, JSON.stringify(r.body)).to.equal(200);
      expect(JSON.stringify(r.body)).to.not.include('a-token-meta-does-not-know');
      return (r.body.activities as Array<Record<string, unknown>>).filter((a) => a.action === 'ad_account.token_refused');
    };
    // Refused above by a campaign list, a preview and a publish: one entry.
    const entries = await refusals(refused);
    expect(entries.map(({ when: _when, ...entry }) => entry)).to.deep.equal([
      {
        userId: 1,
        userName: 'API key: CI key',
        entityType: 'unknown',
        entityId: 'act_1001',
        entityName: 'Shoes US',
        action: 'ad_account.token_refused',
        accountId: 'act_1001',
      },
    ]);
    expect(await refusals(tokenless), 'no token: nothing was sent, nothing refused').to.deep.equal([]);
  });
});
