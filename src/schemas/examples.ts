// The example request and answer of each operation (schemas/examples/<operation>.json): shown in
// the OpenAPI document and replayed against a fresh demo server by the examples test.

import fs from 'node:fs';
import path from 'node:path';
import { projectPath } from '../paths.js';

export interface OperationExample {
  /**
   * The operation whose example must run just before this one when the examples are replayed in
   * order (it makes what this one reads); without it the example runs after the listed ones.
   */
  after?: string;
  request: {
    /** Path parameters by name. */
    path?: Record<string, string | number>;
    /** Query parameters of a GET or DELETE; an array is one parameter repeated. */
    query?: Record<string, unknown>;
    headers?: Record<string, string>;
    /** The JSON body of a POST, PUT or PATCH. */
    body?: unknown;
  };
  response: { status: number; body: unknown };
}

export const EXAMPLES_DIR = projectPath('schemas', 'examples');

/** Every example file, by operation name (the file name without `.json`). */
export function loadOperationExamples(dir = EXAMPLES_DIR): Map<string, OperationExample> {
  const out = new Map<string, OperationExample>();
  if (!fs.existsSync(dir)) return out;
  for (const file of fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()) {
    const example = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as OperationExample;
    if (!example.request || !example.response || typeof example.response.status !== 'number') {
      throw new Error(`${path.join(dir, file)} needs "request" and "response": {"status", "body"}`);
    }
    out.set(file.replace(/\.json$/, ''), example);
  }
  return out;
}
