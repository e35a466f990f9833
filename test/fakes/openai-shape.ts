// What an OpenAI-compatible chat completions request may hold, as OpenAI documents it (the request
// body of POST /v1/chat/completions, its messages and tools): the fake model servers answer 400
// "Unrecognized request argument supplied" to anything else, as the real API does.

const BODY = new Set([
  'messages',
  'model',
  'audio',
  'frequency_penalty',
  'function_call',
  'functions',
  'logit_bias',
  'logprobs',
  'max_completion_tokens',
  'max_tokens',
  'metadata',
  'modalities',
  'n',
  'parallel_tool_calls',
  'prediction',
  'presence_penalty',
  'prompt_cache_key',
  'prompt_cache_retention',
  'reasoning_effort',
  'response_format',
  'safety_identifier',
  'seed',
  'service_tier',
  'stop',
  'store',
  'stream',
  'stream_options',
  'temperature',
  'tool_choice',
  'tools',
  'top_logprobs',
  'top_p',
  'user',
  'verbosity',
  'web_search_options',
]);
const MESSAGE: Record<string, Set<string>> = {
  system: new Set(['role', 'content', 'name']),
  developer: new Set(['role', 'content', 'name']),
  user: new Set(['role', 'content', 'name']),
  assistant: new Set(['role', 'content', 'name', 'refusal', 'tool_calls', 'audio', 'function_call']),
  tool: new Set(['role', 'content', 'tool_call_id']),
};
const TOOL = new Set(['type', 'function']);
const FUNCTION = new Set(['name', 'description', 'parameters', 'strict']);

/** Why a chat completions body breaks the documented shape, or null. */
export function chatCompletionProblem(body: unknown): string | null {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return 'The body must be a JSON object.';
  const b = body as Record<string, unknown>;
  const unknown = Object.keys(b).find((k) => !BODY.has(k));
  if (unknown) return `Unrecognized request argument supplied: ${unknown}`;
  if (typeof b.model !== 'string' || !b.model) return "Missing required parameter: 'model'.";
  if (!Array.isArray(b.messages) || !b.messages.length) return "Missing required parameter: 'messages'.";
  for (const [i, m] of (b.messages as Array<Record<string, unknown>>).entries()) {
    const allowed = MESSAGE[String(m?.role)];
    if (!allowed) return `Invalid value for 'messages[${i}].role'.`;
    const extra = Object.keys(m).find((k) => !allowed.has(k));
    if (extra) return `Unrecognized request argument supplied: messages[${i}].${extra}`;
  }
  for (const [i, t] of ((b.tools as Array<Record<string, unknown>> | undefined) ?? []).entries()) {
    const extra = Object.keys(t ?? {}).find((k) => !TOOL.has(k)) ?? Object.keys((t?.function as object) ?? {}).find((k) => !FUNCTION.has(k));
    if (extra) return `Unrecognized request argument supplied: tools[${i}].${extra}`;
  }
  return null;
}
