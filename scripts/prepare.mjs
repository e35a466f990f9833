// npm's `prepare` script: builds dist/ after `npm install` (the README's first set-up command), but not
// when npx runs one of this project's own commands. npx (npm 7 and later) links the project into its
// cache to find `svc` and `svc-server`, once per folder, and runs `prepare` there again: a second full
// compile (20-25 s) before a newcomer's first `npx svc` answers. A folder that already has its build
// skips that; one without (npx before any install) still builds. This file is plain JavaScript
// because it runs before anything is compiled.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';

const built = ['dist/surfaces/cli/svc.js', 'dist/surfaces/cli/svc-server.js'].every((f) => fs.existsSync(f));
if (process.env.npm_command === 'exec' && built) process.exit(0);
const result = spawnSync('npm', ['run', 'build'], { stdio: 'inherit' });
process.exit(result.status ?? 1);
