// The tool list an agent loads: each input schema is the REST input schema in the portable subset,
// taking every example request the REST schema takes (a model that follows it is not refused for
// its form); each answer schema is lean (own fields, their types) and takes each example answer;
// a schema written with $defs accepts and refuses exactly what the schema it came from does.

import { expect } from 'chai';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

/** An Ajv as the SDK client builds one, with the formats the schemas use. */
const clientAjv = () => addFormats.default(new Ajv2020({ strict: false }));
import { Catalogue } from '../../src/catalogue/define.js';
import { operations } from '../../src/wiring/operations.js';
import { SchemaRegistry } from '../../src/schemas/registry.js';
import { loadOperationExamples } from '../../src/schemas/examples.js';
import { pathParams } from '../../src/catalogue/define.js';
import { toolName, toolsFor } from '../../surfaces/mcp/tools.js';
import { withSharedDefs } from '../../surfaces/mcp/lean-schema.js';
import { portableInput } from '../../surfaces/mcp/portable-schema.js';
import { asIntegers, asToolAnswer } from '../helpers/mcp.js';

describe('the lean MCP tool list', () => {
  const schemas = new SchemaRegistry();
  const ops = new Catalogue(schemas, operations).list();
  const tools = toolsFor(ops, schemas);
  const toolOf = new Map(tools.map((t) => [t.name, t]));
  const examples = loadOperationExamples();

  it('takes, in every portable input schema, each example request as a model would send it (ids as integers)', () => {
    const ajv = clientAjv();
    let checked = 0;
    for (const op of ops) {
      const example = examples.get(op.name);
      if (!example) continue;
      const request = example.request as { path?: Record<string, unknown>; query?: Record<string, unknown>; body?: unknown; headers?: Record<string, string> };
      const args: Record<string, unknown> = { ...(request.query ?? {}), ...((request.body as object) ?? {}) };
      for (const name of pathParams(op.path)) args[name] = request.path?.[name];
      const key = request.headers?.['Idempotency-Key'];
      if (key) args.idempotencyKey = key;
      const input = toolOf.get(toolName(op.name))!.inputSchema;
      const validate = ajv.compile(input);
      expect(validate(asIntegers(args, input)), `${op.name}: ${ajv.errorsText(validate.errors)}`).to.equal(true);
      checked++;
    }
    expect(checked).to.be.greaterThan(40);
  });

  it('answers, in every lean answer schema, each example answer', () => {
    const ajv = clientAjv();
    for (const op of ops) {
      const example = examples.get(op.name);
      const body = (example?.response as { body?: unknown } | undefined)?.body;
      if (!body || typeof body !== 'object') continue;
      const validate = ajv.compile(toolOf.get(toolName(op.name))!.outputSchema);
      const answered = body && typeof body === 'object' && !Array.isArray(body) ? asToolAnswer(body as Record<string, unknown>) : body;
      expect(validate(answered), `${op.name}: ${ajv.errorsText(validate.errors)}`).to.equal(true);
    }
  });

  it('rewrites what the portable subset lacks: type arrays, references, combinators, const; fills a missing type and description', () => {
    const portable = portableInput({
      type: 'object',
      additionalProperties: false,
      properties: {
        launchId: { type: ['integer', 'string'], pattern: '^[1-9][0-9]*$', description: 'Launch id.' },
        note: { type: ['string', 'null'], maxLength: 40 },
        budget: {
          anyOf: [{ type: 'object', properties: { dailyAmount: { type: 'integer', minimum: 1 } }, additionalProperties: false }, { type: 'null' }],
          description: 'Budget.',
        },
        mode: { enum: ['live', 'shadow'] },
        kind: { const: 'manual' },
      },
    });
    expect(portable).to.deep.equal({
      type: 'object',
      properties: {
        launchId: { type: 'integer', description: 'Launch id.' },
        note: { type: 'string', description: 'Note.' },
        budget: { type: 'object', properties: { dailyAmount: { type: 'integer', description: 'Daily amount.' } }, description: 'Budget.' },
        mode: { type: 'string', enum: ['live', 'shadow'], description: 'Mode.' },
        kind: { type: 'string', enum: ['manual'], description: 'Kind.' },
      },
    });
  });

  it('writes a part repeated in one schema once under $defs, validating the same data', () => {
    const money = {
      type: 'object',
      additionalProperties: false,
      required: ['period', 'amountMinorUnits'],
      properties: { period: { enum: ['daily', 'lifetime'] }, amountMinorUnits: { type: 'integer', minimum: 1 } },
    };
    const schema = {
      type: 'object',
      properties: { campaign: { type: 'object', properties: { budget: money } }, adSet: { type: 'object', properties: { budget: money } }, extra: money },
    };
    const shared = withSharedDefs(schema) as any;
    expect(shared.$defs.budget).to.deep.equal(money);
    expect(shared.properties.extra).to.deep.equal({ $ref: '#/$defs/budget' });
    expect(JSON.stringify(shared).split(JSON.stringify(money.properties)).length - 1, 'written once').to.equal(1);
    expect(JSON.stringify(shared).length).to.be.lessThan(JSON.stringify(schema).length);
    const ajv = clientAjv();
    const [full, lean] = [ajv.compile(schema), ajv.compile(shared)];
    const samples = [
      { campaign: { budget: { period: 'daily', amountMinorUnits: 500 } }, extra: { period: 'lifetime', amountMinorUnits: 1 } },
      { adSet: { budget: { period: 'weekly', amountMinorUnits: 500 } } },
      { extra: { period: 'daily', amountMinorUnits: 0 } },
      { campaign: { budget: { period: 'daily', amountMinorUnits: 5, more: true } } },
    ];
    for (const sample of samples) expect(lean(sample), JSON.stringify(sample)).to.equal(full(sample));
    expect(samples.map((s) => full(s))).to.deep.equal([true, false, false, false]);
  });
});
