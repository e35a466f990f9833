// `svc-server create-key` as an operator runs it: a new key for an existing organization, named by
// id or by name, made as one of its owners or admins (a member is refused), with the settings its
// flags give; the printed secret works on a running server at once.

import { expect } from 'chai';
import { openDatabase } from '../../../src/db/connection.js';
import { createMigratedTestDatabase, dialects, type TestDatabase } from '../../helpers/databases.js';
import { standardWorld } from '../../helpers/fixture.js';
import { requestJson } from '../../helpers/http.js';
import { runSvcServer, startSvcServer, stopAllServers, type ServerProcess } from '../../helpers/processes.js';

/** The standard world (Acme has an owner, Ada the admin and Mia the member) with an owner in Other Agency. */
function tenant() {
  const world = structuredClone(standardWorld) as {
    organizations: Array<{ ref: string; users?: Array<{ ref: string; role: string; [field: string]: unknown }> }>;
  };
  const org = (ref: string) => world.organizations.find((o) => o.ref === ref)!;
  expect(org('acme').users!.find((u) => u.ref === 'ada')?.role, 'the standard world has an admin, Ada').to.equal('admin');
  org('other').users = [{ ref: 'oscar', email: 'oscar@other.test', name: 'Oscar Owner', password: 'correct horse 4', role: 'owner' }];
  return world;
}

for (const dialect of dialects()) {
  describe(`svc-server create-key (${dialect})`, function () {
    this.timeout(60_000);
    let db: TestDatabase;
    let server: ServerProcess;
    let ids: { acme: number; shoes: number; hats: number };

    before(async () => {
      db = await createMigratedTestDatabase(dialect);
      const applied = await runSvcServer(['bootstrap', '-'], { env: { DATABASE_URL: db.url }, input: JSON.stringify(tenant()), timeoutMs: 30_000 });
      expect(applied.code, applied.stderr).to.equal(0);
      const acme = JSON.parse(applied.stdout).organizations.acme;
      ids = { acme: acme.id, shoes: acme.brands.shoes.id, hats: acme.brands.hats.id };
      server = await startSvcServer(['serve'], { env: { DATABASE_URL: db.url, KEY_CACHE_MS: '0' } });
    });
    after(async () => {
      await server?.stop();
      await stopAllServers();
      await db?.drop();
    });

    const createKey = (...args: string[]) => runSvcServer(['create-key', ...args], { env: { DATABASE_URL: db.url }, timeoutMs: 30_000 });
    const get = (key: string, path: string) => requestJson(server.url, 'GET', path, { key });
    const keyCount = async () => {
      const { knex } = openDatabase(db.url);
      try {
        return Number((await knex('api_keys').count({ n: '*' }).first())?.n ?? 0);
      } finally {
        await knex.destroy();
      }
    };

    it('prints only the secret on stdout; the key works at once with the scopes, surfaces and ceiling it was given', async () => {
      const run = await createKey(
        '--org',
        'Acme Agency',
        '--created-by',
        'olive@acme.test',
        '--name',
        'Lost demo key',
        '--scopes',
        'read,write,publish',
        '--surfaces',
        'api,mcp',
        '--publish-ceiling-dollars',
        '500',
      );
      expect(run.code, run.stderr).to.equal(0);
      expect(run.stdout).to.match(/^svc_sk_[A-Za-z0-9_-]+\n$/);
      expect(run.stderr).to.include('"Lost demo key" (read, write, publish; api, mcp; every brand; publish ceiling $500.00)');
      const key = run.stdout.trim();
      const brands = await get(key, '/v1/brands');
      expect(brands.status, JSON.stringify(brands.body)).to.equal(200);
      expect(brands.body.accounts.map((a: { brandName: string }) => a.brandName)).to.deep.equal(['Shoes Co', 'Hats Co', 'Multi Co']);
    });

    it('names the organization by id too, and an admin may make a key; a brand limit and the defaults (read, MCP only) apply', async () => {
      const run = await createKey(
        '--org',
        String(ids.acme),
        '--created-by',
        'ada@acme.test',
        '--name',
        'Shoes reader',
        '--brands',
        String(ids.shoes),
        '--surfaces',
        'api',
      );
      expect(run.code, run.stderr).to.equal(0);
      const key = run.stdout.trim();
      expect((await get(key, `/v1/brands/${ids.shoes}/launches`)).status).to.equal(200);
      const other = await get(key, `/v1/brands/${ids.hats}/launches`);
      expect(other.status).to.equal(403);
      expect(other.body.error.code).to.equal('brand_not_allowed');
      const mcpOnly = await createKey('--org', String(ids.acme), '--created-by', 'ada@acme.test', '--name', 'Defaults');
      expect(mcpOnly.code, mcpOnly.stderr).to.equal(0);
      const refused = await get(mcpOnly.stdout.trim(), '/v1/brands');
      expect(refused.status).to.equal(403);
      expect(refused.body.error.code).to.equal('surface_disabled');
    });

    it("refuses a member's email (exit 3), a person of another organization and an unknown organization (exit 4), and bad settings (exit 2), writing nothing", async () => {
      const keysBefore = await keyCount();
      const member = await createKey('--org', 'Acme Agency', '--created-by', 'mia@acme.test', '--name', 'Nope');
      expect(member.code).to.equal(3);
      expect(member.stderr).to.include('Only the organization owner and admins');
      const stranger = await createKey('--org', 'Acme Agency', '--created-by', 'oscar@other.test', '--name', 'Nope');
      expect(stranger.code).to.equal(4);
      expect(stranger.stderr).to.include('oscar@other.test');
      const nowhere = await createKey('--org', 'No Such Agency', '--created-by', 'olive@acme.test', '--name', 'Nope');
      expect(nowhere.code).to.equal(4);
      const bad = await createKey(
        '--org',
        'Acme Agency',
        '--created-by',
        'olive@acme.test',
        '--name',
        'Nope',
        '--scopes',
        'read,admin',
        '--publish-ceiling-dollars',
        '0.5',
        '--brands',
        '99999',
      );
      expect(bad.code).to.equal(2);
      expect(bad.stderr).to.include('--scopes: has unknown scope "admin"');
      expect(bad.stderr).to.include('--publish-ceiling-dollars: must be at least 1 dollar');
      expect(bad.stderr).to.include('--brands: names 99999');
      const usage = await createKey('--org', 'Acme Agency');
      expect(usage.code).to.equal(2);
      expect(usage.stderr).to.include('create-key needs --created-by, --name');
      for (const run of [member, stranger, nowhere, bad, usage]) expect(run.stdout).to.equal('');
      expect(await keyCount()).to.equal(keysBefore);
    });
  });
}
