// Connects the MCP SDK's real Client to a listening server with a bearer credential.

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv-provider.js';

// One Ajv for the tests' MCP clients and for clientAccepts, with the formats the schemas use.
const clientAjv = addFormats.default(new Ajv2020({ strict: false }));

export async function mcpClient(baseUrl: string, key: string | null): Promise<Client> {
  // The Client checks every structuredContent against the tool's outputSchema with this Ajv (formats registered).
  const client = new Client({ name: 'svc-tests', version: '1.0.0' }, { jsonSchemaValidator: new AjvJsonSchemaValidator(clientAjv as never) });
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
