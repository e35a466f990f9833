// GET /healthz, the liveness check: 200 `{"status":"ok"}` while the database answers, 503 with the
// error envelope otherwise. Answered by the HTTP server itself, without Koa: the first answer of a
// starting process needs nothing but the database (the REST surface loads meanwhile).

import crypto from 'node:crypto';
import type http from 'node:http';
import { ServiceError, envelopeOf } from '../src/errors.js';
import type { Service } from '../src/service.js';

/** True for a GET or HEAD of /healthz (a trailing slash and a query allowed, as the router allowed them). */
export function isHealthCheck(req: http.IncomingMessage): boolean {
  if (req.method !== 'GET' && req.method !== 'HEAD') return false;
  const url = req.url ?? '/';
  const end = url.indexOf('?');
  const path = end < 0 ? url : url.slice(0, end);
  return path === '/healthz' || path === '/healthz/';
}

/** Answers the health check, with its Service-Request-Id and the request log line every answer has. */
export async function answerHealthCheck(service: Service, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const started = performance.now();
  const requestId = `req_${crypto.randomUUID().replace(/-/g, '')}`;
  const ok = await service.healthy();
  const status = ok ? 200 : 503;
  // Read raw by people and probes (`curl /healthz`): a line of its own, so a terminal's prompt starts on the next one.
  const body = Buffer.from(
    JSON.stringify(ok ? { status: 'ok' } : envelopeOf(new ServiceError('unavailable', 'The database does not answer.'), requestId)) + '\n',
  );
  res.writeHead(status, { 'Service-Request-Id': requestId, 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': body.length });
  res.end(req.method === 'HEAD' ? undefined : body);
  if (service.log.isLevelEnabled('info')) {
    const ms = Math.round((performance.now() - started) * 10) / 10;
    service.log.info({ requestId, method: req.method, path: '/healthz', status, ms }, 'request');
  }
}
