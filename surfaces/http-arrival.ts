// How the HTTP server treats a request that does not arrive properly: Node's own deadlines follow
// REQUEST_TIMEOUT_MS from the first byte, and every request Node refuses before a handler sees it
// (too slow, malformed framing, oversized headers) is answered with the error envelope and a
// Service-Request-Id, then its connection is closed.

import crypto from 'node:crypto';
import http from 'node:http';
import type { Duplex } from 'node:stream';
import { envelopeOf, httpStatusOf, ServiceError } from '../src/errors.js';

/**
 * Node's arrival deadlines: the headers, and the whole request, within `requestTimeoutMs` of its
 * first byte. Node checks them on an interval, kept short enough that the answer comes soon after.
 */
export function arrivalOptions(requestTimeoutMs: number): Pick<http.ServerOptions, 'requestTimeout' | 'headersTimeout' | 'connectionsCheckingInterval'> {
  return {
    requestTimeout: requestTimeoutMs,
    headersTimeout: requestTimeoutMs,
    connectionsCheckingInterval: Math.min(1_000, Math.max(25, Math.floor(requestTimeoutMs / 10))),
  };
}

/** The contract's error for what Node's parser or deadline refused (by Node's error code, and its reason where one code covers several). */
export function clientErrorOf(code: string | undefined, requestTimeoutMs: number, reason?: string): ServiceError {
  const malformed = (field: string, message: string) =>
    new ServiceError('validation_failed', `Malformed HTTP request: ${message}.`, [{ field, code: 'invalid_value', message }]);
  switch (code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new ServiceError(
        'request_timeout',
        `The request did not arrive in full within ${requestTimeoutMs} ms of its first byte (REQUEST_TIMEOUT_MS); send the headers and the whole body without pausing.`,
        { timeoutMs: requestTimeoutMs },
      );
    case 'HPE_HEADER_OVERFLOW':
      return new ServiceError('validation_failed', `The request headers are larger than the ${http.maxHeaderSize}-byte limit; send fewer or smaller headers.`, [
        { field: 'headers', code: 'too_large', message: `must total at most ${http.maxHeaderSize} bytes` },
      ]);
    case 'HPE_UNEXPECTED_CONTENT_LENGTH':
      return /duplicate/i.test(reason ?? '')
        ? malformed('headers', 'it has more than one Content-Length; send exactly one')
        : malformed('headers', 'it has both Content-Length and Transfer-Encoding; send only one');
    case 'HPE_INVALID_TRANSFER_ENCODING':
      return malformed(
        'headers',
        'its Transfer-Encoding cannot be used (it comes with both Content-Length and Transfer-Encoding, or does not end in chunked); send only one of them',
      );
    case 'HPE_INVALID_CHUNK_SIZE':
      return malformed('body', 'a chunk size of the chunked body is not a hexadecimal number');
    case 'HPE_INVALID_EOF_STATE':
      return malformed('body', 'the connection ended before the body was complete (fewer bytes than its Content-Length)');
    default:
      return malformed('request', `it could not be parsed (${code ?? 'unknown error'})`);
  }
}

/** What a status answers when Node's 431 is meant: the contract keeps the code validation_failed. */
const statusOf = (code: string | undefined, err: ServiceError) => (code === 'HPE_HEADER_OVERFLOW' ? 431 : httpStatusOf[err.code]);

/**
 * The server's `clientError` listener: answers with the envelope when nothing of a response was
 * written on the connection yet, then closes it; a reset connection just goes.
 */
export function answerClientError(requestTimeoutMs: number): (err: NodeJS.ErrnoException, socket: Duplex) => void {
  return (err, socket) => {
    // Node's own listener makes the same check: a response already under way must not be corrupted.
    const inFlight = (socket as Duplex & { _httpMessage?: http.ServerResponse | null })._httpMessage;
    if (err.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    const requestId = `req_${crypto.randomUUID().replace(/-/g, '')}`;
    const error = clientErrorOf(err.code, requestTimeoutMs, (err as { reason?: string }).reason);
    answerRaw(socket, statusOf(err.code, error), error, requestId);
  };
}

/** Writes the envelope of `error` with `status` straight to the socket and closes the connection. */
function answerRaw(socket: Duplex, status: number, error: ServiceError, requestId = `req_${crypto.randomUUID().replace(/-/g, '')}`): void {
  const body = JSON.stringify(envelopeOf(error, requestId));
  const head = [
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    `Service-Request-Id: ${requestId}`,
    'Connection: close',
  ].join('\r\n');
  socket.end(`${head}\r\n\r\n${body}`, () => socket.destroy());
  // A peer that reads nothing cannot hold the connection open either.
  setTimeout(() => socket.destroy(), 1_000).unref();
}

/** The server's `connect` listener: CONNECT is not served here (400 with the envelope, then the connection closes). */
export function answerConnect(req: http.IncomingMessage, socket: Duplex): void {
  answerRaw(
    socket,
    400,
    new ServiceError('validation_failed', 'CONNECT is not served here: this is an API, not a proxy.', [
      { field: 'method', code: 'invalid_value', message: 'must not be CONNECT' },
    ]),
  );
}

/** The server's `checkExpectation` listener: an Expect other than 100-continue is not met (417 with the envelope). */
export function answerExpectation(req: http.IncomingMessage, res: http.ServerResponse): void {
  const requestId = `req_${crypto.randomUUID().replace(/-/g, '')}`;
  const expect = String(req.headers.expect ?? '').slice(0, 100);
  const body = JSON.stringify(
    envelopeOf(
      new ServiceError('validation_failed', `Expect: ${expect} cannot be met; send the request without it (only 100-continue is understood).`, [
        { field: 'Expect', code: 'invalid_value', message: 'must be 100-continue or absent' },
      ]),
      requestId,
    ),
  );
  res.writeHead(417, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'service-request-id': requestId,
    connection: 'close',
  });
  res.end(body);
  // The body it may have sent is not read.
  req.resume();
}
