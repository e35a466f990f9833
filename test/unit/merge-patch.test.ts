// The PATCH merge helper: RFC 7396's own examples, null kept where the schema gives it a meaning,
// top-level fields replaced, and the schema a merge patch is checked against before merging.

import { expect } from 'chai';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { applyPatch, mergePatch, mergePatchSchema, patchInputSchema } from '../../src/merge-patch.js';

describe('merge patch (RFC 7396)', () => {
  // RFC 7396, Appendix A: original, patch, result.
  const examples: Array<[unknown, unknown, unknown]> = [
    [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
    [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    [{ a: 'b' }, { a: null }, {}],
    [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
    [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
    [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
    [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
    [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
    [
      ['a', 'b'],
      ['c', 'd'],
      ['c', 'd'],
    ],
    [{ a: 'b' }, ['c'], ['c']],
    [{ a: 'foo' }, null, null],
    [{ a: 'foo' }, 'bar', 'bar'],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [[1, 2], { a: 'b', c: null }, { a: 'b' }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ];
  for (const [original, patch, result] of examples) {
    it(`${JSON.stringify(original)} + ${JSON.stringify(patch)} = ${JSON.stringify(result)}`, () => {
      expect(mergePatch(original, patch)).to.deep.equal(result);
    });
  }

  it('never changes the target it merges into', () => {
    const target = { a: { b: 1 } };
    mergePatch(target, { a: { b: 2, c: 3 } });
    expect(target).to.deep.equal({ a: { b: 1 } });
  });

  it('keeps a null where the schema lets that key be null (it means something), and removes it elsewhere', () => {
    const schema = {
      type: 'object',
      properties: {
        guard: { type: 'object', properties: { minSpend: { type: ['integer', 'null'] }, label: { type: 'string' } } },
        budget: { anyOf: [{ type: 'object', properties: { dailyAmount: { type: 'integer' } } }, { type: 'null' }] },
      },
    };
    expect(mergePatch({ guard: { minSpend: 5, label: 'x' } }, { guard: { minSpend: null, label: null } }, schema)).to.deep.equal({ guard: { minSpend: null } });
    expect(mergePatch({ budget: { dailyAmount: 5 } }, { budget: null }, schema)).to.deep.equal({ budget: null });
    expect(mergePatch({ budget: { dailyAmount: 5 } }, { budget: { dailyAmount: null } }, schema)).to.deep.equal({ budget: {} });
  });
});

describe('applyPatch', () => {
  it('merges object-valued fields, replaces the others as sent (a top-level null included) and keeps what was not sent', () => {
    const current = { name: 'A', brandIds: [1, 2], settings: { budget: { dailyAmount: 5000 }, startOffsetDays: 2 }, accounts: ['x', 'y'] };
    const next = applyPatch(current, { brandIds: null, settings: { budget: { dailyAmount: 8000 } }, accounts: ['z'], unsent: undefined });
    expect(next).to.deep.equal({ name: 'A', brandIds: null, settings: { budget: { dailyAmount: 8000 }, startOffsetDays: 2 }, accounts: ['z'] });
    expect(current.settings.budget.dailyAmount).to.equal(5000);
  });
});

describe('the schema of a merge patch', () => {
  const settings = {
    type: 'object',
    additionalProperties: false,
    required: ['budget'],
    properties: {
      budget: {
        type: 'object',
        additionalProperties: false,
        required: ['dailyAmount'],
        minProperties: 1,
        properties: { dailyAmount: { type: 'integer', minimum: 100 } },
      },
      startOffsetDays: { type: 'integer', minimum: 0, default: 0 },
      mode: { enum: ['a', 'b'] },
    },
  };
  const input = { type: 'object', additionalProperties: false, required: ['id'], properties: { id: { type: 'integer' }, name: { type: 'string' }, settings } };
  const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, useDefaults: true });

  it('lets every key inside an object-valued field be null and none be required, and fills in no default', () => {
    const validate = ajv.compile(patchInputSchema(input));
    const body = { id: 1, settings: { budget: { dailyAmount: null }, mode: null } };
    expect(validate(body), ajv.errorsText(validate.errors)).to.equal(true);
    expect(body.settings).to.deep.equal({ budget: { dailyAmount: null }, mode: null });
    expect(validate({ id: 1, settings: {} })).to.equal(true);
  });

  it('still checks types, limits, unknown keys and the top-level fields as they are', () => {
    const validate = ajv.compile(patchInputSchema(input));
    expect(validate({ id: 1, settings: { budget: { dailyAmount: 50 } } })).to.equal(false);
    expect(validate({ id: 1, settings: { colour: 'red' } })).to.equal(false);
    expect(validate({ id: 1, settings: { mode: 'c' } })).to.equal(false);
    expect(validate({ id: 1, settings: null })).to.equal(false);
    expect(validate({ id: 1, name: null })).to.equal(false);
    expect(validate({ settings: {} })).to.equal(false);
  });

  it('leaves a schema that is not an object schema alone apart from defaults', () => {
    expect(mergePatchSchema({ type: 'integer', default: 3 })).to.deep.equal({ type: 'integer' });
  });
});
