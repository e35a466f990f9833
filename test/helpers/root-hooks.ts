// Mocha's global fixtures and root hooks. Once per run (mocha's own process, in parallel mode too):
// note what the person's working tree holds, make the run's folder, and with TEST_MYSQL_URL migrate
// one MySQL template the worlds are created from (mysql-template.ts); at the end, say which storage
// dialects the files exercised and fail if the run changed the working tree (git status) or the
// project's data/ folder, where the guides tell people to keep their own files (checked on `npm
// test` and its variants; a partial run while someone edits the tree would fail for their edits).
// Once per file (root hooks; per run in serial mode): move into a folder of its own, so nothing a
// test or a server it starts writes by a relative path (./data/svc.sqlite) lands in the project.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { projectPath } from '../../src/paths.js';
import { dialectsRun, mysqlAdmin } from './databases.js';
import { TEMPLATE_ENV, writeMysqlTemplate } from './mysql-template.js';
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

/** Set by the global setup for every worker: the run's own folder (dialect marks, the MySQL template). */
const RUN_ENV = 'SVC_TEST_RUN_DIR';

let before: ReturnType<typeof treeState> | null = null;

/** Once per run, in mocha's own process (parallel or not): the tree's state, the run's folder, the MySQL template. */
export async function mochaGlobalSetup(): Promise<void> {
  if (process.env.npm_lifecycle_event?.startsWith('test')) before = treeState();
  const run = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-test-run-'));
  fs.mkdirSync(path.join(run, 'dialects'));
  process.env[RUN_ENV] = run;
  if (process.env.TEST_MYSQL_URL) {
    const file = path.join(run, 'mysql-template.json');
    const admin = mysqlAdmin();
    try {
      await writeMysqlTemplate(process.env.TEST_MYSQL_URL, file, admin);
    } finally {
      await admin.destroy();
    }
    process.env[TEMPLATE_ENV] = file;
  }
}

/** Once per run: which dialects the files exercised, then the tree check. */
export function mochaGlobalTeardown(): void {
  const run = process.env[RUN_ENV]!;
  const ran = [...new Set(fs.readdirSync(path.join(run, 'dialects')).map((f) => f.split('.')[0]))].sort();
  process.stdout.write(
    `\n  Storage dialects run: ${ran.length ? ran.join(', ') : 'none'}${process.env.TEST_MYSQL_URL ? '' : ' (set TEST_MYSQL_URL to add MySQL/MariaDB)'}\n`,
  );
  fs.rmSync(run, { recursive: true, force: true });
  const after = treeState();
  if (before && (after.git !== before.git || after.data.join('\n') !== before.data.join('\n')))
    throw new Error(
      `The test run changed the working tree or data/: a test wrote into the project.\n` +
        `git status before:\n${before.git}\nafter:\n${after.git}\ndata/ before:\n${before.data.join('\n')}\nafter:\n${after.data.join('\n')}`,
    );
}

let fileFolder: string | null = null;

// Root hooks: once per file in parallel mode (mocha runs each file in a worker), once per run in serial mode.
export const mochaHooks = {
  beforeAll(): void {
    fileFolder = fs.mkdtempSync(path.join(process.env[RUN_ENV] ?? os.tmpdir(), 'cwd-'));
    process.chdir(fileFolder);
  },

  afterAll(): void {
    // What this file (or this serial run) exercised, for the run's summary.
    for (const dialect of dialectsRun) fs.writeFileSync(path.join(process.env[RUN_ENV]!, 'dialects', `${dialect}.${process.pid}`), '');
    process.chdir(projectPath());
    if (fileFolder) fs.rmSync(fileFolder, { recursive: true, force: true });
  },
};
