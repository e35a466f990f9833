// A fake OpenAI-compatible chat completions server on loopback for agent steps: answers
// POST /v1/chat/completions from a script (each turn either asks for tool calls or answers with
// text, and may look at the conversation so far), records every request, and checks the bearer key.
// A body outside the documented request shape answers 400 as the real API does (openai-shape.ts).

import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { chatCompletionProblem } from './openai-shape.js';

export interface ToolCallSpec {
  name: string;
  arguments: Record<string, unknown>;
}

/** One scripted model turn: tool calls to ask for, or a final text. */
export type Turn = { toolCalls: ToolCallSpec[] } | { text: string };

export interface CompletionRequest {
  model: string;
  messages: Array<Record<string, any>>;
  tools?: Array<{ type: string; function: { name: string; description?: string; parameters: Record<string, unknown> } }>;
}

export class AgentModelServer {
  readonly requests: CompletionRequest[] = [];
  private server!: http.Server;
  /** Answers one request (the conversation so far) with the next turn. */
  script: (req: CompletionRequest, n: number) => Turn = () => ({ text: 'Nothing to do.' });
  apiKey: string | null = null;
  /** Waits this long before answering each request (a model that stalls); the request is recorded at once. */
  stallMs = 0;
  /** Answers every request with this HTTP status and the API's error body (a model that fails), when set. */
  failStatus: number | null = null;
  private readonly stalls = new Set<NodeJS.Timeout>();
  url = '';

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => this.handle(req, res, Buffer.concat(chunks).toString('utf8')));
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
    return this;
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse, raw: string): void {
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') return send(404, { error: { message: 'Unknown path', type: 'invalid_request_error' } });
    if (this.apiKey && req.headers.authorization !== `Bearer ${this.apiKey}`)
      return send(401, { error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' } });
    const body = JSON.parse(raw) as CompletionRequest;
    const problem = chatCompletionProblem(body);
    if (problem) return send(400, { error: { message: problem, type: 'invalid_request_error', param: null, code: null } });
    this.requests.push(body);
    if (this.failStatus !== null)
      return send(this.failStatus, {
        error: { message: 'The server had an error while processing your request.', type: 'server_error', param: null, code: null },
      });
    if (this.stallMs > 0) {
      const t = setTimeout(() => {
        this.stalls.delete(t);
        if (!res.destroyed) this.answer(body, res);
      }, this.stallMs);
      this.stalls.add(t);
      return;
    }
    this.answer(body, res);
  }

  private answer(body: CompletionRequest, res: http.ServerResponse): void {
    const send = (status: number, payload: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(payload));
    };
    const turn = this.script(body, this.requests.length - 1);
    const message =
      'text' in turn
        ? { role: 'assistant', content: turn.text, refusal: null }
        : {
            role: 'assistant',
            content: null,
            refusal: null,
            tool_calls: turn.toolCalls.map((c) => ({
              id: `call_${crypto.randomBytes(6).toString('hex')}`,
              type: 'function',
              function: { name: c.name, arguments: JSON.stringify(c.arguments) },
            })),
          };
    send(200, {
      id: `chatcmpl-${crypto.randomBytes(8).toString('hex')}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: body.model,
      choices: [{ index: 0, message, logprobs: null, finish_reason: 'text' in turn ? 'stop' : 'tool_calls' }],
      usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
    });
  }

  /** The tool results the service sent back, parsed, in order. */
  toolResults(): Array<Record<string, any>> {
    const last = this.requests.at(-1);
    return (last?.messages ?? []).filter((m) => m.role === 'tool').map((m) => JSON.parse(m.content));
  }

  async close(): Promise<void> {
    for (const t of this.stalls) clearTimeout(t);
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}
