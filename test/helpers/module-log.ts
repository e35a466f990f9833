// Preloaded into a child `svc-server` (NODE_OPTIONS=--import=<this file's URL>, MODULE_LOG=<file>):
// appends to MODULE_LOG every module the process loads (ES modules through a load hook, CommonJS
// files as they compile), in order, and a `listening` line when an HTTP server starts listening,
// so a test can tell what loaded before the first answer from what loaded on first use.

import fs from 'node:fs';
import http from 'node:http';
import { createRequire, register } from 'node:module';

const file = process.env.MODULE_LOG;
if (file) {
  register(new URL('./module-log-hooks.js', import.meta.url));
  const note = (line: string) => fs.appendFileSync(file, `${line}\n`);
  const Module = createRequire(import.meta.url)('node:module') as { prototype: { _compile(content: string, filename: string): unknown } };
  const compile = Module.prototype._compile;
  Module.prototype._compile = function (content: string, filename: string) {
    note(`cjs ${filename}`);
    return compile.call(this, content, filename);
  };
  const listen = http.Server.prototype.listen;
  http.Server.prototype.listen = function (this: http.Server, ...args: unknown[]) {
    this.once('listening', () => note('listening'));
    return listen.apply(this, args as Parameters<typeof listen>);
  } as typeof listen;
}
