// ctx.invoke: an operation running another one through the whole pipeline within its request.
// Two probe operations over a real server: one outside any transaction answers what the inner call
// answered, as the caller or as another principal (whose scopes then apply); one inside its
// transaction is refused before anything runs (the inner call would wait for it on SQLite).

import { expect } from 'chai';
import { defineOperation } from '../../src/catalogue/define.js';
import { dialects } from '../helpers/databases.js';
import { startWorld, type World } from '../helpers/world.js';

const S = 'https://json-schema.org/draft/2020-12/schema';
const probeSchema = {
  $schema: S,
  $id: 'test-nested',
  title: 'Test operation calling another through ctx.invoke',
  $defs: {
    input: {
      type: 'object',
      additionalProperties: false,
      required: ['brandId'],
      properties: { brandId: { $ref: 'common#/$defs/brandId' }, asWriteOnly: { type: 'boolean' } },
    },
    output: {
      type: 'object',
      additionalProperties: false,
      required: ['brands', 'status'],
      properties: { brands: { type: 'integer' }, status: { type: 'integer' } },
    },
  },
};

const probe = (name: string, transactional: boolean) =>
  defineOperation({
    name,
    method: 'POST',
    uses: ['invoke'],
    path: `/brands/{brandId}/${name}`,
    scope: 'write',
    idempotency: 'none',
    input: 'test-nested#/$defs/input',
    output: 'test-nested#/$defs/output',
    annotations: { readOnly: false, destructive: false, idempotent: true, openWorld: false },
    tag: 'test',
    toolset: 'launch',
    transactional,
    summary: 'Test: list brands through ctx.invoke.',
    async handler(ctx, input: { asWriteOnly?: boolean }) {
      const principal = input.asWriteOnly ? { ...ctx.principal, scopes: new Set(['write'] as const) } : undefined;
      const inner = await ctx.invoke('list-brands', { limit: 50 }, { principal });
      return { brands: (inner.body as { accounts: unknown[] }).accounts.length, status: inner.status };
    },
  });

for (const dialect of dialects()) {
  describe(`ctx.invoke (${dialect})`, function () {
    this.timeout(30_000);
    let w: World;

    before(async () => {
      w = await startWorld({ dialect, extraOperations: [probe('test-nested', false), probe('test-nested-in-trx', true)], extraSchemas: [probeSchema] });
    });
    after(async () => {
      await w?.close();
    });

    it('runs another operation through the pipeline as the caller, or as the principal given', async () => {
      const shoes = w.brandId('acme', 'shoes');
      const asCaller = await w.request('POST', `/v1/brands/${shoes}/test-nested`, { key: w.key('acme', 'ci'), body: {} });
      expect(asCaller.status, JSON.stringify(asCaller.body)).to.equal(200);
      expect(asCaller.body).to.deep.equal({ brands: 3, status: 200 });
      // The inner call checks its own scope, for the principal it runs as: write alone may not list brands.
      const asWriteOnly = await w.request('POST', `/v1/brands/${shoes}/test-nested`, { key: w.key('acme', 'ci'), body: { asWriteOnly: true } });
      expect(asWriteOnly.status).to.equal(403);
      expect(asWriteOnly.body.error).to.deep.include({ code: 'insufficient_scope', details: { requiredScope: 'read' } });
      const writer = await w.request('POST', `/v1/brands/${shoes}/test-nested`, { key: w.key('acme', 'writer'), body: {} });
      expect(writer.status).to.equal(403);
      expect(writer.body.error).to.deep.include({ code: 'insufficient_scope', details: { requiredScope: 'read' } });
    });

    it('refuses a call from inside a transaction (500 internal_error) instead of waiting for ever', async () => {
      const shoes = w.brandId('acme', 'shoes');
      const refused = await w.request('POST', `/v1/brands/${shoes}/test-nested-in-trx`, { key: w.key('acme', 'ci'), body: {} });
      expect(refused.status).to.equal(500);
      expect(refused.body.error.code).to.equal('internal_error');
    });
  });
}
