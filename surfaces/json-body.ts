// A JSON request body is UTF-8 text (RFC 8259): a Content-Type charset other than utf-8, or bytes
// that are not UTF-8, answer 400 validation_failed instead of being turned into U+FFFD; a leading
// byte-order mark is dropped. Shared by the REST body parser and the MCP endpoint's. Every body is
// read through Content-Encoding here, JSON or not (a multipart upload, the workflow hook's payload),
// within its limit after decoding.

import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { PassThrough, type Readable } from 'node:stream';
import zlib from 'node:zlib';
import { ServiceError } from '../src/errors.js';

/** How long the rest of a body over the limit is read and dropped before the connection is closed. */
const DISCARD_MS = 5_000;

// fatal: bad bytes throw; ignoreBOM false: a leading BOM is consumed, not kept.
const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/** The charset a Content-Type names, lowercased, or undefined when it names none. */
function charsetOf(contentType: string | undefined): string | undefined {
  const m = /;\s*charset\s*=\s*("?)([^";\s]*)\1/i.exec(contentType ?? '');
  return m ? m[2].toLowerCase() : undefined;
}

/** The 400 for a Content-Type whose charset is not UTF-8, or null. */
export function charsetProblem(contentType: string | undefined): ServiceError | null {
  const charset = charsetOf(contentType);
  if (charset === undefined || charset === 'utf-8' || charset === 'utf8') return null;
  return new ServiceError('validation_failed', `A JSON body is UTF-8: send "Content-Type: application/json" (or charset=utf-8), not charset=${charset}.`, [
    { field: 'Content-Type', code: 'invalid_value', message: `must not name charset ${charset}; JSON is UTF-8` },
  ]);
}

/** The text of a JSON body's bytes (a leading BOM dropped); throws 400 validation_failed when they are not UTF-8. */
export function jsonTextOf(bytes: Uint8Array): string {
  try {
    return decoder.decode(bytes);
  } catch {
    throw new ServiceError('validation_failed', 'The request body is not valid UTF-8. Send JSON encoded as UTF-8.', [
      { field: 'body', code: 'invalid_value', message: 'must be UTF-8 encoded' },
    ]);
  }
}

/** The JSON text of a body sent with `contentType`: its charset, then its bytes, checked as above. */
export function requestJsonText(contentType: string | undefined, bytes: Uint8Array): string {
  const wrongCharset = charsetProblem(contentType);
  if (wrongCharset) throw wrongCharset;
  return jsonTextOf(bytes);
}

const undecodable = (encoding: string) =>
  new ServiceError('validation_failed', `The request body is not valid ${encoding} data. Send it as Content-Encoding says, or without one.`, [
    { field: 'Content-Encoding', code: 'invalid_value', message: `the body is not valid ${encoding}` },
  ]);

/** The stream of the body's bytes as sent before Content-Encoding (gzip, deflate, br or none); throws 400 for another encoding. */
function decoded(req: IncomingMessage): Readable {
  const encoding = String(req.headers['content-encoding'] ?? 'identity').toLowerCase();
  if (encoding === 'identity') return req;
  if (encoding === 'gzip' || encoding === 'x-gzip') return req.pipe(zlib.createGunzip());
  if (encoding === 'deflate') return req.pipe(zlib.createInflate());
  if (encoding === 'br') return req.pipe(zlib.createBrotliDecompress());
  throw new ServiceError('validation_failed', `Content-Encoding ${encoding} is not supported; send gzip, deflate, br or none.`, [
    { field: 'Content-Encoding', code: 'invalid_value', message: 'must be gzip, deflate, br or identity' },
  ]);
}

/** Reads the rest of a refused body and drops it (so the answer reaches the caller), for DISCARD_MS at most. */
function discardRest(req: IncomingMessage): void {
  req.unpipe();
  req.resume();
  const stop = setTimeout(() => req.socket.destroy(), DISCARD_MS).unref();
  req.once('end', () => clearTimeout(stop));
  req.once('close', () => clearTimeout(stop));
}

const brokeOff = () =>
  new ServiceError('validation_failed', 'The request body broke off before it was complete.', [
    { field: 'body', code: 'invalid_value', message: 'is incomplete' },
  ]);

/**
 * Reads a request's body, decoded as its Content-Encoding says, up to `limit` bytes; past it
 * rejects with `tooLarge()` and reads the rest to drop it (so the answer reaches the caller),
 * for DISCARD_MS at most. A body that breaks off is a 400.
 */
export function readBodyBytes(req: IncomingMessage, limit: number, tooLarge: () => Error): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    let source: Readable;
    try {
      source = decoded(req);
    } catch (err) {
      reject(err);
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (err: Error | null) => {
      if (settled) return;
      settled = true;
      source.off('data', onData);
      if (!err) return resolve(Buffer.concat(chunks, size));
      discardRest(req);
      reject(err);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) settle(tooLarge());
      else chunks.push(chunk);
    };
    source.on('data', onData);
    source.once('end', () => settle(null));
    if (source !== req) source.once('error', () => settle(undecodable(String(req.headers['content-encoding']))));
    req.once('error', () => settle(brokeOff()));
  });
}

/** A request body decoded from its Content-Encoding, as a streaming parser reads a request: the bytes, and headers that describe them. */
export type DecodedRequest = PassThrough & { headers: IncomingHttpHeaders };

/**
 * A content-encoded request's body, decoded as it arrives, for a parser that reads a request as a
 * stream (multipart/form-data): its headers are the request's without Content-Encoding and
 * Content-Length (the decoded length is not known), and its bytes count against `limit` after
 * decoding (past it: `tooLarge()`, as readBodyBytes). Bytes that do not decode are a 400; a client
 * that goes away aborts it; destroying it stops the decoding and drops the rest of the body. Throws
 * 400 for an encoding the service does not know.
 */
export function decodedRequest(req: IncomingMessage, limit: number, tooLarge: () => Error): DecodedRequest {
  const source = decoded(req);
  const { 'content-encoding': _encoding, 'content-length': _length, ...headers } = req.headers;
  const out = Object.assign(new PassThrough(), { headers: { ...headers, 'transfer-encoding': 'chunked' } });
  let size = 0;
  const onData = (chunk: Buffer) => {
    size += chunk.length;
    if (size > limit) out.destroy(tooLarge());
    else if (!out.write(chunk)) source.pause();
  };
  out.on('drain', () => source.resume());
  source.on('data', onData);
  source.once('end', () => out.end());
  source.once('error', () => out.destroy(undecodable(String(req.headers['content-encoding']))));
  req.once('aborted', () => out.emit('aborted'));
  req.once('error', () => out.destroy(brokeOff()));
  // However it ends early (its limit, bad bytes, the parser giving up), nothing more is decoded.
  out.once('close', () => {
    source.off('data', onData);
    if (!req.readableEnded) {
      if (source !== req) source.destroy();
      discardRest(req);
    }
  });
  return out;
}
