// What each ad platform accepts: objectives, the optimization goals that go with them, the service's
// minimum budgets (minor units; the platforms' own are checked in meta-rules.ts and tiktok-rules.ts)
// and the objectives whose ads need a link.

import type { PlatformName } from '../platforms/port.js';

export interface PlatformRules {
  goals: Record<string, string[]>;
  minCampaignBudget: number;
  minAdSetBudget: number;
  linkObjectives: string[];
}

export const RULES: Record<PlatformName, PlatformRules> = {
  meta: {
    goals: {
      OUTCOME_AWARENESS: ['REACH', 'IMPRESSIONS', 'AD_RECALL_LIFT', 'THRUPLAY'],
      OUTCOME_TRAFFIC: ['LINK_CLICKS', 'LANDING_PAGE_VIEWS', 'IMPRESSIONS', 'REACH'],
      OUTCOME_ENGAGEMENT: ['POST_ENGAGEMENT', 'THRUPLAY', 'LINK_CLICKS', 'IMPRESSIONS', 'REACH'],
      OUTCOME_LEADS: ['LEAD_GENERATION', 'QUALITY_LEAD', 'OFFSITE_CONVERSIONS', 'LINK_CLICKS'],
      OUTCOME_SALES: ['OFFSITE_CONVERSIONS', 'VALUE', 'LINK_CLICKS', 'LANDING_PAGE_VIEWS'],
      // Meta's goals only (APP_EVENTS is none: codegen enum_types.json adaccountadsets_optimization_goal_enum_param).
      OUTCOME_APP_PROMOTION: ['APP_INSTALLS', 'OFFSITE_CONVERSIONS', 'VALUE', 'LINK_CLICKS'],
    },
    minCampaignBudget: 100,
    minAdSetBudget: 100,
    linkObjectives: ['OUTCOME_TRAFFIC', 'OUTCOME_SALES'],
  },
  tiktok: {
    goals: {
      REACH: ['REACH'],
      TRAFFIC: ['CLICK', 'LANDING_PAGE_VIEW'],
      VIDEO_VIEWS: ['VIDEO_VIEW'],
      LEAD_GENERATION: ['LEAD_GENERATION', 'CLICK'],
      WEB_CONVERSIONS: ['CONVERT', 'VALUE'],
      APP_PROMOTION: ['INSTALL'],
    },
    // The service's floor; TikTok's own (per currency, ../platforms/tiktok/budgets.ts) are checked in tiktok-rules.ts.
    minCampaignBudget: 100,
    minAdSetBudget: 100,
    linkObjectives: ['TRAFFIC', 'WEB_CONVERSIONS'],
  },
};
