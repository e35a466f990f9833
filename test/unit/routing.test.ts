// Route groups: a request is matched only against routes of its method and segment count, with
// the same answers @koa/router gives (trailing slash, HEAD through GET, params, fall-through).

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import Koa from 'koa';
import { RouteGroups, segmentCount } from '../../surfaces/rest/routing.js';
import { isMcpPath } from '../../surfaces/http-server.js';

describe('REST route groups', () => {
  describe('segmentCount', () => {
    for (const [path, n] of [
      ['/', 1],
      ['/v1', 1],
      ['/v1/brands', 2],
      ['/v1/brands/', 2],
      ['/v1/brands/7/activity', 4],
      ['/v1/brands/7/activity/', 4],
    ] as const) {
      it(`counts ${n} in ${path}`, () => expect(segmentCount(path)).to.equal(n));
    }
  });

  let server: http.Server;
  let base: string;
  before(async () => {
    const routes = new RouteGroups();
    routes.get('/v1/brands', (ctx) => void (ctx.body = { route: 'list' }));
    routes.get('/v1/brands/:brandId', (ctx) => void (ctx.body = { route: 'one', params: ctx.params }));
    routes.get('/v1/brands/:brandId/activity', (ctx) => void (ctx.body = { route: 'activity', params: ctx.params }));
    routes.add('PATCH', '/v1/brands/:brandId', [(ctx) => void (ctx.body = { route: 'patch', params: ctx.params })]);
    routes.post('/v1/brands/:brandId/launches', (ctx) => void (ctx.body = { route: 'create', params: ctx.params }));
    const app = new Koa();
    app.use(async (ctx, next) => {
      await next();
      if (ctx.body === undefined) {
        ctx.status = 404;
        ctx.body = { route: null };
      }
    });
    app.use(routes.routes());
    server = http.createServer(app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const call = async (method: string, path: string) => {
    const res = await fetch(base + path, { method });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };

  it('matches a static route, also with a trailing slash', async () => {
    expect(await call('GET', '/v1/brands')).to.deep.equal({ status: 200, body: { route: 'list' } });
    expect(await call('GET', '/v1/brands/')).to.deep.equal({ status: 200, body: { route: 'list' } });
  });

  it('matches routes with parameters by method and segment count', async () => {
    expect(await call('GET', '/v1/brands/7')).to.deep.equal({ status: 200, body: { route: 'one', params: { brandId: '7' } } });
    expect(await call('PATCH', '/v1/brands/7')).to.deep.equal({ status: 200, body: { route: 'patch', params: { brandId: '7' } } });
    expect(await call('GET', '/v1/brands/7/activity')).to.deep.equal({ status: 200, body: { route: 'activity', params: { brandId: '7' } } });
    expect(await call('POST', '/v1/brands/9/launches')).to.deep.equal({ status: 200, body: { route: 'create', params: { brandId: '9' } } });
  });

  it('answers HEAD through the GET route, without a body', async () => {
    const res = await fetch(base + '/v1/brands/7', { method: 'HEAD' });
    expect(res.status).to.equal(200);
    expect(await res.text()).to.equal('');
  });

  it('falls through for a path, or a method, that no route has', async () => {
    expect((await call('GET', '/v1/brand')).status).to.equal(404);
    expect((await call('GET', '/v1/brands/7/activity/extra')).status).to.equal(404);
    expect((await call('DELETE', '/v1/brands/7')).status).to.equal(404);
    expect((await call('POST', '/v1/brands')).status).to.equal(404);
  });

  describe('isMcpPath', () => {
    for (const [url, yes] of [
      ['/mcp', true],
      ['/mcp/', true],
      ['/mcp//', true],
      ['/mcp?x=1', true],
      ['/mcp/?x=1', true],
      ['/mcpx', false],
      ['/mcp/x', false],
      ['/v1/mcp', false],
      ['/', false],
    ] as const) {
      it(`${yes ? 'takes' : 'leaves'} ${url}`, () => expect(isMcpPath(url, '/mcp')).to.equal(yes));
    }
  });
});
