// Connects the MCP SDK's real Client to a listening server with a bearer credential, and reads its results.

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv-provider.js';
import { projectPath } from '../../src/paths.js';
import type { ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';

// One Ajv for the tests' MCP clients and for clientAccepts, with the formats the schemas use.
const clientAjv = addFormats.default(new Ajv2020({ strict: false }));
/** The Client checks every structuredContent against the tool's outputSchema with this Ajv (formats registered). */
const clientValidator = () => new AjvJsonSchemaValidator(clientAjv as never);

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
  const client = new Client({ name: 'svc-tests', version: '1.0.0' }, { capabilities: options.capabilities ?? {}, jsonSchemaValidator: clientValidator() });
  const headers: Record<string, string> = key ? { authorization: `Bearer ${key}` } : {};
  const toolsets = options.toolsets === undefined ? 'all' : options.toolsets;
  if (toolsets !== null) headers['x-mcp-toolsets'] = toolsets;
  if (options.readOnly !== undefined) headers['x-mcp-readonly'] = options.readOnly;
  const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), { requestInit: { headers } });
  await client.connect(transport);
  return client;
}

/** `value` with every id sent as digits (REST takes both) given as the integer a portable input schema asks for, as a model following it sends it. */
export function asIntegers(value: unknown, schema: Record<string, any> | undefined): any {
  if (typeof value === 'string' && schema?.type === 'integer' && /^[1-9][0-9]*$/.test(value)) return Number(value);
  if (Array.isArray(value)) return value.map((v) => asIntegers(v, schema?.items));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, asIntegers(v, schema?.properties?.[k])]));
  return value;
}

/**
 * A REST answer as a tool gives it (paths.md's portable subset: a field that may be left out is
 * optional rather than nullable): its top-level nulls left out, a null that means "all" said with
 * the flag the tool's input takes (brandIds: allBrands, objectIds: allObjects).
 */
export function asToolAnswer(body: Record<string, unknown>): Record<string, unknown> {
  const flags: Record<string, string> = { brandIds: 'allBrands', objectIds: 'allObjects' };
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) {
    if (value !== null) out[key] = value;
    else if (flags[key]) out[flags[key]] = true;
  }
  return out;
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
  return validate(result.structuredContent)
    ? { ok: true }
    : { ok: false, reason: `structured content does not match ${tool.name}'s output schema: ${clientAjv.errorsText(validate.errors)}` };
}

const SVC_BIN = projectPath('dist', 'surfaces', 'cli', 'svc.js');

/** The SDK Client speaking stdio to `svc mcp <args>`, which forwards to the server at `baseUrl`. */
export async function stdioMcpClient(baseUrl: string, key: string, args: string[] = [], capabilities: ClientCapabilities = {}): Promise<Client> {
  const client = new Client({ name: 'svc-stdio-tests', version: '1.0.0' }, { capabilities, jsonSchemaValidator: clientValidator() });
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: '/nonexistent', SVC_BASE_URL: baseUrl, SVC_API_KEY: key };
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [SVC_BIN, 'mcp', ...args], env, stderr: 'pipe' }));
  return client;
}

type ListedTool = { name: string; inputSchema: Record<string, unknown>; outputSchema?: Record<string, unknown> };
type SchemaNode = Record<string, any>;

/** "As config in create_structure_template's input.", "As the answer.", "As get_automation's answer." */
const REFERENCE = /^As (?:(.+?) in )?(?:the |(\w+)'s )(input|answer)\.$/;

/** `node` with every `$ref: "#/$defs/<name>"` replaced by that definition of `defs`. */
function inlineDefs(node: unknown, defs: Record<string, unknown>): any {
  if (Array.isArray(node)) return node.map((n) => inlineDefs(n, defs));
  if (!node || typeof node !== 'object') return node;
  const ref = (node as SchemaNode).$ref;
  if (typeof ref === 'string' && ref.startsWith('#/$defs/')) return inlineDefs(defs[ref.slice('#/$defs/'.length)], defs);
  return Object.fromEntries(
    Object.entries(node)
      .filter(([k]) => k !== '$defs')
      .map(([k, v]) => [k, k === 'enum' || k === 'const' ? v : inlineDefs(v, defs)]),
  );
}

/**
 * A tool's schema as an agent reads it with the whole list at hand: local `$defs` inlined, and each
 * part written elsewhere in its toolset ("As config in create_structure_template's input.")
 * replaced by that part, so it validates what the place it names validates.
 */
export function followedSchema(tool: ListedTool, side: 'input' | 'answer', tools: ListedTool[]): SchemaNode {
  const own = side === 'input' ? tool.inputSchema : tool.outputSchema!;
  const resolve = (node: unknown, from: ListedTool): any => {
    if (Array.isArray(node)) return node.map((n) => resolve(n, from));
    if (!node || typeof node !== 'object') return node;
    const s = node as SchemaNode;
    const match = typeof s.description === 'string' && !s.properties && !s.items && !s.enum ? REFERENCE.exec(s.description) : null;
    if (match) {
      const [, path, name, whole] = match;
      const target = name ? tools.find((t) => t.name === name)! : from;
      let part: any = followedSchema(target, whole as 'input' | 'answer', tools);
      for (const segment of (path ?? '').split('.').filter(Boolean)) {
        const [prop, ...arrays] = segment.split('[]');
        part = part.properties[prop];
        for (let i = 0; i < arrays.length; i++) part = part.items;
      }
      return part;
    }
    return Object.fromEntries(
      Object.entries(s).map(([k, v]) => [
        k,
        k === 'enum' || k === 'const' || k === 'required'
          ? v
          : k === 'properties'
            ? Object.fromEntries(Object.entries(v as SchemaNode).map(([p, sub]) => [p, resolve(sub, from)]))
            : resolve(v, from),
      ]),
    );
  };
  return resolve(inlineDefs(own, (own.$defs ?? {}) as Record<string, unknown>), tool);
}
