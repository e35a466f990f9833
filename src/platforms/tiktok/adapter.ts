// The TikTok adapter: the platform port over the TikTok Business API (ad accounts biz_<advertiser
// id>), with the account's Access-Token. Bulk endpoints keep round trips low (several ads of one ad
// group per /ad/create/, up to 20 ids per status update); creates carry the service's marker in the
// name and are reconciled by it when an answer is lost.

import {
  PlatformError,
  type AdAccount,
  type Budget,
  type CampaignPage,
  type CampaignQuery,
  type DateWindow,
  type Insights,
  type InsightsLevel,
  type LeadFormPage,
  type ObjectInsights,
  type ObjectLevel,
  type ObjectRef,
  type ObjectSpec,
  type OptionItem,
  type OptionType,
  type PlatformAdapter,
  type UploadedCreative,
} from '../port.js';
import { NO_INSIGHTS, perObject } from '../insights.js';
import {
  LiveHttp,
  chunks,
  createExactlyOnce,
  currencyDigits,
  decimalToMinor,
  markedName,
  markerTag,
  splitMarkedName,
  unsupportedLevel,
  type CreateOutcome,
  type LiveHttpOptions,
} from '../live-http.js';
import type { OutboundClient } from '../../outbound/client.js';
import { TikTokClient, type TikTokParams } from './client.js';
import { CONVERSION_EVENTS, adCreative, adgroupCreate, adgroupFields, budgetFields, campaignCreate, creativeFields, toCampaign } from './mapping.js';

export interface TikTokAdapterOptions extends LiveHttpOptions {
  /** Versioned API base URL, e.g. https://business-api.tiktok.com/open_api/v1.3. */
  baseUrl: string;
  /** Wait after a rate-limit answer that does not say how long (code 40100; default 5 s). */
  throttleWaitMs?: number;
}

type Level = Exclude<ObjectLevel, 'creative'>;
const PATH: Record<Level, string> = { campaign: 'campaign', adset: 'adgroup', ad: 'ad' };
const ID_FIELD: Record<Level, string> = { campaign: 'campaign_id', adset: 'adgroup_id', ad: 'ad_id' };
const NAME_FIELD: Record<Level, string> = { campaign: 'campaign_name', adset: 'adgroup_name', ad: 'ad_name' };
/** Ids per status update and ads per /ad/create/ call. */
const BULK_LIMIT = 20;
const LIST_PAGE_SIZE = 1000;
const MAX_PAGES = 50;
const REPORT_LEVEL: Record<Level, string> = { campaign: 'AUCTION_CAMPAIGN', adset: 'AUCTION_ADGROUP', ad: 'AUCTION_AD' };
const REPORT_METRICS = ['spend', 'impressions', 'clicks', 'conversion', 'total_complete_payment_rate'];

function matcher(query?: string): (item: OptionItem) => boolean {
  const needle = query?.toLowerCase();
  return (item) => !needle || item.name.toLowerCase().includes(needle) || item.id.toLowerCase() === needle;
}

function levelOf(level: ObjectLevel, what: string): Level {
  if (level === 'creative') throw unsupportedLevel('tiktok', level, what);
  return level;
}

function pageNumber(after: string | null | undefined): number {
  if (!after) return 1;
  if (!/^[1-9]\d*$/.test(after)) throw new PlatformError('invalid_request', 'The paging position is not valid.', { field: 'after' });
  return Number(after);
}

function nextPage(data: any, page: number): string | null {
  const total = Number(data?.page_info?.total_page ?? 0);
  return page < total ? String(page + 1) : null;
}

function listOf(data: any, key = 'list'): any[] {
  return Array.isArray(data?.[key]) ? data[key] : [];
}

export class TikTokAdapter implements PlatformAdapter {
  readonly platform = 'tiktok' as const;
  private readonly http: LiveHttp;
  private readonly api: TikTokClient;

  constructor(outbound: OutboundClient, options: TikTokAdapterOptions) {
    this.http = new LiveHttp(outbound, options);
    this.api = new TikTokClient(options.baseUrl.replace(/\/+$/, ''), this.http, options.throttleWaitMs ?? 5_000);
  }

  private read(account: AdAccount, path: string, params: TikTokParams): Promise<any> {
    return this.http.retrying(() => this.api.call(account, 'GET', path, params));
  }

  private write(account: AdAccount, path: string, body: TikTokParams): Promise<any> {
    return this.http.retrying(() => this.api.call(account, 'POST', path, body));
  }

  /** Every page of a list endpoint. */
  private async collect(account: AdAccount, path: string, params: TikTokParams, key = 'list', pageSize = 100): Promise<any[]> {
    const rows: any[] = [];
    for (let page = 1; page <= MAX_PAGES; page++) {
      const data = await this.read(account, path, { ...params, page, page_size: pageSize });
      rows.push(...listOf(data, key));
      if (!nextPage(data, page)) break;
    }
    return rows;
  }

  private async countCampaigns(account: AdAccount): Promise<number> {
    const data = await this.read(account, 'campaign/get/', { page: 1, page_size: 1 });
    return Number(data?.page_info?.total_number ?? 0);
  }

  async listCampaigns(account: AdAccount, query: CampaignQuery): Promise<CampaignPage> {
    const page = pageNumber(query.after);
    const filtering: Record<string, unknown> = {};
    if (query.statuses?.length) {
      // TikTok campaigns are enabled, disabled or deleted; there is no archive, and deleted ones are never listed.
      const live = [...new Set(query.statuses.filter((s) => s === 'ACTIVE' || s === 'PAUSED'))];
      if (!live.length) return { campaigns: [], totalInAccount: await this.countCampaigns(account), matched: 0, after: null };
      if (live.length === 1) filtering.secondary_status = live[0] === 'ACTIVE' ? 'CAMPAIGN_STATUS_ENABLE' : 'CAMPAIGN_STATUS_DISABLE';
    }
    if (query.nameQuery) filtering.campaign_name = query.nameQuery;
    const filtered = Object.keys(filtering).length > 0;
    const data = await this.read(account, 'campaign/get/', { ...(filtered ? { filtering } : {}), page, page_size: query.limit });
    const digits = currencyDigits(account.currency);
    const matched = Number(data?.page_info?.total_number ?? 0);
    return {
      campaigns: listOf(data).map((c) => toCampaign(c, digits)),
      totalInAccount: filtered ? await this.countCampaigns(account) : matched,
      matched,
      after: nextPage(data, page),
    };
  }

  /** TikTok's instant forms belong to the advertiser, not to a page: `pageId` does not narrow them. */
  async listLeadForms(account: AdAccount, _pageId: string, after: string | null, limit: number): Promise<LeadFormPage> {
    const page = pageNumber(after);
    const data = await this.read(account, 'page/get/', { business_type: 'LEAD_GEN', page, page_size: limit });
    return {
      leadForms: listOf(data).map((f) => ({ id: String(f.page_id), name: f.title ?? f.page_name ?? null })),
      after: nextPage(data, page),
    };
  }

  async listOptions(account: AdAccount, type: OptionType, query?: string): Promise<OptionItem[]> {
    let items: OptionItem[];
    switch (type) {
      case 'pages':
        throw new PlatformError('capability_unsupported', 'TikTok ad accounts have no pages; use profileAccounts (TikTok identities).');
      case 'pixels':
        items = (await this.collect(account, 'pixel/list/', {}, 'pixels')).map((p) => ({ id: String(p.pixel_id), name: String(p.pixel_name ?? '') }));
        break;
      case 'profileAccounts':
        items = (await this.collect(account, 'identity/get/', {}, 'identity_list')).map((i) => ({
          id: String(i.identity_id),
          name: String(i.display_name ?? ''),
          ...(i.identity_type ? { identityType: i.identity_type } : {}),
        }));
        break;
      case 'audiences':
        items = (await this.collect(account, 'dmp/custom_audience/list/', {})).map((a) => ({
          id: String(a.audience_id),
          name: String(a.name ?? ''),
          ...(a.audience_type ? { audienceType: a.audience_type } : {}),
        }));
        break;
      case 'interests': {
        const data = await this.read(account, 'tool/interest_category/', {});
        items = listOf(data, 'interest_categories').map((i) => ({
          id: String(i.interest_category_id),
          name: String(i.interest_category_name ?? ''),
          level: Number(i.level ?? 1),
        }));
        break;
      }
      case 'locations': {
        const data = await this.read(account, 'tool/region/', { placements: ['PLACEMENT_TIKTOK'], objective_type: 'TRAFFIC' });
        items = listOf(data, 'region_info').map((r) => ({
          id: String(r.location_id),
          name: String(r.name ?? ''),
          type: String(r.level ?? '').toLowerCase(),
          ...(r.region_code ? { regionCode: r.region_code } : {}),
        }));
        break;
      }
      case 'conversionEvents':
        items = CONVERSION_EVENTS;
        break;
      default:
        throw new PlatformError('capability_unsupported', `TikTok has no option list "${type as string}".`);
    }
    return items.filter(matcher(query));
  }

  async insights(account: AdAccount, objectIds: string[], window: DateWindow): Promise<Insights> {
    if (!objectIds.length) return NO_INSIGHTS;
    const digits = currencyDigits(account.currency);
    let total = NO_INSIGHTS;
    for (const ids of chunks([...new Set(objectIds)], 100)) {
      const params = {
        report_type: 'BASIC',
        data_level: 'AUCTION_CAMPAIGN',
        dimensions: ['campaign_id'],
        metrics: REPORT_METRICS,
        start_date: window.since,
        end_date: window.until,
        filtering: [{ field_name: 'campaign_ids', filter_type: 'IN', filter_value: JSON.stringify(ids) }],
      };
      for (const row of await this.collect(account, 'report/integrated/get/', params, 'list', LIST_PAGE_SIZE)) {
        const m = row?.metrics ?? {};
        total = {
          spendMinorUnits: total.spendMinorUnits + (m.spend === undefined ? 0 : decimalToMinor(String(m.spend), digits)),
          impressions: total.impressions + Math.round(Number(m.impressions ?? 0) || 0),
          clicks: total.clicks + Math.round(Number(m.clicks ?? 0) || 0),
          results: total.results + Math.round(Number(m.conversion ?? 0) || 0),
          revenueMinorUnits:
            total.revenueMinorUnits + (m.total_complete_payment_rate === undefined ? 0 : decimalToMinor(String(m.total_complete_payment_rate), digits)),
        };
      }
    }
    return total;
  }

  /**
   * One integrated report at the level's data level, one row per object id (dimension), filtered to
   * the ids, every page read; more than 100 ids (the filter's limit) take one report per slice.
   */
  async insightsByObject(account: AdAccount, level: InsightsLevel, objectIds: string[], window: DateWindow): Promise<ObjectInsights[]> {
    const ids = [...new Set(objectIds)];
    if (!ids.length) return [];
    const digits = currencyDigits(account.currency);
    const rows = new Map<string, Omit<ObjectInsights, 'objectId'>>();
    for (const slice of chunks(ids, 100)) {
      const params = {
        report_type: 'BASIC',
        data_level: REPORT_LEVEL[level],
        dimensions: [ID_FIELD[level]],
        metrics: [...REPORT_METRICS, 'reach'],
        start_date: window.since,
        end_date: window.until,
        filtering: [{ field_name: `${ID_FIELD[level]}s`, filter_type: 'IN', filter_value: JSON.stringify(slice) }],
      };
      for (const row of await this.collect(account, 'report/integrated/get/', params, 'list', LIST_PAGE_SIZE)) {
        const id = String(row?.dimensions?.[ID_FIELD[level]] ?? '');
        const m = row?.metrics ?? {};
        if (!id) continue;
        rows.set(id, {
          spendMinorUnits: m.spend === undefined ? 0 : decimalToMinor(String(m.spend), digits),
          impressions: Math.round(Number(m.impressions ?? 0) || 0),
          clicks: Math.round(Number(m.clicks ?? 0) || 0),
          results: Math.round(Number(m.conversion ?? 0) || 0),
          revenueMinorUnits: m.total_complete_payment_rate === undefined ? 0 : decimalToMinor(String(m.total_complete_payment_rate), digits),
          reach: Math.round(Number(m.reach ?? 0) || 0),
        });
      }
    }
    return perObject(ids, rows);
  }

  /** Objects of `level` whose name carries one of `markers`, optionally within parents. */
  private async findMarked(account: AdAccount, level: Level, markers: string[], parentIds: string[] = []): Promise<Map<string, string>> {
    const filtering: Record<string, unknown> = { primary_status: 'STATUS_ALL' };
    if (level === 'campaign' && markers.length === 1) filtering.campaign_name = markerTag(markers[0]);
    if (level === 'adset' && markers.length === 1) filtering.adgroup_name = markerTag(markers[0]);
    if (level === 'adset' && parentIds.length) filtering.campaign_ids = parentIds;
    if (level === 'ad' && parentIds.length) filtering.adgroup_ids = parentIds;
    const wanted = new Set(markers);
    const found = new Map<string, string>();
    for (const row of await this.collect(account, `${PATH[level]}/get/`, { filtering }, 'list', LIST_PAGE_SIZE)) {
      const marker = splitMarkedName(String(row?.[NAME_FIELD[level]] ?? '')).marker;
      if (marker && wanted.has(marker) && !found.has(marker)) found.set(marker, String(row[ID_FIELD[level]]));
    }
    return found;
  }

  /** One create call: a campaign, an ad group, or several ads of one ad group. */
  private async createGroup(account: AdAccount, level: Level, specs: ObjectSpec[]): Promise<string[]> {
    const digits = currencyDigits(account.currency);
    const items = specs.map((spec) => ({ spec }));
    const find = async (todo: typeof items) => {
      const byMarker = await this.findMarked(
        account,
        level,
        todo.map((t) => t.spec.marker),
        todo[0].spec.parentId ? [todo[0].spec.parentId] : [],
      );
      return new Map(todo.flatMap((t) => (byMarker.has(t.spec.marker) ? [[t, byMarker.get(t.spec.marker)!] as const] : [])));
    };
    const send = async (todo: typeof items): Promise<CreateOutcome[]> => {
      if (level === 'ad') {
        const data = await this.api.call(account, 'POST', 'ad/create/', { adgroup_id: todo[0].spec.parentId, creatives: todo.map((t) => adCreative(t.spec)) });
        const ids = Array.isArray(data?.ad_ids) ? data.ad_ids : [];
        if (ids.length !== todo.length) throw new PlatformError('transient', 'The ad platform did not return an id for every ad created.');
        return ids.map((id: unknown) => ({ id: String(id) }));
      }
      const body = level === 'campaign' ? campaignCreate(todo[0].spec, digits) : adgroupCreate(todo[0].spec, digits);
      const data = await this.api.call(account, 'POST', `${PATH[level]}/create/`, body);
      const id = data?.[ID_FIELD[level]];
      if (!id) throw new PlatformError('transient', 'The ad platform answered a create without an id.');
      return [{ id: String(id) }];
    };
    const created = await createExactlyOnce(this.http, items, send, find);
    return items.map((item) => created.get(item)!);
  }

  async createObjects(account: AdAccount, specs: ObjectSpec[]): Promise<ObjectRef[]> {
    for (const spec of specs) levelOf(spec.level, 'create objects');
    const ids: Array<string | undefined> = new Array(specs.length);
    // A parentId naming the marker of an earlier spec waits for that spec's id.
    const parentIndex = specs.map((s, i) => (s.parentId === null ? -1 : specs.findIndex((p, j) => j < i && p.marker === s.parentId)));
    const resolved = (i: number): ObjectSpec => (parentIndex[i] < 0 ? specs[i] : { ...specs[i], parentId: ids[parentIndex[i]]! });
    let pending = specs.map((_, i) => i);
    while (pending.length) {
      const ready = pending.filter((i) => parentIndex[i] < 0 || ids[parentIndex[i]] !== undefined);
      const adsByParent = new Map<string, number[]>();
      for (const i of ready) {
        const spec = resolved(i);
        if (spec.level !== 'ad') {
          [ids[i]] = await this.createGroup(account, spec.level as Level, [spec]);
          continue;
        }
        const key = spec.parentId ?? '';
        adsByParent.set(key, [...(adsByParent.get(key) ?? []), i]);
      }
      for (const group of adsByParent.values()) {
        for (const part of chunks(group, BULK_LIMIT)) {
          const created = await this.createGroup(account, 'ad', part.map(resolved));
          part.forEach((i, k) => (ids[i] = created[k]));
        }
      }
      pending = pending.filter((i) => ids[i] === undefined);
    }
    return specs.map((s, i) => ({ level: s.level, id: ids[i]! }));
  }

  async findCreated(account: AdAccount, level: Exclude<ObjectLevel, 'creative'>, markers: string[]): Promise<Map<string, ObjectRef>> {
    const ids = await this.findMarked(account, level, markers);
    return new Map([...ids].map(([marker, id]) => [marker, { level, id }]));
  }

  // Interim until issue 32's adapters: every country is taken.
  async unknownCountries(): Promise<string[]> {
    return [];
  }

  async uploadCreative(): Promise<UploadedCreative> {
    throw new PlatformError('capability_unsupported', 'Uploading creatives to TikTok is not built yet.');
  }

  /** The object behind `ref` in this advertiser, or not_found. */
  private async current(account: AdAccount, level: Level, id: string): Promise<any> {
    const data = await this.read(account, `${PATH[level]}/get/`, {
      filtering: { [`${ID_FIELD[level]}s`]: [id], primary_status: 'STATUS_ALL' },
      page: 1,
      page_size: 1,
    });
    const row = listOf(data)[0];
    if (!row) throw new PlatformError('not_found', `No ${level} ${id} in ad account ${account.accountId}.`);
    return row;
  }

  async updateObject(account: AdAccount, ref: ObjectRef, changes: { name?: string; settings?: Record<string, unknown> }): Promise<void> {
    const level = levelOf(ref.level, 'update objects');
    const current = await this.current(account, level, ref.id);
    const settings = changes.settings ?? {};
    const raw = (settings.platformFields && typeof settings.platformFields === 'object' ? settings.platformFields : {}) as TikTokParams;
    // The marker stays in the name so the object can still be found by it.
    const name = changes.name === undefined ? undefined : markedName(changes.name, splitMarkedName(String(current[NAME_FIELD[level]] ?? '')).marker);
    if (level === 'ad') {
      const creative = { ...creativeFields(settings), ...raw };
      if (name === undefined && !Object.keys(creative).length) return;
      await this.write(account, 'ad/update/', {
        adgroup_id: current.adgroup_id,
        creatives: [{ ad_id: ref.id, ad_name: name ?? current.ad_name, ...creative }],
      });
      return;
    }
    const fields = level === 'adset' ? { ...adgroupFields(settings, currencyDigits(account.currency)), ...raw } : raw;
    if (name === undefined && !Object.keys(fields).length) return;
    await this.write(account, `${PATH[level]}/update/`, { [ID_FIELD[level]]: ref.id, ...(name !== undefined ? { [NAME_FIELD[level]]: name } : {}), ...fields });
  }

  private async changeStatus(account: AdAccount, refs: ObjectRef[], status: 'ENABLE' | 'DISABLE' | 'DELETE', what: string): Promise<void> {
    const byLevel = new Map<Level, string[]>();
    for (const ref of refs) {
      const level = levelOf(ref.level, what);
      byLevel.set(level, [...new Set([...(byLevel.get(level) ?? []), ref.id])]);
    }
    for (const [level, ids] of byLevel) {
      for (const part of chunks(ids, BULK_LIMIT)) {
        await this.write(account, `${PATH[level]}/status/update/`, { [`${ID_FIELD[level]}s`]: part, operation_status: status });
      }
    }
  }

  setStatus(account: AdAccount, refs: ObjectRef[], status: 'ACTIVE' | 'PAUSED'): Promise<void> {
    return this.changeStatus(account, refs, status === 'ACTIVE' ? 'ENABLE' : 'DISABLE', 'change status');
  }

  /**
   * One bulk status update per level and 20 ids; the answer's `failures` name the ids it did not
   * change (each with its message), the others changed. A request that fails as a whole fails each
   * of its ids.
   */
  async setStatusEach(account: AdAccount, refs: ObjectRef[], status: 'ACTIVE' | 'PAUSED'): Promise<Array<PlatformError | null>> {
    const out: Array<PlatformError | null> = refs.map(() => null);
    const byLevel = new Map<Level, Map<string, number[]>>();
    for (const [i, ref] of refs.entries()) {
      if (ref.level === 'creative') {
        out[i] = unsupportedLevel('tiktok', ref.level, 'change status');
        continue;
      }
      const ids = byLevel.get(ref.level) ?? new Map<string, number[]>();
      ids.set(ref.id, [...(ids.get(ref.id) ?? []), i]);
      byLevel.set(ref.level, ids);
    }
    for (const [level, ids] of byLevel) {
      for (const part of chunks([...ids.keys()], BULK_LIMIT)) {
        const fail = (id: string, err: PlatformError) => {
          for (const i of ids.get(id) ?? []) out[i] = err;
        };
        const send = async (group: string[]): Promise<void> => {
          try {
            const data = await this.write(account, `${PATH[level]}/status/update/`, {
              [`${ID_FIELD[level]}s`]: group,
              operation_status: status === 'ACTIVE' ? 'ENABLE' : 'DISABLE',
            });
            for (const f of Array.isArray(data?.failures) ? (data.failures as Array<Record<string, unknown>>) : []) {
              const message = String(f.message ?? 'The ad platform did not change this object.');
              fail(String(f[ID_FIELD[level]]), new PlatformError(/not exist|not found/i.test(message) ? 'not_found' : 'invalid_request', message));
            }
          } catch (err) {
            if (!(err instanceof PlatformError)) throw err;
            // A refusal of the whole request (an id it does not know) is sorted out id by id.
            if (group.length > 1 && (err.kind === 'not_found' || err.kind === 'invalid_request')) {
              for (const id of group) await send([id]);
              return;
            }
            for (const id of group) fail(id, err);
          }
        };
        await send(part);
      }
    }
    return out;
  }

  async setBudget(account: AdAccount, ref: ObjectRef, budget: Budget): Promise<void> {
    if (ref.level !== 'campaign' && ref.level !== 'adset') throw unsupportedLevel('tiktok', ref.level, 'hold a budget');
    await this.write(account, `${PATH[ref.level]}/update/`, { [ID_FIELD[ref.level]]: ref.id, ...budgetFields(budget, currencyDigits(account.currency)) });
  }

  deleteObjects(account: AdAccount, refs: ObjectRef[]): Promise<void> {
    return this.changeStatus(account, refs, 'DELETE', 'delete objects');
  }
}
