// package.json `engines` promises only Node versions that every installed package accepts (so `npm
// install` prints no EBADENGINE warning on any of them), and the Node running the tests is one of
// them. The MCP Inspector, which declares Node >= 22.19, is not installed with the project: the suite
// installs it on first use from test/tools/mcp-inspector (test/helpers/mcp-inspector.ts).

import fs from 'node:fs';
import { expect } from 'chai';
import semver from 'semver';
import { projectPath } from '../../src/paths.js';

const read = (file: string) => JSON.parse(fs.readFileSync(projectPath(file), 'utf8'));

describe('engines', () => {
  const ours: string = read('package.json').engines.node;

  it('names a Node range inside the range of every package in package-lock.json, with no exception', () => {
    const packages = read('package-lock.json').packages as Record<string, { engines?: { node?: unknown } | unknown[] }>;
    const narrower = Object.entries(packages)
      .filter(([name, p]) => name && p.engines && !Array.isArray(p.engines) && typeof p.engines.node === 'string')
      .map(([name, p]) => [name, (p.engines as { node: string }).node])
      .filter(([, range]) => !semver.subset(ours, range));
    expect(narrower, `packages that do not accept every Node version of ${ours}`).to.deep.equal([]);
  });

  it('leaves the MCP Inspector to its own lockfile under test/tools, and records a decision for every install script', () => {
    const packages = read('package-lock.json').packages as Record<string, unknown>;
    expect(Object.keys(packages).filter((n) => n.includes('@modelcontextprotocol/inspector'))).to.deep.equal([]);
    expect(read('test/tools/mcp-inspector/package-lock.json').packages['node_modules/@modelcontextprotocol/inspector'].version).to.equal('2.12.0');
    // Every package of the lock with an install script is approved or denied in allowScripts (npm then prints no install-scripts notice).
    const allow = read('package.json').allowScripts as Record<string, boolean>;
    const lock = read('package-lock.json').packages as Record<string, { hasInstallScript?: boolean }>;
    const withScripts = Object.entries(lock)
      .filter(([name, p]) => name && p.hasInstallScript)
      .map(([name]) => name.slice(name.lastIndexOf('node_modules/') + 'node_modules/'.length));
    expect(
      withScripts.filter((n) => !(n in allow)),
      'install scripts with no decision in allowScripts',
    ).to.deep.equal([]);
  });

  it('is met by the Node running the tests', () => {
    expect(semver.satisfies(process.version, ours), `${process.version} vs ${ours}`).to.equal(true);
  });
});
