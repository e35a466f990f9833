// Every operation of the service, read top to bottom. Adding one here publishes it on every surface.

import type { OperationDefinition } from './define.js';
import { listBrands } from '../operations/brands.js';
import { listActivity } from '../operations/activity.js';
import { getNamingConvention, getOverview, listCampaigns, listLeadForms, listOptions, setNamingConvention } from '../operations/ad-accounts.js';

export const operations: OperationDefinition[] = [
  listBrands,
  listActivity,
  listCampaigns,
  listLeadForms,
  listOptions,
  getOverview,
  getNamingConvention,
  setNamingConvention,
];
