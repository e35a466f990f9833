// A shared MCP transport for stateless Streamable HTTP. One Server per process stays connected to
// it; each HTTP POST delivers its JSON-RPC message (or batch) with the caller's principal and gets
// back the Server's answers. Request ids are renumbered on the way in so that concurrent callers
// using the same ids never meet. What the Server sends about a request before answering it
// (progress, a question for the person) goes to that POST's stream when the caller takes one; the
// answer to a question arrives in a later POST of the same credential and is routed back here, so
// the process that asked must be the one that receives it (see docs/mcp.md on load balancers).
// A request the caller cancels (notifications/cancelled by its id, or its stream closed) is
// cancelled in the Server by the id it was given here, and its POST ends without an answer.

import crypto from 'node:crypto';
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { JSONRPCMessageSchema, type JSONRPCMessage, type JSONRPCNotification, type JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';

type Id = string | number;

// Messages here were validated by JSONRPCMessageSchema on the way in (or built by the SDK on the
// way out), so telling a request from the rest needs only its shape, not another schema parse.
const isRequest = (message: JSONRPCMessage): message is JSONRPCRequest => 'method' in message && 'id' in message;
const isAnswer = (message: JSONRPCMessage) => !('method' in message) && 'id' in message;

/** JSON-RPC's code for a method called with parameters it cannot take. */
const INVALID_PARAMS = -32602;

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * What is wrong with the params of a tools/call request (null: nothing, or not a tools/call): MCP's
 * CallToolRequest takes `params: {name: string, arguments?: object}` (2025-06-18, Tools: Calling
 * Tools). Answered -32602 (invalid params) with this sentence, never as an internal error.
 */
function malformedToolCall(message: unknown): string | null {
  if (!isObject(message) || message.jsonrpc !== '2.0' || message.method !== 'tools/call' || !('id' in message)) return null;
  const { params } = message;
  const shape = 'tools/call takes params {"name": "<tool>", "arguments": {...}}';
  if (params === undefined) return `${shape}; this request has no params. Name the tool to call.`;
  if (!isObject(params)) return `${shape}; params is ${Array.isArray(params) ? 'an array' : typeof params === 'object' ? 'null' : `a ${typeof params}`}.`;
  if (typeof params.name !== 'string' || !params.name) return `${shape}; params.name must be the tool's name (a string, from tools/list).`;
  if (params.arguments !== undefined && !isObject(params.arguments))
    return `${shape}; params.arguments must be an object of the tool's arguments (its inputSchema), not ${Array.isArray(params.arguments) ? 'an array' : params.arguments === null ? 'null' : `a ${typeof params.arguments}`}.`;
  return null;
}

export interface ExchangeOptions {
  authInfo: AuthInfo;
  /**
   * Receives what the server sends about one of the body's requests before answering it; absent
   * when the caller cannot take a stream (it then gets no progress and is never asked anything).
   */
  onEarly?: (message: JSONRPCMessage) => void;
  /** Aborted when the caller goes away before the answers. */
  signal?: AbortSignal;
}

export interface ExchangeResult {
  /** The answers to the body's requests, in order (a cancelled one has none); null when there are none. */
  answers: JSONRPCMessage | JSONRPCMessage[] | null;
  /** Ids of answers to questions nobody here is waiting for (answered, timed out, or asked by another process). */
  unknownAnswers: Id[];
}

interface Waiting {
  originalId: Id;
  /** The answer, or null when the caller cancelled the request (nothing is answered). */
  resolve: (message: JSONRPCMessage | null) => void;
  onEarly?: (message: JSONRPCMessage) => void;
  clientId: string;
  /** Questions asked within this request, by the id the client sees. */
  questions: Set<string>;
}

interface Question {
  /** The id the Server gave the request; the client sees a random one instead, so nobody can guess it. */
  serverId: Id;
  clientId: string;
  within: number;
}

export class ExchangeTransport implements Transport {
  onmessage?: Transport['onmessage'];
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private nextId = 1;
  private readonly waiting = new Map<number, Waiting>();
  private readonly questions = new Map<string, Question>();

  async start(): Promise<void> {}

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if (isAnswer(message)) return this.answer(message);
    const related = typeof options?.relatedRequestId === 'number' ? this.waiting.get(options.relatedRequestId) : undefined;
    if (isRequest(message)) {
      // A question the caller cannot be asked fails at once, so the tool goes on without it.
      if (!related?.onEarly) throw new Error(`nobody can answer ${message.method} here: the request has no stream`);
      const id = `q_${crypto.randomBytes(16).toString('base64url')}`;
      this.questions.set(id, { serverId: message.id, clientId: related.clientId, within: options!.relatedRequestId as number });
      related.questions.add(id);
      related.onEarly({ ...message, id });
      return;
    }
    if (!related?.onEarly) return;
    const note = message as JSONRPCNotification;
    if (note.method === 'notifications/cancelled') {
      // The Server gave up on a question (timed out): tell the client by the id it knows.
      const serverId = (note.params as { requestId?: Id } | undefined)?.requestId;
      const id = [...related.questions].find((q) => this.questions.get(q)?.serverId === serverId);
      if (!id) return;
      this.forget(id);
      related.onEarly({ ...note, params: { ...note.params, requestId: id } });
      return;
    }
    related.onEarly(message);
  }

  private answer(message: JSONRPCMessage): void {
    const id = (message as { id?: Id }).id;
    if (typeof id !== 'number') return;
    const entry = this.waiting.get(id);
    if (!entry) return;
    this.waiting.delete(id);
    for (const q of entry.questions) this.forget(q);
    entry.resolve({ ...message, id: entry.originalId } as JSONRPCMessage);
  }

  private forget(question: string): void {
    const q = this.questions.get(question);
    if (!q) return;
    this.questions.delete(question);
    this.waiting.get(q.within)?.questions.delete(question);
  }

  async close(): Promise<void> {
    this.onclose?.();
  }

  /**
   * Delivers the body's messages as `authInfo`'s caller and resolves with the answers to its
   * requests, in order. An answer to a question goes to the tool that asked it, if it was asked
   * of the same credential. Throws on a malformed body.
   */
  async exchange(body: unknown, options: ExchangeOptions): Promise<ExchangeResult> {
    const { authInfo, onEarly } = options;
    const batch = Array.isArray(body);
    const answers: Array<Promise<JSONRPCMessage | null>> = [];
    // A tools/call whose params are not a tool call is answered here: the Server would call it an internal error.
    const messages = (batch ? body : [body]).flatMap((m) => {
      const wrong = malformedToolCall(m);
      if (wrong === null) return [JSONRPCMessageSchema.parse(m)];
      const id = (m as { id: unknown }).id;
      answers.push(
        Promise.resolve({
          jsonrpc: '2.0',
          id: typeof id === 'string' || typeof id === 'number' ? id : null,
          error: { code: INVALID_PARAMS, message: wrong },
        } as unknown as JSONRPCMessage),
      );
      return [];
    });
    const unknownAnswers: Id[] = [];
    const mine: number[] = [];
    options.signal?.addEventListener('abort', () => this.abandon(mine, authInfo), { once: true });
    for (const message of messages) {
      if (isRequest(message)) {
        const internal = this.nextId++;
        mine.push(internal);
        answers.push(
          new Promise((resolve) => this.waiting.set(internal, { originalId: message.id, resolve, onEarly, clientId: authInfo.clientId, questions: new Set() })),
        );
        this.onmessage?.({ ...message, id: internal }, { authInfo });
      } else if (isAnswer(message)) {
        const id = (message as { id: Id }).id;
        const q = typeof id === 'string' ? this.questions.get(id) : undefined;
        // Another credential's answer is treated as no answer at all: it cannot tell whether the question exists.
        if (!q || q.clientId !== authInfo.clientId) {
          unknownAnswers.push(id);
          continue;
        }
        this.forget(id as string);
        this.onmessage?.({ ...message, id: q.serverId } as JSONRPCMessage, { authInfo });
      } else if ((message as JSONRPCNotification).method === 'notifications/cancelled') {
        this.cancel(message as JSONRPCNotification, authInfo);
      } else {
        this.onmessage?.(message, { authInfo });
      }
    }
    if (!answers.length) return { answers: null, unknownAnswers };
    const out = (await Promise.all(answers)).filter((a): a is JSONRPCMessage => a !== null);
    if (!out.length) return { answers: null, unknownAnswers };
    return { answers: batch ? out : out[0], unknownAnswers };
  }

  /**
   * The caller cancels one of its own requests, named by the id it sent: the Server is told by the id
   * it knows (so the tool's signal aborts, and nothing it asked can act afterwards) and the request's
   * POST ends unanswered. A cancel naming no request of this credential is dropped.
   */
  private cancel(note: JSONRPCNotification, authInfo: AuthInfo): void {
    const requestId = (note.params as { requestId?: Id } | undefined)?.requestId;
    for (const [internal, entry] of this.waiting) {
      if (entry.originalId !== requestId || entry.clientId !== authInfo.clientId) continue;
      this.end(internal, note.params?.reason, authInfo);
      return;
    }
  }

  /** Cancels request `internal` in the Server and ends its wait with no answer; its open questions are forgotten. */
  private end(internal: number, reason: unknown, authInfo: AuthInfo): void {
    const entry = this.waiting.get(internal);
    if (!entry) return;
    this.waiting.delete(internal);
    this.onmessage?.(
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: internal, reason: String(reason ?? 'cancelled by the client') } },
      { authInfo },
    );
    for (const q of entry.questions) this.questions.delete(q);
    entry.resolve(null);
  }

  /**
   * The caller of these requests went away: each is cancelled as if it had sent notifications/cancelled
   * (a call that closed its stream is dead; an answer to what it asked is ignored), so no tool waits
   * for a person nobody can reach.
   */
  private abandon(requests: number[], authInfo: AuthInfo): void {
    for (const internal of requests) this.end(internal, 'the caller closed its stream', authInfo);
  }
}
