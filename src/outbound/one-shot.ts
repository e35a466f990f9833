// One request from a short-lived process (the `svc` command line) to the operator's own service:
// node:http(s) alone, no connection pool and no WHATWG objects. Loading undici (and the Response
// and Headers classes) costs a command more CPU than node's own start-up (bench/startup.ts), and a
// process that sends one request and exits gains nothing from a pool. The operator's address is
// called as given (no address rule, as OutboundClient does for `operator`); redirects are not
// followed; the answer is read up to `maxBytes`; no time limit of its own. Servers and jobs use
// OutboundClient.

import http from 'node:http';

export interface OneShotRequest {
  method: string;
  headers: Record<string, string>;
  body?: string | Buffer;
}

export interface OneShotAnswer {
  status: number;
  /** A header of the answer by name (any case), several values joined with ", "; null when absent. */
  header(name: string): string | null;
  /** The body as text (UTF-8). */
  text: string;
}

/** Sends one request to `url` (http or https) and reads the whole answer; rejects on a network error or an answer over `maxBytes`. */
export async function oneShotRequest(url: string, req: OneShotRequest, maxBytes: number): Promise<OneShotAnswer> {
  const target = new URL(url);
  if (target.protocol !== 'http:' && target.protocol !== 'https:') throw new Error(`${url} is not an http(s) URL`);
  // node:https (and TLS) only when the service is reached over https.
  const request = target.protocol === 'https:' ? (await import('node:https')).request : http.request;
  const headers: Record<string, string | number> = { ...req.headers };
  if (req.body !== undefined) headers['content-length'] = Buffer.byteLength(req.body);
  return new Promise((resolve, reject) => {
    const outgoing = request(target, { method: req.method, headers }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxBytes) {
          res.destroy();
          reject(new Error(`the answer is larger than ${maxBytes} bytes`));
        } else chunks.push(chunk);
      });
      res.once('error', reject);
      res.once('end', () => {
        const header = (name: string): string | null => {
          const value = res.headers[name.toLowerCase()];
          return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
        };
        resolve({ status: res.statusCode ?? 0, header, text: Buffer.concat(chunks).toString('utf8') });
      });
    });
    outgoing.once('error', reject);
    outgoing.end(req.body);
  });
}
