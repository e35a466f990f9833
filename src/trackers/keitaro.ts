// The Keitaro adapter: Admin API under {baseUrl}/admin_api/v1 with the key in the `Api-Key` header,
// through the outbound client (a baseUrl from the API is a caller's address: checked again as it
// connects; one from the bootstrap file is the operator's). Campaign list, a clicks report grouped by
// campaign, sub_id_3 and ad_campaign_id, a cost report, and update_costs.
// 401 is a rejected key, 402/403 a plan (edition) that refuses the call, 429 a throttle honoured
// with its Retry-After (twice at most), 5xx and network failures are transient.
//
// Request shapes, as Keitaro documents them (what this relies on):
// - POST /report/build takes `range` {from, to, timezone, interval}, `columns`, `metrics`,
//   `grouping`, `filters` [{name, operator, expression}], `sort` [{name, order}], `limit`, `offset`
//   and answers {rows, total, meta}; grouping and column names come from its "columns" list
//   (campaign_id, campaign, sub_id_1..15, ad_campaign_id...), metrics from its "metrics" list
//   (clicks, revenue, cost...). Sources: Keitaro's Admin API OpenAPI document (v1) as vendored in
//   playtini/keitaro-client `original/openapi.json` (paths /report/build, /campaigns/{id}/update_costs);
//   the clients playtini/keitaro-client `src/AdminApi/Request/ReportsRequest.php` (range, grouping,
//   metrics, filters, sort), ysomad/keitaro `keitaro/resources/reports.py` (range, metrics, grouping,
//   sort) and im-ikao/Keitaro.NET `Models/Requests/ReportSettings.cs` (range, limit, offset, columns,
//   filters, sort). There are no `dimensions` or `measures` fields.
// - POST /campaigns/{id}/update_costs takes start_date, end_date, timezone, cost (decimal string),
//   currency (required) and optional only_campaign_uniques and `filters` {sub_id_3: ...}; it sets the
//   cost of the range.

import { OutboundError, type OutboundClient } from '../outbound/client.js';
import { TrackerError, type ClickRow, type CostUpdate, type ReportRange, type TrackerAdapter, type TrackerCampaign, type TrackerConnection } from './port.js';
import { minorUnits, type CostRow, type RevenueReport } from './port.js';
import { datesBetween } from '../time/zones.js';

export interface KeitaroOptions {
  outbound: OutboundClient;
  /** Time of one exchange. */
  timeoutMs: number;
  /** Waits (the injected sleep, so tests with a fixed clock do not wait). */
  sleep: (ms: number) => Promise<void>;
  /** Longest Retry-After honoured before the call counts as throttled. */
  maxRetryAfterMs?: number;
}

const THROTTLE_RETRIES = 2;
const REPORT_PAGE = 1000;

function parseRetryAfter(value: string | null): number {
  if (!value) return 60_000;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(value);
  return Number.isFinite(at) ? Math.max(0, at - Date.now()) : 60_000;
}

export class KeitaroTracker implements TrackerAdapter {
  constructor(private readonly o: KeitaroOptions) {}

  private async call<T>(conn: TrackerConnection, method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
    const url = `${conn.baseUrl.replace(/\/+$/, '')}/admin_api/v1${path}`;
    for (let attempt = 0; ; attempt++) {
      let res: { status: number; headers: Headers; text(): string };
      try {
        res = await this.o.outbound.request(
          { url, origin: conn.origin },
          {
            method,
            timeoutMs: this.o.timeoutMs,
            headers: { 'Api-Key': conn.apiKey, Accept: 'application/json', ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
            body: body === undefined ? undefined : JSON.stringify(body),
          },
        );
      } catch (err) {
        if (err instanceof OutboundError && err.kind === 'refused')
          throw new TrackerError('address_refused', `The tracker's baseUrl was refused: ${err.message}.`);
        throw new TrackerError(
          'transient',
          `The tracker at ${conn.baseUrl} did not answer (${err instanceof OutboundError && err.kind === 'timeout' ? 'timed out' : (err as Error).message}).`,
        );
      }
      const text = res.text();
      if (res.status >= 200 && res.status < 300) {
        try {
          return (text ? JSON.parse(text) : null) as T;
        } catch {
          throw new TrackerError('transient', `The tracker answered ${path} with something that is not JSON.`, { status: res.status });
        }
      }
      const said = describe(text);
      if (res.status === 401) throw new TrackerError('unauthorized', `The tracker rejected the API key (401${said}).`, { status: 401 });
      if (res.status === 402 || res.status === 403) {
        throw new TrackerError('refused', `The tracker refused the request: its plan does not allow it (${res.status}${said}).`, { status: res.status });
      }
      if (res.status === 429) {
        const wait = parseRetryAfter(res.headers.get('retry-after'));
        if (attempt < THROTTLE_RETRIES && wait <= (this.o.maxRetryAfterMs ?? 60_000)) {
          await this.o.sleep(wait);
          continue;
        }
        throw new TrackerError('throttled', `The tracker is throttling requests (429); retry after ${Math.ceil(wait / 1000)} seconds.`, {
          status: 429,
          retryAfterMs: wait,
        });
      }
      if (res.status === 404) throw new TrackerError('not_found', `The tracker has no ${path} (404${said}).`, { status: 404 });
      if (res.status >= 500) throw new TrackerError('transient', `The tracker failed (${res.status}${said}).`, { status: res.status });
      throw new TrackerError('invalid_request', `The tracker refused ${path} (${res.status}${said}).`, { status: res.status });
    }
  }

  async listCampaigns(conn: TrackerConnection): Promise<TrackerCampaign[]> {
    const rows = await this.call<Array<Record<string, unknown>>>(conn, 'GET', '/campaigns');
    if (!Array.isArray(rows)) throw new TrackerError('transient', 'The tracker answered the campaign list with something that is not a list.');
    return rows.map((r) => ({ id: String(r.id), title: String(r.name ?? r.alias ?? r.id), autoCostUpdate: Boolean(r.cost_auto) }));
  }

  async clickReport(conn: TrackerConnection, range: ReportRange): Promise<ClickRow[]> {
    const out: ClickRow[] = [];
    for (let offset = 0; ; offset += REPORT_PAGE) {
      const page = await this.call<{ rows?: Array<Record<string, unknown>>; total?: number }>(conn, 'POST', '/report/build', {
        range: { from: range.from, to: range.to, timezone: range.timezone },
        columns: [],
        metrics: ['clicks', 'revenue'],
        grouping: ['campaign_id', 'campaign', 'sub_id_3', 'ad_campaign_id'],
        filters: [],
        sort: [{ name: 'clicks', order: 'DESC' }],
        limit: REPORT_PAGE,
        offset,
      });
      const rows = page?.rows ?? [];
      for (const r of rows) {
        const clicks = Number(r.clicks ?? 0);
        if (!clicks) continue;
        out.push({
          trackerCampaignId: String(r.campaign_id),
          trackerCampaignName: String(r.campaign ?? r.campaign_id),
          sub3: r.sub_id_3 ? String(r.sub_id_3) : null,
          campaignIdParam: r.ad_campaign_id ? String(r.ad_campaign_id) : null,
          clicks,
          revenueMinorUnits: minorUnits(r.revenue, 'USD'),
        });
      }
      if (rows.length < REPORT_PAGE || offset + REPORT_PAGE >= Number(page?.total ?? 0)) return out;
    }
  }

  async costReport(conn: TrackerConnection, range: ReportRange): Promise<CostRow[]> {
    const page = await this.call<{ rows?: Array<Record<string, unknown>> }>(conn, 'POST', '/report/build', {
      range: { from: range.from, to: range.to, timezone: range.timezone },
      columns: [],
      metrics: ['cost'],
      grouping: ['campaign_id', 'sub_id_3'],
      filters: [],
      limit: 10_000,
      offset: 0,
    });
    return (page?.rows ?? []).map((r) => ({
      trackerCampaignId: String(r.campaign_id),
      sub3: r.sub_id_3 ? String(r.sub_id_3) : null,
      cost: String(r.cost ?? '0'),
    }));
  }

  /**
   * One POST /report/build grouped by sub_id_3 (and by `day`, the report builder's date column, when
   * asked by day) with conversions and revenue, filtered to the given sub_id_3 values (IN_LIST), as
   * large a page as there are values and days: never a second request.
   * Keitaro reports revenue in its own currency; this adapter, like clickReport, takes it as USD.
   */
  async revenueReport(conn: TrackerConnection, range: ReportRange, sub3s: string[], opts: { byDay?: boolean } = {}): Promise<RevenueReport> {
    const currency = 'USD';
    if (!sub3s.length) return { currency, rows: [] };
    const days = opts.byDay ? datesBetween(range.from, range.to).length : 1;
    const page = await this.call<{ rows?: Array<Record<string, unknown>> }>(conn, 'POST', '/report/build', {
      range: { from: range.from, to: range.to, timezone: range.timezone },
      columns: [],
      metrics: ['conversions', 'revenue'],
      grouping: opts.byDay ? ['sub_id_3', 'day'] : ['sub_id_3'],
      filters: [{ name: 'sub_id_3', operator: 'IN_LIST', expression: sub3s }],
      limit: sub3s.length * days + 1,
      offset: 0,
    });
    if (!Array.isArray(page?.rows)) throw new TrackerError('transient', 'The tracker answered the revenue report without rows.');
    return {
      currency,
      rows: page.rows
        .filter((r) => r.sub_id_3)
        .map((r) => ({
          sub3: String(r.sub_id_3),
          ...(opts.byDay ? { day: String(r.day ?? '').slice(0, 10) } : {}),
          conversions: Math.round(Number(r.conversions ?? 0)) || 0,
          revenueMinorUnits: minorUnits(r.revenue, currency),
        })),
    };
  }

  async updateCosts(conn: TrackerConnection, trackerCampaignId: string, u: CostUpdate): Promise<void> {
    const answer = await this.call<{ success?: boolean }>(conn, 'POST', `/campaigns/${encodeURIComponent(trackerCampaignId)}/update_costs`, {
      start_date: `${u.startDate} 00:00:00`,
      end_date: `${u.endDate} 23:59:59`,
      cost: u.cost,
      currency: u.currency,
      timezone: u.timezone,
      ...(u.sub3 ? { filters: { sub_id_3: u.sub3 } } : {}),
    });
    if (answer && answer.success === false) throw new TrackerError('invalid_request', `The tracker did not apply the cost of campaign ${trackerCampaignId}.`);
  }
}

function describe(text: string): string {
  try {
    const body = JSON.parse(text) as { error?: unknown };
    if (body && typeof body.error === 'string') return `: ${body.error.slice(0, 200)}`;
  } catch {
    // not JSON: say nothing more
  }
  return '';
}
