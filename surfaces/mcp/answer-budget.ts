// One MCP answer stays readable: a read tool's answer above about 25k tokens (100 KB of JSON) is
// not sent; the agent gets an error that says how to ask for less (a smaller page, or a part).
// Write tools always answer what they did, whatever its size: their work is done either way.

import type { OperationDefinition } from '../../src/catalogue/define.js';
import { ServiceError } from '../../src/errors.js';

/** The most one read answer may weigh: about 25k tokens at 4 bytes a token. */
export const MAX_ANSWER_BYTES = 100_000;

/** The refusal of an answer of `bytes` bytes, or null when it fits (or the tool acted). */
export function overBudget(op: OperationDefinition, input: Record<string, unknown>, bytes: number): ServiceError | null {
  if (!op.annotations.readOnly || bytes <= MAX_ANSWER_BYTES) return null;
  const kb = Math.ceil(bytes / 1000);
  const limit = typeof input.limit === 'number' ? input.limit : null;
  if (limit !== null && limit > 1) {
    const fits = Math.max(1, Math.floor((limit * MAX_ANSWER_BYTES * 0.9) / bytes));
    return new ServiceError(
      'unprocessable',
      `This page is ${kb} KB, more than the ${MAX_ANSWER_BYTES / 1000} KB (about 25k tokens) one answer may carry. Ask again with limit ${fits} (start again from the first page: a cursor belongs to its limit).`,
      { reason: 'answer_too_large', bytes, maxBytes: MAX_ANSWER_BYTES, limit: fits },
    );
  }
  return new ServiceError(
    'unprocessable',
    `The answer is ${kb} KB, more than the ${MAX_ANSWER_BYTES / 1000} KB (about 25k tokens) one answer may carry. Ask for a part of it (narrower filters, one item at a time; for a launch, get_ad_set per ad set), or read it over REST.`,
    { reason: 'answer_too_large', bytes, maxBytes: MAX_ANSWER_BYTES },
  );
}
