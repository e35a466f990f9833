// Recognises an uploaded creative from its bytes (never its name): PNG, JPEG or MP4, with the
// size limits of each kind, the pixel size, and for a video the duration.

import fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import { validationFailed } from '../errors.js';

// image-size is loaded on the first image inspected, not at start-up.
const require = createRequire(import.meta.url);

export type CreativeType = 'image' | 'video';

export interface MediaInfo {
  type: CreativeType;
  mime: 'image/png' | 'image/jpeg' | 'video/mp4';
  /** File extension used when storing the bytes. */
  extension: 'png' | 'jpg' | 'mp4';
  width: number;
  height: number;
  /** Video length in milliseconds; null for images and for a video whose header leaves it unknown. */
  durationMs: number | null;
}

const MB = 1024 * 1024;
/** Largest image taken, however it arrives (upload, base64 or URL). */
export const IMAGE_MAX_BYTES = 8 * MB;
/** Largest video taken, however it arrives. */
export const VIDEO_MAX_BYTES = 30 * MB;
/** Largest side an image may declare, and most pixels in all; no ad platform takes more, and nothing here decodes it. */
export const IMAGE_MAX_SIDE = 16_384;
export const IMAGE_MAX_PIXELS = 100_000_000;
/** Largest side a video may declare. */
export const VIDEO_MAX_SIDE = 4_096;
/** The leading bytes of a file read to know what it is (and, for an image, its pixel size) before the rest. */
export const HEAD_BYTES = 64 * 1024;
/** Most of a video file read to find its movie header (moov box) when it is staged on disk. */
const MOOV_MAX_BYTES = 16 * MB;

const ACCEPTED_FORMATS = 'a PNG or JPEG image or an MP4 video';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
// ftyp brands of ISO base media files that are MP4 video; HEIF and AVIF images share the container.
const MP4_BRANDS = new Set([
  'isom',
  'iso2',
  'iso3',
  'iso4',
  'iso5',
  'iso6',
  'iso7',
  'iso8',
  'iso9',
  'mp41',
  'mp42',
  'mp71',
  'avc1',
  'dash',
  'M4V ',
  'M4VH',
  'M4VP',
  'f4v ',
  'msnv',
]);
const IMAGE_BRANDS = new Set(['heic', 'heix', 'heim', 'heis', 'hevc', 'hevx', 'mif1', 'msf1', 'avif', 'avis']);

type Format = 'png' | 'jpeg' | 'mp4';

function invalid(field: string, message: string) {
  return validationFailed([{ field, code: 'invalid_value', message }]);
}

function ascii(bytes: Buffer, start: number, end: number): string {
  return bytes.toString('latin1', start, end);
}

/** The format the leading bytes announce, or null when they are none of the accepted ones. */
export function detectFormat(bytes: Buffer): Format | null {
  if (bytes.length >= 8 && bytes.subarray(0, 8).equals(PNG_SIGNATURE)) return 'png';
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'jpeg';
  if (bytes.length >= 12 && ascii(bytes, 4, 8) === 'ftyp') {
    const size = bytes.readUInt32BE(0);
    const major = ascii(bytes, 8, 12);
    if (IMAGE_BRANDS.has(major)) return null;
    if (MP4_BRANDS.has(major)) return 'mp4';
    for (let at = 16; at + 4 <= Math.min(size, bytes.length); at += 4) {
      if (MP4_BRANDS.has(ascii(bytes, at, at + 4))) return 'mp4';
    }
  }
  return null;
}

const megabytes = (n: number) => `${n / MB} MB (${n} bytes)`;

/**
 * Reads what a creative is from its bytes: type, MIME type, pixel size and video duration.
 * Throws 400 `validation_failed` on `field` for anything that is not an accepted format, is too
 * large for its kind, or cannot be read.
 */
export function inspectMedia(bytes: Buffer, field = 'file'): MediaInfo {
  const format = formatWithin(bytes, bytes.length, field);
  if (format === 'mp4') {
    const video = readMp4(bytes, field);
    checkVideoSize(video.width, video.height, field);
    return { type: 'video', mime: 'video/mp4', extension: 'mp4', ...video };
  }

  const name = format === 'png' ? 'PNG' : 'JPEG';
  let size: { width?: number; height?: number; type?: string };
  try {
    size = (require('image-size') as typeof import('image-size')).imageSize(bytes);
  } catch {
    throw invalid(field, `is not a readable ${name} image: its dimensions could not be found`);
  }
  const expected = format === 'png' ? 'png' : 'jpg';
  const { width, height } = size;
  if (size.type !== expected || !isPositiveInt(width) || !isPositiveInt(height)) {
    throw invalid(field, `is not a readable ${name} image: its dimensions could not be found`);
  }
  checkImageSize(width, height, field);
  return format === 'png'
    ? { type: 'image', mime: 'image/png', extension: 'png', width, height, durationMs: null }
    : { type: 'image', mime: 'image/jpeg', extension: 'jpg', width, height, durationMs: null };
}

/** 400 on `field` for an image whose header declares more than IMAGE_MAX_SIDE a side or IMAGE_MAX_PIXELS in all. */
export function checkImageSize(width: number, height: number, field: string): void {
  if (width > IMAGE_MAX_SIDE || height > IMAGE_MAX_SIDE || width * height > IMAGE_MAX_PIXELS) {
    throw invalid(
      field,
      `declares ${width} x ${height} pixels; an image may have at most ${IMAGE_MAX_SIDE} pixels a side and ${IMAGE_MAX_PIXELS / 1_000_000} megapixels in all`,
    );
  }
}

function checkVideoSize(width: number, height: number, field: string): void {
  if (width > VIDEO_MAX_SIDE || height > VIDEO_MAX_SIDE) {
    throw invalid(field, `declares ${width} x ${height} pixels; a video may have at most ${VIDEO_MAX_SIDE} pixels a side`);
  }
}

/** The format of a file of `size` bytes from its leading bytes; 400 on `field` when it is empty, none of the accepted ones, or past its kind's cap. */
function formatWithin(head: Buffer, size: number, field: string): Format {
  if (size === 0) throw validationFailed([{ field, code: 'too_small', message: 'must not be empty' }]);
  const format = detectFormat(head);
  if (!format) throw invalid(field, `must be ${ACCEPTED_FORMATS}; the format is read from the bytes, and these bytes are none of them`);
  const limit = format === 'mp4' ? VIDEO_MAX_BYTES : IMAGE_MAX_BYTES;
  if (size > limit) {
    const kind = format === 'mp4' ? 'an MP4 video' : 'a PNG or JPEG image';
    throw validationFailed([{ field, code: 'too_big', message: `must be at most ${megabytes(limit)} for ${kind}; this file has ${size} bytes` }]);
  }
  return format;
}

/**
 * What the leading bytes of a file of `size` bytes already refuse, before the rest is read: an
 * empty file, one of no accepted format, one past its kind's cap, and an image whose header
 * (within `head`) declares more pixels than IMAGE_MAX_SIDE or IMAGE_MAX_PIXELS. 400 on `field`.
 */
export function checkHead(head: Buffer, size: number, field: string): void {
  const format = formatWithin(head, size, field);
  if (format === 'mp4') return;
  let declared: { width?: number; height?: number } | undefined;
  try {
    declared = (require('image-size') as typeof import('image-size')).imageSize(head);
  } catch {
    // The header lies past the head (or is broken): the whole file, within the image cap, says which.
  }
  if (declared && isPositiveInt(declared.width) && isPositiveInt(declared.height)) checkImageSize(declared.width, declared.height, field);
}

/** The largest file of the format its leading bytes announce (a video's, or an image's); Infinity when they announce none. */
export function capOf(head: Buffer): number {
  const format = detectFormat(head);
  return format === 'mp4' ? VIDEO_MAX_BYTES : format ? IMAGE_MAX_BYTES : Infinity;
}

/**
 * What a file of `size` bytes staged at `file` is (inspectMedia's answer), read from disk without
 * holding it whole: an image's size from its head (the rest only when its header lies further in),
 * a video's from its movie header, found by reading the top-level box headers.
 */
export async function inspectMediaFile(file: string, size: number, head: Buffer, field = 'file'): Promise<MediaInfo> {
  const format = formatWithin(head, size, field);
  if (format !== 'mp4') {
    try {
      return inspectMedia(head, field);
    } catch (err) {
      // The header lies past the head (a JPEG with large metadata first): the image itself, within its cap, says.
      if (head.length === size) throw err;
      return inspectMedia(await fs.readFile(file), field);
    }
  }
  const handle = await fs.open(file, 'r');
  try {
    const header = Buffer.alloc(16);
    for (let at = 0; at + 8 <= size;) {
      await handle.read(header, 0, 16, at);
      let boxSize = header.readUInt32BE(0);
      if (boxSize === 1) boxSize = Number(header.readBigUInt64BE(8));
      else if (boxSize === 0) boxSize = size - at;
      if (boxSize < 8 || at + boxSize > size) throw invalid(field, `is not a readable MP4 video: box "${header.toString('latin1', 4, 8)}" is cut short`);
      if (header.toString('latin1', 4, 8) === 'moov') {
        if (boxSize > MOOV_MAX_BYTES) throw invalid(field, `is not a readable MP4 video: its movie header (moov box) is over ${MOOV_MAX_BYTES / MB} MB`);
        const moov = Buffer.alloc(boxSize);
        await handle.read(moov, 0, boxSize, at);
        const video = readMp4(moov, field);
        checkVideoSize(video.width, video.height, field);
        return { type: 'video', mime: 'video/mp4', extension: 'mp4', ...video };
      }
      at += boxSize;
    }
    throw invalid(field, 'is not a readable MP4 video: it has no movie header (moov box)');
  } finally {
    await handle.close();
  }
}

function isPositiveInt(n: unknown): n is number {
  return typeof n === 'number' && Number.isInteger(n) && n > 0;
}

interface Box {
  type: string;
  /** First byte of the box content (after its header). */
  start: number;
  end: number;
}

class Mp4Error extends Error {}

/** The boxes directly inside [start, end); a box running past its parent is an error. */
function* boxesIn(bytes: Buffer, start: number, end: number): Generator<Box> {
  let at = start;
  while (at + 8 <= end) {
    let size = bytes.readUInt32BE(at);
    const type = ascii(bytes, at + 4, at + 8);
    let header = 8;
    if (size === 1) {
      if (at + 16 > end) throw new Mp4Error(`box "${type}" is cut short`);
      size = Number(bytes.readBigUInt64BE(at + 8));
      header = 16;
    } else if (size === 0) {
      size = end - at; // the last box runs to the end of its parent
    }
    if (size < header || at + size > end) throw new Mp4Error(`box "${type}" is cut short`);
    yield { type, start: at + header, end: at + size };
    at += size;
  }
}

function child(bytes: Buffer, parent: Box, type: string): Box | undefined {
  for (const box of boxesIn(bytes, parent.start, parent.end)) if (box.type === type) return box;
  return undefined;
}

function need(box: Box | undefined, length: number, what: string): Box {
  if (!box) throw new Mp4Error(`it has no ${what}`);
  if (box.end - box.start < length) throw new Mp4Error(`its ${what} is cut short`);
  return box;
}

/** Frame size of a video track: tkhd width/height (16.16 fixed point), else its first sample entry. */
function frameSize(bytes: Buffer, trak: Box, mdia: Box): { width: number; height: number } {
  const tkhd = need(child(bytes, trak, 'tkhd'), 84, 'track header (tkhd)');
  const at = tkhd.start + (bytes[tkhd.start] === 1 ? 88 : 76);
  if (at + 8 > tkhd.end) throw new Mp4Error('its track header (tkhd) is cut short');
  let width = Math.round(bytes.readUInt32BE(at) / 65536);
  let height = Math.round(bytes.readUInt32BE(at + 4) / 65536);
  if (width > 0 && height > 0) return { width, height };
  const minf = child(bytes, mdia, 'minf');
  const stbl = minf && child(bytes, minf, 'stbl');
  const stsd = stbl && child(bytes, stbl, 'stsd');
  // stsd: version/flags, entry count, then a visual sample entry whose width/height sit 24 bytes in.
  const entry = stsd && stsd.end - stsd.start >= 8 ? boxesIn(bytes, stsd.start + 8, stsd.end).next().value : undefined;
  if (entry && entry.end - entry.start >= 28) {
    width = bytes.readUInt16BE(entry.start + 24);
    height = bytes.readUInt16BE(entry.start + 26);
  }
  if (width > 0 && height > 0) return { width, height };
  throw new Mp4Error('its video track gives no frame size');
}

function readMp4(bytes: Buffer, field: string): { width: number; height: number; durationMs: number | null } {
  try {
    let moov: Box | undefined;
    for (const box of boxesIn(bytes, 0, bytes.length)) {
      if (box.type === 'moov') {
        moov = box;
        break;
      }
    }
    if (!moov) throw new Mp4Error('it has no movie header (moov box)');
    const mvhd = need(child(bytes, moov, 'mvhd'), 20, 'movie header (mvhd)');
    const v1 = bytes[mvhd.start] === 1;
    if (v1 && mvhd.end - mvhd.start < 32) throw new Mp4Error('its movie header (mvhd) is cut short');
    const timescale = bytes.readUInt32BE(mvhd.start + (v1 ? 20 : 12));
    const duration = v1 ? bytes.readBigUInt64BE(mvhd.start + 24) : BigInt(bytes.readUInt32BE(mvhd.start + 16));
    const unknown = duration === (v1 ? 0xffffffffffffffffn : 0xffffffffn);
    if (timescale === 0) throw new Mp4Error('its movie header (mvhd) has a time scale of 0');
    const durationMs = unknown ? null : Math.round((Number(duration) * 1000) / timescale);

    for (const trak of boxesIn(bytes, moov.start, moov.end)) {
      if (trak.type !== 'trak') continue;
      const mdia = child(bytes, trak, 'mdia');
      const hdlr = mdia && child(bytes, mdia, 'hdlr');
      if (!mdia || !hdlr || hdlr.end - hdlr.start < 12 || ascii(bytes, hdlr.start + 8, hdlr.start + 12) !== 'vide') continue;
      return { ...frameSize(bytes, trak, mdia), durationMs };
    }
    throw new Mp4Error('it has no video track');
  } catch (err) {
    if (err instanceof Mp4Error) throw invalid(field, `is not a readable MP4 video: ${err.message}`);
    throw err;
  }
}
