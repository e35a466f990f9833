// One way out: no product module outside src/outbound/ opens connections of its own. Scans every
// TypeScript file of src/, surfaces/, scripts/ and migrations/ for undici, the request functions of
// node:http(s), a call of the global fetch, and the openai and MCP client transports built without
// the outbound client's fetch. Tests, test fakes (servers) and bench/ (a load harness) are exempt.

import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const SCANNED = ['src', 'surfaces', 'scripts', 'migrations'];

function sources(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return sources(full);
    return e.name.endsWith('.ts') ? [full] : [];
  });
}

/** The source without comments and string contents, so prose about fetch does not count. */
function code(text: string): string {
  return text
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/(^|[^:])\/\/.*$/gm, '$1')
    .replace(/`(?:\\.|[^`\\])*`/g, '``');
}

/** The text of each `new <ctor>(...)` call, its parentheses balanced. */
function constructions(text: string, ctor: string): string[] {
  const out: string[] = [];
  let at = text.indexOf(`new ${ctor}(`);
  while (at >= 0) {
    let depth = 0;
    let end = at + ctor.length + 4;
    for (; end < text.length; end++) {
      if (text[end] === '(') depth++;
      else if (text[end] === ')' && --depth === 0) break;
    }
    out.push(text.slice(at, end + 1));
    at = text.indexOf(`new ${ctor}(`, end);
  }
  return out;
}

interface Rule {
  what: string;
  finds(text: string): boolean;
}

const RULES: Rule[] = [
  { what: 'imports undici', finds: (t) => /from\s+'undici'|import\(\s*'undici'\s*\)|require\(\s*'undici'\s*\)/.test(t) },
  {
    what: 'imports a request function of node:http(s)',
    finds: (t) =>
      /import\s*\{[^}]*\b(request|get|Agent)\b[^}]*\}\s*from\s*'(node:)?https?'/.test(t) || /\bhttps?\.(request|get)\(|new\s+https?\.Agent\(/.test(t),
  },
  {
    what: 'imports node:http(s) as a value other than to serve',
    finds: (t) => /import\s+\*\s+as\s+\w+\s+from\s+'(node:)?https'/.test(t) || /import\s+\w+\s+from\s+'(node:)?https'/.test(t),
  },
  {
    what: 'calls the global fetch',
    // A method of the same name (`private async fetch(...)`, `this.fetch(...)`) is not the global one.
    finds: (t) =>
      /(?<!\.\s*)(?<![\w$])fetch\s*\(/.test(t.replace(/\b(private|public|protected|static|async)\s+(async\s+)?fetch\s*\(/g, '')) ||
      /globalThis\.fetch\s*\(/.test(t),
  },
  { what: 'builds an OpenAI client without the outbound fetch', finds: (t) => constructions(t, 'OpenAI').some((c) => !/\bfetch\s*:/.test(c)) },
  {
    what: 'builds an MCP HTTP client transport without the outbound fetch',
    finds: (t) => constructions(t, 'StreamableHTTPClientTransport').some((c) => !/\bfetch\s*:/.test(c)),
  },
];

describe('one way out: only src/outbound/ opens connections to outside services', () => {
  const files = SCANNED.flatMap((d) => sources(path.join(root, d))).filter((f) => !f.includes(`${path.sep}src${path.sep}outbound${path.sep}`));

  it('scans the product sources', () => {
    expect(files.map((f) => path.relative(root, f))).to.include.members([
      'src/webhooks/sender.ts',
      'src/trackers/keitaro.ts',
      'surfaces/cli/http.ts',
      'surfaces/cli/mcp-bridge.ts',
      'src/workflows/agent.ts',
    ]);
  });

  for (const rule of RULES) {
    it(`no module outside src/outbound/ ${rule.what}`, () => {
      const offenders = files.filter((f) => rule.finds(code(fs.readFileSync(f, 'utf8')))).map((f) => path.relative(root, f));
      expect(offenders, `${rule.what}: route the call through src/outbound/ (OutboundClient.request or .fetch)`).to.deep.equal([]);
    });
  }

  // The rules themselves: each one catches the shape it names and lets the allowed ones pass.
  const rows: Array<{ text: string; rule: string; caught: boolean }> = [
    { text: "import { request } from 'undici';", rule: 'imports undici', caught: true },
    { text: "const u = await import('undici');", rule: 'imports undici', caught: true },
    { text: "import http from 'node:http';\nhttp.request(url);", rule: 'imports a request function of node:http(s)', caught: true },
    { text: "import { get } from 'node:https';", rule: 'imports a request function of node:http(s)', caught: true },
    { text: "import type { IncomingMessage } from 'node:http';", rule: 'imports a request function of node:http(s)', caught: false },
    { text: "import https from 'node:https';", rule: 'imports node:http(s) as a value other than to serve', caught: true },
    { text: "const res = await fetch('https://x.example');", rule: 'calls the global fetch', caught: true },
    { text: 'const res = await globalThis.fetch(url);', rule: 'calls the global fetch', caught: true },
    { text: 'const res = await this.fetch(secret);', rule: 'calls the global fetch', caught: false },
    { text: '  private async fetch(secret: string) {', rule: 'calls the global fetch', caught: false },
    { text: 'return fetch(url, init);', rule: 'calls the global fetch', caught: true },
    { text: '// we never fetch( anything here', rule: 'calls the global fetch', caught: false },
    { text: 'new OpenAI({ baseURL: u, apiKey: k })', rule: 'builds an OpenAI client without the outbound fetch', caught: true },
    { text: "new OpenAI({ baseURL: u, fetch: outbound.fetch('operator') })", rule: 'builds an OpenAI client without the outbound fetch', caught: false },
    {
      text: 'new StreamableHTTPClientTransport(endpoint, { requestInit: {} })',
      rule: 'builds an MCP HTTP client transport without the outbound fetch',
      caught: true,
    },
  ];
  for (const row of rows) {
    it(`the rule "${row.rule}" ${row.caught ? 'catches' : 'lets pass'}: ${row.text.split('\n').pop()}`, () => {
      expect(RULES.find((r) => r.what === row.rule)!.finds(code(row.text))).to.equal(row.caught);
    });
  }
});
