// Requests that stall or break HTTP, sent as raw bytes over a socket to a real listening server with
// a short REQUEST_TIMEOUT_MS: stalled headers, a stalled body, both framing headers, a bad chunk
// size, a body cut short at end of stream and 100 KB of headers are each answered with the error
// envelope and a Service-Request-Id, and the server closes the connection itself.

import net from 'node:net';
import { expect } from 'chai';
import { startWorld, type World } from '../../helpers/world.js';

const TIMEOUT_MS = 800;

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: any;
}

/** Sends `bytes` (then half-closes when `end`), and reads until the server closes the connection. */
function raw(url: string, bytes: string, end = false): Promise<RawAnswer> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', reject);
    // Only the server can end this wait: the socket closes when it closes the connection.
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head, ...rest] = text.split('\r\n\r\n');
      const [statusLine, ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      try {
        resolve({ status: Number(statusLine.split(' ')[1]), headers, body: JSON.parse(rest.join('\r\n\r\n')) });
      } catch (err) {
        reject(new Error(`not an envelope answer: ${JSON.stringify(text)} (${(err as Error).message})`));
      }
    });
    socket.write(bytes, () => end && socket.end());
  });
}

describe('requests that stall or break HTTP, over a raw socket', function () {
  this.timeout(20_000);
  let w: World;
  let launches: string;
  let auth: string;

  before(async () => {
    w = await startWorld({ dialect: 'sqlite', env: { REQUEST_TIMEOUT_MS: String(TIMEOUT_MS), JOBS: 'off' } });
    launches = `/v1/brands/${w.brandId('acme', 'shoes')}/launches`;
    auth = `Authorization: Bearer ${w.key('acme', 'ci')}\r\n`;
  });
  after(async () => {
    await w?.close();
  });

  const post = (headers: string) => `POST ${launches} HTTP/1.1\r\nHost: 127.0.0.1\r\n${auth}Content-Type: application/json\r\n${headers}\r\n`;

  function expectEnvelope(a: RawAnswer, status: number, code: string): void {
    expect(a.status, JSON.stringify(a)).to.equal(status);
    expect(a.headers['content-type']).to.match(/^application\/json/);
    expect(a.headers['service-request-id']).to.match(/^req_[0-9a-f]{32}$/);
    expect(a.headers.connection).to.equal('close');
    expect(a.body.error).to.include({ code, requestId: a.headers['service-request-id'] });
    expect(a.body.error.message).to.be.a('string').and.not.equal('');
  }

  it('answers 408 request_timeout when the headers stall, and closes the connection', async () => {
    const a = await raw(w.url, `POST ${launches} HTTP/1.1\r\nHost: 127.0.0.1\r\n${auth}`);
    expectEnvelope(a, 408, 'request_timeout');
    expect(a.body.error.message).to.contain(`within ${TIMEOUT_MS} ms of its first byte (REQUEST_TIMEOUT_MS)`);
  });

  it('answers 408 request_timeout when the body stalls short of its Content-Length, and closes the connection', async () => {
    const a = await raw(w.url, `${post('Content-Length: 100\r\n')}{"title":`);
    expectEnvelope(a, 408, 'request_timeout');
    expect(a.body.error.details).to.deep.equal({ timeoutMs: TIMEOUT_MS });
  });

  it('answers 400 validation_failed to both Content-Length and Transfer-Encoding', async () => {
    const a = await raw(w.url, `${post('Content-Length: 5\r\nTransfer-Encoding: chunked\r\n')}0\r\n\r\n`);
    expectEnvelope(a, 400, 'validation_failed');
    expect(a.body.error.message).to.contain('both Content-Length and Transfer-Encoding');
  });

  it('answers 400 validation_failed to a chunk size that is not hexadecimal', async () => {
    const a = await raw(w.url, `${post('Transfer-Encoding: chunked\r\n')}zz\r\n{"title":"x"}\r\n0\r\n\r\n`);
    expectEnvelope(a, 400, 'validation_failed');
    expect(a.body.error.details).to.deep.equal([
      { field: 'body', code: 'invalid_value', message: 'a chunk size of the chunked body is not a hexadecimal number' },
    ]);
  });

  it('answers 400 validation_failed to a body cut short of its Content-Length at end of stream', async () => {
    const a = await raw(w.url, `${post('Content-Length: 100\r\n')}{"title":`, true);
    expectEnvelope(a, 400, 'validation_failed');
    expect(a.body.error.message).to.contain('fewer bytes than its Content-Length');
  });

  it('answers 431 validation_failed naming the limit to 100 KB of headers', async () => {
    const a = await raw(w.url, post(`X-Padding: ${'a'.repeat(100 * 1024)}\r\nContent-Length: 0\r\n`));
    expectEnvelope(a, 431, 'validation_failed');
    expect(a.body.error.message).to.match(/larger than the \d+-byte limit/);
  });

  it('answers 400 validation_failed naming the duplicate to two Content-Length headers (issue 43)', async () => {
    const a = await raw(w.url, `${post('Content-Length: 2\r\nContent-Length: 2\r\n')}{}`);
    expectEnvelope(a, 400, 'validation_failed');
    expect(a.body.error.message).to.contain('more than one Content-Length');
    expect(a.body.error.message).to.not.contain('Transfer-Encoding');
  });

  it('answers 417 with the envelope to an Expect it does not meet (issue 43)', async () => {
    const a = await raw(w.url, `${post('Expect: 999-bogus\r\nContent-Length: 2\r\n')}{}`);
    expectEnvelope(a, 417, 'validation_failed');
    expect(a.body.error.details).to.deep.equal([{ field: 'Expect', code: 'invalid_value', message: 'must be 100-continue or absent' }]);
  });

  it('answers 400 with the envelope to CONNECT, and closes the connection (issue 43)', async () => {
    const a = await raw(w.url, 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n');
    expectEnvelope(a, 400, 'validation_failed');
    expect(a.body.error.message).to.contain('CONNECT is not served here');
  });

  it('still answers a whole request sent promptly (the deadline is for arrival only)', async () => {
    const r = await w.request('POST', launches, { key: w.key('acme', 'ci'), body: { title: 'On time' } });
    expect(r.status, JSON.stringify(r.body)).to.equal(201);
  });
});
