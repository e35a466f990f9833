// Every shell block of README.md and docs/*.md, run as written against a fresh `npm start` demo
// server (its own SQLite file, data folder and port), one bash session per document, with the
// keys the demo prints in K and R as the README tells readers to set them. Each curl must answer
// the status its `# → NNN` comment states and every other command must succeed
// (test/helpers/walkthroughs.ts has the convention). docs/platforms.md, the way to live mode, runs
// against a server in PLATFORM_MODE=live pointed at the fake Meta and TikTok servers, which know the
// page's ad accounts by the tokens it puts in its bootstrap file.

import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { projectPath } from '../../../src/paths.js';
import { freePort } from '../../helpers/oauth.js';
import { createTestDatabase } from '../../helpers/databases.js';
import { startSvcServer, stopAllServers, type ServerProcess } from '../../helpers/processes.js';
import { maskSecrets, outputSamples, problemsOf, readerVariablesOf, runWalkthrough, serverEnvOf, shellBlocks, type Block } from '../../helpers/walkthroughs.js';
import { FakeMetaServer } from '../../fakes/meta-server.js';
import { FakeTikTokServer } from '../../fakes/tiktok-server.js';

/** The documents run in live mode, with the accounts (and the tokens) their bootstrap files name. */
const LIVE: Record<string, { meta: Array<[string, string]>; tiktok: Array<[string, string]> }> = {
  'docs/platforms.md': { meta: [['act_4242', 'meta-system-user-token']], tiktok: [['7000000000000004242', 'tiktok-advertiser-token']] },
};

interface LiveBackend {
  /** For the server: live mode against the fakes, and the key tokens are sealed with. */
  serverEnv: Record<string, string>;
  /** For the reader's session: what the page tells the reader to set. */
  readerEnv: Record<string, string>;
  close(): Promise<void>;
}

async function liveBackend(accounts: (typeof LIVE)[string]): Promise<LiveBackend> {
  const meta = await FakeMetaServer.start();
  const tiktok = await FakeTikTokServer.start();
  for (const [accountId, token] of accounts.meta) meta.addAccount(accountId, { token });
  for (const [advertiserId, token] of accounts.tiktok) tiktok.addAdvertiser(advertiserId, { token });
  const key = crypto.randomBytes(32).toString('base64');
  return {
    serverEnv: { PLATFORM_MODE: 'live', META_GRAPH_URL: meta.url, TIKTOK_API_URL: tiktok.url, TOKEN_ENCRYPTION_KEY: key },
    readerEnv: { TOKEN_ENCRYPTION_KEY: key },
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

/** The secret printed after `label:` in the demo's first output. */
function printed(server: ServerProcess, label: string): string {
  const m = new RegExp(`${label}:\\s+(svc_sk_\\S+)`).exec(server.stdout);
  if (!m) throw new Error(`npm start printed no "${label}" line:\n${server.stdout}`);
  return m[1];
}

describe('documentation walkthroughs (README.md and docs/*.md, run as written)', function () {
  this.timeout(300_000);
  after(stopAllServers);

  for (const document of DOCUMENTS) {
    const blocks: Block[] = shellBlocks(fs.readFileSync(projectPath(document), 'utf8'), document);
    const runs = blocks.some((b) => !b.setup);
    const title = runs
      ? 'every shell block runs on a fresh demo server and answers the statuses it states'
      : 'its shell blocks, if any, keep the convention (nothing to run)';
    it(`${document}: ${title}`, async () => {
      expect(problemsOf(blocks), 'the blocks break the convention').to.deep.equal([]);
      const live = LIVE[document];
      // K and R come from the demo's output; DATABASE_URL (docs/deploy.md) from a database of the page's own;
      // TOKEN_ENCRYPTION_KEY (docs/platforms.md) from the live backend.
      const unknown = readerVariablesOf(blocks).filter((v) => v !== 'K' && v !== 'R' && v !== 'DATABASE_URL' && !(live && v === 'TOKEN_ENCRYPTION_KEY'));
      expect(unknown, 'variables the docs ask the reader to set that the demo does not print').to.deep.equal([]);
      if (!runs) return;

      const ports = { server: await freePort(), chat: await freePort(), webhooks: await freePort() };
      const rewrite = (text: string) =>
        text
          .replace(new RegExp(`\\b(localhost|127\\.0\\.0\\.1):${DOC_PORTS.server}\\b`, 'g'), `127.0.0.1:${ports.server}`)
          .replace(new RegExp(`\\b${DOC_PORTS.chat}\\b`, 'g'), String(ports.chat))
          .replace(new RegExp(`\\b${DOC_PORTS.webhooks}\\b`, 'g'), String(ports.webhooks));
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-docs-'));
      const data = { DATABASE_URL: `sqlite:${path.join(dir, 'svc.sqlite')}`, CREATIVES_DIR: path.join(dir, 'creatives') };
      const documented = Object.fromEntries(Object.entries(serverEnvOf(blocks)).map(([k, v]) => [k, rewrite(v)]));
      // After npm start a reader's project folder holds data/ (the default database lives there): the run's own.
      const folder = readerFolder();
      // A page that names the shared database gets a fresh one: MySQL/MariaDB when TEST_MYSQL_URL is set (CI), else SQLite.
      const own = readerVariablesOf(blocks).includes('DATABASE_URL') ? await createTestDatabase(process.env.TEST_MYSQL_URL ? 'mysql' : 'sqlite') : null;
      const backend = live ? await liveBackend(live) : null;
      const server = await startSvcServer(['serve', '--demo'], {
        env: { ...documented, ...backend?.serverEnv, ...data, PORT: String(ports.server), HOST: '127.0.0.1' },
      }).catch(async (err) => {
        await backend?.close();
        await own?.drop();
        fs.rmSync(folder, { recursive: true, force: true });
        throw err;
      });
      try {
        const env: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !SCRUBBED.test(k)));
        Object.assign(env, data, backend?.readerEnv, {
          K: printed(server, 'API key'),
          R: printed(server, 'Reviewer key'),
          XDG_CONFIG_HOME: path.join(dir, 'config'),
        });
        if (own) env.DATABASE_URL = own.url;
        const outcome = await runWalkthrough(blocks, { env, cwd: folder, timeoutMs: 240_000, rewrite });
        const tail = (s: string) => s.split('\n').slice(-40).join('\n');
        expect(
          outcome.failures,
          `\n--- output\n${tail(outcome.stdout)}\n--- errors\n${tail(outcome.stderr)}\n--- server\n${tail(server.stderr + server.stdout)}`,
        ).to.deep.equal([]);
        // Sample outputs (```json output PATH```) are what the run wrote, not typed by hand.
        for (const sample of outputSamples(fs.readFileSync(projectPath(document), 'utf8'), document)) {
          const written = maskSecrets(JSON.parse(fs.readFileSync(path.join(folder, sample.path), 'utf8')));
          expect(written, `${document}:${sample.line}: the sample output of ${sample.path}`).to.deep.equal(JSON.parse(sample.text));
        }
      } finally {
        await server.stop();
        await backend?.close();
        await own?.drop();
        fs.rmSync(dir, { recursive: true, force: true });
        fs.rmSync(folder, { recursive: true, force: true });
      }
    });
  }
});
