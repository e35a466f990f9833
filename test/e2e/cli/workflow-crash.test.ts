// A workflow run survives a crash: a real `svc-server serve` child is SIGKILLed while a run is in
// the middle of its chat step (the message held unanswered by the receiver), after its launch step
// published. A new server on the same database resumes the run at the chat step: the message goes
// out once more and is answered once, and the launch is not published again.

import { expect } from 'chai';
import { createMigratedTestDatabase, dialects, type TestDatabase } from '../../helpers/databases.js';
import { requestJson } from '../../helpers/http.js';
import { waitUntil } from '../../helpers/launches.js';
import { runningChildren, runSvcServer, startSvcServer, stopAllServers } from '../../helpers/processes.js';
import { WebhookReceiver } from '../../helpers/webhook-receiver.js';
import { buildLaunch, uploadCreative, type Api } from '../../helpers/launch-builders.js';
import type { World } from '../../helpers/world.js';
import { chatNode, definition, launchNode, workflowWorld } from '../../helpers/workflows.js';

for (const dialect of dialects()) {
  describe(`a workflow run across a server crash (${dialect})`, function () {
    this.timeout(120_000);
    let db: TestDatabase;
    let seed: Record<string, any>;
    let chat: WebhookReceiver;
    const env = () => ({ DATABASE_URL: db.url, WEBHOOK_ALLOW_PRIVATE: 'true', JOB_LEASE_MS: '2000', LOG_LEVEL: 'info' });

    before(async () => {
      db = await createMigratedTestDatabase(dialect);
      const run = await runSvcServer(['bootstrap', '-'], { env: { DATABASE_URL: db.url }, input: JSON.stringify(workflowWorld), timeoutMs: 30_000 });
      if (run.code !== 0) throw new Error(`bootstrap exited ${run.code}: ${run.stderr}`);
      seed = JSON.parse(run.stdout).organizations.acme;
      chat = await new WebhookReceiver().start('/chat');
    });
    after(async () => {
      await stopAllServers();
      await chat?.close();
      await db?.drop();
      expect(runningChildren()).to.equal(0);
    });

    it('a server SIGKILLed mid-step is replaced and the run resumes at that step without acting twice', async () => {
      const key = seed.apiKeys.ci.secret as string;
      const shoes = seed.brands.shoes.id as number;
      const first = await startSvcServer(['serve'], { env: env() });
      const api: Api = (method, path, body, headers = {}) => requestJson(first.url, method, `/v1/brands/${shoes}${path}`, { key, body, headers });
      const launch = await buildLaunch(api, { creativeId: await uploadCreative({ url: first.url } as World, key, shoes), title: 'Crash launch' });
      const created = await api(
        'POST',
        '/workflows',
        definition({ workflowName: 'Crash', nodes: [launchNode('go', launch.launchId), chatNode('tell', chat.url, 'Live: {{launchId}}')] }),
      );
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      const workflowId = created.body.workflowId;

      chat.hold();
      const started = await api('POST', `/workflows/${workflowId}/runs`, { launchId: launch.launchId });
      expect(started.status).to.equal(202);
      const exec = started.body.executionId as string;
      await waitUntil(() => chat.waiting === 1, 'the chat message to be held', 20_000, 10);
      const mid = (await api('GET', `/workflows/${workflowId}/executions/${exec}`)).body;
      expect(mid.nodes.map((n: any) => [n.nodeId, n.status])).to.deep.equal([
        ['go', 'succeeded'],
        ['tell', 'running'],
      ]);

      expect(await first.stop('SIGKILL')).to.equal(null);
      await waitUntil(() => chat.dropped.length === 1, 'the held message to be dropped', 10_000);
      chat.release();

      const second = await startSvcServer(['serve'], { env: env() });
      const api2: Api = (method, path, body, headers = {}) => requestJson(second.url, method, `/v1/brands/${shoes}${path}`, { key, body, headers });
      let done: Record<string, any> = {};
      await waitUntil(
        async () => {
          done = (await api2('GET', `/workflows/${workflowId}/executions/${exec}`)).body;
          return ['succeeded', 'failed', 'canceled'].includes(done.status);
        },
        'the resumed run to finish',
        30_000,
        100,
      );
      expect(done.status, JSON.stringify(done)).to.equal('succeeded');
      expect(done.nodes[0].result).to.include({ operation: 'launch-campaign', replayed: false });
      expect(chat.received.map((r) => r.body)).to.deep.equal([{ text: `Live: ${launch.launchId}` }]);

      const published = await api2('GET', `/activity?limit=100&entityId=${launch.campaignId}`);
      expect(published.body.activities.filter((a: any) => a.action === 'campaign.published')).to.have.length(1);
      const ceiling = await api2('POST', `/launches/${launch.launchId}/publish`, {}, { 'Idempotency-Key': 'crash-preview' });
      expect(ceiling.body.budget.ceiling.committedMinorUnits, 'the launch counted once against the ceiling').to.equal(5000);
      await second.stop();
    });
  });
}
