// `svc mcp`: speaks MCP on standard input and output and forwards every message to a hosted
// service's MCP endpoint with the configured API key, so desktop agent apps need one snippet. The
// HTTP side goes through the outbound client (the service's address is the operator's).

import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
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

/**
 * What to tell the app when a request could not be forwarded: the service refused the key, refused
 * the toolset choice, answered another HTTP error, or could not be reached at all. The JSON-RPC code
 * is the service's when it sent one.
 */
export function bridgeFailure(err: Error, origin: string): { code: number; message: string } {
  if (!(err instanceof StreamableHTTPError) || err.code === undefined)
    return { code: -32603, message: `The service at ${origin} could not be reached: ${err.message}` };
  const body = err.message.replace(/^Streamable HTTP error: Error POSTing to endpoint: /, '');
  let sent: { code?: number; message?: string } | undefined;
  try {
    sent = (JSON.parse(body) as { error?: { code?: number; message?: string } }).error;
  } catch {
    sent = undefined;
  }
  const said = sent?.message ?? body;
  const code = typeof sent?.code === 'number' ? sent.code : -32603;
  if (err.code === 401) return { code, message: `The service at ${origin} refused the API key (HTTP 401): ${said} Check SVC_API_KEY, or run svc login.` };
  if (err.code === 403) return { code, message: `The service at ${origin} refused this key for MCP (HTTP 403): ${said}` };
  if (err.code === 400 && /X-MCP-Toolsets/.test(said))
    return { code, message: `The service at ${origin} refused --toolsets: ${said.replace(/^X-MCP-Toolsets: /, '')}` };
  return { code, message: `The service at ${origin} answered HTTP ${err.code}: ${said}` };
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
      const failure = bridgeFailure(err, endpoint.origin);
      if (id !== undefined && 'method' in message) void local.send({ jsonrpc: '2.0', id, error: failure });
      else process.stderr.write(`svc mcp: ${failure.message}\n`);
    });
  };
  remote.onmessage = (message) => void local.send(message);
  remote.onerror = (err) => process.stderr.write(`svc mcp: ${err.message}\n`);
  await remote.start();
  await local.start();
  await done;
  await remote.close();
}
