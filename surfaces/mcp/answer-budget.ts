// One MCP answer stays readable: a tool answer (read or write) over 25,000 characters, counted as a
// client forwards it to its model (the text and the structuredContent alike: Gemini's mcpToTool and
// others hand the model both), is cut to what fits, with a note naming what was left out and a
// resource_link to the whole, which resources/read serves (resources.ts). The one place the budget
// is checked.

import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** The most one answer carries, text and structuredContent together: about 6k tokens, well under clients' own caps (Claude Code warns at 10k tokens, cuts at 25k). */
export const MAX_ANSWER_CHARS = 25_000;

/**
 * What a client forwards of an answer whose JSON is `json`: the text block, as a string inside the
 * result's own JSON (its quotes escaped, as Gemini's function response carries it), and the
 * structuredContent (the same JSON), plus any further text (the note of a cut answer).
 */
export const forwardedChars = (json: string, more = 0) => JSON.stringify(json).length + json.length + more;
/** Room kept for the note (what each list kept and left out) and the link beside the cut answer. */
const NOTE_ROOM = 3_000;

/** What a cut left out of one array of the answer. */
interface LeftOut {
  path: string;
  kept: number;
  of: number;
  /** The ids (and names) of the items left out, as far as they can be told. */
  names: string[];
}

interface Found {
  path: string;
  array: unknown[];
  size: number;
}

/**
 * The array holding the most text in `node` among those with more than `floor` items, with its path
 * (`campaigns[0].adSets`). Arrays inside arrays count too, so a launch of one campaign is cut
 * within that campaign (its ad sets, then an ad set's ads), never given up on.
 */
function largestArray(node: unknown, floor: number, path = ''): Found | null {
  let best: Found | null = null;
  const consider = (c: Found | null) => {
    if (c && (!best || c.size > best.size)) best = c;
  };
  if (Array.isArray(node)) {
    if (node.length > floor) consider({ path: path || '(the answer)', array: node, size: JSON.stringify(node).length });
    node.forEach((item, i) => consider(largestArray(item, floor, `${path}[${i}]`)));
  } else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) consider(largestArray(value, floor, path ? `${path}.${key}` : key));
  }
  return best;
}

const ID_KEY = /^(id|\w+Id)$/;

/** How an item left out is named: its id (and name), looked for in it and one level down (`node.id`, `properties.name`). */
function nameOf(item: unknown): string | null {
  if (!item || typeof item !== 'object' || Array.isArray(item)) return typeof item === 'string' || typeof item === 'number' ? String(item) : null;
  const levels = [item as Record<string, unknown>];
  for (const value of Object.values(item)) if (value && typeof value === 'object' && !Array.isArray(value)) levels.push(value as Record<string, unknown>);
  for (const level of [...levels]) {
    const props = level.properties;
    if (props && typeof props === 'object' && !Array.isArray(props)) levels.push(props as Record<string, unknown>);
  }
  let id: string | undefined;
  let name: string | undefined;
  for (const level of levels) {
    for (const [key, value] of Object.entries(level)) {
      if (id === undefined && ID_KEY.test(key) && (typeof value === 'string' || typeof value === 'number')) id = String(value);
      if (name === undefined && (key === 'name' || key === 'title') && typeof value === 'string') name = value.slice(0, 60);
    }
  }
  if (id === undefined && name === undefined) return null;
  return id !== undefined && name !== undefined ? `${id} "${name}"` : (id ?? `"${name}"`);
}

/** The longest string in `node`, with where it is, for the last resort of a cut. */
function longestString(
  node: unknown,
  holder?: { parent: Record<string, unknown> | unknown[]; key: string | number },
): { holder: { parent: any; key: any }; length: number } | null {
  let best: { holder: { parent: any; key: any }; length: number } | null = null;
  if (typeof node === 'string') return holder ? { holder, length: node.length } : null;
  const entries: Array<[string | number, unknown]> = Array.isArray(node)
    ? node.map((v, i) => [i, v])
    : node && typeof node === 'object'
      ? Object.entries(node)
      : [];
  for (const [key, value] of entries) {
    const found = longestString(value, { parent: node as Record<string, unknown>, key });
    if (found && (!best || found.length > best.length)) best = found;
  }
  return best;
}

/**
 * `body` cut until its JSON fits `limit` characters: items dropped from the end of the array holding
 * the most text (at any depth), again and again, so counts, totals and problems, which are small,
 * stay whole. A list is cut to one item before any list is emptied; as a last resort the longest
 * texts are shortened. Always returns a body of the answer's own shape.
 */
function cut(body: unknown, limit: number): { body: unknown; leftOut: LeftOut[] } {
  const copy = structuredClone(body);
  const left = new Map<unknown[], LeftOut>();
  for (let text = JSON.stringify(copy); text.length > limit; text = JSON.stringify(copy)) {
    const target = largestArray(copy, 1) ?? largestArray(copy, 0);
    if (!target) {
      const longest = longestString(copy);
      if (!longest || longest.length < 200) break;
      const value = longest.holder.parent[longest.holder.key] as string;
      longest.holder.parent[longest.holder.key] = `${value.slice(0, Math.max(100, value.length - (text.length - limit) - 20))}… (cut)`;
      continue;
    }
    const entry = left.get(target.array) ?? { path: target.path, kept: target.array.length, of: target.array.length, names: [] };
    // Drop about as many items as the excess takes, at least one, keeping one while another list can give.
    const perItem = target.size / target.array.length;
    const floor = target.array.length > 1 ? 1 : 0;
    const drop = Math.min(target.array.length - floor, Math.max(1, Math.ceil((text.length - limit) / perItem)));
    const dropped = target.array.splice(target.array.length - drop);
    entry.names.unshift(...dropped.map(nameOf).filter((n): n is string => n !== null));
    entry.kept = target.array.length;
    left.set(target.array, entry);
  }
  // A list inside an item that was itself left out is said by that item.
  const reachable = new Set<unknown>();
  const walk = (node: unknown) => {
    if (Array.isArray(node)) reachable.add(node);
    if (node && typeof node === 'object') for (const value of Object.values(node)) walk(value);
  };
  walk(copy);
  return { body: copy, leftOut: [...left.entries()].filter(([array]) => reachable.has(array)).map(([, l]) => l) };
}

/** The note's line for one list: kept K of N, and the ids of what was left out as far as `room` allows. */
function listLine(l: LeftOut, room: number): string {
  const head = `${l.path}: kept ${l.kept} of ${l.of}, left out ${l.of - l.kept}`;
  if (!l.names.length) return head;
  const names: string[] = [];
  let used = head.length + 20;
  for (const name of l.names) {
    if (used + name.length + 2 > room) break;
    names.push(name);
    used += name.length + 2;
  }
  if (!names.length) return head;
  const more = l.names.length - names.length;
  return `${head} (${names.join(', ')}${more ? `, and ${more} more` : ''})`;
}

/** Where the whole answer can be read: what resources.ts answers a resources/read of. */
export interface WholeAnswer {
  uri: string;
  name: string;
}

/**
 * The result of a successful call whose text (`text`, the JSON of `body`), forwarded with its
 * structuredContent, is over the budget: the
 * answer cut to fit as structuredContent and text (always of the answer's own shape, so it stays
 * valid against the tool's output schema), a note saying per list how many items it kept and which
 * it left out, and a link to the whole. Null when the answer fits.
 */
export function overBudget(body: unknown, text: string, whole: () => WholeAnswer): CallToolResult | null {
  if (forwardedChars(text) <= MAX_ANSWER_CHARS) return null;
  const link = whole();
  // The cut JSON goes out twice (text and structuredContent), beside the note: cut it to half the room, less what escaping the text adds.
  const escaping = JSON.stringify(text).length / text.length;
  const done = cut(body, Math.floor((MAX_ANSWER_CHARS - NOTE_ROOM) / (1 + escaping)));
  const json = JSON.stringify(done.body);
  const head =
    `This answer is ${text.length.toLocaleString('en-US')} characters (${forwardedChars(text).toLocaleString('en-US')} as text and structured content), ` +
    `more than the ${MAX_ANSWER_CHARS.toLocaleString('en-US')} one answer carries, so it is cut (the items at the end of each list). `;
  const tail = ` The whole answer: resources/read ${link.uri}.`;
  // Room for the note, kept a little short: its quotes are escaped too when forwarded.
  const room = MAX_ANSWER_CHARS - forwardedChars(json) - head.length - tail.length - 200;
  const lines = done.leftOut.length ? done.leftOut : [];
  const perList = Math.max(60, Math.floor(room / Math.max(1, lines.length)));
  let listed = lines.map((l) => listLine(l, perList)).join('; ');
  if (listed.length > room) listed = `${listed.slice(0, Math.max(0, room - 1))}…`;
  const note = `${head}Per list: ${listed || 'long texts shortened'}.${tail}`;
  const content: CallToolResult['content'] = [
    { type: 'text', text: json },
    { type: 'text', text: note },
    { type: 'resource_link', uri: link.uri, name: link.name, mimeType: 'application/json', description: 'The whole answer, as JSON.' },
  ];
  return { content, structuredContent: done.body as Record<string, unknown> };
}
