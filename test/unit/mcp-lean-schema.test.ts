// The lean tool list loses nothing an agent can reach: every "As ... in ..." names a place that
// exists in the same toolset (a read tool only read tools, so read-only mode hides none), and a
// schema written with $defs accepts and refuses exactly what the schema it came from does.

import { expect } from 'chai';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

/** An Ajv as the SDK client builds one, with the formats the schemas use. */
const clientAjv = () => addFormats.default(new Ajv2020({ strict: false }));
import { Catalogue } from '../../src/catalogue/define.js';
import { operations } from '../../src/wiring/operations.js';
import { SchemaRegistry } from '../../src/schemas/registry.js';
import { toolName, toolsFor } from '../../surfaces/mcp/tools.js';
import { withSharedDefs } from '../../surfaces/mcp/lean-schema.js';
import { followedSchema } from '../helpers/mcp.js';

describe('the lean MCP tool list', () => {
  const schemas = new SchemaRegistry();
  const ops = new Catalogue(schemas, operations).list();
  const tools = toolsFor(ops, schemas);
  const opOf = new Map(ops.map((op) => [toolName(op.name), op]));

  it('names only places of the same toolset, and from a read tool only read tools', () => {
    let references = 0;
    for (const tool of tools) {
      const text = JSON.stringify([tool.inputSchema, tool.outputSchema]);
      for (const [, target] of text.matchAll(/"As (?:[^"]+? in )?(\w+)'s (?:input|answer)\."/g)) {
        references++;
        const from = opOf.get(tool.name)!;
        const to = opOf.get(target);
        expect(to, `${tool.name} names ${target}`).to.not.equal(undefined);
        expect(to!.toolset, `${tool.name} → ${target}`).to.equal(from.toolset);
        if (from.annotations.readOnly) expect(to!.annotations.readOnly, `${tool.name} → ${target}`).to.equal(true);
      }
    }
    expect(references).to.be.greaterThan(10);
  });

  it('resolves every place it names to a schema', () => {
    for (const tool of tools) {
      for (const side of ['input', 'answer'] as const) {
        const followed = followedSchema(tool, side, tools);
        expect(JSON.stringify(followed), `${tool.name} ${side}`).to.not.match(/"\$ref"|"As [^"]*(input|answer)\."/);
        expect(() => clientAjv().compile(followed), `${tool.name} ${side}`).to.not.throw();
      }
    }
  });

  it('keeps every bundled input constraint when the schema is followed back (create_structure_template and its edit)', () => {
    const edit = followedSchema(
      tools.find((t) => t.name === 'edit_structure_template')!,
      'input',
      tools,
    );
    const bundled = schemas.bundle(ops.find((op) => op.name === 'edit-structure-template')!.input) as any;
    expect(edit.properties.config.properties.adSets.maxItems).to.equal(bundled.properties.config.properties.adSets.maxItems);
    expect(edit.properties.config.properties.ads.items.properties.headline).to.deep.include({ maxLength: 255 });
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
