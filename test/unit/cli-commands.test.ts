// The commands of `svc` are generated from the catalogue (scripts/write-cli-commands.ts) and
// committed, so the client loads no server code: the file must be exactly what the generator writes now.

import fs from 'node:fs';
import { expect } from 'chai';
import { COMMANDS_FILE, renderCliCommands } from '../../scripts/write-cli-commands.js';

describe('generated svc commands', () => {
  it('match surfaces/cli/commands.generated.json (run `npm run generate` after changing an operation or a schema)', () => {
    const committed = fs.readFileSync(COMMANDS_FILE, 'utf8');
    expect(committed === renderCliCommands(), 'surfaces/cli/commands.generated.json is stale: run `npm run generate`').to.equal(true);
  });
});
