// Creatives over REST: real PNG, JPEG and MP4 files built here, uploaded as multipart/form-data and
// as JSON base64; type and size read from the bytes; limits, unknown fields, paging, brands, scopes.

import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { expect } from 'chai';
import { dialects } from '../../helpers/databases.js';
import { startWorld, type World } from '../../helpers/world.js';
import { MATRIX, box, u32 } from '../../helpers/mp4.js';

// --- files built byte by byte -------------------------------------------------------------

function pngChunk(type: string, data: Buffer): Buffer {
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(zlib.crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** A valid RGB PNG of one colour. */
function png(width: number, height: number, rgb: [number, number, number] = [200, 30, 60]): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // colour type: RGB
  const row = Buffer.alloc(1 + width * 3); // filter byte 0, then the pixels
  for (let x = 0; x < width; x++) row.set(rgb, 1 + x * 3);
  const raw = Buffer.concat(Array.from({ length: height }, () => row));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', zlib.deflateSync(raw)),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

function segment(marker: number, payload: number[]): Buffer {
  const length = payload.length + 2;
  return Buffer.from([0xff, marker, length >> 8, length & 0xff, ...payload]);
}

/**
 * A decodable baseline JPEG: one grey component, every 8x8 block flat mid-grey, so each block is
 * a DC difference of category 0 and an end-of-block, both coded as the single one-bit code "0".
 */
function jpeg(width: number, height: number): Buffer {
  const blocks = Math.ceil(width / 8) * Math.ceil(height / 8);
  const bits = blocks * 2;
  const scan = Buffer.alloc(Math.ceil(bits / 8));
  if (bits % 8) scan[scan.length - 1] = (1 << (8 - (bits % 8))) - 1; // pad the last byte with 1 bits
  const oneCode = (tableClass: number) => segment(0xc4, [tableClass, 1, ...new Array(15).fill(0), 0x00]);
  return Buffer.concat([
    Buffer.from([0xff, 0xd8]),
    segment(0xe0, [0x4a, 0x46, 0x49, 0x46, 0x00, 1, 1, 0, 0, 1, 0, 1, 0, 0]),
    segment(0xdb, [0x00, ...new Array(64).fill(1)]),
    segment(0xc0, [8, height >> 8, height & 0xff, width >> 8, width & 0xff, 1, 1, 0x11, 0]),
    oneCode(0x00),
    oneCode(0x10),
    segment(0xda, [1, 1, 0x00, 0, 63, 0]),
    scan,
    Buffer.from([0xff, 0xd9]),
  ]);
}

function u64(value: number): Buffer {
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(BigInt(value));
  return b;
}

function mvhd(version: 0 | 1, timescale: number, duration: number): Buffer {
  const times = version === 1 ? Buffer.concat([u64(0), u64(0), u32(timescale), u64(duration)]) : u32(0, 0, timescale, duration);
  return box('mvhd', Buffer.from([version, 0, 0, 0]), times, u32(0x10000), Buffer.from([1, 0]), Buffer.alloc(10), MATRIX, Buffer.alloc(24), u32(3));
}

function tkhd(version: 0 | 1, trackId: number, width: number, height: number): Buffer {
  const head = version === 1 ? Buffer.concat([u64(0), u64(0), u32(trackId, 0), u64(0)]) : u32(0, 0, trackId, 0, 0);
  return box('tkhd', Buffer.from([version, 0, 0, 7]), head, Buffer.alloc(8), Buffer.alloc(8), MATRIX, u32(width * 65536, height * 65536));
}

function trak(kind: 'vide' | 'soun', trackId: number, size: { tkhd: [number, number]; entry?: [number, number] }, version: 0 | 1 = 0): Buffer {
  const hdlr = box('hdlr', Buffer.alloc(4), Buffer.alloc(4), Buffer.from(kind, 'latin1'), Buffer.alloc(12), Buffer.from('handler\0', 'latin1'));
  const mdhd = box('mdhd', Buffer.alloc(4), u32(0, 0, 1000, 0), Buffer.from([0x55, 0xc4, 0, 0]));
  const [ew, eh] = size.entry ?? size.tkhd;
  const entryBody = Buffer.concat([
    Buffer.alloc(6),
    Buffer.from([0, 1]),
    Buffer.alloc(16),
    Buffer.from([ew >> 8, ew & 0xff, eh >> 8, eh & 0xff]),
    Buffer.alloc(50),
  ]);
  const sampleEntry = box(kind === 'vide' ? 'avc1' : 'mp4a', entryBody);
  const stbl = box('stbl', box('stsd', Buffer.alloc(4), u32(1), sampleEntry));
  return box('trak', tkhd(version, trackId, ...size.tkhd), box('mdia', mdhd, hdlr, box('minf', stbl)));
}

const ftyp = (major = 'isom', compatible = ['isom', 'iso2', 'avc1', 'mp41']) =>
  box('ftyp', Buffer.from(major, 'latin1'), u32(0x200), ...compatible.map((b) => Buffer.from(b, 'latin1')));

/** An MP4 whose audio track comes first and whose video track is 1080x1920, 15 s long. */
function mp4(): Buffer {
  const moov = box('moov', mvhd(0, 1000, 15_000), trak('soun', 1, { tkhd: [0, 0] }), trak('vide', 2, { tkhd: [1080, 1920] }));
  return Buffer.concat([ftyp(), moov, box('mdat', crypto.randomBytes(256))]);
}

/** Version-1 headers, a 90 kHz time scale, and the moov after the media data. */
function mp4MoovLast(): Buffer {
  const moov = box('moov', mvhd(1, 90_000, 225_000), trak('vide', 1, { tkhd: [640, 360] }, 1));
  return Buffer.concat([ftyp('mp42', ['mp42', 'isom']), box('mdat', crypto.randomBytes(1024)), moov]);
}

/** The frame size only in the sample entry (tkhd says 0x0). */
function mp4SizeInSampleEntry(): Buffer {
  const moov = box('moov', mvhd(0, 600, 3_000), trak('vide', 1, { tkhd: [0, 0], entry: [720, 1280] }));
  return Buffer.concat([ftyp(), moov]);
}

const sha256 = (b: Buffer) => crypto.createHash('sha256').update(b).digest('hex');
/** The upload folders in the temporary directory (other processes on the machine may add and remove theirs). */
const uploadDirs = () => new Set(fs.readdirSync(os.tmpdir()).filter((n) => n.startsWith('svc-upload-')));

for (const dialect of dialects()) {
  describe(`creatives (${dialect})`, function () {
    this.timeout(60_000);
    let w: World;
    let creativesDir: string;
    let shoes: number;
    let hats: number;
    let key: string;

    before(async () => {
      creativesDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-creatives-'));
      w = await startWorld({ dialect, env: { CREATIVES_DIR: creativesDir } });
      shoes = w.brandId('acme', 'shoes');
      hats = w.brandId('acme', 'hats');
      key = w.key('acme', 'ci');
    });
    after(async () => {
      await w?.close();
      fs.rmSync(creativesDir, { recursive: true, force: true });
    });

    interface UploadOptions {
      brandId?: number;
      key?: string | null;
      name?: string;
      fields?: Record<string, string>;
      files?: Record<string, [Buffer, string]>;
      headers?: Record<string, string>;
    }

    async function upload(bytes: Buffer | null, fileName: string, opts: UploadOptions = {}) {
      const form = new FormData();
      if (bytes) form.append('file', new Blob([new Uint8Array(bytes)]), fileName);
      if (opts.name !== undefined) form.append('name', opts.name);
      for (const [k, v] of Object.entries(opts.fields ?? {})) form.append(k, v);
      for (const [k, [b, n]] of Object.entries(opts.files ?? {})) form.append(k, new Blob([new Uint8Array(b)]), n);
      const headers: Record<string, string> = { ...(opts.headers ?? {}) };
      const k = opts.key === undefined ? key : opts.key;
      if (k) headers.authorization = `Bearer ${k}`;
      const res = await fetch(`${w.url}/v1/brands/${opts.brandId ?? shoes}/creatives`, { method: 'POST', headers, body: form });
      return { status: res.status, headers: res.headers, body: (await res.json()) as any };
    }

    const uploadJson = (bytes: Buffer, fileName: string, extra: Record<string, unknown> = {}) =>
      w.request('POST', `/v1/brands/${shoes}/creatives`, { key, body: { file: { fileName, contentBase64: bytes.toString('base64') }, ...extra } });

    it('uploads a PNG as multipart/form-data: 201 with the size read from the file, stored under CREATIVES_DIR', async () => {
      const file = png(1080, 1080);
      const reply = await upload(file, 'hero.png');
      expect(reply.status, JSON.stringify(reply.body)).to.equal(201);
      expect(reply.body).to.have.all.keys('id', 'name', 'type', 'mime', 'width', 'height', 'durationMs', 'sizeBytes', 'sha256', 'createdAt');
      expect(reply.body.id).to.be.a('number');
      expect(reply.body).to.deep.include({
        name: 'hero.png',
        type: 'image',
        mime: 'image/png',
        width: 1080,
        height: 1080,
        durationMs: null,
        sizeBytes: file.length,
        sha256: sha256(file),
      });
      expect(Date.parse(reply.body.createdAt)).to.be.closeTo(Date.now(), 60_000);

      const row = await w.service.knex('creatives').where({ id: reply.body.id }).first();
      expect(Number(row.brand_id)).to.equal(shoes);
      const stored = path.join(creativesDir, row.storage_key);
      expect(stored.startsWith(creativesDir + path.sep)).to.equal(true);
      expect(path.basename(stored)).to.equal(`${sha256(file)}.png`);
      expect(fs.readFileSync(stored).equals(file)).to.equal(true);
    });

    it('records the upload in the activity log', async () => {
      const reply = await upload(png(64, 64, [1, 2, 3]), 'logo.png');
      const activity = await w.request('GET', `/v1/brands/${shoes}/activity`, { key });
      expect(activity.status).to.equal(200);
      expect(activity.body.activities[0]).to.deep.include({
        entityType: 'unknown',
        entityId: String(reply.body.id),
        entityName: 'logo.png',
        action: 'creative.uploaded',
        userName: 'API key: CI key',
      });
    });

    it('uploads a JPEG with a name given in the form', async () => {
      const file = jpeg(1200, 628);
      const reply = await upload(file, 'banner.jpg', { name: 'Spring banner' });
      expect(reply.status, JSON.stringify(reply.body)).to.equal(201);
      expect(reply.body).to.deep.include({
        name: 'Spring banner',
        type: 'image',
        mime: 'image/jpeg',
        width: 1200,
        height: 628,
        durationMs: null,
        sizeBytes: file.length,
      });
    });

    it('uploads an MP4: video, frame size of the video track, duration from the movie header', async () => {
      const file = mp4();
      const reply = await upload(file, 'spring.mp4');
      expect(reply.status, JSON.stringify(reply.body)).to.equal(201);
      expect(reply.body).to.deep.include({
        name: 'spring.mp4',
        type: 'video',
        mime: 'video/mp4',
        width: 1080,
        height: 1920,
        durationMs: 15_000,
        sizeBytes: file.length,
      });
      const row = await w.service.knex('creatives').where({ id: reply.body.id }).first();
      expect(fs.existsSync(path.join(creativesDir, row.storage_key))).to.equal(true);
      expect(row.storage_key.endsWith('.mp4')).to.equal(true);
    });

    it('accepts the same input as JSON with the file in base64', async () => {
      const image = png(300, 250, [9, 9, 9]);
      const a = await uploadJson(image, 'mpu.png', { name: 'MPU' });
      expect(a.status, JSON.stringify(a.body)).to.equal(201);
      expect(a.body).to.deep.include({ name: 'MPU', type: 'image', width: 300, height: 250, sha256: sha256(image) });
      const b = await uploadJson(mp4MoovLast(), 'teaser.mp4');
      expect(b.status, JSON.stringify(b.body)).to.equal(201);
      expect(b.body).to.deep.include({ type: 'video', width: 640, height: 360, durationMs: 2500 });
      const c = await uploadJson(mp4SizeInSampleEntry(), 'story.mp4');
      expect(c.status, JSON.stringify(c.body)).to.equal(201);
      expect(c.body).to.deep.include({ type: 'video', width: 720, height: 1280, durationMs: 5000 });
      const d = await uploadJson(jpeg(16, 9), 'tiny.jpeg');
      expect(d.body).to.deep.include({ type: 'image', mime: 'image/jpeg', width: 16, height: 9 });
    });

    it('goes by the bytes, not the name: a PNG named hero.mp4 is an image', async () => {
      const reply = await upload(png(40, 20), 'hero.mp4');
      expect(reply.status, JSON.stringify(reply.body)).to.equal(201);
      expect(reply.body).to.deep.include({ name: 'hero.mp4', type: 'image', mime: 'image/png', width: 40, height: 20, durationMs: null });
      const video = await upload(mp4(), 'clip.png');
      expect(video.body).to.deep.include({ type: 'video', mime: 'video/mp4' });
    });

    const accepted = 'must be a PNG or JPEG image or an MP4 video';
    const bad: Array<[string, Buffer, string, string, string | RegExp]> = [
      ['a text file', Buffer.from('hello, this is not an image\n'), 'notes.txt', 'invalid_value', accepted],
      ['text named .png', Buffer.from('plain text pretending'), 'hero.png', 'invalid_value', accepted],
      ['a GIF', Buffer.concat([Buffer.from('GIF89a', 'latin1'), Buffer.from([1, 0, 1, 0, 0, 0, 0, 0x3b])]), 'anim.gif', 'invalid_value', accepted],
      ['a HEIC image (ISO container, image brand)', ftyp('heic', ['mif1', 'heic']), 'photo.heic', 'invalid_value', accepted],
      [
        'a PNG signature without a header chunk',
        Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0]),
        'broken.png',
        'invalid_value',
        /readable PNG/,
      ],
      [
        'a JPEG with no frame header',
        Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x04, 0x00, 0x00, 0xff, 0xd9]),
        'broken.jpg',
        'invalid_value',
        /readable JPEG/,
      ],
      ['an MP4 without a moov box', Buffer.concat([ftyp(), box('mdat', Buffer.alloc(32))]), 'nomoov.mp4', 'invalid_value', /no movie header/],
      [
        'an MP4 with only an audio track',
        Buffer.concat([ftyp(), box('moov', mvhd(0, 1000, 1000), trak('soun', 1, { tkhd: [0, 0] }))]),
        'audio.mp4',
        'invalid_value',
        /no video track/,
      ],
      [
        'an MP4 cut short inside moov',
        Buffer.concat([ftyp(), box('moov', mvhd(0, 1000, 1000), trak('vide', 1, { tkhd: [10, 10] }))]).subarray(0, 120),
        'cut.mp4',
        'invalid_value',
        /cut short/,
      ],
      ['an empty file', Buffer.alloc(0), 'empty.png', 'too_small', 'must not be empty'],
    ];
    for (const [label, bytes, fileName, code, message] of bad) {
      it(`refuses ${label} with 400 ${code} on file`, async () => {
        const before = await w.service.knex('creatives').count({ n: '*' }).first();
        const reply = await upload(bytes, fileName);
        expect(reply.status, JSON.stringify(reply.body)).to.equal(400);
        expect(reply.body.error.code).to.equal('validation_failed');
        expect(reply.body.error.details).to.have.length(1);
        expect(reply.body.error.details[0]).to.deep.include({ field: 'file', code });
        if (typeof message === 'string') expect(reply.body.error.details[0].message).to.contain(message);
        else expect(reply.body.error.details[0].message).to.match(message);
        const after = await w.service.knex('creatives').count({ n: '*' }).first();
        expect(Number(after?.n)).to.equal(Number(before?.n));
      });
    }

    it('refuses bad JSON input with the field named', async () => {
      const notBase64 = await w.request('POST', `/v1/brands/${shoes}/creatives`, { key, body: { file: { fileName: 'a.png', contentBase64: 'not base64!' } } });
      expect(notBase64.status).to.equal(400);
      expect(notBase64.body.error.details).to.deep.equal([
        { field: 'file.contentBase64', code: 'invalid_value', message: notBase64.body.error.details[0].message },
      ]);
      const text = await uploadJson(Buffer.from('just words'), 'words.png');
      expect(text.body.error.details[0]).to.deep.include({ field: 'file', code: 'invalid_value' });
      const extra = await w.request('POST', `/v1/brands/${shoes}/creatives`, { key, body: { file: { fileName: 'a.png', contentBase64: 'AAAA', url: 'x' } } });
      expect(extra.body.error.details).to.deep.include({ field: 'file.url', code: 'unrecognized_key', message: 'is not recognised; remove "url"' });
      const missing = await w.request('POST', `/v1/brands/${shoes}/creatives`, { key, body: { name: 'x' } });
      expect(missing.body.error.details).to.deep.equal([
        { field: 'file', code: 'invalid_type', message: 'is required: send file or dataBase64 (the bytes) or url (where to fetch them)' },
      ]);
    });

    it('refuses an image over 8 MB with 400 too_big naming the limit', async () => {
      const big = Buffer.alloc(8 * 1024 * 1024 + 1);
      png(8, 8).copy(big);
      const reply = await upload(big, 'huge.png');
      expect(reply.status, JSON.stringify(reply.body)).to.equal(400);
      expect(reply.body.error.code).to.equal('validation_failed');
      expect(reply.body.error.details[0]).to.deep.include({ field: 'file', code: 'too_big' });
      expect(reply.body.error.details[0].message).to.contain('at most 8 MB');
      expect(reply.body.error.message).to.contain('8 MB');
    });

    it('refuses a file over 30 MB while it streams in, with 413 too_big naming the limit', async () => {
      // A video's head: bytes of no accepted format are refused at the head already (below).
      const head = mp4();
      const reply = await upload(Buffer.concat([head, Buffer.alloc(30 * 1024 * 1024 + 1 - head.length)]), 'feature.mp4');
      expect(reply.status, JSON.stringify(reply.body)).to.equal(413);
      expect(reply.body.error.details).to.deep.equal([{ field: 'file', code: 'too_big', message: 'must be at most 30 MB (31457280 bytes)' }]);
      const after = await w.request('GET', `/v1/brands/${shoes}/creatives?limit=1`, { key });
      expect(after.status).to.equal(200);
    });

    it('refuses bytes of no accepted format as soon as their head is in, whatever their size, and keeps nothing', async () => {
      const reply = await upload(Buffer.alloc(20 * 1024 * 1024), 'feature.mp4');
      expect(reply.status, JSON.stringify(reply.body)).to.equal(400);
      expect(reply.body.error.details[0]).to.deep.include({ field: 'file', code: 'invalid_value' });
      expect(fs.readdirSync(path.join(creativesDir, '.incoming')), 'nothing staged is left').to.deep.equal([]);
    });

    it('a half-received upload leaves no file and no row: the staged part is removed when the body breaks off', async () => {
      const rows = async () => Number((await w.service.knex('creatives').count({ n: '*' }).first())!.n);
      const files = () => fs.readdirSync(creativesDir, { recursive: true }).filter((f) => !String(f).startsWith('.incoming')).length;
      const [rowsBefore, filesBefore] = [await rows(), files()];
      const boundary = 'half-received';
      const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="half.png"\r\nContent-Type: image/png\r\n\r\n`);
      const sent = Buffer.concat([head, png(1080, 1080), crypto.randomBytes(2 * 1024 * 1024)]);
      const { hostname, port } = new URL(w.url);
      await new Promise<void>((resolve) => {
        const req = http.request({
          host: hostname,
          port,
          method: 'POST',
          path: `/v1/brands/${shoes}/creatives`,
          headers: { authorization: `Bearer ${key}`, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': sent.length * 2 },
        });
        req.on('error', () => resolve());
        req.on('response', (res) => res.resume().on('end', resolve));
        // Half the body, then the connection goes.
        req.write(sent, () => setTimeout(() => req.destroy(), 200));
      });
      const staging = path.join(creativesDir, '.incoming');
      for (let waited = 0; waited < 5_000 && fs.existsSync(staging) && fs.readdirSync(staging).length; waited += 50)
        await new Promise((r) => setTimeout(r, 50));
      expect(fs.existsSync(staging) ? fs.readdirSync(staging) : [], 'nothing staged is left').to.deep.equal([]);
      expect(await rows(), 'no row').to.equal(rowsBefore);
      expect(files(), 'no stored file').to.equal(filesBefore);
    });

    it('refuses a body declared over 32 MB before reading it, with 413', async () => {
      const reply = await upload(Buffer.alloc(33 * 1024 * 1024), 'feature.mp4');
      expect(reply.status, JSON.stringify(reply.body)).to.equal(413);
      expect(reply.body.error.details).to.deep.equal([{ field: 'file', code: 'too_big', message: 'must be at most 30 MB (31457280 bytes)' }]);
    });

    it('takes a video over the image limit and the JSON body limit as multipart', async () => {
      const file = Buffer.concat([mp4(), box('free', Buffer.alloc(12 * 1024 * 1024))]);
      const reply = await upload(file, 'long.mp4');
      expect(reply.status, JSON.stringify(reply.body)).to.equal(201);
      expect(reply.body).to.deep.include({ type: 'video', width: 1080, height: 1920, durationMs: 15_000, sizeBytes: file.length });
    });

    it('refuses unknown multipart fields, text or file, with unrecognized_key', async () => {
      const text = await upload(png(10, 10), 'a.png', { fields: { colour: 'red' } });
      expect(text.status).to.equal(400);
      expect(text.body.error.details).to.deep.equal([{ field: 'colour', code: 'unrecognized_key', message: 'is not recognised; remove "colour"' }]);
      const file = await upload(png(10, 10), 'a.png', { files: { thumbnail: [png(2, 2), 't.png'] } });
      expect(file.status).to.equal(400);
      expect(file.body.error.details).to.deep.equal([{ field: 'thumbnail', code: 'unrecognized_key', message: 'is not recognised; remove "thumbnail"' }]);
      const pathParam = await upload(png(10, 10), 'a.png', { fields: { brandId: String(hats) } });
      expect(pathParam.body.error.details[0]).to.deep.include({ field: 'brandId', code: 'unrecognized_key' });
      const noFile = await upload(null, '', { name: 'only a name' });
      expect(noFile.body.error.details).to.deep.equal([
        { field: 'file', code: 'invalid_type', message: 'is required: send file or dataBase64 (the bytes) or url (where to fetch them)' },
      ]);
      const textFile = await upload(null, '', { fields: { file: 'aGVsbG8=' } });
      expect(textFile.body.error.details[0]).to.deep.include({ field: 'file', code: 'invalid_type' });
    });

    it('refuses two files in the file part and a body that is not multipart', async () => {
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(png(5, 5))]), 'a.png');
      form.append('file', new Blob([new Uint8Array(png(6, 6))]), 'b.png');
      const res = await fetch(`${w.url}/v1/brands/${shoes}/creatives`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form });
      const two = (await res.json()) as any;
      expect(res.status).to.equal(400);
      expect(two.error.details).to.deep.equal([{ field: 'file', code: 'invalid_value', message: 'must be one file; send a single part named "file"' }]);
      for (const contentType of ['multipart/form-data; boundary=xyz', 'multipart/form-data']) {
        const garbage = await w.request('POST', `/v1/brands/${shoes}/creatives`, {
          key,
          rawBody: 'this is not a multipart body',
          headers: { 'content-type': contentType },
        });
        expect(garbage.status, contentType).to.equal(400);
        expect(garbage.body.error).to.deep.include({ code: 'validation_failed', details: null });
        expect(garbage.body.error.message).to.contain('not valid multipart/form-data');
      }
    });

    it('leaves no temporary upload files behind, after success or refusal', async () => {
      const before = uploadDirs();
      await upload(png(12, 12, [7, 7, 7]), 'a.png');
      await upload(Buffer.from('nope'), 'a.txt');
      await upload(png(12, 12), 'a.png', { fields: { colour: 'red' } });
      await upload(png(12, 12), 'a.png', { key: w.key('acme', 'reader') });
      expect([...uploadDirs()].filter((n) => !before.has(n))).to.deep.equal([]);
    });

    it("lists a brand's creatives newest first, one page at a time with limit=1", async () => {
      const ids: number[] = [];
      for (const [i, file] of [png(10, 10, [1, 1, 1]), jpeg(20, 20), mp4()].entries()) {
        const reply = await upload(file, `c${i}`, { brandId: hats });
        expect(reply.status, JSON.stringify(reply.body)).to.equal(201);
        ids.push(reply.body.id);
      }
      const seen: any[] = [];
      let cursor: string | null = null;
      do {
        const q: string = cursor ? `?limit=1&cursor=${encodeURIComponent(cursor)}` : '?limit=1';
        const reply: any = await w.request('GET', `/v1/brands/${hats}/creatives${q}`, { key });
        expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
        expect(reply.body.creatives).to.have.length(1);
        seen.push(reply.body.creatives[0]);
        cursor = reply.body.nextCursor;
      } while (cursor);
      expect(seen.map((c) => c.id)).to.deep.equal([...ids].reverse());
      expect(seen.map((c) => c.type)).to.deep.equal(['video', 'image', 'image']);
      const all = await w.request('GET', `/v1/brands/${hats}/creatives`, { key: w.key('acme', 'reader') });
      expect(all.body).to.deep.equal({ creatives: seen, nextCursor: null });
    });

    it("gets one creative by id; another brand's creative answers 404", async () => {
      const created = await upload(png(33, 44, [5, 6, 7]), 'get-me.png');
      const got = await w.request('GET', `/v1/brands/${shoes}/creatives/${created.body.id}`, { key: w.key('acme', 'reader') });
      expect(got.status).to.equal(200);
      expect(got.body).to.deep.equal(created.body);
      const elsewhere = await w.request('GET', `/v1/brands/${hats}/creatives/${created.body.id}`, { key });
      expect(elsewhere.status).to.equal(404);
      expect(elsewhere.body.error.code).to.equal('not_found');
      const missing = await w.request('GET', `/v1/brands/${shoes}/creatives/999999`, { key });
      expect(missing.status).to.equal(404);
      const otherOrg = await w.request('GET', `/v1/brands/${w.brandId('other', 'rival')}/creatives/${created.body.id}`, { key });
      expect(otherOrg.status).to.equal(404);
      const notANumber = await w.request('GET', `/v1/brands/${shoes}/creatives/seven`, { key });
      expect(notANumber.status).to.equal(400);
      expect(notANumber.body.error.details[0]).to.deep.include({ field: 'creativeId', code: 'invalid_type' });
    });

    it('refuses a read-only key with 403 insufficient_scope and a stranger with 401; nothing is stored', async () => {
      const before = await w.service.knex('creatives').count({ n: '*' }).first();
      const reader = await upload(png(10, 10, [4, 4, 4]), 'r.png', { key: w.key('acme', 'reader') });
      expect(reader.status).to.equal(403);
      expect(reader.body.error.code).to.equal('insufficient_scope');
      expect(reader.body.error.details).to.deep.equal({ requiredScope: 'write' });
      const readerJson = await w.request('POST', `/v1/brands/${shoes}/creatives`, {
        key: w.key('acme', 'reader'),
        body: { file: { fileName: 'r.png', contentBase64: png(3, 3).toString('base64') } },
      });
      expect(readerJson.status).to.equal(403);
      const stranger = await upload(png(10, 10), 'r.png', { key: null });
      expect(stranger.status).to.equal(401);
      expect(stranger.body.error.code).to.equal('unauthenticated');
      const after = await w.service.knex('creatives').count({ n: '*' }).first();
      expect(Number(after?.n)).to.equal(Number(before?.n));
    });

    it('replays an upload sent again with the same Idempotency-Key', async () => {
      const file = png(21, 21, [8, 8, 8]);
      const first = await upload(file, 'once.png', { headers: { 'idempotency-key': 'upload-once-1' } });
      const second = await upload(file, 'once.png', { headers: { 'idempotency-key': 'upload-once-1' } });
      expect(first.status).to.equal(201);
      expect(second.status).to.equal(201);
      expect(second.body).to.deep.equal(first.body);
      expect(second.headers.get('idempotent-replayed')).to.equal('true');
      const rows = await w.service
        .knex('creatives')
        .where({ sha256: sha256(file) })
        .count({ n: '*' })
        .first();
      expect(Number(rows?.n)).to.equal(1);
    });
  });
}
