// Two `svc-server serve` processes on one MariaDB database share the automation jobs: every due
// automation of three ad accounts is evaluated once (one scheduled run each), whichever process
// claims its account. MariaDB only (SQLite is one file on one host); needs TEST_MYSQL_URL.

import { expect } from 'chai';
import { createMigratedTestDatabase, type TestDatabase } from '../../helpers/databases.js';
import { requestJson } from '../../helpers/http.js';
import { runSvcServer, runningChildren, startSvcServer, stopAllServers } from '../../helpers/processes.js';
import { waitUntil } from '../../helpers/launches.js';

const ACCOUNTS = ['act_5001', 'act_5002', 'act_5003'];
const PER_ACCOUNT = 4;

const world = {
  organizations: [
    {
      ref: 'acme',
      name: 'Acme Rules',
      plan: 'agency',
      subscriptionStatus: 'active',
      brands: [
        { ref: 'shoes', name: 'Shoes Co', adAccounts: ACCOUNTS.map((accountId) => ({ platform: 'meta', accountId, timezone: 'UTC', currency: 'USD' })) },
      ],
      apiKeys: [{ ref: 'ops', name: 'Ops key', scopes: ['read', 'write'], surfaces: { api: true, mcp: false }, brands: null }],
    },
  ],
};

if (process.env.TEST_MYSQL_URL) {
  describe('automations evaluated by two svc-server processes (mysql)', function () {
    this.timeout(120_000);
    let db: TestDatabase;

    before(async () => {
      db = await createMigratedTestDatabase('mysql');
    });
    after(async () => {
      await stopAllServers();
      await db?.drop();
      expect(runningChildren()).to.equal(0);
    });

    it('runs each due automation once, whichever of two processes claims its account', async () => {
      const seeded = await runSvcServer(['bootstrap', '-'], { env: { DATABASE_URL: db.url }, input: JSON.stringify(world), timeoutMs: 30_000 });
      expect(seeded.code, seeded.stderr).to.equal(0);
      const acme = JSON.parse(seeded.stdout).organizations.acme;
      const key: string = acme.apiKeys.ops.secret;
      const brandId: number = acme.brands.shoes.id;
      // JOB_CONCURRENCY=1: neither process can hold every account's job at once.
      const env = { DATABASE_URL: db.url, JOB_CONCURRENCY: '1' };
      const servers = [await startSvcServer(['serve'], { env }), await startSvcServer(['serve'], { env })];

      const ids: number[] = [];
      for (const [a, accountId] of ACCOUNTS.entries()) {
        for (let i = 0; i < PER_ACCOUNT; i++) {
          const created = await requestJson(servers[(a + i) % 2].url, 'POST', `/v1/brands/${brandId}/automations`, {
            key,
            body: {
              automationName: `Rule ${a}.${i}`,
              accountId,
              level: 'campaign',
              conditions: [{ metric: 'spend', window: 'today', operator: 'gt', value: 100 }],
              action: 'notify',
              frequency: 'every_15_minutes',
              mode: 'shadow',
            },
          });
          expect(created.status, JSON.stringify(created.body)).to.equal(201);
          ids.push(created.body.automationId);
        }
      }

      const runsOf = async (id: number) => {
        const reply = await requestJson(servers[id % 2].url, 'GET', `/v1/brands/${brandId}/automations/${id}/runs`, { key });
        expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
        return reply.body.runs as Array<{ trigger: string }>;
      };
      await waitUntil(async () => (await Promise.all(ids.map(runsOf))).every((runs) => runs.length > 0), 'a run of every automation', 60_000, 250);
      // Both processes keep claiming every second; a second run before the next quarter hour would be a double.
      await new Promise((r) => setTimeout(r, 3_000));
      for (const id of ids) {
        const runs = await runsOf(id);
        expect(
          runs.map((r) => r.trigger),
          `automation ${id}`,
        ).to.deep.equal(['schedule']);
      }
    });
  });
}
