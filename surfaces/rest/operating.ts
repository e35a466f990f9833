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

/** Wrong /metrics tokens a client address may send per window before it waits (a small throttle on guessing). */
const WRONG_TOKENS_PER_WINDOW = 10;
const WRONG_TOKEN_WINDOW_MS = 60_000;
/** Addresses remembered at most (the oldest are forgotten first). */
const WRONG_TOKEN_ADDRESSES = 10_000;

/** Wrong /metrics tokens per client address within the current window. */
class WrongTokens {
  private readonly seen = new Map<string, { count: number; since: number }>();

  /** Seconds `address` must wait before trying again, or 0 when it may try now. */
  waitOf(address: string, now: number): number {
    const s = this.seen.get(address);
    if (!s || now - s.since >= WRONG_TOKEN_WINDOW_MS) return 0;
    return s.count >= WRONG_TOKENS_PER_WINDOW ? Math.max(1, Math.ceil((s.since + WRONG_TOKEN_WINDOW_MS - now) / 1000)) : 0;
  }

  record(address: string, now: number): void {
    const s = this.seen.get(address);
    if (s && now - s.since < WRONG_TOKEN_WINDOW_MS) s.count++;
    else {
      this.seen.delete(address);
      this.seen.set(address, { count: 1, since: now });
      if (this.seen.size > WRONG_TOKEN_ADDRESSES) this.seen.delete(this.seen.keys().next().value!);
    }
  }
}

/** Adds /readyz and /metrics to the REST router. */
export function operatingRoutes(router: RouteRegistrar<{ requestId: string }>, service: Service): void {
  const wrongTokens = new WrongTokens();
  router.get('/readyz', async (ctx) => {
    const problems = await service.notReady();
    // A notice (the Graph version ending soon) is said, never a reason to refuse traffic.
    const notices = service.notices();
    if (!problems.length) {
      ctx.body = { status: 'ready', ...(notices.length ? { notices } : {}) };
      return;
    }
    ctx.status = 503;
    ctx.set('Retry-After', '5');
    ctx.body = envelopeOf(
      new ServiceError('unavailable', `Not ready: ${problems.map((p) => p.message).join(' ')}`, {
        notReady: problems.map((p) => p.component),
        checks: problems,
        ...(notices.length ? { notices } : {}),
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
    const now = Date.now();
    // Too many wrong tokens from this address of late: it waits, whatever it sends now.
    const wait = wrongTokens.waitOf(ctx.ip, now);
    if (wait > 0) {
      ctx.status = 429;
      ctx.set('Retry-After', String(wait));
      ctx.body = envelopeOf(
        new ServiceError('rate_limited', `Too many wrong METRICS_TOKEN attempts from this address; wait ${wait} seconds.`, { reason: 'metrics_token' }, wait),
        ctx.state.requestId,
      );
      return;
    }
    if (!bearerMatches(authorization, token)) {
      if (authorization) wrongTokens.record(ctx.ip, now);
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
