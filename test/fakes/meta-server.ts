// A fake Graph Marketing API on loopback: ad accounts, campaigns, ad sets, ads and creatives held in
// memory, the batch endpoint, insights, option lists and lead forms, answering with Graph's shapes
// and error bodies. Fault switches reproduce throttling (with X-Business-Use-Case-Usage), error
// codes, 5xx answers, slow answers and a create that is applied but whose answer is dropped. As
// strict as the Marketing API's reference: a parameter the endpoint does not document answers
// error 100 naming it.

import crypto from 'node:crypto';
import type http from 'node:http';
import { FaultServer, decimal, digitsOf, parseJson, type ReceivedRequest } from './fault-server.js';

export const GRAPH_VERSION = 'v21.0';

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

const LOCATIONS = [
  { key: 'US', name: 'United States', type: 'country', country_code: 'US' },
  { key: 'GB', name: 'United Kingdom', type: 'country', country_code: 'GB' },
  { key: 'DE', name: 'Germany', type: 'country', country_code: 'DE' },
  { key: 'FR', name: 'France', type: 'country', country_code: 'FR' },
  { key: '2418779', name: 'New York', type: 'city', country_code: 'US' },
  { key: '2490299', name: 'London', type: 'city', country_code: 'GB' },
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

const READ = ['fields', 'limit', 'after', 'before', 'filtering', 'effective_status', 'summary', 'date_preset', 'time_range'];
const CAMPAIGN = [
  'adlabels',
  'bid_strategy',
  'budget_schedule_specs',
  'buying_type',
  'campaign_optimization_type',
  'daily_budget',
  'execution_options',
  'is_skadnetwork_attribution',
  'iterative_split_test_configs',
  'lifetime_budget',
  'name',
  'objective',
  'pacing_type',
  'promoted_object',
  'source_campaign_id',
  'special_ad_categories',
  'special_ad_category_country',
  'spend_cap',
  'start_time',
  'status',
  'stop_time',
  'topline_id',
];
const ADSET = [
  'adlabels',
  'adset_schedule',
  'attribution_spec',
  'bid_adjustments',
  'bid_amount',
  'bid_constraints',
  'bid_strategy',
  'billing_event',
  'campaign_attribution',
  'creative_sequence',
  'daily_budget',
  'daily_imps',
  'daily_min_spend_target',
  'daily_spend_cap',
  'destination_type',
  'dsa_beneficiary',
  'dsa_payor',
  'end_time',
  'execution_options',
  'frequency_control_specs',
  'is_dynamic_creative',
  'lifetime_budget',
  'lifetime_imps',
  'lifetime_min_spend_target',
  'lifetime_spend_cap',
  'multi_optimization_goal_weight',
  'name',
  'optimization_goal',
  'optimization_sub_event',
  'pacing_type',
  'promoted_object',
  'rf_prediction_id',
  'start_time',
  'status',
  'targeting',
  'time_based_ad_rotation_id_blocks',
  'time_based_ad_rotation_intervals',
  'time_start',
  'time_stop',
  'tune_for_category',
];
const AD = [
  'adlabels',
  'audience_id',
  'bid_amount',
  'conversion_domain',
  'creative',
  'display_sequence',
  'engagement_audience',
  'execution_options',
  'include_demolink_hashes',
  'name',
  'priority',
  'status',
  'tracking_specs',
];
const CREATIVE = [
  'actor_id',
  'adlabels',
  'applink_treatment',
  'asset_feed_spec',
  'authorization_category',
  'body',
  'branded_content',
  'call_to_action',
  'degrees_of_freedom_spec',
  'destination_set_id',
  'image_crop',
  'image_hash',
  'image_url',
  'instagram_permalink_url',
  'instagram_user_id',
  'link_og_id',
  'link_url',
  'name',
  'object_id',
  'object_story_id',
  'object_story_spec',
  'object_type',
  'object_url',
  'platform_customizations',
  'product_set_id',
  'template_url',
  'template_url_spec',
  'thumbnail_url',
  'title',
  'url_tags',
  'use_page_actor_override',
];
const INSIGHTS = [
  'fields',
  'level',
  'time_range',
  'time_ranges',
  'date_preset',
  'filtering',
  'limit',
  'after',
  'before',
  'time_increment',
  'breakdowns',
  'action_breakdowns',
  'action_attribution_windows',
  'sort',
  'use_account_attribution_setting',
];
/** Parameters the Marketing API reference documents for each kind of call (the access token aside). */
const DOCUMENTED: Record<string, Set<string>> = {
  read: new Set(READ),
  insights: new Set(INSIGHTS),
  search: new Set(['type', 'q', 'class', 'location_types', 'limit', 'after', 'locale', 'country_code', 'fields']),
  ids: new Set(['ids', 'fields']),
  'create campaign': new Set(CAMPAIGN),
  'create adset': new Set(['campaign_id', ...ADSET]),
  'create ad': new Set(['adset_id', ...AD]),
  'create creative': new Set(CREATIVE),
  'update campaign': new Set(CAMPAIGN.filter((p) => p !== 'source_campaign_id' && p !== 'topline_id')),
  'update adset': new Set(ADSET),
  'update ad': new Set(AD),
  'update creative': new Set(['name', 'status', 'adlabels']),
  delete: new Set([]),
};

/** Error 100 naming the first parameter `kind` does not document, or null. */
function undocumented(kind: string, params: Record<string, unknown>): Answer | null {
  const allowed = DOCUMENTED[kind];
  const name = Object.keys(params).find((p) => !allowed.has(p));
  return name ? graphError(400, 100, `(#100) Param ${name} is not a valid parameter of this call`, { error_data: { blame_field_specs: [[name]] } }) : null;
}

type GraphFault = { kind: 'throttle'; code: number; minutes: number } | { kind: 'error'; spec: GraphErrorSpec };

/** The fake Graph API; `requests` holds every HTTP request, in order (a batch counts once, with its size). */
export class FakeMetaServer extends FaultServer<Answer, GraphFault, { method: string; path: string; batch?: number }> {
  readonly objects = new Map<string, MetaObject>();
  private readonly accounts = new Map<string, { token: string; currency: string }>();
  private readonly assets = new Map<string, Array<Record<string, unknown>>>();
  private readonly leadForms = new Map<string, Array<{ id: string; name: string }>>();
  private readonly stats = new Map<string, Map<string, DayStats>>();
  private readonly itemThrottles: number[] = [];
  /** Object id → writes to it inside batches throttled (code 17) for `minutes`, `times` more times (Infinity: always). */
  private readonly writeThrottles = new Map<string, { minutes: number; times: number }>();
  /** Object id → writes (POST) to it inside batches answer this Graph error (code, message). */
  private readonly writeRefusals = new Map<string, { code: number; message: string }>();
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

  /** Objects of an account (optionally one level), oldest first. */
  objectsOf(accountId: string, level?: MetaLevel): MetaObject[] {
    return [...this.objects.values()].filter((o) => o.accountId === accountId && (!level || o.level === level)).sort((a, b) => a.seq - b.seq);
  }

  // ---- fault switches ------------------------------------------------------------------------

  /** The next `n` requests are throttled (HTTP 400, `code`, estimated_time_to_regain_access `minutes`). */
  throttleNext(n: number, options: { code?: number; minutes?: number } = {}): void {
    this.queueFaults(n, { kind: 'throttle', code: options.code ?? 80004, minutes: options.minutes ?? 1 });
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
    if (method === 'POST') Object.assign(params, Object.fromEntries(new URLSearchParams(body.toString('utf8'))));
    const prefix = `/${GRAPH_VERSION}`;
    const path = url.pathname.startsWith(prefix) ? url.pathname.slice(prefix.length) || '/' : null;
    const batch = path === '/' && method === 'POST' && typeof params.batch === 'string' ? (parseJson(params.batch) as unknown[]) : null;
    this.requests.push({ method, path: url.pathname, ...(Array.isArray(batch) ? { batch: batch.length } : {}) });

    let answer: Answer;
    const fault = this.faults.shift();
    if (fault?.kind === 'throttle') {
      answer = this.throttleAnswer(fault.code, fault.minutes, url.pathname);
    } else if (fault?.kind === 'error') {
      const s = fault.spec;
      answer = graphError(s.status ?? (s.code === 1 || s.code === 2 ? 500 : 400), s.code ?? 1, s.message ?? `(#${s.code ?? 1}) An unknown error occurred`, {
        ...(s.subcode !== undefined ? { error_subcode: s.subcode } : {}),
        ...(s.isTransient !== undefined ? { is_transient: s.isTransient } : {}),
        ...(s.errorData !== undefined ? { error_data: s.errorData } : {}),
      });
    } else if (fault?.kind === 'server') {
      answer = { status: fault.status, body: '<html><body>Service Unavailable</body></html>' };
    } else if (path === null) {
      answer = graphError(400, 2500, 'Unknown path components');
    } else {
      const token = String(params.access_token ?? /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '');
      delete params.access_token;
      const extra = batch ? Object.keys(params).find((k) => k !== 'batch' && k !== 'include_headers') : undefined;
      answer = extra
        ? graphError(400, 100, `(#100) Param ${extra} is not a valid parameter of this call`, { error_data: { blame_field_specs: [[extra]] } })
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

  private throttleAnswer(code: number, minutes: number, path: string): Answer {
    const account = /\/(act_\d+)/.exec(path)?.[1] ?? [...this.accounts.keys()][0] ?? 'act_0';
    const answer = graphError(400, code, `(#${code}) There have been too many calls to this ad-account. Wait a bit and try again.`, { error_subcode: 2446079 });
    answer.headers = {
      'x-business-use-case-usage': JSON.stringify({
        [account.replace(/^act_/, '')]: [
          { type: 'ads_management', call_count: 100, total_cputime: 28, total_time: 31, estimated_time_to_regain_access: minutes },
        ],
      }),
    };
    return answer;
  }

  private runBatch(items: unknown[], token: string): Answer {
    if (!Array.isArray(items)) return graphError(400, 100, '(#100) Param batch must be a JSON array');
    if (items.length > 50) return graphError(400, 100, '(#100) Too many requests in batch message. Maximum batch size is 50');
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
    if (!this.tokenKnown(token)) return graphError(400, 190, 'Invalid OAuth access token - Cannot parse access token');
    if (parts.length === 0) {
      if (method !== 'GET' || typeof params.ids !== 'string') return graphError(400, 100, '(#100) Missing parameter ids');
      return undocumented('ids', params) ?? this.getMany(String(params.ids).split(','), params, token);
    }
    if (parts.length === 1 && parts[0] === 'search') return undocumented('search', params) ?? this.search(params);
    if (parts.length === 2 && parts[0].startsWith('act_')) {
      const [accountId, edge] = parts;
      const refused = this.accountAllows(accountId, token);
      if (refused) return refused;
      if (edge === 'insights' && method === 'GET') return undocumented('insights', params) ?? this.insights(accountId, params);
      if ((ASSET_EDGES as readonly string[]).includes(edge) && method === 'GET')
        return undocumented('read', params) ?? this.listAssets(`${accountId}/${edge}`, params);
      const level = EDGE_LEVEL[edge];
      if (!level) return graphError(400, 2500, `Unknown path components: /${edge}`);
      if (method === 'GET') return undocumented('read', params) ?? this.list(accountId, level, params);
      if (method === 'POST') return undocumented(`create ${level}`, params) ?? this.create(accountId, level, params);
      return graphError(400, 100, `(#100) Unsupported ${method} on /${edge}`);
    }
    if (parts.length === 2 && parts[1] === 'leadgen_forms' && method === 'GET') return undocumented('read', params) ?? this.listLeadForms(parts[0], params);
    if (parts.length === 1) {
      const object = this.objects.get(parts[0]);
      if (!object || this.accounts.get(object.accountId)?.token !== token) return notFound(method, parts[0]);
      if (method === 'GET') return undocumented('read', params) ?? { status: 200, body: this.render(object, params.fields) };
      if (method === 'POST') return undocumented(`update ${object.level}`, params) ?? this.update(object, params);
      if (method === 'DELETE') {
        const bad = undocumented('delete', params);
        if (bad) return bad;
        object.status = 'DELETED';
        return { status: 200, body: { success: true } };
      }
    }
    return graphError(400, 2500, 'Unknown path components');
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
    };
    const fields = typeof fieldsParam === 'string' && fieldsParam ? fieldsParam.split(',') : ['id', 'name'];
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

  private create(accountId: string, level: MetaLevel, params: Record<string, unknown>): Answer {
    const name = typeof params.name === 'string' ? params.name : '';
    if (!name) return graphError(400, 100, '(#100) The parameter name is required', { error_data: { blame_field_specs: [['name']] } });
    for (const field of ['daily_budget', 'lifetime_budget']) {
      if (params[field] !== undefined && !/^\d+$/.test(String(params[field]))) {
        return graphError(400, 100, `(#100) Param ${field} must be a whole number of the currency's minor units`, {
          error_data: { blame_field_specs: [[field]] },
        });
      }
    }
    let parentId: string | null = null;
    if (level === 'campaign') {
      if (!params.objective) return graphError(400, 100, '(#100) The parameter objective is required', { error_data: { blame_field_specs: [['objective']] } });
      if (!Array.isArray(parseJson(params.special_ad_categories))) {
        return graphError(400, 100, '(#100) The parameter special_ad_categories is required', {
          error_data: { blame_field_specs: [['special_ad_categories']] },
        });
      }
    } else if (level === 'adset' || level === 'ad') {
      const field = level === 'adset' ? 'campaign_id' : 'adset_id';
      parentId = String(params[field] ?? '');
      const parent = this.objects.get(parentId);
      if (!parent || parent.accountId !== accountId || parent.level !== (level === 'adset' ? 'campaign' : 'adset')) {
        return graphError(400, 100, `(#100) Param ${field} must be an id of an object of this ad account`, { error_data: { blame_field_specs: [[field]] } });
      }
      if (level === 'ad') {
        const creative = parseJson(params.creative) as Record<string, unknown> | undefined;
        if (!creative || typeof creative !== 'object' || (!creative.creative_id && !creative.object_story_spec)) {
          return graphError(400, 100, '(#100) The parameter creative is required', { error_data: { blame_field_specs: [['creative']] } });
        }
      }
    } else if (!parseJson(params.object_story_spec)) {
      return graphError(400, 100, '(#100) The parameter object_story_spec is required', { error_data: { blame_field_specs: [['object_story_spec']] } });
    }
    const id = this.newId();
    const rest = Object.fromEntries(Object.entries(params).map(([k, v]) => [k, parseJson(v)]));
    this.objects.set(id, {
      id,
      level,
      accountId,
      name,
      status: String(params.status ?? 'PAUSED'),
      objective: level === 'campaign' ? String(params.objective) : undefined,
      dailyBudget: params.daily_budget !== undefined ? String(params.daily_budget) : undefined,
      lifetimeBudget: params.lifetime_budget !== undefined ? String(params.lifetime_budget) : undefined,
      parentId,
      createdTime: graphTime(Date.now()),
      seq: ++this.seq,
      params: rest,
    });
    return { status: 200, body: { id }, created: true };
  }

  private update(o: MetaObject, params: Record<string, unknown>): Answer {
    if (params.status !== undefined && !['ACTIVE', 'PAUSED', 'ARCHIVED', 'DELETED'].includes(String(params.status))) {
      return graphError(400, 100, `(#100) Param status must be one of {ACTIVE, PAUSED, DELETED, ARCHIVED}`, {
        error_data: { blame_field_specs: [['status']] },
      });
    }
    for (const field of ['daily_budget', 'lifetime_budget']) {
      if (params[field] !== undefined && !/^\d+$/.test(String(params[field]))) {
        return graphError(400, 100, `(#100) Param ${field} must be a whole number of the currency's minor units`, {
          error_data: { blame_field_specs: [[field]] },
        });
      }
    }
    if (params.name !== undefined) o.name = String(params.name);
    if (params.status !== undefined) o.status = String(params.status);
    if (params.daily_budget !== undefined) {
      o.dailyBudget = String(params.daily_budget);
      o.lifetimeBudget = undefined;
    }
    if (params.lifetime_budget !== undefined) {
      o.lifetimeBudget = String(params.lifetime_budget);
      o.dailyBudget = undefined;
    }
    for (const [k, v] of Object.entries(params)) if (!['name', 'status', 'daily_budget', 'lifetime_budget'].includes(k)) o.params[k] = parseJson(v);
    return { status: 200, body: { success: true } };
  }

  /** Insights at `level` (campaign by default; adset, ad), one row per object that delivered, filtered on `<level>.id`. */
  private insights(accountId: string, params: Record<string, unknown>): Answer {
    const range = parseJson(params.time_range) as { since?: string; until?: string } | undefined;
    if (!range?.since || !range.until)
      return graphError(400, 100, '(#100) Param time_range is required', { error_data: { blame_field_specs: [['time_range']] } });
    const level = String(params.level ?? 'campaign');
    if (!['campaign', 'adset', 'ad'].includes(level)) {
      return graphError(400, 100, '(#100) Param level must be one of {ad, adset, campaign, account}', { error_data: { blame_field_specs: [['level']] } });
    }
    const rules = (parseJson(params.filtering ?? '[]') as Array<{ field: string; operator: string; value: unknown }>) ?? [];
    const foreign = rules.find((r) => r.field !== `${level}.id`);
    if (foreign)
      return graphError(400, 100, `(#100) Filtering field ${foreign.field} is not supported at level ${level}`, {
        error_data: { blame_field_specs: [['filtering']] },
      });
    const idRule = rules.find((r) => r.field === `${level}.id`);
    const wanted = idRule && Array.isArray(idRule.value) ? new Set(idRule.value.map(String)) : null;
    const digits = digitsOf(this.accounts.get(accountId)!.currency);
    const campaignOf = (o: MetaObject): string | undefined =>
      o.level === 'campaign' ? o.id : o.parentId ? campaignOf(this.objects.get(o.parentId)!) : undefined;
    const rows = this.objectsOf(accountId, level as MetaLevel)
      .filter((c) => !wanted || wanted.has(c.id))
      .flatMap((c) => {
        const total: Required<DayStats> = { spendMinor: 0, impressions: 0, clicks: 0, results: 0, revenueMinor: 0, reach: 0 };
        let any = false;
        for (const [date, s] of this.stats.get(c.id) ?? []) {
          if (date < range.since! || date > range.until!) continue;
          any = true;
          total.spendMinor += s.spendMinor;
          total.impressions += s.impressions;
          total.clicks += s.clicks;
          total.results += s.results;
          total.revenueMinor += s.revenueMinor;
          total.reach += s.reach ?? Math.floor(s.impressions / 1.5);
        }
        if (!any) return [];
        // Graph reports one purchase under several action types; a reader must count it once.
        return [
          {
            campaign_id: campaignOf(c),
            ...(level !== 'campaign' ? { [`${level}_id`]: c.id } : {}),
            spend: decimal(total.spendMinor, digits),
            impressions: String(total.impressions),
            reach: String(total.reach),
            clicks: String(total.clicks),
            actions: [
              { action_type: 'link_click', value: String(total.clicks) },
              { action_type: 'offsite_conversion.fb_pixel_purchase', value: String(total.results) },
              { action_type: 'omni_purchase', value: String(total.results) },
            ],
            action_values: [
              { action_type: 'offsite_conversion.fb_pixel_purchase', value: decimal(total.revenueMinor, digits) },
              { action_type: 'omni_purchase', value: decimal(total.revenueMinor, digits) },
            ],
            date_start: range.since,
            date_stop: range.until,
          },
        ];
      });
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
    if (params.type === 'adgeolocation') {
      const types = params.location_types === undefined ? null : (parseJson(params.location_types) as string[]);
      return { status: 200, body: { data: LOCATIONS.filter((l) => (!q || l.name.toLowerCase().includes(q)) && (!types || types.includes(l.type))) } };
    }
    return graphError(400, 100, '(#100) Param type is not a supported search type', { error_data: { blame_field_specs: [['type']] } });
  }
}
