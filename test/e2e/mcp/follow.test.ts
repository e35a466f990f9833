// The MCP call handler's following of an operation that declares `follow` (run-tracker-push): it
// answers the run as it stands once its limit passes (25 s on the server; shorter here), and the
// progress the read reports goes through the call's progress hook, only ever growing.

import { expect } from 'chai';
import { dialects } from '../../helpers/databases.js';
import { startWorld, type World } from '../../helpers/world.js';
import { runToEnd } from '../../helpers/tracker-world.js';
import { invokeFollowing, MCP_FOLLOW_MS } from '../../../surfaces/mcp/follow.js';
import { seedLiveLaunch } from '../../../src/launches/live-launch.js';
import type { ProgressUpdate } from '../../../src/catalogue/invoke-types.js';

for (const dialect of dialects()) {
  describe(`MCP follows a long run for a limited time (${dialect})`, function () {
    this.timeout(60_000);
    let w: World;

    before(async () => {
      w = await startWorld({ dialect });
    });
    after(async () => w?.close());

    it('answers the run as it stands when the limit passes, with growing progress on the way', async () => {
      expect(MCP_FOLLOW_MS).to.equal(25_000);
      const ci = w.key('acme', 'ci');
      const shoes = w.brandId('acme', 'shoes');
      await seedLiveLaunch(w.service.knex, {
        organizationId: w.seed.organizations.acme.id,
        brandId: shoes,
        accountId: 'act_1001',
        platform: 'meta',
        title: 'Four campaigns',
        at: Date.now() - 2 * 24 * 3_600_000,
        campaigns: ['One', 'Two', 'Three', 'Four'].map((name) => ({ name, dailyBudget: 10_000 })),
      });
      expect(
        (await w.request('PUT', `/v1/brands/${shoes}/integrations/tracker`, { key: ci, body: { baseUrl: 'sandbox:', apiKey: 'sandbox-key-0001' } })).status,
      ).to.equal(200);
      // Two seconds between cost updates: the run outlives the short limit below.
      expect(
        (await w.request('PUT', `/v1/brands/${shoes}/integrations/tracker/push`, { key: ci, body: { enabled: true, requestIntervalSeconds: 2 } })).status,
      ).to.equal(200);

      const principal = await w.service.authenticate(`Bearer ${ci}`, 'mcp');
      const op = w.service.catalogue.get('run-tracker-push')!;
      const updates: ProgressUpdate[] = [];
      const answered = await invokeFollowing(
        w.service,
        op,
        principal,
        { brandId: shoes },
        { requestId: 'req_follow_test', onProgress: (u) => updates.push(u) },
        5_000,
      );
      const run = answered.body as { runId: number; status: string; progress: { done: number; total: number } };
      expect(answered.status).to.equal(202);
      expect(run.status).to.equal('running');
      expect(run.progress.done).to.be.below(run.progress.total);
      expect(updates.length).to.be.at.least(2);
      updates.forEach((u, i) => i > 0 && expect(u.progress).to.be.greaterThan(updates[i - 1].progress));
      expect(updates.at(-1)).to.deep.include({ progress: run.progress.done, total: run.progress.total });

      const ended = await runToEnd(w, ci, shoes, run.runId);
      expect(ended).to.deep.include({ status: 'succeeded', error: null });
      expect(ended.progress.done).to.equal(ended.progress.total);
    });
  });
}
