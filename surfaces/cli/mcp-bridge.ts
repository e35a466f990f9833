// `svc mcp`: speaks MCP on standard input and output and forwards every message to a hosted
// service's MCP endpoint with the configured API key, so desktop agent apps need one snippet. The
// HTTP side goes through the outbound client (the service's address is the operator's).

import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { cliFetch } from './http.js';

export interface BridgeConfig {
  /** The service's base URL; the MCP endpoint is `<baseUrl>/mcp` unless `mcpUrl` is given. */
  baseUrl: string;
  apiKey: string;
  mcpUrl?: string;
}

/** Pipes JSON-RPC between stdio and the remote endpoint until standard input closes. */
export async function runMcpBridge(config: BridgeConfig): Promise<void> {
  const endpoint = new URL(config.mcpUrl ?? `${config.baseUrl.replace(/\/+$/, '')}/mcp`);
  const local = new StdioServerTransport();
  const remote = new StreamableHTTPClientTransport(endpoint, { fetch: cliFetch(), requestInit: { headers: { authorization: `Bearer ${config.apiKey}` } } });
  const done = new Promise<void>((resolve) => {
    local.onclose = () => resolve();
    process.stdin.once('end', () => resolve());
  });
  local.onmessage = (message) => {
    remote.send(message).catch((err: Error) => {
      const id = (message as { id?: string | number }).id;
      if (id !== undefined) void local.send({ jsonrpc: '2.0', id, error: { code: -32603, message: `The service at ${endpoint.origin} could not be reached: ${err.message}` } });
    });
  };
  remote.onmessage = (message) => void local.send(message);
  remote.onerror = (err) => process.stderr.write(`svc mcp: ${err.message}\n`);
  await remote.start();
  await local.start();
  await done;
  await remote.close();
}
