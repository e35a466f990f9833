// Connects the MCP SDK's real Client to a listening server with a bearer credential, and reads its results.

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { projectPath } from '../../src/paths.js';
import type { ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';

export interface McpClientOptions {
  /** X-MCP-Toolsets; every tool unless a test is about the choice (null sends no header). */
  toolsets?: string | null;
  /** X-MCP-Readonly value, when the test sends one. */
  readOnly?: string;
  /** Client capabilities declared at initialize (e.g. elicitation). */
  capabilities?: ClientCapabilities;
}

/** The SDK Client connected over Streamable HTTP with a bearer credential; it loads every tool unless told otherwise. */
export async function mcpClient(baseUrl: string, key: string | null, options: McpClientOptions = {}): Promise<Client> {
  const client = new Client({ name: 'svc-tests', version: '1.0.0' }, { capabilities: options.capabilities ?? {} });
  const headers: Record<string, string> = key ? { authorization: `Bearer ${key}` } : {};
  const toolsets = options.toolsets === undefined ? 'all' : options.toolsets;
  if (toolsets !== null) headers['x-mcp-toolsets'] = toolsets;
  if (options.readOnly !== undefined) headers['x-mcp-readonly'] = options.readOnly;
  const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), { requestInit: { headers } });
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

const clientAjv = addFormats.default(new Ajv2020({ strict: false }));

/**
 * The check the SDK's Client makes of every tool result against the tool it listed (it throws
 * McpError -32602 when this fails): a tool with an outputSchema must return structuredContent
 * unless the result is an error, and any structuredContent must validate against that schema.
 */
export function clientAccepts(tool: { name: string; outputSchema?: object }, result: ToolResult): { ok: true } | { ok: false; reason: string } {
  if (!tool.outputSchema) return { ok: true };
  if (result.structuredContent === undefined) {
    return result.isError ? { ok: true } : { ok: false, reason: `tool ${tool.name} has an output schema but returned no structured content` };
  }
  const validate = clientAjv.compile(tool.outputSchema);
  return validate(result.structuredContent) ? { ok: true } : { ok: false, reason: `structured content does not match ${tool.name}'s output schema: ${clientAjv.errorsText(validate.errors)}` };
}

const SVC_BIN = projectPath('dist', 'surfaces', 'cli', 'svc.js');

/** The SDK Client speaking stdio to `svc mcp <args>`, which forwards to the server at `baseUrl`. */
export async function stdioMcpClient(baseUrl: string, key: string, args: string[] = [], capabilities: ClientCapabilities = {}): Promise<Client> {
  const client = new Client({ name: 'svc-stdio-tests', version: '1.0.0' }, { capabilities });
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: '/nonexistent', SVC_BASE_URL: baseUrl, SVC_API_KEY: key };
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [SVC_BIN, 'mcp', ...args], env, stderr: 'pipe' }));
  return client;
}
