// A shared MCP transport for stateless Streamable HTTP. One Server per process stays connected to
// it; each HTTP POST delivers its JSON-RPC message (or batch) with the caller's principal and gets
// back the Server's answers. Request ids are renumbered on the way in so that concurrent callers
// using the same ids never meet. What the Server sends about a request before answering it
// (progress, a question for the person) goes to that POST's stream when the caller takes one; the
// answer to a question arrives in a later POST of the same credential and is routed back here, so
// the process that asked must be the one that receives it (see docs/mcp.md on load balancers).

import crypto from 'node:crypto';
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { JSONRPCMessageSchema, type JSONRPCMessage, type JSONRPCNotification, type JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';

type Id = string | number;

// Messages here were validated by JSONRPCMessageSchema on the way in (or built by the SDK on the
// way out), so telling a request from the rest needs only its shape, not another schema parse.
const isRequest = (message: JSONRPCMessage): message is JSONRPCRequest => 'method' in message && 'id' in message;
const isAnswer = (message: JSONRPCMessage) => !('method' in message) && 'id' in message;

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
  /** The answers to the body's requests, in order; null when it held none (HTTP 202). */
  answers: JSONRPCMessage | JSONRPCMessage[] | null;
  /** Ids of answers to questions nobody here is waiting for (answered, timed out, or asked by another process). */
  unknownAnswers: Id[];
}

interface Waiting {
  originalId: Id;
  resolve: (message: JSONRPCMessage) => void;
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
    const messages = (batch ? body : [body]).map((m) => JSONRPCMessageSchema.parse(m));
    const answers: Array<Promise<JSONRPCMessage>> = [];
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
      } else {
        this.onmessage?.(message, { authInfo });
      }
    }
    if (!answers.length) return { answers: null, unknownAnswers };
    const out = await Promise.all(answers);
    return { answers: batch ? out : out[0], unknownAnswers };
  }

  /** The caller of these requests went away: each question they asked is answered with an error, so no tool waits for a person nobody can reach. */
  private abandon(requests: number[], authInfo: AuthInfo): void {
    for (const internal of requests) {
      for (const id of [...(this.waiting.get(internal)?.questions ?? [])]) {
        const q = this.questions.get(id)!;
        this.forget(id);
        this.onmessage?.({ jsonrpc: '2.0', id: q.serverId, error: { code: -32000, message: 'The caller went away before answering.' } } as JSONRPCMessage, {
          authInfo,
        });
      }
    }
  }
}
