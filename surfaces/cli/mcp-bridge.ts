// `svc mcp`: speaks MCP on standard input and output and forwards every message to a hosted
// service's MCP endpoint with the configured API key, so desktop agent apps need one snippet. The
// HTTP side goes through the outbound client (the service's address is the operator's).

import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { OutboundClient } from '../../src/outbound/client.js';

export interface BridgeConfig {
  /** The service's base URL; the MCP endpoint is `<baseUrl>/mcp` unless `mcpUrl` is given. */
  baseUrl: string;
  apiKey: string;
  mcpUrl?: string;
  /** `--toolsets`: sent as X-MCP-Toolsets on every request, so the server lists and runs only those. */
  toolsets?: string;
  /** `--read-only`: sent as X-MCP-Readonly: true. */
  readOnly?: boolean;
}

/** The bridge's fetch: one outbound client, no redirects followed, no time limit of its own (the service has a 30 s budget). */
function bridgeFetch(): typeof globalThis.fetch {
  return new OutboundClient({ allowPrivate: true }).fetch('operator', { timeoutMs: 0, maxResponseBytes: 256 * 1024 * 1024 });
}

/** Pipes JSON-RPC between stdio and the remote endpoint until standard input closes. */
export async function runMcpBridge(config: BridgeConfig): Promise<void> {
  const endpoint = new URL(config.mcpUrl ?? `${config.baseUrl.replace(/\/+$/, '')}/mcp`);
  const local = new StdioServerTransport();
  const headers: Record<string, string> = { authorization: `Bearer ${config.apiKey}` };
  if (config.toolsets) headers['x-mcp-toolsets'] = config.toolsets;
  if (config.readOnly) headers['x-mcp-readonly'] = 'true';
  const remote = new StreamableHTTPClientTransport(endpoint, { fetch: bridgeFetch(), requestInit: { headers } });
  const done = new Promise<void>((resolve) => {
    local.onclose = () => resolve();
    process.stdin.once('end', () => resolve());
  });
  local.onmessage = (message) => {
    remote.send(message).catch((err: Error) => {
      const id = (message as { id?: string | number }).id;
      // Only a request waits for an answer; a lost answer of ours is reported on stderr.
      if (id !== undefined && 'method' in message)
        void local.send({ jsonrpc: '2.0', id, error: { code: -32603, message: `The service at ${endpoint.origin} could not be reached: ${err.message}` } });
      else process.stderr.write(`svc mcp: ${err.message}\n`);
    });
  };
  remote.onmessage = (message) => void local.send(message);
  remote.onerror = (err) => process.stderr.write(`svc mcp: ${err.message}\n`);
  await remote.start();
  await local.start();
  await done;
  await remote.close();
}
