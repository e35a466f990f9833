// Memory of accepted uploads (paths.md "Limits": an accepted upload streams to the creatives storage
// while it is hashed and checked): a spawned `svc-server serve` on SQLite takes twelve concurrent
// multipart uploads of distinct 7 MB PNG images, sent as fast as loopback takes them; its resident set is read from /proc/<pid>/status
// every 10 ms, before the uploads (after twelve concurrent 1 MB warm-up uploads) and at its peak
// while they run; on SQLite and on MariaDB (when the bench's MariaDB answers).
// Target: the uploads add less than half their total size (84 MB) to the process. Median of
// BENCH_UPLOAD_RUNS runs (default 3) per dialect, each on a fresh server.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { standardWorld } from '../test/helpers/fixture.js';
import { runSvcServer, startSvcServer } from '../test/helpers/processes.js';
import { MB, acceptedUploadMemory, rssOf, type AcceptedUploadMemory } from '../test/helpers/upload-memory.js';
import type { Dialect } from '../src/db/connection.js';
import { availableDialects, createBenchDatabase, dialectLabel, progress, type Benchmark } from './lib.js';

const RUNS = Math.max(1, Number(process.env.BENCH_UPLOAD_RUNS) || 3);
const COUNT = 12;
const BYTES = 7 * MB;

async function oneRun(dialect: Dialect): Promise<AcceptedUploadMemory> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-upload-'));
  const db = await createBenchDatabase(dialect);
  const env = {
    DATABASE_URL: db.url,
    CREATIVES_DIR: path.join(dir, 'creatives'),
    RATE_LIMIT_PER_MINUTE: '100000',
    RATE_LIMIT_CONCURRENCY: '1000',
    JOBS: 'off',
  };
  try {
    const boot = await runSvcServer(['bootstrap', '-'], { env, input: JSON.stringify(standardWorld), timeoutMs: 60_000 });
    if (boot.code !== 0) throw new Error(`bootstrap failed (${boot.code}):\n${boot.stderr}`);
    const seed = JSON.parse(boot.stdout);
    const server = await startSvcServer(['serve'], { env, timeoutMs: 60_000 });
    try {
      return await acceptedUploadMemory(
        { url: server.url, pid: server.pid! },
        seed.organizations.acme.apiKeys.ci.secret,
        seed.organizations.acme.brands.shoes.id,
        { count: COUNT, bytes: BYTES },
      );
    } finally {
      await server.stop();
    }
  } finally {
    await db.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const mb = (n: number) => `${(n / MB).toFixed(1)} MB`;

export const benchmark: Benchmark = {
  name: 'upload-memory',
  order: 80,
  async run() {
    if (rssOf(process.pid) === null) return { rows: [], notes: ['upload-memory skipped: no /proc to read a resident set from.'] };
    const { dialects, notes } = await availableDialects();
    for (const dialect of dialects) {
      const runs: AcceptedUploadMemory[] = [];
      for (let i = 0; i < RUNS; i++) {
        progress(`upload-memory on ${dialectLabel(dialect)}: run ${i + 1}/${RUNS}`);
        const run = await oneRun(dialect);
        if (run.statuses.some((s) => s !== 201)) throw new Error(`uploads answered ${run.statuses.join(', ')}`);
        runs.push(run);
      }
      const sorted = [...runs].sort((a, b) => a.added - b.added);
      const median = sorted[Math.floor(sorted.length / 2)];
      const share = median.added / median.total;
      notes.push(
        `upload-memory (${dialectLabel(dialect)}): ${COUNT} concurrent uploads of ${mb(BYTES)} PNG images (${mb(median.total)} in all), median of ${RUNS}: ` +
          `resident set ${mb(median.before)} before, peak ${mb(median.peak)}, added ${mb(median.added)} = ${(share * 100).toFixed(0)}% of the upload size ` +
          `(runs: ${runs.map((r) => mb(r.added)).join(', ')}); target < 50%: ${share < 0.5 ? 'met' : 'not met'}`,
      );
    }
    return { rows: [], notes };
  },
};

// `node dist/bench/upload-memory.js` runs it alone.
if (import.meta.url === `file://${process.argv[1]}`) {
  benchmark
    .run()
    .then((out) => console.log(out.notes.join('\n')))
    .catch((err) => {
      console.error(err);
      process.exitCode = 1;
    });
}
