// One MCP answer stays readable: a tool answer (read or write) over 25,000 characters of text is cut
// to what fits, with a note naming what was left out and a resource_link to the whole, which
// resources/read serves (resources.ts). The one place the budget is checked.

import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** The most text one answer carries: about 6k tokens, well under clients' own caps (Claude Code warns at 10k tokens, cuts at 25k). */
export const MAX_ANSWER_CHARS = 25_000;
/** Room kept for the note and the link beside the cut answer. */
const NOTE_ROOM = 1_500;

/** What a cut left out of one array of the answer. */
interface LeftOut {
  path: string;
  kept: number;
  of: number;
}

/** The array holding the most text in `node`, with its path (`campaigns[0].adSets`). */
function largestArray(node: unknown, path = ''): { path: string; array: unknown[]; size: number } | null {
  let best: { path: string; array: unknown[]; size: number } | null = null;
  const consider = (c: { path: string; array: unknown[]; size: number } | null) => {
    if (c && (!best || c.size > best.size)) best = c;
  };
  if (Array.isArray(node)) {
    if (node.length) consider({ path: path || '(the answer)', array: node, size: JSON.stringify(node).length });
    node.forEach((item, i) => consider(largestArray(item, `${path}[${i}]`)));
  } else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) consider(largestArray(value, path ? `${path}.${key}` : key));
  }
  return best;
}

/**
 * `body` cut until its JSON fits `limit` characters: items dropped from the end of the array holding
 * the most text, again and again (a tree's deepest long lists first, so counts, totals and problems,
 * which are small, stay whole). Null when no array is left to cut.
 */
function cut(body: unknown, limit: number): { body: unknown; leftOut: LeftOut[] } | null {
  const copy = structuredClone(body);
  const left = new Map<unknown[], LeftOut>();
  for (let text = JSON.stringify(copy); text.length > limit; text = JSON.stringify(copy)) {
    const target = largestArray(copy);
    if (!target || target.array.length <= 1) return null;
    const entry = left.get(target.array) ?? { path: target.path, kept: target.array.length, of: target.array.length };
    // Drop about as many items as the excess takes, at least one.
    const perItem = target.size / target.array.length;
    const drop = Math.min(target.array.length - 1, Math.max(1, Math.ceil((text.length - limit) / perItem)));
    target.array.splice(target.array.length - drop);
    entry.kept = target.array.length;
    left.set(target.array, entry);
  }
  return { body: copy, leftOut: [...left.values()] };
}

/** Where the whole answer can be read: what resources.ts answers a resources/read of. */
export interface WholeAnswer {
  uri: string;
  name: string;
}

/**
 * The result of a successful call whose text (`text`, the JSON of `body`) is over the budget: the
 * answer cut to fit as structuredContent and text, a note naming what was left out, and a link to
 * the whole. Null when the answer fits.
 */
export function overBudget(body: unknown, text: string, whole: () => WholeAnswer): CallToolResult | null {
  if (text.length <= MAX_ANSWER_CHARS) return null;
  const link = whole();
  const done = cut(body, MAX_ANSWER_CHARS - NOTE_ROOM);
  const parts = done ? done.leftOut.map((l) => `${l.path}: ${l.kept} of ${l.of} items`) : ['everything but this note'];
  const note =
    `This answer is ${text.length.toLocaleString('en-US')} characters, more than the ${MAX_ANSWER_CHARS.toLocaleString('en-US')} one answer carries, so it is cut. ` +
    `Left out: ${parts.join('; ')}` +
    `${done && done.leftOut.length ? ' (the items at the end of each list)' : ''}. The whole answer: resources/read ${link.uri}.`;
  const content: CallToolResult['content'] = [
    ...(done ? [{ type: 'text' as const, text: JSON.stringify(done.body) }] : []),
    { type: 'text', text: note.slice(0, NOTE_ROOM - 100) },
    { type: 'resource_link', uri: link.uri, name: link.name, mimeType: 'application/json', description: 'The whole answer, as JSON.' },
  ];
  // Without a cut that fits, the answer's schema cannot be met by a part of it: the note and the link carry the answer.
  return done ? { content, structuredContent: done.body as Record<string, unknown> } : { content };
}
