// The MCP surface through the SDK's real Client over HTTP: the tool list mirrors the catalogue,
// answers equal REST's, errors are isError results with the envelope, and the credential matrix
// answers as on REST.

import { expect } from 'chai';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { dialects } from '../../helpers/databases.js';
import { asToolAnswer, mcpClient, toolError } from '../../helpers/mcp.js';
import { startWorld, type World } from '../../helpers/world.js';

type ToolResult = { isError?: boolean; structuredContent?: any; content: Array<{ type: string; text?: string }> };

for (const dialect of dialects()) {
  describe(`MCP tool server (${dialect})`, function () {
    this.timeout(30_000);
    let w: World;
    before(async () => {
      w = await startWorld({ dialect });
    });
    after(async () => w?.close());

    it('lists one tool per catalogue operation, named with underscores, with valid schemas and annotations', async () => {
      const client = await mcpClient(w.url, w.key('acme', 'ci'));
      const { tools } = await client.listTools();
      const ops = w.service.catalogue.list();
      expect(tools.map((t) => t.name).sort()).to.deep.equal(ops.map((o) => o.name.replace(/-/g, '_')).sort());
      const ajv = addFormats.default(new Ajv2020({ strict: false }));
      for (const tool of tools) {
        const op = ops.find((o) => o.name.replace(/-/g, '_') === tool.name)!;
        expect(tool.inputSchema.type, tool.name).to.equal('object');
        expect(tool.outputSchema?.type, tool.name).to.equal('object');
        expect(() => ajv.compile(tool.inputSchema), tool.name).to.not.throw();
        expect(() => ajv.compile(tool.outputSchema!), tool.name).to.not.throw();
        // All four hints, each stated explicitly.
        expect(tool.annotations, tool.name).to.deep.equal({
          readOnlyHint: op.annotations.readOnly,
          destructiveHint: op.annotations.destructive,
          idempotentHint: op.annotations.idempotent,
          openWorldHint: op.annotations.openWorld,
        });
        if (op.idempotency === 'required') expect(tool.inputSchema.required, tool.name).to.include('idempotencyKey');
      }
      const publish = tools.find((t) => t.name === 'launch_campaign')!;
      expect(publish.description).to.match(/^Validate and preview a launch, or publish it/);
      expect((publish.inputSchema.properties as any).confirm.description).to.match(/only validates and previews/);
      await client.close();
    });

    it('shows only the tools the key scopes allow', async () => {
      const client = await mcpClient(w.url, w.key('acme', 'reader'));
      const { tools } = await client.listTools();
      const readOps = w.service.catalogue
        .list()
        .filter((o) => o.scope === 'read')
        .map((o) => o.name.replace(/-/g, '_'));
      expect(tools.map((t) => t.name).sort()).to.deep.equal(readOps.sort());
      const refused = (await client.callTool({ name: 'create_launch', arguments: { brandId: w.brandId('acme', 'shoes'), title: 'x' } })) as ToolResult;
      expect(refused.isError).to.equal(true);
      expect(toolError(refused)).to.deep.include({ code: 'insufficient_scope', details: { requiredScope: 'write' } });
      await client.close();
    });

    it('answers list_brands with structuredContent equal to GET /v1/brands', async () => {
      const client = await mcpClient(w.url, w.key('acme', 'ci'));
      const result = (await client.callTool({ name: 'list_brands', arguments: {} })) as ToolResult;
      const rest = await w.request('GET', '/v1/brands', { key: w.key('acme', 'ci') });
      expect(result.isError).to.not.equal(true);
      expect(result.structuredContent).to.deep.equal(asToolAnswer(rest.body));
      expect(JSON.parse(result.content[0].text!)).to.deep.equal(asToolAnswer(rest.body));
      await client.close();
    });

    it('returns invalid arguments as an isError result carrying the envelope', async () => {
      const client = await mcpClient(w.url, w.key('acme', 'ci'));
      const result = (await client.callTool({
        name: 'list_activity',
        arguments: { brandId: w.brandId('acme', 'shoes'), days: 500, colour: 'red' },
      })) as ToolResult;
      expect(result.isError).to.equal(true);
      const error = toolError(result);
      expect(error.code).to.equal('validation_failed');
      expect(error.details).to.deep.include.members([
        { field: 'colour', code: 'unrecognized_key', message: 'is not recognised; remove "colour"' },
        { field: 'days', code: 'too_big', message: 'must be at most 90' },
      ]);
      expect(error.requestId).to.be.a('string');
      await client.close();
    });

    it('does not coerce argument types the way query strings are', async () => {
      const client = await mcpClient(w.url, w.key('acme', 'ci'));
      const result = (await client.callTool({ name: 'list_brands', arguments: { limit: '2' } })) as ToolResult;
      expect(result.isError).to.equal(true);
      expect(toolError(result).details[0]).to.deep.include({ field: 'limit', code: 'invalid_type' });
      await client.close();
    });

    it('answers brand_not_allowed and not_found as on REST', async () => {
      const client = await mcpClient(w.url, w.key('acme', 'limited'));
      const denied = (await client.callTool({ name: 'list_activity', arguments: { brandId: w.brandId('acme', 'hats') } })) as ToolResult;
      expect(toolError(denied)).to.deep.include({ code: 'brand_not_allowed' });
      expect(toolError(denied).details.reason).to.equal('brand_not_allowed');
      const foreign = (await client.callTool({ name: 'list_activity', arguments: { brandId: w.brandId('other', 'rival') } })) as ToolResult;
      expect(toolError(foreign).code).to.equal('not_found');
      await client.close();
    });

    const raw = (key: string | null, headers: Record<string, string> = {}) =>
      fetch(`${w.url}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...(key ? { authorization: `Bearer ${key}` } : {}),
          ...headers,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
      });

    it('refuses a missing or unknown credential with HTTP 401, JSON-RPC -32001 and a resource_metadata challenge', async () => {
      for (const key of [null, 'svc_sk_' + 'B'.repeat(44)]) {
        const res = await raw(key);
        expect(res.status).to.equal(401);
        expect(res.headers.get('www-authenticate')).to.match(/^Bearer resource_metadata="http:\/\/localhost:\d+\/\.well-known\/oauth-protected-resource\/mcp"/);
        const body = await res.json();
        expect(body.error.code).to.equal(-32001);
        expect(body.error.data.code).to.equal('unauthenticated');
      }
    });

    const matrix: Array<[string, (w: World) => string, number, string]> = [
      ['a revoked key', (x) => x.key('acme', 'revoked'), 401, 'unauthenticated'],
      ['an expired key', (x) => x.key('acme', 'expired'), 401, 'unauthenticated'],
      ['a key whose subscription is not active', (x) => x.key('lapsed', 'lapsedKey'), 403, 'plan_required'],
    ];
    for (const [name, key, status, code] of matrix) {
      it(`refuses ${name} with ${status} ${code}`, async () => {
        const res = await raw(key(w));
        expect(res.status).to.equal(status);
        expect((await res.json()).error.data.code).to.equal(code);
      });
    }

    it('lets a pro-plan key with MCP on in (any paid plan), though REST refuses it', async () => {
      const client = await mcpClient(w.url, w.key('pro', 'proKey'));
      const result = (await client.callTool({ name: 'list_brands', arguments: {} })) as ToolResult;
      expect(result.structuredContent.accounts.map((a: any) => a.brandName)).to.deep.equal(['Pro Brand']);
      expect((await w.request('GET', '/v1/brands', { key: w.key('pro', 'proKey') })).body.error.code).to.equal('plan_required');
      await client.close();
    });

    it('refuses a key with the MCP switch off with 403 surface_disabled', async () => {
      await w.service.knex('api_keys').where({ id: w.seed.organizations.acme.apiKeys.writer.id }).update({ surface_mcp: false });
      await new Promise((r) => setTimeout(r, Number(w.config.keyCacheMs) + 50));
      const res = await raw(w.key('acme', 'writer'));
      expect(res.status).to.equal(403);
      expect((await res.json()).error.data.code).to.equal('surface_disabled');
    });

    it('refuses an unsupported MCP-Protocol-Version with 400 and a foreign Origin with 403', async () => {
      expect((await raw(w.key('acme', 'ci'), { 'mcp-protocol-version': '1999-01-01' })).status).to.equal(400);
      expect((await raw(w.key('acme', 'ci'), { origin: 'https://evil.example' })).status).to.equal(403);
    });

    // A single tools/call with nothing to stream is answered beside the SDK's Server; with a _meta,
    // in a batch, or naming a tool the caller cannot see, it goes through the Server. The answers agree.
    it('answers a plain tools/call as the SDK Server answers the same call with _meta or in a batch', async () => {
      const post = async (body: unknown) => {
        const res = await fetch(`${w.url}/mcp`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${w.key('acme', 'ci')}` },
          body: JSON.stringify(body),
        });
        expect(res.status).to.equal(200);
        expect(res.headers.get('content-type')).to.equal('application/json');
        return res.json();
      };
      const call = (id: number | string, args: Record<string, unknown>) => ({
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: { name: 'list_brands', arguments: args },
      });
      const withMeta = (m: ReturnType<typeof call>) => ({ ...m, params: { ...m.params, _meta: {} } });
      const withoutRequestId = (answer: any) => {
        const text = JSON.parse(answer.result.content[0].text);
        return {
          ...answer,
          result: { ...answer.result, content: [{ ...answer.result.content[0], text: { ...text, error: { ...text.error, requestId: 'x' } } }] },
        };
      };
      const plain = await post(call('a', {}));
      expect(plain).to.deep.equal(await post(withMeta(call('a', {}))));
      expect([plain]).to.deep.equal(await post([call('a', {})]));
      expect(Object.keys(plain.result)).to.deep.equal(['content', 'structuredContent']);
      const refused = await post(call(7, { limit: '2' }));
      expect(refused.result.isError).to.equal(true);
      expect(Object.keys(refused.result)).to.deep.equal(['content', 'isError']);
      expect(withoutRequestId(refused)).to.deep.equal(withoutRequestId(await post(withMeta(call(7, { limit: '2' })))));
      const unknown = await post({ ...call(8, {}), params: { name: 'no_such_tool', arguments: {} } });
      expect(unknown).to.deep.include({ jsonrpc: '2.0', id: 8 });
      expect(unknown.error.code).to.equal(-32602);
    });

    it('answers a tools/call with missing or malformed params -32602 (invalid params), saying what params must be', async () => {
      const post = async (body: unknown) => {
        const res = await fetch(`${w.url}/mcp`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${w.key('acme', 'ci')}` },
          body: JSON.stringify(body),
        });
        expect(res.status).to.equal(200);
        return res.json();
      };
      const bad: Array<[unknown, RegExp]> = [
        [undefined, /has no params/],
        ['list_brands', /params is a string/],
        [[], /params is an array/],
        [{}, /params\.name must be the tool's name/],
        [{ name: 5 }, /params\.name must be the tool's name/],
        [{ name: 'list_brands', arguments: 'limit=2' }, /params\.arguments must be an object .* not a string/],
        [{ name: 'list_brands', arguments: [1] }, /params\.arguments must be an object .* not an array/],
      ];
      for (const [params, says] of bad) {
        const answer = await post({ jsonrpc: '2.0', id: 'c1', method: 'tools/call', ...(params === undefined ? {} : { params }) });
        expect(answer, JSON.stringify(params)).to.deep.include({ jsonrpc: '2.0', id: 'c1' });
        expect(answer.error.code, JSON.stringify(params)).to.equal(-32602);
        expect(answer.error.message).to.match(says).and.to.contain('tools/call takes params {"name": "<tool>", "arguments": {...}}');
      }
      // In a batch, the malformed call is answered -32602 in its place and the good one runs.
      const batch = await post([
        { jsonrpc: '2.0', id: 1, method: 'tools/call' },
        { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'list_brands', arguments: {} } },
      ]);
      expect(batch.map((a: { id: number }) => a.id).sort()).to.deep.equal([1, 2]);
      expect(batch.find((a: { id: number }) => a.id === 1).error.code).to.equal(-32602);
      expect(batch.find((a: { id: number }) => a.id === 2).result.structuredContent.accounts).to.be.an('array');
    });

    it('counts MCP calls in the same rate-limit budget and honours idempotency keys', async () => {
      const client = await mcpClient(w.url, w.key('acme', 'ci'));
      const args = { brandId: w.brandId('acme', 'shoes'), title: 'From an agent', idempotencyKey: `mcp-${dialect}-1` };
      const first = (await client.callTool({ name: 'create_launch', arguments: args })) as ToolResult;
      const again = (await client.callTool({ name: 'create_launch', arguments: args })) as ToolResult;
      expect(first.isError).to.not.equal(true);
      expect(again.structuredContent).to.deep.equal(first.structuredContent);
      const list = await w.request('GET', `/v1/brands/${w.brandId('acme', 'shoes')}/launches?search=agent`, { key: w.key('acme', 'ci') });
      expect(list.body.batches).to.have.length(1);
      const conflict = (await client.callTool({ name: 'create_launch', arguments: { ...args, title: 'Other' } })) as ToolResult;
      expect(toolError(conflict).code).to.equal('idempotency_conflict');
      await client.close();
    });
  });
}
