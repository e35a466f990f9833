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

/** An area whose module exports its `operations`. */
const area = (name: string, load: () => Promise<{ operations: OperationDefinition[] }>): OperationArea => ({
  area: name,
  load: async () => (await load()).operations,
});

export const operationAreas: OperationArea[] = [
  area('brands', () => import('../brands/operations.js')),
  area('activity', () => import('../activity/operations.js')),
  area('ad-accounts', () => import('../ad-accounts/operations.js')),
  area('reports', () => import('../reports/operations.js')),
  area('creatives', () => import('../creatives/operations.js')),
  area('launches', () => import('../launches/operations.js')),
  area('webhooks', () => import('../webhooks/operations.js')),
  area('workflows', () => import('../workflows/operations.js')),
  area('copy', () => import('../copy/operations.js')),
  area('structure-templates', () => import('../structure-templates/operations.js')),
  area('automations', () => import('../automations/operations.js')),
  area('board', () => import('../board/operations.js')),
  area('trackers', () => import('../trackers/operations.js')),
  area('approvals', () => import('../approvals/operations.js')),
];

/** Operations the service invokes itself, offered on no surface (catalogue.get finds them, catalogue.list leaves them out). */
export const internalAreas: OperationArea[] = [
  { area: 'automation-actions', load: async () => (await import('../automations/actions.js')).internalOperations },
  { area: 'approval-decisions', load: async () => (await import('../approvals/operations.js')).internalOperations },
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
