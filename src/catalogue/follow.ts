// Following a long operation: an operation that starts work and answers at once (202, a run) may
// declare the read that answers that work as it stands. Surfaces that wait for the end (the CLI,
// the MCP call handler) read it again until it is over, reporting its progress on the way.

import type { ProgressUpdate } from './invoke-types.js';

/** Declared on an operation: how to read what it started, and when that is over. */
export interface FollowDeclaration {
  /** The read operation that answers the work as it stands (e.g. get-tracker-push-run). */
  operation: string;
  /** Input properties of the first call passed on unchanged (e.g. brandId). */
  carry: string[];
  /** Input properties of the read taken from the first answer: read input name → answer field. */
  from: Record<string, string>;
  /** The work goes on while this answer field equals this value. */
  while: { field: string; equals: string };
  /** Dotted paths of the answer's progress: units done, and the total when known. */
  progress?: { done: string; total: string };
  /** Time between two reads. */
  intervalMs: number;
}

function at(value: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((v, k) => (v && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined), value);
}

/** The read's input for `answer`, the first call having had `input`. */
export function followInput(f: FollowDeclaration, input: Record<string, unknown>, answer: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of f.carry) if (input[name] !== undefined) out[name] = input[name];
  for (const [name, field] of Object.entries(f.from)) out[name] = at(answer, field);
  return out;
}

/** True while the work `answer` describes goes on. */
export function stillRunning(f: FollowDeclaration, answer: unknown): boolean {
  return at(answer, f.while.field) === f.while.equals;
}

/** The progress `answer` shows, or null when the declaration names none. */
export function progressOf(f: FollowDeclaration, answer: unknown): ProgressUpdate | null {
  if (!f.progress) return null;
  const done = Number(at(answer, f.progress.done) ?? 0);
  const total = Number(at(answer, f.progress.total) ?? 0);
  return { progress: done, ...(total > 0 ? { total } : {}), message: total > 0 ? `${done} of ${total} done` : `${done} done` };
}
