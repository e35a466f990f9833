// `svc mcp --print-config`: the entry a desktop agent app needs to start this project's own MCP
// bridge. It names node and svc.js by absolute path, so the app can never resolve `svc` to some
// other package (as `npx svc` would outside this folder).

import { fileURLToPath } from 'node:url';
import { loadClientConfig } from './config.js';
import { usageError } from './exit-codes.js';

export const CLIENTS = ['claude', 'cursor', 'vscode'] as const;
export type McpClient = (typeof CLIENTS)[number];

/** Where each app reads the entry from. */
export const CONFIG_FILE: Record<McpClient, string> = {
  claude: 'claude_desktop_config.json (Claude Desktop: Settings → Developer → Edit Config)',
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

/** The app's configuration document holding one server named `svc`. */
export function mcpConfigFor(client: McpClient, entry: StdioEntry): unknown {
  if (client === 'vscode') return { servers: { svc: { type: 'stdio', ...entry } } };
  return { mcpServers: { svc: entry } };
}

/**
 * Handles `svc mcp --print-config [--client claude|cursor|vscode] [other svc mcp flags]`: prints
 * the document on standard output and where it goes on standard error.
 */
export function printMcpConfig(argv: string[]): number {
  let client: McpClient = 'claude';
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = arg === '--client' ? argv[++i] : arg.startsWith('--client=') ? arg.slice('--client='.length) : undefined;
    if (value === undefined && arg !== '--client') {
      // Flags of `svc mcp` itself go into the printed command unchanged.
      rest.push(arg);
      continue;
    }
    if (!CLIENTS.includes(value as McpClient))
      throw usageError(`--client must be one of ${CLIENTS.join(', ')}; got ${value === undefined ? 'nothing' : JSON.stringify(value)}.`);
    client = value as McpClient;
  }
  const entry = bridgeEntry(rest);
  process.stdout.write(JSON.stringify(mcpConfigFor(client, entry), null, 2) + '\n');
  process.stderr.write(`Put this in ${CONFIG_FILE[client]}.\n`);
  if (entry.env.SVC_API_KEY === 'svc_sk_...') process.stderr.write('No API key is configured (SVC_API_KEY or "svc login"): replace svc_sk_... with yours.\n');
  return 0;
}
