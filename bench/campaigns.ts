// GET /v1/brands/{brandId}/ad-accounts/act_1001/campaigns (list-campaigns) on an ad account holding
// 10,000 sandbox campaigns, page size 50, beside GET /v1/brands measured in the same run, on SQLite
// and (when it answers) MariaDB:
//   - uncached (METRICS_CACHE_SECONDS=0): the first page (no cursor) and page 150 of 200 (the exact
//     URL reached by following nextCursor from the first page);
//   - cached (default METRICS_CACHE_SECONDS): GET /v1/brands, then the same first-page URL once warm.
// Targets: deep p50 <= 1.5 x first p50, and cached-page p50 <= 2 x GET /v1/brands p50.
// The load runs are shorter than the brands benchmark's (CAMPAIGN_LOAD) to keep `npm run bench` short.

import type { Dialect } from '../src/db/connection.js';
import { measureBrands } from './brands.js';
import {
  availableDialects,
  benchWorld,
  dialectLabel,
  loadTest,
  failuresOf,
  progress,
  resultRow,
  startBenchService,
  type BenchService,
  type Benchmark,
  type BenchmarkOutput,
  type LoadOptions,
  type LoadResult,
  type ResultRow,
} from './lib.js';

export const CAMPAIGN_COUNT = 10_000;
export const PAGE_SIZE = 50;
/** 1-based page number of the deep page: 150 of 200. */
export const DEEP_PAGE = 150;
export const DEEP_RATIO_TARGET = 1.5;
export const CACHED_RATIO_TARGET = 2;
const ACCOUNT = 'act_1001';
const BRAND_REF = 'b1';

/** Shorter than `defaultLoad` (1.5 s + 5 s): four rows per dialect. */
export const CAMPAIGN_LOAD: LoadOptions = { connections: 10, durationSec: 3, warmupSec: 1 };

const NAME_WORDS = [
  'Spring Sale',
  'Summer Drop',
  'Black Friday',
  'Retargeting',
  'Prospecting',
  'Brand Lift',
  'Lookalike 1%',
  'Catalog',
  'Video Views',
  'Lead Gen',
];
const REGIONS = ['US', 'CA', 'UK', 'DE', 'FR', 'ES', 'IT', 'AU'];
const STATUSES = ['ACTIVE', 'PAUSED', 'ARCHIVED'] as const;
const OBJECTIVES = ['OUTCOME_TRAFFIC', 'OUTCOME_SALES', 'OUTCOME_LEADS', 'OUTCOME_AWARENESS', 'OUTCOME_ENGAGEMENT'];

/** 10,000 campaigns with varied names, statuses, objectives and budgets (deterministic). */
export function sandboxCampaigns(accountId: string, count = CAMPAIGN_COUNT): Array<Record<string, unknown>> {
  let seed = 0x2f6b_1e37;
  const rand = (n: number) => {
    seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0;
    return (seed >>> 8) % n;
  };
  return Array.from({ length: count }, (_, i) => {
    const budgetKind = rand(3);
    return {
      accountId,
      id: `1202${String(1_000_000_000 + i).padStart(13, '0')}`,
      name: `${NAME_WORDS[rand(NAME_WORDS.length)]} – ${REGIONS[rand(REGIONS.length)]} #${String(i + 1).padStart(5, '0')}`,
      status: STATUSES[rand(STATUSES.length)],
      objective: OBJECTIVES[rand(OBJECTIVES.length)],
      budget: budgetKind === 0 ? null : { period: budgetKind === 1 ? 'daily' : 'lifetime', amountMinorUnits: 500 + rand(500_000) },
    };
  });
}

/** The brands benchmark's world, with the campaigns loaded into brand b1's meta account act_1001. */
function campaignWorld(): typeof benchWorld {
  const world = structuredClone(benchWorld);
  const brand = world.organizations[0].brands.find((b) => b.ref === BRAND_REF)!;
  Object.assign(brand, { sandbox: { campaigns: sandboxCampaigns(ACCOUNT) } });
  return world;
}

interface CampaignsAnswer {
  asOf: string;
  campaigns: Array<{ id: string }>;
  totalInAccount: number;
  nextCursor: string | null;
}

async function getPage(url: string, key: string): Promise<CampaignsAnswer> {
  const res = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`GET ${url} answered ${res.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text) as CampaignsAnswer;
}

function firstPageUrl(svc: BenchService): string {
  const brandId = svc.seed.organizations.bench.brands[BRAND_REF].id;
  return `${svc.url}/v1/brands/${brandId}/ad-accounts/${ACCOUNT}/campaigns?limit=${PAGE_SIZE}`;
}

/** Follows nextCursor from the first page to page DEEP_PAGE, checking each page; returns that page's exact URL. */
async function deepPageUrl(svc: BenchService): Promise<string> {
  const first = firstPageUrl(svc);
  let url = first;
  let page = await getPage(url, svc.key);
  if (page.totalInAccount !== CAMPAIGN_COUNT) throw new Error(`totalInAccount is ${page.totalInAccount}, expected ${CAMPAIGN_COUNT}`);
  for (let n = 1; n < DEEP_PAGE; n++) {
    if (page.campaigns.length !== PAGE_SIZE || !page.nextCursor)
      throw new Error(`page ${n} has ${page.campaigns.length} campaigns and nextCursor ${page.nextCursor}`);
    url = `${first}&cursor=${encodeURIComponent(page.nextCursor)}`;
    page = await getPage(url, svc.key);
  }
  // Campaigns come newest first (highest sandbox row id), so page 150 starts at campaign 10,000 - 149 * 50.
  const expected = `1202${String(1_000_000_000 + CAMPAIGN_COUNT - 1 - (DEEP_PAGE - 1) * PAGE_SIZE).padStart(13, '0')}`;
  if (page.campaigns.length !== PAGE_SIZE || page.campaigns[0].id !== expected) {
    throw new Error(`page ${DEEP_PAGE} starts at ${page.campaigns[0]?.id} with ${page.campaigns.length} campaigns; expected ${expected} with ${PAGE_SIZE}`);
  }
  return url;
}

/**
 * Waits until the service's database pool has been idle for a moment (at most 20 s). When a load run
 * ends, requests the load generator abandoned are still queued for a connection; closing the service
 * under them would only print knex "Acquire connection error" noise.
 */
async function settle(svc: BenchService): Promise<void> {
  const pool = (svc.service.knex.client as { pool?: { numUsed(): number; numPendingAcquires(): number } }).pool;
  if (!pool) return;
  const deadline = Date.now() + 20_000;
  let idleSince = Date.now();
  while (Date.now() < deadline) {
    if (pool.numUsed() + pool.numPendingAcquires() > 0) idleSince = Date.now();
    else if (Date.now() - idleSince >= 250) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

function describe(options: LoadOptions): string {
  return `${options.warmupSec}s warm-up + ${options.durationSec}s, ${options.connections} connections`;
}

interface CampaignFigures {
  first: LoadResult;
  deep: LoadResult;
  brands: LoadResult;
  cached: LoadResult;
}

export async function campaignsOnDialect(dialect: Dialect, options: LoadOptions = CAMPAIGN_LOAD): Promise<CampaignFigures> {
  const label = `campaigns/${dialectLabel(dialect)}: `;
  const world = campaignWorld();
  const auth = (svc: BenchService) => ({ authorization: `Bearer ${svc.key}` });

  progress(`${label}uncached service (METRICS_CACHE_SECONDS=0): migrating and bootstrapping ${CAMPAIGN_COUNT} sandbox campaigns`);
  let first: LoadResult;
  let deep: LoadResult;
  const uncached = await startBenchService(dialect, { env: { METRICS_CACHE_SECONDS: '0' }, bootstrap: world });
  try {
    const deepUrl = await deepPageUrl(uncached);
    progress(`${label}first page, uncached: ${describe(options)}`);
    first = await loadTest(firstPageUrl(uncached), auth(uncached), options);
    await settle(uncached);
    progress(`${label}page ${DEEP_PAGE} of ${CAMPAIGN_COUNT / PAGE_SIZE}, uncached: ${describe(options)}`);
    deep = await loadTest(deepUrl, auth(uncached), options);
    await settle(uncached);
  } finally {
    await uncached.close();
  }

  progress(`${label}cached service (default METRICS_CACHE_SECONDS): migrating and bootstrapping ${CAMPAIGN_COUNT} sandbox campaigns`);
  const cachedSvc = await startBenchService(dialect, { bootstrap: world });
  try {
    progress(`${label}GET /v1/brands: ${describe(options)}`);
    const brands = await measureBrands(cachedSvc.url, cachedSvc.key, options);
    const url = firstPageUrl(cachedSvc);
    const warm = await getPage(url, cachedSvc.key);
    const again = await getPage(url, cachedSvc.key);
    if (again.asOf !== warm.asOf) throw new Error('the first page is not served from the metrics cache (asOf moved between two reads)');
    progress(`${label}first page, cached: ${describe(options)}`);
    const cached = await loadTest(url, auth(cachedSvc), options);
    await settle(cachedSvc);
    return { first, deep, brands, cached };
  } finally {
    await cachedSvc.close();
  }
}

export const benchmark: Benchmark = {
  name: 'list-campaigns 10k',
  order: 10,
  async run(): Promise<BenchmarkOutput> {
    // The brands benchmark already prints why a dialect was skipped.
    const { dialects, notes: skipped } = await availableDialects();
    for (const n of skipped) progress(n);
    const notes: string[] = [];
    notes.push(
      `list-campaigns: ${CAMPAIGN_COUNT} sandbox campaigns on ${ACCOUNT}, limit=${PAGE_SIZE}; deep = page ${DEEP_PAGE} of ${CAMPAIGN_COUNT / PAGE_SIZE} ` +
        `(cursor followed from the first page); shorter load runs than the brands rows: ${describe(CAMPAIGN_LOAD)}.`,
    );
    const rows: ResultRow[] = [];
    for (const dialect of dialects) {
      const f = await campaignsOnDialect(dialect);
      const measured: Array<[string, LoadResult]> = [
        ['page 1 uncached', f.first],
        [`page ${DEEP_PAGE} uncached`, f.deep],
        ['GET /v1/brands', f.brands],
        ['page 1 cached', f.cached],
      ];
      for (const [target, r] of measured) {
        rows.push(resultRow(this.name, dialect, target, r));
        if (failuresOf(r) > 0) {
          notes.push(
            `WARNING ${dialectLabel(dialect)} ${target}: ${r.non2xx} non-2xx, ${r.errors} errors, ${r.timeouts} timeouts out of ${r.total}; its figures are suspect.`,
          );
        }
      }
      const db = dialectLabel(dialect);
      const verdict = (what: string, a: LoadResult, b: LoadResult, target: number) => {
        const ratio = a.p50 / b.p50;
        const cpu = a.cpuUsPerRequest / b.cpuUsPerRequest;
        return (
          `list-campaigns ${db}: ${what} p50 = ${a.p50.toFixed(2)}/${b.p50.toFixed(2)} ms = ${ratio.toFixed(2)} (target <= ${target}): ${ratio <= target ? 'MET' : 'NOT MET'}` +
          (Number.isFinite(cpu) ? `; cpu us/req ratio ${cpu.toFixed(2)}` : '')
        );
      };
      notes.push(
        verdict(`deep/first (page ${DEEP_PAGE}/page 1, uncached)`, f.deep, f.first, DEEP_RATIO_TARGET),
        verdict('cached page 1/GET /v1/brands', f.cached, f.brands, CACHED_RATIO_TARGET),
      );
    }
    if (!dialects.includes('mysql')) notes.push('list-campaigns mariadb: targets not measured (MariaDB skipped)');
    return { rows, notes };
  },
};
