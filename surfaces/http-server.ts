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
import { readBodyBytes, requestJsonText } from './json-body.js';
import type { McpEndpoint } from './mcp/server.js';
import { answerHealthCheck, isHealthCheck } from './health.js';

const MCP_BODY_LIMIT = 5 * 1024 * 1024;

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

/**
 * Reads a JSON body as REST does (json-body.ts): decoded as its Content-Encoding says, and refused
 * as soon as the decoded bytes pass the limit (a decompression bomb is never inflated whole); then
 * UTF-8 checked. Undefined when empty, an Error with the HTTP status when too large, badly encoded or not JSON.
 */
async function readJson(req: http.IncomingMessage): Promise<unknown> {
  let bytes: Buffer;
  try {
    bytes = await readBodyBytes(req, MCP_BODY_LIMIT, () => Object.assign(new Error('body larger than 5 MB (after decoding)'), { status: 413 }));
  } catch (err) {
    if (err instanceof ServiceError) throw Object.assign(new Error(err.message), { status: 400 });
    throw err;
  }
  if (!bytes.length) return undefined;
  try {
    return JSON.parse(requestJsonText(req.headers['content-type'], bytes));
  } catch (err) {
    throw Object.assign(new Error(err instanceof ServiceError ? err.message : 'body is not valid JSON'), { status: 400 });
  }
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
