// `svc mcp --print-config`: the entry a desktop agent app needs to start this project's own MCP
// bridge. It names node and svc.js by absolute path, so the app can never resolve `svc` to some
// other package (as `npx svc` would outside this folder).

import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { loadClientConfig } from './config.js';
import { usageError } from './exit-codes.js';

export const CLIENTS = ['claude-desktop', 'claude-code', 'cursor', 'vscode'] as const;
export type McpClient = (typeof CLIENTS)[number];
/** Names accepted for an app besides its own: `claude` was Claude Desktop's before Claude Code had an entry. */
const ALIASES: Record<string, McpClient> = { claude: 'claude-desktop' };

/** Where each app reads the entry from. */
export const CONFIG_FILE: Record<Exclude<McpClient, 'claude-code'>, string> = {
  'claude-desktop': 'claude_desktop_config.json (Claude Desktop: Settings → Developer → Edit Config)',
  cursor: '~/.cursor/mcp.json (every project) or .cursor/mcp.json (one project)',
  vscode: '.vscode/mcp.json in the workspace (or "MCP: Open User Configuration")',
};

export interface StdioEntry {
  command: string;
  args: string[];
  env: Record<string, string>;
}

/** The command that runs this very installation's bridge: node and svc.js, both absolute. */
export function bridgeEntry(extraArgs: string[], env: NodeJS.ProcessEnv = process.env): StdioEntry {
  const config = loadClientConfig(env);
  const svc = fileURLToPath(new URL('./svc.js', import.meta.url));
  return {
    command: process.execPath,
    args: [svc, 'mcp', ...extraArgs],
    env: { SVC_BASE_URL: config.baseUrl, SVC_API_KEY: config.apiKey ?? 'svc_sk_...' },
  };
}

/** A word for a POSIX shell: as it is when it is plain, else in single quotes. */
function shellWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * Claude Code's commands (`claude mcp add`, run in a terminal): the stdio form runs this project's
 * bridge with its flags; the HTTP form connects to the server's /mcp with the key as a bearer header.
 */
export function claudeCodeCommands(entry: StdioEntry): { stdio: string; http: string } {
  const env = Object.entries(entry.env).flatMap(([k, v]) => ['--env', `${k}=${v}`]);
  const stdio = ['claude', 'mcp', 'add', '--transport', 'stdio', ...env, 'svc', '--', entry.command, ...entry.args];
  const http = [
    'claude',
    'mcp',
    'add',
    '--transport',
    'http',
    'svc',
    `${entry.env.SVC_BASE_URL}/mcp`,
    '--header',
    `Authorization: Bearer ${entry.env.SVC_API_KEY}`,
  ];
  return { stdio: stdio.map(shellWord).join(' '), http: http.map(shellWord).join(' ') };
}

/** The app's configuration document holding one server named `svc`. */
export function mcpConfigFor(client: Exclude<McpClient, 'claude-code'>, entry: StdioEntry): unknown {
  if (client === 'vscode') return { servers: { svc: { type: 'stdio', ...entry } } };
  return { mcpServers: { svc: entry } };
}

/**
 * Handles `svc mcp --print-config [--client claude-desktop|claude-code|cursor|vscode] [other svc mcp
 * flags]`: prints the document (Claude Code: its two commands) on standard output and where it goes
 * on standard error.
 */
export function printMcpConfig(argv: string[]): number {
  let client: McpClient = 'claude-desktop';
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = arg === '--client' ? argv[++i] : arg.startsWith('--client=') ? arg.slice('--client='.length) : undefined;
    if (value === undefined && arg !== '--client') {
      // Flags of `svc mcp` itself go into the printed command unchanged.
      rest.push(arg);
      continue;
    }
    const named = value !== undefined ? (ALIASES[value] ?? value) : undefined;
    if (!CLIENTS.includes(named as McpClient))
      throw usageError(`--client must be one of ${CLIENTS.join(', ')}; got ${value === undefined ? 'nothing' : JSON.stringify(value)}.`);
    client = named as McpClient;
  }
  // The bridge's own flags only: a mistyped one would otherwise land in the app's configuration.
  try {
    parseArgs({ args: rest, options: { toolsets: { type: 'string' }, 'read-only': { type: 'boolean' } }, strict: true, allowPositionals: false });
  } catch (err) {
    throw usageError(`${(err as Error).message.split('\n')[0].replace(/\.?$/, '.')} Run "svc mcp --help" for the flags.`);
  }
  const entry = bridgeEntry(rest);
  if (client === 'claude-code') {
    const { stdio, http } = claudeCodeCommands(entry);
    process.stdout.write(`# stdio: this project's bridge (with its flags)\n${stdio}\n# or HTTP: the server's /mcp directly\n${http}\n`);
    process.stderr.write('Run one of these in a terminal; add --scope user to reach svc from every project (claude mcp list shows it).\n');
  } else {
    process.stdout.write(JSON.stringify(mcpConfigFor(client, entry), null, 2) + '\n');
    process.stderr.write(`Put this in ${CONFIG_FILE[client]}.\n`);
  }
  if (entry.env.SVC_API_KEY === 'svc_sk_...') process.stderr.write('No API key is configured (SVC_API_KEY or "svc login"): replace svc_sk_... with yours.\n');
  return 0;
}
