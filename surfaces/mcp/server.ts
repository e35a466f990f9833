// The MCP surface: a stateless Streamable HTTP endpoint built on the SDK's low-level Server. One
// Server per process answers every caller; each request authenticates, picks the tools it sees
// (toolsets, read-only) and translates tool calls into `invoke`; results follow one rule for every
// tool (results.ts). A POST is answered with JSON, or with a stream when the server has something
// to send before the answer (progress, a question for the person). A POST of one plain tools/call
// that can have nothing to send first (no progress token, no question to ask) runs the same tool
// handler beside the Server, without its per-message schema parses and bookkeeping (`direct`).

import type { IncomingMessage, ServerResponse } from 'node:http';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv-provider.js';
import {
  CallToolRequestSchema,
  ElicitResultSchema,
  ErrorCode,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  SUPPORTED_PROTOCOL_VERSIONS,
  type CallToolResult,
  type JSONRPCMessage,
  type ServerNotification,
} from '@modelcontextprotocol/sdk/types.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { Principal } from '../../src/auth/principal.js';
import { ServiceError, envelopeOf, httpStatusOf } from '../../src/errors.js';
import { TOOLSETS, TOOLSET_NAMES, isToolset, parseChoice, type Toolset } from '../../src/toolsets.js';
import type { OperationDefinition } from '../../src/catalogue/define.js';
import type { ProgressUpdate } from '../../src/catalogue/invoke-types.js';
import type { Service } from '../../src/service.js';
import { asToolAnswer, declinedResult, errorResult, successResult } from './results.js';
import { MCP_PAGE_SIZE, NULL_ALTERNATIVES, operationWords, toolName, toolsFor, type ToolDefinition } from './tools.js';
import { ExchangeTransport } from './exchange.js';
import { strictForm, withoutNulls } from './strict-schema.js';
import { invokeFollowing } from './follow.js';
import { enableToolset, enabledToolsets, sessionBelongsTo, sessionIdFor, sessionOf } from './session.js';
import { progressListener } from './progress.js';
import { ASK_FIRST, waitForPerson, type AskingCall } from './confirm.js';
import { waitForDecision, type ApprovalAnswer, type UrlAsking } from './approval-wait.js';
import { MONEY_OPERATIONS, decidedByPerson, describeKind } from '../../src/approvals/gate.js';
import { serverInstructions } from './instructions.js';
import { overBudget } from './answer-budget.js';
import { KeptAnswers, parseUri, readUri } from './resources.js';
import { DYNAMIC_TOOLS, ENABLE_TOOLSET, LIST_TOOLSETS } from './dynamic.js';

const UNAUTHORIZED = -32001;
/** JSON-RPC error of a request whose Mcp-Session-Id this credential did not open (404). */
const SESSION_NOT_FOUND = -32001;
/** How often an open stream gets a comment line while a tool works or waits for a person, so proxies keep it open. */
const KEEPALIVE_MS = 15_000;
// The SDK builds an Ajv instance per Server unless given one.
const sharedValidator = new AjvJsonSchemaValidator();

interface Caller {
  principal: Principal;
  requestId: string;
  /** The tools this request sees: its toolsets, and only read-only tools in read-only mode. */
  visible: (tool: ToolDefinition) => boolean;
  /** The client chose `dynamic`: it lists list_toolsets and enable_toolset, and sees the toolsets its session enabled. */
  dynamic: boolean;
  /** The Mcp-Session-Id the request carries, by which toolsets enabled in-band are remembered. */
  sessionId?: string;
  /** The caller takes an event stream: progress and questions can reach it. */
  streams: boolean;
  /** The client said at initialize that it can ask its user (form elicitation). */
  canAsk: boolean;
  /** The client asked for input schemas in OpenAI's strict form (X-MCP-Schema: strict, strict-schema.ts). */
  strictSchemas: boolean;
  /** The client said at initialize that it can send its user to a page (URL-mode elicitation): an approval is asked for there. */
  canOpenUrl?: boolean;
  /** The JSON of a successful tools/call result, set by the tool handler (the SDK passes it on unchanged). */
  resultJson?: string;
}

export interface McpEndpoint {
  tools: ToolDefinition[];
  transport: ExchangeTransport;
  server: Server;
  /** Each tool's toolset, by tool name. */
  toolsets: Map<string, Toolset>;
  /**
   * The result JSON of a body that is one plain tools/call this caller can be answered without the
   * SDK's Server (nothing to stream, nobody to ask; see directCall), or undefined: the SDK answers it.
   */
  direct(body: unknown, caller: Caller): Promise<string | undefined>;
}

/** What a tool call can send before its answer: the SDK request handler's extra, when it runs through the Server. */
interface CallChannel {
  sendNotification?: (notification: ServerNotification) => Promise<void>;
  ask?: AskingCall['ask'];
  /** Sends the person to a page (URL-mode elicitation), when the client can. */
  askUrl?: UrlAsking['askUrl'];
  /** Aborted when the caller cancels the call (notifications/cancelled, or its stream closed). */
  signal?: AbortSignal;
}

function resourceMetadataUrl(service: Service): string {
  return `${service.config.baseUrl}/.well-known/oauth-protected-resource/mcp`;
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  sendJsonText(res, JSON.stringify(body), status, headers);
}

/** A JSON answer with its length (writeHead without one would send it chunked). */
function sendJsonText(res: ServerResponse, json: string, status = 200, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(json), ...headers });
  res.end(json);
}

/**
 * An error answered to a JSON-RPC request, its message as written: the SDK's McpError would prefix
 * "MCP error <code>:", which the client's McpError prefixes again.
 */
function rpcFailure(code: number, message: string): Error {
  return Object.assign(new Error(message), { code });
}

/**
 * An error as the tool's caller reads it: the core names operations (`edit-live-campaign`), which
 * are tools here (`edit_live_campaign`), and the REST header Idempotency-Key is the tool's
 * idempotencyKey argument. Messages and the details' messages alike.
 */
function inToolWords(err: unknown, operations: RegExp): unknown {
  if (!(err instanceof ServiceError)) return err;
  const words = (text: string) =>
    text
      .replace(/an Idempotency-Key/g, 'an idempotencyKey argument')
      .replace(/Idempotency-Key/g, 'idempotencyKey')
      .replace(operations, (name) => toolName(name));
  const details = Array.isArray(err.details)
    ? err.details.map((d) => ({
        ...d,
        field: d.field === 'Idempotency-Key' ? 'idempotencyKey' : d.field,
        message: typeof d.message === 'string' ? words(d.message) : d.message,
      }))
    : err.details;
  const message = words(err.message);
  if (message === err.message && details === err.details) return err;
  return new ServiceError(err.code, message, details, err.retryAfter);
}

/** MCP's code for a resource that does not exist (2025-06-18, Resources: Error Handling). */
const RESOURCE_NOT_FOUND = -32002;

/** `result` with one more sentence for the agent. */
function withText(result: CallToolResult, text: string): CallToolResult {
  return { ...result, content: [...result.content, { type: 'text', text }] };
}

function callResult(body: unknown, caller: Caller): CallToolResult {
  const { result, json } = successResult(body);
  caller.resultJson = json;
  return result;
}

const REQUEST_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);
const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The id, name and arguments of a body that is one tools/call the SDK would take as it is
 * (JSON-RPC 2.0 request, name a string, arguments an object or absent) and that carries nothing
 * but them: no `_meta` (no progress token), no task. Anything else goes through the SDK's Server.
 */
function plainToolCall(body: unknown): { id: string | number; name: string; args: Record<string, unknown> | undefined } | undefined {
  if (!isPlainObject(body) || body.jsonrpc !== '2.0' || body.method !== 'tools/call') return undefined;
  const { id, params } = body;
  if (!(typeof id === 'string' || Number.isInteger(id)) || !isPlainObject(params)) return undefined;
  for (const key in body) if (!REQUEST_KEYS.has(key)) return undefined;
  for (const key in params) if (key !== 'name' && key !== 'arguments') return undefined;
  const { name, arguments: args } = params;
  if (typeof name !== 'string' || (args !== undefined && !isPlainObject(args))) return undefined;
  return { id: id as string | number, name, args };
}

/** The SDK's serialisation of a tool result its Server checked (CallToolResultSchema): content, structuredContent, isError. */
function resultJsonOf(result: CallToolResult): string {
  const { content, structuredContent, isError } = result;
  return JSON.stringify({ content, structuredContent, isError });
}

/** The MCP Server of a process: one, connected to the shared exchange; each call names its caller. */
export function createMcpEndpoint(service: Service): McpEndpoint {
  const ops = service.catalogue.list();
  const tools = toolsFor(ops, service.schemas);
  const byName = new Map<string, OperationDefinition>(ops.map((op) => [toolName(op.name), op]));
  const operationNames = operationWords(ops);
  const toolByName = new Map(tools.map((t) => [t.name, t]));
  // Each tool in the strict form, made on first ask and kept.
  const strictTools = new Map<string, ToolDefinition>();
  const strictTool = (t: ToolDefinition): ToolDefinition => {
    let strict = strictTools.get(t.name);
    if (!strict) strictTools.set(t.name, (strict = { ...t, inputSchema: strictForm(t.inputSchema) as ToolDefinition['inputSchema'] }));
    return strict;
  };
  const toolsetOf = new Map<string, Toolset>(ops.map((op) => [toolName(op.name), op.toolset]));
  const paged = new Set(ops.filter((op) => 'limit' in ((service.schemas.bundle(op.input).properties ?? {}) as object)).map((op) => op.name));
  const server = new Server(
    { name: 'svc', version: '1.0.0' },
    { capabilities: { tools: { listChanged: true }, resources: {} }, jsonSchemaValidator: sharedValidator, instructions: serverInstructions() },
  );
  const kept = new KeptAnswers();
  const callerOf = (extra: { authInfo?: AuthInfo }) => extra.authInfo!.extra as unknown as Caller;
  /** The tool of this name as this caller sees it: outside its toolsets (or read-only mode) a tool does not exist for it, whatever its scopes. */
  const visibleTool = (caller: Caller, name: string) => {
    const op = byName.get(name);
    const tool = op && toolByName.get(name);
    return op && tool && caller.visible(tool) ? op : undefined;
  };

  /** One tools/call of a visible tool, as the caller; every outcome is a result (failures are isError results). */
  async function callTool(caller: Caller, op: OperationDefinition, args: Record<string, unknown> | undefined, progressToken: unknown, channel: CallChannel) {
    const input = toolArguments(op, caller.strictSchemas ? withoutNulls(args) : args);
    if (!input.ok) return errorResult(input.error, caller.requestId);
    return callToolWith(caller, op, input.value, progressToken, channel);
  }

  /**
   * The arguments as the core takes them: an id given as a string of digits is the integer the
   * schema names; a null alternative (`allBrands: true`) is the REST body's `null`.
   */
  function toolArguments(
    op: OperationDefinition,
    args: Record<string, unknown> | undefined,
  ): { ok: true; value: Record<string, unknown> } | { ok: false; error: ServiceError } {
    const input = { ...args } as Record<string, unknown>;
    const properties = (toolByName.get(toolName(op.name))?.inputSchema.properties ?? {}) as Record<string, { type?: string; items?: { type?: string } }>;
    const digits = (v: unknown) => (typeof v === 'string' && /^[0-9]{1,15}$/.test(v) ? Number(v) : v);
    for (const [name, value] of Object.entries(input)) {
      if (!/Ids?$/.test(name)) continue;
      const schema = properties[name];
      if (schema?.type === 'integer') input[name] = digits(value);
      else if (schema?.type === 'array' && schema.items?.type === 'integer' && Array.isArray(value)) input[name] = value.map(digits);
    }
    const alternative = NULL_ALTERNATIVES[op.name];
    if (alternative && alternative.flag in input) {
      const on = input[alternative.flag];
      delete input[alternative.flag];
      if (typeof on !== 'boolean') {
        return {
          ok: false,
          error: new ServiceError('validation_failed', `${alternative.flag} must be true or false.`, [
            { field: alternative.flag, code: 'invalid_type', message: 'must be boolean' },
          ]),
        };
      }
      if (on && input[alternative.field] !== undefined) {
        const message = `Send ${alternative.field} or ${alternative.flag}: true, not both.`;
        return { ok: false, error: new ServiceError('validation_failed', message, [{ field: alternative.flag, code: 'invalid_value', message }]) };
      }
      if (on) input[alternative.field] = null;
    }
    return { ok: true, value: input };
  }

  /** callTool with the arguments as the core takes them. */
  async function callToolWith(caller: Caller, op: OperationDefinition, input: Record<string, unknown>, progressToken: unknown, channel: CallChannel) {
    const { principal, requestId } = caller;
    // An operation without idempotency lists no idempotencyKey, so the argument is refused as unknown, as on REST.
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
    const notify = channel.sendNotification;
    const listener = notify && progressListener(progressToken, caller.streams, (n) => notify(n));
    // Progress sent while the person was asked comes first; the operation's own counts follow it.
    let waits = 0;
    const onProgress =
      listener && ((u: ProgressUpdate) => listener({ ...u, progress: u.progress + waits, ...(u.total !== undefined ? { total: u.total + waits } : {}) }));
    const confirmMs = service.config.mcpConfirmTimeoutS * 1000;
    const onWait =
      listener &&
      ((n: number) => {
        waits = n;
        listener({ progress: n, message: `Waiting for the person to confirm (at most ${service.config.mcpConfirmTimeoutS} s)` });
      });
    const run = async (name: string, a: Record<string, unknown>, key: string | undefined, progress?: (u: ProgressUpdate) => void) =>
      (await service.invoke(name, principal, a, { requestId, idempotencyKey: key, onProgress: progress, surface: 'mcp' })).body as Record<string, any>;
    let asked = false;
    try {
      // A client that can send the person to a page, in an organization where people decide: the approval is the question (asked after the call).
      const urlAsk =
        caller.canOpenUrl && caller.streams && channel.askUrl && MONEY_OPERATIONS.has(op.name) && (await decidedByPerson(service.knex, principal))
          ? channel.askUrl
          : undefined;
      const askFirst = !urlAsk && Object.hasOwn(ASK_FIRST, op.name) ? ASK_FIRST[op.name] : undefined;
      // A call its operation refuses as sent (scope, Idempotency-Key, then input) is refused as the operation would, before anyone is asked or any plan read.
      if (askFirst && principal.scopes.has(op.scope) && !(op.idempotency === 'required' && idempotencyKey === undefined)) {
        const copy = structuredClone(input);
        if (op.method === 'PATCH') service.schemas.validatePatchInput(op.input, copy);
        else service.schemas.validateInput(op.input, copy);
      }
      if (askFirst) {
        // A client that cannot ask its user (no elicitation, or no stream to ask it on) confirms with the plan's fingerprint instead.
        const ask = channel.ask && caller.canAsk && caller.streams ? channel.ask : undefined;
        const call: AskingCall = {
          invoke: (name, a, key) => run(name, a, key),
          ask: ask && ((message, schema) => waitForPerson(() => ask(message, schema), { timeoutMs: confirmMs, signal: channel.signal, onWait })),
          db: service.knex,
          organizationId: principal.organizationId,
          canPublish: principal.scopes.has('publish'),
          fxRates: service.config.fxRates,
        };
        const decision = await askFirst(input, idempotencyKey, requestId, call);
        if (decision.proceed === false) return declinedResult(decision.body, decision.reason);
        if (decision.proceed === 'without-publish') return await placedWithoutPublish(op, input, idempotencyKey, caller, decision.reason);
        // A call cancelled while it asked is dead, whatever the answer said (a card is placed, without a publish).
        if (channel.signal?.aborted) {
          const said = 'Nothing was done: the call was cancelled.';
          return op.name.endsWith('pipeline-card') ? await placedWithoutPublish(op, input, idempotencyKey, caller, said) : declinedResult({}, said);
        }
        // What the person confirmed is what is done: the call goes on bound to the plan the question showed.
        if (decision.input) Object.assign(input, decision.input);
        asked = decision.input !== undefined && call.ask !== undefined;
      }
      if (paged.has(op.name) && input.limit === undefined) input.limit = MCP_PAGE_SIZE;
      const answered = await invokeFollowing(service, op, principal, input, {
        requestId,
        idempotencyKey: idempotencyKey as string | undefined,
        onProgress,
        surface: 'mcp',
      });
      let body = asToolAnswer(answered.body as Record<string, unknown>);
      let result: CallToolResult;
      // Accepted, not done, on a client that can open the console page: the person is sent there and the call waits for the decision.
      if (answered.status === 202 && typeof body.consoleUrl === 'string' && urlAsk) {
        const approval = body as ApprovalAnswer;
        const decided = await waitForDecision(approval, `${toolName(op.name)} (${describeKind(approval.kind)})`, {
          askUrl: (params) => urlAsk(params),
          read: async () => (await run('get-approval', { brandId: approval.brandId, approvalId: approval.approvalId }, undefined)) as ApprovalAnswer,
          timeoutMs: confirmMs,
          signal: channel.signal,
          onWait,
        });
        body = asToolAnswer(decided.body);
        result = decided.status === 'approved' ? withText(callResult(body, caller), decided.said) : declinedResult(body, decided.said);
        // The result is written as it now stands (with the sentence), not from the JSON made of the answer alone.
        caller.resultJson = undefined;
      } else {
        result = callResult(body, caller);
        // Accepted, not done: the organization wants a person to decide (an approval), and the agent is told where.
        if (answered.status === 202 && typeof body.consoleUrl === 'string') {
          // The result is written as it now stands, not from the JSON made of the answer alone.
          caller.resultJson = undefined;
          result.content.push({
            type: 'text',
            text: `Nothing was done yet: this organization wants a person to decide. Approval ${String(body.approvalId)} waits for an owner or admin at ${body.consoleUrl}; read it with get_approval (status waiting, approved, rejected, expired or stale).`,
          });
        }
      }
      const text = (result.content[0] as { text: string }).text;
      const brandId = typeof input.brandId === 'number' ? input.brandId : null;
      const cutResult = overBudget(body, text, () => ({
        uri: op.annotations.readOnly ? readUri(toolName(op.name), input) : kept.keep(principal, brandId, op.scope, text),
        name: `${toolName(op.name)} answer`,
      }));
      if (!cutResult) return result;
      caller.resultJson = undefined;
      return cutResult;
    } catch (err) {
      if (!(err instanceof ServiceError)) service.log.error({ err, requestId }, 'unexpected error in a tool call');
      const staleReason = err instanceof ServiceError && err.code === 'stale_read' ? (err.details as { reason?: string } | null)?.reason : undefined;
      if (asked && (staleReason === 'plan_changed' || staleReason === 'change_differs')) {
        const said = `Nothing was done: the launch changed since the question (a node, a budget or an account); ask again. ${(err as ServiceError).message}`;
        return errorResult(new ServiceError('stale_read', said, (err as ServiceError).details), requestId);
      }
      return errorResult(inToolWords(err, operationNames), requestId);
    }
  }

  /**
   * A card placed after the person said no (or was silent, or the call was cancelled): the call runs
   * as its caller without `publish`, so the card is placed and nothing moves (no publish, no
   * workflow with a launch or budget step starts for it); the answer's publish.reason is `declined`.
   */
  async function placedWithoutPublish(
    op: OperationDefinition,
    input: Record<string, unknown>,
    idempotencyKey: unknown,
    caller: Caller,
    reason: string,
  ): Promise<CallToolResult> {
    const scopes = new Set([...caller.principal.scopes].filter((s) => s !== 'publish'));
    const principal = { ...caller.principal, scopes };
    const { body } = await invokeFollowing(service, op, principal, input, {
      requestId: caller.requestId,
      idempotencyKey: idempotencyKey as string | undefined,
      surface: 'mcp',
    });
    const answer = body as Record<string, any>;
    if (answer.publish?.reason === 'publish_scope_missing') answer.publish = { ...answer.publish, reason: 'declined' };
    return declinedResult(answer, reason);
  }

  server.setRequestHandler(ListToolsRequestSchema, async (_request, extra) => {
    const { principal, visible, dynamic, strictSchemas } = callerOf(extra);
    const listed = tools.filter((t) => visible(t) && principal.scopes.has(byName.get(t.name)!.scope)).map((t) => (strictSchemas ? strictTool(t) : t));
    return { tools: dynamic ? [...DYNAMIC_TOOLS, ...listed] : listed };
  });
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const caller = callerOf(extra);
    const { name } = request.params;
    if (caller.dynamic && name === LIST_TOOLSETS) return listToolsets(caller);
    if (caller.dynamic && name === ENABLE_TOOLSET) return enableToolsetCall(caller, request.params.arguments, (n) => extra.sendNotification(n));
    const op = visibleTool(caller, name);
    if (!op) throw rpcFailure(ErrorCode.InvalidParams, unknownTool(name, caller));
    return callTool(caller, op, request.params.arguments, request.params._meta?.progressToken, {
      sendNotification: (n) => extra.sendNotification(n),
      ask: (message, requestedSchema) =>
        extra.sendRequest({ method: 'elicitation/create', params: { message, requestedSchema } }, ElicitResultSchema, {
          timeout: service.config.mcpConfirmTimeoutS * 1000,
          signal: extra.signal,
        }),
      askUrl: (params) =>
        extra.sendRequest({ method: 'elicitation/create', params }, ElicitResultSchema, {
          timeout: service.config.mcpConfirmTimeoutS * 1000,
          signal: extra.signal,
        }),
      signal: extra.signal,
    });
  });
  server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: [] }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request, extra) => {
    const caller = callerOf(extra);
    const { principal, requestId } = caller;
    const { uri } = request.params;
    const named = parseUri(uri);
    const missing = (why: string) => rpcFailure(RESOURCE_NOT_FOUND, `Resource ${uri} not found: ${why}`);
    if (!named) throw missing('not an address this server gives (it links whole answers as svc://brands/{brandId}/...).');
    if (named.kind === 'answer') {
      const text = kept.read(principal, named);
      if (text === null) throw missing('it expired (answers of tools that act are kept an hour) or this credential may not read it.');
      return { contents: [{ uri, mimeType: 'application/json', text }] };
    }
    const op = byName.get(named.tool);
    if (!op || !op.annotations.readOnly) throw missing(`${named.tool} is not a read tool.`);
    // A link runs only a tool this session may call (its toolsets, read-only mode).
    if (!visibleTool(caller, named.tool)) throw missing(`${named.tool} is not in the toolsets of this connection (${unknownTool(named.tool, caller)})`);
    try {
      const { body } = await service.invoke(op.name, principal, named.args, { requestId });
      return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(body) }] };
    } catch (err) {
      if (!(err instanceof ServiceError)) throw err;
      throw missing(`${err.code}: ${err.message}`);
    }
  });

  /** The unknown-tool message: which toolset holds the tool, when one does, and how to load it. */
  function unknownTool(name: string, caller: Caller): string {
    const toolset = byName.has(name) ? byName.get(name)!.toolset : undefined;
    if (!toolset) return `Unknown tool ${name}: no toolset has it. Call tools/list to see the tools you can call.`;
    const tool = toolByName.get(name)!;
    if (!tool.annotations.readOnlyHint && caller.visible({ ...tool, annotations: { ...tool.annotations, readOnlyHint: true } }))
      return `${name} changes things, and this connection is read-only (X-MCP-Readonly or MCP_READ_ONLY).`;
    const how = caller.dynamic ? `call enable_toolset with toolset "${toolset}"` : `connect with X-MCP-Toolsets: ${toolset} (svc mcp --toolsets ${toolset})`;
    return `${name} is in toolset "${toolset}"; ${how}.`;
  }

  function listToolsets(caller: Caller): CallToolResult {
    const toolsets = TOOLSET_NAMES.map((t) => ({
      name: t,
      description: TOOLSETS[t].description,
      enabled: tools.some((tool) => toolsetOf.get(tool.name) === t && caller.visible(tool)),
      tools: tools.filter((tool) => toolsetOf.get(tool.name) === t).map((tool) => tool.name),
    }));
    const body = { toolsets };
    return { content: [{ type: 'text', text: JSON.stringify(body) }], structuredContent: body };
  }

  async function enableToolsetCall(
    caller: Caller,
    args: Record<string, unknown> | undefined,
    notify: (n: ServerNotification) => Promise<void>,
  ): Promise<CallToolResult> {
    const toolset = args?.toolset;
    if (!isToolset(toolset)) {
      return errorResult(
        new ServiceError('validation_failed', `toolset must be one of ${TOOLSET_NAMES.join(', ')}.`, [
          { field: 'toolset', code: 'invalid_value', message: `must be one of ${TOOLSET_NAMES.join(', ')}` },
        ]),
        caller.requestId,
      );
    }
    if (!enableToolset(caller.sessionId, toolset)) {
      return errorResult(
        new ServiceError('validation_failed', 'enable_toolset needs a session: initialize first and send its Mcp-Session-Id with every request.'),
        caller.requestId,
      );
    }
    await notify({ method: 'notifications/tools/list_changed' });
    const body = { toolset, tools: tools.filter((tool) => toolsetOf.get(tool.name) === toolset).map((tool) => tool.name) };
    return { content: [{ type: 'text', text: JSON.stringify(body) }], structuredContent: body };
  }

  const transport = new ExchangeTransport();
  void server.connect(transport);

  /**
   * A plain tools/call of a visible tool that cannot ask the person first runs here, outside the
   * SDK's Server: the same callTool, without the Server's three schema parses of the request (the
   * exchange's, the handler's, tools/call's own) and its parse of a result built by results.ts,
   * nor the request bookkeeping kept for what it could send before answering. Its JSON is what the
   * Server would have answered.
   */
  async function direct(body: unknown, caller: Caller): Promise<string | undefined> {
    const call = plainToolCall(body);
    const op = call && visibleTool(caller, call.name);
    if (!call || !op || (ASK_FIRST[op.name] && caller.canAsk && caller.streams)) return undefined;
    // A money call that may become an approval, on a client that can open its page: the Server sends the question.
    if (MONEY_OPERATIONS.has(op.name) && caller.canOpenUrl && caller.streams) return undefined;
    caller.resultJson = undefined;
    const result = await callTool(caller, op, call.args, undefined, {});
    return `{"result":${caller.resultJson ?? resultJsonOf(result)},"jsonrpc":"2.0","id":${JSON.stringify(call.id)}}`;
  }

  return { tools, transport, server, toolsets: toolsetOf, direct };
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
function selectionOf(service: Service, req: IncomingMessage, toolsets: Map<string, Toolset>): Pick<Caller, 'visible' | 'dynamic' | 'strictSchemas'> {
  let chosen: Set<Toolset>;
  let dynamic: boolean;
  try {
    const choice = parseChoice(header(req, 'x-mcp-toolsets'));
    chosen = choice.toolsets ?? new Set(service.config.mcpToolsets);
    dynamic = choice.dynamic;
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
  const form = header(req, 'x-mcp-schema')?.trim().toLowerCase();
  if (form !== undefined && form !== 'strict' && form !== 'portable') {
    throw new ServiceError('validation_failed', 'X-MCP-Schema must be portable (the default) or strict (OpenAI strict-mode input schemas).', [
      { field: 'X-MCP-Schema', code: 'invalid_value', message: 'must be portable or strict' },
    ]);
  }
  const enabled = dynamic ? enabledToolsets(req.headers['mcp-session-id']) : new Set<string>();
  return {
    visible: (tool) => (chosen.has(toolsets.get(tool.name)!) || enabled.has(toolsets.get(tool.name)!)) && (!readOnly || tool.annotations.readOnlyHint),
    dynamic,
    strictSchemas: form === 'strict',
  };
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
  const initialize = initializeOf(body);
  const session = req.headers['mcp-session-id'];
  // A session belongs to the credential that opened it: with another, it does not exist (and nothing of it is read or changed).
  if (session !== undefined && !initialize && (typeof session !== 'string' || !sessionBelongsTo(session, principal.credentialId))) {
    return rpcError(
      404,
      SESSION_NOT_FOUND,
      new ServiceError(
        'not_found',
        'Session not found: this Mcp-Session-Id was not opened with this credential, or it is not one this server gave. Initialize again.',
      ),
    );
  }
  let selection: Pick<Caller, 'visible' | 'dynamic' | 'strictSchemas'>;
  try {
    selection = selectionOf(service, req, endpoint.toolsets);
  } catch (err) {
    return rpcError(400, ErrorCode.InvalidRequest, err as ServiceError);
  }
  if (initialize) res.setHeader('mcp-session-id', sessionIdFor(initialize.params?.capabilities, principal.credentialId));
  const caller: Caller = {
    principal,
    requestId,
    ...selection,
    sessionId: typeof session === 'string' ? session : undefined,
    streams: /\btext\/event-stream\b/.test(header(req, 'accept') ?? ''),
    canAsk: sessionOf(req.headers['mcp-session-id']).elicitation,
    canOpenUrl: sessionOf(req.headers['mcp-session-id']).urlElicitation,
  };
  // One plain tools/call is answered without the SDK's Server when nothing may be sent before its answer.
  const direct = await endpoint.direct(body, caller);
  if (direct !== undefined) {
    sendJsonText(res, direct);
    return;
  }
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
      // A cancelled call has no answer: its stream just ends.
      for (const answer of answers === null ? [] : Array.isArray(answers) ? answers : [answers]) writeEvent(res, single ? json : JSON.stringify(answer));
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
      sendJsonText(res, json);
    }
  } catch {
    if (res.headersSent) res.end();
    else sendJson(res, 400, { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'The body is not a JSON-RPC 2.0 message or batch.' } });
  } finally {
    clearInterval(keepalive);
    res.off('close', onClose);
  }
}
