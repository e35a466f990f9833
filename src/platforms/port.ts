// The ad-platform port: the only way the core talks to an ad platform. Adapters: the sandbox
// simulator (default), Meta's Graph Marketing API and TikTok's Business API.

export type PlatformName = 'meta' | 'tiktok';
export type ObjectLevel = 'campaign' | 'adset' | 'ad' | 'creative';
export type PlatformStatus = 'ACTIVE' | 'PAUSED' | 'ARCHIVED' | 'DELETED';
export type BudgetPeriod = 'daily' | 'lifetime';

export interface AdAccount {
  platform: PlatformName;
  accountId: string;
  timezone: string;
  currency: string;
  /** Access token for live mode (decrypted); null in sandbox mode. */
  accessToken: string | null;
}

export interface Budget {
  period: BudgetPeriod;
  amountMinorUnits: number;
}

export interface PlatformCampaign {
  id: string;
  name: string;
  status: PlatformStatus;
  effectiveStatus: string;
  objective: string;
  budget: Budget | null;
  /** Where the budget lives: on the campaign, or on its ad sets. */
  budgetLevel: 'campaign' | 'adset';
  createdAt: string;
}

export interface CampaignQuery {
  statuses?: PlatformStatus[];
  /** Case-insensitive substring of the name. */
  nameQuery?: string;
  /** The platform's own opaque position from a previous page. */
  after?: string | null;
  limit: number;
}

export interface CampaignPage {
  campaigns: PlatformCampaign[];
  /** Every campaign in the account, whatever the filters. */
  totalInAccount: number;
  /** Campaigns matching the filters, across all pages. */
  matched: number;
  after: string | null;
}

export interface LeadForm {
  id: string;
  name: string | null;
}

export interface LeadFormPage {
  leadForms: LeadForm[];
  after: string | null;
}

export type OptionType = 'pixels' | 'pages' | 'profileAccounts' | 'audiences' | 'interests' | 'locations' | 'conversionEvents';

export interface OptionItem {
  id: string;
  name: string;
  [extra: string]: unknown;
}

/** A date window in the account's timezone, both ends inclusive (YYYY-MM-DD). */
export interface DateWindow {
  since: string;
  until: string;
}

export interface Insights {
  spendMinorUnits: number;
  impressions: number;
  clicks: number;
  results: number;
  revenueMinorUnits: number;
}

/** The levels whose delivery can be read object by object. */
export type InsightsLevel = 'campaign' | 'adset' | 'ad';

/** Delivery of one object over a window: the totals plus reach (unique people, not additive across objects). */
export interface ObjectInsights extends Insights {
  objectId: string;
  reach: number;
}

/** What to create: the platform objects of a launch, each with the service's marker for reconciliation. */
export interface ObjectSpec {
  level: Exclude<ObjectLevel, 'creative'> | 'creative';
  /** Marker the service puts in the name (or tags) so a create whose answer was lost can be found. */
  marker: string;
  name: string;
  parentId: string | null;
  status: 'ACTIVE' | 'PAUSED';
  objective?: string;
  budget?: Budget | null;
  /** Everything else the level needs (targeting, schedule, creative, link...), platform-neutral. */
  settings: Record<string, unknown>;
}

export interface ObjectRef {
  level: ObjectLevel;
  id: string;
}

export type PlatformErrorKind = 'throttled' | 'transient' | 'authentication' | 'invalid_request' | 'not_found' | 'capability_unsupported';

/** The closed set of failures an adapter reports; the core maps each to one contract code. */
export class PlatformError extends Error {
  constructor(
    readonly kind: PlatformErrorKind,
    message: string,
    readonly extra: { retryAfterMs?: number; field?: string; platformCode?: number | string } = {},
  ) {
    super(message);
    this.name = 'PlatformError';
  }
}

export interface PlatformAdapter {
  readonly platform: PlatformName;
  listCampaigns(account: AdAccount, query: CampaignQuery): Promise<CampaignPage>;
  listLeadForms(account: AdAccount, pageId: string, after: string | null, limit: number): Promise<LeadFormPage>;
  listOptions(account: AdAccount, type: OptionType, query?: string): Promise<OptionItem[]>;
  insights(account: AdAccount, objectIds: string[], window: DateWindow): Promise<Insights>;
  /**
   * Delivery of each of `objectIds` (objects of `level`) over `window`, read in one platform request
   * (paged when the answer is long): one entry per distinct id, in the order asked, zeros for an
   * object that did not deliver or that the platform does not report.
   */
  insightsByObject(account: AdAccount, level: InsightsLevel, objectIds: string[], window: DateWindow): Promise<ObjectInsights[]>;
  /** Creates objects in order (parents before children; a spec's parentId may name an earlier result). */
  createObjects(account: AdAccount, specs: ObjectSpec[]): Promise<ObjectRef[]>;
  /** Finds objects created with `marker` (after a create whose answer was lost). */
  findByMarker(account: AdAccount, level: ObjectLevel, marker: string): Promise<ObjectRef | null>;
  updateObject(account: AdAccount, ref: ObjectRef, changes: { name?: string; settings?: Record<string, unknown> }): Promise<void>;
  setStatus(account: AdAccount, refs: ObjectRef[], status: 'ACTIVE' | 'PAUSED'): Promise<void>;
  /**
   * Sets the status of each of `refs` on its own, in as few platform requests as the platform
   * allows (Graph batch, TikTok's bulk status update): one outcome per ref, in order, null when it
   * changed, else why not (an unknown object, a refusal, a throttle that outlasted the waits). Unlike
   * setStatus, one object failing leaves the others changed.
   */
  setStatusEach(account: AdAccount, refs: ObjectRef[], status: 'ACTIVE' | 'PAUSED'): Promise<Array<PlatformError | null>>;
  setBudget(account: AdAccount, ref: ObjectRef, budget: Budget): Promise<void>;
  deleteObjects(account: AdAccount, refs: ObjectRef[]): Promise<void>;
}
