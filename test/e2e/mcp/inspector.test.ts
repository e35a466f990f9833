// The MCP Inspector's CLI mode, run as a child process against a started server, lists the tools
// and calls one.

import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { projectPath } from '../../../src/paths.js';
import { startWorld, type World } from '../../helpers/world.js';

const run = promisify(execFile);
// `npx @modelcontextprotocol/inspector --cli ...` runs this file.
const INSPECTOR = projectPath('node_modules', '@modelcontextprotocol', 'inspector', 'cli', 'build', 'cli.js');

describe('MCP Inspector (CLI mode)', function () {
  this.timeout(60_000);
  let w: World;
  before(async () => {
    w = await startWorld({ dialect: 'sqlite' });
  });
  after(async () => w?.close());

  const inspect = async (...args: string[]) => {
    const { stdout } = await run(process.execPath, [INSPECTOR, '--cli', `${w.url}/mcp`, '--transport', 'http', '--header', `Authorization: Bearer ${w.key('acme', 'ci')}`, '--header', 'X-MCP-Toolsets: all', ...args], { timeout: 45_000 });
    return JSON.parse(stdout);
  };

  it('lists every tool of the catalogue', async () => {
    const result = await inspect('--method', 'tools/list');
    expect(result.tools.map((t: { name: string }) => t.name).sort()).to.deep.equal(w.service.catalogue.list().map((o) => o.name.replace(/-/g, '_')).sort());
  });

  it('calls list_brands and gets the brands as structured content', async () => {
    const result = await inspect('--method', 'tools/call', '--tool-name', 'list_brands', '--tool-arg', 'limit=2');
    expect(result.isError ?? false).to.equal(false);
    expect(result.structuredContent.accounts.map((a: { brandName: string }) => a.brandName)).to.deep.equal(['Shoes Co', 'Hats Co']);
    expect(result.structuredContent.nextCursor).to.be.a('string');
  });
});
