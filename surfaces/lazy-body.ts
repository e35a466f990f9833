// koa-body (formidable and zod under it) is loaded on the first request with a body to parse, not
// at start-up: a server that has just started answers its health check without it.

import type Koa from 'koa';
import type { KoaBodyMiddlewareOptions, koaBody as KoaBody } from 'koa-body';

let loading: Promise<typeof KoaBody> | undefined;

/** koa-body's `koaBody`, imported once. */
export function loadKoaBody(): Promise<typeof KoaBody> {
  return (loading ??= import('koa-body').then((m) => m.koaBody));
}

/** `koaBody(options)` as a middleware made on its first request. */
export function lazyKoaBody(options: Partial<KoaBodyMiddlewareOptions>): Koa.Middleware {
  let middleware: Koa.Middleware | undefined;
  return async (ctx, next) => {
    middleware ??= (await loadKoaBody())(options);
    return middleware(ctx, next);
  };
}
