// The console's pages on the demo data (what `npm start` seeds, its waiting review included), signed
// in as the demo owner: each page's median answer time over sequential requests, beside GET /v1/brands,
// beside the main REST read the page is built from, and beside all the REST reads it is built from
// (the operations the page invoked, recorded in this process, each asked over REST with the owner's
// key: their medians summed), on SQLite and (when it answers) MariaDB. Targets: each page under 200 ms
// at the median, and within 3x of the REST reads it is built from.

import http from 'node:http';
import { pathToFileURL } from 'node:url';
import { pino } from 'pino';
import { loadConfig } from '../src/config.js';
import { openDatabase, type Dialect } from '../src/db/connection.js';
import { migrateLatest } from '../src/db/migrate.js';
import { SchemaRegistry, loadSchemaFiles } from '../src/schemas/registry.js';
import { Service } from '../src/service.js';
import { seedDemoIfEmpty, seedDemoReview, type DemoSeed } from '../src/demo.js';
import { startHttpServer } from '../surfaces/http-server.js';
import { availableDialects, benchEnv, createBenchDatabase, dialectLabel, progress, type Benchmark, type BenchmarkOutput, type ResultRow } from './lib.js';

const WARMUP = 5;
const RUNS = 41;
const PAGE_TARGET_MS = 200;
const RATIO_TARGET = 3;

/** A console page and the REST read it is built from (the main one, when it makes several). */
const pages = (brandId: number, launchId: string): Array<{ name: string; page: string; rest: string }> => {
  const b = `/v1/brands/${brandId}`;
  const query = 'accountId=act_1001&level=campaign&datePreset=last_7d';
  return [
    { name: 'brands', page: '/console', rest: '/v1/brands' },
    { name: 'overview', page: `/console/brands/${brandId}`, rest: `${b}/ad-accounts/act_1001/overview?datePreset=today` },
    { name: 'launches', page: `/console/brands/${brandId}/launches`, rest: `${b}/launches` },
    { name: 'launch', page: `/console/brands/${brandId}/launches/${launchId}`, rest: `${b}/launches/${launchId}` },
    { name: 'reviews', page: `/console/brands/${brandId}/reviews`, rest: `${b}/workflow-reviews` },
    { name: 'board', page: `/console/brands/${brandId}/board`, rest: `${b}/pipeline` },
    { name: 'reports', page: `/console/brands/${brandId}/reports?${query}`, rest: `${b}/ad-accounts/act_1001/insights?level=campaign&datePreset=last_7d` },
    {
      name: 'reports csv',
      page: `/console/brands/${brandId}/reports?${query}&format=csv`,
      rest: `${b}/ad-accounts/act_1001/insights?level=campaign&datePreset=last_7d`,
    },
    { name: 'automations', page: `/console/brands/${brandId}/automations`, rest: `${b}/automations` },
    { name: 'activity', page: `/console/brands/${brandId}/activity`, rest: `${b}/activity` },
  ];
};

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

/** One GET; answers its time in ms, throwing unless it is a 200. */
function timedGet(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = http.get(url, { agent, headers }, (res) => {
      res.resume();
      res.on('end', () => {
        if (res.statusCode !== 200) reject(new Error(`GET ${url} answered ${res.statusCode}`));
        else resolve(performance.now() - started);
      });
    });
    req.on('error', reject);
  });
}

/** The REST path (and query) of a read operation called with `input`, as a client would ask it. */
function restPathOf(ops: Array<{ name: string; method: string; path: string }>, name: string, input: Record<string, unknown>): string {
  const op = ops.find((o) => o.name === name);
  if (!op || op.method !== 'GET') throw new Error(`the console invoked ${name}, which is not a REST read`);
  const rest = { ...input };
  const path = op.path.replace(/\{(\w+)\}/g, (_, k: string) => {
    const v = rest[k];
    delete rest[k];
    return encodeURIComponent(String(v));
  });
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(rest)) for (const one of Array.isArray(v) ? v : [v]) if (one !== undefined && one !== null) query.append(k, String(one));
  return `/v1${path}${query.size ? `?${query}` : ''}`;
}

interface Timing {
  p50: number;
  p99: number;
}

/** Sequential requests, after a warm-up: the median and the highest but one (p99 of few runs is rough). */
async function time(url: string, headers: Record<string, string>): Promise<Timing> {
  for (let i = 0; i < WARMUP; i++) await timedGet(url, headers);
  const xs: number[] = [];
  for (let i = 0; i < RUNS; i++) xs.push(await timedGet(url, headers));
  xs.sort((a, b) => a - b);
  return { p50: xs[Math.floor(xs.length / 2)], p99: xs[Math.min(xs.length - 1, Math.ceil(xs.length * 0.99) - 1)] };
}

const row = (benchmark: string, dialect: Dialect, target: string, t: Timing): ResultRow => ({
  benchmark,
  dialect,
  target,
  rps: 1000 / t.p50,
  p50: t.p50,
  p99: t.p99,
  cpuUsPerRequest: NaN,
  failures: 0,
});

/** The demo on a fresh database, as `npm start` seeds it, served in this process; the run waits at its gate. */
async function startDemo(dialect: Dialect) {
  const db = await createBenchDatabase(dialect);
  const env = { ...benchEnv, DATABASE_URL: db.url };
  const setup = openDatabase(db.url);
  let seed: DemoSeed;
  try {
    await migrateLatest(setup.knex);
    seed = (await seedDemoIfEmpty(setup.knex, new SchemaRegistry(loadSchemaFiles())))!;
  } finally {
    await setup.knex.destroy();
  }
  const config = loadConfig(env);
  const service = await Service.open({ config, log: pino({ level: 'silent' }) });
  // What a console page invokes, recorded here so the same reads can be asked over REST.
  const recorded: Array<{ name: string; input: Record<string, unknown> }> = [];
  const invoke = service.invoke.bind(service);
  service.invoke = (name, principal, input, options) => {
    if (options.surface === 'console') recorded.push({ name, input });
    return invoke(name, principal, input, options);
  };
  const review = await seedDemoReview(service, seed);
  const server = await startHttpServer(service, 0, '127.0.0.1');
  await service.startJobs();
  return {
    url: server.url,
    seed,
    review,
    recorded,
    catalogue: service.catalogue,
    close: async () => {
      await server.close(1_000);
      await service.stopJobs(1_000);
      await service.close();
      await db.drop();
    },
  };
}

async function signIn(url: string, email: string, password: string): Promise<string> {
  // The sign-in form first: its token is bound to the cookie it sets.
  const page = await fetch(`${url}/oauth/login`, { redirect: 'manual' });
  const token = /name="signin_token" value="([^"]+)"/.exec(await page.text())?.[1] ?? '';
  const formCookie =
    page.headers
      .getSetCookie()
      .find((c) => c.startsWith('svc_signin='))
      ?.split(';')[0] ?? '';
  const res = await fetch(`${url}/oauth/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: formCookie },
    body: new URLSearchParams({ email, password, return_to: '/console', signin_token: token }),
  });
  const cookie = res.headers
    .getSetCookie()
    .find((c) => c.startsWith('svc_session='))
    ?.split(';')[0];
  if (res.status !== 302 || !cookie) throw new Error(`sign-in answered ${res.status}`);
  return cookie;
}

export const benchmark: Benchmark = {
  name: 'console pages',
  order: 60,
  async run(): Promise<BenchmarkOutput> {
    const rows: ResultRow[] = [];
    const { dialects, notes } = await availableDialects();
    for (const dialect of dialects) {
      progress(`console: the demo on ${dialectLabel(dialect)}`);
      const demo = await startDemo(dialect);
      try {
        const cookie = await signIn(demo.url, demo.seed.ownerEmail, demo.seed.ownerPassword);
        const key = { authorization: `Bearer ${demo.seed.apiKey}` };
        // The run reaches its review gate in the background.
        for (let i = 0; i < 100; i++) {
          const r = await fetch(`${demo.url}/v1/brands/${demo.seed.brandId}/workflow-reviews`, { headers: key });
          if (((await r.json()) as { reviews: unknown[] }).reviews.length) break;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        const brands = await time(`${demo.url}/v1/brands`, key);
        rows.push(row('GET /v1/brands', dialect, 'rest', brands));
        for (const p of pages(demo.seed.brandId, demo.review.launchId)) {
          progress(`console: ${p.name} (${RUNS} requests after ${WARMUP})`);
          demo.recorded.length = 0;
          await timedGet(demo.url + p.page, { cookie });
          const reads = demo.recorded.map((c) => restPathOf(demo.catalogue.list(), c.name, c.input));
          const page = await time(demo.url + p.page, { cookie });
          const rest = await time(demo.url + p.rest, key);
          let all = 0;
          for (const path of reads) all += (await time(demo.url + path, key)).p50;
          rows.push(row(`console ${p.name}`, dialect, 'page', page), row(`console ${p.name}`, dialect, 'rest read', rest));
          const ratio = page.p50 / all;
          notes.push(
            `${dialectLabel(dialect)} ${p.name}: page p50 ${page.p50.toFixed(1)} ms (${page.p50 < PAGE_TARGET_MS ? 'under' : 'NOT under'} ${PAGE_TARGET_MS} ms), ` +
              `${ratio.toFixed(2)}x the ${reads.length} REST reads it is built from (${all.toFixed(1)} ms in all; target within ${RATIO_TARGET}x: ${ratio <= RATIO_TARGET ? 'met' : 'NOT met'}), ` +
              `${(page.p50 / rest.p50).toFixed(2)}x its main read ${p.rest.replace(/\?.*/, '')} (${rest.p50.toFixed(1)} ms), ${(page.p50 / brands.p50).toFixed(1)}x GET /v1/brands (${brands.p50.toFixed(1)} ms)`,
          );
        }
      } finally {
        await demo.close();
      }
    }
    notes.push("Compare the figures of one run with each other only: the host's load moves them all.");
    return { rows, notes };
  },
};

// `node dist/bench/console.js` runs this benchmark alone.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const out = await benchmark.run();
  for (const r of out.rows)
    process.stdout.write(
      `${r.benchmark.padEnd(22)} ${dialectLabel(r.dialect).padEnd(8)} ${r.target.padEnd(10)} p50 ${r.p50.toFixed(1).padStart(7)} ms  p99 ${r.p99.toFixed(1).padStart(7)} ms\n`,
    );
  for (const n of out.notes) process.stdout.write(`${n}\n`);
}
