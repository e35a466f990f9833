// What an operator watches, beside the API: GET /readyz (may this process take traffic?) and GET
// /metrics (the Prometheus exposition, behind METRICS_TOKEN). /healthz stays the liveness check.

import crypto from 'node:crypto';
import { ServiceError, envelopeOf } from '../../src/errors.js';
import type { Service } from '../../src/service.js';
import type { RouteRegistrar } from './routing.js';

/** True when `authorization` is `Bearer <token>`, compared in constant time. */
function bearerMatches(authorization: string, token: string): boolean {
  const match = /^Bearer +(\S+) *$/i.exec(authorization);
  if (!match) return false;
  const given = crypto.createHash('sha256').update(match[1]).digest();
  return crypto.timingSafeEqual(given, crypto.createHash('sha256').update(token).digest());
}

/** Adds /readyz and /metrics to the REST router. */
export function operatingRoutes(router: RouteRegistrar<{ requestId: string }>, service: Service): void {
  router.get('/readyz', async (ctx) => {
    const problems = await service.notReady();
    if (!problems.length) {
      ctx.body = { status: 'ready' };
      return;
    }
    ctx.status = 503;
    ctx.set('Retry-After', '5');
    ctx.body = envelopeOf(
      new ServiceError('unavailable', `Not ready: ${problems.map((p) => p.message).join(' ')}`, {
        notReady: problems.map((p) => p.component),
        checks: problems,
      }),
      ctx.state.requestId,
    );
  });

  router.get('/metrics', async (ctx) => {
    const token = service.config.metricsToken;
    if (!token) {
      ctx.status = 404;
      ctx.body = envelopeOf(new ServiceError('not_found', 'No endpoint GET /metrics: set METRICS_TOKEN to turn it on.', null), ctx.state.requestId);
      return;
    }
    const authorization = ctx.get('authorization');
    if (!bearerMatches(authorization, token)) {
      ctx.status = 401;
      ctx.set('WWW-Authenticate', authorization ? 'Bearer realm="metrics", error="invalid_token"' : 'Bearer realm="metrics"');
      ctx.body = envelopeOf(
        new ServiceError('unauthenticated', 'GET /metrics needs "Authorization: Bearer <METRICS_TOKEN>"; the token sent is missing or wrong.', null),
        ctx.state.requestId,
      );
      return;
    }
    const exposition = await service.metrics();
    if (!exposition) throw new ServiceError('unavailable', 'Metrics are still loading; retry shortly.');
    ctx.set('Content-Type', exposition.contentType);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = exposition.body;
  });
}
