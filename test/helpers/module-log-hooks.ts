// The module loader hook of test/helpers/module-log.ts: notes each ES module's URL in MODULE_LOG as
// it is loaded (the hooks run on their own thread; each note is one append, in load order).

import fs from 'node:fs';

type Next = (url: string, context: unknown) => Promise<unknown>;

export async function load(url: string, context: unknown, next: Next): Promise<unknown> {
  if (process.env.MODULE_LOG) fs.appendFileSync(process.env.MODULE_LOG, `esm ${url}\n`);
  return next(url, context);
}
