// The svc-server binary as operators and outside harnesses run it (docs/operations.md and
// docs/bootstrap.md): migrate, bootstrap FILE|-, serve, serve --demo and usage errors.

import net from 'node:net';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { openDatabase } from '../../../src/db/connection.js';
import { projectPath } from '../../../src/paths.js';
import { createTestDatabase, dialects, type TestDatabase } from '../../helpers/databases.js';
import { runSvcServer, runningChildren, startSvcServer, stopAllServers, type ServerProcess } from '../../helpers/processes.js';

// Tables of the foundation migration that every later version keeps.
const CORE_TABLES = ['service_settings', 'organizations', 'users', 'memberships', 'brands', 'ad_accounts', 'api_keys', 'api_key_brands'];

/** The migrations shipped in the project, by the names knex records for them. */
function shippedMigrations(): string[] {
  return fs
    .readdirSync(projectPath('dist', 'migrations'))
    .filter((f) => /^\d{14}_.+\.js$/.test(f))
    .map((f) => f.replace(/\.js$/, '.ts'))
    .sort();
}

async function withKnex<T>(url: string, work: (knex: ReturnType<typeof openDatabase>['knex']) => Promise<T>): Promise<T> {
  const { knex } = openDatabase(url);
  try {
    return await work(knex);
  } finally {
    await knex.destroy();
  }
}

async function rowCounts(url: string): Promise<Record<string, number>> {
  return withKnex(url, async (knex) => {
    const out: Record<string, number> = {};
    for (const table of ['organizations', 'users', 'brands', 'api_keys']) {
      const row = await knex(table).count({ n: '*' }).first();
      out[table] = Number(row?.n ?? 0);
    }
    return out;
  });
}

async function getJson(url: string, key?: string): Promise<{ status: number; headers: Headers; body: any }> {
  const res = await fetch(url, { headers: key ? { authorization: `Bearer ${key}` } : {} });
  const text = await res.text();
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {
    // leave the text for the assertion message
  }
  return { status: res.status, headers: res.headers, body };
}

/** A bootstrap document whose emails are unique to `tag`, so applying several never shares users. */
/** A Meta ad account id of the tenant's own, from its tag's character codes. */
function accountIdOf(tag: string): string {
  return `act_${[...tag]
    .map((c) => c.charCodeAt(0))
    .join('')
    .slice(0, 15)}`;
}

function tenant(tag: string) {
  return {
    organizations: [
      {
        ref: 'acme',
        name: `Acme ${tag}`,
        plan: 'agency',
        subscriptionStatus: 'active',
        users: [
          { ref: 'olive', email: `olive.${tag}@acme.test`, name: 'Olive Owner', password: 'correct horse 1', role: 'owner' },
          { ref: 'mia', email: `mia.${tag}@acme.test`, name: 'Mia Member', password: 'correct horse 2', role: 'member', brands: ['shoes'] },
        ],
        brands: [
          {
            ref: 'shoes',
            name: 'Shoes Co',
            adAccounts: [
              // An ad account of its own per tenant: two organizations naming one account are applied with a warning.
              {
                platform: 'meta',
                accountId: accountIdOf(tag),
                pageId: 'pg_1001',
                name: 'Shoes US',
                timezone: 'America/New_York',
                currency: 'USD',
                active: true,
              },
            ],
          },
          { ref: 'hats', name: 'Hats Co', adAccounts: [] },
        ],
        apiKeys: [
          {
            ref: 'ci',
            name: 'CI key',
            createdBy: 'olive',
            scopes: ['read', 'write', 'publish'],
            surfaces: { api: true, mcp: true },
            brands: null,
            expiresAt: null,
            publishCeilingDollars: 500,
            revoked: false,
          },
          { ref: 'shoesOnly', name: 'Shoes only', createdBy: 'olive', scopes: ['read'], surfaces: { api: true, mcp: true }, brands: ['shoes'] },
        ],
      },
      {
        ref: 'solo',
        name: `Solo ${tag}`,
        plan: 'pro',
        subscriptionStatus: 'active',
        brands: [{ ref: 'soloBrand', name: 'Solo Brand' }],
        apiKeys: [{ ref: 'mcpKey', name: 'MCP key', scopes: ['read'] }],
      },
    ],
  };
}

function expectTenantResult(result: any): void {
  expect(result).to.have.all.keys('organizations');
  expect(result.organizations).to.have.all.keys('acme', 'solo');
  const { acme, solo } = result.organizations;
  expect(acme).to.have.all.keys('id', 'users', 'brands', 'apiKeys');
  expect(acme.id).to.be.a('number');
  expect(acme.users).to.have.all.keys('olive', 'mia');
  expect(acme.brands).to.have.all.keys('shoes', 'hats');
  expect(acme.apiKeys).to.have.all.keys('ci', 'shoesOnly');
  for (const entry of [...Object.values(acme.users), ...Object.values(acme.brands)] as any[]) {
    expect(entry).to.have.all.keys('id');
    expect(entry.id).to.be.a('number');
  }
  for (const key of Object.values(acme.apiKeys) as any[]) {
    expect(key).to.have.all.keys('id', 'secret');
    expect(key.id).to.be.a('number');
    expect(key.secret).to.match(/^svc_sk_[A-Za-z0-9_-]+$/);
  }
  expect(acme.apiKeys.ci.secret).to.not.equal(acme.apiKeys.shoesOnly.secret);
  expect(solo.id).to.be.a('number').and.not.equal(acme.id);
  expect(solo.users).to.deep.equal({});
  expect(solo.apiKeys.mcpKey.secret).to.match(/^svc_sk_/);
}

for (const dialect of dialects()) {
  describe(`svc-server migrate and bootstrap (${dialect})`, function () {
    this.timeout(40_000);
    let db: TestDatabase;
    let dir: string;
    before(async () => {
      db = await createTestDatabase(dialect);
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-cli-'));
    });
    after(async () => {
      await stopAllServers();
      fs.rmSync(dir, { recursive: true, force: true });
      await db?.drop();
    });

    const env = () => ({ DATABASE_URL: db.url });
    const writeFile = (name: string, content: unknown) => {
      const file = path.join(dir, name);
      fs.writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
      return file;
    };

    it('migrate creates the tables on a fresh database, and a second run says it is up to date (exit 0 both)', async () => {
      const fresh = await createTestDatabase(dialect);
      try {
        expect(await withKnex(fresh.url, (knex) => knex.schema.hasTable('organizations'))).to.equal(false);

        const first = await runSvcServer(['migrate'], { env: { DATABASE_URL: fresh.url } });
        expect(first.code, first.stderr).to.equal(0);
        expect(first.stderr).to.match(/Applied [1-9]\d* migration/);

        const present = await withKnex(fresh.url, async (knex) => {
          const out: Record<string, boolean> = {};
          for (const table of CORE_TABLES) out[table] = await knex.schema.hasTable(table);
          return out;
        });
        expect(present).to.deep.equal(Object.fromEntries(CORE_TABLES.map((t) => [t, true])));
        const recorded = await withKnex(fresh.url, (knex) => knex('knex_migrations').orderBy('name').pluck('name'));
        expect(recorded).to.deep.equal(shippedMigrations());
        expect(first.stderr).to.include(`Applied ${recorded.length} migration`);

        const second = await runSvcServer(['migrate'], { env: { DATABASE_URL: fresh.url } });
        expect(second.code, second.stderr).to.equal(0);
        expect(second.stderr).to.match(/up to date/i);
        expect(second.stderr).to.not.match(/Applied/);
        const count = await withKnex(fresh.url, (knex) => knex('knex_migrations').count({ n: '*' }).first());
        expect(Number(count?.n)).to.equal(shippedMigrations().length);
      } finally {
        await fresh.drop();
      }
    });

    it('bootstrap FILE prints only the result JSON on stdout, and the printed key works against a served instance', async () => {
      const file = writeFile('tenant.json', tenant('file'));
      const run = await runSvcServer(['bootstrap', file], { env: env() });
      expect(run.code, run.stderr).to.equal(0);
      // Only the result document: it parses whole, with nothing before or after it.
      const result = JSON.parse(run.stdout);
      expectTenantResult(result);

      const { acme } = result.organizations;
      const stored = await withKnex(db.url, (knex) => knex('organizations').where({ id: acme.id }).first('name', 'plan'));
      expect(stored).to.deep.equal({ name: 'Acme file', plan: 'agency' });

      const server = await startSvcServer(['serve'], { env: env() });
      try {
        const all = await getJson(`${server.url}/v1/brands`, acme.apiKeys.ci.secret);
        expect(all.status, JSON.stringify(all.body)).to.equal(200);
        expect(all.body.accounts.map((a: any) => [a.brandId, a.brandName, a.accountId, a.organizationId])).to.deep.equal([
          [acme.brands.shoes.id, 'Shoes Co', accountIdOf('file'), acme.id],
          [acme.brands.hats.id, 'Hats Co', null, acme.id],
        ]);
        const limited = await getJson(`${server.url}/v1/brands`, acme.apiKeys.shoesOnly.secret);
        expect(limited.status, JSON.stringify(limited.body)).to.equal(200);
        expect(limited.body.accounts.map((a: any) => a.brandId)).to.deep.equal([acme.brands.shoes.id]);
      } finally {
        expect(await server.stop()).to.equal(0);
      }
    });

    it('bootstrap - reads the file from standard input', async () => {
      const before = await rowCounts(db.url);
      const run = await runSvcServer(['bootstrap', '-'], { env: env(), input: JSON.stringify(tenant('stdin')) });
      expect(run.code, run.stderr).to.equal(0);
      const result = JSON.parse(run.stdout);
      expectTenantResult(result);
      const after = await rowCounts(db.url);
      expect(after).to.deep.equal({
        organizations: before.organizations + 2,
        users: before.users + 2,
        brands: before.brands + 3,
        api_keys: before.api_keys + 3,
      });
      const names = await withKnex(db.url, (knex) =>
        knex('organizations').whereIn('id', [result.organizations.acme.id, result.organizations.solo.id]).orderBy('id').pluck('name'),
      );
      expect(names).to.deep.equal(['Acme stdin', 'Solo stdin']);
    });

    const invalid: Array<{ name: string; doc: () => unknown; field: string; message?: string }> = [
      {
        name: 'an unknown field',
        doc: () => {
          const doc = tenant('colour') as any;
          doc.organizations[0].colour = 'red';
          return doc;
        },
        field: 'organizations[0].colour',
      },
      {
        name: 'a user naming a brand ref of another organization, after a valid organization',
        doc: () => {
          const doc = tenant('userref') as any;
          doc.organizations[1].users = [
            { ref: 'sam', email: 'sam.userref@solo.test', name: 'Sam', password: 'correct horse 3', role: 'member', brands: ['shoes'] },
          ];
          return doc;
        },
        field: 'organizations[1].users[0].brands',
      },
      {
        name: 'surfaces.api true on a pro plan',
        doc: () => {
          const doc = tenant('proapi') as any;
          doc.organizations[1].apiKeys[0].surfaces = { api: true, mcp: true };
          return doc;
        },
        field: 'organizations[1].apiKeys[0].surfaces.api',
      },
      {
        name: "a key created by a member (only the organization's owner and admins create keys)",
        doc: () => {
          const doc = tenant('memberkey') as any;
          doc.organizations[0].apiKeys[1].createdBy = 'mia';
          return doc;
        },
        field: 'organizations[0].apiKeys[1].createdBy',
        message: 'user "mia" is a member; only the organization\'s owner and admins create API keys',
      },
      {
        name: 'an ad account currency that is not ISO 4217',
        doc: () => {
          const doc = tenant('currency') as any;
          doc.organizations[0].brands[0].adAccounts[0].currency = 'XYZ';
          return doc;
        },
        field: 'organizations[0].brands[0].adAccounts[0].currency',
      },
    ];
    for (const row of invalid) {
      it(`bootstrap refuses a file with ${row.name}: exit 2, the field named on stderr, nothing written`, async () => {
        const before = await rowCounts(db.url);
        const file = writeFile(`invalid-${invalid.indexOf(row)}.json`, row.doc());
        const run = await runSvcServer(['bootstrap', file], { env: env() });
        expect(run.code, run.stderr).to.equal(2);
        expect(run.stderr).to.include(row.field);
        if (row.message) expect(run.stderr).to.include(row.message);
        expect(run.stdout).to.equal('');
        expect(await rowCounts(db.url)).to.deep.equal(before);
      });
    }
  });
}

describe('svc-server serve (sqlite)', function () {
  this.timeout(40_000);
  let db: TestDatabase;
  let running: ServerProcess | undefined;
  beforeEach(async () => {
    db = await createTestDatabase('sqlite');
  });
  afterEach(async () => {
    try {
      if (running?.running) await running.stop();
    } finally {
      running = undefined;
      await stopAllServers();
      await db?.drop();
    }
  });
  after(() => {
    expect(runningChildren()).to.equal(0);
  });

  /** Polls GET /readyz until it answers 200 (its body then), for up to 15 s. */
  async function waitForReady(url: string): Promise<unknown> {
    const until = Date.now() + 15_000;
    for (;;) {
      const r = await getJson(`${url}/readyz`);
      if (r.status === 200) return r.body;
      if (Date.now() > until) throw new Error(`/readyz still answers ${r.status}: ${JSON.stringify(r.body)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  it('on PORT=0 prints the listening line, answers GET /healthz 200 without credentials, and exits 0 on SIGTERM', async () => {
    running = await startSvcServer(['serve'], { env: { DATABASE_URL: db.url, PORT: '0' } });
    const match = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(running.stdout);
    expect(match, running.stdout).to.not.equal(null);
    const port = Number(match![1]);
    expect(port).to.be.greaterThan(0);
    expect(running.url).to.equal(`http://127.0.0.1:${port}`);
    // Without BASE_URL the public address is unknown on PORT=0: the line does not claim http://localhost:0, a warning names BASE_URL.
    const lines = running.stdout
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { msg: string; baseUrl?: unknown });
    expect(lines.find((l) => l.msg.startsWith('listening on'))?.baseUrl).to.equal(null);
    // The line names the console's address (the listening one, as BASE_URL is unknown here).
    expect(lines.find((l) => l.msg.startsWith('listening on'))?.msg).to.equal(`listening on ${running.url} (the console: ${running.url}/console)`);
    expect(lines.some((l) => l.msg.startsWith('BASE_URL is not set and PORT=0'))).to.equal(true);

    const health = await getJson(`${running.url}/healthz`);
    expect(health.status, JSON.stringify(health.body)).to.equal(200);
    expect(health.body).to.deep.equal({ status: 'ok' });
    // Read raw with curl, it ends its line.
    expect(await (await fetch(`${running.url}/healthz`)).text()).to.equal('{"status":"ok"}\n');
    expect(health.headers.get('content-type')).to.match(/^application\/json/);

    // The pending migrations ran before listening.
    expect(await withKnex(db.url, (knex) => knex.schema.hasTable('api_keys'))).to.equal(true);

    const code = await running.stop('SIGTERM');
    expect(code).to.equal(0);
    expect(running.running).to.equal(false);
  });

  it('sends webhook deliveries from threads of their own by default (a claiming line each, /readyz 200 once they claim); DELIVERY_THREAD=off keeps them on the worker', async () => {
    const logLines = (p: ServerProcess) =>
      p.stdout
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as { msg: string; deliveries?: string; deliveryThreads?: number; thread?: string; shard?: number; of?: number });
    running = await startSvcServer(['serve'], { env: { DATABASE_URL: db.url, PORT: '0', LOG_LEVEL: 'info', DELIVERY_THREADS: '2' } });
    expect(logLines(running).find((l) => l.msg.startsWith('listening on'))).to.include({ deliveries: 'thread', deliveryThreads: 2 });
    const ready = await waitForReady(running.url);
    expect(ready).to.deep.equal({ status: 'ready' });
    const claiming = logLines(running).filter((l) => l.thread === 'deliveries' && l.msg === 'delivery thread claiming webhook deliveries');
    expect(claiming.map((l) => [l.shard, l.of]).sort()).to.deep.equal([
      [0, 2],
      [1, 2],
    ]);
    expect(await running.stop('SIGTERM')).to.equal(0);

    running = await startSvcServer(['serve'], { env: { DATABASE_URL: db.url, PORT: '0', LOG_LEVEL: 'info', DELIVERY_THREAD: 'off' } });
    expect(logLines(running).find((l) => l.msg.startsWith('listening on'))?.deliveries).to.equal('worker');
    expect(await waitForReady(running.url)).to.deep.equal({ status: 'ready' });
    expect(logLines(running).some((l) => l.thread === 'deliveries')).to.equal(false);
    expect(await running.stop('SIGTERM')).to.equal(0);
  });

  it('serve --demo prints a demo key and a reviewer key once on an empty database; the key lists the demo brands; a second start prints none', async () => {
    running = await startSvcServer(['serve', '--demo'], { env: { DATABASE_URL: db.url } });
    const secrets = [...new Set(running.stdout.match(/svc_sk_[A-Za-z0-9_-]+/g) ?? [])];
    expect(secrets, running.stdout).to.have.length(2);
    const [demoKey, reviewerKey] = secrets;
    expect(running.stdout).to.match(new RegExp(`API key:\\s+${demoKey}`));
    expect(running.stdout).to.match(new RegExp(`Reviewer key:\\s+${reviewerKey}`));
    expect(running.stdout).to.include('npx svc-server create-key --org "Demo Agency" --created-by owner@demo.test');
    // The reviewer key belongs to another member of the demo organization (its admin).
    const reviewer = await getJson(`${running.url}/v1/brands`, reviewerKey);
    expect(reviewer.status, JSON.stringify(reviewer.body)).to.equal(200);

    const brands = await getJson(`${running.url}/v1/brands`, demoKey);
    expect(brands.status, JSON.stringify(brands.body)).to.equal(200);
    expect(brands.body.accounts.map((a: any) => [a.brandName, a.accountId, a.connected])).to.deep.equal([
      ['Demo Shoes', 'act_1001', true],
      ['Demo Hats', 'biz_2001', true],
      ['Demo Tea', 'act_3001', true],
    ]);
    expect(brands.body.nextCursor).to.equal(null);
    expect(await running.stop()).to.equal(0);

    running = await startSvcServer(['serve', '--demo'], { env: { DATABASE_URL: db.url } });
    expect(running.stdout).to.not.include('svc_sk_');
    // The restart says the keys are not shown again, and the one command that makes a new one.
    expect(running.stdout).to.include('its keys were shown then and are not shown again');
    expect(running.stdout).to.include('New key:  npx svc-server create-key --org "Demo Agency" --created-by owner@demo.test');
    // The first key still works, and nothing was seeded a second time.
    const again = await getJson(`${running.url}/v1/brands`, demoKey);
    expect(again.status, JSON.stringify(again.body)).to.equal(200);
    expect(again.body.accounts.map((a: any) => a.brandName)).to.deep.equal(['Demo Shoes', 'Demo Hats', 'Demo Tea']);
    expect((await rowCounts(db.url)).organizations).to.equal(1);
    expect(await running.stop()).to.equal(0);
  });

  it('an unknown command exits 2 with the usage text', async () => {
    const run = await runSvcServer(['frobnicate'], { env: { DATABASE_URL: db.url } });
    expect(run.code).to.equal(2);
    expect(run.stderr).to.include('Unknown command "frobnicate"');
    expect(run.stderr).to.include('Usage:');
    for (const command of ['serve', 'migrate', 'bootstrap FILE']) expect(run.stderr).to.include(`svc-server ${command}`);
    expect(run.stdout).to.equal('');
  });

  it('an unknown command near a known one names it', async () => {
    const run = await runSvcServer(['migrat'], { env: { DATABASE_URL: db.url } });
    expect(run.code).to.equal(2);
    expect(run.stderr).to.include('Unknown command "migrat". Did you mean "migrate"?');
  });

  it('a busy port is one line that names PORT, without a stack, said before migrating', async () => {
    const holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const port = (holder.address() as net.AddressInfo).port;
    try {
      // A fresh SQLite file: the port is checked before migrating, so no file is made.
      const fresh = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'svc-busy-port-')), 'svc.sqlite');
      const run = await runSvcServer(['serve'], { env: { DATABASE_URL: `sqlite:${fresh}`, PORT: String(port) } });
      expect(run.code).to.equal(75);
      expect(fs.existsSync(fresh), 'migrated before checking the port').to.equal(false);
      const lines = run.stderr
        .trim()
        .split('\n')
        .filter((l) => !l.startsWith('{'));
      expect(lines).to.deep.equal([
        `svc-server: Port ${port} on 127.0.0.1 is already in use (is another svc-server running?): stop what holds it, or start on another port with PORT, for example PORT=8080 npm start.`,
      ]);
      expect(run.stderr).to.not.include('setupListenHandle');
    } finally {
      holder.close();
    }
  });
});

describe('svc-server --help and flags: usage and exit 0 doing nothing else; a mistake is a sentence and exit 2 on stderr', function () {
  this.timeout(60_000);
  // An empty folder with no DATABASE_URL: the default ./data/svc.sqlite would appear here if a command ran.
  let folder: string;
  beforeEach(() => (folder = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-server-help-'))));
  afterEach(() => fs.rmSync(folder, { recursive: true, force: true }));

  for (const args of [
    ['serve', '--help'],
    ['serve', '--demo', '-h'],
    ['migrate', '--help'],
    ['bootstrap', '--help'],
    ['create-key', '--help'],
    ['rotate-signing-key', '--help'],
    ['help', 'serve'],
    ['--help'],
  ]) {
    it(`svc-server ${args.join(' ')} prints the usage on stdout, exits 0 and creates nothing`, async () => {
      const run = await runSvcServer(args, { cwd: folder });
      expect(run.code, run.stderr).to.equal(0);
      expect(run.stdout).to.match(/^Usage:/);
      const command = args.find((a) => !a.startsWith('-') && a !== 'help');
      if (command) expect(run.stdout).to.include(`svc-server ${command}`);
      expect(run.stderr).to.equal('');
      expect(fs.readdirSync(folder), 'files the command made').to.deep.equal([]);
    });
  }

  for (const [args, sentence] of [
    [['serve', '--bogus'], "svc-server: Unknown option '--bogus'."],
    [['migrate', '--demo'], "svc-server: Unknown option '--demo'."],
    [['bootstrap'], 'svc-server: bootstrap needs FILE (a bootstrap JSON file, or - for standard input).'],
    [['bootstrap', 'a.json', 'b.json'], 'svc-server: bootstrap does not take "b.json".'],
    [['serve', 'now'], 'svc-server: serve does not take "now".'],
    [['create-key', '--bogus'], "svc-server: Unknown option '--bogus'."],
    [[], 'svc-server: name a command.'],
  ] as Array<[string[], string]>) {
    it(`svc-server ${args.join(' ') || '(nothing)'} is a usage mistake: one sentence, the usage, exit 2, nothing made`, async () => {
      const run = await runSvcServer(args, { cwd: folder });
      expect(run.code).to.equal(2);
      expect(run.stdout).to.equal('');
      expect(run.stderr.split('\n')[0]).to.equal(sentence);
      expect(run.stderr).to.include('Usage:');
      expect(fs.readdirSync(folder), 'files the command made').to.deep.equal([]);
    });
  }
});

/** The lines of stderr a person reads (the JSON log lines left out). */
const sentences = (stderr: string) =>
  stderr
    .trim()
    .split('\n')
    .filter((l) => l && !l.startsWith('{'));

describe('svc-server start-up and database mistakes: one sentence, no stack, an exit code of their own', function () {
  this.timeout(60_000);
  const mysql = process.env.TEST_MYSQL_URL ? new URL(process.env.TEST_MYSQL_URL) : null;
  const mysqlAt = mysql ? `${mysql.hostname}:${mysql.port || 3306}` : '';
  const cases: Array<{ name: string; args?: string[]; env: Record<string, string>; code: number; says: RegExp; when?: boolean }> = [
    {
      name: 'FX_RATES that is not CUR=rate',
      env: { FX_RATES: 'EUR' },
      code: 78,
      says: /^svc-server: FX_RATES: "EUR" is not CUR=rate; .* Fix it in the environment and start again\.$/,
    },
    {
      name: 'an unknown MCP_TOOLSETS name',
      env: { MCP_TOOLSETS: 'bogus' },
      code: 78,
      says: /^svc-server: MCP_TOOLSETS: unknown toolset "bogus"; choose from default, all/,
    },
    { name: 'a PORT that is not a number', env: { PORT: 'abc' }, code: 78, says: /^svc-server: PORT must be a whole number of at least 0; got "abc"\. Fix it/ },
    {
      name: 'a PORT past 65535',
      env: { PORT: '99999' },
      code: 78,
      says: /^svc-server: PORT must be a port number from 0 to 65535 \(0 picks a free one\); got "99999"\. Fix it in the environment and start again\.$/,
    },
    {
      name: 'a BASE_URL that is not a URL',
      env: { BASE_URL: 'notaurl' },
      code: 78,
      says: /^svc-server: BASE_URL must be an absolute http or https URL such as https:\/\/ads\.example\.com; got "notaurl"\. Fix it/,
    },
    {
      name: 'an MCP_URL of another scheme',
      env: { MCP_URL: 'ftp://x.example/mcp' },
      code: 78,
      says: /^svc-server: MCP_URL must be an absolute http or https URL/,
    },
    {
      name: 'a LOG_LEVEL pino does not know',
      env: { LOG_LEVEL: 'loud' },
      code: 78,
      says: /^svc-server: LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent; got "loud"\. Fix it/,
    },
    {
      name: 'a META_GRAPH_URL that is not a URL',
      env: { META_GRAPH_URL: 'graph' },
      code: 78,
      says: /^svc-server: META_GRAPH_URL must be an absolute http or https URL/,
    },
    {
      name: 'a DATABASE_URL of no known form',
      env: { DATABASE_URL: 'postgres://x' },
      code: 78,
      says: /^svc-server: DATABASE_URL must be sqlite:PATH or mysql:\/\/user:pass@host:port\/db; got "postgres:\/\/x"/,
    },
    {
      name: 'a CREATIVES_DIR that cannot be written',
      env: { CREATIVES_DIR: '/etc/hostname/creatives' },
      code: 78,
      says: /^svc-server: CREATIVES_DIR \/etc\/hostname\/creatives cannot be written \(ENOTDIR/,
    },
    {
      name: 'a TOKEN_ENCRYPTION_KEY that is not base64 (abc)',
      env: { TOKEN_ENCRYPTION_KEY: 'abc' },
      code: 78,
      says: /^svc-server: TOKEN_ENCRYPTION_KEY is not base64 \(it must be 32 bytes, base64-encoded\): make one with `openssl rand -base64 32`/,
    },
    {
      name: 'a TOKEN_ENCRYPTION_KEY of the wrong length',
      env: { TOKEN_ENCRYPTION_KEY: Buffer.alloc(16, 7).toString('base64') },
      code: 78,
      says: /^svc-server: TOKEN_ENCRYPTION_KEY holds 16 bytes; it must be 32 bytes, base64-encoded/,
    },
    {
      name: 'a SQLite DATABASE_URL whose folder does not exist (nothing is created)',
      env: { DATABASE_URL: 'sqlite:/nonexistent-svc-folder/dir/x.sqlite' },
      code: 78,
      says: /^svc-server: DATABASE_URL names the SQLite file \/nonexistent-svc-folder\/dir\/x\.sqlite, whose folder \/nonexistent-svc-folder\/dir does not exist: create it \(mkdir -p \/nonexistent-svc-folder\/dir\)/,
    },
    {
      name: 'a SQLite file that cannot be opened',
      env: { DATABASE_URL: 'sqlite:/etc/hostname/svc.sqlite' },
      code: 69,
      says: /^svc-server: The database in DATABASE_URL \(sqlite:\/etc\/hostname\/svc\.sqlite\) cannot be opened as a SQLite file .* Point DATABASE_URL at a file/,
    },
    {
      name: 'nothing listening at the database host and port',
      env: { DATABASE_URL: 'mysql://svc:secret@127.0.0.1:1/svc' },
      code: 69,
      says: /^svc-server: The database in DATABASE_URL \(mysql:\/\/svc:\*\*\*@127\.0\.0\.1:1\/svc\): nothing answers at 127\.0\.0\.1:1 \(ECONNREFUSED\)\. Start MariaDB or MySQL there/,
    },
    {
      name: 'a wrong database password (migrate)',
      args: ['migrate'],
      env: { DATABASE_URL: `mysql://root:wrong-password@${mysqlAt}/test` },
      code: 69,
      says: /^svc-server: The database in DATABASE_URL \(mysql:\/\/root:\*\*\*@[^)]+\) refused user "root": the password is wrong or the user does not exist\./,
      when: !!mysql,
    },
    {
      name: 'a database that does not exist (migrate)',
      args: ['migrate'],
      env: { DATABASE_URL: `mysql://root@${mysqlAt}/svc_no_such_database` },
      code: 69,
      says: /^svc-server: The database in DATABASE_URL \([^)]+\) has no database "svc_no_such_database" on [^ ]+\. Create it \(CREATE DATABASE `svc_no_such_database` CHARACTER SET utf8mb4\)/,
      when: !!mysql,
    },
  ];
  for (const c of cases.filter((x) => x.when !== false)) {
    it(`${c.name}: exit ${c.code}, one line`, async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-startup-'));
      try {
        const env = { DATABASE_URL: `sqlite:${path.join(dir, 'svc.sqlite')}`, CREATIVES_DIR: path.join(dir, 'creatives'), PORT: '0', ...c.env };
        const run = await runSvcServer(c.args ?? ['serve'], { env, timeoutMs: 30_000 });
        expect(run.code, run.stderr).to.equal(c.code);
        const lines = sentences(run.stderr);
        expect(lines, run.stderr).to.have.length(1);
        expect(lines[0]).to.match(c.says);
        expect(run.stderr).to.not.match(/\n\s+at /);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  }

  it('a folder of DATABASE_URL that does not exist is not made; the default ./data is', async () => {
    expect(fs.existsSync('/nonexistent-svc-folder'), 'a command made the missing folder').to.equal(false);
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-default-data-'));
    try {
      const run = await runSvcServer(['migrate'], { cwd: folder });
      expect(run.code, run.stderr).to.equal(0);
      expect(fs.existsSync(path.join(folder, 'data', 'svc.sqlite'))).to.equal(true);
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });

  describe('TOKEN_ENCRYPTION_KEY against the access tokens stored with it', () => {
    const key = Buffer.alloc(32, 1).toString('base64');
    let dir: string;
    let env: Record<string, string>;
    before(async () => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-token-key-'));
      env = { DATABASE_URL: `sqlite:${path.join(dir, 'svc.sqlite')}`, CREATIVES_DIR: path.join(dir, 'creatives'), PORT: '0' };
      const file = {
        organizations: [
          {
            ref: 'o',
            name: 'Token Org',
            plan: 'agency',
            subscriptionStatus: 'active',
            brands: [
              {
                ref: 'b',
                name: 'Token Brand',
                adAccounts: [{ platform: 'meta', accountId: 'act_7070', name: 'T', timezone: 'UTC', currency: 'USD', active: true, accessToken: 'meta-token' }],
              },
            ],
          },
        ],
      };
      const run = await runSvcServer(['bootstrap', '-'], { env: { ...env, TOKEN_ENCRYPTION_KEY: key }, input: JSON.stringify(file) });
      expect(run.code, run.stderr).to.equal(0);
    });
    after(() => fs.rmSync(dir, { recursive: true, force: true }));

    it('live mode with a stored token and no key: one sentence naming TOKEN_ENCRYPTION_KEY, exit 78', async () => {
      const run = await runSvcServer(['serve'], { env: { ...env, PLATFORM_MODE: 'live' } });
      expect(run.code, run.stderr).to.equal(78);
      expect(sentences(run.stderr)).to.deep.equal([
        'svc-server: PLATFORM_MODE=live, and 1 ad account holds access tokens sealed with TOKEN_ENCRYPTION_KEY, which is not set: set it to the key the tokens were stored with.',
      ]);
    });

    it('a well-formed key that cannot open the stored token: one sentence, exit 78 (in either mode)', async () => {
      const other = Buffer.alloc(32, 2).toString('base64');
      for (const mode of ['live', 'sandbox']) {
        const run = await runSvcServer(['serve'], { env: { ...env, PLATFORM_MODE: mode, TOKEN_ENCRYPTION_KEY: other } });
        expect(run.code, `${mode}: ${run.stderr}`).to.equal(78);
        expect(sentences(run.stderr), mode).to.deep.equal([
          'svc-server: TOKEN_ENCRYPTION_KEY does not open the access token stored for ad account act_7070 (1 ad account holds tokens): set the key they were stored with, or store new tokens with svc-server bootstrap.',
        ]);
      }
    });

    it('the right key starts the server in live mode', async () => {
      const server = await startSvcServer(['serve'], { env: { ...env, PLATFORM_MODE: 'live', TOKEN_ENCRYPTION_KEY: key, JOBS: 'off' } });
      try {
        expect((await fetch(`${server.url}/healthz`)).status).to.equal(200);
      } finally {
        expect(await server.stop()).to.equal(0);
      }
    });
  });
});
