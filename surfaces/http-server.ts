// Starts the HTTP server that carries every surface, and stops it gracefully.

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Service } from '../src/service.js';
import { createRestApp } from './rest/app.js';

export interface RunningServer {
  server: http.Server;
  /** The address actually bound, e.g. http://127.0.0.1:41234 */
  url: string;
  port: number;
  /** Stops accepting, lets in-flight requests finish (up to `graceMs`), then closes idle sockets. */
  close(graceMs?: number): Promise<void>;
}

/** Listens on `port` (0 = any free port) and `host`. */
export async function startHttpServer(service: Service, port: number, host: string): Promise<RunningServer> {
  const app = createRestApp(service);
  const server = http.createServer(app.callback());
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const bound = (server.address() as AddressInfo).port;
  return {
    server,
    port: bound,
    url: `http://${host.includes(':') ? `[${host}]` : host}:${bound}`,
    close: (graceMs = 10_000) =>
      new Promise<void>((resolve) => {
        const force = setTimeout(() => server.closeAllConnections(), graceMs);
        server.close(() => {
          clearTimeout(force);
          resolve();
        });
        server.closeIdleConnections();
      }),
  };
}
