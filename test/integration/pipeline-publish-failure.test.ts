// A pipeline card moved into a publishing column whose publish fails on the ad platform after the
// amount was reserved: the card stays placed, the answer names the error, the reservation is
// released (the key's committed total is what it was) and the launch is publish_failed; once the
// platform answers again, moving the card in again publishes it. Live Meta mode against the fake
// Graph API (test/fakes/meta-server.ts), which refuses the first create batch with code 100.

import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { dialects } from '../helpers/databases.js';
import { startWorld, type World } from '../helpers/world.js';
import { FakeMetaServer, GRAPH_VERSION } from '../fakes/meta-server.js';
import type { ReceivedRequest } from '../fakes/fault-server.js';
import { BrandClient, buildLaunch, liveExampleWorld } from '../helpers/launches.js';
import { commitmentStates, committedCents } from '../helpers/board.js';

const ACCOUNT = 'act_1001';

for (const dialect of dialects()) {
  describe(`a pipeline card whose publish fails on the ad platform (${dialect})`, function () {
    this.timeout(60_000);
    let savedKey: string | undefined;
    let fake: FakeMetaServer;
    let w: World;
    let client: BrandClient;
    let creativesDir: string;
    let failNextCreate = false;

    before(async () => {
      savedKey = process.env.TOKEN_ENCRYPTION_KEY;
      if (!savedKey) process.env.TOKEN_ENCRYPTION_KEY = crypto.randomBytes(32).toString('base64');
      fake = await FakeMetaServer.start();
      const token = fake.addAccount(ACCOUNT);
      // The first create batch after the switch is refused by the fake's own error fault (Graph code 100).
      const respond = (fake as unknown as { respond(r: ReceivedRequest): unknown }).respond.bind(fake);
      (fake as unknown as { respond(r: ReceivedRequest): unknown }).respond = (r: ReceivedRequest) => {
        if (failNextCreate && r.method === 'POST' && r.url.pathname === `/${GRAPH_VERSION}/`) {
          failNextCreate = false;
          fake.errorNext(1, { code: 100, message: '(#100) Invalid parameter' });
        }
        return respond(r);
      };
      creativesDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-board-creatives-'));
      w = await startWorld({
        dialect,
        bootstrap: liveExampleWorld(500, token),
        env: { PLATFORM_MODE: 'live', META_GRAPH_URL: fake.url, TOKEN_ENCRYPTION_KEY: process.env.TOKEN_ENCRYPTION_KEY!, CREATIVES_DIR: creativesDir },
      });
      client = new BrandClient(w.url, w.key('acme', 'ci'), w.brandId('acme', 'shoes'));
    });
    after(async () => {
      await w?.close();
      await fake?.close();
      if (creativesDir) fs.rmSync(creativesDir, { recursive: true, force: true });
      if (savedKey === undefined) delete process.env.TOKEN_ENCRYPTION_KEY;
    });

    it('keeps the card placed, names the error, releases the reservation, and publishes on the next entry once the platform answers', async () => {
      const review = (await client.api('POST', '/pipeline/columns', { name: 'Review' })).body;
      const live = (await client.api('POST', '/pipeline/columns', { name: 'Live', publishes: true })).body;
      const built = await buildLaunch(client, { creativeId: await client.uploadCreative(), title: 'Fails first' });
      const card = (await client.api('POST', '/pipeline/cards', { launchId: built.launchId, columnId: review.columnId })).body;
      const committed = await committedCents(w, 'acme', 'ci');

      failNextCreate = true;
      const moved = await client.api('PATCH', `/pipeline/cards/${card.cardId}`, { columnId: live.columnId, version: 1 });
      expect(moved.status, JSON.stringify(moved.body)).to.equal(200);
      expect(moved.body).to.deep.include({ columnId: live.columnId, version: 2, launchStatus: 'publish_failed' });
      expect(moved.body.publish).to.deep.equal({ attempted: true, published: false, reason: 'unprocessable' });
      expect(moved.body.publishError).to.deep.include({ code: 'unprocessable' });
      expect(moved.body.publishError.message).to.contain('Invalid parameter');
      expect(await committedCents(w, 'acme', 'ci')).to.equal(committed);
      expect(await commitmentStates(w, built.launchId)).to.deep.equal(['released']);
      expect(fake.objectsOf(ACCOUNT).filter((o) => o.level !== 'creative' && o.status !== 'DELETED')).to.have.length(0);

      // Out and in again: a new placing, a new publish, counted once.
      await client.api('PATCH', `/pipeline/cards/${card.cardId}`, { columnId: review.columnId, version: 2 });
      const again = await client.api('PATCH', `/pipeline/cards/${card.cardId}`, { columnId: live.columnId, version: 3 });
      expect(again.body.publish).to.deep.equal({ attempted: true, published: true, reason: null });
      expect(again.body.launchStatus).to.equal('published');
      expect(await committedCents(w, 'acme', 'ci')).to.equal(committed + built.countedCents);
      expect(await commitmentStates(w, built.launchId)).to.deep.equal(['released', 'committed']);
    });
  });
}
