// Every operation of the service, read top to bottom: one list per area, each area's in the order
// its own operations.ts gives. Adding one to an area's list publishes it on every surface.

import type { OperationDefinition } from '../catalogue/define.js';
import { operations as brands } from '../brands/operations.js';
import { operations as activity } from '../activity/operations.js';
import { operations as adAccounts } from '../ad-accounts/operations.js';
import { operations as creatives } from '../creatives/operations.js';
import { operations as launches } from '../launches/operations.js';
import { operations as webhooks } from '../webhooks/operations.js';
import { operations as workflows } from '../workflows/operations.js';
import { operations as copy } from '../copy/operations.js';
import { operations as structureTemplates } from '../structure-templates/operations.js';
import { operations as automations } from '../automations/operations.js';
import { internalOperations as automationInternals } from '../automations/actions.js';
import { operations as board } from '../board/operations.js';
import { operations as trackers } from '../trackers/operations.js';
import { operations as reports } from '../reports/operations.js';

/** Operations the service invokes itself, offered on no surface (catalogue.get finds them, catalogue.list leaves them out). */
export const internalOperations: OperationDefinition[] = [...automationInternals];

export const operations: OperationDefinition[] = [
  ...brands,
  ...activity,
  ...adAccounts,
  ...reports,
  ...creatives,
  ...launches,
  ...webhooks,
  ...workflows,
  ...copy,
  ...structureTemplates,
  ...automations,
  ...board,
  ...trackers,
];
