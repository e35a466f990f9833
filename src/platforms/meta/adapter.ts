// The Meta adapter: the platform port over the Graph Marketing API (ad accounts act_…), with a
// per-account access token. Many objects travel in Graph batches of 50 per round trip; creates carry
// the service's marker as an ad label (names stay as given) and are found again by it when an answer
// is lost. Creatives are uploaded to the account's image library and videos.

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
  AGE_BRACKETS,
  type ObjectLevel,
  type ObjectRef,
  type ObjectSpec,
  type OptionItem,
  type OptionType,
  type PlatformAdapter,
  type UploadedCreative,
  type AdapterProgress,
  type CreativeFile,
} from '../port.js';
import { NO_INSIGHTS, addInsights, perObject } from '../insights.js';
import { LiveHttp, chunks, createExactlyOnce, currencyDigits, unsupportedLevel, type CreateOutcome, type LiveHttpOptions } from '../live-http.js';
import type { OutboundClient } from '../../outbound/client.js';
import { BATCH_LIMIT, GraphClient, type BatchAnswer, type BatchRequest } from './graph.js';
import {
  CONVERSION_EVENTS,
  EDGES,
  INSIGHT_FIELDS,
  LISTED_EFFECTIVE,
  budgetChange,
  campaignFields,
  hasCreativeSettings,
  markerOfLabel,
  createParams,
  propertyOfGraphField,
  effectiveStatusesFor,
  rowInsights,
  toCampaign,
  updateParams,
  type GraphParams,
} from './mapping.js';
import { euPlaces, type MetaAccountFacts, type MetaFactsWanted, type MinimumBudgets } from './rules.js';
import { NOT_FOUND_OR_FORBIDDEN } from './errors.js';
import { DEFAULT_GRAPH_VERSION, majorOf, versionOfUrl } from './versions.js';

export interface MetaAdapterOptions extends LiveHttpOptions {
  /** Versioned Graph base URL, e.g. https://graph.facebook.com/v25.0. */
  baseUrl: string;
  /** Page size when collecting option lists (default 200). */
  optionPageSize?: number;
  /** Status checks of an uploaded video before giving up, and the wait between them (defaults 30 and 2 s). */
  videoPolls?: number;
  videoPollMs?: number;
  /** The clock of the kept minimum budgets (default Date.now). */
  now?: () => number;
}

/** How long an account's minimum budgets are kept before they are read again. */
const MINIMUMS_MS = 60 * 60 * 1000;
/** Meta's validate_only execution option (Campaign, AdSet, Ad and AdCreative creates and updates). */
const VALIDATE_ONLY = { execution_options: ['validate_only'] };

/** Meta's DSA account defaults (AdAccount default_dsa_beneficiary, default_dsa_payor); null when unset. */
interface DsaDefaults {
  beneficiary: string | null;
  payor: string | null;
}

/** The account edges listing objects by ad label (api_specs AdAccount `campaignsbylabels`, `adsetsbylabels`, `adsbylabels`). */
const BY_LABELS: Record<Exclude<ObjectLevel, 'creative'>, string> = { campaign: 'campaignsbylabels', adset: 'adsetsbylabels', ad: 'adsbylabels' };
/** Labels read per page of the account's label list. */
const LABEL_PAGE_SIZE = 2_000;
/** Label ids in one by-labels read, so its URL stays short. */
const LABELS_PER_READ = 50;

/** Pages followed when collecting a list (assets, insights rows), so a runaway cursor ends. */
const MAX_PAGES = 50;
/** Ids in one insights filter: Graph accepts long IN lists, but a GET URL must stay well under its size limit. */
const OBJECT_FILTER_LIMIT = 500;

function matcher(query?: string): (item: OptionItem) => boolean {
  const needle = query?.toLowerCase();
  return (item) => !needle || item.name.toLowerCase().includes(needle) || item.id.toLowerCase() === needle;
}

/** Graph's `breakdowns` for each report breakdown (placement: where the ad ran, platform and position). */
const META_BREAKDOWNS: Record<Exclude<ReportBreakdown, 'day'>, string[]> = {
  age: ['age'],
  gender: ['gender'],
  country: ['country'],
  placement: ['publisher_platform', 'platform_position'],
};

/** One AdsInsights row as a report row: spend "12.34" is 1234 minor units; ages and genders in the report's words. */
function metaReportRow(row: Record<string, any>, level: ReportQuery['level'], breakdown: ReportBreakdown | null, digits: number): ReportRow {
  const figures = rowInsights(row, digits);
  const str = (v: unknown) => (v === undefined || v === null || v === '' ? null : String(v));
  let key: string | null = null;
  if (breakdown === 'day') key = str(row.date_start);
  else if (breakdown === 'age') key = AGE_BRACKETS.includes(String(row.age) as never) ? String(row.age) : 'unknown';
  else if (breakdown === 'gender') key = row.gender === 'female' || row.gender === 'male' ? row.gender : 'unknown';
  else if (breakdown === 'country') key = str(row.country) ?? 'unknown';
  else if (breakdown === 'placement') key = [row.publisher_platform, row.platform_position].filter(Boolean).join('_') || 'unknown';
  const name = level === 'campaign' ? row.campaign_name : level === 'adset' ? row.adset_name : level === 'ad' ? row.ad_name : null;
  return {
    campaignId: str(row.campaign_id),
    adsetId: str(row.adset_id),
    adId: str(row.ad_id),
    name: str(name),
    key,
    spendMinorUnits: figures.spendMinorUnits,
    impressions: figures.impressions,
    clicks: figures.clicks,
    results: figures.results,
    reach: row.reach === undefined ? null : Math.round(Number(row.reach)) || 0,
  };
}

function nextAfter(body: any): string | null {
  return body?.paging?.next && body?.paging?.cursors?.after ? String(body.paging.cursors.after) : null;
}

/** The answers of a batch of reads, or the first failure (the whole batch is then retried). */
function bodiesOf(answers: BatchAnswer[]): any[] {
  const failed = answers.filter((a): a is { ok: false; error: PlatformError } => !a.ok);
  if (failed.length) throw failed.find((f) => f.error.kind === 'throttled')?.error ?? failed[0].error;
  return answers.map((a) => (a as { ok: true; body: any }).body);
}

/** An ad's settings with the account's page (and Instagram account) where the ad names none: every creative speaks as a page. */
function speakingAs(account: AdAccount, settings: Record<string, unknown>): Record<string, unknown> {
  const out = { ...settings };
  if ((out.pageId === undefined || out.pageId === null) && account.pageId) out.pageId = account.pageId;
  if ((out.instagramUserId === undefined || out.instagramUserId === null) && account.instagramUserId) out.instagramUserId = account.instagramUserId;
  return out;
}

/** Where an ad set spec reaches the EU or its territories (its countries, and its cities by their countries). */
const euOf = (spec: ObjectSpec, cityCountry: (key: string) => string | undefined) =>
  spec.level === 'adset' ? euPlaces(spec.settings?.targeting as Record<string, unknown> | undefined, cityCountry) : [];

/**
 * A spec with what its account adds: an ad's page, and an ad set's page (for a lead form's or post
 * engagement's promoted object) and, when it reaches the EU, its DSA beneficiary and payer (the
 * account's, else Meta's defaults); its regional identities (Singapore, Taiwan) are the account's.
 */
function withAccount(account: AdAccount, spec: ObjectSpec, dsa: DsaDefaults | null, cityCountry: (key: string) => string | undefined): ObjectSpec {
  if (spec.level === 'ad' || spec.level === 'creative') return { ...spec, settings: speakingAs(account, spec.settings ?? {}) };
  if (spec.level !== 'adset') return spec;
  const s = spec.settings ?? {};
  const eu = euOf(spec, cityCountry).length > 0;
  return {
    ...spec,
    settings: {
      ...s,
      ...(account.pageId ? { pageId: account.pageId } : {}),
      ...(eu ? { dsaBeneficiary: account.dsaBeneficiary ?? dsa?.beneficiary ?? undefined, dsaPayor: account.dsaPayor ?? dsa?.payor ?? undefined } : {}),
      ...(account.regionalIdentities ? { regionalIdentities: account.regionalIdentities } : {}),
    },
  };
}

/** The cities an ad set spec targets. */
const citiesOf = (spec: ObjectSpec): string[] => {
  const cities = (spec.settings?.targeting as Record<string, unknown> | undefined)?.cities;
  return spec.level === 'adset' && Array.isArray(cities) ? cities.map(String) : [];
};

/**
 * A key for a create's shape: its parameters but its labels and parent (and, for an ad set standing as
 * a parent, its name), with its parent's shape. Ads of one key are asked about once: copies of an ad set
 * hold ads of the same names and parameters, and an ad set's own name goes into no ad.
 */
function shapeOf(params: GraphParams, parentShape: string, withName = true): string {
  const { name, adlabels: _l, adset_id: _a, campaign_id: _c, ...rest } = params;
  return JSON.stringify([withName ? name : null, rest, parentShape]);
}

/** The fields of the ad account read for its DSA defaults. */
const DSA_FIELDS = { fields: 'default_dsa_beneficiary,default_dsa_payor' };

/** Meta's DSA defaults from the ad account's answer (DSA_FIELDS); a blank or absent one is null. */
function dsaDefaultsOf(body: any): DsaDefaults {
  const text = (v: unknown) => (typeof v === 'string' && v.trim() ? v : null);
  return { beneficiary: text(body?.default_dsa_beneficiary), payor: text(body?.default_dsa_payor) };
}

/** The minimums of a `minimum_budgets` answer in the account's currency (minor units); null fields read as 0. */
function minimumsOf(body: any, currency: string): MinimumBudgets {
  const rows: any[] = Array.isArray(body?.data) ? body.data : [];
  const row = rows.find((r) => r?.currency === currency) ?? rows[0] ?? {};
  const n = (v: unknown) => (Number.isFinite(Number(v)) ? Math.round(Number(v)) : 0);
  return {
    imp: n(row.min_daily_budget_imp),
    highFreq: n(row.min_daily_budget_high_freq),
    lowFreq: n(row.min_daily_budget_low_freq),
    videoViews: n(row.min_daily_budget_video_views),
  };
}

/**
 * Why the status of an object could not be changed, when Meta would not load it. Error 100 subcode
 * 33 ("does not exist, cannot be loaded due to missing permissions") is no proof that the object is
 * gone: a token that lost its permission gets it too (live-platforms.md), so it is a failed lookup to
 * try again (transient, subcode kept), never "no such object".
 */
function lookupFailure(err: PlatformError, id: string, accountId: string): PlatformError {
  if (err.kind !== 'not_found') return err;
  if (err.extra.platformSubcode === NOT_FOUND_OR_FORBIDDEN)
    return new PlatformError(
      'transient',
      `Meta would not load object ${id} of ad account ${accountId} (error 100, subcode 33: it does not exist, or this token lacks permission on it); that is not proof it is gone, so look again.`,
      err.extra,
    );
  return new PlatformError('not_found', `No object ${id} in ad account ${accountId}.`, err.extra);
}

export class MetaAdapter implements PlatformAdapter {
  readonly platform = 'meta' as const;
  private readonly http: LiveHttp;
  private readonly graph: GraphClient;
  private readonly optionPageSize: number;
  private readonly videoPolls: number;
  private readonly videoPollMs: number;
  /** Ad account → marker → the id of the ad label carrying it. */
  private readonly labels = new Map<string, Map<string, string>>();
  /** Ad account → its minimum budgets and when they were read (kept MINIMUMS_MS). */
  private readonly minimums = new Map<string, { at: number; value: MinimumBudgets }>();
  /** Ad account → Meta's DSA defaults, read once and kept. */
  private readonly dsaDefaults = new Map<string, DsaDefaults>();
  /** Ad account and bid → the minimum budgets with that manual bid, and when they were read (kept MINIMUMS_MS). */
  private readonly bidMinimums = new Map<string, { at: number; value: MinimumBudgets }>();
  /** City key → its country, as Meta's location search answers it (a city never moves). */
  private readonly cityCountries = new Map<string, string>();
  /**
   * Ad set id → the shape of its create (its parameters but its name, labels and campaign), for its ads'
   * validation: ads of one shape under ad sets of one shape are asked about once.
   */
  private readonly adsetShapes = new Map<string, string>();
  private readonly now: () => number;
  /** The major number of the Graph version called (META_GRAPH_URL): what a create says depends on it (the ledger, ./ledger.ts). */
  private readonly major: number;

  constructor(outbound: OutboundClient, options: MetaAdapterOptions) {
    this.major = majorOf(versionOfUrl(options.baseUrl) ?? DEFAULT_GRAPH_VERSION);
    this.http = new LiveHttp(outbound, options);
    this.graph = new GraphClient(options.baseUrl.replace(/\/+$/, ''), this.http);
    this.optionPageSize = options.optionPageSize ?? 200;
    this.videoPolls = Math.max(1, options.videoPolls ?? 30);
    this.videoPollMs = options.videoPollMs ?? 2_000;
    this.now = options.now ?? Date.now;
  }

  /**
   * The account's minimum budgets (`minimum_budgets`, kept an hour; with `bid_amount` for each of
   * `wanted.bids`), and when asked Meta's DSA defaults (`default_dsa_beneficiary`, `default_dsa_payor`,
   * read once and kept, unless the account names both) and the countries of `wanted.cities` (location
   * search `adgeolocationmeta`, kept): every read due in one round trip (a Graph batch).
   */
  async metaAccountFacts(account: AdAccount, wanted: MetaFactsWanted): Promise<MetaAccountFacts> {
    const fresh = (entry: { at: number } | undefined) => entry && this.now() - entry.at < MINIMUMS_MS;
    const minimumsDue = !fresh(this.minimums.get(account.accountId));
    const dsaDue = wanted.dsa && !(account.dsaBeneficiary && account.dsaPayor) && !this.dsaDefaults.has(account.accountId);
    const bidsDue = (wanted.bids ?? []).filter((b) => !fresh(this.bidMinimums.get(`${account.accountId}:${b}`)));
    const citiesDue = [...new Set(wanted.cities ?? [])].filter((c) => !this.cityCountries.has(c));
    const reads: Array<{ path: string; params: GraphParams; take: (body: any) => void }> = [];
    if (minimumsDue)
      reads.push({
        path: `${account.accountId}/minimum_budgets`,
        params: {},
        take: (body) => this.minimums.set(account.accountId, { at: this.now(), value: minimumsOf(body, account.currency) }),
      });
    if (dsaDue) reads.push({ path: account.accountId, params: DSA_FIELDS, take: (body) => this.dsaDefaults.set(account.accountId, dsaDefaultsOf(body)) });
    for (const bid of bidsDue)
      reads.push({
        path: `${account.accountId}/minimum_budgets`,
        params: { bid_amount: bid },
        take: (body) => this.bidMinimums.set(`${account.accountId}:${bid}`, { at: this.now(), value: minimumsOf(body, account.currency) }),
      });
    if (citiesDue.length) reads.push({ path: 'search', params: { type: 'adgeolocationmeta', cities: citiesDue }, take: (body) => this.keepCities(body) });
    const bodies = reads.length ? await this.readMany(account, reads) : [];
    // Kept per process: a bound so that many accounts, bids and cities cannot grow them for ever.
    if (this.bidMinimums.size > 100_000) this.bidMinimums.clear();
    if (this.cityCountries.size > 100_000) this.cityCountries.clear();
    reads.forEach((r, i) => r.take(bodies[i]));
    const defaults = this.dsaDefaults.get(account.accountId);
    return {
      ...(wanted.leadPages?.length ? { leadTermsAccepted: await this.leadTerms(account, wanted.leadPages) } : {}),
      minimumBudgets: this.minimums.get(account.accountId)!.value,
      bidMinimums: new Map((wanted.bids ?? []).map((b) => [b, this.bidMinimums.get(`${account.accountId}:${b}`)!.value])),
      dsaBeneficiary: account.dsaBeneficiary ?? defaults?.beneficiary ?? null,
      dsaPayor: account.dsaPayor ?? defaults?.payor ?? null,
      cityCountries: new Map((wanted.cities ?? []).flatMap((c) => (this.cityCountries.has(c) ? [[c, this.cityCountries.get(c)!] as const] : []))),
    };
  }

  /**
   * Whether each of `pageIds` accepted Meta's lead ads terms (Page `leadgen_tos_accepted`), read afresh in
   * one batch (an admin may accept them at any time); a Page that cannot be read is left out (unknown).
   */
  private async leadTerms(account: AdAccount, pageIds: string[]): Promise<Map<string, boolean>> {
    const pages = [...new Set(pageIds)].slice(0, BATCH_LIMIT);
    const requests: BatchRequest[] = pages.map((id) => ({ method: 'GET', relativeUrl: id, params: { fields: 'leadgen_tos_accepted' } }));
    const answers = await this.http.retrying(() => this.graph.batch(account, requests));
    return new Map(
      answers.flatMap((a, i) =>
        a.ok && typeof (a.body as { leadgen_tos_accepted?: unknown })?.leadgen_tos_accepted === 'boolean'
          ? [[pages[i], (a.body as { leadgen_tos_accepted: boolean }).leadgen_tos_accepted] as const]
          : [],
      ),
    );
  }

  /** Keeps the countries of the cities an `adgeolocationmeta` search answered. */
  private keepCities(body: any): void {
    const cities = (body?.data?.cities ?? {}) as Record<string, { country_code?: string }>;
    for (const [key, city] of Object.entries(cities)) if (city?.country_code) this.cityCountries.set(key, String(city.country_code));
  }

  /** The country of each of `cities` Meta's location search knows (read once per city and kept). */
  private async countriesOfCities(account: AdAccount, cities: string[]): Promise<(key: string) => string | undefined> {
    const due = [...new Set(cities)].filter((c) => !this.cityCountries.has(c));
    if (due.length) this.keepCities(await this.http.retrying(() => this.graph.get(account, 'search', { type: 'adgeolocationmeta', cities: due })));
    return (key) => this.cityCountries.get(key);
  }

  /** Meta's DSA defaults for the account when an ad set of `specs` reaches the EU and the account does not name both (read once and kept); null otherwise. */
  private async dsaFor(account: AdAccount, specs: ObjectSpec[], cityCountry: (key: string) => string | undefined): Promise<DsaDefaults | null> {
    if (account.dsaBeneficiary && account.dsaPayor) return null;
    if (!specs.some((s) => euOf(s, cityCountry).length > 0)) return null;
    if (!this.dsaDefaults.has(account.accountId))
      this.dsaDefaults.set(account.accountId, dsaDefaultsOf(await this.http.retrying(() => this.graph.get(account, account.accountId, DSA_FIELDS))));
    return this.dsaDefaults.get(account.accountId)!;
  }

  /** The create parameters of `specs` with what their account adds (pages, DSA names), the cities' countries read where needed. */
  private async createParamsOf(account: AdAccount, specs: ObjectSpec[]): Promise<GraphParams[]> {
    const cityCountry = await this.countriesOfCities(account, specs.flatMap(citiesOf));
    const dsa = await this.dsaFor(account, specs, cityCountry);
    return specs.map((spec) => createParams(withAccount(account, spec, dsa, cityCountry), this.major));
  }

  /**
   * Asks Meta to validate each create without doing it (`execution_options=["validate_only"]`, answered
   * `{"success": true}` or with its error), in batches of 50. Ads of one shape (the same name and
   * parameters but for their labels, under ad sets of one shape: duplicated ad sets) are asked about
   * once, so the ads of a level of copies cost a batch, not one per copy; campaigns and ad sets are each
   * asked about. Answers per spec null or Meta's refusal, its field named as the service's property.
   */
  async validateCreates(account: AdAccount, specs: ObjectSpec[]): Promise<Array<PlatformError | null>> {
    const params = await this.createParamsOf(account, specs);
    const shapes = params.map((p, i) => {
      const parent = specs[i].parentId ? (this.adsetShapes.get(specs[i].parentId!) ?? specs[i].parentId!) : '';
      // Ad sets are asked about one by one (their names differ, and Meta may judge by a name); ads by shape.
      return specs[i].level === 'ad' ? shapeOf(p, parent) : `${i}`;
    });
    const firstOf = new Map<string, number>();
    shapes.forEach((shape, i) => firstOf.has(shape) || firstOf.set(shape, i));
    const asked = [...firstOf.values()];
    const answers = await this.eachInBatches(
      account,
      asked.map((i) => ({ method: 'POST', relativeUrl: `${account.accountId}/${EDGES[specs[i].level]}`, params: { ...params[i], ...VALIDATE_ONLY } })),
    );
    const byShape = new Map(asked.map((i, k) => [shapes[i], answers[k]]));
    return specs.map((_spec, i) => {
      const a = byShape.get(shapes[i])!;
      if (a.ok) return null;
      if (a.error.kind !== 'invalid_request') throw a.error;
      return new PlatformError('invalid_request', a.error.message, { ...a.error.extra, field: propertyOfGraphField(a.error.extra.field) ?? undefined });
    });
  }

  /** Asks Meta to validate a budget change of a live campaign or ad set (validate_only): null when it would take it, else its refusal. */
  async validateBudget(account: AdAccount, ref: ObjectRef, budget: Budget): Promise<PlatformError | null> {
    if (ref.level !== 'campaign' && ref.level !== 'adset') throw unsupportedLevel('meta', ref.level, 'hold a budget');
    await this.ensureOwned(account, [ref]);
    try {
      await this.http.retrying(() => this.graph.post(account, ref.id, { ...budgetChange(budget), ...VALIDATE_ONLY }));
      return null;
    } catch (err) {
      if (err instanceof PlatformError && err.kind === 'invalid_request') return err;
      throw err;
    }
  }

  /** Several reads in as few round trips as possible (one GET, or batches of 50), retried as a whole. */
  private async readMany(account: AdAccount, reads: Array<{ path: string; params: GraphParams }>): Promise<any[]> {
    if (reads.length === 1) return [await this.http.retrying(() => this.graph.get(account, reads[0].path, reads[0].params))];
    const out: any[] = [];
    for (const part of chunks(reads, BATCH_LIMIT)) {
      const requests: BatchRequest[] = part.map((r) => ({ method: 'GET', relativeUrl: r.path, params: r.params }));
      out.push(...(await this.http.retrying(async () => bodiesOf(await this.graph.batch(account, requests)))));
    }
    return out;
  }

  /**
   * Idempotent writes (status, delete) in batches of 50. They go through the exactly-once loop with
   * nothing to look up: a write whose answer was lost is simply sent again; a refusal is thrown.
   */
  private async writeMany(account: AdAccount, requests: BatchRequest[]): Promise<void> {
    for (const part of chunks(requests, BATCH_LIMIT)) {
      await createExactlyOnce(
        this.http,
        part,
        async (todo) => (await this.graph.batch(account, todo)).map((a): CreateOutcome => (a.ok ? { id: 'done' } : { error: a.error })),
        async () => new Map(),
      );
    }
  }

  /**
   * Sends `requests` in batches of 50, each request on its own: an answer per request, in order.
   * Requests throttled or failed transiently are sent again after the wait the policy allows (per
   * batch); what still fails, or is refused, is that request's answer.
   */
  private async eachInBatches(account: AdAccount, requests: BatchRequest[]): Promise<BatchAnswer[]> {
    const out: BatchAnswer[] = new Array(requests.length);
    const indexes = requests.map((_r, i) => i);
    for (const part of chunks(indexes, BATCH_LIMIT)) {
      const state = this.http.newState();
      let pending = part;
      while (pending.length) {
        let failure: PlatformError | null = null;
        let again: number[] = [];
        try {
          const answers = await this.graph.batch(
            account,
            pending.map((i) => requests[i]),
          );
          for (const [k, a] of answers.entries()) {
            const i = pending[k];
            out[i] = a;
            if (a.ok || (a.error.kind !== 'throttled' && a.error.kind !== 'transient')) continue;
            again.push(i);
            if (!failure || a.error.kind === 'throttled') failure = a.error;
          }
        } catch (err) {
          if (!(err instanceof PlatformError)) throw err;
          failure = err;
          again = pending;
          for (const i of pending) out[i] = { ok: false, error: err };
        }
        if (!failure) break;
        try {
          await this.http.pause(failure, state);
        } catch {
          // Out of waits: each request keeps the failure it got.
          break;
        }
        pending = again;
      }
    }
    return out;
  }

  /** Collects every page of a list edge (assets, lead forms). */
  private async collect(account: AdAccount, path: string, params: GraphParams, limit = this.optionPageSize): Promise<any[]> {
    const rows: any[] = [];
    let after: string | null = null;
    for (let page = 0; page < MAX_PAGES; page++) {
      const body = await this.http.retrying(() => this.graph.get(account, path, { ...params, limit, ...(after ? { after } : {}) }));
      rows.push(...(Array.isArray(body?.data) ? body.data : []));
      after = nextAfter(body);
      if (!after) break;
    }
    return rows;
  }

  /** Fails with not_found unless every ref is an object of this ad account. */
  private async ensureOwned(account: AdAccount, refs: ObjectRef[]): Promise<void> {
    const ids = [...new Set(refs.map((r) => r.id))];
    const accountNumber = account.accountId.replace(/^act_/, '');
    const bodies = await this.readMany(
      account,
      chunks(ids, BATCH_LIMIT).map((part) => ({ path: '', params: { ids: part.join(','), fields: 'id,account_id' } })),
    );
    const found = Object.assign({}, ...bodies) as Record<string, { account_id?: string }>;
    const missing = ids.find((id) => !found[id] || (found[id].account_id !== undefined && String(found[id].account_id) !== accountNumber));
    if (missing) throw new PlatformError('not_found', `No object ${missing} in ad account ${account.accountId}.`);
  }

  async listCampaigns(account: AdAccount, query: CampaignQuery): Promise<CampaignPage> {
    const wanted = effectiveStatusesFor(query.statuses);
    const filtered = wanted !== null || Boolean(query.nameQuery);
    const path = `${account.accountId}/campaigns`;
    const everything = { fields: 'id', limit: 1, summary: 'total_count', filtering: [{ field: 'effective_status', operator: 'IN', value: LISTED_EFFECTIVE }] };
    if (wanted !== null && wanted.length === 0) {
      // Only deleted campaigns were asked for; like the sandbox, deleted campaigns are never listed.
      const [all] = await this.readMany(account, [{ path, params: everything }]);
      return { campaigns: [], totalInAccount: Number(all?.summary?.total_count ?? 0), matched: 0, after: null };
    }
    const filtering: Array<Record<string, unknown>> = [{ field: 'effective_status', operator: 'IN', value: wanted ?? LISTED_EFFECTIVE }];
    if (query.nameQuery) filtering.push({ field: 'name', operator: 'CONTAIN', value: query.nameQuery });
    const pageParams: GraphParams = {
      fields: campaignFields(this.major),
      limit: query.limit,
      summary: 'total_count',
      filtering,
      ...(query.after ? { after: query.after } : {}),
    };
    const [page, all] = await this.readMany(
      account,
      filtered
        ? [
            { path, params: pageParams },
            { path, params: everything },
          ]
        : [{ path, params: pageParams }],
    );
    const matched = Number(page?.summary?.total_count ?? 0);
    return {
      campaigns: (Array.isArray(page?.data) ? page.data : []).map(toCampaign),
      totalInAccount: filtered ? Number(all?.summary?.total_count ?? 0) : matched,
      matched,
      after: nextAfter(page),
    };
  }

  async listLeadForms(account: AdAccount, pageId: string, after: string | null, limit: number): Promise<LeadFormPage> {
    const body = await this.http.retrying(() => this.graph.get(account, `${pageId}/leadgen_forms`, { fields: 'id,name', limit, ...(after ? { after } : {}) }));
    return {
      leadForms: (Array.isArray(body?.data) ? body.data : []).map((f: any) => ({ id: String(f.id), name: f.name ?? null })),
      after: nextAfter(body),
    };
  }

  async listOptions(account: AdAccount, type: OptionType, query?: string): Promise<OptionItem[]> {
    const act = account.accountId;
    let items: OptionItem[];
    switch (type) {
      case 'pixels':
        items = (await this.collect(account, `${act}/adspixels`, { fields: 'id,name' })).map((p) => ({ id: String(p.id), name: String(p.name ?? '') }));
        break;
      case 'pages':
        items = (await this.collect(account, `${act}/promote_pages`, { fields: 'id,name' })).map((p) => ({ id: String(p.id), name: String(p.name ?? '') }));
        break;
      case 'profileAccounts':
        items = (await this.collect(account, `${act}/instagram_accounts`, { fields: 'id,username' })).map((p) => ({
          id: String(p.id),
          name: String(p.username ?? ''),
        }));
        break;
      case 'audiences':
        items = (await this.collect(account, `${act}/customaudiences`, { fields: 'id,name,subtype,approximate_count_upper_bound' })).map((a) => ({
          id: String(a.id),
          name: String(a.name ?? ''),
          ...(a.subtype ? { subtype: a.subtype } : {}),
          ...(a.approximate_count_upper_bound !== undefined ? { approximateCount: Number(a.approximate_count_upper_bound) } : {}),
        }));
        break;
      case 'interests': {
        const params = query ? { type: 'adinterest', q: query, limit: 100 } : { type: 'adTargetingCategory', class: 'interests', limit: 500 };
        const body = await this.http.retrying(() => this.graph.get(account, 'search', params));
        items = (Array.isArray(body?.data) ? body.data : []).map((i: any) => ({
          id: String(i.id),
          name: String(i.name ?? ''),
          audienceSize: Number(i.audience_size_upper_bound ?? i.audience_size ?? i.audience_size_lower_bound ?? 0),
        }));
        break;
      }
      case 'locations': {
        const params = { type: 'adgeolocation', location_types: ['country', 'region', 'city'], limit: 100, ...(query ? { q: query } : {}) };
        const body = await this.http.retrying(() => this.graph.get(account, 'search', params));
        items = (Array.isArray(body?.data) ? body.data : []).map((l: any) => ({
          id: String(l.key),
          name: String(l.name ?? ''),
          type: String(l.type ?? ''),
          ...(l.country_code ? { countryCode: l.country_code } : {}),
        }));
        break;
      }
      case 'conversionEvents':
        items = CONVERSION_EVENTS;
        break;
      default:
        throw new PlatformError('capability_unsupported', `Meta has no option list "${type as string}".`);
    }
    return items.filter(matcher(query));
  }

  async insights(account: AdAccount, objectIds: string[], window: DateWindow): Promise<Insights> {
    if (!objectIds.length) return NO_INSIGHTS;
    const digits = currencyDigits(account.currency);
    const base = { level: 'campaign', fields: INSIGHT_FIELDS, time_range: { since: window.since, until: window.until }, limit: 500 };
    const path = `${account.accountId}/insights`;
    const firstPages = await this.readMany(
      account,
      chunks([...new Set(objectIds)], BATCH_LIMIT).map((ids) => ({
        path,
        params: { ...base, filtering: [{ field: 'campaign.id', operator: 'IN', value: ids }] },
      })),
    );
    const rows: any[] = [];
    for (const [i, first] of firstPages.entries()) {
      rows.push(...(Array.isArray(first?.data) ? first.data : []));
      let after = nextAfter(first);
      const ids = chunks([...new Set(objectIds)], BATCH_LIMIT)[i];
      for (let page = 1; after && page < MAX_PAGES; page++) {
        const params = { ...base, filtering: [{ field: 'campaign.id', operator: 'IN', value: ids }], after };
        const body = await this.http.retrying(() => this.graph.get(account, path, params));
        rows.push(...(Array.isArray(body?.data) ? body.data : []));
        after = nextAfter(body);
      }
    }
    return rows.reduce<Insights>((total, row) => addInsights(total, rowInsights(row, digits)), NO_INSIGHTS);
  }

  /**
   * One insights read at `level` for every id (Graph `level=` with a filter on `<level>.id`),
   * following the paging; more than OBJECT_FILTER_LIMIT ids take one read per slice.
   */
  async insightsByObject(account: AdAccount, level: InsightsLevel, objectIds: string[], window: DateWindow): Promise<ObjectInsights[]> {
    const ids = [...new Set(objectIds)];
    if (!ids.length) return [];
    const digits = currencyDigits(account.currency);
    const path = `${account.accountId}/insights`;
    const rows = new Map<string, Omit<ObjectInsights, 'objectId'>>();
    for (const slice of chunks(ids, OBJECT_FILTER_LIMIT)) {
      const params: GraphParams = {
        level,
        fields: `${level}_id,spend,impressions,reach,clicks,actions,action_values`,
        time_range: { since: window.since, until: window.until },
        filtering: [{ field: `${level}.id`, operator: 'IN', value: slice }],
        limit: 500,
      };
      let after: string | null = null;
      for (let page = 0; page < MAX_PAGES; page++) {
        const body = await this.http.retrying(() => this.graph.get(account, path, after ? { ...params, after } : params));
        for (const row of Array.isArray(body?.data) ? body.data : []) {
          const id = String(row?.[`${level}_id`] ?? '');
          if (id) rows.set(id, { ...rowInsights(row, digits), reach: Math.round(Number(row.reach ?? 0)) || 0 });
        }
        after = nextAfter(body);
        if (!after) break;
      }
    }
    return perObject(ids, rows);
  }

  /**
   * GET /act_{id}/insights at the query's level: `fields` from AdsInsights (the level's ids and
   * name, spend, impressions, clicks, reach, actions), `time_range`, `time_increment=1` for days,
   * `breakdowns` (age, gender, country, or publisher_platform and platform_position for placements),
   * a `campaign.id` filter when narrowed (one read per slice of ids), every page followed (at most
   * MAX_PAGES per read).
   */
  async report(account: AdAccount, query: ReportQuery): Promise<ReportRow[]> {
    const digits = currencyDigits(account.currency);
    const { level, breakdown } = query;
    const ids = level === 'account' ? [] : ['campaign_id', 'campaign_name'];
    if (level === 'adset' || level === 'ad') ids.push('adset_id', 'adset_name');
    if (level === 'ad') ids.push('ad_id', 'ad_name');
    const base: GraphParams = {
      level,
      fields: [...ids, 'spend', 'impressions', 'clicks', 'reach', 'actions'].join(','),
      time_range: { since: query.window.since, until: query.window.until },
      ...(breakdown === 'day' ? { time_increment: '1' } : {}),
      ...(breakdown && breakdown !== 'day' ? { breakdowns: META_BREAKDOWNS[breakdown] } : {}),
      limit: 500,
    };
    const slices = query.campaignIds ? chunks([...new Set(query.campaignIds)], OBJECT_FILTER_LIMIT) : [null];
    const path = `${account.accountId}/insights`;
    const out: ReportRow[] = [];
    for (const slice of slices) {
      if (slice && !slice.length) continue;
      const params: GraphParams = slice ? { ...base, filtering: [{ field: 'campaign.id', operator: 'IN', value: slice }] } : base;
      let after: string | null = null;
      for (let page = 0; page < MAX_PAGES; page++) {
        const body = await this.http.retrying(() => this.graph.get(account, path, after ? { ...params, after } : params));
        for (const row of Array.isArray(body?.data) ? body.data : []) out.push(metaReportRow(row, level, breakdown, digits));
        after = nextAfter(body);
        if (!after) break;
      }
    }
    return out;
  }

  async createObjects(account: AdAccount, specs: ObjectSpec[]): Promise<ObjectRef[]> {
    const ids: Array<string | undefined> = new Array(specs.length);
    const cityCountry = await this.countriesOfCities(account, specs.flatMap(citiesOf));
    const dsa = await this.dsaFor(account, specs, cityCountry);
    // A parentId naming the marker of an earlier spec waits for that spec's id.
    const parentIndex = specs.map((s, i) => (s.parentId === null ? -1 : specs.findIndex((p, j) => j < i && p.marker === s.parentId)));
    let pending = specs.map((_, i) => i);
    while (pending.length) {
      const ready = pending.filter((i) => parentIndex[i] < 0 || ids[parentIndex[i]] !== undefined);
      for (const part of chunks(ready, BATCH_LIMIT)) {
        const items = part.map((i) => ({ index: i, spec: parentIndex[i] < 0 ? specs[i] : { ...specs[i], parentId: ids[parentIndex[i]]! } }));
        const created = await createExactlyOnce(
          this.http,
          items,
          async (todo) => {
            const requests: BatchRequest[] = todo.map(({ spec }) => ({
              method: 'POST',
              relativeUrl: `${account.accountId}/${EDGES[spec.level]}`,
              params: createParams(withAccount(account, spec, dsa, cityCountry), this.major),
            }));
            return (await this.graph.batch(account, requests)).map((a): CreateOutcome => {
              if (!a.ok) return { error: a.error };
              // An answer without an id leaves the create's fate unknown: reconcile it by marker.
              return a.body?.id ? { id: String(a.body.id) } : { error: new PlatformError('transient', 'The ad platform answered a create without an id.') };
            });
          },
          (todo) => this.findSpecs(account, todo),
        );
        for (const [item, id] of created) {
          ids[item.index] = id;
          // What validateCreates keys its ads' questions by: the ad set's shape (kept a while, for the next level).
          if (item.spec.level === 'adset') {
            if (this.adsetShapes.size > 100_000) this.adsetShapes.clear();
            this.adsetShapes.set(id, shapeOf(createParams(withAccount(account, item.spec, dsa, cityCountry), this.major), '', false));
          }
        }
      }
      pending = pending.filter((i) => ids[i] === undefined);
    }
    return specs.map((s, i) => ({ level: s.level, id: ids[i]! }));
  }

  /** Looks specs up by their markers (findCreated per level), for a create whose answer was lost. */
  private async findSpecs<T extends { spec: ObjectSpec }>(account: AdAccount, items: T[]): Promise<Map<T, string>> {
    const found = new Map<T, string>();
    const levels = [...new Set(items.map((i) => i.spec.level))];
    for (const level of levels) {
      if (level === 'creative') continue;
      const refs = await this.findCreated(
        account,
        level,
        items.filter((i) => i.spec.level === level).map((i) => i.spec.marker),
      );
      for (const item of items) {
        const ref = item.spec.level === level ? refs.get(item.spec.marker) : undefined;
        if (ref) found.set(item, ref.id);
      }
    }
    return found;
  }

  /**
   * Each recorded id read on its own (batches of 50): an object Meta answers as DELETED, or as one
   * whose aliases do not exist (803), is gone. Error 100 subcode 33 is no proof: Meta gives it for an
   * object that does not exist and for one the token may not read ("may occur if your access token is
   * not added as a system user with appropriate permissions", Graph error reference), so, like an answer
   * that failed, it says nothing and the caller looks again.
   */
  async confirmRecorded(account: AdAccount, _level: Exclude<ObjectLevel, 'creative'>, ids: string[]): Promise<Map<string, 'held' | 'gone'>> {
    const unique = [...new Set(ids)];
    const answers = await this.eachInBatches(
      account,
      unique.map((id) => ({ method: 'GET', relativeUrl: id, params: { fields: 'id,status,effective_status' } })),
    );
    const out = new Map<string, 'held' | 'gone'>();
    for (const [i, a] of answers.entries()) {
      if (a.ok) out.set(unique[i], a.body?.status === 'DELETED' || a.body?.effective_status === 'DELETED' ? 'gone' : 'held');
      else if (a.error.kind === 'not_found' && a.error.extra.platformSubcode !== NOT_FOUND_OR_FORBIDDEN) out.set(unique[i], 'gone');
    }
    return out;
  }

  /** Meta needs no list of children: a lost create is found by its label, and deleting a parent deletes what is under it. */
  async childrenOf(): Promise<string[]> {
    return [];
  }

  /**
   * The ids of the ad labels carrying `markers`, from one paged list of the account's labels; a
   * label's id never changes, so what was found once is kept.
   */
  private async labelIds(account: AdAccount, markers: string[]): Promise<Map<string, string>> {
    const known = this.labels.get(account.accountId) ?? new Map<string, string>();
    this.labels.set(account.accountId, known);
    if (markers.some((m) => !known.has(m))) {
      // Labels pile up with every publish: long pages keep this to a call or two.
      for (const label of await this.collect(account, `${account.accountId}/adlabels`, { fields: 'id,name' }, LABEL_PAGE_SIZE)) {
        const marker = markerOfLabel(label?.name);
        if (marker) known.set(marker, String(label.id));
      }
    }
    return new Map(markers.filter((m) => known.has(m)).map((m) => [m, known.get(m)!]));
  }

  /**
   * One list of the account's labels, then the `<level>sbylabels` edge for up to 50 labels a read
   * (the reads batched): a handful of calls for any number of markers. Deleted objects are left out.
   */
  async findCreated(account: AdAccount, level: Exclude<ObjectLevel, 'creative'>, markers: string[]): Promise<Map<string, ObjectRef>> {
    const found = new Map<string, ObjectRef>();
    const labels = await this.labelIds(account, [...new Set(markers)]);
    if (!labels.size) return found;
    const path = `${account.accountId}/${BY_LABELS[level]}`;
    const params = (ids: string[]): GraphParams => ({ ad_label_ids: ids, operator: 'ANY', fields: 'id,status,effective_status,adlabels', limit: 500 });
    const slices = chunks([...labels.values()], LABELS_PER_READ);
    const firstPages = await this.readMany(
      account,
      slices.map((ids) => ({ path, params: params(ids) })),
    );
    const wanted = new Set(labels.keys());
    const take = (body: any) => {
      for (const o of Array.isArray(body?.data) ? body.data : []) {
        if (o?.status === 'DELETED' || o?.effective_status === 'DELETED') continue;
        for (const label of Array.isArray(o?.adlabels) ? o.adlabels : []) {
          const marker = markerOfLabel(label?.name);
          if (marker && wanted.has(marker) && !found.has(marker)) found.set(marker, { level, id: String(o.id) });
        }
      }
    };
    for (const [i, first] of firstPages.entries()) {
      take(first);
      let after = nextAfter(first);
      for (let page = 1; after && page < MAX_PAGES; page++) {
        const body = await this.http.retrying(() => this.graph.get(account, path, { ...params(slices[i]), after }));
        take(body);
        after = nextAfter(body);
      }
    }
    return found;
  }

  /** Countries Meta cannot target: codes that are not ISO 3166-1 alpha-2 (Meta takes every assigned country code). */
  async unknownCountries(_account: AdAccount, countries: string[]): Promise<string[]> {
    const names = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'code' });
    return countries.filter((c) => {
      if (!/^[A-Z]{2}$/.test(c)) return true;
      const name = names.of(c);
      return !name || name === c || name === 'Unknown Region';
    });
  }

  /**
   * An image goes to the account's image library (`adimages`, the bytes in base64) and is referenced by
   * its hash; a video goes to `advideos` (multipart `source`) and is answered once Graph says it is
   * ready, polled at most `videoPolls` times, with the URL of its picture as the ad's thumbnail.
   */
  async uploadCreative(account: AdAccount, file: CreativeFile, progress?: AdapterProgress): Promise<UploadedCreative> {
    if (file.type === 'image') {
      // The same bytes always give the same hash, so a retried upload is harmless.
      const body = await this.http.retrying(() => this.graph.post(account, `${account.accountId}/adimages`, { bytes: file.bytes.toString('base64') }));
      const image = Object.values((body?.images ?? {}) as Record<string, { hash?: string }>)[0];
      if (!image?.hash) throw new PlatformError('transient', 'Meta answered an image upload without a hash.');
      return { ref: String(image.hash), thumbnailRef: null };
    }
    const created = await this.http.retrying(() =>
      this.graph.upload(
        account,
        `${account.accountId}/advideos`,
        { name: file.name },
        { field: 'source', name: file.name, mime: file.mime, bytes: file.bytes },
      ),
    );
    if (!created?.id) throw new PlatformError('transient', 'Meta answered a video upload without an id.');
    const id = String(created.id);
    for (let poll = 1; poll <= this.videoPolls; poll++) {
      const video = await this.http.retrying(() => this.graph.get(account, id, { fields: 'id,status,picture' }));
      const status = String(video?.status?.video_status ?? '');
      if (status === 'ready') return { ref: id, thumbnailRef: video?.picture ? String(video.picture) : null };
      if (status === 'error') throw new PlatformError('invalid_request', `Meta could not process video ${file.name}.`, { field: 'creative' });
      progress?.(`Meta is processing video ${file.name} (${Number(video?.status?.processing_progress ?? 0)}%, check ${poll} of ${this.videoPolls}).`);
      await this.http.wait(this.videoPollMs);
    }
    throw new PlatformError('transient', `Meta is still processing video ${file.name}; publish again shortly.`, { retryAfterMs: this.videoPollMs * 5 });
  }

  async updateObject(account: AdAccount, ref: ObjectRef, changes: { name?: string; settings?: Record<string, unknown> }): Promise<void> {
    const accountNumber = account.accountId.replace(/^act_/, '');
    const current = await this.http.retrying(() => this.graph.get(account, ref.id, { fields: 'id,name,account_id' }));
    if (current?.account_id !== undefined && String(current.account_id) !== accountNumber) {
      throw new PlatformError('not_found', `No object ${ref.id} in ad account ${account.accountId}.`);
    }
    const settings = changes.settings ?? {};
    // A changed creative is sent whole, and a creative always speaks as a page.
    const params = updateParams(ref.level, ref.level === 'ad' && hasCreativeSettings(settings) ? speakingAs(account, settings) : settings, this.major);
    if (changes.name !== undefined) params.name = changes.name;
    if (!Object.keys(params).length) return;
    await this.http.retrying(() => this.graph.post(account, ref.id, params));
  }

  async setStatus(account: AdAccount, refs: ObjectRef[], status: 'ACTIVE' | 'PAUSED'): Promise<void> {
    if (!refs.length) return;
    await this.ensureOwned(account, refs);
    await this.writeMany(
      account,
      refs.map((r) => ({ method: 'POST', relativeUrl: r.id, params: { status } })),
    );
  }

  async setStatusEach(account: AdAccount, refs: ObjectRef[], status: 'ACTIVE' | 'PAUSED'): Promise<Array<PlatformError | null>> {
    const out: Array<PlatformError | null> = refs.map(() => null);
    const accountNumber = account.accountId.replace(/^act_/, '');
    // Each object checked on its own (an unknown one fails alone), then each changed on its own.
    const checks = await this.eachInBatches(
      account,
      refs.map((r) => ({ method: 'GET', relativeUrl: r.id, params: { fields: 'id,account_id' } })),
    );
    const owned: number[] = [];
    for (const [i, a] of checks.entries()) {
      if (!a.ok) out[i] = lookupFailure(a.error, refs[i].id, account.accountId);
      else if (a.body?.account_id !== undefined && String(a.body.account_id) !== accountNumber)
        out[i] = new PlatformError('not_found', `No object ${refs[i].id} in ad account ${account.accountId}.`);
      else owned.push(i);
    }
    const writes = await this.eachInBatches(
      account,
      owned.map((i) => ({ method: 'POST', relativeUrl: refs[i].id, params: { status } })),
    );
    for (const [k, a] of writes.entries()) if (!a.ok) out[owned[k]] = lookupFailure(a.error, refs[owned[k]].id, account.accountId);
    return out;
  }

  async setBudget(account: AdAccount, ref: ObjectRef, budget: Budget): Promise<void> {
    if (ref.level !== 'campaign' && ref.level !== 'adset') throw unsupportedLevel('meta', ref.level, 'hold a budget');
    await this.ensureOwned(account, [ref]);
    await this.http.retrying(() => this.graph.post(account, ref.id, budgetChange(budget)));
  }

  async deleteObjects(account: AdAccount, refs: ObjectRef[]): Promise<void> {
    if (!refs.length) return;
    await this.ensureOwned(account, refs);
    await this.writeMany(
      account,
      refs.map((r) => ({ method: 'DELETE', relativeUrl: r.id })),
    );
  }
}
