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

/** The result of a successful call, and the JSON of that whole result. */
export function successResult(body: unknown): { result: CallToolResult; json: string } {
  const { text, json } = serializedResult(body);
  return { result: { content: [{ type: 'text', text }], structuredContent: body as Record<string, unknown> }, json };
}

/**
 * The result of a call the person stopped: a normal result (nothing failed), whose structuredContent
 * is the tool's answer as things stand, and whose text says first that nothing was done and why.
 */
export function declinedResult(body: Record<string, unknown>, reason: string): CallToolResult {
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
