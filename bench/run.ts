// `npm run bench`: runs every benchmark in bench/ (each module whose source has
// `export const benchmark`), in `order`, printing progress on stderr and one results table on stdout.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dialectLabel, progress, type Benchmark, type ResultRow } from './lib.js';

// This file compiles to dist/bench/run.js; the sources are in bench/ at the project root.
const here = path.dirname(fileURLToPath(import.meta.url));
const sourceDir = path.resolve(here, '..', '..', 'bench');

async function discover(): Promise<Benchmark[]> {
  const found: Benchmark[] = [];
  const files = fs
    .readdirSync(sourceDir)
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
    .sort();
  for (const file of files) {
    const source = fs.readFileSync(path.join(sourceDir, file), 'utf8');
    if (!/export\s+const\s+benchmark\b/.test(source)) continue;
    const mod = (await import(pathToFileURL(path.join(here, file.replace(/\.ts$/, '.js'))).href)) as { benchmark?: Benchmark };
    if (mod.benchmark) found.push(mod.benchmark);
  }
  return found.sort((a, b) => (a.order ?? 100) - (b.order ?? 100));
}

function table(rows: ResultRow[]): string {
  const head = ['benchmark', 'db', 'target', 'req/s', 'svc/bare', 'p50 ms', 'p99 ms', 'cpu us/req', 'failures'];
  const body = rows.map((r) => [
    r.benchmark,
    dialectLabel(r.dialect),
    r.target,
    r.rps.toFixed(0),
    r.ratio === undefined ? '' : r.ratio.toFixed(3),
    r.p50.toFixed(2),
    r.p99.toFixed(2),
    Number.isFinite(r.cpuUsPerRequest) ? r.cpuUsPerRequest.toFixed(0) : '-',
    String(r.failures),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((line) => line[i].length)));
  const numeric = new Set([3, 4, 5, 6, 7, 8]);
  const fmt = (cells: string[]) => cells.map((c, i) => (numeric.has(i) ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join('  ');
  return [fmt(head), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(fmt)].join('\n');
}

async function main(): Promise<number> {
  const started = Date.now();
  // `npm run bench -- mcp publish` runs only the benchmarks whose name contains one of the words.
  const only = process.argv.slice(2).map((w) => w.toLowerCase());
  const benchmarks = (await discover()).filter((b) => !only.length || only.some((w) => b.name.toLowerCase().includes(w)));
  progress(`${benchmarks.length} benchmark(s): ${benchmarks.map((b) => b.name).join(', ')}`);
  const rows: ResultRow[] = [];
  const notes: string[] = [];
  let failed = false;
  for (const b of benchmarks) {
    progress(`running ${b.name}`);
    try {
      const out = await b.run();
      rows.push(...out.rows);
      notes.push(...out.notes);
    } catch (err) {
      failed = true;
      progress(`${b.name} failed: ${(err as Error).stack ?? err}`);
      notes.push(`${b.name}: FAILED (${(err as Error).message ?? err})`);
    }
  }
  process.stdout.write(`\n${table(rows)}\n\n${notes.map((n) => `${n}\n`).join('')}`);
  progress(`done in ${((Date.now() - started) / 1000).toFixed(1)}s`);
  return failed ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`${(err as Error).stack ?? err}\n`);
    process.exit(1);
  },
);
