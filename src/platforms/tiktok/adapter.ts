// The TikTok adapter: the platform port over the TikTok Business API (ad accounts biz_<advertiser
// id>), with the account's Access-Token. Bulk endpoints keep round trips low (several ads of one ad
// group per /ad/create/, up to 20 ids per status update); names go as given, campaign and ad group
// creates carry the node id as TikTok's idempotency key `request_id`, creatives are uploaded to the
// advertiser's library, and countries become the ids of TikTok's region tool. Ad groups and ads are
// created DISABLE and finishPublish gives every object the launch's status once all exist. A live
// preview asks TikTok's URL tool about each landing page (validateWithTools). The objects of a Smart+
// campaign (settings.smartPlus, ./smart-plus.ts) are created, read, changed and deleted through the
// /smart_plus/ endpoints; on an account allowed Smart+, what an id is is asked of /smart_plus/<level>/get/.

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
  type ReportBreakdown,
  type ReportQuery,
  type ReportRow,
  type ObjectLevel,
  type ObjectRef,
  type CreativeFile,
  type AdapterProgress,
  type ObjectSpec,
  type OptionItem,
  type OptionType,
  type PlatformAdapter,
  type TargetingScope,
  type UploadedCreative,
} from '../port.js';
import { NO_INSIGHTS, perObject } from '../insights.js';
import {
  LiveHttp,
  chunks,
  createExactlyOnce,
  currencyDigits,
  decimalToMinor,
  minorToDecimal,
  unsupportedLevel,
  type CreateOutcome,
  type LiveHttpOptions,
} from '../live-http.js';
import type { OutboundClient } from '../../outbound/client.js';
import { TikTokClient, advertiserIdOf, type TikTokParams } from './client.js';
import {
  CONVERSION_EVENTS,
  adCreative,
  adgroupCreate,
  adgroupFields,
  budgetMode,
  campaignCreate,
  creativeFields,
  landingPageOf,
  objectiveType,
  TIKTOK_PLACEMENTS,
  toCampaign,
} from './mapping.js';
import { isSmartPlus, smartAdCreate, smartAdFields, smartAdgroupCreate, smartCampaignCreate } from './smart-plus.js';

export interface TikTokAdapterOptions extends LiveHttpOptions {
  /** Versioned API base URL, e.g. https://business-api.tiktok.com/open_api/v1.3. */
  baseUrl: string;
  /** Wait after a rate-limit answer that does not say how long (code 40100; default 5 s). */
  throttleWaitMs?: number;
  /** Polls of a video's info while TikTok has not given its cover yet, and the wait between them (defaults 10 and 2 s). */
  videoPolls?: number;
  videoPollMs?: number;
}

type Level = Exclude<ObjectLevel, 'creative'>;
const PATH: Record<Level, string> = { campaign: 'campaign', adset: 'adgroup', ad: 'ad' };
const ID_FIELD: Record<Level, string> = { campaign: 'campaign_id', adset: 'adgroup_id', ad: 'ad_id' };
const NAME_FIELD: Record<Level, string> = { campaign: 'campaign_name', adset: 'adgroup_name', ad: 'ad_name' };
/** A Smart+ ad's id field (smart_plus_ad_create.yml response_rule); its campaign and ad group keep the classic ones. */
const SMART_ID_FIELD: Record<Level, string> = { campaign: 'campaign_id', adset: 'adgroup_id', ad: 'smart_plus_ad_id' };
/** Page size of /smart_plus/ad/get/ (its page_size maximum, 100); the campaign and ad group gets take 1000. */
const SMART_AD_PAGE_SIZE = 100;
/** Ids per status update and ads per /ad/create/ call. */
const BULK_LIMIT = 20;
/** Page size of campaign/get, adgroup/get, ad/get and the report (their cap, 1000); pixel/list is capped at 20. */
const LIST_PAGE_SIZE = 1000;
const PIXEL_PAGE_SIZE = 20;
const MAX_PAGES = 50;
/** Ids per `*_ids` filter of a list call. */
const FILTER_IDS = 100;
/** Create answers kept for findCreated, per process (the oldest dropped past this). */
const RECORDED_CREATES = 100_000;
/** Landing pages put to /tool/url_validate/ at once (a preview's questions, one GET each). */
const URL_CHECKS_AT_ONCE = 4;
/** What /tool/region/ is asked for when no ad group is in question (the location options list). */
const REGION_QUERY = { placements: ['PLACEMENT_TIKTOK'], objective_type: 'TRAFFIC' };
/** The placements automatic placement uses, for the region tool (AdgroupCreateBody location_ids: "based on your placement and objective"). */
const AUTOMATIC_PLACEMENTS = ['PLACEMENT_TIKTOK', 'PLACEMENT_PANGLE'];

/** What /tool/region/ is asked for an ad group of `scope`: its objective and its placements (automatic: AUTOMATIC_PLACEMENTS). */
function regionQuery(scope: TargetingScope | undefined): { placements: string[]; objective_type: string } {
  const p = (scope?.placements ?? {}) as { automatic?: unknown; positions?: unknown };
  // Only TikTok's own placements (validation names any other as refused).
  const positions = Array.isArray(p.positions) ? p.positions.map(String).filter((x) => TIKTOK_PLACEMENTS.includes(x)) : [];
  return {
    placements: p.automatic === true || !positions.length ? AUTOMATIC_PLACEMENTS : [...positions].sort(),
    objective_type: objectiveType(scope?.objective),
  };
}
/** What a status update does, for the message when TikTok leaves some ids unchanged. */
const STATUS_VERB = { ENABLE: 'enable', DISABLE: 'pause', DELETE: 'delete' } as const;
const REPORT_LEVEL: Record<Level, string> = { campaign: 'AUCTION_CAMPAIGN', adset: 'AUCTION_ADGROUP', ad: 'AUCTION_AD' };
/** The attribute metric that names an object of each level in a BASIC report. */
const NAME_METRIC: Record<Level, string> = { campaign: 'campaign_name', adset: 'adgroup_name', ad: 'ad_name' };

/** The AUDIENCE report dimension of each breakdown. */
const TIKTOK_BREAKDOWNS: Record<Exclude<ReportBreakdown, 'day'>, string> = { age: 'age', gender: 'gender', country: 'country_code', placement: 'placement' };

/**
 * TikTok's age groups in the report's brackets. TikTok reports everyone 55 and over as one group
 * (AGE_55_100): answered as 55-64, the bracket it starts with.
 */
const TIKTOK_AGES: Record<string, string> = {
  AGE_18_24: '18-24',
  AGE_25_34: '25-34',
  AGE_35_44: '35-44',
  AGE_45_54: '45-54',
  AGE_55_100: '55-64',
};

/** A report row's breakdown value from TikTok's dimensions. */
function tiktokKey(breakdown: ReportBreakdown, d: Record<string, unknown>): string {
  switch (breakdown) {
    case 'day':
      return String(d.stat_time_day ?? '').slice(0, 10);
    case 'age':
      return TIKTOK_AGES[String(d.age)] ?? 'unknown';
    case 'gender':
      return d.gender === 'MALE' ? 'male' : d.gender === 'FEMALE' ? 'female' : 'unknown';
    case 'country':
      return d.country_code ? String(d.country_code) : 'unknown';
    case 'placement':
      return d.placement ? String(d.placement) : 'unknown';
  }
}

const REPORT_METRICS = ['spend', 'impressions', 'clicks', 'conversion', 'total_complete_payment_rate'];

function matcher(query?: string): (item: OptionItem) => boolean {
  const needle = query?.toLowerCase();
  return (item) => !needle || item.name.toLowerCase().includes(needle) || item.id.toLowerCase() === needle;
}

function levelOf(level: ObjectLevel, what: string): Level {
  if (level === 'creative') throw unsupportedLevel('tiktok', level, what);
  return level;
}

/** The status update of `level` for classic objects or Smart+ ones (smart_plus_*_status_update.yml), and its ids field. */
function statusCall(level: Level, smart: boolean): { path: string; field: string } {
  return smart
    ? { path: `smart_plus/${PATH[level]}/status/update/`, field: `${SMART_ID_FIELD[level]}s` }
    : { path: `${PATH[level]}/status/update/`, field: `${ID_FIELD[level]}s` };
}

/**
 * The ids a status update answered it left unchanged, each with TikTok's message: `failures` of the
 * classic endpoints, `error_list` ({<id>, error_message}) of the Smart+ campaign and ad group ones.
 */
function unchanged(data: any, level: Level): Array<{ id: string; message: string }> {
  const rows = (key: string): Array<Record<string, unknown>> => (Array.isArray(data?.[key]) ? data[key] : []);
  return [
    ...rows('failures').map((f) => ({ id: String(f[ID_FIELD[level]]), message: String(f.message ?? 'not changed') })),
    ...rows('error_list').map((f) => ({ id: String(f[ID_FIELD[level]]), message: String(f.error_message ?? 'not changed') })),
  ];
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
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly videoPolls: number;
  private readonly videoPollMs: number;
  /** Per advertiser, ISO country code → TikTok location id, as /tool/region/ lists them (looked up once). */
  private readonly regions = new Map<string, Promise<Map<string, string>>>();
  /** `<advertiser>/<level>/<marker>` → the id a create answered: what findCreated finds beside what the service recorded (TikTok cannot search by request_id). */
  private readonly created = new Map<string, string>();

  constructor(outbound: OutboundClient, options: TikTokAdapterOptions) {
    this.http = new LiveHttp(outbound, options);
    this.api = new TikTokClient(options.baseUrl.replace(/\/+$/, ''), this.http, options.throttleWaitMs ?? 5_000);
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.videoPolls = options.videoPolls ?? 10;
    this.videoPollMs = options.videoPollMs ?? 2_000;
  }

  private read(account: AdAccount, path: string, params: TikTokParams): Promise<any> {
    return this.http.retrying(() => this.api.call(account, 'GET', path, params));
  }

  private write(account: AdAccount, path: string, body: TikTokParams): Promise<any> {
    return this.http.retrying(() => this.api.call(account, 'POST', path, body));
  }

  /** Every object of `level` the Smart+ get lists for `filtering` (smart_plus_*_get.yml), every page. */
  private smartList(account: AdAccount, level: Level, filtering: Record<string, unknown>): Promise<any[]> {
    return this.collect(account, `smart_plus/${PATH[level]}/get/`, { filtering }, 'list', level === 'ad' ? SMART_AD_PAGE_SIZE : LIST_PAGE_SIZE);
  }

  /** Of `ids` (objects of `level`), the Smart+ ones: none on an account not allowed Smart+, else asked of the Smart+ get (one call per 100 ids). */
  private async smartIds(account: AdAccount, level: Level, ids: string[]): Promise<Set<string>> {
    const found = new Set<string>();
    if (!account.smartPlusAllowed || !ids.length) return found;
    for (const part of chunks([...new Set(ids)], FILTER_IDS)) {
      for (const row of await this.smartList(account, level, { [`${SMART_ID_FIELD[level]}s`]: part, primary_status: 'STATUS_ALL' }))
        found.add(String(row?.[SMART_ID_FIELD[level]]));
    }
    return found;
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
        items = (await this.collect(account, 'pixel/list/', {}, 'pixels', PIXEL_PAGE_SIZE)).map((p) => ({
          id: String(p.pixel_id),
          name: String(p.pixel_name ?? ''),
        }));
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
        const data = await this.read(account, 'tool/region/', REGION_QUERY);
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

  private key(account: AdAccount, level: Level, marker: string): string {
    return `${advertiserIdOf(account)}/${level}/${marker}`;
  }

  /** Keeps what a create answered, so findCreated can find it (bounded: the oldest answers go first). */
  private record(account: AdAccount, level: Level, marker: string, id: string): void {
    const key = this.key(account, level, marker);
    this.created.delete(key);
    this.created.set(key, id);
    if (this.created.size > RECORDED_CREATES) this.created.delete(this.created.keys().next().value!);
  }

  /**
   * The create's request_id: the node id on a launch's first publish attempt, the node id and the
   * attempt after that (a rolled-back publish published again), since TikTok would answer the same
   * request_id with the deleted object. The attempt is stored with the launch, so a process that
   * carries an attempt on after a restart sends the same request_id.
   */
  private requestId(spec: ObjectSpec): string {
    return spec.attempt && spec.attempt > 1 ? `${spec.marker}.${spec.attempt}` : spec.marker;
  }

  /** Of `ids` (objects of `level`), the ones the advertiser still has, not deleted: one list call per 100 ids. */
  private async alive(account: AdAccount, level: Level, ids: string[]): Promise<Set<string>> {
    const found = new Set<string>();
    for (const part of chunks([...new Set(ids)], FILTER_IDS)) {
      const rows = await this.collect(account, `${PATH[level]}/get/`, { filtering: { [`${ID_FIELD[level]}s`]: part } }, 'list', LIST_PAGE_SIZE);
      for (const row of rows) found.add(String(row?.[ID_FIELD[level]]));
      // A Smart+ object is read through the Smart+ get too (its ads only there).
      if (account.smartPlusAllowed)
        for (const row of await this.smartList(account, level, { [`${SMART_ID_FIELD[level]}s`]: part })) found.add(String(row?.[SMART_ID_FIELD[level]]));
    }
    return found;
  }

  /**
   * The Smart+ ads of an ad group that a lost /smart_plus/ad/create/ answer left unknown (it takes no
   * request_id): listed once and matched to the specs by name and video, in order, leaving out known ids.
   */
  private async findSmartAds(account: AdAccount, adgroupId: string, specs: ObjectSpec[]): Promise<Map<ObjectSpec, string>> {
    const known = new Set(this.created.values());
    const rows = (await this.smartList(account, 'ad', { adgroup_ids: [adgroupId] })).filter((row) => !known.has(String(row?.smart_plus_ad_id))).reverse();
    const found = new Map<ObjectSpec, string>();
    for (const spec of specs) {
      const media = spec.creative?.ref;
      const at = rows.findIndex(
        (row) =>
          row.ad_name === spec.name &&
          (!media || (Array.isArray(row.creative_list) && row.creative_list.some((c: any) => c?.creative_info?.video_info?.video_id === media))),
      );
      if (at < 0) continue;
      found.set(spec, String(rows[at].smart_plus_ad_id));
      rows.splice(at, 1);
    }
    return found;
  }

  /**
   * One Smart+ create (./smart-plus.ts): a campaign or ad group carries its request_id (int64), so a lost
   * answer is sent again and answered with the object already made; an ad (no request_id) is looked for in
   * its ad group first when an interrupted publish may have sent it, and after a lost answer.
   */
  private async createSmart(account: AdAccount, level: Level, spec: ObjectSpec): Promise<string> {
    const digits = currencyDigits(account.currency);
    const body =
      level === 'campaign'
        ? smartCampaignCreate(spec, digits)
        : level === 'adset'
          ? smartAdgroupCreate(spec, digits, await this.locationIds(account, spec))
          : smartAdCreate(spec, account);
    const find = async (todo: ObjectSpec[]) => (level === 'ad' ? await this.findSmartAds(account, String(spec.parentId), todo) : new Map<ObjectSpec, string>());
    if (level === 'ad' && spec.mayExist) {
      const before = (await this.http.retrying(() => find([spec]))).get(spec);
      if (before) {
        this.record(account, level, spec.marker, before);
        return before;
      }
    }
    const created = await createExactlyOnce(
      this.http,
      [spec],
      async () => {
        const data = await this.api.call(account, 'POST', `smart_plus/${PATH[level]}/create/`, body);
        const id = data?.[SMART_ID_FIELD[level]];
        if (!id) throw new PlatformError('transient', 'The ad platform answered a Smart+ create without an id.');
        return [{ id: String(id) }];
      },
      find,
    );
    const id = created.get(spec)!;
    this.record(account, level, spec.marker, id);
    return id;
  }

  /**
   * The ads of an ad group that a lost /ad/create/ answer left unknown: ad/create takes no request_id
   * (AdCreateBody), so the ad group's ads are listed (one call) and matched to the specs by name and
   * creative, in order, leaving out the ads whose ids are already known.
   */
  private async findAds(account: AdAccount, adgroupId: string, specs: ObjectSpec[]): Promise<Map<ObjectSpec, string>> {
    const known = new Set(this.created.values());
    const rows = (await this.collect(account, 'ad/get/', { filtering: { adgroup_ids: [adgroupId] } }, 'list', LIST_PAGE_SIZE))
      .filter((row) => !known.has(String(row?.ad_id)))
      .reverse();
    const found = new Map<ObjectSpec, string>();
    for (const spec of specs) {
      const media = spec.creative?.ref;
      const at = rows.findIndex(
        (row) => row.ad_name === spec.name && (!media || row.video_id === media || (Array.isArray(row.image_ids) && row.image_ids.includes(media))),
      );
      if (at < 0) continue;
      found.set(spec, String(rows[at].ad_id));
      rows.splice(at, 1);
    }
    return found;
  }

  /**
   * One create call: a campaign, an ad group, or several ads of one ad group. A campaign or ad group
   * whose answer is lost is sent again with the same request_id, which TikTok answers with the object
   * it already made (its idempotency key); ads are found again in their ad group.
   */
  private async createGroup(account: AdAccount, level: Level, specs: ObjectSpec[]): Promise<string[]> {
    const digits = currencyDigits(account.currency);
    const items = specs.map((spec) => ({ spec }));
    // Built before anything is sent: a spec TikTok cannot take is refused without a request.
    const bodies =
      level === 'ad'
        ? null
        : new Map(
            await Promise.all(
              items.map(
                async (t) =>
                  [
                    t,
                    {
                      ...(level === 'campaign' ? campaignCreate(t.spec, digits) : adgroupCreate(t.spec, digits, await this.locationIds(account, t.spec))),
                      request_id: this.requestId(t.spec),
                    },
                  ] as const,
              ),
            ),
          );
    const creatives = level === 'ad' ? new Map(items.map((t) => [t, adCreative(t.spec, account)] as const)) : null;
    const find = async (todo: typeof items) => {
      if (level !== 'ad') return new Map<(typeof items)[number], string>();
      const byAd = await this.findAds(
        account,
        String(todo[0].spec.parentId),
        todo.map((t) => t.spec),
      );
      return new Map(todo.flatMap((t) => (byAd.has(t.spec) ? [[t, byAd.get(t.spec)!] as const] : [])));
    };
    const send = async (todo: typeof items): Promise<CreateOutcome[]> => {
      if (level === 'ad') {
        const data = await this.api.call(account, 'POST', 'ad/create/', { adgroup_id: todo[0].spec.parentId, creatives: todo.map((t) => creatives!.get(t)) });
        const ids = Array.isArray(data?.ad_ids) ? data.ad_ids : [];
        if (ids.length !== todo.length) throw new PlatformError('transient', 'The ad platform did not return an id for every ad created.');
        return ids.map((id: unknown) => ({ id: String(id) }));
      }
      const data = await this.api.call(account, 'POST', `${PATH[level]}/create/`, bodies!.get(todo[0])!);
      const id = data?.[ID_FIELD[level]];
      if (!id) throw new PlatformError('transient', 'The ad platform answered a create without an id.');
      return [{ id: String(id) }];
    };
    // An ad create an interrupted publish may have sent is looked for first: ad/create/ takes no request_id.
    const sentBefore = items.filter((t) => t.spec.mayExist);
    const already = sentBefore.length ? await this.http.retrying(() => find(sentBefore)) : new Map<(typeof items)[number], string>();
    // Claimed at once, so a lookup after a lost answer below never matches them to another ad.
    for (const [item, id] of already) this.record(account, level, item.spec.marker, id);
    const created = new Map([
      ...already,
      ...(await createExactlyOnce(
        this.http,
        items.filter((t) => !already.has(t)),
        send,
        find,
      )),
    ]);
    for (const item of items) this.record(account, level, item.spec.marker, created.get(item)!);
    return items.map((item) => created.get(item)!);
  }

  /**
   * GET /report/integrated/get/: `BASIC` with the level's id dimension (and `stat_time_day` for
   * days), `AUDIENCE` with `age`, `gender`, `country_code` or `placement` beside it; the level's
   * `data_level`, `start_date` and `end_date`, a `campaign_ids` filter of at most 100 ids per report
   * when narrowed, pages of 1000 followed to the end (at most MAX_PAGES). Names come with the BASIC
   * rows (attribute metrics); an AUDIENCE report reads them from a BASIC report of the same objects.
   */
  async report(account: AdAccount, query: ReportQuery): Promise<ReportRow[]> {
    const digits = currencyDigits(account.currency);
    const { level, breakdown } = query;
    const idDimension = level === 'account' ? 'advertiser_id' : ID_FIELD[level];
    const audience = breakdown !== null && breakdown !== 'day';
    const nameMetric = level === 'account' ? null : NAME_METRIC[level];
    const slices = query.campaignIds ? chunks([...new Set(query.campaignIds)], 100) : [null];
    const read = async (reportType: 'BASIC' | 'AUDIENCE', dimensions: string[], metrics: string[]) => {
      const rows: any[] = [];
      for (const slice of slices) {
        if (slice && !slice.length) continue;
        const params: TikTokParams = {
          report_type: reportType,
          data_level: level === 'account' ? 'AUCTION_ADVERTISER' : REPORT_LEVEL[level],
          dimensions,
          metrics,
          start_date: query.window.since,
          end_date: query.window.until,
          ...(slice ? { filtering: [{ field_name: 'campaign_ids', filter_type: 'IN', filter_value: JSON.stringify(slice) }] } : {}),
        };
        rows.push(...(await this.collect(account, 'report/integrated/get/', params, 'list', LIST_PAGE_SIZE)));
      }
      return rows;
    };
    const figures = ['spend', 'impressions', 'clicks', 'conversion', 'reach'];
    const parents = level === 'adset' || level === 'ad' ? ['campaign_id'] : [];
    if (level === 'ad') parents.push('adgroup_id');
    const basicMetrics = [...figures, ...(nameMetric ? [nameMetric] : []), ...parents];
    const rows = audience
      ? await read('AUDIENCE', [idDimension, TIKTOK_BREAKDOWNS[breakdown]], figures)
      : await read('BASIC', breakdown === 'day' ? [idDimension, 'stat_time_day'] : [idDimension], basicMetrics);
    // Names and parents of an AUDIENCE report's objects, from one BASIC report of the same objects.
    const about = new Map<string, Record<string, unknown>>();
    if (audience && level !== 'account') {
      for (const r of await read('BASIC', [idDimension], [...(nameMetric ? [nameMetric] : []), ...parents]))
        about.set(String(r?.dimensions?.[idDimension]), r?.metrics ?? {});
    }
    return rows.map((r) => {
      const d = r?.dimensions ?? {};
      const m = r?.metrics ?? {};
      const id = String(d[idDimension] ?? '');
      const facts = { ...(about.get(id) ?? {}), ...m };
      const str = (v: unknown) => (v === undefined || v === null || v === '' ? null : String(v));
      return {
        campaignId: level === 'campaign' ? id : level === 'account' ? null : str(facts.campaign_id),
        adsetId: level === 'adset' ? id : level === 'ad' ? str(facts.adgroup_id) : null,
        adId: level === 'ad' ? id : null,
        name: nameMetric ? str(facts[nameMetric]) : null,
        key: breakdown ? tiktokKey(breakdown, d) : null,
        spendMinorUnits: m.spend === undefined ? 0 : decimalToMinor(String(m.spend), digits),
        impressions: Math.round(Number(m.impressions ?? 0)) || 0,
        clicks: Math.round(Number(m.clicks ?? 0)) || 0,
        results: Math.round(Number(m.conversion ?? 0)) || 0,
        reach: m.reach === undefined ? null : Math.round(Number(m.reach)) || 0,
      };
    });
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
        if (isSmartPlus(spec)) {
          ids[i] = await this.createSmart(account, spec.level as Level, spec);
          continue;
        }
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

  /**
   * TikTok offers no search by request_id (the get endpoints filter by ids, names, parents and
   * statuses), so the objects found are the ones whose create answers this adapter saw or the service
   * recorded, confirmed by one list call per 100 ids, which leaves out what was deleted. A campaign or
   * ad group create sent again after a restart carries the same request_id and is answered with the
   * object already made; an ad is looked for in its ad group by name and media before it is sent again.
   */
  async findCreated(
    account: AdAccount,
    level: Exclude<ObjectLevel, 'creative'>,
    markers: string[],
    recorded: ReadonlyMap<string, string> = new Map(),
  ): Promise<Map<string, ObjectRef>> {
    // What the service stored, else what this process saw answered (a create whose answer was not recorded yet).
    const candidates = [...new Set(markers)].flatMap((marker) => {
      const ids = [...new Set([recorded.get(marker), this.created.get(this.key(account, level, marker))])].filter((id): id is string => !!id);
      return ids.map((id) => [marker, id] as const);
    });
    if (!candidates.length) return new Map();
    const alive = await this.alive(
      account,
      level,
      candidates.map(([, id]) => id),
    );
    const found = new Map<string, ObjectRef>();
    for (const [marker, id] of candidates) if (alive.has(id) && !found.has(marker)) found.set(marker, { level, id });
    // Remembered as this adapter's own, so an ad looked for by name is never matched to one already claimed.
    for (const [marker, ref] of found) this.record(account, level, marker, ref.id);
    return found;
  }

  /**
   * The recorded ids TikTok lists (one call per 100 ids) are held. TikTok's lists leave deleted
   * objects out, so an id missing from the answer cannot be told apart from a list that came back
   * short: it gets no answer, and the caller looks again instead of concluding.
   */
  async confirmRecorded(account: AdAccount, level: Exclude<ObjectLevel, 'creative'>, ids: string[]): Promise<Map<string, 'held' | 'gone'>> {
    const alive = await this.alive(account, level, ids);
    return new Map([...alive].map((id) => [id, 'held' as const]));
  }

  /** Ad groups under campaigns (`campaign_ids`) or ads under ad groups (`adgroup_ids`), one list per 100 parents. */
  async childrenOf(account: AdAccount, level: 'adset' | 'ad', parentIds: string[]): Promise<string[]> {
    const ids: string[] = [];
    const parentField = level === 'adset' ? 'campaign_ids' : 'adgroup_ids';
    for (const part of chunks([...new Set(parentIds)], FILTER_IDS)) {
      const rows = await this.collect(account, `${PATH[level]}/get/`, { filtering: { [parentField]: part } }, 'list', LIST_PAGE_SIZE);
      for (const row of rows) ids.push(String(row?.[ID_FIELD[level]]));
      if (account.smartPlusAllowed)
        for (const row of await this.smartList(account, level, { [parentField]: part })) ids.push(String(row?.[SMART_ID_FIELD[level]]));
    }
    return [...new Set(ids)];
  }

  /**
   * ISO country code → location id for the advertiser and an ad group of `scope` (its objective and
   * placements), from /tool/region/, asked once per advertiser, objective and placements and kept (a
   * failed lookup is asked again next time).
   */
  private regionIds(account: AdAccount, scope?: TargetingScope): Promise<Map<string, string>> {
    const query = regionQuery(scope);
    const key = `${advertiserIdOf(account)} ${query.objective_type} ${query.placements.join(',')}`;
    let lookup = this.regions.get(key);
    if (!lookup) {
      lookup = this.read(account, 'tool/region/', query).then((data) => {
        const byCode = new Map<string, string>();
        for (const r of listOf(data, 'region_info')) {
          if (String(r?.level ?? '').toUpperCase() === 'COUNTRY' && r.region_code) byCode.set(String(r.region_code).toUpperCase(), String(r.location_id));
        }
        return byCode;
      });
      lookup.catch(() => this.regions.delete(key));
      this.regions.set(key, lookup);
    }
    return lookup;
  }

  async unknownCountries(account: AdAccount, countries: string[], scope?: TargetingScope): Promise<string[]> {
    if (!countries.length) return [];
    const ids = await this.regionIds(account, scope);
    return [...new Set(countries)].filter((c) => !ids.has(c.toUpperCase()));
  }

  /**
   * Asks /tool/url_validate/ about the landing page each ad of `specs` would carry (its landing_page_url,
   * URL tags and sub3 in), each distinct page once, a few at a time; campaigns and ad groups have none to
   * ask about. A page TikTok calls invalid (`is_valid_url` false, or a scheme link whose scheme is not
   * valid), or a `url` it refuses outright (40002 and its message, code kept), is a refusal on `linkUrl` in TikTok's
   * words. Other failures (a refused token, a throttle that outlasts the waits) are thrown.
   */
  async validateWithTools(account: AdAccount, specs: ObjectSpec[]): Promise<Array<PlatformError | null>> {
    const pages = specs.map((spec) => (spec.level === 'ad' ? landingPageOf(spec.settings ?? {}) : undefined));
    const verdicts = new Map<string, PlatformError | null>();
    for (const part of chunks([...new Set(pages.filter((p): p is string => p !== undefined))], URL_CHECKS_AT_ONCE)) {
      await Promise.all(part.map(async (url) => verdicts.set(url, await this.judgeUrl(account, url))));
    }
    return pages.map((url) => (url === undefined ? null : verdicts.get(url)!));
  }

  /** One question to /tool/url_validate/: null when TikTok takes `url` as a landing page, else why not (on `linkUrl`). */
  private async judgeUrl(account: AdAccount, url: string): Promise<PlatformError | null> {
    let data: any;
    try {
      data = await this.read(account, 'tool/url_validate/', { url });
    } catch (err) {
      // A refusal of the `url` itself is about the page; a token, throttle or outage is not, and is thrown.
      if (err instanceof PlatformError && (err.kind === 'invalid_request' || err.kind === 'not_found'))
        return new PlatformError('invalid_request', err.message, { ...err.extra, field: 'linkUrl' });
      throw err;
    }
    // yml_files/tool_url_validate.yml (response_rule): data.url_info.validate_info. Only a false said is a refusal.
    const info = data?.url_info?.validate_info ?? {};
    const said = ['is_scheme_link', 'is_valid_scheme', 'is_valid_url'].filter((k) => typeof info[k] === 'boolean').map((k) => `${k}: ${String(info[k])}`);
    if (info.is_valid_url !== false && !(info.is_scheme_link === true && info.is_valid_scheme === false)) return null;
    return new PlatformError(
      'invalid_request',
      `TikTok's /tool/url_validate/ answered ${said.join(', ')} for the landing page ${url}: give the ad a landing page TikTok takes (linkUrl)`,
      { field: 'linkUrl' },
    );
  }

  /** The location ids of an ad set's targeting countries, for its objective and placements (undefined when it names none). */
  private async locationIds(account: AdAccount, spec: ObjectSpec): Promise<string[] | undefined> {
    const targeting = spec.settings?.targeting as { countries?: unknown } | undefined;
    if (!targeting || !Array.isArray(targeting.countries)) return undefined;
    const countries = targeting.countries.map(String);
    const scope = { objective: spec.objective, placements: spec.settings?.placements };
    const unknown = await this.unknownCountries(account, countries, scope);
    if (unknown.length)
      throw new PlatformError(
        'invalid_request',
        `TikTok cannot target ${unknown.join(', ')} for ad account ${account.accountId} with this ad group's objective and placements.`,
        {
          field: 'targeting.countries',
        },
      );
    const ids = await this.regionIds(account, scope);
    return countries.map((c) => ids.get(c.toUpperCase())!);
  }

  /**
   * An image goes to /file/image/ad/upload/ with its MD5 as image_signature; a video to
   * /file/video/ad/upload/ with video_signature, then its cover (the URL /file/video/ad/info/ gives)
   * is uploaded as an image by URL: an ad takes a video with its cover's image_id.
   */
  async uploadCreative(account: AdAccount, file: CreativeFile, progress?: AdapterProgress): Promise<UploadedCreative> {
    const part = { name: file.name, mime: file.mime, bytes: file.bytes };
    if (file.type === 'image') {
      progress?.(`Uploading image ${file.name} to TikTok`);
      const data = await this.http.retrying(() =>
        this.api.upload(account, 'file/image/ad/upload/', { upload_type: 'UPLOAD_BY_FILE', image_signature: file.md5 }, { field: 'image_file', ...part }),
      );
      if (!data?.image_id) throw new PlatformError('transient', 'TikTok answered an image upload without an image_id.');
      return { ref: String(data.image_id), thumbnailRef: null };
    }
    progress?.(`Uploading video ${file.name} to TikTok`);
    const uploaded = await this.http.retrying(() =>
      this.api.upload(account, 'file/video/ad/upload/', { upload_type: 'UPLOAD_BY_FILE', video_signature: file.md5 }, { field: 'video_file', ...part }),
    );
    const video = Array.isArray(uploaded) ? uploaded[0] : uploaded;
    if (!video?.video_id) throw new PlatformError('transient', 'TikTok answered a video upload without a video_id.');
    const videoId = String(video.video_id);
    let cover: string | null = null;
    for (let poll = 0; poll < this.videoPolls && !cover; poll++) {
      if (poll > 0) {
        progress?.(`Waiting for TikTok to process video ${file.name}`);
        await this.sleep(this.videoPollMs);
      }
      const info = await this.read(account, 'file/video/ad/info/', { video_ids: [videoId] });
      const row = listOf(info).find((v) => String(v?.video_id) === videoId);
      cover = typeof row?.video_cover_url === 'string' && row.video_cover_url ? row.video_cover_url : null;
    }
    if (!cover) throw new PlatformError('transient', `TikTok has not given a cover for video ${videoId} yet; try again shortly.`);
    progress?.(`Uploading the cover of video ${file.name} to TikTok`);
    const image = await this.http.retrying(() => this.api.upload(account, 'file/image/ad/upload/', { upload_type: 'UPLOAD_BY_URL', image_url: cover }, null));
    if (!image?.image_id) throw new PlatformError('transient', 'TikTok answered a cover upload without an image_id.');
    return { ref: videoId, thumbnailRef: String(image.image_id) };
  }

  /** The object behind `ref` in this advertiser, and whether it is a Smart+ one (read through the Smart+ get), or not_found. */
  private async current(account: AdAccount, level: Level, id: string): Promise<{ row: any; smart: boolean }> {
    const smart = (await this.smartIds(account, level, [id])).has(id);
    const filtering = { [`${(smart ? SMART_ID_FIELD : ID_FIELD)[level]}s`]: [id], primary_status: 'STATUS_ALL' };
    const data = await this.read(account, `${smart ? 'smart_plus/' : ''}${PATH[level]}/get/`, { filtering, page: 1, page_size: 1 });
    const row = listOf(data)[0];
    if (!row) throw new PlatformError('not_found', `No ${level} ${id} in ad account ${account.accountId}.`);
    return { row, smart };
  }

  async updateObject(account: AdAccount, ref: ObjectRef, changes: { name?: string; settings?: Record<string, unknown> }): Promise<void> {
    const level = levelOf(ref.level, 'update objects');
    const { row: current, smart } = await this.current(account, level, ref.id);
    const settings = changes.settings ?? {};
    const raw = (settings.platformFields && typeof settings.platformFields === 'object' ? settings.platformFields : {}) as TikTokParams;
    const name = changes.name;
    if (smart) {
      // smart_plus_*_update.yml: an ad takes its name, texts, call to action and page; a campaign or ad group its name here (budgets: setBudget).
      const fields = level === 'ad' ? { ...smartAdFields(settings), ...raw } : raw;
      if (name === undefined && !Object.keys(fields).length) return;
      await this.write(account, `smart_plus/${PATH[level]}/update/`, {
        [SMART_ID_FIELD[level]]: ref.id,
        ...(name !== undefined ? { [NAME_FIELD[level]]: name } : {}),
        ...fields,
      });
      return;
    }
    if (level === 'ad') {
      const creative = { ...creativeFields(settings), ...raw };
      if (name === undefined && !Object.keys(creative).length) return;
      await this.write(account, 'ad/update/', {
        adgroup_id: current.adgroup_id,
        creatives: [{ ad_id: ref.id, ad_name: name ?? current.ad_name, ...creative }],
      });
      return;
    }
    const fields =
      level === 'adset'
        ? { ...adgroupFields(settings, currencyDigits(account.currency), await this.locationIds(account, { settings } as ObjectSpec)), ...raw }
        : raw;
    if (name === undefined && !Object.keys(fields).length) return;
    await this.write(account, `${PATH[level]}/update/`, { [ID_FIELD[level]]: ref.id, ...(name !== undefined ? { [NAME_FIELD[level]]: name } : {}), ...fields });
  }

  /**
   * One bulk status update per level and 20 ids. A code-0 answer may still leave some ids unchanged,
   * each named in `failures`: those are answered (not done is not done), the others changed.
   */
  private async changeStatus(
    account: AdAccount,
    refs: ObjectRef[],
    status: 'ENABLE' | 'DISABLE' | 'DELETE',
    what: string,
  ): Promise<Array<{ ref: ObjectRef; message: string }>> {
    const refused: Array<{ ref: ObjectRef; message: string }> = [];
    const byLevel = new Map<Level, string[]>();
    for (const ref of refs) {
      const level = levelOf(ref.level, what);
      byLevel.set(level, [...new Set([...(byLevel.get(level) ?? []), ref.id])]);
    }
    for (const [level, all] of byLevel) {
      for (const [smart, ids] of await this.families(account, level, all)) {
        const call = statusCall(level, smart);
        for (const part of chunks(ids, BULK_LIMIT)) {
          const data = await this.write(account, call.path, { [call.field]: part, operation_status: status });
          for (const f of unchanged(data, level)) refused.push({ ref: { level, id: f.id }, message: f.message });
        }
      }
    }
    return refused;
  }

  /** `ids` of `level` as the classic ones and the Smart+ ones (each family has its own endpoints), leaving out an empty one. */
  private async families(account: AdAccount, level: Level, ids: string[]): Promise<Array<[boolean, string[]]>> {
    const smart = await this.smartIds(account, level, ids);
    const split: Array<[boolean, string[]]> = [
      [false, ids.filter((id) => !smart.has(id))],
      [true, ids.filter((id) => smart.has(id))],
    ];
    return split.filter(([, list]) => list.length > 0);
  }

  async setStatus(account: AdAccount, refs: ObjectRef[], status: 'ACTIVE' | 'PAUSED'): Promise<void> {
    const operation = status === 'ACTIVE' ? 'ENABLE' : 'DISABLE';
    const refused = await this.changeStatus(account, refs, operation, 'change status');
    if (refused.length) {
      const said = refused.map((r) => `${r.ref.level} ${r.ref.id}: ${r.message}`).join('; ');
      throw new PlatformError('invalid_request', `TikTok did not ${STATUS_VERB[operation]} ${refused.length} of ${refs.length} objects (${said}).`);
    }
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
      for (const [smart, family] of await this.families(account, level, [...ids.keys()])) {
        const call = statusCall(level, smart);
        for (const part of chunks(family, BULK_LIMIT)) {
          const fail = (id: string, err: PlatformError) => {
            for (const i of ids.get(id) ?? []) out[i] = err;
          };
          const send = async (group: string[]): Promise<void> => {
            try {
              const data = await this.write(account, call.path, {
                [call.field]: group,
                operation_status: status === 'ACTIVE' ? 'ENABLE' : 'DISABLE',
              });
              for (const f of unchanged(data, level))
                fail(f.id, new PlatformError(/not exist|not found/i.test(f.message) ? 'not_found' : 'invalid_request', f.message));
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
    }
    return out;
  }

  /**
   * campaign/update/ and adgroup/update/ take `budget` and no `budget_mode` (CampaignUpdateBody,
   * AdgroupUpdateBody): the amount changes, the period stays as created, so a change of period, or a
   * budget on an object that holds none, is refused here without a write.
   */
  async setBudget(account: AdAccount, ref: ObjectRef, budget: Budget): Promise<void> {
    if (ref.level !== 'campaign' && ref.level !== 'adset') throw unsupportedLevel('tiktok', ref.level, 'hold a budget');
    const { row: current, smart } = await this.current(account, ref.level, ref.id);
    // A Smart+ daily budget is BUDGET_MODE_DYNAMIC_DAILY_BUDGET (smart_plus_campaign_create.yml budget_mode).
    const raw = String(current.budget_mode ?? 'BUDGET_MODE_INFINITE');
    const mode = raw === 'BUDGET_MODE_DYNAMIC_DAILY_BUDGET' ? 'BUDGET_MODE_DAY' : raw;
    if (mode !== 'BUDGET_MODE_DAY' && mode !== 'BUDGET_MODE_TOTAL')
      throw new PlatformError('invalid_request', `This TikTok ${ref.level === 'campaign' ? 'campaign' : 'ad group'} holds no budget of its own to change.`, {
        field: 'budget',
      });
    if (mode !== budgetMode(budget))
      throw new PlatformError(
        'invalid_request',
        `TikTok keeps a budget ${mode === 'BUDGET_MODE_DAY' ? 'daily' : 'lifetime'} as it was created; only its amount can change.`,
        { field: 'budgetType' },
      );
    // smart_plus_campaign_update.yml and smart_plus_adgroup_update.yml take budget (no budget_mode) as the classic updates do.
    await this.write(account, `${smart ? 'smart_plus/' : ''}${PATH[ref.level]}/update/`, {
      [ID_FIELD[ref.level]]: ref.id,
      budget: minorToDecimal(budget.amountMinorUnits, currencyDigits(account.currency)),
    });
  }

  /**
   * Brings a publish's objects to the launch's statuses: its ad groups and ads were created DISABLE and
   * its campaigns are ENABLE whatever the create said (operation_status is allowlist-only). A paused
   * campaign is disabled first; then the active ads, the ad groups and the active campaigns are enabled,
   * in that order, so nothing delivers before everything under it is enabled. One bulk status update per
   * level, status and 20 ids; an id TikTok leaves unchanged fails the publish (which rolls back).
   */
  async finishPublish(account: AdAccount, objects: Array<{ ref: ObjectRef; status: 'ACTIVE' | 'PAUSED' }>): Promise<void> {
    const refsOf = (level: Level, status: 'ACTIVE' | 'PAUSED') => objects.filter((o) => o.ref.level === level && o.status === status).map((o) => o.ref);
    const steps: Array<[ObjectRef[], 'ENABLE' | 'DISABLE']> = [
      [refsOf('campaign', 'PAUSED'), 'DISABLE'],
      [refsOf('ad', 'ACTIVE'), 'ENABLE'],
      [refsOf('adset', 'ACTIVE'), 'ENABLE'],
      [refsOf('campaign', 'ACTIVE'), 'ENABLE'],
    ];
    for (const [refs, operation] of steps) {
      if (!refs.length) continue;
      const refused = await this.changeStatus(account, refs, operation, 'finish the publish');
      if (refused.length) {
        const said = refused.map((r) => `${r.ref.level} ${r.ref.id}: ${r.message}`).join('; ');
        throw new PlatformError('invalid_request', `TikTok did not ${STATUS_VERB[operation]} ${refused.length} of ${refs.length} objects (${said}).`);
      }
    }
  }

  /**
   * Deletes the objects. One TikTok refuses to delete (listed in `failures`) is paused instead, so it
   * cannot spend, and given up: a rollback that retried a refusal would never end, keeping the
   * launch `publishing` and its spend reserved. Deleted or given up, the adapter forgets it.
   */
  async deleteObjects(account: AdAccount, refs: ObjectRef[]): Promise<void> {
    const refused = await this.changeStatus(account, refs, 'DELETE', 'delete objects');
    if (refused.length) await this.changeStatus(account, [...new Map(refused.map((r) => [r.ref.id, r.ref])).values()], 'DISABLE', 'pause objects');
    const gone = new Set(refs.map((r) => r.id));
    const prefix = `${advertiserIdOf(account)}/`;
    for (const [key, id] of this.created) if (key.startsWith(prefix) && gone.has(id)) this.created.delete(key);
  }
}
