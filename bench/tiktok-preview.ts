// What a live TikTok preview costs: a draft 1 campaign x 50 ad sets x 10 ads on a TikTok ad account
// (PLATFORM_MODE=live against the fake TikTok, 20 ms added to every answer), previewed (launch-campaign
// without confirm) RUNS times, its ads linking to one page or to one page per ad set. Counted per preview:
// round trips to TikTok (the fake's request log), of which /tool/url_validate/ questions (one per distinct
// landing page, four at a time) and region reads (kept per advertiser, so only the first preview reads);
// timed: the preview's wall time and the URL questions' own time at the fake (their answers summed).

import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Dialect } from '../src/db/connection.js';
import { FakeTikTokServer } from '../test/fakes/tiktok-server.js';
import { BrandClient, mapLimit } from '../test/helpers/launches.js';
import { exampleWorld, adProps } from '../test/helpers/example-world.js';
import { availableDialects, dialectLabel, median, progress, startBenchService, type Benchmark, type BenchmarkOutput, type ResultRow } from './lib.js';

const AD_SETS = 50;
const ADS_PER_SET = 10;
const DELAY_MS = 20;
const RUNS = 3;
const ADVERTISER = '7000000000000000001';
/** Distinct landing pages of the launch's ads: one for all of them, or one per ad set. */
const SHAPES = [1, AD_SETS];

/** The example world with its brand on a TikTok ad account holding `token`. */
function tiktokWorld(token: string): unknown {
  const world = exampleWorld(1_000_000);
  (world.organizations[0].brands[0] as { adAccounts: unknown[] }).adAccounts = [
    {
      platform: 'tiktok',
      accountId: `biz_${ADVERTISER}`,
      name: 'Tok US',
      timezone: 'UTC',
      currency: 'USD',
      accessToken: token,
      identityId: '7000000000000009999',
      identityType: 'CUSTOMIZED_USER',
    },
  ];
  return world;
}

/** A draft launch of one TikTok traffic campaign, AD_SETS ad sets (image ads outside the in-feed placement) and ADS_PER_SET ads each. */
async function buildTikTokLaunch(client: BrandClient, creativeId: number, pages: number): Promise<string> {
  const created = (reply: { status: number; body: any }, what: string): string => {
    if (reply.status !== 201) throw new Error(`creating ${what} answered ${reply.status}: ${JSON.stringify(reply.body).slice(0, 500)}`);
    return String(reply.body.id);
  };
  const launchId = created(await client.api('POST', '/launches', { title: `TikTok preview, ${pages} pages` }), 'a launch');
  const node = (nodeType: string, parentId: string | null, properties: Record<string, unknown>) =>
    client.api('POST', `/launches/${launchId}/nodes`, { nodeType, ...(parentId ? { parentId } : {}), properties });
  const campaignId = created(
    await node('campaign', null, { name: 'Spring - US', objective: 'TRAFFIC', budget: { dailyAmount: AD_SETS * 2000 } }),
    'the campaign',
  );
  const adsetIds = await mapLimit(
    Array.from({ length: AD_SETS }, (_, i) => i),
    10,
    async (i) =>
      created(
        await node('adset', campaignId, {
          name: `US #${i + 1}`,
          optimizationGoal: 'CLICK',
          targeting: { countries: ['US'] },
          placements: { positions: ['PLACEMENT_PANGLE'] },
          schedule: { startTime: '2030-01-01T00:00:00Z' },
        }),
        `ad set ${i + 1}`,
      ),
  );
  const ads = adsetIds.flatMap((s, i) => Array.from({ length: ADS_PER_SET }, (_, j) => ({ s, i, j })));
  await mapLimit(ads, 10, async ({ s, i, j }) =>
    created(
      await node('ad', s, { ...adProps, name: `Hero ${i + 1}.${j + 1}`, creativeId, linkUrl: `https://shop.example.com/spring/${i % pages}` }),
      `ad ${i + 1}.${j + 1}`,
    ),
  );
  return launchId;
}

interface PreviewRun {
  wallMs: number;
  roundTrips: number;
  urlQuestions: number;
  regionReads: number;
  /** The URL questions' answers at the fake, summed (ms; they go four at a time, so the wall they add is less). */
  urlMs: number;
}

async function previews(dialect: Dialect): Promise<Map<number, PreviewRun[]>> {
  const label = `tiktok preview/${dialectLabel(dialect)}: `;
  const creativesDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-creatives-'));
  const fake = await FakeTikTokServer.start();
  fake.delayMs = DELAY_MS;
  let svc: Awaited<ReturnType<typeof startBenchService>> | null = null;
  try {
    progress(`${label}migrating and bootstrapping a fresh database`);
    svc = await startBenchService(dialect, {
      bootstrap: tiktokWorld(fake.addAdvertiser(ADVERTISER)),
      env: { PLATFORM_MODE: 'live', TIKTOK_API_URL: fake.url, CREATIVES_DIR: creativesDir },
    });
    const client = new BrandClient(svc.url, svc.key, svc.seed.organizations.acme.brands.shoes.id);
    const creativeId = await client.uploadCreative();
    const out = new Map<number, PreviewRun[]>();
    for (const pages of SHAPES) {
      progress(`${label}building a draft of ${1 + AD_SETS + AD_SETS * ADS_PER_SET} objects whose ads link to ${pages} page(s)`);
      const launchId = await buildTikTokLaunch(client, creativeId, pages);
      const runs: PreviewRun[] = [];
      for (let i = 0; i < RUNS; i++) {
        const before = fake.requests.length;
        const started = process.hrtime.bigint();
        const reply = await client.api('POST', `/launches/${launchId}/publish`, {}, { 'Idempotency-Key': `bench-${crypto.randomBytes(6).toString('hex')}` });
        const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
        if (reply.status !== 200 || reply.body?.valid !== true)
          throw new Error(`${label}preview answered ${reply.status}: ${JSON.stringify(reply.body).slice(0, 500)}`);
        const during = fake.requests.map((r, k) => ({ r, k })).slice(before);
        const asked = during.filter(({ r }) => r.path.endsWith('/tool/url_validate/'));
        runs.push({
          wallMs,
          roundTrips: during.length,
          urlQuestions: asked.length,
          regionReads: during.filter(({ r }) => r.path.endsWith('/tool/region/')).length,
          urlMs: asked.reduce((sum, { k }) => sum + (fake.answerMs[k] ?? 0), 0),
        });
      }
      out.set(pages, runs);
    }
    return out;
  } finally {
    await svc?.close().catch((err) => progress(`${label}closing the service failed: ${(err as Error).message}`));
    await fake.close();
    fs.rmSync(creativesDir, { recursive: true, force: true });
  }
}

export const benchmark: Benchmark = {
  name: 'tiktok preview 1x50x10',
  order: 21,
  async run(): Promise<BenchmarkOutput> {
    const { dialects, notes } = await availableDialects();
    const savedKey = process.env.TOKEN_ENCRYPTION_KEY;
    if (!savedKey) process.env.TOKEN_ENCRYPTION_KEY = crypto.randomBytes(32).toString('base64');
    const rows: ResultRow[] = [];
    notes.push(
      `tiktok preview: a draft of 1 campaign x ${AD_SETS} ad sets x ${ADS_PER_SET} ads, ${RUNS} previews per shape; fake TikTok with ${DELAY_MS} ms per answer.`,
    );
    try {
      for (const dialect of dialects) {
        for (const [pages, runs] of await previews(dialect)) {
          const walls = runs.map((r) => r.wallMs);
          rows.push({
            benchmark: this.name,
            dialect,
            target: `preview, ${pages} landing page(s)`,
            rps: 1000 / median(walls),
            p50: median(walls),
            p99: Math.max(...walls),
            cpuUsPerRequest: Number.NaN,
            failures: 0,
          });
          const fmt = (xs: number[]) => xs.map((x) => x.toFixed(0)).join(' / ');
          notes.push(
            `tiktok preview ${dialectLabel(dialect)}, ads on ${pages} page(s): ${fmt(walls)} ms wall, ${fmt(runs.map((r) => r.roundTrips))} round trips to TikTok, ` +
              `of which ${fmt(runs.map((r) => r.urlQuestions))} /tool/url_validate/ and ${fmt(runs.map((r) => r.regionReads))} /tool/region/; ` +
              `the URL questions' answers ${fmt(runs.map((r) => r.urlMs))} ms at the fake, summed (${DELAY_MS} ms delay each included)`,
          );
        }
      }
    } finally {
      if (!savedKey) delete process.env.TOKEN_ENCRYPTION_KEY;
    }
    return { rows, notes };
  },
};

if (process.argv[1] && import.meta.url === `file://${process.argv[1]}`) {
  const { rows, notes } = await benchmark.run();
  for (const r of rows) console.log(`${r.target} (${dialectLabel(r.dialect)}): median ${r.p50.toFixed(0)} ms, slowest ${r.p99.toFixed(0)} ms`);
  for (const n of notes) console.log(n);
}
