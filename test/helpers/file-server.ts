// A loopback HTTP server that serves files a test names by path, for creatives fetched by URL; it
// counts the requests it saw, so a test can show that a refused URL was never called.

import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FileServer {
  /** http://127.0.0.1:<port> */
  origin: string;
  port: number;
  /** Paths requested, in order. */
  seen: string[];
  close(): Promise<void>;
}

/**
 * Serves `files` (path to status, content type and body, or no answer with `hang`, or with `cut` the
 * first half of the body under the whole body's Content-Length, then the connection closed) on
 * 127.0.0.1; any other path answers 404.
 */
export async function startFileServer(
  files: Record<string, { status?: number; type?: string; body: Buffer | string; hang?: boolean; cut?: boolean }>,
): Promise<FileServer> {
  const seen: string[] = [];
  const server = http.createServer((req, res) => {
    seen.push(req.url ?? '');
    const file = files[req.url ?? ''];
    if (!file) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not here');
      return;
    }
    res.on('error', () => {});
    // A host that accepts the request and never answers: closed with the server.
    if (file.hang) return;
    if (file.cut) {
      // A body that breaks off: half of it sent, the rest promised by Content-Length, then the socket goes.
      const body = Buffer.from(file.body);
      res.writeHead(file.status ?? 200, { 'content-type': file.type ?? 'application/octet-stream', 'content-length': body.length });
      res.write(body.subarray(0, body.length >> 1), () => setTimeout(() => res.destroy(), 50));
      return;
    }
    res.writeHead(file.status ?? 200, { 'content-type': file.type ?? 'application/octet-stream' }).end(file.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
