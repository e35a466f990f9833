// Generated artefacts are committed and drift-checked: the MCP tool snapshot and the tool table of docs/mcp.md.

import fs from 'node:fs';
import { expect } from 'chai';
import { TOOL_TABLE_FILE, TOOLS_FILE, renderTools, withToolTable } from '../../../scripts/write-generated.js';

describe('generated MCP artefacts', () => {
  it('match the committed tool snapshot test/snapshots/tools.json (run `npm run generate` after changing an operation)', () => {
    expect(fs.readFileSync(TOOLS_FILE, 'utf8')).to.equal(renderTools());
  });

  it('match the tool table in docs/mcp.md', () => {
    const doc = fs.readFileSync(TOOL_TABLE_FILE, 'utf8');
    expect(doc).to.equal(withToolTable(doc));
  });
});
