// The walkthrough extractor and runner behind the docs test: which blocks run, how commands and
// their status comments are read, and that a broken block fails the run (on a loopback fake).

import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { projectPath } from '../../src/paths.js';
import {
  commandsOf,
  problemsOf,
  readerVariablesOf,
  runWalkthrough,
  secretFilesNotPrivate,
  serverEnvOf,
  shellBlocks,
  stdoutDifferences,
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

  it('ties a stdout sample to the shell block above it and compares every line, `...` standing for any text', () => {
    const doc = [`${fence}sh`, 'echo a', fence, 'words', `${fence}text stdout`, 'run 7 at ...', '', 'done', fence].join('\n');
    const [sample] = stdoutSamples(doc, 'x.md');
    expect(sample).to.deep.equal({ file: 'x.md', line: 6, blockLine: 2, lines: ['run 7 at ...', 'done'] });
    expect(stdoutDifferences(sample, 'run 7 at 2026-11-29T07:00:00Z\n\ndone\n')).to.deep.equal([]);
    // A line the block printed that the page leaves out is a difference, as is one it states and the block did not print.
    expect(stdoutDifferences(sample, 'run 7 at noon\npaused Demo Prospecting\ndone\n')).to.deep.equal([
      'line 2: stated done\n        printed paused Demo Prospecting',
      'printed but not stated: done',
    ]);
    expect(stdoutDifferences(sample, 'run 8 at noon\n')).to.deep.equal([
      'line 1: stated run 7 at ...\n        printed run 8 at noon',
      'stated but not printed: done',
    ]);
    expect(() => stdoutSamples([`${fence}text stdout`, 'x', fence].join('\n'), 'y.md')).to.throw(
      'y.md:1: a text stdout block states what the shell block right above it prints',
    );
  });

  it('lists the files holding a secret that others can read: keys, passwords, tokens, SQLite files', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-secret-files-'));
    try {
      const write = (name: string, text: string, mode: number) => {
        fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
        fs.writeFileSync(path.join(dir, name), text);
        fs.chmodSync(path.join(dir, name), mode);
      };
      write('data/acme.json', '{"secret": "svc_sk_abc123"}', 0o644);
      write('data/tenant-in.json', '{"users": [{"password": "x"}]}', 0o640);
      write('svc.env', 'TOKEN_ENCRYPTION_KEY=abc=\n', 0o644);
      write('data/token-encryption.key', 'AAAA\n', 0o644);
      write('data/svc.sqlite', 'SQLite format 3\u0000...', 0o644);
      write('data/private.json', '{"secret": "svc_sk_abc123"}', 0o600);
      write('data/chat.log', '{"text":"paused"}', 0o644);
      // A database backup, gzipped: password hashes and the cursor secret inside.
      const dump =
        "INSERT INTO `users` VALUES (1,'owner@example.com','Owner','scrypt$16384$8$1$c2FsdA==$aGFzaA==');\nINSERT INTO `settings` VALUES ('cursor_secret','ab12');\n";
      fs.writeFileSync(path.join(dir, 'svc-2026-12-07.sql.gz'), zlib.gzipSync(dump));
      fs.chmodSync(path.join(dir, 'svc-2026-12-07.sql.gz'), 0o644);
      fs.writeFileSync(path.join(dir, 'private.sql.gz'), zlib.gzipSync(dump), { mode: 0o600 });
      fs.writeFileSync(path.join(dir, 'notes.txt.gz'), zlib.gzipSync('nothing secret'), { mode: 0o644 });
      fs.symlinkSync(projectPath('README.md'), path.join(dir, 'README.md'));
      expect(secretFilesNotPrivate(dir)).to.deep.equal([
        'data/acme.json 0644',
        'data/svc.sqlite 0644',
        'data/tenant-in.json 0640',
        'data/token-encryption.key 0644',
        'svc-2026-12-07.sql.gz 0644',
        'svc.env 0644',
      ]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
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

  it('a page whose stated output differs from what its block prints fails, and its right copy passes', async () => {
    const page = (stated: string[]) =>
      [
        `${fence}sh`,
        'X=$(curl -s -X POST $BASE/things | jq -r .id)   # → 201',
        'curl -s $BASE/things/$X | jq -c .',
        '# → 200',
        fence,
        `${fence}text stdout`,
        ...stated,
        fence,
      ].join('\n');
    const check = async (stated: string[]) => {
      const markdown = page(stated);
      const outcome = await runWalkthrough(shellBlocks(markdown, 'guide.md'), { env: { ...process.env, BASE: base }, cwd: projectPath(), timeoutMs: 15_000 });
      expect(outcome.failures).to.deep.equal([]);
      const [sample] = stdoutSamples(markdown, 'guide.md');
      return stdoutDifferences(sample, outcome.blockStdout.get(sample.blockLine) ?? '');
    };
    expect(await check(['{"id":"...","ok":true}'])).to.deep.equal([]);
    // A deliberately wrong copy: the page says the thing is not ok.
    const wrong = await check(['{"id":"...","ok":false}']);
    expect(wrong).to.have.length(1);
    expect(wrong[0]).to.match(/^line 1: stated \{"id":"...","ok":false\}\n {8}printed \{"id":"\d+","ok":true\}$/);
    // And one that leaves a printed line out.
    const leftOut = await check([]);
    expect(leftOut).to.have.length(1);
    expect(leftOut[0]).to.match(/^printed but not stated: \{"id":"\d+","ok":true\}$/);
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
