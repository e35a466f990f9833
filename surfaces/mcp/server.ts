// The MCP surface: a stateless Streamable HTTP endpoint built on the SDK's low-level Server. One
// Server per process answers every caller; each request authenticates, picks the tools it sees
// (toolsets, read-only) and translates tool calls into `invoke`; results follow one rule for every
// tool (results.ts). A POST is answered with JSON, or with a stream when the server has something
// to send before the answer (progress, a question for the person).

import type { IncomingMessage, ServerResponse } from 'node:http';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv-provider.js';
import {
  CallToolRequestSchema,
  ElicitResultSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  SUPPORTED_PROTOCOL_VERSIONS,
  type CallToolResult,
  type JSONRPCMessage,
} from '@modelcontextprotocol/sdk/types.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { Principal } from '../../src/auth/principal.js';
import { ServiceError, envelopeOf, httpStatusOf } from '../../src/errors.js';
import { parseToolsets, type Toolset } from '../../src/catalogue/toolsets.js';
import type { OperationDefinition } from '../../src/catalogue/define.js';
import type { ProgressUpdate } from '../../src/pipeline/invoke-types.js';
import type { Service } from '../../src/service.js';
import { declinedResult, errorResult, successResult } from './results.js';
import { MCP_PAGE_SIZE, toolName, toolsFor, type ToolDefinition } from './tools.js';
import { ExchangeTransport } from './exchange.js';
import { invokeFollowing } from './follow.js';
import { sessionIdFor, sessionOf } from './session.js';
import { progressListener } from './progress.js';
import { ASK_FIRST, QUESTION_TIMEOUT_MS, type AskingCall } from './confirm.js';
import { serverInstructions } from './instructions.js';
import { overBudget } from './answer-budget.js';

const UNAUTHORIZED = -32001;
/** How often an open stream gets a comment line while a tool works or waits for a person, so proxies keep it open. */
const KEEPALIVE_MS = 15_000;
// The SDK builds an Ajv instance per Server unless given one.
const sharedValidator = new AjvJsonSchemaValidator();

interface Caller {
  principal: Principal;
  requestId: string;
  /** The tools this request sees: its toolsets, and only read-only tools in read-only mode. */
  visible: (tool: ToolDefinition) => boolean;
  /** The caller takes an event stream: progress and questions can reach it. */
  streams: boolean;
  /** The client said at initialize that it can ask its user (form elicitation). */
  canAsk: boolean;
  /** The JSON of a successful tools/call result, set by the tool handler (the SDK passes it on unchanged). */
  resultJson?: string;
}

export interface McpEndpoint {
  tools: ToolDefinition[];
  transport: ExchangeTransport;
  server: Server;
  /** Each tool's toolset, by tool name. */
  toolsets: Map<string, Toolset>;
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

/** The MCP Server of a process: one, connected to the shared exchange; each call names its caller. */
export function createMcpEndpoint(service: Service): McpEndpoint {
  const ops = service.catalogue.list();
  const tools = toolsFor(ops, service.schemas);
  const byName = new Map<string, OperationDefinition>(ops.map((op) => [toolName(op.name), op]));
  const paged = new Set(ops.filter((op) => 'limit' in ((service.schemas.bundle(op.input).properties ?? {}) as object)).map((op) => op.name));
  const server = new Server(
    { name: 'svc', version: '1.0.0' },
    { capabilities: { tools: { listChanged: false } }, jsonSchemaValidator: sharedValidator, instructions: serverInstructions() },
  );
  const callerOf = (extra: { authInfo?: AuthInfo }) => extra.authInfo!.extra as unknown as Caller;
  server.setRequestHandler(ListToolsRequestSchema, async (_request, extra) => {
    const { principal, visible } = callerOf(extra);
    return { tools: tools.filter((t) => visible(t) && principal.scopes.has(byName.get(t.name)!.scope)) };
  });
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const caller = callerOf(extra);
    const { principal, requestId } = caller;
    const op = byName.get(request.params.name);
    const tool = op && tools.find((t) => t.name === request.params.name);
    // Outside the chosen toolsets (or read-only mode) a tool does not exist for this caller, whatever its scopes.
    if (!op || !tool || !caller.visible(tool))
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}. Call tools/list to see the tools of your toolsets.`);
    // An operation without idempotency lists no idempotencyKey, so the argument is refused as unknown, as on REST.
    const input = { ...request.params.arguments } as Record<string, unknown>;
    const idempotencyKey = op.idempotency === 'none' ? undefined : input.idempotencyKey;
    if (op.idempotency !== 'none') delete input.idempotencyKey;
    if (idempotencyKey !== undefined && typeof idempotencyKey !== 'string') {
      return errorResult(
        new ServiceError('validation_failed', 'idempotencyKey must be a string.', [
          { field: 'idempotencyKey', code: 'invalid_type', message: 'must be string' },
        ]),
        requestId,
      );
    }
    const onProgress = progressListener(request.params._meta?.progressToken, caller.streams, (n) => extra.sendNotification(n));
    const run = async (name: string, args: Record<string, unknown>, key: string | undefined, progress?: (u: ProgressUpdate) => void) =>
      (await service.invoke(name, principal, args, { requestId, idempotencyKey: key, onProgress: progress })).body as Record<string, any>;
    try {
      const askFirst = ASK_FIRST[op.name];
      if (askFirst && caller.canAsk && caller.streams) {
        const call: AskingCall = {
          invoke: (name, args, key) => run(name, args, key),
          ask: (message, requestedSchema) =>
            extra.sendRequest({ method: 'elicitation/create', params: { message, requestedSchema } }, ElicitResultSchema, {
              timeout: QUESTION_TIMEOUT_MS,
              signal: extra.signal,
            }),
        };
        const decision = await askFirst(input, idempotencyKey, requestId, call);
        if (!decision.proceed) return declinedResult(decision.body, decision.reason);
      }
      if (paged.has(op.name) && input.limit === undefined) input.limit = MCP_PAGE_SIZE;
      const result = callResult(
        (await invokeFollowing(service, op, principal, input, { requestId, idempotencyKey: idempotencyKey as string | undefined, onProgress })).body,
        caller,
      );
      const tooLarge = overBudget(op, input, Buffer.byteLength((result.content[0] as { text: string }).text));
      if (!tooLarge) return result;
      caller.resultJson = undefined;
      return errorResult(tooLarge, requestId);
    } catch (err) {
      if (!(err instanceof ServiceError)) service.log.error({ err, requestId }, 'unexpected error in a tool call');
      return errorResult(err, requestId);
    }
  });
  const transport = new ExchangeTransport();
  void server.connect(transport);
  return { tools, transport, server, toolsets: new Map(ops.map((op) => [toolName(op.name), op.toolset])) };
}

export interface McpHandlerOptions {
  /** Origins allowed to call from a browser; requests without an Origin header are always allowed. */
  allowedOrigins: string[];
  /** The request id already sent in Service-Request-Id. */
  requestId: string;
}

/** One header's value, or undefined when absent or sent twice. */
const header = (req: IncomingMessage, name: string): string | undefined => {
  const value = req.headers[name];
  return typeof value === 'string' ? value : undefined;
};

/**
 * The tools a request sees: the toolsets of X-MCP-Toolsets, else the server's (MCP_TOOLSETS);
 * read-only when X-MCP-Readonly: true or the server is read-only (a client can only narrow).
 */
function selectionOf(service: Service, req: IncomingMessage, toolsets: Map<string, Toolset>): (tool: ToolDefinition) => boolean {
  let chosen: Set<Toolset>;
  try {
    chosen = parseToolsets(header(req, 'x-mcp-toolsets')) ?? new Set(service.config.mcpToolsets);
  } catch (err) {
    throw new ServiceError('validation_failed', `X-MCP-Toolsets: ${(err as Error).message}.`, [
      { field: 'X-MCP-Toolsets', code: 'invalid_value', message: (err as Error).message },
    ]);
  }
  const asked = header(req, 'x-mcp-readonly')?.trim().toLowerCase();
  if (asked !== undefined && asked !== 'true' && asked !== 'false') {
    throw new ServiceError('validation_failed', 'X-MCP-Readonly must be true or false.', [
      { field: 'X-MCP-Readonly', code: 'invalid_value', message: 'must be true or false' },
    ]);
  }
  const readOnly = service.config.mcpReadOnly || asked === 'true';
  return (tool) => chosen.has(toolsets.get(tool.name)!) && (!readOnly || tool.annotations.readOnlyHint);
}

/** The initialize request of a body, if it holds one: its answer carries the session id. */
function initializeOf(body: unknown): { params?: { capabilities?: unknown } } | undefined {
  const messages = Array.isArray(body) ? body : [body];
  return messages.find((m) => m && typeof m === 'object' && (m as { method?: unknown }).method === 'initialize');
}

/** Writes one JSON-RPC message as a server-sent event. */
function writeEvent(res: ServerResponse, data: string): void {
  if (!res.writableEnded && !res.destroyed) res.write(`event: message\ndata: ${data}\n\n`);
}

/** Handles one HTTP request to the MCP endpoint (POST; GET and DELETE answer 405 in stateless mode). */
export async function handleMcpRequest(
  service: Service,
  endpoint: McpEndpoint,
  req: IncomingMessage,
  res: ServerResponse,
  body: unknown,
  options: McpHandlerOptions,
): Promise<void> {
  const { requestId } = options;
  const rpcError = (status: number, code: number, err: ServiceError, headers: Record<string, string> = {}) =>
    sendJson(res, status, { jsonrpc: '2.0', id: null, error: { code, message: err.message, data: envelopeOf(err, requestId).error } }, headers);

  const origin = req.headers.origin;
  if (origin && !options.allowedOrigins.includes(origin)) {
    return rpcError(403, -32000, new ServiceError('forbidden', `Origin ${origin} may not call this MCP server.`));
  }
  const version = req.headers['mcp-protocol-version'];
  if (typeof version === 'string' && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
    return rpcError(
      400,
      -32000,
      new ServiceError('validation_failed', `Unsupported MCP-Protocol-Version ${version}; supported: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')}.`, null),
    );
  }
  if (req.method !== 'POST') {
    return sendJson(
      res,
      405,
      { jsonrpc: '2.0', id: null, error: { code: -32000, message: 'This MCP server is stateless: send JSON-RPC with POST.' } },
      { allow: 'POST' },
    );
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
  let visible: Caller['visible'];
  try {
    visible = selectionOf(service, req, endpoint.toolsets);
  } catch (err) {
    return rpcError(400, ErrorCode.InvalidRequest, err as ServiceError);
  }
  const initialize = initializeOf(body);
  if (initialize) res.setHeader('mcp-session-id', sessionIdFor(initialize.params?.capabilities));
  const caller: Caller = {
    principal,
    requestId,
    visible,
    streams: /\btext\/event-stream\b/.test(header(req, 'accept') ?? ''),
    canAsk: sessionOf(req.headers['mcp-session-id']).elicitation,
  };
  let keepalive: NodeJS.Timeout | undefined;
  const stream = (message: JSONRPCMessage) => {
    if (!res.headersSent) {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      keepalive = setInterval(() => !res.writableEnded && !res.destroyed && res.write(': keep-alive\n\n'), KEEPALIVE_MS);
    }
    writeEvent(res, JSON.stringify(message));
  };
  const gone = new AbortController();
  const onClose = () => !res.writableEnded && gone.abort();
  res.once('close', onClose);
  const authInfo: AuthInfo = {
    token: 'bearer',
    clientId: principal.credentialId,
    scopes: [...principal.scopes],
    extra: caller as unknown as Record<string, unknown>,
  };
  try {
    const { answers, unknownAnswers } = await endpoint.transport.exchange(body, {
      authInfo,
      onEarly: caller.streams ? stream : undefined,
      signal: gone.signal,
    });
    // One tools/call answered: its result is already serialised.
    const single = !Array.isArray(answers) && answers && 'result' in answers && caller.resultJson !== undefined;
    const json = single ? `{"result":${caller.resultJson},"jsonrpc":"2.0","id":${JSON.stringify(answers.id)}}` : JSON.stringify(answers);
    if (res.headersSent) {
      for (const answer of Array.isArray(answers) ? answers : [answers]) writeEvent(res, single ? json : JSON.stringify(answer));
      res.end();
    } else if (answers === null && unknownAnswers.length) {
      sendJson(res, 404, {
        jsonrpc: '2.0',
        id: null,
        error: {
          code: -32600,
          message: `No question ${unknownAnswers.join(', ')} is waiting here: it was answered, timed out, or asked by another server process.`,
        },
      });
    } else if (answers === null) {
      res.writeHead(202);
      res.end();
    } else {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(json);
    }
  } catch {
    if (res.headersSent) res.end();
    else sendJson(res, 400, { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'The body is not a JSON-RPC 2.0 message or batch.' } });
  } finally {
    clearInterval(keepalive);
    res.off('close', onClose);
  }
}
