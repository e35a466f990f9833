// Every shell block of README.md and docs/*.md, run as written against a fresh `npm start` demo
// server (its own SQLite file, data folder and port), one bash session per document, with the
// keys the demo prints in K and R as the README tells readers to set them. Each curl must answer
// the status its `# → NNN` comment states and every other command must succeed
// (test/helpers/walkthroughs.ts has the convention).

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { projectPath } from '../../../src/paths.js';
import { freePort } from '../../helpers/oauth.js';
import { startSvcServer, stopAllServers, type ServerProcess } from '../../helpers/processes.js';
import { maskSecrets, outputSamples, problemsOf, readerVariablesOf, runWalkthrough, serverEnvOf, shellBlocks, type Block } from '../../helpers/walkthroughs.js';

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
  /^(PORT|HOST|DATABASE_URL|BASE_URL|MCP_URL|PLATFORM_MODE|TRACKER_MODE|REDIS_URL|CHAT_WEBHOOK_URL|WEBHOOK_ALLOW_PRIVATE|CREATIVES_DIR|SVC_.*|COPY_MODEL.*|AGENT_MODEL.*|TOKEN_ENCRYPTION_KEY|K|R)$/;

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
      const unknown = readerVariablesOf(blocks).filter((v) => v !== 'K' && v !== 'R');
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
      // After npm start a reader's project folder holds data/ (the default database lives there).
      fs.mkdirSync(projectPath('data'), { recursive: true });
      const server = await startSvcServer(['serve', '--demo'], { env: { ...documented, ...data, PORT: String(ports.server), HOST: '127.0.0.1' } });
      try {
        const env: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !SCRUBBED.test(k)));
        Object.assign(env, data, { K: printed(server, 'API key'), R: printed(server, 'Reviewer key'), XDG_CONFIG_HOME: path.join(dir, 'config') });
        const outcome = await runWalkthrough(blocks, { env, cwd: projectPath(), timeoutMs: 240_000, rewrite });
        const tail = (s: string) => s.split('\n').slice(-40).join('\n');
        expect(
          outcome.failures,
          `\n--- output\n${tail(outcome.stdout)}\n--- errors\n${tail(outcome.stderr)}\n--- server\n${tail(server.stderr + server.stdout)}`,
        ).to.deep.equal([]);
        // Sample outputs (```json output PATH```) are what the run wrote, not typed by hand.
        for (const sample of outputSamples(fs.readFileSync(projectPath(document), 'utf8'), document)) {
          const written = maskSecrets(JSON.parse(fs.readFileSync(projectPath(sample.path), 'utf8')));
          expect(written, `${document}:${sample.line}: the sample output of ${sample.path}`).to.deep.equal(JSON.parse(sample.text));
        }
      } finally {
        await server.stop();
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});
