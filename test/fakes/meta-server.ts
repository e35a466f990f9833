// A fake Graph Marketing API on loopback, as strict as Meta's published specification: every request
// is checked against test/fakes/meta-spec/graph-spec.json (generated from facebook-business-sdk-codegen
// api_specs: parameter names, types, required ones, enums; at v26.0 the ad set enums of the generated
// Java SDK, java-sdk.json) and against the rules the reference pages give (cited beside each), then
// against the rules the specification leaves out (meta-left-out.ts: Advantage+ flag, DSA fields,
// audiences, placements by version, lead forms, special-category countries, goals, bids, countries,
// minimum budgets, legacy smart_promotion_type), before anything is answered, in Graph's error format.
// A campaign read answers its `advantage_state_info` from its budget and ad sets as they are. It serves the versions of
// its own table (a call to an ended version is answered by the next one, an older one refused with
// 2635), answers `execution_options=["validate_only"]` as Meta does (validate, create nothing), and
// takes from a test a rule no document describes (`refuseWhen`). It holds ad accounts, campaigns, ad
// sets, ads, creatives, ad labels, images and videos in memory, serves the batch endpoint, insights,
// option lists and lead forms, and has fault switches for throttling (with the usage headers), error
// codes, 5xx answers, slow answers, a create whose answer is dropped and reads refused for permission.

import crypto from 'node:crypto';
import type http from 'node:http';
import { FaultServer, decimal, digitsOf, parseJson, type ReceivedRequest } from './fault-server.js';
import { GRAPH_SPEC, JAVA_SDK, checkParams, checkValue, fromForm, type Refusal } from './meta-spec/validate.js';
import {
  adLeftOut,
  adsetLeftOut,
  advantageStateInfo,
  ADVANTAGE_STATE_SINCE,
  legacyAdvantageLeftOut,
  budgetKindSwitch,
  budgetUpdateLeftOut,
  campaignLeftOut,
  creativeDefaults,
  fakeMinimums,
  removedCreativeField,
  stripRemovedPositions,
  type LeftOutRefusal,
} from './meta-left-out.js';

/** The Graph version the codegen specification describes (api_specs/specs/version.txt). */
export const SPEC_VERSION = GRAPH_SPEC.graphVersion;

/**
 * The Graph version `url` serves: the newest one a vendored generated source describes (the Java SDK's
 * APIConfig.DEFAULT_API_VERSION, java-sdk.json, past the codegen specs' version).
 */
export const GRAPH_VERSION = Number(JAVA_SDK.apiVersion.slice(1)) > Number(SPEC_VERSION.slice(1)) ? JAVA_SDK.apiVersion : SPEC_VERSION;

/**
 * The versions the fake serves, with their end dates (null: TBD). Source: Marketing API version history
 * (https://developers.facebook.com/documentation/ads-commerce/marketing-api/marketing-api-changelog/versions).
 * A call to an ended version is answered by the next one ("Once a version is unavailable, any calls made
 * to that version number will default to the next available version", Graph API "Versioning"); one older
 * than the table is refused with 2635.
 */
export const FAKE_VERSIONS: Array<{ major: number; ends: string | null }> = [
  { major: 24, ends: '2026-11-10' },
  { major: 25, ends: '2027-02-23' },
  { major: 26, ends: null },
  { major: 27, ends: null },
];

/** A request's own description, as a `refuseWhen` rule sees it. */
export interface GraphCall {
  method: string;
  /** Path below the version, e.g. /act_1001/campaigns or /1202.... */
  path: string;
  /** The level created or updated (campaign, adset, ad, creative), when the call is one. */
  level?: MetaLevel;
  /** Parameters as sent, JSON values parsed. */
  params: Record<string, unknown>;
  validateOnly: boolean;
}

/** How a `refuseWhen` rule refuses: Graph's message, code (default 100) and subcode. */
export interface UnwrittenRefusal {
  message: string;
  code?: number;
  subcode?: number;
  title?: string;
}

export type MetaLevel = 'campaign' | 'adset' | 'ad' | 'creative';

export interface MetaObject {
  id: string;
  level: MetaLevel;
  accountId: string;
  name: string;
  status: string;
  objective?: string;
  dailyBudget?: string;
  lifetimeBudget?: string;
  parentId: string | null;
  createdTime: string;
  seq: number;
  /** Every other parameter as sent (JSON values parsed). */
  params: Record<string, unknown>;
  /** Ids of the ad labels the object carries. */
  labels: string[];
}

export interface DayStats {
  spendMinor: number;
  impressions: number;
  clicks: number;
  results: number;
  revenueMinor: number;
  /** People reached that day (default: impressions / 1.5). */
  reach?: number;
}

interface Answer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
  created?: boolean;
}

interface GraphErrorSpec {
  status?: number;
  code?: number;
  subcode?: number;
  message?: string;
  isTransient?: boolean;
  errorData?: unknown;
}

const EDGE_LEVEL: Record<string, MetaLevel> = { campaigns: 'campaign', adsets: 'adset', ads: 'ad', adcreatives: 'creative' };
const BY_LABELS_LEVEL: Record<string, MetaLevel> = { campaignsbylabels: 'campaign', adsetsbylabels: 'adset', adsbylabels: 'ad' };
const ASSET_EDGES = ['adspixels', 'promote_pages', 'instagram_accounts', 'customaudiences'] as const;
export type MetaAssetEdge = (typeof ASSET_EDGES)[number];

const INTERESTS = [
  ['6003107902433', 'Running'],
  ['6003139266461', 'Shoes'],
  ['6003020834693', 'Fashion'],
  ['6003384248805', 'Fitness and wellness'],
  ['6003348604581', 'Hiking'],
  ['6003012317397', 'Sneakers'],
  ['6003107699532', 'Travel'],
  ['6003349442621', 'Yoga'],
].map(([id, name], i) => ({
  id,
  name,
  audience_size_lower_bound: 1_000_000 * (i + 1),
  audience_size_upper_bound: 1_200_000 * (i + 1),
  path: ['Interests', name],
}));

/** Locations the targeting search answers; a city's country decides whether an ad set targeting it needs the DSA fields. */
const LOCATIONS = [
  { key: 'US', name: 'United States', type: 'country', country_code: 'US' },
  { key: 'GB', name: 'United Kingdom', type: 'country', country_code: 'GB' },
  { key: 'DE', name: 'Germany', type: 'country', country_code: 'DE' },
  { key: 'FR', name: 'France', type: 'country', country_code: 'FR' },
  { key: '2418779', name: 'New York', type: 'city', country_code: 'US' },
  { key: '2490299', name: 'London', type: 'city', country_code: 'GB' },
  { key: '2418956', name: 'Berlin', type: 'city', country_code: 'DE' },
  { key: '1035987', name: 'Saint-Denis', type: 'city', country_code: 'RE' },
];

function graphTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, '+0000');
}

function graphError(status: number, code: number, message: string, extra: Record<string, unknown> = {}): Answer {
  return { status, body: { error: { message, type: 'OAuthException', code, ...extra, fbtrace_id: crypto.randomBytes(8).toString('hex') } } };
}

const notFound = (method: string, id: string) =>
  graphError(
    400,
    100,
    `Unsupported ${method.toLowerCase()} request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
    { error_subcode: 33 },
  );

// ---- rules --------------------------------------------------------------------------------
// Parameter names, types, required ones and enums come from graph-spec.json (validate.ts). What
// follows is written by hand from the Marketing API reference pages, each rule with its page.

/**
 * Parameters every read takes besides the edge's own: field selection, cursor paging and filtering.
 * Source: Graph API "Using the Graph API" / "Paginated Results" (https://developers.facebook.com/docs/graph-api/results)
 * and the `filtering` and `summary` parameters of the ad account edges
 * (https://developers.facebook.com/docs/marketing-api/reference/ad-account/campaigns/).
 */
const READ_COMMON: Record<string, string> = {
  fields: 'list<string>',
  limit: 'unsigned int',
  after: 'string',
  before: 'string',
  filtering: 'list<Object>',
  summary: 'list<string>',
  effective_status: 'list<string>',
};

/**
 * Largest page a list call may ask for. Assumption, not a published number: Graph's paging page
 * (https://developers.facebook.com/docs/graph-api/results) gives no ceiling; the fake refuses pages
 * above 5000 rows, the largest the Marketing API's insights examples use, so an adapter that pages
 * without bound fails here.
 */
export const MAX_PAGE_SIZE = 5000;

/**
 * Optimization goals each outcome objective takes. Source: Campaign reference, "Outcome-Driven Ads
 * Experiences" objective/optimization-goal table
 * (https://developers.facebook.com/docs/marketing-api/reference/ad-campaign-group/#odax).
 */
const GOALS_OF_OBJECTIVE: Record<string, string[]> = {
  OUTCOME_AWARENESS: ['AD_RECALL_LIFT', 'REACH', 'IMPRESSIONS', 'THRUPLAY'],
  OUTCOME_TRAFFIC: ['LINK_CLICKS', 'LANDING_PAGE_VIEWS', 'REACH', 'IMPRESSIONS', 'CONVERSATIONS', 'QUALITY_CALL', 'VISIT_INSTAGRAM_PROFILE', 'PROFILE_VISIT'],
  OUTCOME_ENGAGEMENT: [
    'POST_ENGAGEMENT',
    'THRUPLAY',
    'PAGE_LIKES',
    'EVENT_RESPONSES',
    'CONVERSATIONS',
    'LINK_CLICKS',
    'LANDING_PAGE_VIEWS',
    'IMPRESSIONS',
    'REACH',
    'OFFSITE_CONVERSIONS',
    'QUALITY_CALL',
    'REMINDERS_SET',
  ],
  OUTCOME_LEADS: [
    'LEAD_GENERATION',
    'QUALITY_LEAD',
    'OFFSITE_CONVERSIONS',
    'CONVERSATIONS',
    'QUALITY_CALL',
    'LINK_CLICKS',
    'LANDING_PAGE_VIEWS',
    'IMPRESSIONS',
    'REACH',
  ],
  OUTCOME_SALES: ['OFFSITE_CONVERSIONS', 'VALUE', 'LINK_CLICKS', 'LANDING_PAGE_VIEWS', 'CONVERSATIONS', 'QUALITY_CALL', 'IMPRESSIONS', 'REACH'],
  OUTCOME_APP_PROMOTION: ['APP_INSTALLS', 'APP_INSTALLS_AND_OFFSITE_CONVERSIONS', 'OFFSITE_CONVERSIONS', 'VALUE', 'LINK_CLICKS', 'IMPRESSIONS'],
};

/**
 * Billing events other than IMPRESSIONS (which every goal takes) and the one goal each goes with.
 * Source: "Optimization Goal and Billing Events"
 * (https://developers.facebook.com/docs/marketing-api/bidding/overview/billing-events). APP_INSTALLS is not
 * among them: Marketing API v9.0 changelog, "You can still specify APP_INSTALLS under billing_event or
 * optimization_goal, but not both at the same time".
 */
const GOAL_OF_BILLING_EVENT: Record<string, string> = {
  LINK_CLICKS: 'LINK_CLICKS',
  THRUPLAY: 'THRUPLAY',
  POST_ENGAGEMENT: 'POST_ENGAGEMENT',
  PAGE_LIKES: 'PAGE_LIKES',
};

/** Graph's refusal of a parameter (code 100), naming it in error_data.blame_field_specs. */
function refusal(r: Refusal): Answer {
  return graphError(400, 100, r.message, { error_data: { blame_field_specs: [r.field.split('.')] } });
}

/** A refusal of a rule the specification leaves out (meta-left-out.ts): code 100 with Meta's subcode and user title. */
function leftOut(r: LeftOutRefusal): Answer {
  return graphError(400, 100, r.message, {
    ...(r.subcode !== undefined ? { error_subcode: r.subcode } : {}),
    ...(r.title ? { error_user_title: r.title, error_user_msg: r.message.replace(/^\(#100\) /, '') } : {}),
    error_data: { blame_field_specs: [r.field.split('.')] },
  });
}

/** The spec check of one endpoint as an Answer (null when the request fits). */
function specCheck(endpoint: string, params: Record<string, unknown>, common: Record<string, string> = {}, major?: number): Answer | null {
  const checked = checkParams(endpoint, params, common, major);
  if ('refusal' in checked) return refusal(checked.refusal);
  const limit = params.limit === undefined ? null : Number(params.limit);
  if (limit !== null && limit > MAX_PAGE_SIZE) return refusal({ field: 'limit', message: `(#100) Param limit must be at most ${MAX_PAGE_SIZE}` });
  return null;
}

/** The first parameter not among `allowed`, as a refusal. */
function unknownParam(params: Record<string, unknown>, allowed: string[]): Refusal | null {
  const name = Object.keys(params).find((p) => !allowed.includes(p));
  return name ? { field: name, message: `(#100) Param ${name} is not a valid parameter of this call` } : null;
}

/** A multipart/form-data body as its fields (text) and files (bytes). */
function multipart(contentType: string, body: Buffer): { fields: Record<string, string>; files: Record<string, Buffer> } | null {
  const boundary = /boundary=(?:"([^"]+)"|([^;]+))/.exec(contentType);
  if (!boundary) return null;
  const marker = Buffer.from(`--${boundary[1] ?? boundary[2]}`);
  const fields: Record<string, string> = {};
  const files: Record<string, Buffer> = {};
  let at = body.indexOf(marker);
  while (at >= 0) {
    const next = body.indexOf(marker, at + marker.length);
    if (next < 0) break;
    const part = body.subarray(at + marker.length + 2, next - 2);
    const split = part.indexOf('\r\n\r\n');
    const head = part.subarray(0, split).toString('utf8');
    const content = part.subarray(split + 4);
    const name = /name="([^"]+)"/.exec(head)?.[1];
    if (name && /filename="/.test(head)) files[name] = content;
    else if (name) fields[name] = content.toString('utf8');
    at = next;
  }
  return { fields, files };
}

type GraphFault = { kind: 'throttle'; code: number; minutes: number; seconds?: number } | { kind: 'error'; spec: GraphErrorSpec };

/**
 * The AdsInsights fields this fake answers, as the Ads Insights reference lists them
 * (https://developers.facebook.com/docs/marketing-api/reference/adgroup/insights/, "Fields"): a
 * field outside the reference is refused with #100, as Graph does.
 */
const INSIGHTS_FIELDS = new Set([
  'account_id',
  'account_name',
  'campaign_id',
  'campaign_name',
  'adset_id',
  'adset_name',
  'ad_id',
  'ad_name',
  'spend',
  'impressions',
  'reach',
  'clicks',
  'actions',
  'action_values',
  'ctr',
  'cpc',
  'cpm',
  'frequency',
  'date_start',
  'date_stop',
  'objective',
]);

/**
 * The values each breakdown takes (Insights API "Breakdowns": age brackets, gender, ISO country,
 * publisher_platform with platform_position); the fake puts an object's delivery in the first two,
 * split exactly (the parts add up to the whole).
 */
const BREAKDOWN_VALUES: Record<string, string[]> = {
  age: ['25-34', '35-44'],
  gender: ['female', 'male'],
  country: ['US', 'CA'],
  publisher_platform: ['facebook', 'instagram'],
  platform_position: ['feed', 'story'],
};

function splitByBreakdowns(stats: Required<DayStats>, breakdowns: string[]): Array<{ keys: Record<string, string>; stats: Required<DayStats> }> {
  if (!breakdowns.length) return [{ keys: {}, stats }];
  const half = (n: number) => Math.floor(n / 2);
  const first = {
    spendMinor: half(stats.spendMinor),
    impressions: half(stats.impressions),
    clicks: half(stats.clicks),
    results: half(stats.results),
    revenueMinor: half(stats.revenueMinor),
    reach: half(stats.reach),
  };
  const second = {
    spendMinor: stats.spendMinor - first.spendMinor,
    impressions: stats.impressions - first.impressions,
    clicks: stats.clicks - first.clicks,
    results: stats.results - first.results,
    revenueMinor: stats.revenueMinor - first.revenueMinor,
    reach: stats.reach - first.reach,
  };
  return [first, second].map((part, i) => ({ keys: Object.fromEntries(breakdowns.map((b) => [b, BREAKDOWN_VALUES[b][i]])), stats: part }));
}

/** The fake Graph API; `requests` holds every HTTP request, in order (a batch counts once, with its size). */
export class FakeMetaServer extends FaultServer<Answer, GraphFault, { method: string; path: string; batch?: number; validateOnly?: boolean }> {
  readonly objects = new Map<string, MetaObject>();
  private readonly accounts = new Map<string, { token: string; currency: string; dsa?: { beneficiary?: string; payor?: string } }>();
  /** Facebook Pages the fake serves (`setPage`): their name and whether they accepted the lead ads terms. */
  private readonly pages = new Map<string, { name: string; leadgenTosAccepted: boolean }>();
  /**
   * The Meta app is in development mode: every write answers error 100, subcode 1885183 (Meta error
   * reference; integrations' reports of the subcode). Set by a test.
   */
  appInDevelopmentMode = false;
  /** Rules no document describes, set by a test (`refuseWhen`). */
  private readonly unwritten: Array<(call: GraphCall) => UnwrittenRefusal | null> = [];
  /** Objects whose reads answer 100/33 as if the token had lost permission on them (`losePermissionOn`). */
  private readonly permissionLost = new Set<string>();
  /** What the fake changed without a word, as Meta would (a position stripped, a creative enrolled): tests assert it stays empty. */
  readonly silentChanges: string[] = [];
  /** The major version answering the request being handled. */
  private answering = 0;
  /** "Today" for the version table and schedules (default: the clock). */
  now: () => number = Date.now;
  private readonly assets = new Map<string, Array<Record<string, unknown>>>();
  private readonly leadForms = new Map<string, Array<{ id: string; name: string }>>();
  private readonly stats = new Map<string, Map<string, DayStats>>();
  private readonly itemThrottles: number[] = [];
  /** Object id → writes to it inside batches throttled (code 17) for `minutes`, `times` more times (Infinity: always). */
  private readonly writeThrottles = new Map<string, { minutes: number; times: number }>();
  /** Object id → writes (POST) to it inside batches answer this Graph error (code, message). */
  private readonly writeRefusals = new Map<string, { code: number; message: string }>();
  /** Account → its ad labels by id. */
  private readonly labels = new Map<string, Map<string, { id: string; name: string }>>();
  /** Account → its image library by hash. */
  readonly images = new Map<string, Map<string, { hash: string; url: string }>>();
  /** Videos by id, with the polls of their status left until ready. */
  readonly videos = new Map<string, { id: string; accountId: string; name: string; bytes: number; pollsLeft: number; polls: number }>();
  /** Status polls a new video answers `processing` before `ready`. */
  videoPollsUntilReady = 2;
  private seq = 0;

  private constructor() {
    super(`/${GRAPH_VERSION}`);
  }

  static start(): Promise<FakeMetaServer> {
    return new FakeMetaServer().listen();
  }

  // ---- state seeding -------------------------------------------------------------------------

  /** Registers an ad account (act_…) and returns its access token. */
  addAccount(accountId: string, options: { token?: string; currency?: string } = {}): string {
    const token = options.token ?? `EAAB${crypto.randomBytes(12).toString('hex')}`;
    this.accounts.set(accountId, { token, currency: options.currency ?? 'USD' });
    return token;
  }

  /**
   * A rule no document describes: a write (create or update, validate_only included) for which `rule`
   * answers a refusal is refused with it, in Graph's error format (code 100 unless it says).
   */
  refuseWhen(rule: (call: GraphCall) => UnwrittenRefusal | null): void {
    this.unwritten.push(rule);
  }

  /** Forgets the rules set by `refuseWhen`. */
  clearUnwritten(): void {
    this.unwritten.length = 0;
  }

  /**
   * Reads of object `id` answer error 100 subcode 33 although it exists: "may occur if your access token
   * is not added as a system user with appropriate permissions" (Graph error reference). `false` ends it.
   */
  losePermissionOn(id: string, lost = true): void {
    if (lost) this.permissionLost.add(id);
    else this.permissionLost.delete(id);
  }

  /** A Facebook Page: its name and whether it accepted the lead ads terms (Page `leadgen_tos_accepted`). */
  setPage(pageId: string, page: { name?: string; leadgenTosAccepted: boolean }): void {
    this.pages.set(pageId, { name: page.name ?? `Page ${pageId}`, leadgenTosAccepted: page.leadgenTosAccepted });
  }

  /** The Meta account's own DSA defaults (AdAccount default_dsa_beneficiary, default_dsa_payor). */
  setDsaDefaults(accountId: string, dsa: { beneficiary?: string; payor?: string }): void {
    this.accounts.get(accountId)!.dsa = dsa;
  }

  private newId(): string {
    for (;;) {
      const id = `1202${crypto.randomInt(10 ** 12, 10 ** 13)}`;
      if (!this.objects.has(id)) return id;
    }
  }

  /** A campaign the account holds before the service touches it. */
  seedCampaign(accountId: string, c: { name: string; status?: string; objective?: string; dailyBudget?: number; lifetimeBudget?: number }): string {
    const id = this.newId();
    this.objects.set(id, {
      id,
      level: 'campaign',
      accountId,
      name: c.name,
      status: c.status ?? 'ACTIVE',
      objective: c.objective ?? 'OUTCOME_TRAFFIC',
      dailyBudget: c.dailyBudget !== undefined ? String(c.dailyBudget) : undefined,
      lifetimeBudget: c.lifetimeBudget !== undefined ? String(c.lifetimeBudget) : undefined,
      parentId: null,
      createdTime: graphTime(Date.now()),
      seq: ++this.seq,
      params: {},
      labels: [],
    });
    return id;
  }

  seedAsset(accountId: string, edge: MetaAssetEdge, item: Record<string, unknown>): void {
    const key = `${accountId}/${edge}`;
    this.assets.set(key, [...(this.assets.get(key) ?? []), item]);
  }

  seedLeadForm(pageId: string, form: { id: string; name: string }): void {
    this.leadForms.set(pageId, [...(this.leadForms.get(pageId) ?? []), form]);
  }

  /** Delivery of a campaign, ad set or ad on one date of the account's calendar. */
  seedStats(campaignId: string, date: string, stats: DayStats): void {
    const days = this.stats.get(campaignId) ?? new Map<string, DayStats>();
    days.set(date, stats);
    this.stats.set(campaignId, days);
  }

  /** Every Graph call routed (batch items one by one), its parameters as sent: what tests assert field by field. */
  readonly calls: Array<{ method: string; path: string; params: Record<string, unknown> }> = [];

  /** Labels of an account (id and name). */
  labelsOf(accountId: string): Array<{ id: string; name: string }> {
    return [...(this.labels.get(accountId)?.values() ?? [])];
  }

  /** The names of the ad labels an object carries. */
  labelNamesOf(o: MetaObject): string[] {
    return o.labels.map((id) => this.labels.get(o.accountId)?.get(id)?.name ?? '').filter(Boolean);
  }

  /** Objects of an account (optionally one level), oldest first. */
  objectsOf(accountId: string, level?: MetaLevel): MetaObject[] {
    return [...this.objects.values()].filter((o) => o.accountId === accountId && (!level || o.level === level)).sort((a, b) => a.seq - b.seq);
  }

  // ---- fault switches ------------------------------------------------------------------------

  /**
   * The next `n` requests are throttled (HTTP 400, `code`): for `minutes` (X-Business-Use-Case-Usage
   * estimated_time_to_regain_access), or for `seconds` (X-Ad-Account-Usage reset_time_duration, the
   * business use case then saying 0 minutes).
   */
  throttleNext(n: number, options: { code?: number; minutes?: number; seconds?: number } = {}): void {
    const minutes = options.seconds !== undefined ? 0 : (options.minutes ?? 1);
    this.queueFaults(n, { kind: 'throttle', code: options.code ?? 80004, minutes, seconds: options.seconds });
  }

  /** The next `n` requests answer a Graph error body (code 1, 2, 100, 190...). */
  errorNext(n: number, spec: GraphErrorSpec): void {
    this.queueFaults(n, { kind: 'error', spec });
  }

  /** The next `n` requests inside batches are throttled on their own (code 17), the batch itself answering 200. */
  throttleNextItems(n: number, minutes = 1): void {
    for (let i = 0; i < n; i++) this.itemThrottles.push(minutes);
  }

  /** Writes (POST) to object `id` inside batches are throttled on their own (code 17) for `minutes`, `times` times. */
  throttleWritesTo(id: string, minutes: number, times = Infinity): void {
    this.writeThrottles.set(id, { minutes, times });
  }

  /** Writes (POST) to object `id` inside batches answer Graph error `code` (HTTP 400) until `refuseWritesTo(id, null)`. */
  refuseWritesTo(id: string, refusal: { code: number; message: string } | null): void {
    if (refusal) this.writeRefusals.set(id, refusal);
    else this.writeRefusals.delete(id);
  }

  // (serverErrorNext, slowNext and dropNextCreate: see FaultServer.)

  // ---- HTTP ----------------------------------------------------------------------------------

  protected override respond({ req, url, method, body }: ReceivedRequest): Answer {
    const params: Record<string, unknown> = Object.fromEntries(url.searchParams);
    const contentType = String(req.headers['content-type'] ?? '');
    const form = method === 'POST' && contentType.startsWith('multipart/form-data') ? multipart(contentType, body) : null;
    if (form) {
      Object.assign(params, form.fields);
      for (const [name, bytes] of Object.entries(form.files)) params[name] = bytes;
    } else if (method === 'POST') {
      Object.assign(params, Object.fromEntries(new URLSearchParams(body.toString('utf8'))));
    }
    // The version the call names, and the one answering it (an ended version: the next one).
    const named = /^\/v(\d+)\.0(?=\/|$)/.exec(url.pathname);
    const served = named ? FAKE_VERSIONS.findIndex((v) => v.major === Number(named[1])) : -1;
    let answering = served;
    while (
      answering >= 0 &&
      answering + 1 < FAKE_VERSIONS.length &&
      FAKE_VERSIONS[answering].ends &&
      Date.parse(`${FAKE_VERSIONS[answering].ends}T00:00:00Z`) <= this.now()
    )
      answering++;
    this.answering = answering >= 0 ? FAKE_VERSIONS[answering].major : 0;
    const prefix = named ? named[0] : null;
    const path = prefix && served >= 0 ? url.pathname.slice(prefix.length) || '/' : null;
    const batch = path === '/' && method === 'POST' && typeof params.batch === 'string' ? (parseJson(params.batch) as unknown[]) : null;
    // A batch whose every item only asks for validation (execution_options validate_only) creates nothing.
    const validateOnly =
      Array.isArray(batch) &&
      batch.length > 0 &&
      batch.every((item) => /execution_options=[^&]*validate_only/.test(decodeURIComponent(String((item as { body?: unknown })?.body ?? ''))));
    this.requests.push({ method, path: url.pathname, ...(Array.isArray(batch) ? { batch: batch.length } : {}), ...(validateOnly ? { validateOnly } : {}) });

    let answer: Answer;
    const fault = this.faults.shift();
    const version = /^\/v(\d+)\.(\d+)(?:\/|$)/.exec(url.pathname);
    if (fault?.kind === 'throttle') {
      answer = this.throttleAnswer(fault.code, fault.minutes, url.pathname, fault.seconds);
    } else if (fault?.kind === 'error') {
      const s = fault.spec;
      answer = graphError(s.status ?? (s.code === 1 || s.code === 2 ? 500 : 400), s.code ?? 1, s.message ?? `(#${s.code ?? 1}) An unknown error occurred`, {
        ...(s.subcode !== undefined ? { error_subcode: s.subcode } : {}),
        ...(s.isTransient !== undefined ? { is_transient: s.isTransient } : {}),
        ...(s.errorData !== undefined ? { error_data: s.errorData } : {}),
      });
    } else if (fault?.kind === 'server') {
      answer = { status: fault.status, body: '<html><body>Service Unavailable</body></html>' };
    } else if (path === null && version && Number(version[1]) < FAKE_VERSIONS[0].major) {
      // A version past its 90 days: "Once a version is unavailable, any calls made to that version number
      // will fail" (https://developers.facebook.com/docs/marketing-api/versions); code 2635 is Graph's
      // "deprecated version" error (https://developers.facebook.com/docs/marketing-api/error-reference).
      answer = graphError(400, 2635, `(#2635) You are calling a deprecated version of the Ads API. Please update to the latest version: ${GRAPH_VERSION}.`);
    } else if (path === null) {
      answer = graphError(400, 2500, 'Unknown path components');
    } else {
      const token = String(params.access_token ?? /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '');
      delete params.access_token;
      const extra = batch ? Object.keys(params).find((k) => k !== 'batch' && k !== 'include_headers') : undefined;
      answer = extra
        ? refusal({ field: extra, message: `(#100) Param ${extra} is not a valid parameter of this call` })
        : batch
          ? this.runBatch(batch, token)
          : this.route(method, path, params, token);
    }
    return answer;
  }

  protected override write(res: http.ServerResponse, answer: Answer): void {
    const text = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
    res.writeHead(answer.status, { 'content-type': typeof answer.body === 'string' ? 'text/html' : 'application/json', ...(answer.headers ?? {}) });
    res.end(text);
  }

  /**
   * A throttled answer. Source: "Rate Limiting" (https://developers.facebook.com/docs/graph-api/overview/rate-limiting
   * and https://developers.facebook.com/docs/marketing-api/overview/rate-limiting): codes 4, 17, 32, 613 and
   * 80000-80014 come with X-Business-Use-Case-Usage, whose entries carry estimated_time_to_regain_access
   * (minutes); the ad account's own header X-Ad-Account-Usage carries reset_time_duration (seconds).
   */
  private throttleAnswer(code: number, minutes: number, path: string, seconds?: number): Answer {
    const account = /\/(act_\d+)/.exec(path)?.[1] ?? [...this.accounts.keys()][0] ?? 'act_0';
    const answer = graphError(400, code, `(#${code}) There have been too many calls to this ad-account. Wait a bit and try again.`, { error_subcode: 2446079 });
    answer.headers = {
      'x-business-use-case-usage': JSON.stringify({
        [account.replace(/^act_/, '')]: [
          { type: 'ads_management', call_count: 100, total_cputime: 28, total_time: 31, estimated_time_to_regain_access: minutes },
        ],
      }),
      ...(code === 17 || seconds !== undefined
        ? {
            'x-ad-account-usage': JSON.stringify({
              acc_id_util_pct: 100,
              reset_time_duration: seconds ?? minutes * 60,
              ads_api_access_tier: 'standard_access',
            }),
          }
        : {}),
    };
    return answer;
  }

  private runBatch(items: unknown[], token: string): Answer {
    if (!Array.isArray(items)) return graphError(400, 100, '(#100) Param batch must be a JSON array');
    // "The batch API ... limit of 50 requests per batch" (https://developers.facebook.com/docs/graph-api/batch-requests).
    if (items.length > 50) return graphError(400, 100, '(#100) Too many requests in batch message. Maximum batch size is 50');
    if (!token) return graphError(400, 104, 'An access token is required to request this resource.');
    if (!this.tokenKnown(token)) return graphError(400, 190, 'Invalid OAuth access token - Cannot parse access token');
    let created = false;
    const answers = items.map((raw) => {
      const item = raw as { method?: string; relative_url?: string; body?: string };
      const url = new URL(`/${(item.relative_url ?? '').replace(/^\/+/, '')}`, 'http://fake');
      const params: Record<string, unknown> = Object.fromEntries(url.searchParams);
      if (item.body) Object.assign(params, Object.fromEntries(new URLSearchParams(item.body)));
      const itemToken = typeof params.access_token === 'string' ? params.access_token : token;
      delete params.access_token;
      const method = (item.method ?? 'GET').toUpperCase();
      const target = this.writeThrottles.get(url.pathname.replace(/^\/+/, ''));
      let throttledFor = this.itemThrottles.shift();
      if (throttledFor === undefined && method === 'POST' && target && target.times > 0) {
        target.times--;
        throttledFor = target.minutes;
      }
      const refusal = method === 'POST' ? this.writeRefusals.get(url.pathname.replace(/^\/+/, '')) : undefined;
      const answer =
        throttledFor !== undefined
          ? this.throttleAnswer(17, throttledFor, url.pathname)
          : refusal
            ? graphError(400, refusal.code, refusal.message)
            : this.route(method, url.pathname, params, itemToken);
      created ||= Boolean(answer.created);
      const headers = [
        { name: 'Content-Type', value: 'application/json; charset=UTF-8' },
        ...Object.entries(answer.headers ?? {}).map(([name, value]) => ({ name, value })),
      ];
      return { code: answer.status, headers, body: JSON.stringify(answer.body) };
    });
    return { status: 200, body: answers, created };
  }

  private tokenKnown(token: string): boolean {
    return [...this.accounts.values()].some((a) => a.token === token);
  }

  private accountAllows(accountId: string, token: string): Answer | null {
    const account = this.accounts.get(accountId);
    if (!this.tokenKnown(token)) return graphError(400, 190, 'Invalid OAuth access token - Cannot parse access token');
    if (!account) return notFound('GET', accountId);
    if (account.token !== token) return graphError(403, 200, '(#200) Ad account owner has NOT grant ads_management or ads_read permission');
    return null;
  }

  private route(method: string, path: string, params: Record<string, unknown>, token: string): Answer {
    const parts = path.split('/').filter(Boolean);
    this.calls.push({ method, path: `/${parts.join('/')}`, params: { ...params } });
    // "An access token is required to request this resource" (code 104), a wrong one 190:
    // https://developers.facebook.com/docs/graph-api/guides/error-handling
    if (!token) return graphError(400, 104, 'An access token is required to request this resource.');
    if (!this.tokenKnown(token)) return graphError(400, 190, 'Invalid OAuth access token - Cannot parse access token');
    if (parts.length === 0) {
      // Multiple-id reads (https://developers.facebook.com/docs/graph-api/reference/multiple-ids): ids and fields.
      if (method !== 'GET' || typeof params.ids !== 'string') return refusal({ field: 'ids', message: '(#100) The parameter ids is required' });
      const bad = checkValue('list<string>', fromForm('list<string>', params.ids), 'ids') ?? unknownParam(params, ['ids', 'fields']);
      return bad ? refusal(bad) : this.getMany(String(params.ids).split(','), params, token);
    }
    if (parts.length === 1 && parts[0] === 'search') {
      // Targeting search (https://developers.facebook.com/docs/marketing-api/audiences/reference/targeting-search): not in api_specs.
      const bad = unknownParam(params, ['type', 'q', 'class', 'location_types', 'limit', 'after', 'locale', 'country_code', 'fields', 'cities']);
      return bad ? refusal(bad) : this.search(params);
    }
    if (parts.length === 2 && parts[0].startsWith('act_')) {
      const [accountId, edge] = parts;
      const refused = this.accountAllows(accountId, token);
      if (refused) return refused;
      return this.accountEdge(method, accountId, edge, params);
    }
    if (parts.length === 2 && parts[1] === 'leadgen_forms' && method === 'GET') {
      return specCheck('GET page/leadgen_forms', params, READ_COMMON) ?? this.listLeadForms(parts[0], params);
    }
    if (parts.length === 1 && parts[0].startsWith('act_') && method === 'GET') {
      const refused = this.accountAllows(parts[0], token);
      // Not in the vendored specs' endpoints: only fields are taken.
      const bad = unknownParam(params, ['fields']);
      return refused ?? (bad ? refusal(bad) : this.readAccount(parts[0], params));
    }
    if (parts.length === 1 && method === 'GET' && this.pages.has(parts[0])) {
      // The Page node (Page reference): its id, name and leadgen_tos_accepted ("Whether a Page has signed the Terms of Service for Lead Ads").
      const bad = unknownParam(params, ['fields']);
      if (bad) return refusal(bad);
      const page = this.pages.get(parts[0])!;
      const all: Record<string, unknown> = { id: parts[0], name: page.name, leadgen_tos_accepted: page.leadgenTosAccepted };
      const fields = (fromForm('list<string>', params.fields ?? 'id') as unknown[]).map(String);
      return { status: 200, body: Object.fromEntries(['id', ...fields].filter((f) => all[f] !== undefined).map((f) => [f, all[f]])) };
    }
    if (parts.length === 1) {
      const video = this.videos.get(parts[0]);
      if (video && method === 'GET' && this.accounts.get(video.accountId)?.token === token)
        return specCheck('GET video', params, READ_COMMON) ?? this.videoStatus(video, params);
      const object = this.objects.get(parts[0]);
      if (!object || this.accounts.get(object.accountId)?.token !== token) return notFound(method, parts[0]);
      if (method === 'GET' && this.permissionLost.has(object.id)) return notFound(method, parts[0]);
      if (method === 'GET') return specCheck(`GET ${object.level}`, params, READ_COMMON) ?? { status: 200, body: this.render(object, params.fields) };
      if (method === 'POST') return specCheck(`POST ${object.level}`, params, {}, this.answering) ?? this.update(object, params);
      if (method === 'DELETE') {
        const bad = specCheck(`DELETE ${object.level}`, params);
        if (bad) return bad;
        object.status = 'DELETED';
        return { status: 200, body: { success: true } };
      }
    }
    return graphError(400, 2500, 'Unknown path components');
  }

  /**
   * The ad account node (AdAccount reference, https://developers.facebook.com/docs/marketing-api/reference/ad-account/):
   * its id, currency and DSA defaults `default_dsa_beneficiary` / `default_dsa_payor` (absent when unset).
   */
  private readAccount(accountId: string, params: Record<string, unknown>): Answer {
    const account = this.accounts.get(accountId)!;
    const all: Record<string, unknown> = {
      id: accountId,
      account_id: accountId.replace(/^act_/, ''),
      currency: account.currency,
      default_dsa_beneficiary: account.dsa?.beneficiary,
      default_dsa_payor: account.dsa?.payor,
    };
    const fields = (fromForm('list<string>', params.fields ?? 'id') as unknown[]).map(String);
    return { status: 200, body: Object.fromEntries(['id', ...fields].filter((f) => all[f] !== undefined).map((f) => [f, all[f]])) };
  }

  /**
   * The account's minimum daily budgets, one row in its currency (AdAccount `minimum_budgets` edge,
   * MinimumBudget fields min_daily_budget_imp, _high_freq, _low_freq, _video_views, minor units).
   */
  private minimumBudgets(accountId: string, bidAmount?: unknown): Answer {
    const currency = this.accounts.get(accountId)!.currency;
    const m = fakeMinimums(currency, bidAmount);
    return {
      status: 200,
      body: {
        data: [
          {
            currency,
            min_daily_budget_imp: m.imp,
            min_daily_budget_high_freq: m.high_freq,
            min_daily_budget_low_freq: m.low_freq,
            min_daily_budget_video_views: m.video_views,
          },
        ],
      },
    };
  }

  private accountEdge(method: string, accountId: string, edge: string, params: Record<string, unknown>): Answer {
    if (method === 'GET' && edge === 'minimum_budgets') {
      // Not in api_specs: paging and fields (READ_COMMON), and bid_amount ("the bid_amount if use manual bid").
      const bad = unknownParam(params, [...Object.keys(READ_COMMON), 'bid_amount']) ?? checkValue('int', params.bid_amount ?? '0', 'bid_amount');
      return bad ? refusal(bad) : this.minimumBudgets(accountId, params.bid_amount);
    }
    if (method === 'GET' && edge === 'insights') return specCheck('GET act/insights', params, READ_COMMON) ?? this.insights(accountId, params);
    if (method === 'GET' && (ASSET_EDGES as readonly string[]).includes(edge)) {
      return specCheck(`GET act/${edge}`, params, READ_COMMON) ?? this.listAssets(`${accountId}/${edge}`, params);
    }
    if (method === 'GET' && BY_LABELS_LEVEL[edge])
      return specCheck(`GET act/${edge}`, params, READ_COMMON) ?? this.listByLabels(accountId, BY_LABELS_LEVEL[edge], params);
    if (edge === 'adlabels') {
      if (method === 'GET') return specCheck('GET act/adlabels', params, READ_COMMON) ?? this.listLabels(accountId, params);
      if (method === 'POST') return specCheck('POST act/adlabels', params) ?? this.createLabel(accountId, String(params.name));
    }
    if (edge === 'adimages') {
      if (method === 'GET') return specCheck('GET act/adimages', params, READ_COMMON) ?? this.listImages(accountId, params);
      if (method === 'POST') return specCheck('POST act/adimages', params) ?? this.uploadImage(accountId, params);
    }
    if (edge === 'advideos' && method === 'POST') {
      // The file arrives as the multipart part `source` (https://developers.facebook.com/docs/marketing-api/reference/ad-account/advideos/).
      const file = params.source;
      const text = Object.fromEntries(Object.entries(params).filter(([k]) => k !== 'source'));
      return specCheck('POST act/advideos', { ...text, ...(file !== undefined ? { source: 'file' } : {}) }) ?? this.uploadVideo(accountId, params);
    }
    const level = EDGE_LEVEL[edge];
    if (!level) return graphError(400, 2500, `Unknown path components: /${edge}`);
    if (method === 'GET') return specCheck(`GET act/${edge}`, params, READ_COMMON) ?? this.list(accountId, level, params);
    if (method === 'POST') {
      // An ad's creative may name an existing creative by creative_id instead of a creative spec
      // (https://developers.facebook.com/docs/marketing-api/reference/adgroup/#Creating).
      const creative = level === 'ad' ? parseJson(params.creative) : undefined;
      const byId = creative && typeof creative === 'object' && 'creative_id' in (creative as object);
      return specCheck(`POST act/${edge}`, byId ? { ...params, creative: '{}' } : params, {}, this.answering) ?? this.create(accountId, level, params);
    }
    return graphError(400, 100, `(#100) Unsupported ${method} on /${edge}`);
  }

  private effectiveStatus(o: MetaObject): string {
    if (o.status !== 'ACTIVE' || !o.parentId) return o.status;
    const parent = this.objects.get(o.parentId);
    if (!parent) return o.status;
    const parentEffective = this.effectiveStatus(parent);
    if (parentEffective === 'PAUSED' || parentEffective.endsWith('_PAUSED')) return parent.level === 'campaign' ? 'CAMPAIGN_PAUSED' : 'ADSET_PAUSED';
    return o.status;
  }

  private render(o: MetaObject, fieldsParam: unknown): Record<string, unknown> {
    const all: Record<string, unknown> = {
      id: o.id,
      name: o.name,
      status: o.status,
      effective_status: this.effectiveStatus(o),
      objective: o.objective,
      daily_budget: o.dailyBudget,
      lifetime_budget: o.lifetimeBudget,
      created_time: o.createdTime,
      account_id: o.accountId.replace(/^act_/, ''),
      campaign_id: o.level === 'adset' ? o.parentId : undefined,
      adset_id: o.level === 'ad' ? o.parentId : undefined,
      adlabels: o.level === 'creative' ? undefined : o.labels.map((id) => this.labels.get(o.accountId)?.get(id)).filter(Boolean),
      // A campaign's Advantage+ state, from its budget and its ad sets as they are now (meta-left-out.ts).
      advantage_state_info:
        o.level === 'campaign' && this.answering >= ADVANTAGE_STATE_SINCE
          ? advantageStateInfo(
              o.objective,
              this.budgetOf(o),
              this.objectsOf(o.accountId, 'adset')
                .filter((s) => s.parentId === o.id && s.status !== 'DELETED')
                .map((s) => s.params),
            )
          : undefined,
    };
    const fields = fieldsParam === undefined || fieldsParam === '' ? ['id', 'name'] : (fromForm('list<string>', fieldsParam) as unknown[]).map(String);
    return Object.fromEntries(['id', ...fields].filter((f) => all[f] !== undefined).map((f) => [f, all[f]]));
  }

  private getMany(ids: string[], params: Record<string, unknown>, token: string): Answer {
    const missing = ids.filter((id) => {
      const o = this.objects.get(id);
      return !o || this.accounts.get(o.accountId)?.token !== token;
    });
    if (missing.length) return graphError(400, 803, `(#803) Some of the aliases you requested do not exist: ${missing.join(',')}`);
    return { status: 200, body: Object.fromEntries(ids.map((id) => [id, this.render(this.objects.get(id)!, params.fields)])) };
  }

  /** Applies Graph `filtering` (and `effective_status`) to objects; an Answer when the filter is refused. */
  private filter(objects: MetaObject[], params: Record<string, unknown>): MetaObject[] | Answer {
    const rules = params.filtering === undefined ? [] : parseJson(params.filtering);
    if (!Array.isArray(rules)) return graphError(400, 100, '(#100) Param filtering must be an array');
    let statuses: string[] | null = params.effective_status === undefined ? null : (parseJson(params.effective_status) as string[]);
    let out = objects;
    for (const rule of rules as Array<{ field?: string; operator?: string; value?: unknown }>) {
      if (rule.field === 'effective_status' && rule.operator === 'IN' && Array.isArray(rule.value)) {
        statuses = rule.value.map(String);
      } else if (rule.field === 'name' && (rule.operator === 'CONTAIN' || rule.operator === 'EQUAL')) {
        const needle = String(rule.value ?? '').toLowerCase();
        out = out.filter((o) => (rule.operator === 'EQUAL' ? o.name.toLowerCase() === needle : o.name.toLowerCase().includes(needle)));
      } else {
        return graphError(400, 100, `(#100) Filtering field ${rule.field} with operation ${rule.operator} is not supported`, {
          error_data: { blame_field_specs: [['filtering']] },
        });
      }
    }
    return out.filter((o) => (statuses ? statuses.includes(this.effectiveStatus(o)) : o.status !== 'DELETED'));
  }

  /** A page of `rows` (ordered by `key`, descending or not) after the Graph cursor in params.after. */
  private page<T>(
    rows: T[],
    key: (row: T) => number,
    params: Record<string, unknown>,
    path: string,
    descending = false,
  ): { data: T[]; paging?: unknown } | Answer {
    const limit = Math.min(Number(params.limit ?? 25) || 25, 5000);
    let start = 0;
    if (typeof params.after === 'string' && params.after) {
      const decoded = Buffer.from(params.after, 'base64url').toString('utf8');
      if (!/^pos:\d+$/.test(decoded))
        return graphError(400, 100, '(#100) Param after is not a valid cursor', { error_data: { blame_field_specs: [['after']] } });
      const position = Number(decoded.slice(4));
      start = rows.findIndex((r) => (descending ? key(r) < position : key(r) > position));
      if (start < 0) start = rows.length;
    }
    const data = rows.slice(start, start + limit);
    if (!data.length) return { data };
    const cursor = (row: T) => Buffer.from(`pos:${key(row)}`).toString('base64url');
    const more = start + limit < rows.length;
    const after = cursor(data[data.length - 1]);
    return {
      data,
      paging: {
        cursors: { before: cursor(data[0]), after },
        ...(more ? { next: `${this.url}${path}?limit=${limit}&after=${after}` } : {}),
      },
    };
  }

  private list(accountId: string, level: MetaLevel, params: Record<string, unknown>): Answer {
    const filtered = this.filter(this.objectsOf(accountId, level).reverse(), params);
    if (!Array.isArray(filtered)) return filtered;
    const page = this.page(filtered, (o) => o.seq, params, `/${accountId}/${level}s`, true);
    if (!('data' in page)) return page;
    const body: Record<string, unknown> = { data: page.data.map((o) => this.render(o, params.fields)), ...(page.paging ? { paging: page.paging } : {}) };
    if (params.summary === 'total_count' || params.summary === 'true' || params.summary === 'summary') body.summary = { total_count: filtered.length };
    return { status: 200, body };
  }

  /**
   * The label ids of an `adlabels` list, creating labels named for the first time. Each entry names a
   * label by `id` or by `name` (https://developers.facebook.com/docs/marketing-api/reference/ad-label/).
   */
  private labelIds(accountId: string, value: unknown, dryRun = false): string[] | Answer {
    if (value === undefined) return [];
    const entries = parseJson(value) as Array<Record<string, unknown>>;
    const labels = this.labels.get(accountId) ?? new Map<string, { id: string; name: string }>();
    this.labels.set(accountId, labels);
    const ids: string[] = [];
    for (const [i, entry] of entries.entries()) {
      if (entry.id !== undefined) {
        if (!labels.has(String(entry.id)))
          return refusal({ field: `adlabels.${i}.id`, message: `(#100) Param adlabels[${i}][id] is not an ad label of this ad account` });
        ids.push(String(entry.id));
      } else if (typeof entry.name === 'string' && entry.name) {
        const found = [...labels.values()].find((l) => l.name === entry.name);
        // A validate_only write creates nothing, labels included.
        if (!found && dryRun) continue;
        ids.push(found ? found.id : (this.createLabel(accountId, entry.name).body as { id: string }).id);
      } else {
        return refusal({ field: `adlabels.${i}`, message: `(#100) Param adlabels[${i}] must name a label by id or name` });
      }
    }
    return [...new Set(ids)];
  }

  private createLabel(accountId: string, name: string): Answer {
    const labels = this.labels.get(accountId) ?? new Map<string, { id: string; name: string }>();
    this.labels.set(accountId, labels);
    const existing = [...labels.values()].find((l) => l.name === name);
    if (existing) return { status: 200, body: { id: existing.id } };
    const id = this.newId();
    labels.set(id, { id, name });
    return { status: 200, body: { id }, created: true };
  }

  private listLabels(accountId: string, params: Record<string, unknown>): Answer {
    const rows = this.labelsOf(accountId).map((label, i) => ({ label, i }));
    const page = this.page(rows, (x) => x.i, params, `/${accountId}/adlabels`);
    if (!('data' in page)) return page;
    return { status: 200, body: { data: page.data.map((x) => x.label), ...(page.paging ? { paging: page.paging } : {}) } };
  }

  /** Objects of `level` carrying any (operator ANY) or all (ALL, the default) of `ad_label_ids`, deleted ones included. */
  private listByLabels(accountId: string, level: MetaLevel, params: Record<string, unknown>): Answer {
    const wanted = (fromForm('list<string>', params.ad_label_ids) as unknown[]).map(String);
    const any = params.operator === 'ANY';
    const rows = this.objectsOf(accountId, level)
      .filter((o) => (any ? wanted.some((id) => o.labels.includes(id)) : wanted.every((id) => o.labels.includes(id))))
      .reverse();
    const page = this.page(rows, (o) => o.seq, params, `/${accountId}/${level}sbylabels`, true);
    if (!('data' in page)) return page;
    return { status: 200, body: { data: page.data.map((o) => this.render(o, params.fields)), ...(page.paging ? { paging: page.paging } : {}) } };
  }

  /**
   * An image upload: `bytes` is the file in base64; the answer is `images.<name>.hash`, the name being
   * `bytes` for such an upload (https://developers.facebook.com/docs/marketing-api/reference/ad-image/).
   */
  private uploadImage(accountId: string, params: Record<string, unknown>): Answer {
    const text = typeof params.bytes === 'string' ? params.bytes : '';
    const bytes = Buffer.from(text, 'base64');
    if (!text || !bytes.length || bytes.toString('base64').replace(/=+$/, '') !== text.replace(/=+$/, '')) {
      return refusal({ field: 'bytes', message: '(#100) Param bytes must be the image file encoded in base64' });
    }
    const hash = crypto.createHash('md5').update(bytes).digest('hex');
    const url = `https://scontent.example.invalid/${hash}.jpg`;
    const library = this.images.get(accountId) ?? new Map<string, { hash: string; url: string }>();
    library.set(hash, { hash, url });
    this.images.set(accountId, library);
    return { status: 200, body: { images: { bytes: { hash, url } } }, created: true };
  }

  private listImages(accountId: string, params: Record<string, unknown>): Answer {
    const hashes = params.hashes === undefined ? null : (fromForm('list<string>', params.hashes) as string[]);
    const rows = [...(this.images.get(accountId)?.values() ?? [])].filter((i) => !hashes || hashes.includes(i.hash)).map((image, i) => ({ image, i }));
    const page = this.page(rows, (x) => x.i, params, `/${accountId}/adimages`);
    if (!('data' in page)) return page;
    return { status: 200, body: { data: page.data.map((x) => x.image), ...(page.paging ? { paging: page.paging } : {}) } };
  }

  /**
   * A video upload: the file as multipart `source`, answered with the video's id; the video is then
   * processed, its `status.video_status` going from `processing` to `ready`
   * (https://developers.facebook.com/docs/marketing-api/reference/ad-account/advideos/,
   * https://developers.facebook.com/docs/graph-api/reference/video/).
   */
  private uploadVideo(accountId: string, params: Record<string, unknown>): Answer {
    if (!Buffer.isBuffer(params.source) || !params.source.length) {
      return refusal({ field: 'source', message: '(#100) The video file must be sent as the multipart part source' });
    }
    const id = this.newId();
    this.videos.set(id, {
      id,
      accountId,
      name: String(params.name ?? params.title ?? ''),
      bytes: params.source.length,
      pollsLeft: this.videoPollsUntilReady,
      polls: 0,
    });
    return { status: 200, body: { id }, created: true };
  }

  private videoStatus(video: { id: string; pollsLeft: number; polls: number }, params: Record<string, unknown>): Answer {
    video.polls++;
    const ready = video.pollsLeft <= 0;
    if (!ready) video.pollsLeft--;
    const all: Record<string, unknown> = {
      id: video.id,
      status: { video_status: ready ? 'ready' : 'processing', processing_progress: ready ? 100 : 50 },
      picture: `https://scontent.example.invalid/v/${video.id}.jpg`,
    };
    const fields = (fromForm('list<string>', params.fields ?? 'id') as string[]).map(String);
    return { status: 200, body: Object.fromEntries(['id', ...fields].filter((f) => all[f] !== undefined).map((f) => [f, all[f]])) };
  }

  /**
   * The creative rules the reference pages give beyond the spec's types (inline on an ad, or on the
   * adcreatives edge): an existing post by `object_story_id` (`<pageId>_<postId>`), or an
   * `object_story_spec` whose `page_id` is required
   * (https://developers.facebook.com/docs/marketing-api/reference/ad-creative-object-story-spec/);
   * a link ad's `link` is required and its `image_hash` must be in the account's image library
   * (https://developers.facebook.com/docs/marketing-api/reference/ad-creative-link-data/,
   * https://developers.facebook.com/docs/marketing-api/reference/ad-image/); a video ad's `video_id` must
   * be a video of the account and its thumbnail (`image_hash` or `image_url`) is required
   * (https://developers.facebook.com/docs/marketing-api/reference/ad-creative-video-data/).
   */
  private creativeRules(accountId: string, creative: Record<string, unknown>, prefix: string): Answer | null {
    const removed = removedCreativeField(creative, this.answering, prefix);
    if (removed) return leftOut(removed);
    if (creative.object_story_id !== undefined) {
      return /^\d+_\d+$/.test(String(creative.object_story_id))
        ? null
        : refusal({ field: `${prefix}object_story_id`, message: `(#100) Param ${prefix}object_story_id must be <page id>_<post id>` });
    }
    const story = creative.object_story_spec as Record<string, unknown> | undefined;
    if (!story) return refusal({ field: `${prefix}object_story_spec`, message: `(#100) The parameter ${prefix}object_story_spec is required` });
    const at = `${prefix}object_story_spec.`;
    if (story.page_id === undefined || story.page_id === '')
      return refusal({ field: `${at}page_id`, message: `(#100) The parameter ${at}page_id is required` });
    const link = story.link_data as Record<string, unknown> | undefined;
    const video = story.video_data as Record<string, unknown> | undefined;
    if (!link && !video) return refusal({ field: `${at}link_data`, message: `(#100) ${at}object_story_spec needs link_data or video_data` });
    if (link) {
      if (!link.link) return refusal({ field: `${at}link_data.link`, message: `(#100) The parameter ${at}link_data.link is required` });
      if (link.image_hash !== undefined && !this.images.get(accountId)?.has(String(link.image_hash))) {
        return refusal({
          field: `${at}link_data.image_hash`,
          message: `(#100) Image with hash ${String(link.image_hash)} is not in this ad account's image library`,
        });
      }
    }
    if (video) {
      const known = this.videos.get(String(video.video_id ?? ''));
      if (!known || known.accountId !== accountId) {
        return refusal({ field: `${at}video_data.video_id`, message: `(#100) Param ${at}video_data.video_id must be a video of this ad account` });
      }
      if (video.image_hash === undefined && video.image_url === undefined) {
        return refusal({ field: `${at}video_data.image_url`, message: `(#100) A video ad needs a thumbnail: ${at}video_data.image_hash or image_url` });
      }
      if (video.image_hash !== undefined && !this.images.get(accountId)?.has(String(video.image_hash))) {
        return refusal({
          field: `${at}video_data.image_hash`,
          message: `(#100) Image with hash ${String(video.image_hash)} is not in this ad account's image library`,
        });
      }
    }
    return null;
  }

  private budgetOf(o: Pick<MetaObject, 'dailyBudget' | 'lifetimeBudget'>): boolean {
    return o.dailyBudget !== undefined || o.lifetimeBudget !== undefined;
  }

  /** Whether a write asks Meta to validate only (`execution_options` holding "validate_only"). */
  private validateOnly(params: Record<string, unknown>): boolean {
    const options = parseJson(params.execution_options);
    return Array.isArray(options) && options.includes('validate_only');
  }

  /** The first refusal a test's unwritten rule (`refuseWhen`) gives a write, in Graph's error format. */
  private unwrittenRefusal(call: GraphCall): Answer | null {
    for (const rule of this.unwritten) {
      const r = rule(call);
      if (r)
        return graphError(400, r.code ?? 100, r.message, {
          ...(r.subcode !== undefined ? { error_subcode: r.subcode } : {}),
          ...(r.title ? { error_user_title: r.title, error_user_msg: r.message } : {}),
        });
    }
    return null;
  }

  /**
   * Refusals of a write that no parameter fixes: the app in development mode (1885183), and a lead ad set or
   * lead ad whose Page has not accepted the lead ads terms (1815089: "the Page must accept the Lead Ads Terms
   * of Service"; Page leadgen_tos_accepted).
   */
  private ownerRefusal(parsed: Record<string, unknown>): Answer | null {
    if (this.appInDevelopmentMode)
      return graphError(400, 100, '(#100) Ads creative post was created by an app that is in development mode. It must be in public to create this ad.', {
        error_subcode: 1885183,
      });
    const promoted = (parsed.promoted_object ?? {}) as Record<string, unknown>;
    const creative = (parsed.creative ?? parsed) as Record<string, unknown>;
    const story = (creative.object_story_spec ?? {}) as Record<string, unknown>;
    const link = (story.link_data ?? story.video_data ?? {}) as Record<string, unknown>;
    const form = ((link.call_to_action ?? {}) as { value?: { lead_gen_form_id?: unknown } }).value?.lead_gen_form_id;
    const pageId = String(parsed.destination_type === 'ON_AD' ? (promoted.page_id ?? '') : form !== undefined ? (story.page_id ?? '') : '');
    if (pageId && this.pages.get(pageId)?.leadgenTosAccepted === false)
      return graphError(
        400,
        100,
        `(#100) Page ${pageId} must accept the Lead Ads Terms of Service before it can run lead ads: ${'https://www.facebook.com/ads/leadgen/tos'}`,
        {
          error_subcode: 1815089,
        },
      );
    return null;
  }

  private create(accountId: string, level: MetaLevel, params: Record<string, unknown>): Answer {
    const owner = this.ownerRefusal(Object.fromEntries(Object.entries(params).map(([k, v]) => [k, parseJson(v)])));
    if (owner) return owner;
    const name = typeof params.name === 'string' ? fromForm('string', params.name) : '';
    if (!name) return refusal({ field: 'name', message: '(#100) The parameter name is required' });
    const budgeted = params.daily_budget !== undefined || params.lifetime_budget !== undefined;
    const validateOnly = this.validateOnly(params);
    const parsed = Object.fromEntries(Object.entries(params).map(([k, v]) => [k, parseJson(v)]));
    let parentId: string | null = null;
    if (level === 'campaign') {
      // Required on create (https://developers.facebook.com/docs/marketing-api/reference/ad-campaign-group/#Creating).
      if (!params.objective) return refusal({ field: 'objective', message: '(#100) The parameter objective is required' });
      // Since v24.0 a campaign without a campaign budget must say whether its ad sets share budget
      // (https://developers.facebook.com/docs/graph-api/changelog/version24.0/, Campaign reference).
      if (!budgeted && params.is_adset_budget_sharing_enabled === undefined) {
        return refusal({
          field: 'is_adset_budget_sharing_enabled',
          message: '(#100) A campaign without a campaign budget must set is_adset_budget_sharing_enabled',
        });
      }
      if (budgeted && params.daily_budget !== undefined && params.lifetime_budget !== undefined) {
        return refusal({ field: 'lifetime_budget', message: '(#100) Set daily_budget or lifetime_budget, not both' });
      }
      const bad = campaignLeftOut(parsed) ?? legacyAdvantageLeftOut(parsed, this.answering, this.now());
      if (bad) return leftOut(bad);
    } else if (level === 'adset' || level === 'ad') {
      const field = level === 'adset' ? 'campaign_id' : 'adset_id';
      parentId = String(fromForm('string', params[field] ?? ''));
      const parent = this.objects.get(parentId);
      // Required on create (https://developers.facebook.com/docs/marketing-api/reference/ad-campaign/#Creating,
      // https://developers.facebook.com/docs/marketing-api/reference/adgroup/#Creating).
      if (!parent || parent.accountId !== accountId || parent.level !== (level === 'adset' ? 'campaign' : 'adset')) {
        return refusal({ field, message: `(#100) Param ${field} must be an id of an object of this ad account` });
      }
      if (level === 'adset') {
        const bad = this.adsetRules(parent, params, budgeted);
        if (bad) return bad;
      } else {
        const creative = parseJson(params.creative) as Record<string, unknown>;
        if (creative.creative_id !== undefined) {
          const known = this.objects.get(String(creative.creative_id));
          if (Object.keys(creative).length !== 1 || !known || known.level !== 'creative' || known.accountId !== accountId) {
            return refusal({ field: 'creative.creative_id', message: '(#100) Param creative[creative_id] must be a creative of this ad account' });
          }
        } else {
          const bad = this.creativeRules(accountId, creative, 'creative.');
          if (bad) return bad;
        }
        const lead = adLeftOut(parent.params, creative, 'creative.');
        if (lead) return leftOut(lead);
      }
    } else {
      const bad = this.creativeRules(accountId, parsed, '');
      if (bad) return bad;
    }
    const unwritten = this.unwrittenRefusal({ method: 'POST', path: `/${accountId}/${level}s`, level, params: parsed, validateOnly });
    if (unwritten) return unwritten;
    const labels = this.labelIds(accountId, params.adlabels, validateOnly);
    if (!Array.isArray(labels)) return labels;
    // execution_options validate_only: "the API validates the request and does not create the object",
    // answering {"success": true} (Campaign, AdSet, Ad and AdCreative references, execution_options).
    if (validateOnly) return { status: 200, body: { success: true } };
    const id = this.newId();
    const { execution_options: _x, ...rest } = parsed;
    // What Meta changes without a word (meta-left-out.ts): removed positions stripped, creatives enrolled.
    if (level === 'adset' && rest.targeting) {
      const kept = stripRemovedPositions(rest.targeting as Record<string, unknown>, this.answering, this.now());
      rest.targeting = kept.targeting;
      for (const x of kept.stripped) this.silentChanges.push(`ad set ${id}: ${x} removed from its placements`);
    }
    const creative = level === 'ad' ? (rest.creative as Record<string, unknown>) : level === 'creative' ? rest : null;
    if (creative) for (const x of creativeDefaults(creative, this.answering)) this.silentChanges.push(`${level} ${id}: ${x}`);
    this.objects.set(id, {
      id,
      level,
      accountId,
      name: String(name),
      status: String(fromForm('string', params.status ?? 'PAUSED')),
      objective: level === 'campaign' ? String(fromForm('string', params.objective)) : undefined,
      dailyBudget: params.daily_budget !== undefined ? String(params.daily_budget) : undefined,
      lifetimeBudget: params.lifetime_budget !== undefined ? String(params.lifetime_budget) : undefined,
      parentId,
      createdTime: graphTime(this.now()),
      seq: ++this.seq,
      params: rest,
      labels,
    });
    return { status: 200, body: { id }, created: true };
  }

  /**
   * An ad set's own rules: budget at one level only, on the campaign or on every ad set
   * (https://developers.facebook.com/docs/marketing-api/bidding/guides/campaign-budget-optimization/);
   * targeting with geo_locations is required
   * (https://developers.facebook.com/docs/marketing-api/audiences/reference/basic-targeting/#location);
   * billing_event is required (php-business-sdk issue 311: leaving it out is "missing parameter") and,
   * with optimization_goal, valid for the campaign's objective
   * (https://developers.facebook.com/docs/marketing-api/reference/ad-campaign/#Creating; GOALS_OF_OBJECTIVE, GOAL_OF_BILLING_EVENT).
   */
  private adsetRules(campaign: MetaObject, params: Record<string, unknown>, budgeted: boolean): Answer | null {
    if (this.budgetOf(campaign) && budgeted) {
      return refusal({
        field: params.daily_budget !== undefined ? 'daily_budget' : 'lifetime_budget',
        message: '(#100) The campaign has a campaign budget: its ad sets cannot have one',
      });
    }
    if (!this.budgetOf(campaign) && !budgeted) {
      return refusal({ field: 'daily_budget', message: '(#100) The campaign has no campaign budget: the ad set needs daily_budget or lifetime_budget' });
    }
    const targeting = parseJson(params.targeting) as Record<string, unknown> | undefined;
    if (!targeting) return refusal({ field: 'targeting', message: '(#100) The parameter targeting is required' });
    const geo = targeting.geo_locations as Record<string, unknown> | undefined;
    if (!geo || !Object.values(geo).some((v) => Array.isArray(v) && v.length)) {
      return refusal({ field: 'targeting.geo_locations', message: '(#100) targeting.geo_locations is required: name at least one country, region or city' });
    }
    const billing = params.billing_event === undefined ? undefined : String(fromForm('string', params.billing_event));
    if (!billing) return refusal({ field: 'billing_event', message: '(#100) The parameter billing_event is required' });
    const goal = params.optimization_goal === undefined ? undefined : String(fromForm('string', params.optimization_goal));
    const goals = GOALS_OF_OBJECTIVE[campaign.objective ?? ''];
    if (goal && goals && !goals.includes(goal)) {
      return refusal({
        field: 'optimization_goal',
        message: `(#100) optimization_goal ${goal} is not valid for objective ${campaign.objective}; use one of {${goals.join(', ')}}`,
      });
    }
    if (billing !== 'IMPRESSIONS' && GOAL_OF_BILLING_EVENT[billing] !== goal) {
      return refusal({ field: 'billing_event', message: `(#100) billing_event ${billing} is not valid with optimization_goal ${goal ?? '(none)'}` });
    }
    const siblings = this.objectsOf(campaign.accountId, 'adset').filter((o) => o.parentId === campaign.id && o.status !== 'DELETED');
    const account = this.accounts.get(campaign.accountId);
    const bad = adsetLeftOut(Object.fromEntries(Object.entries(params).map(([k, v]) => [k, parseJson(v)])), {
      objective: campaign.objective ?? '',
      currency: account?.currency ?? 'USD',
      campaignDailyBudget: campaign.dailyBudget !== undefined ? Number(campaign.dailyBudget) : null,
      campaignLifetimeBudget: campaign.lifetimeBudget !== undefined ? Number(campaign.lifetimeBudget) : null,
      campaignBidStrategy: campaign.params.bid_strategy === undefined ? undefined : String(campaign.params.bid_strategy),
      siblingGoals: siblings.map((o) => String(o.params.optimization_goal ?? '')),
      version: this.answering,
      specialCategories: Array.isArray(campaign.params.special_ad_categories) ? (campaign.params.special_ad_categories as unknown[]).map(String) : [],
      cityCountry: (key) => LOCATIONS.find((l) => l.key === key && l.type === 'city')?.country_code,
      now: this.now(),
    });
    return bad ? leftOut(bad) : null;
  }

  private update(o: MetaObject, params: Record<string, unknown>): Answer {
    if (this.appInDevelopmentMode) {
      const owner = this.ownerRefusal({});
      if (owner) return owner;
    }
    if (o.level === 'adset' && (params.daily_budget !== undefined || params.lifetime_budget !== undefined)) {
      const campaign = o.parentId ? this.objects.get(o.parentId) : undefined;
      // Budget at one level (https://developers.facebook.com/docs/marketing-api/bidding/guides/campaign-budget-optimization/).
      if (campaign && this.budgetOf(campaign)) {
        return refusal({
          field: params.daily_budget !== undefined ? 'daily_budget' : 'lifetime_budget',
          message: '(#100) The campaign has a campaign budget: its ad sets cannot have one',
        });
      }
    }
    if (o.level === 'adset' || o.level === 'campaign') {
      const kind = budgetKindSwitch({ daily: o.dailyBudget !== undefined, lifetime: o.lifetimeBudget !== undefined }, params);
      if (kind) return leftOut(kind);
    }
    if (params.daily_budget !== undefined && (o.level === 'adset' || o.level === 'campaign')) {
      const goals =
        o.level === 'adset'
          ? [String(o.params.optimization_goal ?? '')]
          : this.objectsOf(o.accountId, 'adset')
              .filter((s) => s.parentId === o.id && s.status !== 'DELETED')
              .map((s) => String(s.params.optimization_goal ?? ''));
      const low = goals.length
        ? budgetUpdateLeftOut(
            Number(params.daily_budget),
            goals,
            this.accounts.get(o.accountId)?.currency ?? 'USD',
            o.level === 'adset' ? o.params.bid_amount : undefined,
          )
        : null;
      if (low) return leftOut(low);
    }
    const validateOnly = this.validateOnly(params);
    const parsed = Object.fromEntries(Object.entries(params).map(([k, v]) => [k, parseJson(v)]));
    const legacy = o.level === 'campaign' ? legacyAdvantageLeftOut(parsed, this.answering, this.now()) : null;
    if (legacy) return leftOut(legacy);
    if (o.level === 'ad' && parsed.creative && typeof parsed.creative === 'object') {
      const removed = removedCreativeField(parsed.creative as Record<string, unknown>, this.answering, 'creative.');
      if (removed) return leftOut(removed);
    }
    const unwritten = this.unwrittenRefusal({ method: 'POST', path: `/${o.id}`, level: o.level, params: parsed, validateOnly });
    if (unwritten) return unwritten;
    const labels = this.labelIds(o.accountId, params.adlabels, validateOnly);
    if (!Array.isArray(labels)) return labels;
    // validate_only on an update: validated, nothing changed (execution_options on the node's POST).
    if (validateOnly) return { status: 200, body: { success: true } };
    if (params.adlabels !== undefined) o.labels = labels;
    if (params.name !== undefined) o.name = String(fromForm('string', params.name));
    if (params.status !== undefined) o.status = String(fromForm('string', params.status));
    if (params.daily_budget !== undefined) {
      o.dailyBudget = String(params.daily_budget);
      o.lifetimeBudget = undefined;
    }
    if (params.lifetime_budget !== undefined) {
      o.lifetimeBudget = String(params.lifetime_budget);
      o.dailyBudget = undefined;
    }
    for (const [k, v] of Object.entries(parsed)) if (!['name', 'status', 'daily_budget', 'lifetime_budget', 'adlabels'].includes(k)) o.params[k] = v;
    return { status: 200, body: { success: true } };
  }

  /**
   * Insights at `level` (campaign by default; account, adset, ad): one row per object that
   * delivered (per day with `time_increment=1`, per breakdown value with `breakdowns`), filtered on
   * `<level>.id` or `campaign.id`, each row carrying the `fields` asked for. The parameter names,
   * types and enums (level, breakdowns, date_preset) are checked against graph-spec.json first; the
   * rules here come from the reference pages cited beside them.
   */
  private insights(accountId: string, params: Record<string, unknown>): Answer {
    const range = parseJson(params.time_range) as { since?: string; until?: string } | undefined;
    if (!range?.since || !range.until)
      return graphError(400, 100, '(#100) Param time_range is required', { error_data: { blame_field_specs: [['time_range']] } });
    const level = String(params.level ?? 'campaign');
    if (!['account', 'campaign', 'adset', 'ad'].includes(level)) {
      return graphError(400, 100, '(#100) Param level must be one of {ad, adset, campaign, account}', { error_data: { blame_field_specs: [['level']] } });
    }
    const fields = params.fields === undefined ? [] : String(params.fields).split(',');
    const unknownField = fields.find((f) => !INSIGHTS_FIELDS.has(f));
    if (unknownField) return graphError(400, 100, `(#100) ${unknownField} is not valid for fields param`, { error_data: { blame_field_specs: [['fields']] } });
    const breakdowns = (parseJson(params.breakdowns ?? '[]') as string[]) ?? [];
    // Insights breakdowns: platform_position is only available together with publisher_platform.
    if (breakdowns.includes('platform_position') && !breakdowns.includes('publisher_platform'))
      return graphError(400, 100, '(#100) platform_position breakdown requires publisher_platform', { error_data: { blame_field_specs: [['breakdowns']] } });
    const served = new Set(['age', 'gender', 'country', 'publisher_platform', 'platform_position']);
    const other = breakdowns.find((b) => !served.has(b));
    if (other) return graphError(400, 100, `(#100) This fake does not answer the ${other} breakdown`, { error_data: { blame_field_specs: [['breakdowns']] } });
    // time_increment: "all_days", "monthly" or a number of days from 1 to 90 (Insights API, Parameters).
    const increment = params.time_increment === undefined ? 'all_days' : String(params.time_increment);
    if (!/^(all_days|monthly|[1-9]\d?)$/.test(increment) || (/^\d+$/.test(increment) && Number(increment) > 90))
      return graphError(400, 100, '(#100) Param time_increment must be all_days, monthly or a number of days from 1 to 90', {
        error_data: { blame_field_specs: [['time_increment']] },
      });
    if (increment !== 'all_days' && increment !== '1')
      return graphError(400, 100, `(#100) This fake answers time_increment 1 and all_days only`, { error_data: { blame_field_specs: [['time_increment']] } });
    const rules = (parseJson(params.filtering ?? '[]') as Array<{ field: string; operator: string; value: unknown }>) ?? [];
    const foreign = rules.find((r) => r.field !== `${level}.id` && r.field !== 'campaign.id');
    if (foreign)
      return graphError(400, 100, `(#100) Filtering field ${foreign.field} is not supported at level ${level}`, {
        error_data: { blame_field_specs: [['filtering']] },
      });
    const wantedOf = (field: string) => {
      const rule = rules.find((r) => r.field === field);
      return rule && Array.isArray(rule.value) ? new Set(rule.value.map(String)) : null;
    };
    const wanted = wantedOf(`${level}.id`);
    const campaigns = wantedOf('campaign.id');
    const account = this.accounts.get(accountId)!;
    const digits = digitsOf(account.currency);
    const ancestor = (o: MetaObject, at: MetaLevel): MetaObject | undefined =>
      o.level === at ? o : o.parentId ? ancestor(this.objects.get(o.parentId)!, at) : undefined;
    // The objects of the level (the account: every campaign, summed) with the days they delivered.
    const subjects =
      level === 'account'
        ? [{ object: null as MetaObject | null, days: this.objectsOf(accountId, 'campaign').filter((c) => !campaigns || campaigns.has(c.id)) }]
        : this.objectsOf(accountId, level as MetaLevel)
            .filter((o) => (!wanted || wanted.has(o.id)) && (!campaigns || campaigns.has(ancestor(o, 'campaign')?.id ?? '')))
            .map((o) => ({ object: o as MetaObject | null, days: [o] }));
    const rows: Array<Record<string, unknown>> = [];
    for (const subject of subjects) {
      const periods = new Map<string, Required<DayStats>>();
      for (const o of subject.days) {
        for (const [date, s] of this.stats.get(o.id) ?? []) {
          if (date < range.since || date > range.until) continue;
          const key = increment === '1' ? date : 'all';
          const t = periods.get(key) ?? { spendMinor: 0, impressions: 0, clicks: 0, results: 0, revenueMinor: 0, reach: 0 };
          t.spendMinor += s.spendMinor;
          t.impressions += s.impressions;
          t.clicks += s.clicks;
          t.results += s.results;
          t.revenueMinor += s.revenueMinor;
          t.reach += s.reach ?? Math.floor(s.impressions / 1.5);
          periods.set(key, t);
        }
      }
      for (const [key, total] of [...periods].sort(([a], [b]) => (a < b ? -1 : 1))) {
        for (const part of splitByBreakdowns(total, breakdowns)) {
          const o = subject.object;
          const all: Record<string, unknown> = {
            account_id: accountId.replace(/^act_/, ''),
            account_name: accountId,
            campaign_id: o ? ancestor(o, 'campaign')?.id : undefined,
            campaign_name: o ? ancestor(o, 'campaign')?.name : undefined,
            adset_id: o ? ancestor(o, 'adset')?.id : undefined,
            adset_name: o ? ancestor(o, 'adset')?.name : undefined,
            ad_id: o ? ancestor(o, 'ad')?.id : undefined,
            ad_name: o ? ancestor(o, 'ad')?.name : undefined,
            spend: decimal(part.stats.spendMinor, digits),
            impressions: String(part.stats.impressions),
            reach: String(part.stats.reach),
            clicks: String(part.stats.clicks),
            // Graph reports one purchase under several action types; a reader must count it once.
            actions: [
              { action_type: 'link_click', value: String(part.stats.clicks) },
              { action_type: 'offsite_conversion.fb_pixel_purchase', value: String(part.stats.results) },
              { action_type: 'omni_purchase', value: String(part.stats.results) },
            ],
            action_values: [
              { action_type: 'offsite_conversion.fb_pixel_purchase', value: decimal(part.stats.revenueMinor, digits) },
              { action_type: 'omni_purchase', value: decimal(part.stats.revenueMinor, digits) },
            ],
          };
          // Without `fields`, the ids of the level and the figures the adapters have always read.
          const asked = fields.length
            ? fields
            : [...(level === 'account' ? [] : [`${level}_id`]), 'campaign_id', 'spend', 'impressions', 'reach', 'clicks', 'actions', 'action_values'];
          const row: Record<string, unknown> = Object.fromEntries(asked.filter((f) => all[f] !== undefined).map((f) => [f, all[f]]));
          Object.assign(row, part.keys);
          row.date_start = key === 'all' ? range.since : key;
          row.date_stop = key === 'all' ? range.until : key;
          rows.push(row);
        }
      }
    }
    const page = this.page(
      rows.map((r, i) => ({ r, i })),
      (x) => x.i,
      params,
      `/${accountId}/insights`,
    );
    if (!('data' in page)) return page;
    return { status: 200, body: { data: page.data.map((x) => x.r), ...(page.paging ? { paging: page.paging } : {}) } };
  }

  private listAssets(key: string, params: Record<string, unknown>): Answer {
    const rows = (this.assets.get(key) ?? []).map((item, i) => ({ item, i }));
    const page = this.page(rows, (x) => x.i, params, `/${key}`);
    if (!('data' in page)) return page;
    return { status: 200, body: { data: page.data.map((x) => x.item), ...(page.paging ? { paging: page.paging } : {}) } };
  }

  private listLeadForms(pageId: string, params: Record<string, unknown>): Answer {
    const forms = this.leadForms.get(pageId);
    if (!forms) return notFound('GET', pageId);
    const page = this.page(
      forms.map((f, i) => ({ f, i })),
      (x) => x.i,
      params,
      `/${pageId}/leadgen_forms`,
    );
    if (!('data' in page)) return page;
    return { status: 200, body: { data: page.data.map((x) => x.f), ...(page.paging ? { paging: page.paging } : {}) } };
  }

  private search(params: Record<string, unknown>): Answer {
    const q = typeof params.q === 'string' ? params.q.toLowerCase() : '';
    if (params.type === 'adinterest') {
      if (!q) return graphError(400, 100, '(#100) The parameter q is required', { error_data: { blame_field_specs: [['q']] } });
      return { status: 200, body: { data: INTERESTS.filter((i) => i.name.toLowerCase().includes(q)) } };
    }
    if (params.type === 'adTargetingCategory' && params.class === 'interests') return { status: 200, body: { data: INTERESTS } };
    if (params.type === 'adgeolocationmeta') {
      // Targeting search, location metadata by key (type=adgeolocationmeta with cities=[keys]): each city's
      // name and country_code (https://developers.facebook.com/docs/marketing-api/audiences/reference/targeting-search/).
      const keys = params.cities === undefined ? [] : (parseJson(params.cities) as unknown[]).map(String);
      const cities = Object.fromEntries(
        keys.flatMap((k) => {
          const l = LOCATIONS.find((x) => x.type === 'city' && x.key === k);
          return l ? [[k, { key: l.key, name: l.name, type: 'city', country_code: l.country_code }]] : [];
        }),
      );
      return { status: 200, body: { data: { cities } } };
    }
    if (params.type === 'adgeolocation') {
      const types = params.location_types === undefined ? null : (parseJson(params.location_types) as string[]);
      return { status: 200, body: { data: LOCATIONS.filter((l) => (!q || l.name.toLowerCase().includes(q)) && (!types || types.includes(l.type))) } };
    }
    return graphError(400, 100, '(#100) Param type is not a supported search type', { error_data: { blame_field_specs: [['type']] } });
  }
}
