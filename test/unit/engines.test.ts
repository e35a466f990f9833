// package.json `engines` promises only Node versions that every installed package accepts, and the
// Node running the tests is one of them.

import fs from 'node:fs';
import { expect } from 'chai';
import semver from 'semver';
import { projectPath } from '../../src/paths.js';

const read = (file: string) => JSON.parse(fs.readFileSync(projectPath(file), 'utf8'));

describe('engines', () => {
  const ours: string = read('package.json').engines.node;

  it('names a Node range inside the range of every package in package-lock.json', () => {
    const packages = read('package-lock.json').packages as Record<string, { engines?: { node?: unknown } | unknown[] }>;
    const narrower = Object.entries(packages)
      .filter(([name, p]) => name && p.engines && !Array.isArray(p.engines) && typeof p.engines.node === 'string')
      .map(([name, p]) => [name, (p.engines as { node: string }).node])
      .filter(([, range]) => !semver.subset(ours, range));
    expect(narrower, `packages that do not accept every Node version of ${ours}`).to.deep.equal([]);
  });

  it('is met by the Node running the tests', () => {
    expect(semver.satisfies(process.version, ours), `${process.version} vs ${ours}`).to.equal(true);
  });
});
