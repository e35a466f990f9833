// Locates files of the project (schemas, compiled migrations) from wherever the code runs.

import path from 'node:path';
import { fileURLToPath } from 'node:url';

// This file compiles to dist/src/paths.js, two levels below the project root.
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** An absolute path inside the project folder. */
export function projectPath(...parts: string[]): string {
  return path.join(root, ...parts);
}
