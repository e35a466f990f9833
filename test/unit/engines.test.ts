// package.json `engines` promises only Node versions that every installed package accepts, and the
// Node running the tests is one of them.

import fs from 'node:fs';
import { expect } from 'chai';
import semver from 'semver';
import { projectPath } from '../../src/paths.js';

const read = (file: string) => JSON.parse(fs.readFileSync(projectPath(file), 'utf8'));

/**
 * Dev tools the suite runs as programs of their own, whose declared range is narrower than ours: the
 * MCP Inspector 2.12 (and what it brings) declares Node >= 22.19, yet its CLI, the one part the suite
 * uses (test/e2e/mcp/frameworks.test.ts), runs on every Node of our range: that test shows it. Nothing
 * the service runs may be here.
 */
const RUN_AS_PROGRAMS = ['node_modules/@modelcontextprotocol/inspector'];

describe('engines', () => {
  const ours: string = read('package.json').engines.node;

  it('names a Node range inside the range of every package in package-lock.json', () => {
    const packages = read('package-lock.json').packages as Record<string, { dev?: boolean; engines?: { node?: unknown } | unknown[] }>;
    const excepted = (name: string, p: { dev?: boolean }) => p.dev === true && RUN_AS_PROGRAMS.some((t) => name === t || name.startsWith(`${t}/`));
    const narrower = Object.entries(packages)
      .filter(([name, p]) => name && p.engines && !Array.isArray(p.engines) && typeof p.engines.node === 'string' && !excepted(name, p))
      .map(([name, p]) => [name, (p.engines as { node: string }).node])
      .filter(([, range]) => !semver.subset(ours, range));
    expect(narrower, `packages that do not accept every Node version of ${ours}`).to.deep.equal([]);
  });

  it('excepts only dev packages run as programs: nothing the service installs', () => {
    const packages = read('package-lock.json').packages as Record<string, { dev?: boolean }>;
    for (const top of RUN_AS_PROGRAMS) expect(packages[top]?.dev, top).to.equal(true);
  });

  it('is met by the Node running the tests', () => {
    expect(semver.satisfies(process.version, ours), `${process.version} vs ${ours}`).to.equal(true);
  });
});
