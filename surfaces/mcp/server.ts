// The MCP surface: a stateless Streamable HTTP endpoint built on the SDK's low-level Server.
// Each request authenticates, builds a fresh Server for its principal, and translates tool calls
// into `invoke`; failures come back as tool results with `isError` and the REST error envelope.

import crypto from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema, SUPPORTED_PROTOCOL_VERSIONS, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Principal } from '../../src/auth/principal.js';
import { ServiceError, envelopeOf, httpStatusOf } from '../../src/errors.js';
import type { Service } from '../../src/service.js';
import { toolFor, toolName, type ToolDefinition } from './tools.js';

const UNAUTHORIZED = -32001;

/** Every tool of the catalogue, built once per service. */
export function toolsOf(service: Service): ToolDefinition[] {
  return service.catalogue.list().map((op) => toolFor(op, service.schemas));
}

function resourceMetadataUrl(service: Service): string {
  return `${service.config.baseUrl}/.well-known/oauth-protected-resource/mcp`;
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

function callResult(body: unknown): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(body) }], structuredContent: body as Record<string, unknown> };
}

function errorResult(err: unknown, requestId: string): CallToolResult {
  const envelope = envelopeOf(err, requestId);
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(envelope) }], structuredContent: envelope as unknown as Record<string, unknown> };
}

/** A low-level MCP Server answering for one principal. */
function serverFor(service: Service, principal: Principal, tools: ToolDefinition[], requestId: string): Server {
  const byName = new Map(service.catalogue.list().map((op) => [toolName(op.name), op]));
  const server = new Server({ name: 'svc', version: '1.0.0' }, { capabilities: { tools: { listChanged: false } } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: tools.filter((t) => principal.scopes.has(byName.get(t.name)!.scope)),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const op = byName.get(request.params.name);
    const callId = `${requestId}_${crypto.randomUUID().slice(0, 8)}`;
    if (!op) return errorResult(new ServiceError('not_found', `No tool named ${request.params.name}; call tools/list to see the tools.`), callId);
    const { idempotencyKey, ...input } = (request.params.arguments ?? {}) as Record<string, unknown>;
    if (idempotencyKey !== undefined && typeof idempotencyKey !== 'string') {
      return errorResult(new ServiceError('validation_failed', 'idempotencyKey must be a string.', [{ field: 'idempotencyKey', code: 'invalid_type', message: 'must be string' }]), callId);
    }
    try {
      const result = await service.invoke(op.name, principal, input, { requestId: callId, idempotencyKey: idempotencyKey as string | undefined });
      return callResult(result.body);
    } catch (err) {
      if (!(err instanceof ServiceError)) service.log.error({ err, requestId: callId }, 'unexpected error in a tool call');
      return errorResult(err, callId);
    }
  });
  return server;
}

export interface McpHandlerOptions {
  /** Origins allowed to call from a browser; requests without an Origin header are always allowed. */
  allowedOrigins: string[];
}

/** Handles one HTTP request to the MCP endpoint (POST; GET and DELETE answer 405 in stateless mode). */
export async function handleMcpRequest(service: Service, tools: ToolDefinition[], req: IncomingMessage, res: ServerResponse, body: unknown, options: McpHandlerOptions): Promise<void> {
  const requestId = `req_${crypto.randomUUID().replace(/-/g, '')}`;
  res.setHeader('Service-Request-Id', requestId);
  const rpcError = (status: number, code: number, err: ServiceError, headers: Record<string, string> = {}) =>
    sendJson(res, status, { jsonrpc: '2.0', id: null, error: { code, message: err.message, data: envelopeOf(err, requestId).error } }, headers);

  const origin = req.headers.origin;
  if (origin && !options.allowedOrigins.includes(origin)) {
    return rpcError(403, -32000, new ServiceError('forbidden', `Origin ${origin} may not call this MCP server.`));
  }
  const version = req.headers['mcp-protocol-version'];
  if (typeof version === 'string' && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
    return rpcError(400, -32000, new ServiceError('validation_failed', `Unsupported MCP-Protocol-Version ${version}; supported: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')}.`, null));
  }
  if (req.method !== 'POST') {
    return sendJson(res, 405, { jsonrpc: '2.0', id: null, error: { code: -32000, message: 'This MCP server is stateless: send JSON-RPC with POST.' } }, { allow: 'POST' });
  }
  let principal: Principal;
  try {
    principal = await service.authenticate(req.headers.authorization, 'mcp');
  } catch (err) {
    const e = err instanceof ServiceError ? err : new ServiceError('unauthenticated', 'Authentication failed.');
    const status = httpStatusOf[e.code];
    const challenge = `Bearer resource_metadata="${resourceMetadataUrl(service)}"${status === 401 ? ', error="invalid_token"' : ''}`;
    return rpcError(status, status === 401 ? UNAUTHORIZED : -32003, e, { 'www-authenticate': challenge });
  }
  const server = serverFor(service, principal, tools, requestId);
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  res.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, body);
}
