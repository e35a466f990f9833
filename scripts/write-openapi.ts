// Writes docs/openapi.json from the catalogue and schemas (`npm run openapi`); a test checks it for drift.

import fs from 'node:fs';
import { pathToFileURL } from 'node:url';
import { SchemaRegistry } from '../src/schemas/registry.js';
import { Catalogue } from '../src/catalogue/define.js';
import { operations } from '../src/wiring/operations.js';
import { projectPath } from '../src/paths.js';
import { buildOpenApi } from '../surfaces/rest/openapi.js';

/** The OpenAPI document exactly as committed. */
export function renderOpenApi(): string {
  const schemas = new SchemaRegistry();
  return JSON.stringify(buildOpenApi(new Catalogue(schemas, operations), schemas), null, 2) + '\n';
}

export const OPENAPI_FILE = projectPath('docs', 'openapi.json');

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  fs.writeFileSync(OPENAPI_FILE, renderOpenApi());
  process.stderr.write(`Wrote ${OPENAPI_FILE}\n`);
}
