// `npm test` compiles into dist/ in place (the MCP configs people made point at dist/surfaces/cli/svc.js,
// so the folder is never deleted); this removes what is left of sources that are gone, so mocha never
// runs a compiled test whose source was deleted or renamed.

import fs from 'node:fs';
import path from 'node:path';
import { projectPath } from '../src/paths.js';

const dist = projectPath('dist');
let removed = 0;

/** The source a compiled file comes from: dist/a/b.js (or .js.map) → a/b.ts. */
const sourceOf = (file: string) => projectPath(path.relative(dist, file).replace(/\.js(\.map)?$/, '.ts'));

function prune(dir: string): void {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) prune(full);
    else if (/\.js(\.map)?$/.test(entry.name) && !fs.existsSync(sourceOf(full))) {
      fs.rmSync(full);
      removed++;
    }
  }
}

if (fs.existsSync(dist)) prune(dist);
if (removed) process.stderr.write(`Removed ${removed} compiled files of sources that are gone from dist/.\n`);
