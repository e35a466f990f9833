// The `svc` client as users run it: a child process against a listening server (lists, --all,
// bodies from --data, typed and repeated flags, uploads, the generated Idempotency-Key, login and
// its config file, help), each exit-code class, and retries against small fake HTTP servers.

import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { operations } from '../../../src/wiring/operations.js';
import { projectPath } from '../../../src/paths.js';
import { dialects } from '../../helpers/databases.js';
import { makePng } from '../../helpers/png.js';
import { startWorld, type World } from '../../helpers/world.js';

const SVC_BIN = projectPath('dist', 'surfaces', 'cli', 'svc.js');
// What svc reads from the environment: a child sees only what a test passes.
const CLIENT_ENV = ['SVC_BASE_URL', 'SVC_API_KEY', 'SVC_MAX_RETRY_WAIT', 'XDG_CONFIG_HOME'];

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

const live = new Set<ChildProcess>();
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-cli-test-'));
// HOME points at an empty folder so no real ~/.config/svc/config.json is ever read or written.
const emptyHome = fs.mkdtempSync(path.join(scratch, 'home-'));

/** Runs `node dist/surfaces/cli/svc.js <args>` to completion. */
function svc(args: string[], env: Record<string, string> = {}, input = '', timeoutMs = 20_000): Promise<Run> {
  const base: NodeJS.ProcessEnv = { ...process.env, HOME: emptyHome };
  for (const name of CLIENT_ENV) delete base[name];
  const child = spawn(process.execPath, [SVC_BIN, ...args], { cwd: scratch, env: { ...base, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  live.add(child);
  const out = { stdout: '', stderr: '' };
  child.stdout!.setEncoding('utf8').on('data', (c: string) => (out.stdout += c));
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (out.stderr += c));
  child.stdin!.on('error', () => {});
  child.stdin!.end(input);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`svc ${args.join(' ')} did not finish within ${timeoutMs} ms\nstdout:\n${out.stdout}\nstderr:\n${out.stderr}`));
    }, timeoutMs);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      live.delete(child);
      resolve({ code, ...out });
    });
  });
}

function json(run: Run): any {
  expect(run.code, `exit code; stderr: ${run.stderr}`).to.equal(0);
  return JSON.parse(run.stdout);
}

/** The error envelope svc printed on standard error. */
function envelope(run: Run): { code: string; message: string; details: any; requestId: string | null } {
  const parsed = JSON.parse(
    run.stderr
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .join('\n'),
  );
  expect(parsed).to.have.property('error');
  return parsed.error;
}

const writeFile = (name: string, content: string | Buffer) => {
  const file = path.join(scratch, name);
  fs.writeFileSync(file, content);
  return file;
};

after(async () => {
  for (const child of live) child.kill('SIGKILL');
  fs.rmSync(scratch, { recursive: true, force: true });
});

const campaignProps = { name: 'Spring - US', objective: 'OUTCOME_TRAFFIC', budget: { dailyAmount: 5000 } };
const adsetProps = {
  name: 'US 18-65',
  optimizationGoal: 'LINK_CLICKS',
  billingEvent: 'IMPRESSIONS',
  targeting: { countries: ['US'], ageMin: 18, ageMax: 65 },
  schedule: { startTime: '2030-01-01T00:00:00Z' },
};
const adProps = {
  name: 'Hero 1',
  status: 'ACTIVE',
  headline: 'Spring sale',
  primaryText: 'Up to 40% off',
  linkUrl: 'https://shop.example.com/spring',
  callToAction: 'SHOP_NOW',
};

for (const dialect of dialects()) {
  describe(`svc against a listening server (${dialect})`, function () {
    this.timeout(60_000);
    let w: World;
    let env: Record<string, string>;
    let shoes: number;

    before(async () => {
      w = await startWorld({ dialect });
      env = { SVC_BASE_URL: w.url, SVC_API_KEY: w.key('acme', 'ci') };
      shoes = w.brandId('acme', 'shoes');
    });
    after(async () => w?.close());

    describe('lists', () => {
      it('list-brands prints the brands as one JSON document on stdout (one line off a terminal) and exits 0', async () => {
        const run = await svc(['list-brands'], env);
        const body = json(run);
        const rest = await w.request('GET', '/v1/brands', { key: env.SVC_API_KEY });
        expect(body).to.deep.equal(rest.body);
        expect(body.accounts.map((a: any) => a.brandName)).to.deep.equal(['Shoes Co', 'Hats Co', 'Multi Co']);
        expect(run.stdout.trimEnd().split('\n')).to.have.length(1);
        expect(run.stderr).to.equal('');
      });

      it('list-brands --limit 1 --all follows nextCursor and prints every brand once in one document', async () => {
        const paged = await w.request('GET', '/v1/brands?limit=1', { key: env.SVC_API_KEY });
        expect(paged.body.nextCursor, 'the world needs more than one page').to.be.a('string');
        const body = json(await svc(['list-brands', '--limit', '1', '--all'], env));
        const ids = body.accounts.map((a: any) => a.brandId);
        expect(ids).to.deep.equal([w.brandId('acme', 'shoes'), w.brandId('acme', 'hats'), w.brandId('acme', 'multi')]);
        expect(new Set(ids).size).to.equal(ids.length);
        expect(body.nextCursor).to.equal(null);
      });

      it('without --all, --limit 1 prints one page and its nextCursor', async () => {
        const body = json(await svc(['list-brands', '--limit', '1'], env));
        expect(body.accounts).to.have.length(1);
        expect(body.nextCursor).to.be.a('string');
      });
    });

    describe('bodies', () => {
      it('create-launch --data @file.json sends the file as the body; a flag wins over the same field', async () => {
        const file = writeFile(`launch-${dialect}.json`, JSON.stringify({ title: 'From a file', description: 'Written by svc' }));
        const created = json(await svc(['create-launch', '--brand-id', String(shoes), '--data', `@${file}`], env));
        expect(created).to.deep.include({ title: 'From a file', description: 'Written by svc', brandId: shoes, status: 'draft' });
        const stored = await w.request('GET', `/v1/brands/${shoes}/launches/${created.id}`, { key: env.SVC_API_KEY });
        expect(stored.status).to.equal(200);
        expect(stored.body.title).to.equal('From a file');

        const overridden = json(await svc(['create-launch', '--brand-id', String(shoes), '--data', `@${file}`, '--title', 'The flag wins'], env));
        expect(overridden).to.deep.include({ title: 'The flag wins', description: 'Written by svc' });
      });

      it('create-launch --data - reads the body from standard input', async () => {
        const run = await svc(['create-launch', '--brand-id', String(shoes), '--data', '-'], env, JSON.stringify({ title: 'From stdin' }));
        expect(json(run)).to.deep.include({ title: 'From stdin', brandId: shoes });
      });

      it('a brandId given only in --data still fills the path', async () => {
        const created = json(await svc(['create-launch', '--data', JSON.stringify({ brandId: shoes, title: 'Inline data' })], env));
        expect(created).to.deep.include({ title: 'Inline data', brandId: shoes });
      });
    });

    describe('a launch built and published through svc alone', () => {
      let launchId: string;
      let creativeId: number;
      let campaignId: string;
      let adsetId: string;
      let adId: string;
      const inLaunch = () => ['--brand-id', String(shoes), '--launch-id', launchId];

      it('creates the launch and uploads a creative with --file (multipart)', async () => {
        launchId = json(await svc(['create-launch', '--brand-id', String(shoes), '--title', 'Built by svc'], env)).id;
        const png = writeFile('hero.png', makePng(1080, 1080));
        const creative = json(await svc(['upload-creative', '--brand-id', String(shoes), '--file', png], env));
        expect(creative).to.deep.include({ name: 'hero.png', type: 'image', width: 1080, height: 1080 });
        creativeId = creative.id;
      });

      it('adds nodes with object properties through --data (file and inline), a flag naming the parent', async () => {
        campaignId = json(
          await svc(['create-node', ...inLaunch(), '--node-type', 'campaign', '--data', JSON.stringify({ properties: campaignProps })], env),
        ).id;
        const adsetFile = writeFile(`adset-${dialect}.json`, JSON.stringify({ nodeType: 'adset', properties: adsetProps }));
        const adset = json(await svc(['create-node', ...inLaunch(), '--parent-id', campaignId, '--data', `@${adsetFile}`], env));
        expect(adset).to.deep.include({ nodeType: 'adset', parentId: campaignId });
        expect(adset.properties).to.deep.equal(adsetProps);
        adsetId = adset.id;
        adId = json(
          await svc(['create-node', ...inLaunch(), '--node-type', 'ad', '--parent-id', adsetId, '--data', JSON.stringify({ properties: adProps })], env),
        ).id;
      });

      it('sends integer flags as JSON numbers: update-node --creative-id, duplicate-node --count', async () => {
        const updated = json(await svc(['update-node', ...inLaunch(), '--node-id', adId, '--creative-id', String(creativeId)], env));
        expect(updated.properties.creativeId).to.equal(creativeId);
        const copies = json(await svc(['duplicate-node', ...inLaunch(), '--node-id', adId, '--node-type', 'ad', '--count', '2'], env));
        expect(copies.nodeIds).to.have.length(2);
      });

      it('launch-campaign without --idempotency-key prints the generated key on stderr and sends it', async () => {
        const run = await svc(['launch-campaign', ...inLaunch()], env);
        const preview = json(run);
        expect(preview).to.deep.include({ valid: true, confirmed: false, status: 'draft', counts: { campaigns: 1, adSets: 1, ads: 3 } });
        const match = /^Idempotency-Key: (\S+)$/m.exec(run.stderr);
        expect(match, run.stderr).to.not.equal(null);
        // The same key and body over REST replays the stored answer: svc really sent that key.
        const replay = await w.request('POST', `/v1/brands/${shoes}/launches/${launchId}/publish`, {
          key: env.SVC_API_KEY,
          body: {},
          headers: { 'Idempotency-Key': match![1] },
        });
        expect(replay.status).to.equal(200);
        expect(replay.headers.get('idempotent-replayed')).to.equal('true');
        expect(replay.body).to.deep.equal(preview);
      });

      it('launch-campaign --confirm with a given key publishes and prints no generated key', async () => {
        const key = `svc-test-${dialect}-${Date.now()}`;
        const run = await svc(['launch-campaign', ...inLaunch(), '--confirm', '--idempotency-key', key], env);
        expect(json(run)).to.deep.include({ confirmed: true, status: 'published' });
        expect(run.stderr).to.not.contain('Idempotency-Key');
        const again = json(await svc(['launch-campaign', ...inLaunch(), '--confirm', '--idempotency-key', key], env));
        expect(again).to.deep.include({ confirmed: true, status: 'published' });
      });

      it('repeated flags make an array: list-campaigns --status-filter ACTIVE --status-filter PAUSED', async () => {
        const body = json(
          await svc(['list-campaigns', '--brand-id', String(shoes), '--account-id', 'act_1001', '--status-filter', 'ACTIVE', '--status-filter', 'PAUSED'], env),
        );
        expect(body.campaigns.map((c: any) => c.name)).to.include('Spring - US');
        const bad = await svc(
          ['list-campaigns', '--brand-id', String(shoes), '--account-id', 'act_1001', '--status-filter', 'ACTIVE', '--status-filter', 'DELETED'],
          env,
        );
        expect(bad.code).to.equal(2);
        expect(envelope(bad).details.map((d: any) => d.field)).to.deep.equal(['statusFilter[1]']);
      });

      it('deleting the published launch is a 409 conflict: exit 4', async () => {
        const run = await svc(['delete-launch', ...inLaunch()], env);
        expect(run.code, run.stderr).to.equal(4);
        expect(envelope(run).code).to.equal('conflict');
        expect(run.stdout).to.equal('');
      });
    });

    describe('exit codes', () => {
      type Row = { name: string; args: () => string[]; key?: () => string | null; code: number; error?: string; stderr?: RegExp };
      const rows: Row[] = [
        { name: 'a value the service refuses (--limit 0)', args: () => ['list-brands', '--limit', '0'], code: 2, error: 'validation_failed' },
        { name: 'a flag the service refuses by type (--limit abc)', args: () => ['list-brands', '--limit', 'abc'], code: 2, error: 'validation_failed' },
        {
          name: 'an unknown flag, named in the message',
          args: () => ['list-brands', '--colour', 'red'],
          code: 2,
          stderr: /Unknown flag --colour for "svc list-brands"/,
        },
        {
          name: 'an object property given as a flag',
          args: () => ['create-node', '--brand-id', '1', '--launch-id', '1', '--properties', 'x'],
          code: 2,
          stderr: /--properties takes JSON: give "properties" in --data/,
        },
        { name: 'a missing path parameter', args: () => ['create-launch', '--title', 'x'], code: 2, stderr: /--brand-id is required/ },
        { name: 'a non-repeatable flag given twice', args: () => ['list-brands', '--limit', '1', '--limit', '2'], code: 2, stderr: /--limit is given twice/ },
        {
          name: '--data that is not a JSON object',
          args: () => ['create-launch', '--brand-id', '1', '--data', '[1]'],
          code: 2,
          stderr: /must hold one JSON object/,
        },
        { name: 'an unknown command', args: () => ['launch-rocket'], code: 2, stderr: /Unknown command "launch-rocket"\. Run "svc --help"/ },
        { name: 'a command one letter off', args: () => ['list-brand'], code: 2, stderr: /Unknown command "list-brand"\. Did you mean "list-brands"\?/ },
        { name: 'a revoked key', args: () => ['list-brands'], key: () => w.key('acme', 'revoked'), code: 3, error: 'unauthenticated' },
        {
          name: 'a key without the write scope',
          args: () => ['create-launch', '--brand-id', String(shoes)],
          key: () => w.key('acme', 'reader'),
          code: 3,
          error: 'insufficient_scope',
        },
        {
          name: 'a brand outside the key brand limit',
          args: () => ['list-launches', '--brand-id', String(w.brandId('acme', 'hats'))],
          key: () => w.key('acme', 'limited'),
          code: 3,
          error: 'brand_not_allowed',
        },
        { name: 'no API key at all', args: () => ['list-brands'], key: () => null, code: 3, stderr: /No API key: set SVC_API_KEY or run "svc login/ },
        { name: 'svc mcp without an API key', args: () => ['mcp'], key: () => null, code: 3, stderr: /No API key/ },
        { name: 'an unknown brand', args: () => ['list-launches', '--brand-id', '999999'], code: 4, error: 'not_found' },
        { name: "another organization's brand", args: () => ['list-launches', '--brand-id', String(w.brandId('other', 'rival'))], code: 4, error: 'not_found' },
      ];
      for (const row of rows) {
        it(`exits ${row.code} on ${row.name}`, async () => {
          const key = row.key ? row.key() : env.SVC_API_KEY;
          const run = await svc(row.args(), key === null ? { SVC_BASE_URL: w.url } : { SVC_BASE_URL: w.url, SVC_API_KEY: key });
          expect(run.code, run.stderr).to.equal(row.code);
          expect(run.stdout).to.equal('');
          if (row.error) {
            const error = envelope(run);
            expect(error.code).to.equal(row.error);
            expect(error.requestId).to.match(/^req_/);
          }
          if (row.stderr) expect(run.stderr).to.match(row.stderr);
        });
      }

      it('exits 4 on 409 idempotency_conflict: the same key with another body', async () => {
        const key = `conflict-${dialect}-${Date.now()}`;
        json(await svc(['create-launch', '--brand-id', String(shoes), '--title', 'First', '--idempotency-key', key], env));
        const run = await svc(['create-launch', '--brand-id', String(shoes), '--title', 'Second', '--idempotency-key', key], env);
        expect(run.code, run.stderr).to.equal(4);
        expect(envelope(run).code).to.equal('idempotency_conflict');
      });
    });

    describe('svc mcp', () => {
      it("bridges MCP on stdio to the service's /mcp: the SDK client lists the tools and calls list_brands", async () => {
        const client = new Client({ name: 'svc-cli-tests', version: '1.0.0' });
        const transport = new StdioClientTransport({ command: process.execPath, args: [SVC_BIN, 'mcp'], env: { ...env, HOME: emptyHome }, stderr: 'pipe' });
        await client.connect(transport);
        try {
          const { tools } = await client.listTools();
          expect(tools.map((t) => t.name)).to.include.members(['list_brands', 'create_launch', 'launch_campaign']);
          const result = (await client.callTool({ name: 'list_brands', arguments: {} })) as { isError?: boolean; structuredContent?: any };
          expect(result.isError, JSON.stringify(result)).to.not.equal(true);
          expect(result.structuredContent.accounts.map((a: any) => a.brandName)).to.deep.equal(['Shoes Co', 'Hats Co', 'Multi Co']);
        } finally {
          await client.close();
        }
      });

      /** The error the app gets when the bridge cannot forward initialize: the SDK client's connect fails with it. */
      const connectError = async (args: string[], extraEnv: Record<string, string>): Promise<string> => {
        const client = new Client({ name: 'svc-cli-tests', version: '1.0.0' });
        const transport = new StdioClientTransport({
          command: process.execPath,
          args: [SVC_BIN, ...args],
          env: { ...env, HOME: emptyHome, ...extraEnv },
          stderr: 'pipe',
        });
        try {
          await client.connect(transport);
        } catch (err) {
          return (err as Error).message;
        } finally {
          await client.close();
        }
        throw new Error('connected');
      };

      it('tells a refused key and an unknown toolset apart from a service it cannot reach', async () => {
        const refused = await connectError(['mcp'], { SVC_API_KEY: w.key('acme', 'revoked') });
        expect(refused).to.match(/refused the API key \(HTTP 401\): .+ Check SVC_API_KEY, or run svc login\./);
        expect(refused).to.not.contain('could not be reached');
        const toolset = await connectError(['mcp', '--toolsets', 'rockets'], {});
        expect(toolset).to.match(/refused --toolsets: unknown toolset "rockets"; choose from default, all, dynamic/);
        expect(toolset).to.not.contain('could not be reached');
        // A port nobody listens on (this server's, after a listener on it closed).
        const closed = await new Promise<number>((resolve) => {
          const probe = net.createServer().listen(0, '127.0.0.1', () => {
            const { port } = probe.address() as AddressInfo;
            probe.close(() => resolve(port));
          });
        });
        const unreachable = await connectError(['mcp'], { SVC_BASE_URL: `http://127.0.0.1:${closed}` });
        expect(unreachable).to.contain(`The service at http://127.0.0.1:${closed} could not be reached`);
      });
    });

    describe('svc login', () => {
      it('writes base URL and key to $XDG_CONFIG_HOME/svc/config.json with mode 600; later commands use it', async () => {
        const xdg = fs.mkdtempSync(path.join(scratch, 'xdg-'));
        const run = await svc(['login', '--base-url', w.url, '--api-key', env.SVC_API_KEY], { XDG_CONFIG_HOME: xdg });
        expect(run.code, run.stderr).to.equal(0);
        const file = path.join(xdg, 'svc', 'config.json');
        expect(fs.statSync(file).mode & 0o777).to.equal(0o600);
        expect(JSON.parse(fs.readFileSync(file, 'utf8'))).to.deep.equal({ baseUrl: w.url, apiKey: env.SVC_API_KEY });
        const body = json(await svc(['list-brands'], { XDG_CONFIG_HOME: xdg }));
        expect(body.accounts).to.have.length(3);
      });

      it('defaults to ~/.config/svc/config.json and reads the key from stdin with --api-key -', async () => {
        const home = fs.mkdtempSync(path.join(scratch, 'home-'));
        const run = await svc(['login', '--base-url', w.url, '--api-key', '-'], { HOME: home }, `${env.SVC_API_KEY}\n`);
        expect(run.code, run.stderr).to.equal(0);
        const file = path.join(home, '.config', 'svc', 'config.json');
        expect(fs.statSync(file).mode & 0o777).to.equal(0o600);
        expect(JSON.parse(fs.readFileSync(file, 'utf8')).apiKey).to.equal(env.SVC_API_KEY);
        expect(json(await svc(['list-brands'], { HOME: home })).accounts).to.have.length(3);
      });

      it('SVC_API_KEY wins over the stored key', async () => {
        const xdg = fs.mkdtempSync(path.join(scratch, 'xdg-'));
        expect((await svc(['login', '--base-url', w.url, '--api-key', w.key('acme', 'revoked')], { XDG_CONFIG_HOME: xdg })).code).to.equal(0);
        const stored = await svc(['list-brands'], { XDG_CONFIG_HOME: xdg });
        expect(stored.code).to.equal(3);
        expect(envelope(stored).code).to.equal('unauthenticated');
        expect(json(await svc(['list-brands'], { XDG_CONFIG_HOME: xdg, SVC_API_KEY: env.SVC_API_KEY })).accounts).to.have.length(3);
      });

      it('needs both --base-url and --api-key (exit 2, nothing written)', async () => {
        const xdg = fs.mkdtempSync(path.join(scratch, 'xdg-'));
        const run = await svc(['login', '--base-url', w.url], { XDG_CONFIG_HOME: xdg });
        expect(run.code).to.equal(2);
        expect(run.stderr).to.contain('--api-key');
        expect(fs.existsSync(path.join(xdg, 'svc', 'config.json'))).to.equal(false);
      });
    });
  });
}

describe('svc help', () => {
  it('svc --help lists every command under its area, areas in catalogue order', async () => {
    const run = await svc(['--help']);
    expect(run.code, run.stderr).to.equal(0);
    const listed = new Map<string, string[]>();
    let area: string | null = null;
    for (const line of run.stdout.split('\n')) {
      const heading = /^([a-z][a-z-]*):$/.exec(line);
      if (heading) area = heading[1];
      else if (area && /^ {2}[a-z]/.test(line)) listed.set(area, [...(listed.get(area) ?? []), line.trim().split(/\s+/)[0]]);
      else if (!line.startsWith(' ')) area = null;
    }
    const expected = new Map<string, string[]>();
    for (const op of operations) expected.set(op.tag, [...(expected.get(op.tag) ?? []), op.name]);
    expect([...listed.keys()]).to.deep.equal([...expected.keys()]);
    for (const [tag, names] of expected) expect(listed.get(tag), tag).to.deep.equal(names);
    expect(run.stdout).to.contain('login --base-url URL --api-key KEY');
  });

  it('svc create-launch --help shows each parameter with its type, limits, default and the scope', async () => {
    const run = await svc(['create-launch', '--help']);
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stdout).to.contain('POST /v1/brands/{brandId}/launches');
    expect(run.stdout).to.contain('scope: write');
    expect(run.stdout).to.match(/idempotency: optional/);
    expect(run.stdout).to.match(/--brand-id <integer>\s+required, in the path; 1 to 2147483647/);
    expect(run.stdout).to.match(/--title <string>\s+length 1 to 200 characters; default "Untitled Batch"/);
    expect(run.stdout).to.match(/--description <string>\s+length at most 2000 characters/);
    expect(run.stdout).to.contain('--data');
  });

  it('svc launch-campaign --help shows the boolean flag pair, the publish scope and the generated key', async () => {
    const run = await svc(['help', 'launch-campaign']);
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stdout).to.match(/--confirm, --no-confirm\s+boolean; default false/);
    expect(run.stdout).to.contain('scope: publish');
    expect(run.stdout).to.contain('idempotency: required: generated and printed');
  });

  it('every command of its own answers --help with its usage and exit 0; an unknown flag is a sentence on stderr and exit 2', async () => {
    for (const args of [
      ['login', '--help'],
      ['mcp', '--help'],
      ['mcp', '--print-config', '--help'],
      ['list-brands', '-h'],
    ]) {
      const run = await svc(args);
      expect(run.code, `${args.join(' ')}: ${run.stderr}`).to.equal(0);
      expect(run.stdout, args.join(' ')).to.match(/^Usage: svc /m);
      expect(run.stderr, args.join(' ')).to.equal('');
    }
    for (const args of [
      ['login', '--bogus'],
      ['mcp', '--print-config', '--bogus'],
      ['list-brands', '--bogus'],
    ]) {
      const run = await svc(args);
      expect(run.code, args.join(' ')).to.equal(2);
      expect(run.stdout, args.join(' ')).to.equal('');
      expect(run.stderr, args.join(' ')).to.match(/^svc: Unknown (option '--bogus'|flag --bogus)/);
    }
  });

  it('svc with no command prints its usage on standard error and exits 2 (a mistake), as svc-server does', async () => {
    const run = await svc([]);
    expect(run.code).to.equal(2);
    expect(run.stdout).to.equal('');
    expect(run.stderr).to.match(/^Usage: svc /);
  });

  it('svc list-campaigns --help offers --all and marks the array flag repeatable', async () => {
    const run = await svc(['list-campaigns', '--help']);
    expect(run.stdout).to.match(/--status-filter <string>\.\.\.\s+repeat the flag for several values; 1 to 3 values/);
    expect(run.stdout).to.match(/--all\s+follow nextCursor/);
  });
});

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  at: number;
}

/** A tiny HTTP server answering each request with `answer(n)` (n counts from 1), recording what it got. */
async function fakeService(answer: (n: number) => { status: number; headers?: Record<string, string>; body?: unknown }) {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, at: Date.now() });
      const a = answer(seen.length);
      res.writeHead(a.status, { 'content-type': 'application/json', ...(a.headers ?? {}) });
      res.end(a.body === undefined ? '' : JSON.stringify(a.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, seen, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const failure = (code: string, message: string) => ({ error: { code, message, details: null, requestId: 'req_fake' } });

describe('svc retries and service failures (fake servers)', function () {
  this.timeout(30_000);
  const servers: Array<{ close: () => Promise<void> }> = [];
  const start = async (answer: Parameters<typeof fakeService>[0]) => {
    const s = await fakeService(answer);
    servers.push(s);
    return s;
  };
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });
  const env = (url: string, extra: Record<string, string> = {}) => ({ SVC_BASE_URL: url, SVC_API_KEY: 'svc_sk_test', ...extra });

  it('retries 503 with Retry-After: 0 three times in all, then exits 5 with the envelope on stderr', async () => {
    const s = await start(() => ({ status: 503, headers: { 'retry-after': '0' }, body: failure('unavailable', 'The database does not answer.') }));
    const run = await svc(['list-brands'], env(s.url));
    expect(run.code).to.equal(5);
    expect(s.seen).to.have.length(3);
    expect(s.seen.every((r) => r.method === 'GET' && r.url === '/v1/brands' && r.headers.authorization === 'Bearer svc_sk_test')).to.equal(true);
    expect(envelope(run)).to.deep.include({ code: 'unavailable', requestId: 'req_fake' });
    expect(run.stderr.match(/retrying/g)).to.have.length(2);
    expect(run.stdout).to.equal('');
  });

  it('does not retry 500: one request, exit 5', async () => {
    const s = await start(() => ({ status: 500, body: failure('internal_error', 'Something went wrong on our side.') }));
    const run = await svc(['list-brands'], env(s.url));
    expect(run.code).to.equal(5);
    expect(s.seen).to.have.length(1);
    expect(envelope(run).code).to.equal('internal_error');
  });

  it('retries 504 with the same Idempotency-Key it generated and printed', async () => {
    const s = await start(() => ({ status: 504, headers: { 'retry-after': '0' }, body: failure('timeout', 'Retry with the same Idempotency-Key.') }));
    const run = await svc(['launch-campaign', '--brand-id', '1', '--launch-id', '7', '--confirm'], env(s.url));
    expect(run.code).to.equal(5);
    const printed = /^Idempotency-Key: (\S+)$/m.exec(run.stderr)?.[1];
    expect(printed, run.stderr).to.be.a('string');
    expect(s.seen.map((r) => r.headers['idempotency-key'])).to.deep.equal([printed, printed, printed]);
    expect(s.seen.map((r) => `${r.method} ${r.url}`)).to.deep.equal(Array(3).fill('POST /v1/brands/1/launches/7/publish'));
  });

  it('does not repeat a write that timed out without an Idempotency-Key', async () => {
    const s = await start(() => ({ status: 504, headers: { 'retry-after': '0' }, body: failure('timeout', 'May still complete.') }));
    const run = await svc(['create-launch', '--brand-id', '1'], env(s.url));
    expect(run.code).to.equal(5);
    expect(s.seen).to.have.length(1);
    expect(run.stderr).to.not.contain('Idempotency-Key');
  });

  it('waits what Retry-After says on 429, then prints the answer that follows', async () => {
    const s = await start((n) =>
      n === 1
        ? { status: 429, headers: { 'retry-after': '1' }, body: failure('rate_limited', 'Slow down.') }
        : { status: 200, body: { accounts: [], nextCursor: null } },
    );
    const run = await svc(['list-brands'], env(s.url));
    expect(json(run)).to.deep.equal({ accounts: [], nextCursor: null });
    expect(s.seen).to.have.length(2);
    expect(s.seen[1].at - s.seen[0].at).to.be.at.least(900);
  });

  it('caps the wait at SVC_MAX_RETRY_WAIT seconds and exits 5 when 429 persists', async () => {
    const s = await start(() => ({ status: 429, headers: { 'retry-after': '120' }, body: failure('rate_limited', 'Slow down.') }));
    const started = Date.now();
    const run = await svc(['list-brands'], env(s.url, { SVC_MAX_RETRY_WAIT: '0' }));
    expect(run.code).to.equal(5);
    expect(s.seen).to.have.length(3);
    expect(Date.now() - started).to.be.below(10_000);
    expect(envelope(run).code).to.equal('rate_limited');
  });

  it('--all stops at the first failing page and exits with its code', async () => {
    const s = await start((n) =>
      n === 1 ? { status: 200, body: { accounts: [{ brandId: 1 }], nextCursor: 'c2' } } : { status: 404, body: failure('not_found', 'Gone.') },
    );
    const run = await svc(['list-brands', '--all'], env(s.url));
    expect(run.code).to.equal(4);
    expect(s.seen.map((r) => r.url)).to.deep.equal(['/v1/brands', '/v1/brands?cursor=c2']);
    expect(run.stdout).to.equal('');
  });

  it('run-tracker-push follows the run it started to its end: a progress line on stderr per change, the ended run on stdout', async () => {
    const run = (status: string, done: number) => ({
      runId: 7,
      brandId: 1,
      status,
      trigger: 'manual',
      progress: { done, total: 2 },
      pushed: [],
      skipped: [],
      error: null,
    });
    const answers = [run('running', 0), run('running', 1), run('running', 1), run('succeeded', 2)];
    const s = await start((n) => ({ status: n === 1 ? 202 : 200, body: answers[Math.min(n - 1, answers.length - 1)] }));
    const done = await svc(['run-tracker-push', '--brand-id', '1'], env(s.url));
    expect(JSON.parse(done.stdout)).to.deep.equal(run('succeeded', 2));
    expect(s.seen.map((r) => `${r.method} ${r.url}`)).to.deep.equal([
      'POST /v1/brands/1/integrations/tracker/push/runs',
      ...Array(3).fill('GET /v1/brands/1/integrations/tracker/push/runs/7'),
    ]);
    expect(done.stderr.trim().split('\n')).to.deep.equal([
      'svc: run-tracker-push: 0 of 2 done (running)',
      'svc: run-tracker-push: 1 of 2 done (running)',
      'svc: run-tracker-push: 2 of 2 done (succeeded)',
    ]);
  });

  it('exits 5 when nothing listens at SVC_BASE_URL', async () => {
    const s = await start(() => ({ status: 200 }));
    await s.close();
    servers.pop();
    const run = await svc(['list-brands'], env(s.url));
    expect(run.code).to.equal(5);
    expect(run.stderr).to.contain(`Cannot reach the service at ${s.url}`);
  });
});
