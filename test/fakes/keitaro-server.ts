// A fake Keitaro tracker on loopback: the Admin API under /admin_api/v1 with the key in the Api-Key
// header. GET /campaigns, POST /report/build (metrics over a date range, grouped by the `grouping`
// columns), POST /campaigns/{id}/update_costs (sets the cost of the range, per sub_id_3 filter).
// As strict as Keitaro documents its API (see src/trackers/keitaro.ts for the sources): a body field,
// range field, metric, grouping column, filter operator or update_costs filter it does not document
// answers 400, so a request in the wrong shape fails here as it would against a real tracker.
// Documented faults: 401 for a wrong key, 402/403 when the plan refuses, 429 with Retry-After, 5xx;
// queued per request, optionally only for paths matching a pattern.

import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeCampaign {
  id: number;
  name: string;
  cost_auto?: boolean;
}

/** Clicks of one day: campaign, sub_id_3 and ad_campaign_id ('' when the click had none). */
export interface FakeClicks {
  date: string;
  campaign_id: number;
  sub_id_3: string;
  ad_campaign_id: string;
  clicks: number;
  revenue: number;
  /** Conversions among those clicks (default 0). */
  conversions?: number;
}

export interface FakeFault {
  status: number;
  retryAfter?: string;
  /** Only requests whose path matches take this fault (default: any). */
  path?: RegExp;
  /** Matching requests let through before this fault fires (default 0). */
  after?: number;
}

export interface LoggedRequest {
  method: string;
  path: string;
  apiKey: string | null;
  body: any;
  /** The test's clock when the request arrived. */
  at: number;
  status: number;
}

export interface StoredCost {
  campaignId: number;
  startDate: string;
  endDate: string;
  subId3: string | null;
  cost: string;
  currency: string;
  timezone: string;
  /** How many update_costs calls set it. */
  sets: number;
}

/** Body fields of POST /report/build that Keitaro documents. */
const REPORT_FIELDS = new Set(['range', 'columns', 'metrics', 'grouping', 'filters', 'sort', 'limit', 'offset']);
const RANGE_FIELDS = new Set(['from', 'to', 'timezone', 'interval']);
/** Keitaro's "metrics" list (report builder). */
const METRICS = new Set([
  'clicks',
  'campaign_unique_clicks',
  'stream_unique_clicks',
  'global_unique_clicks',
  'uc_campaign_rate',
  'uc_stream_rate',
  'uc_global_rate',
  'bots',
  'bot_share',
  'proxies',
  'empty_referrers',
  'conversions',
  'leads',
  'sales',
  'rejected',
  'rebills',
  'approve',
  'lp_clicks',
  'lp_ctr',
  'landing_clicked_period',
  'cr',
  'crs',
  'crl',
  'roi',
  'roi_confirmed',
  'epc',
  'epc_confirmed',
  'cps',
  'cpa',
  'cpc',
  'ecpc',
  'ecpm',
  'ecpm_confirmed',
  'ec',
  'ec_confirmed',
  'profitability',
  'cost',
  'revenue',
  'profit',
  'lead_revenue',
  'sale_revenue',
  'rejected_revenue',
  'profit_confirmed',
]);
/** Keitaro's "columns" list: what a report may group by or show (a subset: the ids, names and click parameters). */
const COLUMNS = new Set([
  'click_id',
  'sub_id',
  'visitor_code',
  'campaign_id',
  'campaign_group_id',
  'parent_campaign_id',
  'landing_id',
  'offer_id',
  'ts_id',
  'stream_id',
  'campaign',
  'campaign_group',
  'landing',
  'offer',
  'ts',
  'stream',
  'country',
  'country_code',
  'source',
  'keyword',
  'ad_campaign_id',
  'external_id',
  'creative_id',
  'datetime',
  'year',
  'month',
  'week',
  'weekday',
  'day',
  'hour',
  'day_hour',
  ...Array.from({ length: 15 }, (_, i) => `sub_id_${i + 1}`),
]);
const OPERATORS = new Set([
  'EQUALS',
  'NOT_EQUAL',
  'EQUALS_OR_GREATER_THAN',
  'EQUALS_OR_LESS_THAN',
  'GREATER_THAN',
  'LESS_THAN',
  'MATCH_REGEXP',
  'NOT_MATCH_REGEXP',
  'BEGINS_WITH',
  'ENDS_WITH',
  'CONTAINS',
  'NOT_CONTAIN',
  'IN_LIST',
  'NOT_IN_LIST',
  'BETWEEN',
  'IS_SET',
  'IS_NOT_SET',
  'IS_TRUE',
  'IS_FALSE',
  'HAS_LABEL',
  'NOT_HAS_LABEL',
]);
/** Body fields of POST /campaigns/{id}/update_costs, and the keys its `filters` may hold. */
const COST_FIELDS = new Set(['start_date', 'end_date', 'timezone', 'cost', 'currency', 'only_campaign_uniques', 'filters']);
const COST_FILTERS = new Set([
  'keyword',
  'cost',
  'currency',
  'external_id',
  'creative_id',
  'ad_campaign_id',
  'source',
  ...Array.from({ length: 15 }, (_, i) => `sub_id_${i + 1}`),
]);

/** Why a report request breaks Keitaro's documented shape, or null. */
export function reportProblem(body: any): string | null {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return 'the body must be a JSON object';
  const unknown = Object.keys(body).find((k) => !REPORT_FIELDS.has(k));
  if (unknown) return `unknown field "${unknown}"`;
  if (!body.range || typeof body.range !== 'object') return 'range is required';
  const badRange = Object.keys(body.range).find((k) => !RANGE_FIELDS.has(k));
  if (badRange) return `unknown field "range.${badRange}"`;
  for (const list of ['columns', 'metrics', 'grouping'] as const) {
    if (body[list] !== undefined && (!Array.isArray(body[list]) || body[list].some((x: unknown) => typeof x !== 'string')))
      return `${list} must be a list of names`;
  }
  const metric = (body.metrics ?? []).find((m: string) => !METRICS.has(m));
  if (metric) return `unknown metric "${metric}"`;
  const column = [...(body.grouping ?? []), ...(body.columns ?? [])].find((c: string) => !COLUMNS.has(c));
  if (column) return `unknown column "${column}"`;
  for (const f of body.filters ?? []) {
    if (!f || typeof f !== 'object' || Object.keys(f).some((k) => !['name', 'operator', 'expression'].includes(k)))
      return 'a filter is {name, operator, expression}';
    if (!OPERATORS.has(f.operator)) return `unknown operator "${f.operator}"`;
  }
  for (const s of body.sort ?? []) {
    if (!s || typeof s !== 'object' || Object.keys(s).some((k) => !['name', 'order'].includes(k)) || !['ASC', 'DESC'].includes(s.order))
      return 'a sort is {name, order: ASC or DESC}';
  }
  return null;
}

const ERRORS: Record<number, string> = {
  401: 'Unauthorized',
  402: 'Payment Required: your edition does not include this feature',
  403: 'Forbidden: cost updates are not available for this license',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
};

export class KeitaroServer {
  apiKey: string;
  campaigns: FakeCampaign[] = [];
  clicks: FakeClicks[] = [];
  readonly costs = new Map<string, StoredCost>();
  readonly requests: LoggedRequest[] = [];
  readonly faults: FakeFault[] = [];
  /** Added to every cost the report answers (a tracker that does not hold exactly what was pushed). */
  reportedCostOffset = 0;
  private readonly server = http.createServer((req, res) => void this.handle(req, res));

  constructor(
    apiKey = 'kt_live_key_0001',
    private readonly clock: () => number = Date.now,
  ) {
    this.apiKey = apiKey;
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return this;
  }

  /** The tracker's base URL (the Admin API is below it). */
  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** update_costs calls received, in order. */
  get costUpdates(): LoggedRequest[] {
    return this.requests.filter((r) => r.path.endsWith('/update_costs'));
  }

  cost(campaignId: number, date: string, subId3: string | null = null): StoredCost | undefined {
    return this.costs.get(`${campaignId}|${date} 00:00:00|${date} 23:59:59|${subId3 ?? ''}`);
  }

  private takeFault(path: string): FakeFault | null {
    const i = this.faults.findIndex((f) => !f.path || f.path.test(path));
    if (i < 0) return null;
    const fault = this.faults[i];
    if (fault.after) {
      fault.after -= 1;
      return null;
    }
    return this.faults.splice(i, 1)[0];
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', 'http://fake');
    const path = url.pathname.replace(/^\/admin_api\/v1/, '');
    let body: any;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      body = text;
    }
    const log: LoggedRequest = {
      method: req.method ?? 'GET',
      path,
      apiKey: (req.headers['api-key'] as string | undefined) ?? null,
      body,
      at: this.clock(),
      status: 0,
    };
    this.requests.push(log);
    const send = (status: number, payload: unknown, headers: Record<string, string> = {}) => {
      log.status = status;
      res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
      res.end(JSON.stringify(payload));
    };
    if (!url.pathname.startsWith('/admin_api/v1/')) return send(404, { error: 'Not found' });
    if (log.apiKey !== this.apiKey) return send(401, { error: ERRORS[401] });
    const fault = this.takeFault(path);
    if (fault) return send(fault.status, { error: ERRORS[fault.status] ?? 'Error' }, fault.retryAfter ? { 'Retry-After': fault.retryAfter } : {});

    if (req.method === 'GET' && path === '/campaigns') {
      return send(
        200,
        this.campaigns.map((c) => ({
          id: c.id,
          alias: `c${c.id}`,
          name: c.name,
          type: 'position',
          state: 'active',
          cost_type: 'CPC',
          cost_value: 0,
          cost_currency: 'USD',
          cost_auto: Boolean(c.cost_auto),
          group_id: null,
        })),
      );
    }
    if (req.method === 'POST' && path === '/report/build') {
      const problem = reportProblem(body);
      if (problem) return send(400, { error: `Bad request: ${problem}` });
      const from = String(body.range.from ?? '').slice(0, 10);
      const to = String(body.range.to ?? '').slice(0, 10);
      if (!from || !to || !body.range.timezone) return send(400, { error: 'range.from, range.to and range.timezone are required' });
      const grouping: string[] = body.grouping ?? [];
      const metrics: string[] = body.metrics ?? [];
      // Every row is one combination of the grouping columns, with each metric summed over it.
      const source: Array<Record<string, unknown>> = metrics.includes('cost')
        ? [...this.costs.values()]
            .filter((c) => c.startDate.slice(0, 10) >= from && c.endDate.slice(0, 10) <= to)
            .map((c) => ({
              campaign_id: c.campaignId,
              campaign: this.campaigns.find((x) => x.id === c.campaignId)?.name ?? `#${c.campaignId}`,
              sub_id_3: c.subId3 ?? '',
              ad_campaign_id: '',
              clicks: 0,
              revenue: 0,
              cost: Number(c.cost) + this.reportedCostOffset,
              digits: c.cost.includes('.') ? c.cost.split('.')[1].length : 0,
            }))
        : this.clicks
            .filter((x) => x.date >= from && x.date <= to)
            .map((c) => ({
              campaign_id: c.campaign_id,
              campaign: this.campaigns.find((x) => x.id === c.campaign_id)?.name ?? `#${c.campaign_id}`,
              // The report builder's `day` column: the click's date in the range's time zone.
              day: c.date,
              sub_id_3: c.sub_id_3,
              ad_campaign_id: c.ad_campaign_id,
              clicks: c.clicks,
              conversions: c.conversions ?? 0,
              revenue: c.revenue,
              cost: 0,
              digits: 2,
            }));
      // Filters keep the rows whose column matches (IN_LIST: one of the expression's values; EQUALS: the value).
      const kept = source.filter((item) =>
        (body.filters ?? []).every((f: { name: string; operator: string; expression: unknown }) => {
          const value = String(item[f.name] ?? '');
          if (f.operator === 'IN_LIST') return Array.isArray(f.expression) && f.expression.map(String).includes(value);
          if (f.operator === 'EQUALS') return value === String(f.expression);
          return true;
        }),
      );
      const groups = new Map<string, Record<string, unknown>>();
      for (const item of kept) {
        const key = grouping.map((g) => String(item[g] ?? '')).join('|');
        const g = groups.get(key) ?? Object.fromEntries([...grouping.map((c) => [c, item[c] ?? '']), ...metrics.map((m) => [m, 0])]);
        for (const m of metrics) g[m] = Number(g[m]) + Number(item[m] ?? 0);
        if (metrics.includes('cost')) g.cost = Number(g.cost).toFixed(Number(item.digits));
        groups.set(key, g);
      }
      const sortBy = body.sort?.[0];
      const all = [...groups.values()].sort((a, b) => (sortBy ? (Number(b[sortBy.name]) - Number(a[sortBy.name])) * (sortBy.order === 'ASC' ? -1 : 1) : 0));
      const offset = Number(body.offset ?? 0);
      const limit = Number(body.limit ?? 100);
      return send(200, { rows: all.slice(offset, offset + limit), total: all.length, meta: { timezone: body.range.timezone } });
    }
    const m = /^\/campaigns\/(\d+)\/update_costs$/.exec(path);
    if (req.method === 'POST' && m) {
      const campaignId = Number(m[1]);
      if (!this.campaigns.some((c) => c.id === campaignId)) return send(404, { error: 'Campaign not found' });
      const unknown = Object.keys(body ?? {}).find((k) => !COST_FIELDS.has(k));
      if (unknown) return send(400, { error: `Bad request: unknown field "${unknown}"` });
      const badFilter = Object.keys(body?.filters ?? {}).find((k) => !COST_FILTERS.has(k));
      if (badFilter) return send(400, { error: `Bad request: unknown filter "${badFilter}"` });
      if (body.only_campaign_uniques !== undefined && typeof body.only_campaign_uniques !== 'boolean')
        return send(400, { error: 'only_campaign_uniques must be a boolean' });
      for (const field of ['start_date', 'end_date', 'cost', 'currency', 'timezone']) {
        if (body?.[field] === undefined || body?.[field] === '') return send(400, { error: `${field} is required` });
      }
      if (!/^\d+(\.\d+)?$/.test(String(body.cost))) return send(400, { error: 'cost must be a decimal number' });
      const subId3 = body.filters?.sub_id_3 ?? null;
      const key = `${campaignId}|${body.start_date}|${body.end_date}|${subId3 ?? ''}`;
      const previous = this.costs.get(key);
      this.costs.set(key, {
        campaignId,
        startDate: body.start_date,
        endDate: body.end_date,
        subId3,
        cost: String(body.cost),
        currency: body.currency,
        timezone: body.timezone,
        sets: (previous?.sets ?? 0) + 1,
      });
      return send(200, { success: true });
    }
    return send(404, { error: 'Not found' });
  }
}
