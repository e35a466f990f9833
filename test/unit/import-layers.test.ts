// Imports point down: no two folders of src/ import each other, and no longer loop of folders leads
// back to where it started (a root file of src/, like config.ts, counts as a folder of its own).
// docs/architecture.md shows the layers this keeps.

import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { expect } from 'chai';
import { projectPath } from '../../src/paths.js';
import { sourceFiles } from '../helpers/source-files.js';

/** One import of a src/ file by another, as paths relative to src/. */
interface Edge {
  from: string;
  to: string;
}

/**
 * Every relative import of every src/ file, read by the TypeScript scanner: `import`, `import type`,
 * `export ... from`, bare `import './x.js'` and dynamic `import()`.
 */
function srcImports(): Edge[] {
  const edges: Edge[] = [];
  for (const file of sourceFiles('src')) {
    const info = ts.preProcessFile(fs.readFileSync(projectPath(file), 'utf8'), true, true);
    for (const ref of info.importedFiles) {
      if (!ref.fileName.startsWith('.')) continue;
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), ref.fileName.replace(/\.js$/, '.ts')));
      if (target.startsWith('src/')) edges.push({ from: file.slice('src/'.length), to: target.slice('src/'.length) });
    }
  }
  return edges;
}

/** The folder a src/ path belongs to: its first directory, or the file itself at the root. */
const folderOf = (rel: string): string => rel.split('/')[0];

/** Each pair of folders that import each other, with the imports of both directions. */
export function mutualPairs(edges: Edge[]): string[] {
  const byDirection = new Map<string, string[]>();
  for (const e of edges) {
    const [a, b] = [folderOf(e.from), folderOf(e.to)];
    if (a === b) continue;
    const key = `${a} -> ${b}`;
    byDirection.set(key, [...(byDirection.get(key) ?? []), `${e.from} -> ${e.to}`]);
  }
  const pairs: string[] = [];
  for (const [key, files] of byDirection) {
    const [a, b] = key.split(' -> ');
    const back = byDirection.get(`${b} -> ${a}`);
    if (a < b && back) pairs.push(`${a} and ${b} import each other:\n    ${[...files, ...back].join('\n    ')}`);
  }
  return pairs.sort();
}

/**
 * Every loop of folders (a strongly connected set of more than one folder, found by Tarjan's
 * algorithm), each with the imports that hold it together.
 */
export function folderLoops(edges: Edge[]): string[] {
  const next = new Map<string, Map<string, string[]>>();
  for (const e of edges) {
    const [a, b] = [folderOf(e.from), folderOf(e.to)];
    if (a === b) continue;
    const out = next.get(a) ?? new Map<string, string[]>();
    out.set(b, [...(out.get(b) ?? []), `${e.from} -> ${e.to}`]);
    next.set(a, out);
  }
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const loops: string[] = [];
  let counter = 0;
  const visit = (v: string) => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v)?.keys() ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const members: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      members.push(w);
    } while (w !== v);
    if (members.length < 2) return;
    const held = members.flatMap((a) => [...(next.get(a) ?? [])].filter(([b]) => members.includes(b)).flatMap(([, files]) => files));
    loops.push(`${members.sort().join(', ')} import each other in a loop:\n    ${held.sort().join('\n    ')}`);
  };
  for (const v of new Set(edges.flatMap((e) => [folderOf(e.from), folderOf(e.to)]))) if (!index.has(v)) visit(v);
  return loops.sort();
}

describe('import layers', () => {
  it('names a loop of three folders, with the imports that make it', () => {
    const loops = folderLoops([
      { from: 'catalogue/define.ts', to: 'platforms/registry.ts' },
      { from: 'platforms/registry.ts', to: 'brands/store.ts' },
      { from: 'brands/operations.ts', to: 'catalogue/define.ts' },
      { from: 'brands/store.ts', to: 'db/connection.ts' },
    ]);
    expect(loops).to.deep.equal([
      'brands, catalogue, platforms import each other in a loop:\n    brands/operations.ts -> catalogue/define.ts\n    catalogue/define.ts -> platforms/registry.ts\n    platforms/registry.ts -> brands/store.ts',
    ]);
  });

  it('has no loop of folders of any length in src/', () => {
    const loops = folderLoops(srcImports());
    expect(
      loops,
      `Folders of src/ in a loop (move the shared type down, or hand the lower folder what it needs from above; docs/architecture.md):\n${loops.join('\n')}`,
    ).to.deep.equal([]);
  });

  it('names a pair of folders that import each other, with the files of both directions', () => {
    const pairs = mutualPairs([
      { from: 'catalogue/define.ts', to: 'webhooks/sender.ts' },
      { from: 'webhooks/operations.ts', to: 'catalogue/define.ts' },
      { from: 'webhooks/jobs.ts', to: 'jobs/kind.ts' },
      { from: 'catalogue/define.ts', to: 'catalogue/services.ts' },
    ]);
    expect(pairs).to.deep.equal([
      'catalogue and webhooks import each other:\n    catalogue/define.ts -> webhooks/sender.ts\n    webhooks/operations.ts -> catalogue/define.ts',
    ]);
  });

  it('reads the imports of src/ by every form an import takes', () => {
    const edges = srcImports();
    const has = (from: string, to: string) => edges.some((e) => e.from === from && e.to === to);
    expect(has('service.ts', 'wiring/references.ts'), 'a bare import for its effect').to.equal(true);
    expect(has('platforms/port.ts', 'platforms/platform-name.ts'), 'import type').to.equal(true);
    expect(has('catalogue/define.ts', 'catalogue/services.ts'), 'within a folder').to.equal(true);
  });

  it('has no two folders of src/ that import each other', () => {
    const pairs = mutualPairs(srcImports());
    expect(
      pairs,
      `Folders of src/ that import each other (move the shared type down, or the list that gathers areas up; docs/architecture.md):\n${pairs.join('\n')}`,
    ).to.deep.equal([]);
  });
});
