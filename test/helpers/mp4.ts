// Builds small real MP4 files (ftyp, moov with mvhd and one video track, mdat) for upload tests.

import crypto from 'node:crypto';

/** One MP4 box: its size, its four-letter type, its payload. */
export function box(type: string, ...payload: Buffer[]): Buffer {
  const body = Buffer.concat(payload);
  const header = Buffer.alloc(8);
  header.writeUInt32BE(8 + body.length);
  header.write(type, 4, 'latin1');
  return Buffer.concat([header, body]);
}

/** Big-endian 32-bit words. */
export function u32(...values: number[]): Buffer {
  const b = Buffer.alloc(4 * values.length);
  values.forEach((v, i) => b.writeUInt32BE(v, i * 4));
  return b;
}

/** The identity transformation matrix of mvhd and tkhd. */
export const MATRIX = u32(0x10000, 0, 0, 0, 0x10000, 0, 0, 0, 0x40000000);

/** A `width`x`height` H.264-labelled MP4 of `durationMs` (the media data is random bytes). */
export function makeMp4(width: number, height: number, durationMs: number): Buffer {
  const mvhd = box('mvhd', Buffer.alloc(4), u32(0, 0, 1000, durationMs), u32(0x10000), Buffer.from([1, 0]), Buffer.alloc(10), MATRIX, Buffer.alloc(24), u32(2));
  const tkhd = box('tkhd', Buffer.from([0, 0, 0, 7]), u32(0, 0, 1, 0, 0), Buffer.alloc(8), Buffer.alloc(8), MATRIX, u32(width * 65536, height * 65536));
  const hdlr = box('hdlr', Buffer.alloc(4), Buffer.alloc(4), Buffer.from('vide', 'latin1'), Buffer.alloc(12), Buffer.from('handler\0', 'latin1'));
  const mdhd = box('mdhd', Buffer.alloc(4), u32(0, 0, 1000, durationMs), Buffer.from([0x55, 0xc4, 0, 0]));
  const entry = box(
    'avc1',
    Buffer.concat([
      Buffer.alloc(6),
      Buffer.from([0, 1]),
      Buffer.alloc(16),
      Buffer.from([width >> 8, width & 0xff, height >> 8, height & 0xff]),
      Buffer.alloc(50),
    ]),
  );
  const trak = box('trak', tkhd, box('mdia', mdhd, hdlr, box('minf', box('stbl', box('stsd', Buffer.alloc(4), u32(1), entry)))));
  const ftyp = box('ftyp', Buffer.from('isom', 'latin1'), u32(0x200), ...['isom', 'iso2', 'avc1', 'mp41'].map((b) => Buffer.from(b, 'latin1')));
  return Buffer.concat([ftyp, box('moov', mvhd, trak), box('mdat', crypto.randomBytes(512))]);
}
