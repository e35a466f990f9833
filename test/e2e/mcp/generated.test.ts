// Generated artefacts are committed and drift-checked: one MCP tool snapshot per tool, the tool
// table of docs/mcp.md and the toolset list of README.md.

import fs from 'node:fs';
import { expect } from 'chai';
import { README_FILE, TOOL_TABLE_FILE, readToolSnapshots, renderToolSnapshots, withToolTable, withToolsetList } from '../../../scripts/write-generated.js';

describe('generated MCP artefacts', () => {
  const expected = renderToolSnapshots();
  const committed = readToolSnapshots();

  it('have one committed snapshot per tool under test/snapshots/tools/, and none for a tool that is gone (run `npm run generate`)', () => {
    expect([...committed.keys()].sort()).to.deep.equal([...expected.keys()].sort());
  });

  it('match every committed tool snapshot (run `npm run generate` after changing an operation or a schema)', () => {
    for (const [file, text] of expected) expect(committed.get(file), file).to.equal(text);
  });

  it('match the tool table in docs/mcp.md', () => {
    const doc = fs.readFileSync(TOOL_TABLE_FILE, 'utf8');
    expect(doc).to.equal(withToolTable(doc));
  });

  it('match the toolset list in README.md', () => {
    const readme = fs.readFileSync(README_FILE, 'utf8');
    expect(readme).to.equal(withToolsetList(readme));
  });
});
