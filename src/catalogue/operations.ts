// Every operation of the service, read top to bottom: one list per area, each area's in the order
// its own operations.ts gives. Adding one to an area's list publishes it on every surface.

import type { OperationDefinition } from './define.js';
import { operations as brands } from '../brands/operations.js';
import { operations as activity } from '../activity/operations.js';
import { operations as adAccounts } from '../ad-accounts/operations.js';
import { operations as creatives } from '../creatives/operations.js';
import { operations as launches } from '../launches/operations.js';
import { operations as workflows } from '../workflows/operations.js';
import { operations as board } from '../board/operations.js';
import { webhookOperations } from '../operations/webhooks.js';
import { operations as copy } from '../copy/operations.js';
import { structureTemplateOperations } from '../operations/structure-templates.js';
import { automationOperations } from '../operations/automations.js';
import { trackerOperations } from '../operations/tracker.js';

export const operations: OperationDefinition[] = [
  ...brands,
  ...activity,
  ...adAccounts,
  ...creatives,
  ...launches,
  // In the order the catalogue had before issue 25; areas not moved to src/<area>/ yet (phase 2) still export a named list.
  ...webhookOperations,
  ...workflows,
  ...copy,
  ...structureTemplateOperations,
  ...automationOperations,
  ...board,
  ...trackerOperations,
];
