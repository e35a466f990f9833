// Every operation of the service, read top to bottom. Adding one here publishes it on every surface.

import type { OperationDefinition } from './define.js';
import { listBrands } from '../operations/brands.js';
import { listActivity } from '../operations/activity.js';
import { createLaunch, createLaunchFromSnapshot, createSnapshotTemplate, deleteLaunch, getLaunch, listLaunches, listSnapshotTemplates, updateLaunch } from '../operations/launches.js';
import { createNode, duplicateNode, getAdSet, removeNodes, updateNode } from '../operations/nodes.js';
import { editLiveCampaign, launchCampaign } from '../operations/publish.js';
import { getNamingConvention, getOverview, listCampaigns, listLeadForms, listOptions, setNamingConvention } from '../operations/ad-accounts.js';
import { getCreative, listCreatives, uploadCreative } from '../operations/creatives.js';
import { webhookOperations } from '../operations/webhooks.js';
import { workflowOperations } from '../operations/workflows.js';
import { copyOperations } from '../operations/copies.js';
import { structureTemplateOperations } from '../operations/structure-templates.js';
import { automationOperations } from '../operations/automations.js';
import { boardOperations } from '../operations/board.js';
import { trackerOperations } from '../operations/tracker.js';

export const operations: OperationDefinition[] = [
  listBrands,
  listActivity,
  listCampaigns,
  listLeadForms,
  listOptions,
  getOverview,
  getNamingConvention,
  setNamingConvention,
  uploadCreative,
  listCreatives,
  getCreative,
  createLaunch,
  listLaunches,
  getLaunch,
  updateLaunch,
  deleteLaunch,
  createNode,
  updateNode,
  getAdSet,
  removeNodes,
  duplicateNode,
  launchCampaign,
  editLiveCampaign,
  createSnapshotTemplate,
  listSnapshotTemplates,
  createLaunchFromSnapshot,
  ...webhookOperations,
  ...workflowOperations,
  ...copyOperations,
  ...structureTemplateOperations,
  ...automationOperations,
  ...boardOperations,
  ...trackerOperations,
];
