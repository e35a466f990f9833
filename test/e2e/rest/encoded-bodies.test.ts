// Issue 52, item 7, against a real listening server on both dialects: a body sent with
// Content-Encoding (gzip, deflate, br) is decoded the same way on every surface, REST, MCP and the
// OAuth endpoints, within the same limits after decoding: an encoded tools/call and an encoded client
// registration work as plain ones do, an unknown encoding is refused in each surface's format, and a
// decompression bomb (256 MB of zeros in a quarter of a megabyte) answers 413 on all three without
// ever being inflated whole (the process's resident set stays far below what it decodes to). The same
// holds for the bodies REST reads without JSON: a gzip multipart upload is decoded as it streams
// (a bomb cut at the upload's cap), and the workflow video-review hook verifies its signature over
// the decoded payload.

import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { expect } from 'chai';
import { Webhook } from 'standardwebhooks';
import { dialects } from '../../helpers/databases.js';
import { makePng } from '../../helpers/png.js';
import { createWorkflow, reviewNode } from '../../helpers/workflows.js';
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
    let creativesDir: string;
    before(async () => {
      creativesDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-encoded-'));
      w = await startWorld({ dialect, env: { JOBS: 'off', CREATIVES_DIR: creativesDir } });
      shoes = w.brandId('acme', 'shoes');
      key = w.key('acme', 'ci');
      bomb = await gzipBomb(256);
    });
    after(async () => {
      await w?.close();
      if (creativesDir) fs.rmSync(creativesDir, { recursive: true, force: true });
    });

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

    /** A multipart/form-data body with one file part `file`. */
    const multipart = (fileName: string, bytes: Buffer) =>
      Buffer.concat([
        Buffer.from(`--enc\r\nContent-Disposition: form-data; name="file"; filename="${fileName}"\r\nContent-Type: image/png\r\n\r\n`),
        bytes,
        Buffer.from('\r\n--enc--\r\n'),
      ]);
    const upload = (body: Buffer, encoding: string) =>
      post(`/v1/brands/${shoes}/creatives`, body, {
        authorization: `Bearer ${key}`,
        'content-type': 'multipart/form-data; boundary=enc',
        'content-encoding': encoding,
      });

    it('a gzip multipart upload is decoded as it arrives: the creative is the file sent', async () => {
      const png = makePng(640, 480);
      const res = await upload(zlib.gzipSync(multipart('gzipped.png', png)), 'gzip');
      const body = (await res.json()) as any;
      expect(res.status, JSON.stringify(body)).to.equal(201);
      expect(body).to.deep.include({ name: 'gzipped.png', type: 'image', width: 640, height: 480, sizeBytes: png.length });
    });

    it('a gzip multipart bomb is cut at the image cap as the same bytes sent plain would be (400 too_big on file), never inflated whole', async () => {
      // A PNG header, then 256 MB of zeros: past the 8 MB image cap long before its end.
      const head = makePng(2, 2);
      const gzip = zlib.createGzip({ level: 9 });
      const out: Buffer[] = [];
      gzip.on('data', (c: Buffer) => out.push(c));
      gzip.write(Buffer.from('--enc\r\nContent-Disposition: form-data; name="file"; filename="bomb.png"\r\nContent-Type: image/png\r\n\r\n'));
      gzip.write(head);
      const zeros = Buffer.alloc(MB);
      for (let i = 0; i < 256; i++) if (!gzip.write(zeros)) await once(gzip, 'drain');
      gzip.end(Buffer.from('\r\n--enc--\r\n'));
      await once(gzip, 'end');
      const sent = Buffer.concat(out);
      expect(sent.length).to.be.below(MB);
      const before = process.memoryUsage().rss;
      const res = await upload(sent, 'gzip');
      const body = (await res.json()) as any;
      expect(res.status, JSON.stringify(body)).to.equal(400);
      expect(body.error.details[0]).to.deep.include({ field: 'file', code: 'too_big' });
      expect(body.error.details[0].message).to.contain('must be at most 8 MB');
      const grown = process.memoryUsage().rss - before;
      expect(grown, `the resident set grew ${Math.round(grown / MB)} MB`).to.be.below(64 * MB);
    });

    it('a gzip multipart body that decodes past the 32 MB multipart cap before any part (bytes before the first boundary) answers 413', async () => {
      const sent = await gzipBomb(64);
      const res = await upload(sent, 'gzip');
      const body = (await res.json()) as any;
      expect(res.status, JSON.stringify(body)).to.equal(413);
      expect(body.error.details[0]).to.deep.include({ field: 'file', code: 'too_big' });
    });

    it('the workflow video-review hook decodes a gzip body before it checks the signature over it', async () => {
      const wf = await createWorkflow(w, key, shoes, { trigger: { kind: 'video_review' }, nodes: [reviewNode('review')] });
      const activated = await w.request('POST', `/v1/brands/${shoes}/workflows/${wf.workflowId}/activate`, { key, body: {} });
      expect(activated.status, JSON.stringify(activated.body)).to.equal(200);
      const payload = JSON.stringify({ type: 'asset.approved', assetId: 'vid_gz' });
      const at = new Date();
      const res = await post(new URL(wf.hook.url).pathname, zlib.gzipSync(Buffer.from(payload)), {
        'content-type': 'application/json',
        'content-encoding': 'gzip',
        'webhook-id': 'msg_gz',
        'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
        'webhook-signature': new Webhook(wf.hook.secret).sign('msg_gz', at, payload),
      });
      const body = (await res.json()) as any;
      expect(res.status, JSON.stringify(body)).to.equal(202);
      const run = await w.request('GET', `/v1/brands/${shoes}/workflows/${wf.workflowId}/executions/${body.executionId}`, { key });
      expect(run.body.trigger).to.deep.include({ kind: 'video_review', messageId: 'msg_gz', payload: { type: 'asset.approved', assetId: 'vid_gz' } });
    });
  });
}
