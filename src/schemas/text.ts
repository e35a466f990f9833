// Every string the service accepts is valid Unicode text: no NUL character and no lone surrogate,
// in any string field (object keys included), whatever the schema says of it; and no value nests
// deeper than 64 levels. The schema layer runs this (one iterative pass) before each input schema
// and before any recursive walk, so REST bodies, query strings and MCP tool arguments all meet it.
// Beyond that, a field's schema says what kind of text it is (`textKind`, kindProblem): one line,
// or several lines.

import type { FieldIssue } from '../errors.js';

// A high surrogate not followed by a low one, or a low one not preceded by a high one.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

const hex = (code: number) => `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;

// Text a person cannot see but an agent reads: a Unicode tag character (U+E0000 to U+E007F) outside
// an emoji tag sequence (an emoji, tags U+E0020 to U+E007E, then the cancel tag U+E007F: a
// subdivision flag such as Scotland's), and the noncharacters (U+FDD0 to U+FDEF and the last two
// code points of every plane). A valid sequence is matched whole and passed over.
const NONCHARACTERS = Array.from(
  { length: 17 },
  (_, plane) => `\\u{${(plane * 0x10000 + 0xfffe).toString(16)}}\\u{${(plane * 0x10000 + 0xffff).toString(16)}}`,
).join('');
const INVISIBLE = new RegExp(`\\p{Emoji}[\\u{E0020}-\\u{E007E}]+\\u{E007F}|[\\u{E0000}-\\u{E007F}\\uFDD0-\\uFDEF${NONCHARACTERS}]`, 'gu');
// Only strings holding a surrogate (a character past U+FFFF) or a character from U+FDD0 up need the search.
const MAY_BE_INVISIBLE = /[\uD800-\uDBFF\uFDD0-\uFDEF\uFFFE\uFFFF]/;

/** The first invisible character of `s` (tag outside an emoji tag sequence, noncharacter), or null. */
function invisible(s: string): { code: number; index: number } | null {
  if (!MAY_BE_INVISIBLE.test(s)) return null;
  INVISIBLE.lastIndex = 0;
  for (let m = INVISIBLE.exec(s); m; m = INVISIBLE.exec(s)) {
    // A match of one character (two code units at most) is an invisible one; a longer one is a valid tag sequence.
    if (m[0].length <= 2) return { code: m[0].codePointAt(0)!, index: m.index };
  }
  return null;
}

/** Why `s` is not text, or null when it is. */
export function textProblem(s: string): string | null {
  if (s.includes('\0')) return 'must not contain a NUL character (U+0000)';
  const lone = LONE_SURROGATE.exec(s);
  if (lone) return `must be valid Unicode text; it holds a lone surrogate (${hex(lone[0].charCodeAt(0))}) at index ${lone.index}`;
  const hidden = invisible(s);
  if (!hidden) return null;
  const what = hidden.code >= 0xe0000 && hidden.code <= 0xe007f ? 'a Unicode tag character outside an emoji tag sequence' : 'a noncharacter';
  return `must not hold text a person cannot see; it holds ${hex(hidden.code)} (${what}) at index ${hidden.index}`;
}

const join = (path: string, key: string | number) => (typeof key === 'number' ? `${path}[${key}]` : path ? `${path}.${key}` : key);

/** How deep a JSON body or MCP argument tree may nest (objects and arrays, the outermost one counted). */
export const MAX_DEPTH = 64;

/**
 * One `invalid_value` issue per string in `value` that is not text, each with the field's path
 * (prefixed by `path`), and one for a container nested deeper than MAX_DEPTH (nothing below it is
 * read). One iterative pass, so no input can exhaust the stack; it runs before any recursive walk.
 */
export function textIssues(value: unknown, path = ''): FieldIssue[] {
  const issues: FieldIssue[] = [];
  if (value === null || typeof value !== 'object') {
    const problem = typeof value === 'string' ? textProblem(value) : null;
    if (problem) issues.push({ field: path, code: 'invalid_value', message: problem });
    return issues;
  }
  // Containers still to read, with their path and depth (the outermost is 1); strings are checked
  // where they are found, and a path is only spelled out for a container or an issue.
  const stack: Array<{ v: object; at: string; depth: number }> = [{ v: value, at: path, depth: 1 }];
  while (stack.length) {
    const { v, at, depth } = stack.pop()!;
    if (depth > MAX_DEPTH) {
      // One such issue says enough: nothing below it is read.
      issues.push({ field: at, code: 'invalid_value', message: `is nested deeper than ${MAX_DEPTH} levels; send a flatter value` });
      break;
    }
    const deeper = stack.length;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const item: unknown = v[i];
        if (typeof item === 'string') {
          const problem = textProblem(item);
          if (problem) issues.push({ field: join(at, i), code: 'invalid_value', message: problem });
        } else if (item !== null && typeof item === 'object') stack.push({ v: item, at: join(at, i), depth: depth + 1 });
      }
    } else {
      for (const k of Object.keys(v)) {
        const keyProblem = textProblem(k);
        if (keyProblem) {
          issues.push({ field: join(at, k), code: 'invalid_value', message: `has a name that ${keyProblem}` });
          continue;
        }
        const item: unknown = (v as Record<string, unknown>)[k];
        if (typeof item === 'string') {
          const problem = textProblem(item);
          if (problem) issues.push({ field: join(at, k), code: 'invalid_value', message: problem });
        } else if (item !== null && typeof item === 'object') stack.push({ v: item, at: join(at, k), depth: depth + 1 });
      }
    }
    // The containers just found are read first to last.
    if (stack.length - deeper > 1) reverseFrom(stack, deeper);
  }
  return issues;
}

function reverseFrom<T>(xs: T[], from: number): void {
  for (let i = from, j = xs.length - 1; i < j; i++, j--) [xs[i], xs[j]] = [xs[j], xs[i]];
}

/** What a schema may say of a string field: one line of text (a name), or several (a description). */
export type TextKind = 'line' | 'multiline';

// Control characters (C0 and C1, DEL), bidirectional overrides and isolates, line and paragraph
// separators and the byte-order mark; a multi-line field allows the tab and the line feed of them.
// A one-line field also refuses the zero-width space and the invisible operators (U+200B, U+2060 to
// U+2064); what scripts need stays: the joiners U+200C and U+200D, the marks U+200E, U+200F and
// U+061C, variation selectors.
// eslint-disable-next-line no-control-regex -- control characters are what it finds
const NOT_IN_LINE = /[\u0001-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069\u2028\u2029\uFEFF\u200B\u2060-\u2064]/;
// eslint-disable-next-line no-control-regex -- control characters are what it finds
const NOT_IN_LINES = /[\u0001-\u0008\u000B-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069\u2028\u2029\uFEFF]/;

/** A character's name as an error message gives it. */
function kindOf(code: number): string {
  if (code === 0x0d) return 'a carriage return';
  if (code === 0x0a) return 'a line feed';
  if (code === 0x09) return 'a tab';
  if (code <= 0x1f || (code >= 0x7f && code <= 0x9f)) return 'a control character';
  if (code >= 0x202a && code <= 0x202e) return 'a bidirectional override';
  if (code >= 0x2066 && code <= 0x2069) return 'a bidirectional isolate';
  if (code === 0x2028 || code === 0x2029) return 'a line or paragraph separator';
  if (code === 0x200b) return 'a zero-width space';
  if (code === 0x2060) return 'a word joiner';
  if (code >= 0x2061 && code <= 0x2064) return 'an invisible operator';
  return 'a byte-order mark';
}

/** A multi-line field's text as stored: each CR LF pair a line feed. */
export function storedLines(s: string): string {
  return s.includes('\r\n') ? s.replace(/\r\n/g, '\n') : s;
}

/** Why `s` is not text of `kind` (after storedLines for a multi-line field), or null when it is. */
export function kindProblem(s: string, kind: TextKind): string | null {
  const found = (kind === 'line' ? NOT_IN_LINE : NOT_IN_LINES).exec(s);
  if (!found) return null;
  const code = found[0].charCodeAt(0);
  const rule = kind === 'line' ? 'must be one line of text' : 'may hold line feeds and tabs but no other control or formatting character';
  return `${rule}; it holds ${hex(code)} (${kindOf(code)}) at index ${found.index}`;
}
