// Mocha root hooks. Before the run: move into a folder of the run's own, so nothing a test or a
// server it starts writes by a relative path (./data/svc.sqlite, ./data/creatives) lands in the
// project, and note what the person's working tree holds. After it: fail if the run changed the
// working tree (git status) or the project's data/ folder, where the guides tell people to keep
// their own files (checked on `npm test`, the whole suite; a partial run while someone edits the
// tree would fail for their edits); then say which storage dialects the tests exercised.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { projectPath } from '../../src/paths.js';
import { dialectsRun } from './databases.js';
// The tests' fetch goes through the undici this project ships: loading it installs its Agent as the
// global dispatcher, which node's own fetch then uses. The service loaded it at start-up until it
// came to load it on its first outbound request (start-up time); an in-process test of a 413 sent
// while a 100 MB upload still streams reads that answer with this Agent, and gets a reset with
// node 20's own. So the tests load it themselves, whatever the service has loaded.
import 'undici';

/** What the person's tree holds that a run must leave alone: git's view of it, and every file of data/ with its size and time. */
function treeState(): { git: string | null; data: string[] } {
  let git: string | null = null;
  try {
    git = execFileSync('git', ['status', '--porcelain', '--untracked-files=all'], {
      cwd: projectPath(),
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
  } catch {
    // Not a git checkout (an unpacked archive): data/ is still checked.
  }
  const data: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.existsSync(dir) ? fs.readdirSync(dir, { withFileTypes: true }) : []) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else {
        const st = fs.statSync(full);
        data.push(`${path.relative(projectPath(), full)} ${st.size} ${st.mtimeMs}`);
      }
    }
  };
  walk(projectPath('data'));
  return { git, data: data.sort() };
}

let before: ReturnType<typeof treeState> | null = null;
let runFolder: string | null = null;

export const mochaHooks = {
  beforeAll(): void {
    if (process.env.npm_lifecycle_event === 'test') before = treeState();
    runFolder = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-test-run-'));
    process.chdir(runFolder);
  },

  afterAll(): void {
    const ran = [...dialectsRun].sort();
    process.stdout.write(
      `\n  Storage dialects run: ${ran.length ? ran.join(', ') : 'none'}${process.env.TEST_MYSQL_URL ? '' : ' (set TEST_MYSQL_URL to add MySQL/MariaDB)'}\n`,
    );
    process.chdir(projectPath());
    if (runFolder) fs.rmSync(runFolder, { recursive: true, force: true });
    const after = treeState();
    if (before && (after.git !== before.git || after.data.join('\n') !== before.data.join('\n')))
      throw new Error(
        `The test run changed the working tree or data/: a test wrote into the project.\n` +
          `git status before:\n${before.git}\nafter:\n${after.git}\ndata/ before:\n${before.data.join('\n')}\nafter:\n${after.data.join('\n')}`,
      );
  },
};
