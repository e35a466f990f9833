// A fake TikTok Business API (v1.3) on loopback: advertisers, campaigns, ad groups and ads held in
// memory, the integrated report, option lists and instant forms, answering `{code, message,
// request_id, data}` with page/page_size/page_info paging. Fault switches reproduce rate limiting
// (code 40100, or HTTP 429 with Retry-After), error codes, 5xx answers, slow answers and a create
// that is applied but whose answer is dropped. As strict as the API's documentation: a parameter an
// endpoint does not document answers 40002 "<field>: Unknown field.".

import crypto from 'node:crypto';
import type http from 'node:http';
import { FaultServer, decimal, digitsOf, parseJson, type ReceivedRequest } from './fault-server.js';

export const TIKTOK_VERSION = 'v1.3';

export type TikTokLevel = 'campaign' | 'adgroup' | 'ad';

export interface TikTokObject {
  id: string;
  level: TikTokLevel;
  advertiserId: string;
  name: string;
  operationStatus: 'ENABLE' | 'DISABLE';
  deleted: boolean;
  objectiveType?: string;
  budgetMode?: string;
  /** Currency units, exactly as the API received it. */
  budget?: number;
  parentId: string | null;
  campaignId: string | null;
  createTime: string;
  seq: number;
  fields: Record<string, unknown>;
}

export interface TikTokDayStats {
  spendMinor: number;
  impressions: number;
  clicks: number;
  conversions: number;
  revenueMinor: number;
  /** People reached that day (default: impressions / 1.5). */
  reach?: number;
}

interface Answer {
  status?: number;
  code: number;
  message?: string;
  data?: unknown;
  headers?: Record<string, string>;
  created?: boolean;
}

const SECONDARY: Record<TikTokLevel, string> = { campaign: 'CAMPAIGN_STATUS', adgroup: 'ADGROUP_STATUS', ad: 'AD_STATUS' };
const NAME_FIELD: Record<TikTokLevel, string> = { campaign: 'campaign_name', adgroup: 'adgroup_name', ad: 'ad_name' };
const ID_FIELD: Record<TikTokLevel, string> = { campaign: 'campaign_id', adgroup: 'adgroup_id', ad: 'ad_id' };

const INTEREST_CATEGORIES = [
  ['10100', 'Apparel & Accessories'],
  ['10101', 'Running shoes'],
  ['10200', 'Sports & Outdoors'],
  ['10300', 'Travel'],
  ['10400', 'Beauty & Personal Care'],
].map(([id, name]) => ({ interest_category_id: id, interest_category_name: name, level: id.endsWith('00') ? 1 : 2, sub_category_ids: [] }));

const REGIONS = [
  { location_id: '6252001', name: 'United States', region_code: 'US', level: 'COUNTRY' },
  { location_id: '2635167', name: 'United Kingdom', region_code: 'GB', level: 'COUNTRY' },
  { location_id: '2921044', name: 'Germany', region_code: 'DE', level: 'COUNTRY' },
  { location_id: '5128638', name: 'New York', region_code: 'US', level: 'PROVINCE' },
];

function tiktokTime(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
}

const invalid = (message: string): Answer => ({ code: 40002, message });

const LIST = ['advertiser_id', 'fields', 'filtering', 'page', 'page_size', 'exclude_field_types_in_response'];
const ADGROUP_FIELDS = [
  'placement_type',
  'placements',
  'promotion_type',
  'location_ids',
  'zipcode_ids',
  'age_groups',
  'gender',
  'languages',
  'interest_category_ids',
  'interest_keyword_ids',
  'audience_ids',
  'excluded_audience_ids',
  'operating_systems',
  'device_price_ranges',
  'network_types',
  'budget_mode',
  'budget',
  'schedule_type',
  'schedule_start_time',
  'schedule_end_time',
  'dayparting',
  'optimization_goal',
  'optimization_event',
  'billing_event',
  'bid_type',
  'bid_price',
  'conversion_bid_price',
  'deep_bid_type',
  'pixel_id',
  'pacing',
  'frequency',
  'frequency_schedule',
  'operation_status',
  'request_id',
  'comment_disabled',
  'video_download_disabled',
  'share_disabled',
  'brand_safety_type',
  'app_id',
  'promotion_website_type',
];
/** Body and query parameters the TikTok Business API (v1.3) documents, per endpoint; any other answers 40002 "Unknown field.". */
const DOCUMENTED: Record<string, Set<string>> = {
  'GET /campaign/get/': new Set(LIST),
  'GET /adgroup/get/': new Set(LIST),
  'GET /ad/get/': new Set(LIST),
  'POST /campaign/create/': new Set([
    'advertiser_id',
    'campaign_name',
    'objective_type',
    'operation_status',
    'budget_mode',
    'budget',
    'budget_optimize_on',
    'campaign_type',
    'app_promotion_type',
    'virtual_objective_type',
    'sales_destination',
    'is_search_campaign',
    'is_smart_performance_campaign',
    'special_industries',
    'app_id',
    'rta_id',
    'rta_bid_enabled',
    'bid_type',
    'deep_bid_type',
    'roas_bid',
    'optimization_goal',
    'budget_auto_adjust_strategy',
    'request_id',
    'po_number',
  ]),
  'POST /campaign/update/': new Set([
    'advertiser_id',
    'campaign_id',
    'campaign_name',
    'budget_mode',
    'budget',
    'special_industries',
    'budget_auto_adjust_strategy',
    'po_number',
    'request_id',
  ]),
  'POST /adgroup/create/': new Set(['advertiser_id', 'campaign_id', 'adgroup_name', ...ADGROUP_FIELDS]),
  'POST /adgroup/update/': new Set(['advertiser_id', 'adgroup_id', 'adgroup_name', ...ADGROUP_FIELDS]),
  'POST /ad/create/': new Set(['advertiser_id', 'adgroup_id', 'creatives']),
  'POST /ad/update/': new Set(['advertiser_id', 'adgroup_id', 'creatives']),
  'POST /campaign/status/update/': new Set(['advertiser_id', 'campaign_ids', 'operation_status']),
  'POST /adgroup/status/update/': new Set(['advertiser_id', 'adgroup_ids', 'operation_status']),
  'POST /ad/status/update/': new Set(['advertiser_id', 'ad_ids', 'operation_status']),
  'GET /report/integrated/get/': new Set([
    'advertiser_id',
    'advertiser_ids',
    'report_type',
    'data_level',
    'dimensions',
    'metrics',
    'start_date',
    'end_date',
    'filtering',
    'page',
    'page_size',
    'order_field',
    'order_type',
    'service_type',
    'query_lifetime',
    'query_mode',
    'enable_total_metrics',
    'multi_adv_report_in_utc_time',
  ]),
  'GET /pixel/list/': new Set(['advertiser_id', 'pixel_id', 'code', 'name', 'order_by', 'page', 'page_size']),
  'GET /identity/get/': new Set(['advertiser_id', 'identity_type', 'identity_authorized_bc_id', 'filtering', 'page', 'page_size']),
  'GET /dmp/custom_audience/list/': new Set(['advertiser_id', 'custom_audience_ids', 'page', 'page_size']),
  'GET /page/get/': new Set(['advertiser_id', 'business_type', 'status', 'title', 'update_time_range', 'page', 'page_size']),
  'GET /tool/interest_category/': new Set(['advertiser_id', 'version', 'placements', 'special_industries', 'language']),
  'GET /tool/region/': new Set(['advertiser_id', 'placements', 'objective_type', 'level_range', 'language']),
};
/** Fields of one entry of `creatives` (ad/create, ad/update). */
const CREATIVE_FIELDS = new Set([
  'ad_id',
  'ad_name',
  'ad_format',
  'ad_text',
  'call_to_action',
  'call_to_action_id',
  'landing_page_url',
  'display_name',
  'identity_id',
  'identity_type',
  'identity_authorized_bc_id',
  'image_ids',
  'video_id',
  'avatar_icon_web_uri',
  'tracking_pixel_id',
  'deeplink',
  'deeplink_type',
  'page_id',
  'operation_status',
  'creative_authorized',
  'carousel_image_index',
  'music_id',
  'tiktok_item_id',
  'promotional_music_disabled',
  'item_duet_status',
  'item_stitch_status',
]);

/** Why a request carries a field the API does not document, or null. */
function undocumented(key: string, params: Record<string, unknown>): string | null {
  const allowed = DOCUMENTED[key];
  if (!allowed) return null;
  const field = Object.keys(params).find((k) => !allowed.has(k));
  if (field) return `${field}: Unknown field.`;
  for (const [i, c] of (Array.isArray(params.creatives) ? (params.creatives as Array<Record<string, unknown>>) : []).entries()) {
    const bad = Object.keys(c ?? {}).find((k) => !CREATIVE_FIELDS.has(k));
    if (bad) return `creatives.${i}.${bad}: Unknown field.`;
  }
  return null;
}

type TikTokFault = { kind: 'throttle'; http429: boolean; retryAfterSeconds?: number } | { kind: 'code'; code: number; message: string };

export class FakeTikTokServer extends FaultServer<Answer, TikTokFault> {
  readonly objects = new Map<string, TikTokObject>();
  private readonly advertisers = new Map<string, { token: string; currency: string }>();
  private readonly assets = new Map<string, Array<Record<string, unknown>>>();
  private readonly forms = new Map<string, Array<Record<string, unknown>>>();
  private readonly stats = new Map<string, Map<string, TikTokDayStats>>();
  /** Object id → the message a status update answers for it in `failures` (the object left unchanged). */
  private readonly statusRefusals = new Map<string, string>();
  private seq = 0;

  private constructor() {
    super(`/open_api/${TIKTOK_VERSION}`);
  }

  static start(): Promise<FakeTikTokServer> {
    return new FakeTikTokServer().listen();
  }

  // ---- state seeding -------------------------------------------------------------------------

  /** Registers an advertiser and returns its access token. */
  addAdvertiser(advertiserId: string, options: { token?: string; currency?: string } = {}): string {
    const token = options.token ?? crypto.randomBytes(20).toString('hex');
    this.advertisers.set(advertiserId, { token, currency: options.currency ?? 'USD' });
    return token;
  }

  private newId(): string {
    for (;;) {
      const id = `17${crypto.randomInt(10 ** 12, 10 ** 13)}${crypto.randomInt(10 ** 4, 10 ** 5)}`;
      if (!this.objects.has(id)) return id;
    }
  }

  private put(o: Omit<TikTokObject, 'id' | 'seq' | 'createTime' | 'deleted'>): TikTokObject {
    const object: TikTokObject = { ...o, id: this.newId(), seq: ++this.seq, createTime: tiktokTime(Date.now()), deleted: false };
    this.objects.set(object.id, object);
    return object;
  }

  /** A campaign the advertiser holds before the service touches it (budget in currency units). */
  seedCampaign(
    advertiserId: string,
    c: { name: string; operationStatus?: 'ENABLE' | 'DISABLE'; objectiveType?: string; budgetMode?: string; budget?: number },
  ): string {
    return this.put({
      level: 'campaign',
      advertiserId,
      name: c.name,
      operationStatus: c.operationStatus ?? 'ENABLE',
      objectiveType: c.objectiveType ?? 'TRAFFIC',
      budgetMode: c.budgetMode ?? (c.budget ? 'BUDGET_MODE_DAY' : 'BUDGET_MODE_INFINITE'),
      budget: c.budget ?? 0,
      parentId: null,
      campaignId: null,
      fields: {},
    }).id;
  }

  /** Pixels (`pixels`), identities (`identity_list`) or custom audiences (`list`). */
  seedAsset(advertiserId: string, kind: 'pixels' | 'identities' | 'audiences', item: Record<string, unknown>): void {
    const key = `${advertiserId}/${kind}`;
    this.assets.set(key, [...(this.assets.get(key) ?? []), item]);
  }

  /** An instant form (lead generation page) of the advertiser. */
  seedLeadForm(advertiserId: string, form: { page_id: string; title: string }): void {
    this.forms.set(advertiserId, [...(this.forms.get(advertiserId) ?? []), { ...form, business_type: 'LEAD_GEN', status: 'EDITED' }]);
  }

  seedStats(campaignId: string, date: string, stats: TikTokDayStats): void {
    const days = this.stats.get(campaignId) ?? new Map<string, TikTokDayStats>();
    days.set(date, stats);
    this.stats.set(campaignId, days);
  }

  /** Objects of an advertiser (optionally one level), oldest first. */
  objectsOf(advertiserId: string, level?: TikTokLevel): TikTokObject[] {
    return [...this.objects.values()].filter((o) => o.advertiserId === advertiserId && (!level || o.level === level)).sort((a, b) => a.seq - b.seq);
  }

  // ---- fault switches ------------------------------------------------------------------------

  /** The next `n` requests are rate limited: code 40100, or HTTP 429 with Retry-After when asked. */
  /** Status updates leave object `id` unchanged and list it in the answer's `failures` with `message` (until `clear`). */
  refuseStatusOf(id: string, message = 'The ad group cannot be enabled in its current state.', clear = false): void {
    if (clear) this.statusRefusals.delete(id);
    else this.statusRefusals.set(id, message);
  }

  throttleNext(n: number, options: { http429?: boolean; retryAfterSeconds?: number } = {}): void {
    this.queueFaults(n, { kind: 'throttle', http429: options.http429 ?? false, retryAfterSeconds: options.retryAfterSeconds });
  }

  /** The next `n` requests answer HTTP 200 with this non-zero code. */
  codeNext(n: number, code: number, message: string): void {
    this.queueFaults(n, { kind: 'code', code, message });
  }

  // (serverErrorNext, slowNext and dropNextCreate: see FaultServer.)

  // ---- HTTP ----------------------------------------------------------------------------------

  protected override respond({ req, url, method, body }: ReceivedRequest): Answer {
    this.requests.push({ method, path: url.pathname });

    let answer: Answer;
    const fault = this.faults.shift();
    if (fault?.kind === 'throttle') {
      answer = fault.http429
        ? {
            status: 429,
            code: 40100,
            message: 'Too many requests.',
            headers: fault.retryAfterSeconds !== undefined ? { 'retry-after': String(fault.retryAfterSeconds) } : {},
          }
        : { code: 40100, message: 'Requests made too frequently. Please try again later.' };
    } else if (fault?.kind === 'code') {
      answer = { code: fault.code, message: fault.message };
    } else if (fault?.kind === 'server') {
      answer = { status: fault.status, code: -1 };
    } else {
      let params: Record<string, unknown>;
      if (method === 'GET') {
        params = Object.fromEntries([...url.searchParams].map(([k, v]) => [k, /^[[{]/.test(v) ? parseJson(v) : v]));
      } else {
        try {
          params = JSON.parse(body.toString('utf8') || '{}');
        } catch {
          params = {};
        }
      }
      answer = this.route(method, url.pathname.replace(`/open_api/${TIKTOK_VERSION}`, ''), params, String(req.headers['access-token'] ?? ''));
    }
    return answer;
  }

  protected override write(res: http.ServerResponse, answer: Answer): void {
    if (answer.status && answer.status >= 500) {
      res.writeHead(answer.status, { 'content-type': 'text/plain' });
      res.end('upstream unavailable');
      return;
    }
    const requestId = crypto.randomBytes(12).toString('hex');
    res.writeHead(answer.status ?? 200, { 'content-type': 'application/json', ...(answer.headers ?? {}) });
    res.end(JSON.stringify({ code: answer.code, message: answer.message ?? 'OK', request_id: requestId, data: answer.data ?? {} }));
  }

  private route(method: string, path: string, params: Record<string, unknown>, token: string): Answer {
    if (!token) return { code: 40104, message: 'Access token is null. Please check the access token in the request header.' };
    if (![...this.advertisers.values()].some((a) => a.token === token)) return { code: 40105, message: 'Access token is incorrect or has been revoked.' };
    const advertiserId = String(params.advertiser_id ?? '');
    if (!advertiserId) return invalid('advertiser_id: Missing data for required field.');
    const advertiser = this.advertisers.get(advertiserId);
    if (!advertiser || advertiser.token !== token) return { code: 40001, message: `No permission to operate advertiser ${advertiserId}.` };
    const key = `${method} ${path}`;
    const unknown = undocumented(key, params);
    if (unknown) return invalid(unknown);
    switch (key) {
      case 'GET /campaign/get/':
        return this.list(advertiserId, 'campaign', params);
      case 'GET /adgroup/get/':
        return this.list(advertiserId, 'adgroup', params);
      case 'GET /ad/get/':
        return this.list(advertiserId, 'ad', params);
      case 'POST /campaign/create/':
        return this.createCampaign(advertiserId, params);
      case 'POST /adgroup/create/':
        return this.createAdgroup(advertiserId, params);
      case 'POST /ad/create/':
        return this.createAds(advertiserId, params);
      case 'POST /campaign/update/':
        return this.update(advertiserId, 'campaign', params);
      case 'POST /adgroup/update/':
        return this.update(advertiserId, 'adgroup', params);
      case 'POST /ad/update/':
        return this.updateAds(advertiserId, params);
      case 'POST /campaign/status/update/':
        return this.statusUpdate(advertiserId, 'campaign', params);
      case 'POST /adgroup/status/update/':
        return this.statusUpdate(advertiserId, 'adgroup', params);
      case 'POST /ad/status/update/':
        return this.statusUpdate(advertiserId, 'ad', params);
      case 'GET /report/integrated/get/':
        return this.report(advertiserId, params);
      case 'GET /pixel/list/':
        return this.paged(this.assets.get(`${advertiserId}/pixels`) ?? [], params, 'pixels');
      case 'GET /identity/get/':
        return this.paged(this.assets.get(`${advertiserId}/identities`) ?? [], params, 'identity_list');
      case 'GET /dmp/custom_audience/list/':
        return this.paged(this.assets.get(`${advertiserId}/audiences`) ?? [], params, 'list');
      case 'GET /page/get/':
        return this.paged(
          (this.forms.get(advertiserId) ?? []).filter((f) => !params.business_type || f.business_type === params.business_type),
          params,
          'list',
        );
      case 'GET /tool/interest_category/':
        return { code: 0, data: { interest_categories: INTEREST_CATEGORIES } };
      case 'GET /tool/region/':
        return { code: 0, data: { region_info: REGIONS } };
      default:
        return { code: 40002, message: `The API ${path} does not support ${method}.` };
    }
  }

  /** One page of `rows` in TikTok's page/page_size/page_info shape. */
  private paged<T>(rows: T[], params: Record<string, unknown>, key: string, render: (row: T) => unknown = (r) => r): Answer {
    const page = Number(params.page ?? 1);
    const size = Number(params.page_size ?? 10);
    if (!Number.isInteger(page) || page < 1) return invalid('page: Must be greater than or equal to 1.');
    if (!Number.isInteger(size) || size < 1 || size > 1000) return invalid('page_size: Must be between 1 and 1000.');
    return {
      code: 0,
      data: {
        [key]: rows.slice((page - 1) * size, page * size).map(render),
        page_info: { page, page_size: size, total_number: rows.length, total_page: Math.ceil(rows.length / size) },
      },
    };
  }

  private secondaryStatus(o: TikTokObject): string {
    return `${SECONDARY[o.level]}_${o.deleted ? 'DELETE' : o.operationStatus}`;
  }

  private render(o: TikTokObject): Record<string, unknown> {
    const common = {
      advertiser_id: o.advertiserId,
      [ID_FIELD[o.level]]: o.id,
      [NAME_FIELD[o.level]]: o.name,
      operation_status: o.operationStatus,
      secondary_status: this.secondaryStatus(o),
      create_time: o.createTime,
      modify_time: o.createTime,
    };
    if (o.level === 'campaign') return { ...common, objective_type: o.objectiveType, budget_mode: o.budgetMode, budget: o.budget ?? 0 };
    if (o.level === 'adgroup') return { ...common, campaign_id: o.parentId, budget_mode: o.budgetMode, budget: o.budget ?? 0, ...o.fields };
    return { ...common, adgroup_id: o.parentId, campaign_id: o.campaignId, ...o.fields };
  }

  private list(advertiserId: string, level: TikTokLevel, params: Record<string, unknown>): Answer {
    const filtering = (params.filtering ?? {}) as Record<string, unknown>;
    if (typeof filtering !== 'object' || Array.isArray(filtering)) return invalid('filtering: Not a valid JSON object.');
    const primary = String(filtering.primary_status ?? 'STATUS_NOT_DELETE');
    const ids = (field: string) => (Array.isArray(filtering[field]) ? new Set((filtering[field] as unknown[]).map(String)) : null);
    const own = ids(`${ID_FIELD[level]}s`);
    const campaigns = ids('campaign_ids');
    const adgroups = ids('adgroup_ids');
    const name = typeof filtering[NAME_FIELD[level]] === 'string' ? String(filtering[NAME_FIELD[level]]).toLowerCase() : null;
    const secondary = typeof filtering.secondary_status === 'string' ? filtering.secondary_status : null;
    const rows = this.objectsOf(advertiserId, level)
      .reverse()
      .filter((o) => (primary === 'STATUS_ALL' ? true : primary === 'STATUS_DELETE' ? o.deleted : !o.deleted))
      .filter((o) => !own || own.has(o.id))
      .filter((o) => !campaigns || campaigns.has(level === 'campaign' ? o.id : String(o.campaignId ?? o.parentId)))
      .filter((o) => !adgroups || (level === 'ad' && adgroups.has(String(o.parentId))))
      .filter((o) => !name || o.name.toLowerCase().includes(name))
      .filter((o) => !secondary || this.secondaryStatus(o) === secondary);
    return this.paged(rows, params, 'list', (o) => this.render(o));
  }

  private budgetOf(params: Record<string, unknown>, advertiserId: string, required: boolean): { mode: string; budget: number } | Answer {
    const mode = String(params.budget_mode ?? (required ? '' : 'BUDGET_MODE_INFINITE'));
    if (!['BUDGET_MODE_DAY', 'BUDGET_MODE_TOTAL', 'BUDGET_MODE_INFINITE', 'BUDGET_MODE_DYNAMIC_DAILY_BUDGET'].includes(mode))
      return invalid('budget_mode: Must be one of BUDGET_MODE_DAY, BUDGET_MODE_TOTAL, BUDGET_MODE_INFINITE.');
    if (mode === 'BUDGET_MODE_INFINITE') return { mode, budget: 0 };
    const budget = params.budget;
    if (typeof budget !== 'number' || !(budget > 0)) return invalid('budget: Must be a positive number.');
    const digits = digitsOf(this.advertisers.get(advertiserId)!.currency);
    const fraction = String(budget).split('.')[1] ?? '';
    if (fraction.length > digits) return invalid(`budget: At most ${digits} decimal places are allowed for this currency.`);
    return { mode, budget };
  }

  private parent(advertiserId: string, level: TikTokLevel, id: unknown, field: string): TikTokObject | Answer {
    const o = this.objects.get(String(id ?? ''));
    if (!o || o.advertiserId !== advertiserId || o.level !== level || o.deleted)
      return invalid(`${field}: ${level === 'campaign' ? 'Campaign' : 'Ad group'} ${String(id)} does not exist.`);
    return o;
  }

  private status(params: Record<string, unknown>): 'ENABLE' | 'DISABLE' | Answer {
    const s = params.operation_status ?? 'ENABLE';
    return s === 'ENABLE' || s === 'DISABLE' ? s : invalid('operation_status: Must be one of ENABLE, DISABLE.');
  }

  private createCampaign(advertiserId: string, params: Record<string, unknown>): Answer {
    if (typeof params.campaign_name !== 'string' || !params.campaign_name) return invalid('campaign_name: Missing data for required field.');
    if (params.campaign_name.length > 512) return invalid('campaign_name: Length must be between 1 and 512.');
    if (typeof params.objective_type !== 'string' || !params.objective_type) return invalid('objective_type: Missing data for required field.');
    const budget = this.budgetOf(params, advertiserId, true);
    if ('code' in budget) return budget;
    const status = this.status(params);
    if (typeof status !== 'string') return status;
    const { campaign_name: _n, objective_type: _o, budget_mode: _m, budget: _b, operation_status: _s, advertiser_id: _a, ...fields } = params;
    const o = this.put({
      level: 'campaign',
      advertiserId,
      name: params.campaign_name,
      operationStatus: status,
      objectiveType: params.objective_type,
      budgetMode: budget.mode,
      budget: budget.budget,
      parentId: null,
      campaignId: null,
      fields,
    });
    return { code: 0, data: { campaign_id: o.id }, created: true };
  }

  private createAdgroup(advertiserId: string, params: Record<string, unknown>): Answer {
    if (typeof params.adgroup_name !== 'string' || !params.adgroup_name) return invalid('adgroup_name: Missing data for required field.');
    const campaign = this.parent(advertiserId, 'campaign', params.campaign_id, 'campaign_id');
    if ('code' in campaign) return campaign;
    const budget = this.budgetOf(params, advertiserId, false);
    if ('code' in budget) return budget;
    const status = this.status(params);
    if (typeof status !== 'string') return status;
    const { adgroup_name: _n, campaign_id: _c, budget_mode: _m, budget: _b, operation_status: _s, advertiser_id: _a, ...fields } = params;
    const o = this.put({
      level: 'adgroup',
      advertiserId,
      name: params.adgroup_name,
      operationStatus: status,
      budgetMode: budget.mode,
      budget: budget.budget,
      parentId: campaign.id,
      campaignId: campaign.id,
      fields,
    });
    return { code: 0, data: { adgroup_id: o.id }, created: true };
  }

  private createAds(advertiserId: string, params: Record<string, unknown>): Answer {
    const adgroup = this.parent(advertiserId, 'adgroup', params.adgroup_id, 'adgroup_id');
    if ('code' in adgroup) return adgroup;
    const creatives = params.creatives;
    if (!Array.isArray(creatives) || creatives.length < 1 || creatives.length > 20) return invalid('creatives: Length must be between 1 and 20.');
    for (const [i, c] of creatives.entries()) {
      if (typeof c?.ad_name !== 'string' || !c.ad_name) return invalid(`creatives.${i}.ad_name: Missing data for required field.`);
      if (c.operation_status !== undefined && c.operation_status !== 'ENABLE' && c.operation_status !== 'DISABLE')
        return invalid(`creatives.${i}.operation_status: Must be one of ENABLE, DISABLE.`);
    }
    const ids = creatives.map((c: Record<string, unknown>) => {
      const { ad_name: _n, operation_status: _s, ...fields } = c;
      return this.put({
        level: 'ad',
        advertiserId,
        name: String(c.ad_name),
        operationStatus: (c.operation_status as 'ENABLE' | 'DISABLE') ?? 'ENABLE',
        parentId: adgroup.id,
        campaignId: adgroup.campaignId,
        fields,
      }).id;
    });
    return { code: 0, data: { ad_ids: ids, creatives: ids.map((ad_id: string) => ({ ad_id })) }, created: true };
  }

  private update(advertiserId: string, level: 'campaign' | 'adgroup', params: Record<string, unknown>): Answer {
    const field = ID_FIELD[level];
    const o = this.objects.get(String(params[field] ?? ''));
    if (!o || o.advertiserId !== advertiserId || o.level !== level) return invalid(`${field}: ${String(params[field])} does not exist.`);
    if (params.budget_mode !== undefined || params.budget !== undefined) {
      const budget = this.budgetOf({ budget_mode: params.budget_mode ?? o.budgetMode, budget: params.budget }, advertiserId, true);
      if ('code' in budget) return budget;
      o.budgetMode = budget.mode;
      o.budget = budget.budget;
    }
    const name = params[NAME_FIELD[level]];
    if (name !== undefined) {
      if (typeof name !== 'string' || !name) return invalid(`${NAME_FIELD[level]}: Must not be empty.`);
      o.name = name;
    }
    for (const [k, v] of Object.entries(params)) if (![field, NAME_FIELD[level], 'budget', 'budget_mode', 'advertiser_id'].includes(k)) o.fields[k] = v;
    return { code: 0, data: { [field]: o.id } };
  }

  private updateAds(advertiserId: string, params: Record<string, unknown>): Answer {
    const adgroup = this.parent(advertiserId, 'adgroup', params.adgroup_id, 'adgroup_id');
    if ('code' in adgroup) return adgroup;
    const creatives = Array.isArray(params.creatives) ? (params.creatives as Array<Record<string, unknown>>) : [];
    const ads = creatives.map((c) => this.objects.get(String(c.ad_id ?? '')));
    const missing = creatives.find((_c, i) => !ads[i] || ads[i]!.advertiserId !== advertiserId || ads[i]!.parentId !== adgroup.id);
    if (missing) return invalid(`creatives.ad_id: Ad ${String(missing.ad_id)} does not exist.`);
    creatives.forEach((c, i) => {
      const { ad_id: _id, ad_name, ...fields } = c;
      if (typeof ad_name === 'string' && ad_name) ads[i]!.name = ad_name;
      Object.assign(ads[i]!.fields, fields);
    });
    return { code: 0, data: { ad_ids: ads.map((a) => a!.id) } };
  }

  private statusUpdate(advertiserId: string, level: TikTokLevel, params: Record<string, unknown>): Answer {
    const field = `${ID_FIELD[level]}s`;
    const ids = params[field];
    if (!Array.isArray(ids) || ids.length < 1 || ids.length > 20) return invalid(`${field}: Length must be between 1 and 20.`);
    const status = params.operation_status;
    if (status !== 'ENABLE' && status !== 'DISABLE' && status !== 'DELETE') return invalid('operation_status: Must be one of ENABLE, DISABLE, DELETE.');
    const objects = ids.map((id) => this.objects.get(String(id)));
    const missing = ids.filter((_id, i) => !objects[i] || objects[i]!.advertiserId !== advertiserId || objects[i]!.level !== level);
    if (missing.length) return invalid(`${field}: ${missing.join(', ')} do not exist.`);
    // Objects the platform refuses on their own are left as they are and listed in `failures`; the others change.
    const failures: Array<Record<string, string>> = [];
    const changed: string[] = [];
    for (const o of objects) {
      const refusal = this.statusRefusals.get(o!.id);
      if (refusal !== undefined) {
        failures.push({ [ID_FIELD[level]]: o!.id, message: refusal });
        continue;
      }
      changed.push(o!.id);
      if (status === 'DELETE') o!.deleted = true;
      else if (!o!.deleted) o!.operationStatus = status;
    }
    return { code: 0, data: { [field]: changed, status, ...(failures.length ? { failures } : {}) } };
  }

  /** The integrated report at campaign, ad group or ad level: one row per object (its id the dimension), filtered to ids. */
  private report(advertiserId: string, params: Record<string, unknown>): Answer {
    if (params.report_type !== 'BASIC') return invalid('report_type: Must be one of BASIC, AUDIENCE, PLAYABLE_MATERIAL, CATALOG, BC, TT_SHOP.');
    const levels: Record<string, TikTokLevel> = { AUCTION_CAMPAIGN: 'campaign', AUCTION_ADGROUP: 'adgroup', AUCTION_AD: 'ad' };
    const level = levels[String(params.data_level)];
    if (!level) return invalid('data_level: Must be one of AUCTION_ADVERTISER, AUCTION_CAMPAIGN, AUCTION_ADGROUP, AUCTION_AD.');
    const since = String(params.start_date ?? '');
    const until = String(params.end_date ?? '');
    if (!/^\d{4}-\d{2}-\d{2}$/.test(since) || !/^\d{4}-\d{2}-\d{2}$/.test(until)) return invalid('start_date: Must be a date YYYY-MM-DD.');
    const dimensions = Array.isArray(params.dimensions) ? (params.dimensions as string[]) : [];
    if (dimensions.length !== 1 || dimensions[0] !== ID_FIELD[level])
      return invalid(`dimensions: Must be ["${ID_FIELD[level]}"] at data level ${String(params.data_level)}.`);
    const metrics = Array.isArray(params.metrics) ? (params.metrics as string[]) : [];
    const filters = Array.isArray(params.filtering) ? (params.filtering as Array<Record<string, unknown>>) : [];
    const idFilter = filters.find((f) => f.field_name === `${ID_FIELD[level]}s`);
    const wanted = idFilter ? new Set((parseJson(idFilter.filter_value) as unknown[]).map(String)) : null;
    if (wanted && wanted.size > 100) return invalid(`filtering: ${ID_FIELD[level]}s takes at most 100 ids.`);
    const digits = digitsOf(this.advertisers.get(advertiserId)!.currency);
    const rows = this.objectsOf(advertiserId, level)
      .filter((c) => !wanted || wanted.has(c.id))
      .map((c) => {
        const t: Required<TikTokDayStats> = { spendMinor: 0, impressions: 0, clicks: 0, conversions: 0, revenueMinor: 0, reach: 0 };
        for (const [date, s] of this.stats.get(c.id) ?? []) {
          if (date < since || date > until) continue;
          t.spendMinor += s.spendMinor;
          t.impressions += s.impressions;
          t.clicks += s.clicks;
          t.conversions += s.conversions;
          t.revenueMinor += s.revenueMinor;
          t.reach += s.reach ?? Math.floor(s.impressions / 1.5);
        }
        const all: Record<string, string> = {
          spend: decimal(t.spendMinor, digits),
          impressions: String(t.impressions),
          clicks: String(t.clicks),
          conversion: String(t.conversions),
          total_complete_payment_rate: decimal(t.revenueMinor, digits),
          reach: String(t.reach),
        };
        return { dimensions: { [ID_FIELD[level]]: c.id }, metrics: Object.fromEntries(metrics.filter((m) => m in all).map((m) => [m, all[m]])) };
      });
    return this.paged(rows, params, 'list');
  }
}
