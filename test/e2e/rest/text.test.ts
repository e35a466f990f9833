// Text is text, on REST and on an MCP tool argument, against a real listening server: a NUL
// character or a lone surrogate in any string field answers 400 validation_failed (detail code
// invalid_value, the field's path) with nothing stored; bytes that are not UTF-8 and a charset other
// than utf-8 are refused before any parsing; a leading byte-order mark is accepted.

import { expect } from 'chai';
import { dialects } from '../../helpers/databases.js';
import { mcpClient, toolError, type ToolResult } from '../../helpers/mcp.js';
import { startWorld, type World } from '../../helpers/world.js';

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

for (const dialect of dialects()) {
  describe(`text is text: REST bodies and MCP tool arguments (${dialect})`, function () {
    this.timeout(60_000);
    let w: World;
    let shoes: number;
    let ci: string;
    let launches: string;

    before(async () => {
      w = await startWorld({ dialect, env: { JOBS: 'off' } });
      shoes = w.brandId('acme', 'shoes');
      ci = w.key('acme', 'ci');
      launches = `/v1/brands/${shoes}/launches`;
    });
    after(async () => {
      await w?.close();
    });

    const titles = async () => (await w.service.knex('launches').where({ brand_id: shoes }).select('title')).map((r: { title: string }) => r.title);
    const post = (rawBody: string | Buffer, contentType = 'application/json') =>
      w.request('POST', launches, { key: ci, rawBody, headers: { 'content-type': contentType } });

    describe('REST', () => {
      for (const [what, json, message] of [
        ['a NUL character', '{"title":"Spring\\u0000sale"}', 'must not contain a NUL character (U+0000)'],
        ['a lone high surrogate', '{"title":"Spring \\ud800 sale"}', 'must be valid Unicode text; it holds a lone surrogate (U+D800) at index 7'],
        ['a lone low surrogate', '{"title":"\\udc00"}', 'must be valid Unicode text; it holds a lone surrogate (U+DC00) at index 0'],
      ]) {
        it(`refuses ${what} in a string field: 400 validation_failed, invalid_value on the field, nothing stored`, async () => {
          const before = await titles();
          const r = await post(json);
          expect(r.status, JSON.stringify(r.body)).to.equal(400);
          expect(r.body.error.code).to.equal('validation_failed');
          expect(r.body.error.details).to.deep.equal([{ field: 'title', code: 'invalid_value', message }]);
          expect(await titles()).to.deep.equal(before);
        });
      }

      it('names the nested path of a bad string, and of a bad key', async () => {
        const r = await w.request('POST', `/v1/brands/${shoes}/workflows`, {
          key: ci,
          rawBody:
            '{"workflowName":"Ok","trigger":{"kind":"manual"},"nodes":[{"nodeId":"a","kind":"review","name":"Gate \\u0000","settings":{"x\\ud800":1}}],"edges":[]}',
          headers: { 'content-type': 'application/json' },
        });
        expect(r.status, JSON.stringify(r.body)).to.equal(400);
        expect(r.body.error.details.map((d: any) => `${d.field}:${d.code}`)).to.deep.equal([
          'nodes[0].name:invalid_value',
          'nodes[0].settings.x\ud800:invalid_value',
        ]);
      });

      it('refuses bytes that are not UTF-8 instead of turning them into U+FFFD', async () => {
        const before = await titles();
        const r = await post(Buffer.concat([Buffer.from('{"title":"Caf'), Buffer.from([0xe9]), Buffer.from('"}')]));
        expect(r.status, JSON.stringify(r.body)).to.equal(400);
        expect(r.body.error).to.deep.include({ code: 'validation_failed' });
        expect(r.body.error.details).to.deep.equal([{ field: 'body', code: 'invalid_value', message: 'must be UTF-8 encoded' }]);
        expect(await titles()).to.deep.equal(before);
      });

      it('refuses a body declared in another charset, even when its bytes would do', async () => {
        const r = await post('{"title":"Plain"}', 'application/json; charset=latin1');
        expect(r.status, JSON.stringify(r.body)).to.equal(400);
        expect(r.body.error.code).to.equal('validation_failed');
        expect(r.body.error.details).to.deep.equal([{ field: 'Content-Type', code: 'invalid_value', message: 'must not name charset latin1; JSON is UTF-8' }]);
      });

      it('accepts UTF-8 with a leading byte-order mark, and charset=utf-8 in any case', async () => {
        const bom = await post(Buffer.concat([BOM, Buffer.from('{"title":"Café ☕ 🎉"}')]));
        expect(bom.status, JSON.stringify(bom.body)).to.equal(201);
        expect(bom.body.title).to.equal('Café ☕ 🎉');
        const declared = await post('{"title":"Declared"}', 'application/json; charset="UTF-8"');
        expect(declared.status, JSON.stringify(declared.body)).to.equal(201);
      });
    });

    describe('MCP', () => {
      const rpc = (id: number, title: unknown) => ({
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: { name: 'create_launch', arguments: { brandId: shoes, title } },
      });
      const postMcp = (rawBody: string | Buffer, contentType = 'application/json') =>
        w.request('POST', '/mcp', {
          key: ci,
          rawBody,
          headers: { 'content-type': contentType, accept: 'application/json, text/event-stream', 'x-mcp-toolsets': 'all' },
        });

      it('refuses a NUL character and a lone surrogate in a tool argument with the field path', async () => {
        const client = await mcpClient(w.url, ci);
        try {
          for (const [title, message] of [
            ['Spring\u0000sale', 'must not contain a NUL character (U+0000)'],
            ['Spring \ud800 sale', 'must be valid Unicode text; it holds a lone surrogate (U+D800) at index 7'],
          ]) {
            const before = await titles();
            const result = (await client.callTool({ name: 'create_launch', arguments: { brandId: shoes, title } })) as ToolResult;
            const error = toolError(result);
            expect(error.code).to.equal('validation_failed');
            expect(error.details).to.deep.equal([{ field: 'title', code: 'invalid_value', message }]);
            expect(await titles()).to.deep.equal(before);
          }
        } finally {
          await client.close();
        }
      });

      it('refuses a tools/call body that is not UTF-8, or declared in another charset, before parsing it', async () => {
        const before = await titles();
        const latin1 = Buffer.from(JSON.stringify(rpc(1, 'Caf\u00e9')), 'latin1');
        const bytes = await postMcp(latin1);
        expect(bytes.status, JSON.stringify(bytes.body)).to.equal(400);
        expect(bytes.body.error.message).to.equal('The request body is not valid UTF-8. Send JSON encoded as UTF-8.');
        const charset = await postMcp(JSON.stringify(rpc(2, 'Plain')), 'application/json; charset=iso-8859-1');
        expect(charset.status, JSON.stringify(charset.body)).to.equal(400);
        expect(charset.body.error.message).to.contain('not charset=iso-8859-1');
        expect(await titles()).to.deep.equal(before);
      });

      it('accepts a tools/call body with a leading byte-order mark', async () => {
        const r = await postMcp(Buffer.concat([BOM, Buffer.from(JSON.stringify(rpc(3, 'Über BOM')))]));
        expect(r.status, JSON.stringify(r.body)).to.equal(200);
        expect(r.body.result.isError, JSON.stringify(r.body)).to.not.equal(true);
        expect(await titles()).to.include('Über BOM');
      });
    });
  });
}
