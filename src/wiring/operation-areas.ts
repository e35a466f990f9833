// Every area of the catalogue, read top to bottom: each area's operations module, in the order the
// surfaces list them (each area's own operations.ts gives the order within it). Adding an operation
// to an area's list publishes it on every surface, once `npm run generate` has written it into the
// index (operations.generated.json) that the service starts from: the service loads an area's
// module on the first call of one of its operations (src/catalogue/lazy.ts), not at start-up.

import fs from 'node:fs';
import type { OperationDefinition } from '../catalogue/define.js';
import { lazyDefinitions, type IndexedOperation, type OperationArea } from '../catalogue/lazy.js';
import { projectPath } from '../paths.js';

/** The index of every operation (written by `npm run generate`, checked for drift by test/unit/operation-index.test.ts). */
export const OPERATION_INDEX_FILE = projectPath('src', 'wiring', 'operations.generated.json');

export const operationAreas: OperationArea[] = [
  { area: 'brands', load: async () => (await import('../brands/operations.js')).operations },
  { area: 'activity', load: async () => (await import('../activity/operations.js')).operations },
  { area: 'ad-accounts', load: async () => (await import('../ad-accounts/operations.js')).operations },
  { area: 'reports', load: async () => (await import('../reports/operations.js')).operations },
  { area: 'creatives', load: async () => (await import('../creatives/operations.js')).operations },
  { area: 'launches', load: async () => (await import('../launches/operations.js')).operations },
  { area: 'webhooks', load: async () => (await import('../webhooks/operations.js')).operations },
  { area: 'workflows', load: async () => (await import('../workflows/operations.js')).operations },
  { area: 'copy', load: async () => (await import('../copy/operations.js')).operations },
  { area: 'structure-templates', load: async () => (await import('../structure-templates/operations.js')).operations },
  { area: 'automations', load: async () => (await import('../automations/operations.js')).operations },
  { area: 'board', load: async () => (await import('../board/operations.js')).operations },
  { area: 'trackers', load: async () => (await import('../trackers/operations.js')).operations },
];

/** Operations the service invokes itself, offered on no surface (catalogue.get finds them, catalogue.list leaves them out). */
export const internalAreas: OperationArea[] = [
  { area: 'automation-actions', load: async () => (await import('../automations/actions.js')).internalOperations },
];

/** The operations of `areas`, each area's module loaded now, in order. */
export async function loadAreas(areas: OperationArea[]): Promise<OperationDefinition[]> {
  return (await Promise.all(areas.map((a) => a.load()))).flat();
}

/** Every operation of the index, surfaces' and internal ones, each area's module loaded on first use. */
export function indexedOperations(): OperationDefinition[] {
  const index = JSON.parse(fs.readFileSync(OPERATION_INDEX_FILE, 'utf8')) as IndexedOperation[];
  return lazyDefinitions(index, [...operationAreas, ...internalAreas]);
}
