// Issue 52, item 4, against a real listening server on both dialects: a name or any other one-line
// field refuses control characters, bidirectional overrides and isolates, line and paragraph
// separators and a byte-order mark (400 validation_failed, invalid_value on the field's path, nothing
// stored), in every field the issue found them in (titles, node and column names, headlines,
// workflow and automation names, naming, structure and snapshot template names, creative names), in
// an upload's filename, in an MCP tool argument and in an OAuth client's name and redirect URIs; a
// multi-line field (a brand's voice, ad primary text and descriptions, a launch's description, a
// review's comment) keeps line feeds and tabs, stores a CR LF pair as a line feed, and refuses the rest.

import { expect } from 'chai';
import { dialects } from '../../helpers/databases.js';
import { mcpClient, toolError, type ToolResult } from '../../helpers/mcp.js';
import { makePng } from '../../helpers/png.js';
import { brandApi, buildLaunch, uploadCreative } from '../../helpers/launch-builders.js';
import { startWorld, type World } from '../../helpers/world.js';
import { HOSTILE_TEXT as HOSTILE, INVISIBLE_IN_LINE, INVISIBLE_TEXT, SCRIPT_TEXT } from '../../helpers/hostile.js';
import { templateBody } from '../../helpers/structure-templates.js';

for (const dialect of dialects()) {
  describe(`text kinds: one-line and multi-line fields (${dialect})`, function () {
    this.timeout(90_000);
    let w: World;
    let shoes: number;
    let key: string;
    let launchId: string;
    let adId: string;
    let campaignId: string;
    let creativeId: number;
    let columnId: number;

    before(async () => {
      // Jobs run: a workflow's run reaches its review gate (a review's comment is text too).
      w = await startWorld({ dialect, env: { RATE_LIMIT_PER_MINUTE: '100000' } });
      shoes = w.brandId('acme', 'shoes');
      key = w.key('acme', 'ci');
      creativeId = await uploadCreative(w, key, shoes);
      const built = await buildLaunch(brandApi(w, key, shoes), { creativeId, title: 'Text' });
      launchId = built.launchId;
      adId = built.adIds[0];
      campaignId = built.campaignId;
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
        what: 'an ad set name',
        method: 'POST',
        path: () => b(`/launches/${launchId}/nodes`),
        body: (v) => ({ nodeType: 'adset', parentId: campaignId, properties: { name: v } }),
        field: 'properties.name',
      },
      {
        what: 'an ad name',
        method: 'PATCH',
        path: () => b(`/launches/${launchId}/nodes/${adId}`),
        body: (v) => ({ properties: { name: v } }),
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
      {
        what: 'a structure template name',
        method: 'POST',
        path: () => b('/structure-templates'),
        body: (v) =>
          templateBody(creativeId, {
            name: v,
            accounts: ['act_1001'],
            scope: 'single',
            audiences: [{ kind: 'targetingSet', name: 'US', targeting: { countries: ['US'] } }],
          }),
        field: 'name',
      },
      {
        what: "a structure template's ad name",
        method: 'POST',
        path: () => b('/structure-templates'),
        body: (v) => {
          const t = templateBody(creativeId, {
            name: 'Ad names',
            accounts: ['act_1001'],
            scope: 'single',
            audiences: [{ kind: 'targetingSet', name: 'US', targeting: { countries: ['US'] } }],
          });
          t.config.ads[0].name = v;
          return t;
        },
        field: 'config.ads[0].name',
      },
      {
        what: "a structure template's audience name",
        method: 'POST',
        path: () => b('/structure-templates'),
        body: (v) =>
          templateBody(creativeId, {
            name: 'Audience names',
            accounts: ['act_1001'],
            scope: 'single',
            audiences: [{ kind: 'targetingSet', name: v, targeting: { countries: ['US'] } }],
          }),
        field: 'audiences[0].name',
      },
      {
        what: 'a snapshot template name',
        method: 'POST',
        path: () => b(`/launches/${launchId}/snapshot-templates`),
        body: (v) => ({ name: v }),
        field: 'name',
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

    for (const f of oneLine) {
      it(`refuses invisible text in ${f.what} (tag characters, noncharacters, zero-width spaces: 400 invalid_value on ${f.field})`, async () => {
        for (const [what, value] of [...INVISIBLE_TEXT, ...INVISIBLE_IN_LINE]) {
          const r = await w.request(f.method, f.path(), { key, body: f.body(value) });
          expect(r.status, `${what}: ${JSON.stringify(r.body)}`).to.equal(400);
          expect(r.body.error.code, what).to.equal('validation_failed');
          const issue = r.body.error.details.find((d: { field: string }) => d.field === f.field);
          expect(issue, `${what}: ${JSON.stringify(r.body.error.details)}`).to.include({ code: 'invalid_value' });
        }
      });
    }

    it("a title with tag characters or U+FFFF answers 400 invalid_value and stores nothing; Scotland's flag and Persian with a ZWNJ are stored as written", async () => {
      const count = async () => Number((await w.service.knex('launches').count({ n: '*' }).first())!.n);
      const before = await count();
      for (const [what, title] of INVISIBLE_TEXT) {
        const r = await w.request('POST', b('/launches'), { key, body: { title } });
        expect(r.status, what).to.equal(400);
        expect(r.body.error.details[0], what).to.include({ field: 'title', code: 'invalid_value' });
        expect(r.body.error.details[0].message, what).to.match(
          /^must not hold text a person cannot see; it holds U\+[0-9A-F]{4,6} \((a Unicode tag character outside an emoji tag sequence|a noncharacter)\) at index \d+$/,
        );
      }
      expect(await count()).to.equal(before);
      for (const [what, title] of SCRIPT_TEXT) {
        const made = await w.request('POST', b('/launches'), { key, body: { title } });
        expect(made.status, `${what}: ${JSON.stringify(made.body)}`).to.equal(201);
        const read = await w.request('GET', b(`/launches/${made.body.id}`), { key });
        expect(read.body.title, what).to.equal(title);
      }
    });

    it("a multi-line field refuses tag characters and noncharacters but keeps a zero-width space (a brand's product description)", async () => {
      const profile = (productDescription: string) => ({ voice: ['warm'], productDescription, website: 'https://shop.example.com', wordsToAvoid: [] });
      for (const [what, value] of INVISIBLE_TEXT) {
        const r = await w.request('PUT', b('/profile'), { key, body: profile(`Shoes\n${value}`) });
        expect(r.status, `${what}: ${JSON.stringify(r.body)}`).to.equal(400);
        expect(r.body.error.details[0], what).to.include({ field: 'productDescription', code: 'invalid_value' });
      }
      const kept = await w.request('PUT', b('/profile'), { key, body: profile('Shoes\nx\u200By') });
      expect(kept.status, JSON.stringify(kept.body)).to.equal(200);
      expect(kept.body.productDescription).to.equal('Shoes\nx\u200By');
    });

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

    it("a launch's description, an ad's description and a review's comment are multi-line: CR LF stored as LF, tabs kept, other controls refused", async () => {
      const created = await w.request('POST', b('/launches'), { key, body: { title: 'Described', description: 'First line\r\nSecond\tline' } });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      expect(created.body.description).to.equal('First line\nSecond\tline');
      const stored = await w.service.knex('launches').where({ id: created.body.id }).first('description');
      expect(stored.description).to.equal('First line\nSecond\tline');
      for (const [what, value] of HOSTILE.filter(([x]) => x !== 'CR LF')) {
        const r = await w.request('POST', b('/launches'), { key, body: { title: 'Described', description: value } });
        expect(r.status, what).to.equal(400);
        expect(r.body.error.details[0]).to.include({ field: 'description', code: 'invalid_value' });
      }
      const ad = await w.request('PATCH', b(`/launches/${launchId}/nodes/${adId}`), { key, body: { properties: { description: 'Two\r\nlines' } } });
      expect(ad.status, JSON.stringify(ad.body)).to.equal(200);
      expect(ad.body.properties.description).to.equal('Two\nlines');

      // A review's comment: a run of a one-gate workflow, rejected by another person than its author.
      const wf = await w.request('POST', b('/workflows'), {
        key,
        body: { workflowName: 'Comment', trigger: { kind: 'manual' }, nodes: [{ nodeId: 'r', kind: 'review', settings: {} }], edges: [] },
      });
      expect(wf.status, JSON.stringify(wf.body)).to.equal(201);
      const run = await w.request('POST', b(`/workflows/${wf.body.workflowId}/runs`), { key, body: {} });
      expect(run.status, JSON.stringify(run.body)).to.equal(202);
      const exec = `/workflows/${wf.body.workflowId}/executions/${run.body.executionId}`;
      let waiting = false;
      for (let waited = 0; !waiting && waited < 15_000; waited += 50) {
        waiting = (await w.request('GET', b(exec), { key })).body.status === 'waiting_review';
        if (!waiting) await new Promise((r) => setTimeout(r, 50));
      }
      expect(waiting, 'the gate waits').to.equal(true);
      const reviewer = w.key('acme', 'writer');
      const bad = await w.request('POST', b(`${exec}/reviews`), { key: reviewer, body: { nodeId: 'r', decision: 'reject', comment: 'No\u202Ethanks' } });
      expect(bad.status, JSON.stringify(bad.body)).to.equal(400);
      expect(bad.body.error.details[0]).to.include({ field: 'comment', code: 'invalid_value' });
      const rejected = await w.request('POST', b(`${exec}/reviews`), {
        key: reviewer,
        body: { nodeId: 'r', decision: 'reject', comment: 'Not now\r\n\tLater' },
      });
      expect(rejected.status, JSON.stringify(rejected.body)).to.equal(200);
      const gate = rejected.body.nodes.find((n: { nodeId: string }) => n.nodeId === 'r');
      expect(gate.result.comment).to.equal('Not now\n\tLater');
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
