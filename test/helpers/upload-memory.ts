// Memory of a spawned svc-server while it takes accepted uploads, read from outside the process
// (/proc/<pid>/status, VmRSS): shared by test/integration/upload-memory.test.ts and bench/upload-memory.ts.

import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import zlib from 'node:zlib';
import { makePng } from './png.js';

export const MB = 1024 * 1024;

/** The resident set of `pid` in bytes (Linux /proc), or null where there is none. */
export function rssOf(pid: number): number | null {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : null;
  } catch {
    return null;
  }
}

/** Runs `work` while sampling the resident set of `pid` every 10 ms; answers the highest seen. */
export async function peakDuring(pid: number, work: () => Promise<unknown>): Promise<number> {
  let peak = rssOf(pid) ?? 0;
  const timer = setInterval(() => (peak = Math.max(peak, rssOf(pid) ?? 0)), 10);
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  return Math.max(peak, rssOf(pid) ?? 0);
}

function pngChunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(zlib.crc32(body));
  return Buffer.concat([len, body, crc]);
}

/**
 * A valid PNG of exactly `bytes` bytes: a small image with a private ancillary chunk of random
 * bytes before IEND (decoders skip it), so every file is distinct and none compresses.
 */
export function paddedPng(bytes: number): Buffer {
  const png = makePng(64, 64);
  const iend = png.subarray(png.length - 12);
  const padding = bytes - png.length - 12;
  if (padding < 0) throw new Error(`a PNG cannot be ${bytes} bytes`);
  return Buffer.concat([png.subarray(0, png.length - 12), pngChunk('svCp', crypto.randomBytes(padding)), iend]);
}

/** One multipart upload of `file` (with its Content-Length); answers the status and the answer's JSON. */
export function uploadFile(url: string, brandId: number, key: string, file: Buffer, fileName = 'big.png'): Promise<{ status: number; body: any }> {
  const boundary = `svc-upload-${crypto.randomBytes(8).toString('hex')}`;
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${fileName}"\r\nContent-Type: image/png\r\n\r\n`, 'utf8');
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`, 'utf8');
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: hostname,
        port,
        method: 'POST',
        path: `/v1/brands/${brandId}/creatives`,
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': `multipart/form-data; boundary=${boundary}`,
          'content-length': head.length + file.length + tail.length,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let body: unknown = text;
          try {
            body = JSON.parse(text);
          } catch {
            // Not JSON: the text itself says what happened.
          }
          resolve({ status: res.statusCode ?? 0, body });
        });
      },
    );
    req.on('error', reject);
    req.write(head);
    req.write(file);
    req.end(tail);
  });
}

export interface AcceptedUploadMemory {
  /** Resident set before the uploads (after the warm-up uploads). */
  before: number;
  /** The highest resident set seen while they ran. */
  peak: number;
  /** What the uploads added: peak - before. */
  added: number;
  /** Bytes uploaded in all. */
  total: number;
  statuses: number[];
}

/**
 * Uploads `count` distinct PNG files of `bytes` bytes each at once to a running server `pid`,
 * after as many uploads of a megabyte at once (the code paths compiled), and answers what they added
 * to its resident set.
 */
export async function acceptedUploadMemory(
  server: { url: string; pid: number },
  key: string,
  brandId: number,
  options: { count: number; bytes: number },
): Promise<AcceptedUploadMemory> {
  // Warm: the parser, the insert and the concurrent path compiled and their buffers made once, by as many uploads at once of a megabyte each.
  const warm = await Promise.all(Array.from({ length: options.count }, () => uploadFile(server.url, brandId, key, paddedPng(MB))));
  if (warm.some((w) => w.status !== 201)) throw new Error(`a warm-up upload answered ${warm.map((w) => w.status).join(', ')}`);
  const files = Array.from({ length: options.count }, () => paddedPng(options.bytes));
  // Let the warm-up's garbage go before the baseline is read.
  await new Promise((resolve) => setTimeout(resolve, 500));
  const before = rssOf(server.pid) ?? 0;
  const statuses: number[] = [];
  const peak = await peakDuring(server.pid, async () => {
    const answers = await Promise.all(files.map((f) => uploadFile(server.url, brandId, key, f)));
    statuses.push(...answers.map((a) => a.status));
  });
  return { before, peak, added: peak - before, total: options.count * options.bytes, statuses };
}
