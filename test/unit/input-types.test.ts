// The handlers' input types are generated from the JSON Schemas (scripts/write-input-types.ts) and
// committed: the file must be exactly what the generator writes now.

import fs from 'node:fs';
import { expect } from 'chai';
import { INPUT_TYPES_FILE, renderInputTypes } from '../../scripts/write-input-types.js';

describe('generated input types', () => {
  it('match src/catalogue/inputs.generated.ts (run `npm run generate` after changing an operation or a schema)', async () => {
    const committed = fs.readFileSync(INPUT_TYPES_FILE, 'utf8');
    expect(committed === (await renderInputTypes()), 'src/catalogue/inputs.generated.ts is stale: run `npm run generate`').to.equal(true);
  });
});
