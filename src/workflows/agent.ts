// The agent step: an OpenAI-compatible model with tool calling, given an instruction and the
// service's own operations as tools (those the run's credential has the scope for, with the same
// bundled input schemas MCP offers). Every tool call goes through `invoke` as the run's credential,
// narrowed to the step's brands, so scopes, brand limits, ceilings and idempotency hold. The
// transcript is saved after each model turn, so a resumed step goes on where it stopped.
// AGENT_TIMEOUT_MS bounds the whole step: its start is saved first, and every model request (the
// SDK's retries and the job's retries of the step included) must end by start + AGENT_TIMEOUT_MS.

import type OpenAIPackage from 'openai';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import type { Principal } from '../auth/principal.js';
import type { Catalogue, OperationDefinition } from '../catalogue/define.js';
import type { Config } from '../config.js';
import { ServiceError } from '../errors.js';
import type { InvokeOptions, InvokeResult } from '../pipeline/invoke.js';
import type { SchemaRegistry } from '../schemas/registry.js';
import type { OutboundClient } from '../outbound/client.js';
import { DeadlineExceeded, withinDeadline } from '../outbound/deadline.js';

export interface AgentState {
  transcript: ChatCompletionMessageParam[];
  turns: number;
  toolCalls: number;
  /** When the step first started (epoch ms): its deadline is this plus AGENT_TIMEOUT_MS, across job retries. */
  startedAt?: number;
}

export interface AgentEnv {
  config: Config;
  catalogue: Catalogue;
  schemas: SchemaRegistry;
  principal: Principal;
  invoke(name: string, principal: Principal, input: Record<string, unknown>, options: InvokeOptions): Promise<InvokeResult>;
  /** Prefix of the Idempotency-Keys of this step's tool calls: (execution, node). */
  keyPrefix: string;
  requestId: string;
  /** Saves the transcript so far (after every turn). */
  save(state: AgentState): Promise<void>;
  outbound: OutboundClient;
}

export interface AgentOutcome {
  ok: boolean;
  state: AgentState;
  answer: string | null;
  error?: { code: string; message: string };
}

const RESULT_CHARS = 20_000;
// Operations an agent is never offered: workflows (no runs starting runs) and uploads (no files).
const HIDDEN_TAGS = new Set(['workflows']);

const toolName = (op: string) => op.replace(/-/g, '_');

/** The operations offered to the agent as tools, with their bundled input schemas. */
export function agentTools(
  catalogue: Catalogue,
  schemas: SchemaRegistry,
  principal: Principal,
): { tools: ChatCompletionTool[]; byName: Map<string, OperationDefinition> } {
  const byName = new Map<string, OperationDefinition>();
  const tools: ChatCompletionTool[] = [];
  for (const op of catalogue.list()) {
    if (!principal.scopes.has(op.scope) || HIDDEN_TAGS.has(op.tag) || op.upload) continue;
    byName.set(toolName(op.name), op);
    const description = [op.summary, op.description, `Scope: ${op.scope}.`, op.scope === 'publish' ? 'Spends money: counts against the publish ceiling.' : '']
      .filter(Boolean)
      .join(' ');
    tools.push({
      type: 'function',
      function: { name: toolName(op.name), description: description.slice(0, 1024), parameters: schemas.bundle(op.input) as Record<string, unknown> },
    });
  }
  return { tools, byName };
}

function system(principal: Principal, brands: number[] | null): string {
  return (
    'You carry out one step of an ad-campaign workflow by calling the tools, which are the operations of the service. ' +
    `You act as ${principal.actorLabel}. ${brands ? `Work only on brand ${brands.join(', ')}.` : ''} Money amounts are integers in the minor units of each ad account's currency; the publish ceiling is in US cents. ` +
    'A tool answers {"status", "body"} on success or {"error": {code, message}} when refused; do not retry a refused call unchanged. ' +
    'When done, answer with a short summary and no tool call.'
  );
}

/** Runs (or resumes) the agent until it answers without a tool call, runs out of turns, or out of time. */
export async function runAgent(env: AgentEnv, instruction: string, brands: number[] | null, maxTurns: number, saved: AgentState | null): Promise<AgentOutcome> {
  const { config } = env;
  const { tools, byName } = agentTools(env.catalogue, env.schemas, env.principal);
  const state: AgentState = saved ?? {
    transcript: [
      { role: 'system', content: system(env.principal, brands) },
      { role: 'user', content: instruction },
    ],
    turns: 0,
    toolCalls: 0,
  };
  if (state.startedAt === undefined) {
    state.startedAt = Date.now();
    // Saved before the first request, so a retried job keeps the same deadline.
    await env.save(state);
  }
  const deadline = state.startedAt + config.agentTimeoutMs;
  // The model is the operator's (AGENT_MODEL_URL); every exchange the SDK makes ends by the deadline.
  // The package is loaded here, on the first agent step, not at start-up.
  const { default: OpenAI } = await import('openai');
  const client = new OpenAI({
    baseURL: config.agentModelUrl!,
    apiKey: config.agentModelApiKey ?? 'unused',
    maxRetries: 1,
    fetch: env.outbound.fetch('operator', { timeoutMs: 0, deadline, maxResponseBytes: 8 * 1024 * 1024 }),
  });
  const timedOut = (): AgentOutcome => ({
    ok: false,
    state,
    answer: null,
    error: { code: 'timeout', message: `The agent did not finish within ${config.agentTimeoutMs / 1000} s (AGENT_TIMEOUT_MS), retries included.` },
  });
  while (state.turns < maxTurns) {
    const left = deadline - Date.now();
    if (left <= 0) return timedOut();
    let completion: OpenAIPackage.Chat.Completions.ChatCompletion;
    try {
      completion = await withinDeadline(
        deadline,
        (signal) =>
          client.chat.completions.create({ model: config.agentModel, messages: state.transcript, tools, tool_choice: 'auto' }, { timeout: left, signal }),
        'the agent model',
      );
    } catch (err) {
      if (err instanceof DeadlineExceeded || err instanceof OpenAI.APIUserAbortError || Date.now() >= deadline) return timedOut();
      throw err;
    }
    const message = completion.choices[0]?.message;
    if (!message) throw new Error('the model answered without a message');
    const calls = (message.tool_calls ?? []).filter((c) => c.type === 'function');
    state.transcript.push({ role: 'assistant', content: message.content ?? null, ...(calls.length ? { tool_calls: calls } : {}) });
    const turn = state.turns;
    state.turns += 1;
    if (!calls.length) {
      await env.save(state);
      return { ok: true, state, answer: message.content ?? null };
    }
    for (const [i, call] of calls.entries()) {
      state.toolCalls += 1;
      const op = byName.get(call.function.name);
      let content: string;
      if (!op) {
        content = JSON.stringify({ error: { code: 'not_found', message: `There is no tool ${call.function.name} for this credential.` } });
      } else {
        try {
          const args = JSON.parse(call.function.arguments || '{}') as Record<string, unknown>;
          delete args.idempotencyKey;
          const result = await env.invoke(op.name, env.principal, args, {
            requestId: env.requestId,
            // Derived from (execution, node, turn, call): a resumed step replays what already acted.
            idempotencyKey: op.idempotency === 'none' ? null : `${env.keyPrefix}-t${turn}-c${i}`,
          });
          content = JSON.stringify({ status: result.status, body: result.body });
        } catch (err) {
          if (err instanceof SyntaxError) content = JSON.stringify({ error: { code: 'validation_failed', message: 'The tool arguments are not valid JSON.' } });
          else if (err instanceof ServiceError) content = JSON.stringify({ error: { code: err.code, message: err.message, details: err.details } });
          else throw err;
        }
      }
      state.transcript.push({ role: 'tool', tool_call_id: call.id, content: content.slice(0, RESULT_CHARS) });
    }
    await env.save(state);
  }
  return { ok: false, state, answer: null, error: { code: 'unprocessable', message: `The agent did not finish within ${maxTurns} turns.` } };
}
