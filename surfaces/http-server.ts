// Starts the HTTP server that carries every surface (REST on /v1, MCP on the MCP_URL path), and
// stops it gracefully. GET /healthz is answered here (surfaces/health.ts); the REST surface (Koa, its
// router and routes) and the MCP surface are loaded on their first request, so a starting process
// answers its first health check with the database alone.

import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Service } from '../src/service.js';
import { ServiceError, envelopeOf } from '../src/errors.js';
import { answerClientError, answerConnect, answerExpectation, arrivalOptions } from './http-arrival.js';
import { requestJsonText } from './json-body.js';
import type { McpEndpoint } from './mcp/server.js';
import { answerHealthCheck, isHealthCheck } from './health.js';

const MCP_BODY_LIMIT = 5 * 1024 * 1024;
/** How long the rest of a body over the limit is read and dropped before the connection is closed. */
const DISCARD_MS = 5_000;

export interface RunningServer {
  server: http.Server;
  /** The address actually bound, e.g. http://127.0.0.1:41234 */
  url: string;
  port: number;
  /** Stops accepting, lets in-flight requests finish (up to `graceMs`), then closes idle sockets. */
  close(graceMs?: number): Promise<void>;
  /** Loads the REST surface now rather than on its first request (svc-server does once its jobs have started). */
  preload(): Promise<void>;
}

/** Reads a JSON body up to the limit; undefined when empty, an Error when too large or not JSON. */
function readJson(req: http.IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    // Past the limit the rest is read and dropped, so the caller gets the answer (closing a
    // connection with unread data resets it, and the answer with it); for DISCARD_MS at most.
    const fail = (err: Error) => {
      req.off('data', onData);
      req.resume();
      const stop = setTimeout(() => req.socket.destroy(), DISCARD_MS).unref();
      req.once('end', () => clearTimeout(stop));
      req.once('close', () => clearTimeout(stop));
      reject(err);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > MCP_BODY_LIMIT) fail(Object.assign(new Error('body larger than 5 MB'), { status: 413 }));
      else chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('error', reject);
    req.once('end', () => {
      if (size > MCP_BODY_LIMIT) return;
      if (!size) return resolve(undefined);
      try {
        resolve(JSON.parse(requestJsonText(req.headers['content-type'], chunks.length === 1 ? chunks[0] : Buffer.concat(chunks))));
      } catch (err) {
        reject(Object.assign(new Error(err instanceof ServiceError ? err.message : 'body is not valid JSON'), { status: 400 }));
      }
    });
  });
}

/** True when `url` is the MCP endpoint's path, with or without trailing slashes and a query. */
export function isMcpPath(url: string, mcpPath: string): boolean {
  if (!url.startsWith(mcpPath)) return false;
  let i = mcpPath.length;
  while (url.charCodeAt(i) === 47 /* "/" */) i++;
  return i === url.length || url.charCodeAt(i) === 63; /* "?" */
}

/** Listens on `port` (0 = any free port) and `host`. */
export async function startHttpServer(service: Service, port: number, host: string): Promise<RunningServer> {
  // The REST surface is loaded and built on its first request (or preload), not before the server listens.
  type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;
  let restApp: Promise<Handler> | undefined;
  const restHandler = () =>
    (restApp ??= import('./rest/app.js').then((m) => m.createRestApp(service).callback() as Handler)).catch((err: unknown) => {
      restApp = undefined;
      throw err;
    });
  const rest = (req: http.IncomingMessage, res: http.ServerResponse) =>
    void restHandler().then(
      (handle) => handle(req, res),
      (err: unknown) => {
        const requestId = `req_${crypto.randomUUID().replace(/-/g, '')}`;
        service.log.error({ err, requestId }, 'the REST surface could not be loaded');
        res.writeHead(500, { 'Content-Type': 'application/json; charset=utf-8', 'Service-Request-Id': requestId });
        // A plain error: the envelope says internal_error without its message.
        res.end(JSON.stringify(envelopeOf(new Error('the REST surface could not be loaded'), requestId)));
      },
    );
  // The MCP surface (the SDK and the tool list) is loaded and built on the first MCP request, not at start-up.
  let mcp: Promise<{ endpoint: McpEndpoint; handle: typeof import('./mcp/server.js').handleMcpRequest }> | undefined;
  const mcpEndpoint = () =>
    (mcp ??= import('./mcp/server.js').then((m) => ({ endpoint: m.createMcpEndpoint(service), handle: m.handleMcpRequest }))).catch((err: unknown) => {
      mcp = undefined;
      throw err;
    });
  const mcpPath = new URL(service.config.mcpUrl).pathname.replace(/\/+$/, '') || '/mcp';
  const allowedOrigins = [...new Set([new URL(service.config.baseUrl).origin, new URL(service.config.mcpUrl).origin])];
  const server = http.createServer(arrivalOptions(service.config.requestTimeoutMs), (req, res) => {
    if (isHealthCheck(req))
      return void answerHealthCheck(service, req, res).catch((err: unknown) => {
        service.log.error({ err }, 'health check failed');
        if (!res.headersSent) res.writeHead(500);
        res.end();
      });
    if (!isMcpPath(req.url ?? '/', mcpPath)) return rest(req, res);
    const requestId = `req_${crypto.randomUUID().replace(/-/g, '')}`;
    res.setHeader('Service-Request-Id', requestId);
    void (async () => {
      let body: unknown;
      try {
        body = req.method === 'POST' ? await readJson(req) : undefined;
      } catch (err) {
        const status = (err as { status?: number }).status ?? 400;
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: (err as Error).message } }));
        return;
      }
      const { endpoint, handle } = await mcpEndpoint();
      await handle(service, endpoint, req, res, body, { allowedOrigins, requestId });
    })().catch((err) => {
      service.log.error({ err }, 'MCP request failed');
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32603, message: 'Internal error; retry with backoff.' } }));
    });
  });
  server.on('clientError', answerClientError(service.config.requestTimeoutMs));
  server.on('connect', answerConnect);
  server.on('checkExpectation', answerExpectation);
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
    preload: async () => void (await restHandler()),
  };
}
