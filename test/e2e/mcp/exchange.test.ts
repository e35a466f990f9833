// The MCP endpoint's JSON-RPC exchange seen as raw HTTP: a tools/call answer (written from its
// serialised-once result) carries the caller's id and a text equal to structuredContent; batches
// answer in order; error results and notifications take the general path.

import http from 'node:http';
import { expect } from 'chai';
import { asToolAnswer, toolError } from '../../helpers/mcp.js';
import { dialects } from '../../helpers/databases.js';
import { startWorld, type World } from '../../helpers/world.js';

for (const dialect of dialects()) {
  describe(`MCP JSON-RPC exchange over raw HTTP (${dialect})`, function () {
    this.timeout(30_000);
    let w: World;
    before(async () => {
      w = await startWorld({ dialect });
    });
    after(async () => w?.close());

    const post = async (body: unknown, key = w.key('acme', 'ci')) => {
      const res = await fetch(`${w.url}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${key}`,
          'mcp-protocol-version': '2025-06-18',
        },
        body: JSON.stringify(body),
      });
      const text = await res.text();
      return {
        status: res.status,
        contentType: res.headers.get('content-type'),
        requestId: res.headers.get('service-request-id'),
        body: text ? JSON.parse(text) : null,
      };
    };
    const call = (id: string | number, name: string, args: Record<string, unknown> = {}) => ({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name, arguments: args },
    });

    it('answers a tools/call with the caller id and a text that is the JSON of structuredContent, the same on every call', async () => {
      const rest = await w.request('GET', '/v1/brands', { key: w.key('acme', 'ci') });
      for (const id of [7, 'abc-1', 7]) {
        const answer = await post(call(id, 'list_brands'));
        expect(answer.status).to.equal(200);
        expect(answer.contentType).to.match(/^application\/json/);
        expect(answer.body).to.have.all.keys('jsonrpc', 'id', 'result');
        expect(answer.body.jsonrpc).to.equal('2.0');
        expect(answer.body.id).to.equal(id);
        expect(answer.body.result.structuredContent).to.deep.equal(asToolAnswer(rest.body));
        expect(answer.body.result.content).to.deep.equal([{ type: 'text', text: JSON.stringify(asToolAnswer(rest.body)) }]);
        expect(answer.body.result).to.not.have.property('isError');
      }
    });

    it('answers a batch in order, each with its own id, mixing tool results, a tool error and tools/list', async () => {
      const answers = await post([
        call(1, 'list_brands'),
        call('two', 'list_activity', { brandId: w.brandId('other', 'rival') }),
        { jsonrpc: '2.0', id: 3, method: 'tools/list', params: {} },
      ]);
      expect(answers.status).to.equal(200);
      expect(answers.body).to.be.an('array').with.length(3);
      expect(answers.body.map((a: any) => a.id)).to.deep.equal([1, 'two', 3]);
      expect(answers.body[0].result.structuredContent.accounts).to.have.length(3);
      expect(answers.body[1].result.isError).to.equal(true);
      expect(toolError(answers.body[1].result).code).to.equal('not_found');
      expect(answers.body[2].result.tools.map((t: any) => t.name)).to.include('list_brands');
    });

    it('answers a single tool error through the general path, with the envelope in the text', async () => {
      const answer = await post(call(9, 'list_activity', { brandId: w.brandId('other', 'rival') }));
      expect(answer.status).to.equal(200);
      expect(answer.body.id).to.equal(9);
      expect(answer.body.result.isError).to.equal(true);
      expect(answer.body.result).to.not.have.property('structuredContent');
      expect(toolError(answer.body.result)).to.deep.include({ code: 'not_found', requestId: answer.requestId });
    });

    it('answers a body streaming past 5 MB with 413 while it is still being sent', async () => {
      const TOTAL = 40 * 1024 * 1024;
      const chunk = Buffer.alloc(1024 * 1024, ' ');
      const url = new URL(`${w.url}/mcp`);
      const outcome = await new Promise<{ status: number; body: any; writtenAtAnswer: number }>((resolve, reject) => {
        let written = 0;
        let answered = false;
        const req = http.request({
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${w.key('acme', 'ci')}` },
        });
        req.on('response', (res) => {
          answered = true;
          const writtenAtAnswer = written;
          let text = '';
          res.on('data', (d) => (text += d));
          res.on('end', () => {
            req.destroy();
            resolve({ status: res.statusCode!, body: JSON.parse(text), writtenAtAnswer });
          });
        });
        req.on('error', (err) => (answered ? undefined : reject(err)));
        const pump = () => {
          while (!answered && written < TOTAL) {
            written += chunk.length;
            if (!req.write(chunk)) return void req.once('drain', pump);
          }
          if (!answered) req.end();
        };
        pump();
      });
      expect(outcome.status).to.equal(413);
      expect(outcome.body.error.code).to.equal(-32700);
      expect(outcome.body.error.message).to.match(/5 MB/);
      expect(outcome.writtenAtAnswer).to.be.below(TOTAL);
    });

    if (dialect === 'sqlite') {
      it('closes the connection of a caller that keeps sending past 5 MB after the 413, within about 5 seconds', async function () {
        this.timeout(20_000);
        const chunk = Buffer.alloc(256 * 1024, ' ');
        const url = new URL(`${w.url}/mcp`);
        const outcome = await new Promise<{ status: number; answeredAt: number; closedAt: number }>((resolve) => {
          let status = 0;
          let answeredAt = 0;
          let timer: NodeJS.Timeout | undefined;
          const req = http.request({
            host: url.hostname,
            port: url.port,
            path: url.pathname,
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization: `Bearer ${w.key('acme', 'ci')}` },
          });
          req.on('response', (res) => {
            status = res.statusCode!;
            answeredAt = Date.now();
            res.resume();
          });
          const closed = () => {
            clearTimeout(timer);
            resolve({ status, answeredAt, closedAt: Date.now() });
          };
          req.on('error', closed);
          req.on('close', closed);
          // Never ends the body: 256 KB every 20 ms, as long as the server reads.
          const pump = () => {
            if (req.destroyed) return;
            if (req.write(chunk)) timer = setTimeout(pump, 20);
            else req.once('drain', pump);
          };
          pump();
        });
        expect(outcome.status).to.equal(413);
        expect(outcome.closedAt - outcome.answeredAt).to.be.within(4_000, 8_000);
      });
    }

    it('answers a lone notification with 202 and no body, and a body that is not JSON-RPC with 400', async () => {
      const note = await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
      expect(note.status).to.equal(202);
      expect(note.body).to.equal(null);
      const bad = await post({ hello: 'world' });
      expect(bad.status).to.equal(400);
      expect(bad.body.error.code).to.equal(-32600);
    });
  });
}
