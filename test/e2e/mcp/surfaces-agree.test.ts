// REST and MCP refuse the same bad input the same way, for every operation: bad values are made
// from each operation's input schema (a wrong type, past a bound, outside an enum, an unknown
// field), sent as a query or JSON body on /v1 and as tool arguments, and the error code and the
// fields named must match. The tool's listed inputSchema refuses each of them too (and accepts
// the success examples: test/e2e/mcp/catalogue.test.ts), so an agent's schema never promises what
// REST refuses or the reverse.

import { expect } from 'chai';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { pathParams } from '../../../src/catalogue/define.js';
import { NULL_ALTERNATIVES } from '../../../surfaces/mcp/tools.js';
import { httpStatusOf, type ErrorCode } from '../../../src/errors.js';
import { dialects } from '../../helpers/databases.js';
import { followedSchema, mcpClient, toolError } from '../../helpers/mcp.js';
import { startWorld, type World } from '../../helpers/world.js';
import { argsOnlyExamples, prepareToolFixture, toolExamples, type Answers, type ToolFixture } from '../../helpers/tool-examples.js';

type Schema = { type?: string | string[]; enum?: unknown[]; maximum?: number; maxLength?: number; items?: Schema; properties?: Record<string, Schema> };

interface BadCase {
  what: string;
  /** The value as a tool argument or JSON body field. */
  value: unknown;
  /** The same value in a query string (undefined: not expressible there). */
  query?: string | string[];
}

function mainType(s: Schema): string | undefined {
  const t = Array.isArray(s.type) ? s.type.find((x) => x !== 'null') : s.type;
  return t ?? (s.enum ? typeof s.enum[0] : undefined);
}

/** Bad values for one property, each refused by its schema. */
function badValues(s: Schema): BadCase[] {
  const cases: BadCase[] = [];
  switch (mainType(s)) {
    case 'integer':
    case 'number':
      cases.push({ what: 'a word for a number', value: 'many', query: 'many' });
      if (typeof s.maximum === 'number') cases.push({ what: 'past the maximum', value: s.maximum + 1, query: String(s.maximum + 1) });
      break;
    case 'string':
      if (s.enum) cases.push({ what: 'outside the enum', value: 'not-a-listed-value', query: 'not-a-listed-value' });
      else if (typeof s.maxLength === 'number' && s.maxLength <= 10_000)
        cases.push({ what: 'too long', value: 'x'.repeat(s.maxLength + 1), query: 'x'.repeat(s.maxLength + 1) });
      if (![s.type].flat().some((t) => t === 'integer' || t === 'number')) cases.push({ what: 'a number for a string', value: 12, query: undefined });
      break;
    case 'boolean':
      cases.push({ what: 'a word for a boolean', value: 'maybe', query: 'maybe' });
      break;
    case 'array':
      cases.push({ what: 'a string for an array', value: 'not-a-list', query: undefined });
      if (s.items?.enum) cases.push({ what: 'an item outside the enum', value: ['not-a-listed-value'], query: ['not-a-listed-value'] });
      break;
    case 'object':
      cases.push({ what: 'a string for an object', value: 'not-an-object', query: undefined });
      break;
  }
  return cases;
}

/** Stand-ins for what earlier examples answered: ids only, since every case fails validation first. */
const anyId = new Proxy({}, { get: (_t, prop) => (typeof prop === 'string' && /id$/i.test(prop) ? 1 : undefined) });
const fakeAnswers: Answers = new Map(toolExamples.map((e) => [e.tool, anyId]));

function detailKeys(details: unknown): string[] {
  return Array.isArray(details) ? details.map((d: { field: string; code?: string }) => `${d.field}:${d.code}`).sort() : [];
}

for (const dialect of dialects()) {
  describe(`REST and MCP refuse the same bad input alike (${dialect})`, function () {
    this.timeout(120_000);
    let w: World;
    let client: Client;
    let fx: ToolFixture;
    const ajv = addFormats.default(new Ajv2020({ strict: false }));

    before(async () => {
      w = await startWorld({ dialect, env: { WEBHOOK_ALLOW_PRIVATE: 'true', RATE_LIMIT_PER_MINUTE: '100000' } });
      client = await mcpClient(w.url, w.key('acme', 'ci'));
      fx = await prepareToolFixture(w, w.key('acme', 'ci'), w.brandId('acme', 'shoes'), 'act_1001', 'http://127.0.0.1:9999/hooks');
    });
    after(async () => {
      await client?.close();
      await w?.close();
    });

    it('answers each bad value of every operation with the same code and fields on both surfaces', async () => {
      const { tools } = await client.listTools();
      let compared = 0;
      for (const op of w.service.catalogue.list()) {
        const toolName = op.name.replace(/-/g, '_');
        const tool = tools.find((t) => t.name === toolName)!;
        const example = (toolExamples.find((e) => e.tool === toolName) ?? argsOnlyExamples.find((e) => e.tool === toolName))!;
        const base = example.args(fx, fakeAnswers);
        const inPath = pathParams(op.path);
        for (const p of inPath) expect(base[p], `${op.name}: the example gives no ${p}`).to.not.equal(undefined);
        const usesQuery = op.method === 'GET' || op.method === 'DELETE';
        // The schema as the agent reads it: parts written once elsewhere in the toolset followed to that place.
        const inputSchema = followedSchema(tool, 'input', tools);
        const properties = (inputSchema.properties ?? {}) as Record<string, Schema>;
        const cases: Array<{ field: string; bad: BadCase }> = [{ field: 'notAField', bad: { what: 'an unknown field', value: 'x', query: 'x' } }];
        for (const [field, schema] of Object.entries(properties)) {
          // A tool's own stand-in for REST's null (allBrands, ...) has no REST field to compare with (values-and-ids.test.ts).
          if (inPath.includes(field) || field === 'idempotencyKey' || field === NULL_ALTERNATIVES[op.name]?.flag) continue;
          for (const bad of badValues(schema)) cases.push({ field, bad });
        }
        for (const { field, bad } of cases) {
          if (usesQuery && bad.query === undefined) continue;
          const args: Record<string, unknown> = { ...base, [field]: bad.value };
          const label = `${op.name}: ${field} ${bad.what}`;
          // The portable subset cannot say "no other fields" (no additionalProperties: paths.md, "What an
          // agent sees"): the core refuses an unknown field on both surfaces, compared below.
          if (field !== 'notAField') expect(ajv.validate(inputSchema, args), `${label} passes the listed inputSchema`).to.equal(false);

          const path = '/v1' + op.path.replace(/\{(\w+)\}/g, (_m, p: string) => encodeURIComponent(String(base[p])));
          const rest: Record<string, unknown> = {};
          for (const [k, v] of Object.entries(args)) if (!inPath.includes(k) && k !== 'idempotencyKey') rest[k] = v;
          const headers: Record<string, string> = typeof base.idempotencyKey === 'string' ? { 'Idempotency-Key': `${base.idempotencyKey}-${compared}` } : {};
          let url = path;
          let body: unknown;
          if (usesQuery) {
            const q = new URLSearchParams();
            for (const [k, v] of Object.entries(rest)) {
              const text = k === field ? bad.query! : v;
              for (const item of Array.isArray(text) ? text : [text]) q.append(k, String(item));
            }
            url += q.size ? `?${q}` : '';
          } else body = rest;
          const viaRest = await w.request(op.method, url, { key: w.key('acme', 'ci'), body, headers });
          if (typeof args.idempotencyKey === 'string') args.idempotencyKey = `${args.idempotencyKey}-mcp-${compared}`;
          const viaMcp = toolError(await client.callTool({ name: toolName, arguments: args }));

          expect(viaRest.status, `${label}: REST ${JSON.stringify(viaRest.body)}`).to.equal(httpStatusOf[viaMcp.code as ErrorCode]);
          expect(viaRest.body.error.code, label).to.equal(viaMcp.code);
          expect(viaMcp.code, label).to.equal('validation_failed');
          expect(detailKeys(viaRest.body.error.details), label).to.deep.equal(detailKeys(viaMcp.details));
          expect(
            detailKeys(viaMcp.details).some((k) => k.startsWith(`${field}:`) || k.startsWith(`${field}[`) || k.startsWith(`${field}.`)),
            `${label} names ${field}`,
          ).to.equal(true);
          compared++;
        }
      }
      expect(compared).to.be.greaterThan(100);
    });
  });
}
