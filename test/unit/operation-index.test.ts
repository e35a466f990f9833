// The service starts from a generated index of the catalogue and loads each area's handlers on the
// first call of one of its operations (src/catalogue/lazy.ts): the index must be exactly what the
// generator writes now, and a definition that differs from its entry is refused when its area loads.

import fs from 'node:fs';
import { expect } from 'chai';
import { OPERATION_INDEX_FILE, renderOperationIndex } from '../../scripts/write-operation-index.js';
import { Catalogue, type OperationDefinition } from '../../src/catalogue/define.js';
import { indexEntry, lazyDefinitions, type OperationArea } from '../../src/catalogue/lazy.js';
import { indexedOperations } from '../../src/wiring/operation-areas.js';
import { internalOperations, operations } from '../../src/wiring/operations.js';
import { SchemaRegistry } from '../../src/schemas/registry.js';

/** A shipped operation (its index entry passes the catalogue's checks) with a handler and an onTimeout of the test's own. */
const probe: OperationDefinition = {
  ...operations.find((op) => op.name === 'list-brands')!,
  onTimeout: () => ({ message: 'It goes on.', details: {} }),
  handler: async () => ({ accounts: [], nextCursor: null }),
};

describe('operation index', () => {
  it('matches src/wiring/operations.generated.json (run `npm run generate` after changing an operation)', async () => {
    const committed = fs.readFileSync(OPERATION_INDEX_FILE, 'utf8');
    expect(committed === (await renderOperationIndex()), 'src/wiring/operations.generated.json is stale: run `npm run generate`').to.equal(true);
  });

  it('gives the catalogue every operation with the members its definition has, surfaces and internal ones in order', () => {
    const indexed = new Catalogue(new SchemaRegistry(), indexedOperations());
    const loaded = new Catalogue(new SchemaRegistry(), [...operations, ...internalOperations]);
    expect(indexed.list().map((op) => op.name)).to.deep.equal(loaded.list().map((op) => op.name));
    for (const op of [...operations, ...internalOperations]) {
      const lazy = indexed.get(op.name)!;
      const { handler: _a, onTimeout: _b, upload: _c, ...members } = op;
      expect(lazy, op.name).to.deep.include(JSON.parse(JSON.stringify(members)));
      expect(Boolean(lazy.onTimeout), `${op.name} onTimeout`).to.equal(Boolean(op.onTimeout));
      expect(Boolean(lazy.upload?.checkHead), `${op.name} checkHead`).to.equal(Boolean(op.upload?.checkHead));
    }
  });

  it('loads an area once, on the first call of one of its operations, and then calls its handler', async () => {
    let loads = 0;
    const area: OperationArea = { area: 'probe', load: async () => (loads++, [probe]) };
    const [lazy] = lazyDefinitions([indexEntry(probe, 'probe')], [area]);
    expect(loads).to.equal(0);
    expect(lazy.onTimeout!({})).to.equal(undefined);
    const answers = await Promise.all([lazy.handler({} as never, {}), lazy.handler({} as never, {})]);
    expect(answers).to.deep.equal([
      { accounts: [], nextCursor: null },
      { accounts: [], nextCursor: null },
    ]);
    expect(loads).to.equal(1);
    expect(lazy.onTimeout!({})).to.deep.equal({ message: 'It goes on.', details: {} });
  });

  it('refuses an area whose definition is not what the index records, and tries the area again on the next call', async () => {
    let loads = 0;
    const area: OperationArea = { area: 'probe', load: async () => (loads++, [{ ...probe, summary: 'Changed since the index was written.' }]) };
    const [lazy] = lazyDefinitions([indexEntry(probe, 'probe')], [area]);
    for (let i = 0; i < 2; i++) {
      const err = await lazy.handler({} as never, {}).then(
        () => null,
        (e: Error) => e,
      );
      expect(err?.message).to.match(/list-brands.*run npm run generate/);
    }
    expect(loads).to.equal(2);
  });
});
