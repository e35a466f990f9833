// package.json's `prepare` (scripts/prepare.mjs) compiles after `npm install`, but not when npx runs
// one of the project's own commands in a folder that is built: npx links the project into its cache
// and runs `prepare` there, which used to cost a second full compile before a newcomer's first
// `npx svc` answered. Each case runs the script in a folder of its own, with an `npm` on PATH that
// only records how it was called, so the test sees whether a build was asked for.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { projectPath } from '../../src/paths.js';

describe('the prepare script', () => {
  let folder: string;
  let calls: string;

  beforeEach(() => {
    folder = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-prepare-'));
    calls = path.join(folder, 'npm-calls');
    const bin = path.join(folder, 'bin');
    fs.mkdirSync(bin);
    fs.writeFileSync(path.join(bin, 'npm'), `#!/bin/sh\necho "$@" >> "${calls}"\n`, { mode: 0o755 });
  });
  afterEach(() => fs.rmSync(folder, { recursive: true, force: true }));

  const built = () => {
    fs.mkdirSync(path.join(folder, 'dist/surfaces/cli'), { recursive: true });
    for (const f of ['svc.js', 'svc-server.js']) fs.writeFileSync(path.join(folder, 'dist/surfaces/cli', f), '');
  };
  const prepare = (npmCommand: string) =>
    spawnSync(process.execPath, [projectPath('scripts/prepare.mjs')], {
      cwd: folder,
      env: { ...process.env, PATH: `${path.join(folder, 'bin')}:${process.env.PATH}`, npm_command: npmCommand },
      encoding: 'utf8',
    });
  const buildsAsked = () => (fs.existsSync(calls) ? fs.readFileSync(calls, 'utf8').trim().split('\n') : []);

  it('builds after npm install and npm ci, even where a build is there', () => {
    built();
    for (const command of ['install', 'ci']) expect(prepare(command).status).to.equal(0);
    expect(buildsAsked()).to.deep.equal(['run build', 'run build']);
  });

  it('does not build again when npx runs a command of a built folder', () => {
    built();
    expect(prepare('exec').status).to.equal(0);
    expect(buildsAsked()).to.deep.equal([]);
  });

  it('builds when npx runs a command of a folder that was never built', () => {
    expect(prepare('exec').status).to.equal(0);
    expect(buildsAsked()).to.deep.equal(['run build']);
  });
});
