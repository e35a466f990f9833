// A shared MCP transport for stateless Streamable HTTP with JSON responses. One Server per process
// stays connected to it; each HTTP POST delivers its JSON-RPC message (or batch) with the caller's
// principal, and gets back the Server's answers. Request ids are renumbered on the way in so that
// concurrent callers using the same ids never meet.

import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { JSONRPCMessageSchema, type JSONRPCMessage, type JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';

type Id = string | number;

// Messages here were validated by JSONRPCMessageSchema on the way in (or built by the SDK on the
// way out), so telling a request from the rest needs only its shape, not another schema parse.
const isRequest = (message: JSONRPCMessage): message is JSONRPCRequest => 'method' in message && 'id' in message;

export class ExchangeTransport implements Transport {
  onmessage?: Transport['onmessage'];
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private nextId = 1;
  private readonly waiting = new Map<number, { originalId: Id; resolve: (message: JSONRPCMessage) => void }>();

  async start(): Promise<void> {}

  async send(message: JSONRPCMessage): Promise<void> {
    const id = (message as { id?: Id }).id;
    if (typeof id !== 'number' || isRequest(message)) return;
    const entry = this.waiting.get(id);
    if (!entry) return;
    this.waiting.delete(id);
    entry.resolve({ ...message, id: entry.originalId } as JSONRPCMessage);
  }

  async close(): Promise<void> {
    this.onclose?.();
  }

  /**
   * Delivers the body's messages as `authInfo`'s caller and resolves with the answers to its
   * requests, in order; null when it held only notifications (HTTP 202). Throws on a malformed body.
   */
  async exchange(body: unknown, authInfo: AuthInfo): Promise<JSONRPCMessage | JSONRPCMessage[] | null> {
    const batch = Array.isArray(body);
    const messages = (batch ? body : [body]).map((m) => JSONRPCMessageSchema.parse(m));
    const answers: Array<Promise<JSONRPCMessage>> = [];
    for (const message of messages) {
      if (isRequest(message)) {
        const internal = this.nextId++;
        answers.push(new Promise((resolve) => this.waiting.set(internal, { originalId: message.id, resolve })));
        this.onmessage?.({ ...message, id: internal }, { authInfo });
      } else if (!('id' in message)) {
        this.onmessage?.(message, { authInfo });
      }
    }
    if (!answers.length) return null;
    const out = await Promise.all(answers);
    return batch ? out : out[0];
  }
}
