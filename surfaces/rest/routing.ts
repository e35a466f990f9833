// Route dispatch for the Koa app. @koa/router tests every registered pattern on each request
// (about fifty here), which measured as the largest single cost of a cached read. Routes are
// therefore kept in one @koa/router per (method, number of path segments): a request picks its
// group with one Map lookup and is matched against its few neighbours only. Path parameters
// never span a "/", so a route and every path it matches have the same number of segments.

import type Koa from 'koa';
import Router, { type RouterMiddleware } from '@koa/router';

export type RouteMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** Where routes are registered: the surfaces' route modules see only this. */
export interface RouteRegistrar<S = Koa.DefaultState> {
  get(path: string, ...middleware: RouterMiddleware<S>[]): unknown;
  post(path: string, ...middleware: RouterMiddleware<S>[]): unknown;
}

/** The number of segments of a path, ignoring one trailing slash (matched like none, as @koa/router does). */
export function segmentCount(path: string): number {
  let n = 0;
  for (let i = 0; i < path.length; i++) if (path.charCodeAt(i) === 47 /* "/" */) n++;
  if (n > 1 && path.charCodeAt(path.length - 1) === 47) n--;
  return n;
}

const keyOf = (method: string, path: string) => `${method} ${segmentCount(path)}`;

export class RouteGroups<S = Koa.DefaultState> implements RouteRegistrar<S> {
  private readonly groups = new Map<string, Router<S>>();

  get(path: string, ...middleware: RouterMiddleware<S>[]): this {
    return this.add('GET', path, middleware);
  }

  post(path: string, ...middleware: RouterMiddleware<S>[]): this {
    return this.add('POST', path, middleware);
  }

  add(method: RouteMethod, path: string, middleware: RouterMiddleware<S>[]): this {
    const key = keyOf(method, path);
    let router = this.groups.get(key);
    if (!router) {
      router = new Router<S>();
      this.groups.set(key, router);
    }
    router.register(path, [method], middleware);
    return this;
  }

  /** The dispatching middleware; a path no route matches falls through to `next` (404 upstream). */
  routes(): Koa.Middleware<S> {
    const dispatch = new Map<string, Koa.Middleware<S>>();
    for (const [key, router] of this.groups) dispatch.set(key, router.routes() as unknown as Koa.Middleware<S>);
    return (ctx, next) => {
      // HEAD is answered by the GET route, as @koa/router does.
      const route = dispatch.get(keyOf(ctx.method === 'HEAD' ? 'GET' : ctx.method, ctx.path));
      return route ? route(ctx, next) : next();
    };
  }
}
