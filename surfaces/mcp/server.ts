// The MCP surface: a stateless Streamable HTTP endpoint built on the SDK's low-level Server.
// Each request authenticates, builds a fresh Server for its principal, and translates tool calls
// into `invoke`; results follow one rule for every tool (results.ts).

import type { IncomingMessage, ServerResponse } from 'node:http';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv-provider.js';
import { CallToolRequestSchema, ListToolsRequestSchema, SUPPORTED_PROTOCOL_VERSIONS, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Principal } from '../../src/auth/principal.js';
import { ServiceError, envelopeOf, httpStatusOf } from '../../src/errors.js';
import { errorResult, successResult } from './results.js';
import type { Service } from '../../src/service.js';
import { toolFor, toolName, type ToolDefinition } from './tools.js';
import { ExchangeTransport } from './exchange.js';
import { invokeFollowing } from './follow.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';

const UNAUTHORIZED = -32001;
// The SDK builds an Ajv instance per Server unless given one; a Server is built per request here.
const sharedValidator = new AjvJsonSchemaValidator();

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

function callResult(body: unknown, caller: Caller): CallToolResult {
  const { result, json } = successResult(body);
  caller.resultJson = json;
  return result;
}

/** The MCP Server of a process: one, connected to the shared exchange; each call names its principal. */
export function createMcpEndpoint(service: Service): { tools: ToolDefinition[]; transport: ExchangeTransport; server: Server } {
  const tools = toolsOf(service);
  const byName = new Map(service.catalogue.list().map((op) => [toolName(op.name), op]));
  const server = new Server({ name: 'svc', version: '1.0.0' }, { capabilities: { tools: { listChanged: false } }, jsonSchemaValidator: sharedValidator });
  const callerOf = (extra: { authInfo?: AuthInfo }) => extra.authInfo!.extra as unknown as Caller;
  server.setRequestHandler(ListToolsRequestSchema, async (_request, extra) => {
    const { principal } = callerOf(extra);
    return { tools: tools.filter((t) => principal.scopes.has(byName.get(t.name)!.scope)) };
  });
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const caller = callerOf(extra);
    const { principal, requestId } = caller;
    const op = byName.get(request.params.name);
    if (!op) return errorResult(new ServiceError('not_found', `No tool named ${request.params.name}; call tools/list to see the tools.`), requestId);
    // An operation without idempotency lists no idempotencyKey, so the argument is refused as unknown, as on REST.
    const input = { ...request.params.arguments } as Record<string, unknown>;
    const idempotencyKey = op.idempotency === 'none' ? undefined : input.idempotencyKey;
    if (op.idempotency !== 'none') delete input.idempotencyKey;
    if (idempotencyKey !== undefined && typeof idempotencyKey !== 'string') {
      return errorResult(new ServiceError('validation_failed', 'idempotencyKey must be a string.', [{ field: 'idempotencyKey', code: 'invalid_type', message: 'must be string' }]), requestId);
    }
    try {
      const result = await invokeFollowing(service, op, principal, input, { requestId, idempotencyKey: idempotencyKey as string | undefined });
      return callResult(result.body, caller);
    } catch (err) {
      if (!(err instanceof ServiceError)) service.log.error({ err, requestId }, 'unexpected error in a tool call');
      return errorResult(err, requestId);
    }
  });
  const transport = new ExchangeTransport();
  void server.connect(transport);
  return { tools, transport, server };
}

interface Caller {
  principal: Principal;
  requestId: string;
  /** The JSON of a successful tools/call result, set by the tool handler (the SDK passes it on unchanged). */
  resultJson?: string;
}

export interface McpHandlerOptions {
  /** Origins allowed to call from a browser; requests without an Origin header are always allowed. */
  allowedOrigins: string[];
  /** The request id already sent in Service-Request-Id. */
  requestId: string;
}

/** Handles one HTTP request to the MCP endpoint (POST; GET and DELETE answer 405 in stateless mode). */
export async function handleMcpRequest(service: Service, endpoint: ReturnType<typeof createMcpEndpoint>, req: IncomingMessage, res: ServerResponse, body: unknown, options: McpHandlerOptions): Promise<void> {
  const { requestId } = options;
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
    const challenge = `Bearer resource_metadata="${resourceMetadataUrl(service)}"${status === 401 && req.headers.authorization ? ', error="invalid_token"' : ''}`;
    return rpcError(status, status === 401 ? UNAUTHORIZED : -32003, e, { 'www-authenticate': challenge });
  }
  try {
    const caller: Caller = { principal, requestId };
    const answer = await endpoint.transport.exchange(body, { token: 'bearer', clientId: principal.credentialId, scopes: [...principal.scopes], extra: caller as unknown as Record<string, unknown> });
    if (answer === null) {
      res.writeHead(202);
      res.end();
    } else if (!Array.isArray(answer) && 'result' in answer && caller.resultJson !== undefined) {
      // One tools/call answered: its result is already serialised.
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(`{"result":${caller.resultJson},"jsonrpc":"2.0","id":${JSON.stringify(answer.id)}}`);
    } else sendJson(res, 200, answer);
  } catch {
    sendJson(res, 400, { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'The body is not a JSON-RPC 2.0 message or batch.' } });
  }
}
