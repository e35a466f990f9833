// Connects the MCP SDK's real Client to a listening server with a bearer credential.

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

export async function mcpClient(baseUrl: string, key: string | null): Promise<Client> {
  const client = new Client({ name: 'svc-tests', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), {
    requestInit: { headers: key ? { authorization: `Bearer ${key}` } : {} },
  });
  await client.connect(transport);
  return client;
}

export interface ToolResult {
  isError?: boolean;
  structuredContent?: any;
  content: Array<{ type: string; text?: string }>;
}

/**
 * The error of a failed tool call, as an agent reads it: `isError`, the contract's envelope as JSON
 * in the first text block, and no structuredContent (the tool's outputSchema describes answers).
 */
export function toolError(result: unknown): { code: string; message: string; details: any; requestId: string } {
  const r = result as ToolResult;
  if (r.isError !== true) throw new Error(`expected an isError result, got ${JSON.stringify(r).slice(0, 300)}`);
  if (r.structuredContent !== undefined) throw new Error('an error result must not carry structuredContent');
  const text = r.content.find((c) => c.type === 'text')?.text;
  if (!text) throw new Error('an error result must carry the envelope as text');
  return JSON.parse(text).error;
}
