// A fake OpenAI-compatible chat completions server on loopback: each test scripts the answers of
// the next requests (a queue), and every request it got is recorded with its parsed body. Answers
// reproduce the API's shapes: a completion with content (structured output), a completion with tool
// calls, an error status with the API's error body (429 with retry-after-ms), a malformed body, and
// a delay longer than the client's timeout. A body outside the documented request shape answers 400
// as the real API does (openai-shape.ts).

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { chatCompletionProblem } from './openai-shape.js';

export type ScriptedAnswer =
  /** A completion whose message content is `content` (an object is sent as JSON text). */
  | { kind: 'content'; content: unknown; delayMs?: number; finishReason?: string }
  /** A completion whose message asks for tool calls (for agent steps). */
  | { kind: 'toolCalls'; calls: Array<{ id?: string; name: string; arguments: unknown }>; content?: string | null; delayMs?: number }
  /** An error status with the API's error body; 429s carry retry-after-ms. */
  | { kind: 'error'; status: number; message?: string; retryAfterMs?: number; delayMs?: number }
  /** A 200 whose body is `body` verbatim (not a completion). */
  | { kind: 'raw'; body: string; status?: number; delayMs?: number };

export interface RecordedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  /** The parsed JSON body (null when it was not JSON). */
  body: any;
}

export class FakeOpenAIServer {
  /** Every request received, in order. */
  readonly requests: RecordedRequest[] = [];
  private readonly queue: ScriptedAnswer[] = [];
  /** Answer used when the queue is empty (default: a 500 saying nothing was scripted). */
  fallback: ScriptedAnswer | null = null;
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly server = http.createServer((req, res) => void this.handle(req, res));
  private seq = 0;

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return this;
  }

  /** Base URL to configure a client with (ends in /v1). */
  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }

  /** Queues answers for the next requests, one each, in order. */
  script(...answers: ScriptedAnswer[]): this {
    this.queue.push(...answers);
    return this;
  }

  /** Forgets the queue, the fallback and the recorded requests (between tests). */
  reset(): void {
    this.queue.length = 0;
    this.requests.length = 0;
    this.fallback = null;
  }

  /** Answers still queued. */
  get pending(): number {
    return this.queue.length;
  }

  async close(): Promise<void> {
    for (const t of this.timers) clearTimeout(t);
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    let body: any;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      body = null;
    }
    const path = (req.url ?? '/').split('?')[0];
    this.requests.push({ method: req.method ?? 'GET', path, headers: req.headers, body });
    if (req.method !== 'POST' || path !== '/v1/chat/completions') {
      return this.send(res, 404, { error: { message: `no route ${req.method} ${path}`, type: 'invalid_request_error', code: null } });
    }
    const problem = chatCompletionProblem(body);
    if (problem) return this.send(res, 400, { error: { message: problem, type: 'invalid_request_error', param: null, code: null } });
    const answer = this.queue.shift() ??
      this.fallback ?? { kind: 'error', status: 500, message: 'the fake OpenAI server has no scripted answer for this request' };
    if (answer.delayMs) {
      await new Promise<void>((resolve) => {
        const t = setTimeout(() => {
          this.timers.delete(t);
          resolve();
        }, answer.delayMs);
        this.timers.add(t);
      });
      if (res.destroyed || req.socket.destroyed) return;
    }
    const model = body?.model ?? 'fake-model';
    switch (answer.kind) {
      case 'content':
        return this.send(
          res,
          200,
          this.completion(
            model,
            { role: 'assistant', content: typeof answer.content === 'string' ? answer.content : JSON.stringify(answer.content), refusal: null },
            answer.finishReason ?? 'stop',
          ),
        );
      case 'toolCalls':
        return this.send(
          res,
          200,
          this.completion(
            model,
            {
              role: 'assistant',
              content: answer.content ?? null,
              refusal: null,
              tool_calls: answer.calls.map((c, i) => ({
                id: c.id ?? `call_${this.seq}_${i}`,
                type: 'function',
                function: { name: c.name, arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments) },
              })),
            },
            'tool_calls',
          ),
        );
      case 'error': {
        const headers: Record<string, string> = {};
        if (answer.retryAfterMs !== undefined) headers['retry-after-ms'] = String(answer.retryAfterMs);
        const type = answer.status === 429 ? 'rate_limit_exceeded' : answer.status >= 500 ? 'server_error' : 'invalid_request_error';
        return this.send(res, answer.status, { error: { message: answer.message ?? `fake error ${answer.status}`, type, param: null, code: type } }, headers);
      }
      case 'raw':
        res.writeHead(answer.status ?? 200, { 'content-type': 'application/json' });
        res.end(answer.body);
        return;
    }
  }

  private completion(model: string, message: Record<string, unknown>, finishReason: string) {
    this.seq++;
    return {
      id: `chatcmpl-fake-${this.seq}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model,
      choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason }],
      usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 },
    };
  }

  private send(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
    if (res.destroyed) return;
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  }
}
