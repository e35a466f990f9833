// koa-body (formidable and zod under it) is loaded on the first request with a body to parse, not
// at start-up: a server that has just started answers its health check without it.

import type { koaBody as KoaBody } from 'koa-body';

let loading: Promise<typeof KoaBody> | undefined;

/** koa-body's `koaBody`, imported once. */
export function loadKoaBody(): Promise<typeof KoaBody> {
  return (loading ??= import('koa-body').then((m) => m.koaBody));
}
