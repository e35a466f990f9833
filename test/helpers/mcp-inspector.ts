// The MCP Inspector CLI, installed on first use from test/tools/mcp-inspector's own lockfile into
// node_modules/.cache (outside the project's install: the Inspector declares Node >= 22.19, though
// its CLI runs on every Node the project supports, and would warn on every `npm install`). Later
// runs reuse it while the lockfile is unchanged.

import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { projectPath } from '../../src/paths.js';

const SOURCE = projectPath('test', 'tools', 'mcp-inspector');
const TARGET = projectPath('node_modules', '.cache', 'svc-mcp-inspector');

/** The Inspector's launcher script (its `mcp-inspector` command), installing it first when needed. */
export function inspectorLauncher(): string {
  const lock = fs.readFileSync(path.join(SOURCE, 'package-lock.json'));
  const stamp = crypto
    .createHash('sha256')
    .update(lock)
    .update(fs.readFileSync(path.join(SOURCE, 'package.json')))
    .digest('hex');
  const launcher = path.join(TARGET, 'node_modules', '@modelcontextprotocol', 'inspector', 'clients', 'launcher', 'build', 'index.js');
  const stampFile = path.join(TARGET, '.installed');
  if (fs.existsSync(launcher) && fs.existsSync(stampFile) && fs.readFileSync(stampFile, 'utf8') === stamp) return launcher;
  fs.rmSync(TARGET, { recursive: true, force: true });
  fs.mkdirSync(TARGET, { recursive: true });
  for (const file of ['package.json', 'package-lock.json']) fs.copyFileSync(path.join(SOURCE, file), path.join(TARGET, file));
  // From the lockfile exactly, no scripts (its postinstall does nothing for a dependency), quietly:
  // its engine warning is the reason it lives here.
  execFileSync('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: TARGET, stdio: ['ignore', 'ignore', 'pipe'] });
  fs.writeFileSync(stampFile, stamp);
  return launcher;
}
