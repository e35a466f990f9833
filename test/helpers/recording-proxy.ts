// A loopback proxy in front of a fake ad platform that records every logical request the service
// sends (a Graph batch counts as each of its items) with its parameters decoded from the query,
// a form, a JSON body or a multipart upload, and the platform's answer. Tests assert what went out
// without relying on how a fake keeps its own log.

import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Recorded {
  method: string;
  /** Path without the API's version prefix, e.g. `/act_1001/adimages` or `/ad/create/`. */
  path: string;
  params: Record<string, unknown>;
  /** Multipart file parts: field name → byte length. */
  files: Record<string, number>;
  /** The answer's JSON body (for a batch item: the item's own body, parsed). */
  answer: unknown;
}

/** A form or query value that holds JSON (Graph sends objects that way) parsed, else the string. */
function decoded(value: string): unknown {
  if (/^[[{]/.test(value)) {
    try {
      return JSON.parse(value);
    } catch {
      return value;
    }
  }
  return value;
}

function formParams(text: string): Record<string, unknown> {
  return Object.fromEntries([...new URLSearchParams(text)].map(([k, v]) => [k, decoded(v)]));
}

function multipart(body: Buffer, boundary: string): { params: Record<string, unknown>; files: Record<string, number> } {
  const params: Record<string, unknown> = {};
  const files: Record<string, number> = {};
  const text = body.toString('latin1');
  for (const part of text.split(`--${boundary}`).slice(1)) {
    if (part.startsWith('--')) break;
    const split = part.indexOf('\r\n\r\n');
    const head = part.slice(0, split);
    const content = part.slice(split + 4, part.length - 2);
    const name = /name="([^"]*)"/.exec(head)?.[1];
    if (!name) continue;
    if (/filename="/.test(head)) files[name] = Buffer.byteLength(content, 'latin1');
    else params[name] = decoded(Buffer.from(content, 'latin1').toString('utf8'));
  }
  return { params, files };
}

export class RecordingProxy {
  readonly recorded: Recorded[] = [];
  /** Everything recorded since the proxy started, never cleared: what a test checks against the ledger at the end. */
  readonly history: Recorded[] = [];
  private server: http.Server | null = null;
  /** The proxy's base URL, with the target's path (the API version) kept. */
  url = '';

  private constructor(
    private readonly target: URL,
    private readonly versionPrefix: RegExp,
  ) {}

  /** Starts a proxy for `targetUrl` (a base URL with its version path); `versionPrefix` is stripped from recorded paths. */
  static async start(targetUrl: string, versionPrefix: RegExp): Promise<RecordingProxy> {
    const proxy = new RecordingProxy(new URL(targetUrl), versionPrefix);
    proxy.server = http.createServer((req, res) => proxy.forward(req, res));
    await new Promise<void>((resolve) => proxy.server!.listen(0, '127.0.0.1', () => resolve()));
    proxy.url = `http://127.0.0.1:${(proxy.server.address() as AddressInfo).port}${proxy.target.pathname.replace(/\/$/, '')}`;
    return proxy;
  }

  /** The recorded requests to paths matching `path`, with `method` when given. */
  to(path: RegExp, method?: string): Recorded[] {
    return this.recorded.filter((r) => path.test(r.path) && (!method || r.method === method));
  }

  /** Forgets what was recorded. */
  clear(): void {
    this.recorded.length = 0;
  }

  close(): Promise<void> {
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private forward(req: http.IncomingMessage, res: http.ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const upstream = http.request(
        { host: this.target.hostname, port: this.target.port, method: req.method, path: req.url, headers: { ...req.headers, host: this.target.host } },
        (answer) => {
          const back: Buffer[] = [];
          answer.on('data', (c: Buffer) => back.push(c));
          answer.on('end', () => {
            const answerBody = Buffer.concat(back);
            this.record(req, body, answerBody);
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            res.end(answerBody);
          });
        },
      );
      upstream.on('error', () => res.writeHead(502).end());
      upstream.end(body);
    });
  }

  private record(req: http.IncomingMessage, body: Buffer, answerBody: Buffer): void {
    const url = new URL(req.url ?? '/', 'http://proxy');
    const path = url.pathname.replace(this.versionPrefix, '') || '/';
    const type = String(req.headers['content-type'] ?? '');
    let params: Record<string, unknown> = formParams(url.search);
    let files: Record<string, number> = {};
    if (type.startsWith('application/x-www-form-urlencoded')) params = { ...params, ...formParams(body.toString('utf8')) };
    else if (type.startsWith('application/json') && body.length) params = { ...params, ...(JSON.parse(body.toString('utf8')) as Record<string, unknown>) };
    else if (type.startsWith('multipart/form-data')) {
      const parts = multipart(body, /boundary=("?)([^";]+)\1/.exec(type)?.[2] ?? '');
      params = { ...params, ...parts.params };
      files = parts.files;
    }
    let answer: unknown = null;
    try {
      answer = JSON.parse(answerBody.toString('utf8'));
    } catch {
      answer = answerBody.toString('utf8');
    }
    const method = req.method ?? 'GET';
    if (method === 'POST' && path === '/' && Array.isArray(params.batch)) {
      // A Graph batch: each item is a request of its own, answered by its own entry.
      const items = params.batch as Array<{ method: string; relative_url: string; body?: string }>;
      items.forEach((item, i) => {
        const relative = new URL(`/${item.relative_url.replace(/^\//, '')}`, 'http://graph');
        const entry = Array.isArray(answer) ? (answer[i] as { body?: string } | null) : null;
        this.keep({
          method: item.method.toUpperCase(),
          path: relative.pathname.replace(this.versionPrefix, ''),
          params: { ...formParams(relative.search), ...formParams(item.body ?? '') },
          files: {},
          answer: entry?.body ? decoded(entry.body) : entry,
        });
      });
      return;
    }
    this.keep({ method, path, params, files, answer });
  }

  private keep(r: Recorded): void {
    this.recorded.push(r);
    this.history.push(r);
  }
}
