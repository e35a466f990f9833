// Creatives by URL over REST: `{url, name?}` fetched from a loopback server the test starts (with
// WEBHOOK_ALLOW_PRIVATE=true), the type read from the bytes, the size caps, fetch failures; and
// without that flag a loopback or private URL refused before any connection.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { dialects } from '../../helpers/databases.js';
import { startFileServer, type FileServer } from '../../helpers/file-server.js';
import { makePng } from '../../helpers/png.js';
import { startWorld, type World } from '../../helpers/world.js';

const MB = 1024 * 1024;

/** A PNG header padded with zeros to `size` bytes: a PNG by its bytes, of any length. */
function paddedPng(size: number): Buffer {
  const b = Buffer.alloc(size);
  makePng(8, 8).copy(b);
  return b;
}

/** An MP4 ftyp box padded to `size` bytes. */
function paddedMp4(size: number): Buffer {
  const b = Buffer.alloc(size);
  b.writeUInt32BE(16, 0);
  b.write('ftypisom', 4, 'latin1');
  return b;
}

for (const dialect of dialects()) {
  describe(`creatives by URL over REST (${dialect})`, function () {
    this.timeout(60_000);
    let files: FileServer;
    let open: World;
    let strict: World;
    let creativesDir: string;

    before(async () => {
      files = await startFileServer({
        '/img/hero%20shot.png': { type: 'image/png', body: makePng(640, 480) },
        '/notes.png': { type: 'image/png', body: 'these are words, not a picture' },
        '/big.png': { type: 'image/png', body: paddedPng(8 * MB + 1) },
        '/huge.mp4': { type: 'video/mp4', body: paddedMp4(30 * MB + 1) },
        '/moved.png': { status: 302, type: 'text/plain', body: 'see /img/hero%20shot.png' },
        '/slow.png': { body: '', hang: true },
        '/half.png': { type: 'image/png', body: makePng(1200, 1200), cut: true },
      });
      creativesDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-creatives-'));
      open = await startWorld({ dialect, env: { CREATIVES_DIR: creativesDir, WEBHOOK_ALLOW_PRIVATE: 'true' } });
      // cdn.example resolves to loopback: refused at connect time by the resolved address.
      strict = await startWorld({ dialect, env: { CREATIVES_DIR: creativesDir }, resolveHost: async (h) => (h === 'cdn.example' ? ['127.0.0.1'] : []) });
    });
    after(async () => {
      await open?.close();
      await strict?.close();
      await files?.close();
      fs.rmSync(creativesDir, { recursive: true, force: true });
    });

    const send = (w: World, body: Record<string, unknown>) =>
      w.request('POST', `/v1/brands/${w.brandId('acme', 'shoes')}/creatives`, { key: w.key('acme', 'ci'), body });
    const count = async (w: World) => Number((await w.service.knex('creatives').count({ n: '*' }).first())?.n);

    it('fetches an image by URL: 201 with its width and height read from the bytes, named by the last path segment', async () => {
      const reply = await send(open, { url: `${files.origin}/img/hero%20shot.png` });
      expect(reply.status, JSON.stringify(reply.body)).to.equal(201);
      expect(reply.body).to.deep.include({ name: 'hero shot.png', type: 'image', mime: 'image/png', width: 640, height: 480, durationMs: null });
      expect(reply.body.sizeBytes).to.equal(makePng(640, 480).length);
      const got = await open.request('GET', `/v1/brands/${open.brandId('acme', 'shoes')}/creatives/${reply.body.id}`, { key: open.key('acme', 'ci') });
      expect(got.body).to.deep.include({ width: 640, height: 480 });
      const named = await send(open, { url: `${files.origin}/img/hero%20shot.png`, name: 'Hero' });
      expect(named.body).to.deep.include({ name: 'Hero', width: 640 });
    });

    it('goes by the bytes, not the Content-Type: text served as image/png is refused naming url', async () => {
      const before = await count(open);
      const reply = await send(open, { url: `${files.origin}/notes.png` });
      expect(reply.status).to.equal(400);
      expect(reply.body.error.code).to.equal('validation_failed');
      expect(reply.body.error.details[0]).to.deep.include({ field: 'url', code: 'invalid_value' });
      expect(reply.body.error.details[0].message).to.contain('PNG or JPEG image or an MP4 video');
      expect(await count(open)).to.equal(before);
    });

    it('refuses an image over 8 MB and a file over 30 MB with 400 too_big naming url and the limit', async () => {
      const before = await count(open);
      const image = await send(open, { url: `${files.origin}/big.png` });
      expect(image.status).to.equal(400);
      expect(image.body.error.details[0]).to.deep.include({ field: 'url', code: 'too_big' });
      expect(image.body.error.details[0].message).to.contain('8 MB');
      const video = await send(open, { url: `${files.origin}/huge.mp4` });
      expect(video.status).to.equal(400);
      expect(video.body.error.details[0]).to.deep.include({ field: 'url', code: 'too_big' });
      expect(video.body.error.details[0].message).to.contain('30 MB');
      expect(await count(open)).to.equal(before);
    });

    it('answers a non-2xx, a redirect and an unreachable host with 400 naming url and what went wrong', async () => {
      const missing = await send(open, { url: `${files.origin}/gone.png` });
      expect(missing.status).to.equal(400);
      expect(missing.body.error.details[0]).to.deep.include({ field: 'url', code: 'invalid_value' });
      expect(missing.body.error.details[0].message).to.contain('HTTP 404');
      const moved = await send(open, { url: `${files.origin}/moved.png` });
      expect(moved.body.error.details[0].message).to.contain('HTTP 302').and.contain('redirects are not followed');
      const closed = await startFileServer({});
      await closed.close();
      const down = await send(open, { url: `${closed.origin}/x.png` });
      expect(down.status).to.equal(400);
      expect(down.body.error.details[0]).to.deep.include({ field: 'url', code: 'invalid_value' });
      expect(down.body.error.details[0].message).to.contain('could not be read: the connection to');
    });

    it('a body that breaks off halfway answers 400 naming url and leaves no row and no file', async () => {
      const stored = () => fs.readdirSync(creativesDir, { recursive: true }).filter((f) => !String(f).startsWith('.incoming')).length;
      const [rows, filesBefore] = [await count(open), stored()];
      const reply = await send(open, { url: `${files.origin}/half.png` });
      expect(reply.status, JSON.stringify(reply.body)).to.equal(400);
      expect(reply.body.error.details[0]).to.deep.include({ field: 'url', code: 'invalid_value' });
      expect(reply.body.error.details[0].message).to.contain('could not be read').and.not.contain('reached');
      expect(await count(open), 'no row').to.equal(rows);
      expect(stored(), 'no stored file').to.equal(filesBefore);
      const staging = path.join(creativesDir, '.incoming');
      expect(fs.existsSync(staging) ? fs.readdirSync(staging) : [], 'nothing staged is left').to.deep.equal([]);
    });

    it('answers a host that never answers with 400 naming url, inside the request budget (not 504)', async () => {
      // REQUEST_TIMEOUT_MS=6000 leaves the fetch 1 s.
      const quick = await startWorld({ dialect, env: { WEBHOOK_ALLOW_PRIVATE: 'true', REQUEST_TIMEOUT_MS: '6000' } });
      try {
        const reply = await send(quick, { url: `${files.origin}/slow.png` });
        expect(reply.status, JSON.stringify(reply.body)).to.equal(400);
        expect(reply.body.error.details[0]).to.deep.include({ field: 'url', code: 'invalid_value' });
        expect(reply.body.error.details[0].message).to.contain('did not answer in time');
      } finally {
        await quick.close();
      }
    });

    it('refuses exactly-one violations: both file and url, or neither', async () => {
      const both = await send(open, {
        url: `${files.origin}/img/hero%20shot.png`,
        file: { fileName: 'a.png', contentBase64: makePng(2, 2).toString('base64') },
      });
      expect(both.status).to.equal(400);
      expect(both.body.error.details).to.deep.equal([
        { field: 'url', code: 'invalid_value', message: 'must not be sent with file; send exactly one of file, dataBase64 and url' },
      ]);
      const neither = await send(open, { name: 'x' });
      expect(neither.body.error.details[0]).to.deep.include({ field: 'file', code: 'invalid_type' });
      const bytesAndUrl = await send(open, { dataBase64: makePng(2, 2).toString('base64'), url: `${files.origin}/img/hero%20shot.png` });
      expect(bytesAndUrl.status).to.equal(400);
      expect(bytesAndUrl.body.error.details).to.deep.equal([
        { field: 'url', code: 'invalid_value', message: 'must not be sent with dataBase64; send exactly one of file, dataBase64 and url' },
      ]);
    });

    it('takes the bytes as one dataBase64 string: 201 with the size read from them, named creative.png unless named', async () => {
      const before = await count(open);
      const unnamed = await send(open, { dataBase64: makePng(300, 250).toString('base64') });
      expect(unnamed.status, JSON.stringify(unnamed.body)).to.equal(201);
      expect(unnamed.body).to.deep.include({ name: 'creative.png', type: 'image', mime: 'image/png', width: 300, height: 250 });
      const named = await send(open, { dataBase64: makePng(300, 250).toString('base64'), name: 'Banner' });
      expect(named.body.name).to.equal('Banner');
      const broken = await send(open, { dataBase64: 'not base64!' });
      expect(broken.status).to.equal(400);
      expect(broken.body.error.details[0]).to.deep.include({ field: 'dataBase64', code: 'invalid_value' });
      const words = await send(open, { dataBase64: Buffer.from('these are words').toString('base64') });
      expect(words.status).to.equal(400);
      expect(words.body.error.details[0]).to.deep.include({ field: 'dataBase64', code: 'invalid_value' });
      expect(await count(open)).to.equal(before + 2);
    });

    it('without WEBHOOK_ALLOW_PRIVATE refuses loopback and private URLs before any connection', async () => {
      const seen = files.seen.length;
      const before = await count(strict);
      for (const url of [
        `${files.origin}/img/hero%20shot.png`,
        `https://127.0.0.1:${files.port}/img/hero%20shot.png`,
        `https://localhost:${files.port}/img/hero%20shot.png`,
        'https://10.0.0.7/hero.png',
        'https://169.254.169.254/latest/meta-data',
        `https://cdn.example:${files.port}/img/hero%20shot.png`,
      ]) {
        const reply = await send(strict, { url });
        expect(reply.status, url).to.equal(400);
        expect(reply.body.error.code).to.equal('validation_failed');
        expect(reply.body.error.details[0], url).to.deep.include({ field: 'url', code: 'invalid_value' });
        expect(reply.body.error.details[0].message, url).to.match(/could not be fetched: .*(must use https|disallowed address|loopback|private|link-local)/);
      }
      expect(files.seen.length, 'the loopback server saw a request').to.equal(seen);
      expect(await count(strict)).to.equal(before);
    });
  });
}
