// Issue 52, item 4, against a real listening server on both dialects: a name or any other one-line
// field refuses control characters, bidirectional overrides and isolates, line and paragraph
// separators and a byte-order mark (400 validation_failed, invalid_value on the field's path, nothing
// stored), in every field the issue found them in (titles, node and column names, headlines,
// workflow and automation names, naming templates, a brand's voice, creative names), in an upload's
// filename, in an MCP tool argument and in an OAuth client's name and redirect URIs; a multi-line
// field keeps line feeds and tabs, stores a CR LF pair as a line feed, and refuses the rest.

import { expect } from 'chai';
import { dialects } from '../../helpers/databases.js';
import { mcpClient, toolError, type ToolResult } from '../../helpers/mcp.js';
import { makePng } from '../../helpers/png.js';
import { brandApi, buildLaunch, uploadCreative } from '../../helpers/launch-builders.js';
import { startWorld, type World } from '../../helpers/world.js';
import { HOSTILE_TEXT as HOSTILE } from '../../helpers/hostile.js';

for (const dialect of dialects()) {
  describe(`text kinds: one-line and multi-line fields (${dialect})`, function () {
    this.timeout(90_000);
    let w: World;
    let shoes: number;
    let key: string;
    let launchId: string;
    let adId: string;
    let columnId: number;

    before(async () => {
      w = await startWorld({ dialect, env: { RATE_LIMIT_PER_MINUTE: '100000', JOBS: 'off' } });
      shoes = w.brandId('acme', 'shoes');
      key = w.key('acme', 'ci');
      const creativeId = await uploadCreative(w, key, shoes);
      const built = await buildLaunch(brandApi(w, key, shoes), { creativeId, title: 'Text' });
      launchId = built.launchId;
      adId = built.adIds[0];
      columnId = (await w.request('POST', `/v1/brands/${shoes}/pipeline/columns`, { key, body: { name: 'Ideas' } })).body.columnId;
    });
    after(async () => w?.close());

    const b = (rest: string) => `/v1/brands/${shoes}${rest}`;
    /** One request per one-line field the issue names: what to send with `value` in it, and the field the refusal names. */
    const oneLine: Array<{ what: string; method: string; path: () => string; body: (value: string) => unknown; field: string }> = [
      { what: 'a launch title', method: 'POST', path: () => b('/launches'), body: (v) => ({ title: v }), field: 'title' },
      {
        what: 'a node name',
        method: 'POST',
        path: () => b(`/launches/${launchId}/nodes`),
        body: (v) => ({ nodeType: 'campaign', properties: { name: v } }),
        field: 'properties.name',
      },
      {
        what: 'a headline',
        method: 'PATCH',
        path: () => b(`/launches/${launchId}/nodes/${adId}`),
        body: (v) => ({ properties: { headline: v } }),
        field: 'properties.headline',
      },
      { what: 'a column name', method: 'POST', path: () => b('/pipeline/columns'), body: (v) => ({ name: v }), field: 'name' },
      { what: 'a card title', method: 'POST', path: () => b('/pipeline/cards'), body: (v) => ({ launchId, columnId, title: v }), field: 'title' },
      {
        what: 'a workflow name',
        method: 'POST',
        path: () => b('/workflows'),
        body: (v) => ({ workflowName: v, trigger: { kind: 'manual' }, nodes: [{ nodeId: 'r', kind: 'review', settings: {} }], edges: [] }),
        field: 'workflowName',
      },
      {
        what: 'an automation name',
        method: 'POST',
        path: () => b('/automations'),
        body: (v) => ({
          automationName: v,
          accountId: 'act_1001',
          level: 'campaign',
          action: 'notify',
          status: 'PAUSED',
          conditions: [{ metric: 'spend', window: 'today', operator: 'gt', value: 100 }],
        }),
        field: 'automationName',
      },
      { what: 'a naming template', method: 'PUT', path: () => b('/ad-accounts/act_1001/naming-convention'), body: (v) => ({ campaign: v }), field: 'campaign' },
      {
        what: 'a creative name',
        method: 'POST',
        path: () => b('/creatives'),
        body: (v) => ({ name: v, dataBase64: makePng(2, 2).toString('base64') }),
        field: 'name',
      },
    ];

    for (const f of oneLine) {
      it(`refuses every hostile character in ${f.what} (400 invalid_value on ${f.field}), and takes plain text there`, async () => {
        for (const [what, value] of HOSTILE) {
          const r = await w.request(f.method, f.path(), { key, body: f.body(value) });
          expect(r.status, `${what}: ${JSON.stringify(r.body)}`).to.equal(400);
          expect(r.body.error.code, what).to.equal('validation_failed');
          const issue = r.body.error.details.find((d: { field: string }) => d.field === f.field);
          expect(issue, `${what}: ${JSON.stringify(r.body.error.details)}`).to.include({ code: 'invalid_value' });
          expect(issue.message).to.match(/^must be one line of text; it holds U\+[0-9A-F]{4} \(.+\) at index \d$/);
        }
        const ok = await w.request(f.method, f.path(), { key, body: f.body(`Plain ${f.what} é ☕`) });
        expect(ok.status, JSON.stringify(ok.body)).to.be.oneOf([200, 201]);
      });
    }

    it('says what it found and where: ESC at index 1 of a title', async () => {
      const r = await w.request('POST', b('/launches'), { key, body: { title: 'x\u001by' } });
      expect(r.body.error.details).to.deep.equal([
        { field: 'title', code: 'invalid_value', message: 'must be one line of text; it holds U+001B (a control character) at index 1' },
      ]);
    });

    it("a brand's voice and an ad's primary text are multi-line: line feeds and tabs kept, CR LF stored as LF, other controls refused", async () => {
      const profile = await w.request('PUT', b('/profile'), {
        key,
        body: {
          voice: ['warm\r\nplayful', 'bold\tdirect'],
          productDescription: 'Shoes\r\nfor everyone',
          website: 'https://shop.example.com',
          wordsToAvoid: [],
        },
      });
      expect(profile.status, JSON.stringify(profile.body)).to.equal(200);
      expect(profile.body.voice).to.deep.equal(['warm\nplayful', 'bold\tdirect']);
      expect(profile.body.productDescription).to.equal('Shoes\nfor everyone');
      const ad = await w.request('PATCH', b(`/launches/${launchId}/nodes/${adId}`), {
        key,
        body: { properties: { primaryText: 'Line one\r\nLine two\tTabbed' } },
      });
      expect(ad.status, JSON.stringify(ad.body)).to.equal(200);
      expect(ad.body.properties.primaryText).to.equal('Line one\nLine two\tTabbed');
      const stored = await w.service.knex('launch_nodes').where({ id: adId }).first('properties');
      expect(JSON.parse(stored.properties).primaryText).to.equal('Line one\nLine two\tTabbed');
      for (const [what, value] of HOSTILE.filter(([w]) => w !== 'CR LF')) {
        const r = await w.request('PUT', b('/profile'), {
          key,
          body: { voice: [value], productDescription: 'x', website: 'https://shop.example.com', wordsToAvoid: [] },
        });
        expect(r.status, what).to.equal(400);
        expect(r.body.error.details[0]).to.include({ field: 'voice[0]', code: 'invalid_value' });
      }
      const loneCr = await w.request('PATCH', b(`/launches/${launchId}/nodes/${adId}`), { key, body: { properties: { primaryText: 'a\rb' } } });
      expect(loneCr.status).to.equal(400);
      expect(loneCr.body.error.details[0].message).to.contain('U+000D (a carriage return)');
    });

    it("refuses a control character in a multipart upload's filename (file.fileName), storing nothing", async () => {
      const before = (await w.service.knex('creatives').count({ n: '*' }).first())!.n;
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(makePng(2, 2))], { type: 'image/png' }), 'x\u001by.png');
      const res = await fetch(`${w.url}${b('/creatives')}`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form });
      const body = await res.json();
      expect(res.status, JSON.stringify(body)).to.equal(400);
      expect(body.error.details).to.deep.equal([
        { field: 'file.fileName', code: 'invalid_value', message: 'must be one line of text; it holds U+001B (a control character) at index 1' },
      ]);
      expect((await w.service.knex('creatives').count({ n: '*' }).first())!.n).to.equal(before);
    });

    it('refuses it in an MCP tool argument, naming the argument', async () => {
      const client = await mcpClient(w.url, key);
      try {
        const r = (await client.callTool({ name: 'create_launch', arguments: { brandId: shoes, title: 'Spring\u202Esale' } })) as ToolResult;
        expect(toolError(r).details).to.deep.equal([
          { field: 'title', code: 'invalid_value', message: 'must be one line of text; it holds U+202E (a bidirectional override) at index 6' },
        ]);
      } finally {
        await client.close();
      }
    });

    it("refuses it in an OAuth client's name (invalid_client_metadata) and redirect URIs (invalid_redirect_uri); nothing registered", async () => {
      const register = (body: unknown) =>
        fetch(`${w.url}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const before = (await w.service.knex('oauth_clients').count({ n: '*' }).first())!.n;
      for (const [what, value] of HOSTILE) {
        const named = await register({ client_name: `App ${value}`, redirect_uris: ['http://127.0.0.1:9/cb'] });
        const namedBody = await named.json();
        expect(named.status, what).to.equal(400);
        expect(namedBody.error, what).to.equal('invalid_client_metadata');
        expect(namedBody.error_description).to.match(/^client_name must be one line of text/);
        const redirect = await register({ client_name: 'App', redirect_uris: [`http://127.0.0.1:9/cb${value}`] });
        const redirectBody = await redirect.json();
        expect(redirect.status, what).to.equal(400);
        expect(redirectBody.error, what).to.equal('invalid_redirect_uri');
        expect(redirectBody.error_description).to.match(/^redirect_uris\[0\] must be one line of text/);
      }
      expect((await w.service.knex('oauth_clients').count({ n: '*' }).first())!.n).to.equal(before);
      const ok = await register({ client_name: 'Café app', redirect_uris: ['http://127.0.0.1:9/cb'] });
      expect(ok.status).to.equal(201);
    });
  });
}
