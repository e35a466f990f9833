// Every string the service accepts is valid Unicode text: no NUL character and no lone surrogate,
// in any string field (object keys included), whatever the schema says of it. The schema layer runs
// this before each input schema, so REST bodies, query strings and MCP tool arguments all meet it.

import type { FieldIssue } from '../errors.js';

// A high surrogate not followed by a low one, or a low one not preceded by a high one.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

const hex = (code: number) => `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;

/** Why `s` is not text, or null when it is. */
export function textProblem(s: string): string | null {
  if (s.includes('\0')) return 'must not contain a NUL character (U+0000)';
  const lone = LONE_SURROGATE.exec(s);
  return lone ? `must be valid Unicode text; it holds a lone surrogate (${hex(lone[0].charCodeAt(0))}) at index ${lone.index}` : null;
}

const join = (path: string, key: string | number) => (typeof key === 'number' ? `${path}[${key}]` : path ? `${path}.${key}` : key);

/** One `invalid_value` issue per string in `value` that is not text, each with the field's path (prefixed by `path`). */
export function textIssues(value: unknown, path = ''): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const walk = (v: unknown, at: string): void => {
    if (typeof v === 'string') {
      const problem = textProblem(v);
      if (problem) issues.push({ field: at, code: 'invalid_value', message: problem });
    } else if (Array.isArray(v)) {
      v.forEach((item, i) => walk(item, join(at, i)));
    } else if (v !== null && typeof v === 'object') {
      for (const [k, item] of Object.entries(v)) {
        const problem = textProblem(k);
        if (problem) issues.push({ field: join(at, k), code: 'invalid_value', message: `has a name that ${problem}` });
        else walk(item, join(at, k));
      }
    }
  };
  walk(value, path);
  return issues;
}
