// The command list of `svc` (surfaces/cli/commands.generated.json): each operation of the catalogue
// as a command, its flags typed by the bundled input schema. Generated so that the client reads one
// file instead of loading the server's catalogue; test/unit/cli-commands.test.ts checks it for drift.

import { Catalogue } from '../src/catalogue/define.js';
import { operations } from '../src/wiring/operations.js';
import { SchemaRegistry } from '../src/schemas/registry.js';
import { buildCommands } from '../surfaces/cli/commands.js';

export { COMMANDS_FILE } from '../surfaces/cli/commands.js';

/** The file's text: the commands as JSON, one property a line. */
export function renderCliCommands(): string {
  const schemas = new SchemaRegistry();
  return JSON.stringify(buildCommands(new Catalogue(schemas, operations).list(), schemas), null, 1) + '\n';
}
