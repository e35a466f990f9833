// The walkthrough extractor and runner behind the docs test: which blocks run, how commands and
// their status comments are read, and that a broken block fails the run (on a loopback fake).

import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { projectPath } from '../../src/paths.js';
import {
  commandsOf,
  missingFromStdout,
  problemsOf,
  readerVariablesOf,
  runWalkthrough,
  serverEnvOf,
  shellBlocks,
  stdoutSamples,
} from '../helpers/walkthroughs.js';

const fence = '```';

describe('walkthrough extractor', () => {
  it('finds every shell block with its first line, and tells setup blocks apart', () => {
    const md = [
      '# Title', // 1
      `${fence}sh setup`, // 2
      'npm start', // 3
      fence, // 4
      `${fence}json`, // 5
      '{"a": 1}', // 6
      fence, // 7
      `${fence}bash`, // 8
      'echo hi', // 9
      fence, // 10
      '- item', // 11
      `   ${fence}sh`, // 12
      '   echo indented', // 13
      `   ${fence}`, // 14
    ].join('\n');
    const blocks = shellBlocks(md, 'x.md');
    expect(blocks.map((b) => ({ line: b.line, setup: b.setup, lines: b.lines }))).to.deep.equal([
      { line: 3, setup: true, lines: ['npm start'] },
      { line: 9, setup: false, lines: ['echo hi'] },
      { line: 13, setup: false, lines: ['echo indented'] },
    ]);
  });

  it('joins the lines of one command and reads the status its comment states', () => {
    const [block] = shellBlocks(
      [
        `${fence}sh`,
        'B=http://x; H="a # not a comment"', // 2
        'A=$(curl -s -X POST $B -d \'{"name":', // 3
        '  "two lines"}\' | jq -r .id)   # → 201', // 4
        'curl -s $B/$A \\', // 5
        '  -H "$H"', // 6
        '# → 200 {"id": ...}', // 7
        '#    → {"more": "output"}', // 8
        'until curl -s $B | jq -e .ok > /dev/null; do sleep 1; done   # → 200', // 9
        "jq . <<'EOF'", // 10
        '{"curl": "not a command # → 500"}', // 11
        'EOF', // 12
        'echo "$(date)" done', // 13
        fence,
      ].join('\n'),
      'x.md',
    );
    const commands = commandsOf(block).map((c) => ({ line: c.line, endLine: c.endLine, curls: c.curls, expected: c.expected }));
    expect(commands).to.deep.equal([
      { line: 2, endLine: 2, curls: 0, expected: null },
      { line: 3, endLine: 4, curls: 1, expected: 201 },
      { line: 5, endLine: 6, curls: 1, expected: 200 },
      { line: 9, endLine: 9, curls: 1, expected: 200 },
      { line: 10, endLine: 12, curls: 0, expected: null },
      { line: 13, endLine: 13, curls: 0, expected: null },
    ]);
  });

  it('reports curl commands without a status, two curls in one command and setup blocks that run things', () => {
    const md = [
      `${fence}sh setup`,
      'npm install',
      'CHAT_WEBHOOK_URL=http://127.0.0.1:8090 WEBHOOK_ALLOW_PRIVATE=true npm start',
      'K=svc_sk_...   # the key',
      'curl -s http://localhost:8080/healthz',
      fence,
      `${fence}sh`,
      'curl -s http://localhost:8080/v1/brands',
      'curl -s a   # → 200',
      'curl -s a | curl -s b   # → 200',
      fence,
      `${fence}sh later`,
      'echo x',
      fence,
    ].join('\n');
    const blocks = shellBlocks(md, 'x.md');
    expect(problemsOf(blocks)).to.deep.equal([
      'x.md:5: a setup block may only install, build or start the service or set a variable; run this in a plain sh block: curl -s http://localhost:8080/healthz',
      'x.md:8: state the HTTP status this curl answers in a comment such as "# → 200"',
      'x.md:10: one curl per command, so its status comment is unambiguous',
      'x.md:12: unknown marker "later" (a shell block is run unless marked setup)',
    ]);
    expect(serverEnvOf(blocks, { cwd: os.tmpdir(), env: { PATH: process.env.PATH } })).to.deep.equal({
      CHAT_WEBHOOK_URL: 'http://127.0.0.1:8090',
      WEBHOOK_ALLOW_PRIVATE: 'true',
    });
    expect(readerVariablesOf(blocks)).to.deep.equal(['K']);
  });

  it("evaluates the server's setup lines as the reader's shell would: substitutions run, unexported variables stay out", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-walkthrough-'));
    fs.writeFileSync(path.join(dir, 'key'), 'c2VjcmV0\n');
    const md = [
      `${fence}sh setup`,
      'npm ci',
      'npm run build',
      'ONLY_HERE=1   # set, not exported',
      'export SHARED=$(cat key)',
      'PLATFORM_MODE=live TOKEN_ENCRYPTION_KEY=$(cat key) npm start',
      fence,
    ].join('\n');
    const blocks = shellBlocks(md, 'x.md');
    try {
      expect(problemsOf(blocks)).to.deep.equal([]);
      expect(serverEnvOf(blocks, { cwd: dir, env: { PATH: process.env.PATH } })).to.deep.equal({
        SHARED: 'c2VjcmV0',
        PLATFORM_MODE: 'live',
        TOKEN_ENCRYPTION_KEY: 'c2VjcmV0',
      });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reads the lines a page says its commands print, and finds them missing or out of order in what they printed', () => {
    const [sample] = stdoutSamples(['text', `${fence}text stdout`, 'b', '', 'd', fence].join('\n'), 'x.md');
    expect(sample).to.deep.equal({ file: 'x.md', line: 3, lines: ['b', 'd'] });
    expect(missingFromStdout(sample, 'a\nb\nc\nd\n')).to.deep.equal([]);
    expect(missingFromStdout(sample, 'd\nb\n')).to.deep.equal(['d']);
    expect(missingFromStdout(sample, 'bb\nd\n')).to.deep.equal(['b']);
  });

  it("finds README.md's blocks within the convention, and a status comment removed from one breaks it", () => {
    const readme = fs.readFileSync(projectPath('README.md'), 'utf8');
    expect(problemsOf(shellBlocks(readme, 'README.md'))).to.deep.equal([]);
    const lines = readme.split('\n');
    const at = lines.findIndex((l) => /^curl .*# → 200$/.test(l) || /^curl -s \$V\/brands .*# → 200/.test(l));
    expect(at, 'README.md has a one-line curl with a status comment').to.be.greaterThan(-1);
    lines[at] = lines[at].replace(/\s*# → 200.*$/, '');
    expect(problemsOf(shellBlocks(lines.join('\n'), 'README.md'))).to.deep.equal([
      `README.md:${at + 1}: state the HTTP status this curl answers in a comment such as "# → 200"`,
    ]);
  });
});

describe('walkthrough runner', function () {
  this.timeout(20_000);
  let server: http.Server;
  let base = '';
  before(async () => {
    // A loopback stand-in for the service: POST /things makes one, GET /things/<id> reads it.
    const made = new Set<string>();
    server = http.createServer((req, res) => {
      const send = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      if (req.method === 'POST' && req.url === '/things') {
        const id = String(made.size + 1);
        made.add(id);
        return send(201, { id });
      }
      const m = /^\/things\/(\w+)$/.exec(req.url ?? '');
      if (req.method === 'GET' && m && made.has(m[1])) return send(200, { id: m[1], ok: true });
      return send(404, { error: { code: 'not_found' } });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const walkthrough = (body: string[]) => shellBlocks([`${fence}sh`, ...body, fence].join('\n'), 'guide.md');
  const working = ['X=$(curl -s -X POST $BASE/things | jq -r .id)   # → 201', 'curl -s $BASE/things/$X | jq -e .ok', '# → 200', 'echo "made $X"'];
  const run = (body: string[]) => runWalkthrough(walkthrough(body), { env: { ...process.env, BASE: base }, cwd: projectPath(), timeoutMs: 15_000 });

  it('passes a walkthrough whose every curl answers the status it states', async () => {
    const outcome = await run(working);
    expect(outcome.failures).to.deep.equal([]);
    expect(outcome.stdout).to.include('made 1');
  });

  it('fails, naming the line, when a curl answers another status than its comment states', async () => {
    const broken = [...working];
    broken[1] = 'curl -s $BASE/thing/$X | jq -c .';
    const outcome = await run(broken);
    expect(outcome.failures).to.deep.equal(['guide.md:3: expected HTTP 200, got 404: curl -s $BASE/thing/$X | jq -c .']);
  });

  it('fails, naming the line and exit code, when a command fails, and runs nothing after it', async () => {
    const broken = ['false', ...working];
    const outcome = await run(broken);
    expect(outcome.failures).to.deep.equal(['guide.md:2: exited with 1: false']);
    expect(outcome.stdout).to.not.include('made');
  });

  it('fails on a variable the walkthrough never set', async () => {
    const outcome = await run(['curl -s $BASE/things/$NOPE   # → 200']);
    expect(outcome.failures).to.deep.equal(['guide.md:2: exited with 1: curl -s $BASE/things/$NOPE   # → 200']);
    expect(outcome.stderr).to.include('NOPE: unbound variable');
  });

  it('fails when the curl cannot reach the server', async () => {
    const outcome = await runWalkthrough(walkthrough(['curl -s http://127.0.0.1:9/things   # → 200']), {
      env: process.env,
      cwd: projectPath(),
      timeoutMs: 15_000,
    });
    expect(outcome.failures).to.deep.equal([
      'guide.md:2: expected HTTP 200, got 000: curl -s http://127.0.0.1:9/things   # → 200',
      'guide.md:2: exited with 7: curl -s http://127.0.0.1:9/things   # → 200',
    ]);
  });
});
