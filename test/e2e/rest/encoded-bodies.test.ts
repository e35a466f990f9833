// Issue 52, item 7, against a real listening server on both dialects: a body sent with
// Content-Encoding (gzip, deflate, br) is decoded the same way on every surface, REST, MCP and the
// OAuth endpoints, within the same limits after decoding: an encoded tools/call and an encoded client
// registration work as plain ones do, an unknown encoding is refused in each surface's format, and a
// decompression bomb (256 MB of zeros in a quarter of a megabyte) answers 413 on all three without
// ever being inflated whole (the process's resident set stays far below what it decodes to).

import { once } from 'node:events';
import zlib from 'node:zlib';
import { expect } from 'chai';
import { dialects } from '../../helpers/databases.js';
import { startWorld, type World } from '../../helpers/world.js';

const MB = 1024 * 1024;

/** `megabytes` of zeros, gzipped a megabyte at a time (never held whole here either). */
async function gzipBomb(megabytes: number): Promise<Buffer> {
  const gzip = zlib.createGzip({ level: 9 });
  const out: Buffer[] = [];
  gzip.on('data', (c: Buffer) => out.push(c));
  const zeros = Buffer.alloc(MB);
  for (let i = 0; i < megabytes; i++) if (!gzip.write(zeros)) await once(gzip, 'drain');
  gzip.end();
  await once(gzip, 'end');
  return Buffer.concat(out);
}

const encoders: Record<string, (b: Buffer) => Buffer> = { gzip: zlib.gzipSync, deflate: zlib.deflateSync, br: zlib.brotliCompressSync };

for (const dialect of dialects()) {
  describe(`encoded bodies on every surface (${dialect})`, function () {
    this.timeout(90_000);
    let w: World;
    let shoes: number;
    let key: string;
    let bomb: Buffer;
    before(async () => {
      w = await startWorld({ dialect, env: { JOBS: 'off' } });
      shoes = w.brandId('acme', 'shoes');
      key = w.key('acme', 'ci');
      bomb = await gzipBomb(256);
    });
    after(async () => w?.close());

    const post = (path: string, body: Buffer, headers: Record<string, string>) =>
      fetch(`${w.url}${path}`, { method: 'POST', headers, body: new Uint8Array(body), redirect: 'manual' });
    const mcpHeaders = (encoding: string) => ({
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'x-mcp-toolsets': 'all',
      'content-encoding': encoding,
    });
    const titles = async () => (await w.service.knex('launches').where({ brand_id: shoes }).select('title')).map((r: { title: string }) => r.title);

    for (const [encoding, encode] of Object.entries(encoders)) {
      it(`MCP decodes a ${encoding} tools/call as REST does, and the call acts`, async () => {
        const call = {
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'create_launch', arguments: { brandId: shoes, title: `Encoded ${encoding}` } },
        };
        const res = await post('/mcp', encode(Buffer.from(JSON.stringify(call))), mcpHeaders(encoding));
        const body = (await res.json()) as any;
        expect(res.status, JSON.stringify(body)).to.equal(200);
        expect(body.result.isError, JSON.stringify(body)).to.not.equal(true);
        expect(body.result.structuredContent.title).to.equal(`Encoded ${encoding}`);
        expect(await titles()).to.include(`Encoded ${encoding}`);
        const rest = await post(`/v1/brands/${shoes}/launches`, encode(Buffer.from(JSON.stringify({ title: `REST ${encoding}` }))), {
          authorization: `Bearer ${key}`,
          'content-type': 'application/json',
          'content-encoding': encoding,
        });
        expect(rest.status).to.equal(201);
      });

      it(`OAuth registration decodes a ${encoding} JSON body`, async () => {
        const res = await post(
          '/oauth/register',
          encode(Buffer.from(JSON.stringify({ client_name: `App ${encoding}`, redirect_uris: ['http://127.0.0.1:9/cb'] }))),
          {
            'content-type': 'application/json',
            'content-encoding': encoding,
          },
        );
        const body = (await res.json()) as any;
        expect(res.status, JSON.stringify(body)).to.equal(201);
        expect(body.client_name).to.equal(`App ${encoding}`);
      });
    }

    it('an encoding none of them knows is refused in each format: REST envelope, JSON-RPC error, OAuth invalid_request', async () => {
      const json = Buffer.from('{"title":"x"}');
      const rest = await post(`/v1/brands/${shoes}/launches`, json, {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        'content-encoding': 'compress',
      });
      expect(rest.status).to.equal(400);
      expect(((await rest.json()) as any).error.details[0].field).to.equal('Content-Encoding');
      const mcp = await post('/mcp', json, mcpHeaders('compress'));
      const rpc = (await mcp.json()) as any;
      expect(mcp.status).to.equal(400);
      expect(rpc).to.deep.include({ jsonrpc: '2.0', id: null });
      expect(rpc.error.message).to.contain('Content-Encoding compress is not supported');
      const oauth = await post('/oauth/register', json, { 'content-type': 'application/json', 'content-encoding': 'compress' });
      expect(oauth.status).to.equal(400);
      expect(((await oauth.json()) as any).error).to.equal('invalid_request');
    });

    it('a gzip bomb (256 MB of zeros) answers 413 on REST, MCP and OAuth, and is never inflated whole', async () => {
      expect(bomb.length, 'what is sent').to.be.below(MB);
      const before = process.memoryUsage().rss;
      const rest = await post(`/v1/brands/${shoes}/launches`, bomb, {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        'content-encoding': 'gzip',
      });
      expect(rest.status).to.equal(413);
      expect(((await rest.json()) as any).error.code).to.equal('validation_failed');
      const mcp = await post('/mcp', bomb, mcpHeaders('gzip'));
      expect(mcp.status).to.equal(413);
      expect(((await mcp.json()) as any).error.message).to.contain('larger than 5 MB');
      const oauth = await post('/oauth/register', bomb, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      expect(oauth.status).to.equal(413);
      expect(((await oauth.json()) as any).error).to.equal('invalid_request');
      const grown = process.memoryUsage().rss - before;
      expect(grown, `the resident set grew ${Math.round(grown / MB)} MB`).to.be.below(64 * MB);
    });
  });
}
