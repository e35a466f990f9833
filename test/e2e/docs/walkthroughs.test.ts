// Every shell block of README.md and docs/*.md, run as written in a reader's folder against a fresh
// `npm start` demo server started there with the environment the page's own setup lines give it,
// with the keys the demo prints in K and R as the README tells readers to set them: nothing else is
// handed to the reader. Each curl must answer the status its `# → NNN` comment states and every
// other command must succeed (test/helpers/walkthroughs.ts has the convention). docs/platforms.md,
// the way to live mode, runs against the fake Meta and TikTok servers (META_GRAPH_URL and
// TIKTOK_API_URL, which the page says to set only for a test double), which know the page's ad
// accounts by the tokens it puts in its bootstrap file. docs/deploy.md starts its own processes on
// the database it creates: it runs on the MariaDB of TEST_MYSQL_URL.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { projectPath } from '../../../src/paths.js';
import { freePort } from '../../helpers/oauth.js';
import { dialectsRun, mysqlAdmin } from '../../helpers/databases.js';
import { startSvcServer, stopAllServers, type ServerProcess } from '../../helpers/processes.js';
import {
  maskSecrets,
  outputSamples,
  problemsOf,
  readerVariablesOf,
  runWalkthrough,
  scriptOf,
  secretFilesNotPrivate,
  serverBlockOf,
  serverEnvOf,
  shellBlocks,
  stdoutDifferences,
  stdoutSamples,
  type Block,
  type RunOutcome,
} from '../../helpers/walkthroughs.js';
import { FakeMetaServer } from '../../fakes/meta-server.js';
import { FakeTikTokServer } from '../../fakes/tiktok-server.js';

/** The documents run in live mode, with the accounts (and the tokens) their bootstrap files name. */
const LIVE: Record<string, { meta: Array<[string, string]>; tiktok: Array<[string, string]> }> = {
  'docs/platforms.md': { meta: [['act_4242', 'meta-system-user-token']], tiktok: [['7000000000000004242', 'tiktok-advertiser-token']] },
};

interface LiveBackend {
  /** For the server: the platforms' addresses, the fakes' (the page sets live mode and the key itself). */
  serverEnv: Record<string, string>;
  close(): Promise<void>;
}

async function liveBackend(accounts: (typeof LIVE)[string]): Promise<LiveBackend> {
  const meta = await FakeMetaServer.start();
  const tiktok = await FakeTikTokServer.start();
  for (const [accountId, token] of accounts.meta) meta.addAccount(accountId, { token });
  for (const [advertiserId, token] of accounts.tiktok) tiktok.addAdvertiser(advertiserId, { token });
  return {
    serverEnv: { META_GRAPH_URL: meta.url, TIKTOK_API_URL: tiktok.url },
    close: async () => {
      await meta.close();
      await tiktok.close();
    },
  };
}

const DOCUMENTS = [
  'README.md',
  ...fs
    .readdirSync(projectPath('docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`),
];

// The ports the docs name: the server's, the chat receiver's and the webhook receiver's. The run
// uses free ones instead, so it never meets a server a person (or another test run) started.
const DOC_PORTS = { server: 8080, chat: 8090, webhooks: 8099 };

// Variables the service reads: a walkthrough sees only what the docs tell the reader to set.
const SCRUBBED =
  /^(PORT|HOST|DATABASE_URL|BASE_URL|MCP_URL|PLATFORM_MODE|TRACKER_MODE|REDIS_URL|CHAT_WEBHOOK_URL|WEBHOOK_ALLOW_PRIVATE|CREATIVES_DIR|SVC_.*|COPY_MODEL.*|AGENT_MODEL.*|TOKEN_ENCRYPTION_KEY|JOBS|METRICS_TOKEN|OTEL_.*|SHUTDOWN_GRACE_MS|K|R)$/;

/**
 * The project as a reader's folder, without touching it: a temporary folder holding a link to each
 * of the project's entries but data/, which is its own. The guides write their files into data/
 * (configs, logs, bootstrap results) and run `npx svc` from the folder: both work here as in the
 * project, and nothing of the person's data/ is overwritten.
 */
function readerFolder(): string {
  const view = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-docs-folder-'));
  for (const entry of fs.readdirSync(projectPath())) {
    if (entry === 'data' || entry === '.git') continue;
    fs.symlinkSync(projectPath(entry), path.join(view, entry));
  }
  fs.mkdirSync(path.join(view, 'data'));
  return view;
}

/** The README's one start line for every guide (```sh setup guides```). */
const GUIDES_SERVER = shellBlocks(fs.readFileSync(projectPath('README.md'), 'utf8'), 'README.md').filter(
  (b) => b.setup && b.info.split(/\s+/).includes('guides'),
);

/** The secret printed after `label:` in the demo's first output. */
function printed(server: ServerProcess, label: string): string {
  const m = new RegExp(`${label}:\\s+(svc_sk_\\S+)`).exec(server.stdout);
  if (!m) throw new Error(`npm start printed no "${label}" line:\n${server.stdout}`);
  return m[1];
}

/** The page that starts its own processes on a database it creates (no demo server, nothing handed to it). */
const DEPLOY = 'docs/deploy.md';

/** The databases and users a page creates (`CREATE DATABASE name`, `CREATE USER 'u'@'h'`): the run drops them before and after. */
function createdBy(markdown: string): { databases: string[]; users: string[] } {
  return {
    databases: [...new Set([...markdown.matchAll(/CREATE DATABASE (\w+)/g)].map((m) => m[1]))],
    users: [...new Set([...markdown.matchAll(/CREATE USER ('\w+'@'[\w.%-]+')/g)].map((m) => m[1]))],
  };
}

/** Drops what the page creates, on the server of TEST_MYSQL_URL, so a rerun starts where a reader does. */
async function dropCreated(created: { databases: string[]; users: string[] }): Promise<void> {
  const admin = mysqlAdmin();
  try {
    for (const d of created.databases) await admin.raw(`DROP DATABASE IF EXISTS \`${d}\``);
    for (const u of created.users) await admin.raw(`DROP USER IF EXISTS ${u}`);
  } finally {
    await admin.destroy();
  }
}

/** The reader's environment: this machine's, without any variable the service reads. */
function readerEnv(dir: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !SCRUBBED.test(k)));
  // The CLI keeps its login under XDG_CONFIG_HOME: the run's own, not the person's.
  env.XDG_CONFIG_HOME = path.join(dir, 'config');
  return env;
}

const tail = (s: string) => s.split('\n').slice(-40).join('\n');
const report = (outcome: RunOutcome, server = '') =>
  `\n--- output\n${tail(outcome.stdout)}\n--- errors\n${tail(outcome.stderr)}${server ? `\n--- server\n${tail(server)}` : ''}`;

describe('documentation walkthroughs (README.md and docs/*.md, run as written)', function () {
  this.timeout(300_000);
  after(stopAllServers);

  it("README.md states the guides' server once, and no guide but the live one (platforms.md) starts a server of its own", () => {
    expect(GUIDES_SERVER, 'README.md blocks marked `sh setup guides`').to.have.length(1);
    expect(serverBlockOf(GUIDES_SERVER)).to.equal(0);
    const ownStart = DOCUMENTS.filter((d) => d !== 'README.md' && serverBlockOf(shellBlocks(fs.readFileSync(projectPath(d), 'utf8'), d)) >= 0);
    expect(ownStart).to.deep.equal(['docs/platforms.md']);
  });

  for (const document of DOCUMENTS) {
    const markdown = fs.readFileSync(projectPath(document), 'utf8');
    const blocks: Block[] = shellBlocks(markdown, document);
    const runs = blocks.some((b) => !b.setup);

    if (document === DEPLOY) {
      const mariadb = Boolean(process.env.TEST_MYSQL_URL);
      const title = mariadb
        ? 'every shell block runs on the MariaDB of TEST_MYSQL_URL, from creating its database and user to the backup, with nothing handed to it'
        : 'its blocks keep the convention, parse as bash and name the database and user they create (every block runs on MariaDB when TEST_MYSQL_URL is set)';
      it(`${document}: ${title}`, async () => {
        expect(problemsOf(blocks), 'the blocks break the convention').to.deep.equal([]);
        expect(readerVariablesOf(blocks), 'variables the page asks the reader to set').to.deep.equal([]);
        expect(serverBlockOf(blocks), 'the page starts its own processes, not the demo').to.equal(-1);
        const created = createdBy(markdown);
        expect(created.databases, 'the databases the page creates').to.include('svc');
        expect(created.users, 'the users the page creates').to.have.length.greaterThan(0);
        const syntax = spawnSync('bash', ['-n', '-c', scriptOf(blocks).script], { encoding: 'utf8' });
        expect(syntax.stderr, 'the blocks as one bash script').to.equal('');
        if (!mariadb) return;
        dialectsRun.add('mysql');
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-docs-'));
        const folder = readerFolder();
        await dropCreated(created);
        try {
          const outcome = await runWalkthrough(blocks, { env: readerEnv(dir), cwd: folder, timeoutMs: 240_000 });
          expect(outcome.failures, report(outcome)).to.deep.equal([]);
          // What the page says its commands print: the listening line names BASE_URL (not a port-0
          // guess), the key reads the bootstrapped brand, the restored backup holds the organization.
          expect(outcome.stdout).to.include('{"msg":"listening on http://127.0.0.1:');
          expect(outcome.stdout).to.include('"baseUrl":"https://ads.example.com","jobs":false}');
          expect(outcome.stdout).to.include('[{"brandName":"First Brand","connected":false}]');
          expect(markdown).to.include('It prints `[{"brandName":"First Brand","connected":false}]`');
          expect(outcome.stdout.split('\n')).to.include('1');
          expect(secretFilesNotPrivate(folder), 'files holding a secret that others can read').to.deep.equal([]);
          // The backup the guide writes (password hashes, cursor_secret) is its owner's alone.
          const backups = fs.readdirSync(folder).filter((f) => /^svc-.*\.sql\.gz$/.test(f));
          expect(backups, 'the backup file').to.have.length(1);
          expect((fs.statSync(path.join(folder, backups[0])).mode & 0o777).toString(8), backups[0]).to.equal('600');
        } finally {
          await dropCreated(created);
          fs.rmSync(dir, { recursive: true, force: true });
          fs.rmSync(folder, { recursive: true, force: true });
        }
      });
      continue;
    }

    const title = runs
      ? 'every shell block runs on a fresh demo server and answers the statuses it states'
      : 'its shell blocks, if any, keep the convention (nothing to run)';
    it(`${document}: ${title}`, async () => {
      expect(problemsOf(blocks), 'the blocks break the convention').to.deep.equal([]);
      const unknown = readerVariablesOf(blocks).filter((v) => v !== 'K' && v !== 'R');
      expect(unknown, 'variables the docs ask the reader to set that the demo does not print').to.deep.equal([]);
      if (!runs) return;

      const live = LIVE[document];
      const ports = { server: await freePort(), chat: await freePort(), webhooks: await freePort() };
      const rewrite = (text: string) =>
        text
          .replace(new RegExp(`\\b(localhost|127\\.0\\.0\\.1):${DOC_PORTS.server}\\b`, 'g'), `127.0.0.1:${ports.server}`)
          .replace(new RegExp(`\\b${DOC_PORTS.chat}\\b`, 'g'), String(ports.chat))
          .replace(new RegExp(`\\b${DOC_PORTS.webhooks}\\b`, 'g'), String(ports.webhooks));
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-docs-'));
      // A reader's project folder: the server runs there too, on its default ./data/svc.sqlite and ./data/creatives.
      const folder = readerFolder();
      const backend = live ? await liveBackend(live) : null;
      let server: ServerProcess | null = null;
      try {
        // A page that starts no server of its own runs on the guides' server, started as the README says once.
        const starts = serverBlockOf(blocks) >= 0 ? blocks : GUIDES_SERVER;
        const documented = Object.fromEntries(Object.entries(serverEnvOf(starts, { cwd: folder, env: readerEnv(dir) })).map(([k, v]) => [k, rewrite(v)]));
        server = await startSvcServer(['serve', '--demo'], {
          env: { ...documented, ...backend?.serverEnv, PORT: String(ports.server), HOST: '127.0.0.1' },
          cwd: folder,
        });
        const env = { ...readerEnv(dir), K: printed(server, 'API key'), R: printed(server, 'Reviewer key') };
        const outcome = await runWalkthrough(blocks, { env, cwd: folder, timeoutMs: 240_000, rewrite });
        expect(outcome.failures, report(outcome, server.stderr + server.stdout)).to.deep.equal([]);
        // Files the guide's commands (and the server) wrote that hold a secret are readable by their owner alone.
        expect(secretFilesNotPrivate(folder), 'files holding a secret that others can read').to.deep.equal([]);
        // Sample outputs (```json output PATH```) are what the run wrote, not typed by hand.
        for (const sample of outputSamples(markdown, document)) {
          const written = maskSecrets(JSON.parse(fs.readFileSync(path.join(folder, sample.path), 'utf8')));
          expect(written, `${document}:${sample.line}: the sample output of ${sample.path}`).to.deep.equal(JSON.parse(sample.text));
        }
        // What the page says its commands print (```text stdout```) is what they printed.
        for (const sample of stdoutSamples(markdown, document))
          expect(
            stdoutDifferences(sample, outcome.blockStdout.get(sample.blockLine) ?? ''),
            `${document}:${sample.line}: what the page says the block above prints, against what it printed`,
          ).to.deep.equal([]);
      } finally {
        await server?.stop();
        await backend?.close();
        fs.rmSync(dir, { recursive: true, force: true });
        fs.rmSync(folder, { recursive: true, force: true });
      }
    });
  }
});
