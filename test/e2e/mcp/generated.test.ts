// Generated artefacts are committed and drift-checked: the MCP tool snapshot and the README table.

import fs from 'node:fs';
import { expect } from 'chai';
import { README_FILE, TOOLS_FILE, readmeWithTable, renderTools } from '../../../scripts/write-generated.js';

describe('generated MCP artefacts', () => {
  it('match the committed tool snapshot test/snapshots/tools.json (run `npm run generate` after changing an operation)', () => {
    expect(fs.readFileSync(TOOLS_FILE, 'utf8')).to.equal(renderTools());
  });

  it('match the tool table in README.md', () => {
    const readme = fs.readFileSync(README_FILE, 'utf8');
    expect(readme).to.equal(readmeWithTable(readme));
  });
});
