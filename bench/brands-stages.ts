// Where the time of GET /v1/brands goes: the same answer served by servers that each add one more
// piece of the service, loaded in turn (three interleaved rounds, medians), on MariaDB when it
// answers (SQLite otherwise):
//   bare            node:http writing the bytes
//   koa+headers     Koa with the contract's headers (Service-Request-Id, RateLimit-*)
//   +authenticate   ... after Service.authenticate of the request's key
//   +invoke         ... after Service.invoke('list-brands') too (rate limit, scope, validation,
//                   the operation, output shaping, the 30 s budget), without routing
//   svc             the service itself: routing, REST translation, the same pipeline
// The pieces are the service's own public entry points, so nothing here is a stand-in.

import { fetchBrands, BRANDS_PATH } from './brands.js';
import {
  availableDialects,
  dialectLabel,
  failuresOf,
  loadTest,
  median,
  progress,
  startBareServer,
  startBenchService,
  startKoaFloorServer,
  type BareServer,
  type Benchmark,
  type BenchmarkOutput,
  type LoadOptions,
  type LoadResult,
  type ResultRow,
} from './lib.js';

const LOAD: LoadOptions = { connections: 10, durationSec: 2.5, warmupSec: 0.5 };
const ROUNDS = 3;

export const benchmark: Benchmark = {
  name: 'GET /v1/brands by stage',
  order: 1,
  async run(): Promise<BenchmarkOutput> {
    const { dialects } = await availableDialects();
    const dialect = dialects.includes('mysql') ? 'mysql' : 'sqlite';
    progress(`brands by stage on ${dialectLabel(dialect)}: ${ROUNDS} rounds of 5 servers, ${LOAD.warmupSec}s + ${LOAD.durationSec}s each`);
    const svc = await startBenchService(dialect);
    const servers: Array<[string, BareServer]> = [];
    try {
      const { body, contentType } = await fetchBrands(svc.url, svc.key);
      const service = svc.service;
      servers.push(
        ['bare', await startBareServer(body, contentType)],
        ['koa+headers', await startKoaFloorServer(body, contentType)],
        ['+authenticate', await startKoaFloorServer(body, contentType, (authorization) => service.authenticate(authorization, 'api'))],
        [
          '+invoke',
          await startKoaFloorServer(body, contentType, async (authorization, requestId) => {
            const principal = await service.authenticate(authorization, 'api');
            return service.invoke('list-brands', principal, {}, { requestId, meta: {} });
          }),
        ],
        ['svc', { url: svc.url, close: async () => {} }],
      );
      const results = new Map<string, LoadResult[]>(servers.map(([name]) => [name, []]));
      for (let round = 1; round <= ROUNDS; round++) {
        for (const [name, server] of servers) {
          progress(`brands by stage: round ${round}/${ROUNDS}, ${name}`);
          results.get(name)!.push(await loadTest(server.url + BRANDS_PATH, { authorization: `Bearer ${svc.key}` }, LOAD));
        }
      }
      const rows: ResultRow[] = [];
      const cpu = new Map<string, number>();
      const bareRps = median(results.get('bare')!.map((r) => r.rps));
      for (const [name] of servers) {
        const runs = results.get(name)!;
        const rps = median(runs.map((r) => r.rps));
        cpu.set(name, median(runs.map((r) => r.cpuUsPerRequest)));
        rows.push({
          benchmark: this.name,
          dialect,
          target: name,
          rps,
          p50: median(runs.map((r) => r.p50)),
          p99: median(runs.map((r) => r.p99)),
          cpuUsPerRequest: cpu.get(name)!,
          ratio: name === 'bare' ? undefined : rps / bareRps,
          failures: runs.reduce((n, r) => n + failuresOf(r), 0),
        });
      }
      const step = (from: string, to: string) => (cpu.get(to)! - cpu.get(from)!).toFixed(1);
      const notes = [
        `brands by stage (${dialectLabel(dialect)}, medians of ${ROUNDS} rounds, CPU per request on the server thread): ` +
          `Koa and the contract's headers add ${step('bare', 'koa+headers')} µs to bare node:http; authentication ${step('koa+headers', '+authenticate')} µs; ` +
          `the pipeline (rate limit, scope, validation, the operation, output shaping, budget) ${step('+authenticate', '+invoke')} µs; ` +
          `routing and REST translation ${step('+invoke', 'svc')} µs.`,
      ];
      return { rows, notes };
    } finally {
      for (const [name, server] of servers) if (name !== 'svc') await server.close();
      await svc.close();
    }
  },
};
