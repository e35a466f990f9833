// `svc mcp --print-config`: the entry for Claude Desktop, Cursor and VS Code names this project's
// own node and svc.js by absolute path (never `npx svc`), and an MCP client that starts it exactly
// as printed, from a folder outside the project, reaches the service's tools.

import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { projectPath } from '../../../src/paths.js';
import { startWorld, type World } from '../../helpers/world.js';

const run = promisify(execFile);
const SVC_BIN = projectPath('dist', 'surfaces', 'cli', 'svc.js');

describe('svc mcp --print-config', function () {
  this.timeout(30_000);
  let w: World;
  // Outside the project, as an agent app's working folder would be; HOME empty so no stored login is read.
  const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-mcp-config-'));
  const env = () => ({ PATH: process.env.PATH ?? '', HOME: elsewhere, SVC_BASE_URL: w.url, SVC_API_KEY: w.key('acme', 'ci') });

  before(async () => {
    w = await startWorld({ dialect: 'sqlite' });
  });
  after(async () => {
    await w?.close();
    fs.rmSync(elsewhere, { recursive: true, force: true });
  });

  const printed = async (...args: string[]) => {
    const { stdout, stderr } = await run(process.execPath, [SVC_BIN, 'mcp', '--print-config', ...args], { cwd: elsewhere, env: env() });
    return { config: JSON.parse(stdout), stderr };
  };

  it('prints, for each app, an entry that runs node and svc.js of this project by absolute path with the configured URL and key', async () => {
    const expected = { command: process.execPath, args: [SVC_BIN, 'mcp'], env: { SVC_BASE_URL: w.url, SVC_API_KEY: w.key('acme', 'ci') } };
    const claude = await printed();
    expect(claude.config).to.deep.equal({ mcpServers: { svc: expected } });
    expect(claude.stderr).to.include('claude_desktop_config.json');
    expect((await printed('--client', 'cursor')).config).to.deep.equal({ mcpServers: { svc: expected } });
    expect((await printed('--client=vscode')).config).to.deep.equal({ servers: { svc: { type: 'stdio', ...expected } } });
    expect(path.isAbsolute(expected.command) && path.isAbsolute(expected.args[0])).to.equal(true);
    expect(JSON.stringify(claude.config)).to.not.include('npx');
  });

  it('keeps the other svc mcp flags in the printed command, and refuses an unknown flag or app with exit code 2', async () => {
    expect((await printed('--client', 'cursor', '--toolsets', 'launch', '--read-only')).config.mcpServers.svc.args).to.deep.equal([
      SVC_BIN,
      'mcp',
      '--toolsets',
      'launch',
      '--read-only',
    ]);
    // A mistyped flag would land in the app's configuration and fail there: it is refused here.
    const unknown = await run(process.execPath, [SVC_BIN, 'mcp', '--print-config', '--client', 'cursor', '--some-flag'], { cwd: elsewhere, env: env() }).then(
      () => null,
      (err: { code: number; stderr: string; stdout: string }) => err,
    );
    expect(unknown?.code).to.equal(2);
    expect(unknown?.stdout).to.equal('');
    expect(unknown?.stderr).to.equal('svc: Unknown option \'--some-flag\'. Run "svc mcp --help" for the flags.\n');
    const refused = await run(process.execPath, [SVC_BIN, 'mcp', '--print-config', '--client', 'emacs'], { cwd: elsewhere, env: env() }).then(
      () => null,
      (err: { code: number; stderr: string }) => err,
    );
    expect(refused?.code).to.equal(2);
    expect(refused?.stderr).to.include('--client must be one of claude-desktop, claude-code, cursor, vscode');
    // `claude`, Claude Desktop's name before Claude Code had one, still means Claude Desktop.
    expect((await printed('--client', 'claude')).config).to.deep.equal((await printed('--client', 'claude-desktop')).config);
  });

  it('started exactly as printed, from another folder, the bridge serves the tools of the service', async () => {
    const entry = (await printed()).config.mcpServers.svc;
    const client = new Client({ name: 'desktop-app', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({ command: entry.command, args: entry.args, env: { ...entry.env, HOME: elsewhere }, cwd: elsewhere, stderr: 'pipe' }),
    );
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).to.include.members(['list_brands', 'launch_campaign']);
      const result = (await client.callTool({ name: 'list_brands', arguments: {} })) as { structuredContent?: { accounts: Array<{ brandName: string }> } };
      expect(result.structuredContent?.accounts.map((a) => a.brandName)).to.deep.equal(['Shoes Co', 'Hats Co', 'Multi Co']);
    } finally {
      await client.close();
    }
  });

  /** The words of a POSIX shell command line: plain words, and words in single quotes ('\\'' for a quote). */
  const shellSplit = (line: string): string[] =>
    [...line.matchAll(/'((?:[^']|'\\'')*)'|(\S+)/g)].map((m) => (m[1] !== undefined ? m[1].replace(/'\\''/g, "'") : m[2]));

  describe('--client claude-code', () => {
    let lines: string[];
    before(async () => {
      const { stdout } = await run(process.execPath, [SVC_BIN, 'mcp', '--print-config', '--client', 'claude-code', '--toolsets', 'default,automate'], {
        cwd: elsewhere,
        env: env(),
      });
      lines = stdout.split('\n').filter((l) => l.startsWith('claude '));
    });

    it("prints Claude Code's two claude mcp add commands: the bridge by absolute path over stdio, and the server's /mcp over HTTP", () => {
      expect(lines).to.have.length(2);
      expect(shellSplit(lines[0])).to.deep.equal([
        'claude',
        'mcp',
        'add',
        '--transport',
        'stdio',
        '--env',
        `SVC_BASE_URL=${w.url}`,
        '--env',
        `SVC_API_KEY=${w.key('acme', 'ci')}`,
        'svc',
        '--',
        process.execPath,
        SVC_BIN,
        'mcp',
        '--toolsets',
        'default,automate',
      ]);
      expect(shellSplit(lines[1])).to.deep.equal([
        'claude',
        'mcp',
        'add',
        '--transport',
        'http',
        'svc',
        `${w.url}/mcp`,
        '--header',
        `Authorization: Bearer ${w.key('acme', 'ci')}`,
      ]);
    });

    it('the printed stdio command, run as Claude Code runs it, serves the tools (the automate toolset included)', async () => {
      const words = shellSplit(lines[0]);
      const env: Record<string, string> = { HOME: elsewhere };
      for (let i = 0; i < words.indexOf('--'); i++)
        if (words[i] === '--env') {
          const [k, ...v] = words[++i].split('=');
          env[k] = v.join('=');
        }
      const [command, ...args] = words.slice(words.indexOf('--') + 1);
      const client = new Client({ name: 'claude-code', version: '1.0.0' });
      await client.connect(new StdioClientTransport({ command, args, env, cwd: elsewhere, stderr: 'pipe' }));
      try {
        const { tools } = await client.listTools();
        expect(tools.map((t) => t.name)).to.include.members(['list_brands', 'create_automation']);
      } finally {
        await client.close();
      }
    });

    it('the printed HTTP command reaches the server with its header', async () => {
      const words = shellSplit(lines[1]);
      const url = words[words.indexOf('svc') + 1];
      const [name, value] = words[words.indexOf('--header') + 1].split(': ');
      const client = new Client({ name: 'claude-code', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { [name]: value } } }));
      try {
        const result = (await client.callTool({ name: 'list_brands', arguments: {} })) as { structuredContent?: { accounts: unknown[] } };
        expect(result.structuredContent?.accounts).to.have.length(3);
      } finally {
        await client.close();
      }
    });
  });
});
