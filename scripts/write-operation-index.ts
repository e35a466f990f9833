// The index the service starts from (src/wiring/operations.generated.json): every operation of each
// area, surfaces' and internal ones, as its definition without functions (src/catalogue/lazy.ts).
// Generated so that a server starts without loading every area's handlers;
// test/unit/operation-index.test.ts checks it for drift.

import { indexEntry } from '../src/catalogue/lazy.js';
import { internalAreas, operationAreas } from '../src/wiring/operation-areas.js';

export { OPERATION_INDEX_FILE } from '../src/wiring/operation-areas.js';

/** The file's text: the entries as JSON, one member a line. */
export async function renderOperationIndex(): Promise<string> {
  const entries = [];
  for (const area of [...operationAreas, ...internalAreas]) for (const op of await area.load()) entries.push(indexEntry(op, area.area));
  return JSON.stringify(entries, null, 1) + '\n';
}
