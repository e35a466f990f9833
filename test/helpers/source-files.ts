// The TypeScript files of a project folder, for the tests that read the code itself (import
// layers, the store boundary).

import fs from 'node:fs';
import { projectPath } from '../../src/paths.js';

/** Every `.ts` file (declarations left out) under `dir`, a path relative to the project root, recursively. */
export function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(projectPath(dir), { withFileTypes: true })) {
    const rel = `${dir}/${entry.name}`;
    if (entry.isDirectory()) out.push(...sourceFiles(rel));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) out.push(rel);
  }
  return out;
}
