// The ad-platform port: the only way the core talks to an ad platform. Adapters: the sandbox
// simulator (default), Meta's Graph Marketing API and TikTok's Business API.

import type { AdvantageStateInfo } from './meta/advantage.js';
import type { IdentityType, PlatformName } from './platform-name.js';
import type { MetaAccountFacts, MetaFactsWanted } from './meta/rules.js';

export type { IdentityType, PlatformName };

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
  /** Meta: the Facebook Page the account's ads run as, and its Instagram account (live-platforms.md "Who the ads speak as"). */
  pageId?: string | null;
  instagramUserId?: string | null;
  /** TikTok: the identity the account's ads run as. */
  identityId?: string | null;
  identityType?: IdentityType | null;
  /** The name of the account's brand: a TikTok landing-page ad's display name when the ad names none. */
  brandName?: string | null;
  /** Meta: who benefits from and who pays for ads targeting the EU (AdSet dsa_beneficiary, dsa_payor); null: Meta's account defaults. */
  dsaBeneficiary?: string | null;
  dsaPayor?: string | null;
  /** TikTok: the Business Center of a BC_AUTH_TT identity (identity_authorized_bc_id). */
  identityBcId?: string | null;
  /** Allowlist-only platform features granted to the account, and countries declared to the platform. */
  allowlisted?: string[];
  declaredCountries?: string[];
  /** Meta: the verified beneficiary and payer identity ids Meta issued per country that needs them (SG, TW). */
  regionalIdentities?: RegionalIdentities | null;
  /** TikTok: whether the advertiser may use the Smart+ endpoints. */
  smartPlusAllowed?: boolean;
}

/** Per country (ISO code), the verified identity ids of the ads' beneficiary and payer (Meta RegionalRegulationIdentities). */
export type RegionalIdentities = Record<string, { beneficiary: string; payer: string }>;

/** A creative file to put on an ad account, once: the answer is kept per creative and account. */
export interface CreativeFile {
  creativeId: number;
  type: 'image' | 'video';
  name: string;
  mime: string;
  bytes: Buffer;
  width: number;
  height: number;
  /** Hex MD5 of the bytes (TikTok's image_signature / video_signature). */
  md5: string;
}

/** The platform's reference to an uploaded creative: Meta image hash or video id, TikTok image_id or video_id. */
export interface UploadedCreative {
  ref: string;
  /** A video's cover or thumbnail as the platform takes it in an ad (Meta image hash or URL, TikTok image_id); null for images. */
  thumbnailRef: string | null;
}

/** Progress of a long adapter step (a video the platform is still processing). */
export type AdapterProgress = (message: string) => void;

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
  /**
   * Meta's `advantage_state_info` as the platform answered it (whether the campaign is an Advantage+
   * campaign, and its budget, audience and placement states: meta/advantage.ts); null where the
   * platform says none (TikTok, a Graph version without it).
   */
  advantageStateInfo?: AdvantageStateInfo | null;
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

/** The levels a performance report (get-insights) reads at. */
export type ReportLevel = 'account' | InsightsLevel;

/** The one breakdown a report may split its rows by. */
export type ReportBreakdown = 'day' | 'age' | 'gender' | 'country' | 'placement';

/** The age brackets every platform's report is mapped to. */
export const AGE_BRACKETS = ['18-24', '25-34', '35-44', '45-54', '55-64', '65+', 'unknown'] as const;

/** A performance report: every row of `level` over `window`, split by `breakdown`, narrowed to campaigns. */
export interface ReportQuery {
  level: ReportLevel;
  window: DateWindow;
  breakdown: ReportBreakdown | null;
  /** Only these campaigns (and what is under them); null: every campaign of the account. */
  campaignIds: string[] | null;
}

/** One row of a report: the ids its level needs, the breakdown's value, and the delivery. */
export interface ReportRow {
  campaignId: string | null;
  adsetId: string | null;
  adId: string | null;
  name: string | null;
  /** The breakdown's value (a date, an age bracket...), null without a breakdown. */
  key: string | null;
  spendMinorUnits: number;
  impressions: number;
  clicks: number;
  results: number;
  /** People reached; null where the platform does not say. */
  reach: number | null;
}

/** What to create: the platform objects of a launch, each with the service's marker for reconciliation. */
export interface ObjectSpec {
  level: Exclude<ObjectLevel, 'creative'> | 'creative';
  /**
   * The service's own key for the object (its node id). It never goes into a name a person reads: the
   * adapter carries it where the platform keeps such things (Meta `adlabels`, TikTok `request_id`) so
   * that a create whose answer was lost can be found again (`findCreated`).
   */
  marker: string;
  /**
   * The launch's publish attempt (1, 2, ...). With the marker it makes the platform's idempotency key
   * where the platform has one (TikTok `request_id`): the same when an attempt is carried on after a
   * crash, new for the next attempt, so a publish after a rollback never gets the deleted objects back.
   */
  attempt?: number;
  /**
   * This create may have been sent before (an interrupted publish carried on) without its answer
   * being recorded: where the platform has no idempotency key for the level (TikTok ads), the
   * adapter looks for the object before it sends the create.
   */
  mayExist?: boolean;
  name: string;
  parentId: string | null;
  status: 'ACTIVE' | 'PAUSED';
  objective?: string;
  budget?: Budget | null;
  /**
   * Everything else the level needs (targeting, schedule, link...), platform-neutral. An ad's settings
   * carry who it speaks as, already resolved from the ad's override or its account: `pageId`,
   * `instagramUserId` (Meta), `identityId`, `identityType` (TikTok).
   */
  settings: Record<string, unknown>;
  /** An ad's creative, already uploaded to this ad account (`uploadCreative`); null or absent: no creative. */
  creative?: { type: 'image' | 'video'; ref: string; thumbnailRef: string | null } | null;
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
    readonly extra: {
      retryAfterMs?: number;
      field?: string;
      platformCode?: number | string;
      /** The platform's error subcode (Meta error_subcode). */
      platformSubcode?: number;
      /** The ad account the refused call was for (a refused token, an app in development mode...). */
      accountId?: string;
      /** The Facebook Page the refused call named (Meta: a lead ad's Page). */
      pageId?: string;
      /** The account has no access token: nothing was sent to the platform. */
      noToken?: boolean;
    } = {},
  ) {
    super(message);
    this.name = 'PlatformError';
  }
}

/** `err` naming ad account `accountId` (so the answer can say which account), else `err` itself when it is no PlatformError or names one. */
export function namingAccount(err: unknown, accountId: string): unknown {
  if (!(err instanceof PlatformError) || err.extra.accountId) return err;
  return new PlatformError(err.kind, err.message, { ...err.extra, accountId });
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
  /**
   * A performance report (get-insights): every row of the query's level, read to the end of the
   * platform's paging (within its caps), in a stable order; money in the account's minor units.
   */
  report(account: AdAccount, query: ReportQuery): Promise<ReportRow[]>;
  /** Creates objects in order (parents before children; a spec's parentId may name an earlier result). */
  createObjects(account: AdAccount, specs: ObjectSpec[]): Promise<ObjectRef[]>;
  /**
   * The objects of `level` this service created with any of `markers` (ObjectSpec.marker), found again
   * with a few list calls per level, never one call per marker. Objects deleted on the platform are left
   * out: what a rollback deleted is never taken up again. `recorded` holds the ids the service stored
   * for some of the markers (their create's answer): a platform that cannot be searched by marker
   * (TikTok) is asked whether those still exist, so a process that did not make them (a restart, the
   * recovery job elsewhere) finds them too.
   */
  findCreated(
    account: AdAccount,
    level: Exclude<ObjectLevel, 'creative'>,
    markers: string[],
    recorded?: ReadonlyMap<string, string>,
  ): Promise<Map<string, ObjectRef>>;
  /**
   * What the platform says, read by id (never by a search), of objects the service recorded: `held`
   * when it holds the object, `gone` when it answers that the object was deleted or does not exist.
   * An id it gave no clear answer for is left out, so the caller looks again later instead of
   * concluding from a lookup that came back short.
   */
  confirmRecorded(account: AdAccount, level: Exclude<ObjectLevel, 'creative'>, ids: string[]): Promise<Map<string, 'held' | 'gone'>>;
  /**
   * The ids of the objects of `level` (ad sets or ads) under any of `parentIds`, not deleted: before a
   * rollback, the objects whose create answers were lost where the platform cannot be searched by
   * marker (TikTok lists by `campaign_ids` / `adgroup_ids`). Every child of a launch's own parent is
   * the launch's. Empty where the platform needs no such list (Meta finds them by label).
   */
  childrenOf(account: AdAccount, level: 'adset' | 'ad', parentIds: string[]): Promise<string[]>;
  /**
   * Puts a creative file on the ad account (Meta adimages / advideos, TikTok file upload) and answers
   * the platform's reference; a video is answered once the platform says it is ready to use.
   */
  uploadCreative(account: AdAccount, file: CreativeFile, progress?: AdapterProgress): Promise<UploadedCreative>;
  /**
   * The ones of `countries` (ISO 3166-1 alpha-2) that the platform cannot target for this account, for an
   * ad set of `scope` (TikTok: not listed by its region tool for the ad set's objective and placements,
   * looked up once per advertiser, objective and placements, and kept); empty when all can.
   */
  unknownCountries(account: AdAccount, countries: string[], scope?: TargetingScope): Promise<string[]>;
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
  /**
   * Optional, for a platform whose creates do not leave objects as the publish needs them (TikTok starts
   * every campaign ENABLE whatever it is sent, so its ad groups and ads are created DISABLE): once every
   * object of a publish exists on the account, brings each of `objects` (all of the account's, with the
   * status the launch gives it) to that status, in few requests. Without it, the publish enables the
   * account's ACTIVE campaigns with setStatus.
   */
  finishPublish?(account: AdAccount, objects: Array<{ ref: ObjectRef; status: 'ACTIVE' | 'PAUSED' }>): Promise<void>;
  /**
   * Meta only: the account's minimum daily budgets (kept an hour; per manual bid when `wanted.bids`
   * names some), the DSA beneficiary and payer an EU ad set would carry, the account's own else Meta's
   * account defaults (read once, when `wanted.dsa` asks for them, and kept), and the countries of the
   * cities `wanted.cities` names.
   */
  metaAccountFacts?(account: AdAccount, wanted: MetaFactsWanted): Promise<MetaAccountFacts>;
  /**
   * Where the platform validates a create without doing it (Meta `execution_options=["validate_only"]`):
   * asks it for each of `specs` (parents already created, in as few round trips as the platform allows)
   * and answers, in order, null for a create it would take, else its refusal (its message, code and
   * subcode; `field` the service's property when the platform names one). Nothing is created.
   */
  validateCreates?(account: AdAccount, specs: ObjectSpec[]): Promise<Array<PlatformError | null>>;
  /**
   * Where the platform has no validate-only mode but tools that judge part of a create (TikTok
   * `/tool/url_validate/` for an ad's landing page): asks them about `specs` (a launch's objects before
   * any exists, parents unresolved), each distinct question once per call, and answers, in order, null
   * for a spec they find nothing against, else the refusal (`field` the service's property). Nothing is created.
   */
  validateWithTools?(account: AdAccount, specs: ObjectSpec[]): Promise<Array<PlatformError | null>>;
  /** Likewise for a budget change of a live object: null when the platform would take it, else its refusal; nothing changes. */
  validateBudget?(account: AdAccount, ref: ObjectRef, budget: Budget): Promise<PlatformError | null>;
}

/** The ad set a country lookup is for: its campaign's objective and its placements (TikTok's region tool asks both). */
export interface TargetingScope {
  objective?: string;
  placements?: unknown;
}
