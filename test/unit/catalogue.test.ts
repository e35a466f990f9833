// Boot checks of the operation catalogue: a bad entry stops the service from starting; and every
// schema it names compiles (the service compiles them on first use).

import { expect } from 'chai';
import { Catalogue, defineOperation, type OperationDefinition } from '../../src/catalogue/define.js';
import { internalOperations, operations } from '../../src/wiring/operations.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { SchemaRegistry, loadSchemaFiles } from '../../src/schemas/registry.js';

const base: OperationDefinition = defineOperation({
  name: 'probe-thing',
  uses: [],
  method: 'GET',
  path: '/brands/{brandId}/probe',
  scope: 'read',
  idempotency: 'none',
  input: 'list-activity#/$defs/input',
  output: 'list-activity#/$defs/output',
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  tag: 'test',
  toolset: 'monitor',
  summary: 'probe',
  handler: async () => ({}),
});

describe('operation catalogue boot checks', () => {
  const cases: Array<{ name: string; change: Partial<OperationDefinition>; error: RegExp }> = [
    { name: 'a missing scope', change: { scope: undefined as never }, error: /scope must be one of read, write, publish/ },
    { name: 'an unknown scope', change: { scope: 'admin' as never }, error: /scope must be one of/ },
    {
      name: 'an input schema id that does not exist',
      change: { input: 'no-such-schema#/$defs/input' },
      error: /schema "no-such-schema#\/\$defs\/input" does not exist/,
    },
    { name: 'an output schema id that does not exist', change: { output: 'list-activity#/$defs/nothing' }, error: /does not exist/ },
    {
      name: 'a path parameter missing from the input schema',
      change: { path: '/brands/{brandId}/x/{launchId}' },
      error: /\{launchId\} must be a required property/,
    },
    { name: 'a name that is not kebab-case', change: { name: 'Probe_Thing' }, error: /kebab-case/ },
    { name: 'a missing toolset', change: { toolset: undefined as never }, error: /toolset must be one of launch, accounts, .*; got undefined/ },
    { name: 'an unknown toolset', change: { toolset: 'default' as never }, error: /toolset must be one of .*; got default/ },
    { name: 'an unknown idempotency mode', change: { idempotency: 'sometimes' as never }, error: /idempotency must be/ },
  ];
  for (const c of cases) {
    it(`refuses ${c.name}`, () => {
      expect(() => new Catalogue(new SchemaRegistry(), [{ ...base, ...c.change } as OperationDefinition])).to.throw(c.error);
    });
  }

  it('refuses a brandId that is not an integer below /brands/{brandId} (handlers there are typed with a brand)', () => {
    const schemas = new SchemaRegistry();
    schemas.add({
      $id: 'probe-text-brand',
      $defs: { input: { type: 'object', additionalProperties: false, required: ['brandId'], properties: { brandId: { type: 'string', maxLength: 10 } } } },
    });
    expect(() => new Catalogue(schemas, [{ ...base, input: 'probe-text-brand#/$defs/input' }])).to.throw(/brandId must be an integer/);
  });

  it('refuses two operations with the same name', () => {
    expect(() => new Catalogue(new SchemaRegistry(), [base, base])).to.throw(/defined twice/);
  });

  it('has every operation declare the services its handler uses', () => {
    const undeclared = operations.filter((op) => !Array.isArray(op.uses)).map((op) => op.name);
    expect(undeclared).to.deep.equal([]);
    expect(operations.find((op) => op.name === 'launch-campaign')?.uses).to.include.members(['platforms', 'events']);
  });

  it('accepts the shipped catalogue and a well-formed extra entry', () => {
    const catalogue = new Catalogue(new SchemaRegistry(), [...operations, base]);
    expect(catalogue.get('probe-thing')).to.equal(base);
    expect(catalogue.list().every((op) => ['read', 'write', 'publish'].includes(op.scope))).to.equal(true);
  });

  it('keeps internal operations off every surface: get finds them, list (what REST, MCP, the CLI and OpenAPI offer) leaves them out', () => {
    const schemas = new SchemaRegistry(loadSchemaFiles());
    const catalogue = new Catalogue(schemas, [...operations, ...internalOperations]);
    expect(internalOperations.map((op) => op.name)).to.include('apply-automation-actions');
    for (const op of internalOperations) {
      expect(op.internal).to.equal(true);
      expect(catalogue.get(op.name)).to.equal(op);
      expect(catalogue.list().map((o) => o.name)).to.not.include(op.name);
    }
    expect(catalogue.list()).to.have.length(operations.length);
    // Their schemas compile like any other operation's.
    for (const op of internalOperations) for (const id of [op.input, op.output]) schemas.compile(id);
  });

  it('has every schema file valid against the JSON Schema 2020-12 meta-schema (the service does not check this at start-up)', () => {
    const ajv = new Ajv2020({ strict: false });
    const invalid = loadSchemaFiles()
      .filter((s) => !ajv.validateSchema(s))
      .map((s) => `${String(s.$id)}: ${ajv.errorsText(ajv.errors)}`);
    expect(invalid).to.deep.equal([]);
  });

  it('compiles every schema of the shipped catalogue (input, output and the PATCH forms), which the service compiles on first use', function () {
    // Some 180 schemas: seconds on a quiet machine, many more on a busy one.
    this.timeout(300_000);
    const schemas = new SchemaRegistry();
    const failures: string[] = [];
    for (const op of new Catalogue(schemas, operations).list()) {
      for (const id of [op.input, op.output]) {
        try {
          schemas.compile(id);
        } catch (err) {
          failures.push(`${op.name} ${id}: ${(err as Error).message}`);
        }
      }
      if (op.method === 'PATCH') {
        try {
          schemas.preparePatch(op.input, { compile: true });
        } catch (err) {
          failures.push(`${op.name} PATCH form: ${(err as Error).message}`);
        }
      }
    }
    expect(failures).to.deep.equal([]);
  });
});
