// How an operation's outcome becomes an MCP tool result: one rule for the whole catalogue (MCP
// 2025-06-18, "Tools: Error Handling" and "Structured Content"). A success carries the answer as
// `structuredContent` (it matches the tool's outputSchema) and as JSON text; a failure is
// `isError: true` with the contract's error envelope as JSON text and no `structuredContent`,
// because the tool's outputSchema describes answers, not envelopes, and clients check it.

import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { envelopeOf } from '../../src/errors.js';
import { fromAnswerJson } from '../../src/serialized.js';

// A result's text (the answer's JSON) and the JSON of the whole result, made once per answer
// object; a single tools/call is answered with that JSON as it is.
const toolResults = new WeakMap<object, { text: string; json: string }>();

const serializedResult = (body: unknown) =>
  fromAnswerJson(toolResults, body, (text) => ({ text, json: `{"content":[{"type":"text","text":${JSON.stringify(text)}}],"structuredContent":${text}}` }));

/**
 * Answer fields whose null means "all", not "none": a tool's answer says it with the same flag its
 * input takes (tools.ts, NULL_ALTERNATIVES), since a field left out reads as none.
 */
export const NULL_MEANS_ALL: Record<string, string> = { brandIds: 'allBrands', objectIds: 'allObjects' };

/**
 * An answer as a tool gives it: a field whose value is null is left out, as the portable subset has
 * a tool's input say it (a field that may be left out is optional rather than nullable), so the
 * output schema lists every field with its one type (`nextCursor` a string, absent on the last page);
 * a null that means "all" is its flag (`allBrands: true`). Only the answer's own fields: what they
 * hold is the answer as REST gives it.
 */
export function asToolAnswer<T>(body: T): T {
  if (!body || typeof body !== 'object' || Array.isArray(body) || !Object.values(body).includes(null)) return body;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) {
    if (value !== null) out[key] = value;
    else if (NULL_MEANS_ALL[key]) out[NULL_MEANS_ALL[key]] = true;
  }
  return out as T;
}

/** The result of a successful call, and the JSON of that whole result. */
export function successResult(body: unknown): { result: CallToolResult; json: string } {
  const { text, json } = serializedResult(body);
  return { result: { content: [{ type: 'text', text }], structuredContent: body as Record<string, unknown> }, json };
}

/**
 * The result of a call the person stopped: a normal result (nothing failed), whose structuredContent
 * is the tool's answer as things stand, and whose text says first that nothing was done and why.
 */
export function declinedResult(answer: Record<string, unknown>, reason: string): CallToolResult {
  const body = asToolAnswer(answer);
  const { text } = serializedResult(body);
  return {
    content: [
      { type: 'text', text },
      { type: 'text', text: reason },
    ],
    structuredContent: body,
  };
}

/** The result of a failed call: the envelope as text, never as structuredContent. */
export function errorResult(err: unknown, requestId: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(envelopeOf(err, requestId)) }] };
}
