// Runs the shell walkthroughs of README.md and docs/*.md as a reader would, so a guide can never
// drift from the code. The convention the docs follow:
// - every fenced shell block (sh, bash, shell, console) is run, in order, as a person pastes it; a
//   block whose info string says `setup` (```sh setup) is shown but not run: it may only install,
//   build or start the service (`npm ci`, `npm run build`, `docker compose ...`, `systemctl ...`,
//   `npm start` with variables) or set the variables the reader is told to set (K=..., R=...);
// - the setup block holding `npm start` is the server's terminal: the lines before `npm start` in it
//   (making a key file, say) may be any command, and the run carries them out, as the reader's
//   shell would, to give the server the environment its `npm start` line sets; the plain blocks run
//   in a second terminal, which gets nothing from the first but what the guide writes to files;
// - every curl command states the HTTP status it answers in a `# → 201` comment, on its last line or
//   on the comment lines right below it; the run checks each status, and any other command must
//   exit 0.

import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

export interface Block {
  /** Path of the document, for messages. */
  file: string;
  /** 1-based line of the block's first content line in the document. */
  line: number;
  info: string;
  setup: boolean;
  lines: string[];
}

export interface Command {
  file: string;
  /** Document lines of the command's first and last physical line. */
  line: number;
  endLine: number;
  text: string;
  /** How many curl commands it runs (a walkthrough allows one, so its status comment is unambiguous). */
  curls: number;
  /** The status its `# → NNN` comment states, or null. */
  expected: number | null;
}

const SHELLS = new Set(['sh', 'bash', 'shell', 'console', 'zsh']);
const FENCE = /^( {0,3})(`{3,}|~{3,})\s*(.*)$/;

/** Every fenced shell block of a Markdown document, with where it starts. */
export function shellBlocks(markdown: string, file: string): Block[] {
  const out: Block[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i]);
    if (!open) continue;
    const [, indent, fence, info] = open;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const close = FENCE.exec(lines[j]);
      if (close && close[2][0] === fence[0] && close[2].length >= fence.length && close[3].trim() === '') break;
      body.push(lines[j].startsWith(indent) ? lines[j].slice(indent.length) : lines[j].trimStart());
    }
    const words = info.trim().split(/\s+/).filter(Boolean);
    if (words.length && SHELLS.has(words[0].toLowerCase())) out.push({ file, line: i + 2, info: info.trim(), setup: words.includes('setup'), lines: body });
    i = j;
  }
  return out;
}

/** Where a scan of shell text stands at the end of a line: inside single quotes, and the open `"`, `(` and `$(`. */
export interface ScanState {
  single: boolean;
  stack: Array<'"' | '('>;
}

/**
 * Blanks out quoted text and comments, keeping every other character in place, so what is left
 * are the shell's own words (a command substitution inside double quotes holds words again).
 */
export function shellWords(text: string, start: ScanState = { single: false, stack: [] }): { words: string; comment: string; state: ScanState } {
  let words = '';
  let comment = '';
  let single = start.single;
  const stack = [...start.stack];
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    const top = stack[stack.length - 1];
    if (single) {
      if (c === "'") single = false;
      words += c === "'" ? c : ' ';
      continue;
    }
    if (top === '"') {
      if (c === '\\' && i + 1 < text.length) {
        words += '  ';
        i++;
      } else if (c === '"') {
        stack.pop();
        words += c;
      } else if (c === '$' && text[i + 1] === '(') {
        stack.push('(');
        words += '$(';
        i++;
      } else {
        words += ' ';
      }
      continue;
    }
    if (c === '\\' && i + 1 < text.length) {
      words += '  ';
      i++;
    } else if (c === "'") {
      single = true;
      words += c;
    } else if (c === '"') {
      stack.push('"');
      words += c;
    } else if (c === '#' && (i === 0 || /[\s;|&(]/.test(text[i - 1]))) {
      comment = text.slice(i);
      break;
    } else {
      if (c === '(') stack.push('(');
      if (c === ')' && top === '(') stack.pop();
      words += c;
    }
  }
  return { words, comment, state: { single, stack } };
}

const STATUS = /→\s*(\d{3})\b/;
const CURL = /(^|[\s;|&(`])curl(?=\s|$)/g;

const HEREDOC = /<<-?\s*(['"]?)([A-Za-z_][A-Za-z0-9_]*)\1/;

/**
 * The commands of a block: physical lines joined while a quote, a `$(`, a `\`, a trailing `|`,
 * `&&`, `||`, a compound command (`do ... done`) or a here-document goes on.
 */
export function commandsOf(block: Block): Command[] {
  const out: Command[] = [];
  let current: { start: number; lines: string[]; words: string; expected: number | null } | null = null;
  let state: ScanState = { single: false, stack: [] };
  let heredoc: string | null = null;
  let last: Command | null = null;
  const finish = () => {
    const c = current!;
    last = {
      file: block.file,
      line: block.line + c.start,
      endLine: block.line + c.start + c.lines.length - 1,
      text: c.lines.join('\n'),
      curls: c.words.match(CURL)?.length ?? 0,
      expected: c.expected,
    };
    out.push(last);
    current = null;
  };
  block.lines.forEach((line, index) => {
    if (current && heredoc !== null) {
      // A here-document's lines are data, up to the line holding its delimiter alone.
      current.lines.push(line);
      if (line.trim() === heredoc) {
        heredoc = null;
        if (!state.single && !state.stack.length && !openCompound(current.words)) finish();
      }
      return;
    }
    if (!current) {
      if (line.trim() === '') {
        last = null;
        return;
      }
      if (/^\s*#/.test(line)) {
        // A comment line right below a command may state that command's status.
        const status = STATUS.exec(line);
        const previous = last as Command | null;
        if (status && previous && previous.curls > 0 && previous.expected === null) previous.expected = Number(status[1]);
        return;
      }
      current = { start: index, lines: [], words: '', expected: null };
    }
    const scanned = shellWords(line, state);
    state = scanned.state;
    current.lines.push(line);
    current.words += scanned.words + '\n';
    const status = STATUS.exec(scanned.comment);
    if (status) current.expected = Number(status[1]);
    // `<<` outside quotes opens a here-document (`<<<` is a here-string); its delimiter is read from the raw line.
    const at = scanned.words.search(/(?<!<)<<(?!<)/);
    const doc = at >= 0 ? HEREDOC.exec(line.slice(at)) : null;
    if (doc) {
      heredoc = doc[2];
      return;
    }
    const goesOn = state.single || state.stack.length > 0 || /(\\|\||&&)$/.test(scanned.words.trimEnd());
    if (!goesOn && !openCompound(current.words)) finish();
  });
  if (current) finish();
  return out;
}

/** True while a `for`/`while`/`until`/`if`/`{` opened in the command is not closed yet. */
function openCompound(words: string): boolean {
  let open = 0;
  for (const w of words.split(/[\s;]+/)) {
    if (w === 'do' || w === 'then' || w === '{') open++;
    if (w === 'done' || w === 'fi' || w === '}') open--;
  }
  return open > 0;
}

// A variable assignment: a value of plain characters, quoted text and `$(...)` substitutions.
const ASSIGNMENT = String.raw`[A-Z_][A-Z0-9_]*=(?:\$\([^()]*\)|"[^"]*"|'[^']*'|[^\s'"])*`;
const NPM_START = new RegExp(String.raw`^\s*((?:${ASSIGNMENT}\s+)*)npm start\s*(#.*)?$`);
const SETUP_LINE = new RegExp(
  [
    String.raw`^\s*(#.*)?$`,
    String.raw`^\s*npm (install|ci|run build)\b`,
    String.raw`^\s*docker (compose|build|run)\b`,
    String.raw`^\s*systemctl (daemon-reload|enable|start|restart)\b`,
    NPM_START.source,
    String.raw`^\s*[A-Z][A-Z0-9_]*=\S+\s*(#.*)?$`,
  ].join('|'),
);

/** What is wrong with the blocks of a document by the convention (an empty list when nothing). */
export function problemsOf(blocks: Block[]): string[] {
  const problems: string[] = [];
  for (const b of blocks) {
    if (b.setup) {
      // In the server's terminal, what comes before `npm start` prepares it (and is carried out).
      const start = b.lines.findIndex((l) => NPM_START.test(l));
      b.lines.forEach((l, i) => {
        if (i >= start && !SETUP_LINE.test(l))
          problems.push(
            `${b.file}:${b.line + i}: a setup block may only install, build or start the service or set a variable; run this in a plain sh block: ${l.trim()}`,
          );
      });
      continue;
    }
    const extra = b.info.split(/\s+/).slice(1);
    if (extra.length) problems.push(`${b.file}:${b.line - 1}: unknown marker "${extra.join(' ')}" (a shell block is run unless marked setup)`);
    b.lines.forEach((l, i) => {
      if (/^\s*(npm start|npm install|npm ci)\b/.test(l)) problems.push(`${b.file}:${b.line + i}: set-up commands belong in a setup block (\`\`\`sh setup)`);
    });
    for (const c of commandsOf(b)) {
      if (c.curls > 1) problems.push(`${c.file}:${c.line}: one curl per command, so its status comment is unambiguous`);
      else if (c.curls && c.expected === null) problems.push(`${c.file}:${c.line}: state the HTTP status this curl answers in a comment such as "# → 200"`);
      if (c.curls && /(^|\s)(-w|--write-out)\b/.test(shellWords(c.text).words))
        problems.push(`${c.file}:${c.line}: the run reads statuses through --write-out; do not use it in a walkthrough`);
    }
  }
  return problems;
}

/** Where the document starts its server: the setup block holding `npm start`, or -1 (a page that starts none). */
export function serverBlockOf(blocks: Block[]): number {
  return blocks.findIndex((b) => b.setup && b.lines.some((l) => NPM_START.test(l)));
}

/**
 * The server's environment as the guide gives it: the lines of its setup block up to `npm start`,
 * run by bash in the reader's folder with the reader's environment, `npm start` replaced by a
 * print of the environment. Answers the variables the lines set or changed for the server.
 */
export function serverEnvOf(blocks: Block[], options: { cwd: string; env: NodeJS.ProcessEnv }): Record<string, string> {
  const at = serverBlockOf(blocks);
  if (at < 0) return {};
  const lines: string[] = [];
  for (const l of blocks[at].lines) {
    if (/^\s*(npm (install|ci|run build)|docker)\b/.test(l)) continue;
    if (NPM_START.test(l)) {
      lines.push(l.replace(/\bnpm start\b/, 'env -0'));
      break;
    }
    lines.push(l);
  }
  const run = spawnSync('bash', ['-c', ['set -euo pipefail', ...lines].join('\n')], { cwd: options.cwd, env: options.env, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`${blocks[at].file}:${blocks[at].line}: the server's setup lines failed: ${run.stderr}`);
  // The variables the lines give the server: those on the `npm start` line and those exported before it.
  const named = new Set<string>();
  for (const l of lines) {
    const exported = /^\s*export\s+([A-Z_][A-Z0-9_]*)/.exec(l);
    if (exported) named.add(exported[1]);
  }
  const prefix = NPM_START.exec(lines[lines.length - 1].replace(/\benv -0\b/, 'npm start'))?.[1] ?? '';
  for (const m of prefix.matchAll(new RegExp(ASSIGNMENT, 'g'))) named.add(m[0].slice(0, m[0].indexOf('=')));
  const env: Record<string, string> = {};
  for (const pair of run.stdout.split('\0').filter(Boolean)) {
    const eq = pair.indexOf('=');
    if (named.has(pair.slice(0, eq))) env[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return env;
}

/** Names of the variables the document's setup blocks tell the reader to set (K=..., R=...). */
export function readerVariablesOf(blocks: Block[]): string[] {
  const names = new Set<string>();
  for (const b of blocks.filter((x) => x.setup)) {
    for (const l of b.lines) {
      const m = /^\s*([A-Z][A-Z0-9_]*)=\S+\s*(#.*)?$/.exec(l);
      if (m) names.add(m[1]);
    }
  }
  return [...names];
}

/**
 * The bash script that runs the document's blocks: each command is preceded by a line that records
 * where it is, and curl reports each answer's status on stderr through `--write-out`.
 */
export function scriptOf(blocks: Block[], rewrite: (text: string) => string = (t) => t): { script: string; commands: Command[] } {
  const commands: Command[] = [];
  const parts = [
    'set -euo pipefail',
    '__svc_at=0',
    'curl() { command curl --write-out "%{stderr}__svc_status__ ${__svc_at} %{http_code}\\n" "$@"; }',
    // On the way out after a failure (set -e, an unset variable, a failed substitution), say where.
    'trap \'__svc_rc=$?; [ $__svc_rc -eq 0 ] || echo "__svc_failed__ ${__svc_at} $__svc_rc" >&2\' EXIT',
  ];
  for (const b of blocks.filter((x) => !x.setup)) {
    // Where the block's output starts on stdout (after a line break: a command may print no final newline).
    parts.push(`printf '\\n${BLOCK_MARK} %s\\n' ${b.line}`);
    for (const c of commandsOf(b)) {
      commands.push(c);
      parts.push(`__svc_at=${commands.length - 1}`, rewrite(c.text));
    }
  }
  return { script: parts.join('\n') + '\n', commands };
}

export interface RunOutcome {
  failures: string[];
  /** Everything the blocks printed, without the run's block marks. */
  stdout: string;
  stderr: string;
  /** What each block printed, by the document line of its first content line. */
  blockStdout: Map<number, string>;
}

const BLOCK_MARK = '__svc_block__';

/** Splits the run's stdout at the block marks: each block's own output, and the whole without the marks. */
export function splitByBlock(raw: string): { stdout: string; byBlock: Map<number, string> } {
  const byBlock = new Map<number, string>();
  const plain: string[] = [];
  let current: number | null = null;
  for (const line of raw.split('\n')) {
    const mark = new RegExp(`^${BLOCK_MARK} (\\d+)$`).exec(line);
    if (mark) {
      current = Number(mark[1]);
      byBlock.set(current, '');
      continue;
    }
    plain.push(line);
    if (current !== null) byBlock.set(current, byBlock.get(current) + line + '\n');
  }
  return { stdout: plain.join('\n'), byBlock };
}

/** Checks what the run reported against the commands: each curl's statuses and the first command that failed. */
export function verdict(commands: Command[], stderr: string, exit: { code: number | null; timedOut: boolean }): string[] {
  const failures: string[] = [];
  const statuses = new Map<number, string[]>();
  let failedAt: { index: number; code: number } | null = null;
  for (const line of stderr.split('\n')) {
    const s = /^__svc_status__ (\d+) (\d{3})$/.exec(line);
    if (s) statuses.set(Number(s[1]), [...(statuses.get(Number(s[1])) ?? []), s[2]]);
    const f = /^__svc_failed__ (\d+) (\d+)$/.exec(line);
    if (f && !failedAt) failedAt = { index: Number(f[1]), code: Number(f[2]) };
  }
  const where = (c: Command) => `${c.file}:${c.line}`;
  // Commands before this one ran to the end; the one that failed is reported on its own below.
  const ranThrough = failedAt ? (failedAt as { index: number }).index - 1 : exit.code === 0 ? commands.length - 1 : -1;
  commands.forEach((c, i) => {
    if (!c.curls || c.expected === null) return;
    const seen = statuses.get(i) ?? [];
    if (!seen.length) {
      if (i <= ranThrough) failures.push(`${where(c)}: curl answered no HTTP status (did it reach the server?)`);
      return;
    }
    const wrong = seen.filter((s) => Number(s) !== c.expected);
    if (wrong.length) failures.push(`${where(c)}: expected HTTP ${c.expected}, got ${wrong.join(', ')}: ${c.text.split('\n')[0].trim()}`);
  });
  if (failedAt) {
    const c = commands[(failedAt as { index: number }).index];
    failures.push(`${c ? where(c) : 'the walkthrough'}: exited with ${(failedAt as { code: number }).code}: ${c?.text.split('\n')[0].trim() ?? ''}`);
  } else if (exit.timedOut) {
    failures.push('the walkthrough did not finish in time');
  } else if (exit.code !== 0) {
    failures.push(`the walkthrough stopped with exit code ${exit.code}`);
  }
  return failures;
}

/** Output of the run without the status lines, for messages. */
export function readable(stderr: string): string {
  return stderr
    .split('\n')
    .filter((l) => !/^__svc_(status|failed)__ /.test(l))
    .join('\n');
}

export interface RunOptions {
  env: NodeJS.ProcessEnv;
  cwd: string;
  timeoutMs: number;
  rewrite?: (text: string) => string;
}

/**
 * Runs a document's walkthrough blocks in one bash session and checks it (an empty `failures`
 * means every command exited 0 and every curl answered the status its comment states).
 */
export async function runWalkthrough(blocks: Block[], options: RunOptions): Promise<RunOutcome> {
  const problems = problemsOf(blocks);
  if (problems.length) return { failures: problems, stdout: '', stderr: '', blockStdout: new Map() };
  const { script, commands } = scriptOf(blocks, options.rewrite);
  // Its own process group, so background receivers a walkthrough starts end with it.
  const child = spawn('bash', ['-c', script], { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    killGroup(child.pid);
  }, options.timeoutMs);
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  clearTimeout(timer);
  // Background processes the walkthrough started hold its output open until they end.
  killGroup(child.pid);
  await closed;
  const split = splitByBlock(stdout);
  return { failures: verdict(commands, stderr, { code, timedOut }), stdout: split.stdout, stderr: readable(stderr), blockStdout: split.byBlock };
}

function killGroup(pid: number | undefined): void {
  if (!pid) return;
  try {
    process.kill(-pid, 'SIGTERM');
  } catch {
    // The group is gone already.
  }
}

/** A fenced ```json output PATH``` block: the document's sample of what its commands wrote to PATH. */
export interface OutputSample {
  file: string;
  line: number;
  path: string;
  text: string;
}

/** Every output sample of a Markdown document (blocks whose info string is `json output PATH`). */
export function outputSamples(markdown: string, file: string): OutputSample[] {
  const out: OutputSample[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^```json output (\S+)\s*$/.exec(lines[i]);
    if (!open) continue;
    const end = lines.indexOf('```', i + 1);
    out.push({ file, line: i + 2, path: open[1], text: lines.slice(i + 1, end).join('\n') });
    i = end;
  }
  return out;
}

/** A JSON value with every API key secret shown the way the docs show them (`svc_sk_...`). */
export function maskSecrets(value: unknown): unknown {
  if (typeof value === 'string') return value.replace(/svc_sk_[A-Za-z0-9_-]+/g, 'svc_sk_...');
  if (Array.isArray(value)) return value.map(maskSecrets);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, maskSecrets(v)]));
  return value;
}

/**
 * A fenced ```text stdout``` block: every line the shell block right above it prints, in order
 * (blank lines aside). `...` in a line stands for any text there (an id, a time).
 */
export interface StdoutSample {
  file: string;
  line: number;
  /** The document line of the first content line of the shell block it describes. */
  blockLine: number;
  lines: string[];
}

/** Every stdout sample of a Markdown document, each tied to the shell block above it. */
export function stdoutSamples(markdown: string, file: string): StdoutSample[] {
  const out: StdoutSample[] = [];
  const shells = shellBlocks(markdown, file);
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (!/^```text stdout\s*$/.test(lines[i])) continue;
    const end = lines.indexOf('```', i + 1);
    const above = shells.filter((b) => b.line <= i).pop();
    if (!above || above.setup) throw new Error(`${file}:${i + 1}: a text stdout block states what the shell block right above it prints; there is none`);
    out.push({ file, line: i + 2, blockLine: above.line, lines: lines.slice(i + 1, end).filter((l) => l.trim() !== '') });
    i = end;
  }
  return out;
}

/** A sample line as a pattern: literal text, `...` matching any run of characters. */
function linePattern(line: string): RegExp {
  return new RegExp(
    `^${line
      .split('...')
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*?')}$`,
  );
}

/**
 * How the block's output differs from what the sample states, line by line (none when they
 * agree): a stated line it did not print, or a printed line the sample leaves out.
 */
export function stdoutDifferences(sample: StdoutSample, printed: string): string[] {
  const got = printed.split('\n').filter((l) => l.trim() !== '');
  const differences: string[] = [];
  for (let i = 0; i < Math.max(got.length, sample.lines.length); i++) {
    const want = sample.lines[i];
    const line = got[i];
    if (want === undefined) differences.push(`printed but not stated: ${line}`);
    else if (line === undefined) differences.push(`stated but not printed: ${want}`);
    else if (!linePattern(want).test(line)) differences.push(`line ${i + 1}: stated ${want}\n        printed ${line}`);
  }
  return differences;
}

// What marks a file as holding a secret: an API key or OAuth token, a password or its hash, a
// platform or tracker credential, a webhook signing secret, a private key, the cursor secret, or a
// SQLite database (the service keeps its secret box and signing keys there); and files named as
// keys. A gzip file (a database backup) is read as what it holds.
const SECRET_TEXT =
  /svc_sk_[A-Za-z0-9]|svc_at_[A-Za-z0-9]|whsec_[A-Za-z0-9]|"password"\s*:|PASSWORD=|TOKEN_ENCRYPTION_KEY=|"accessToken"\s*:|"apiKey"\s*:|BEGIN [A-Z ]*PRIVATE KEY|^SQLite format 3|scrypt\$\d+\$|cursor_secret/m;
const SECRET_NAME = /\.key$/;

/**
 * The files a walkthrough wrote under `folder` (links to the project's own entries not followed)
 * that hold a secret and that another user of the machine could read: each as `path mode`.
 */
/** What the first 256 KB of a gzip file decompress to (a broken one: nothing). */
function gunzipped(bytes: Buffer): Buffer {
  try {
    return zlib.gunzipSync(bytes.subarray(0, 1 << 18), { finishFlush: zlib.constants.Z_SYNC_FLUSH });
  } catch {
    return Buffer.alloc(0);
  }
}

export function secretFilesNotPrivate(folder: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isSymbolicLink()) continue;
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile()) {
        const mode = fs.statSync(full).mode & 0o777;
        if ((mode & 0o077) === 0) continue;
        const head = Buffer.alloc(1 << 20);
        const fd = fs.openSync(full, 'r');
        const length = fs.readSync(fd, head, 0, head.length, 0);
        fs.closeSync(fd);
        let text: Buffer = head.subarray(0, length);
        if (text[0] === 0x1f && text[1] === 0x8b) text = gunzipped(text);
        if (SECRET_NAME.test(entry.name) || SECRET_TEXT.test(text.toString('latin1')))
          out.push(`${path.relative(folder, full)} ${mode.toString(8).padStart(4, '0')}`);
      }
    }
  };
  walk(folder);
  return out.sort();
}
