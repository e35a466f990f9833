// Following an operation that declares `follow` (a run that goes on after the answer): the command
// reads the run again with the declared read until it ends, writing a progress line to standard
// error, and prints the run as it ended.

import { followInput, progressOf, stillRunning } from '../../src/catalogue/follow.js';
import type { Command } from './commands.js';
import { send, type Reply, type SendOptions } from './http.js';
import { buildRequest } from './request.js';

/** Reads what `first` started until it ends; answers the last reply (an error reply as soon as one comes). */
export async function followToEnd(
  cmd: Command,
  commands: Map<string, Command>,
  input: Record<string, unknown>,
  first: Reply,
  options: SendOptions,
  say: (line: string) => void,
): Promise<Reply> {
  const f = cmd.op.follow;
  const read = f ? commands.get(f.operation) : undefined;
  if (!f || !read) return first;
  let reply = first;
  let last = '';
  for (;;) {
    const progress = progressOf(f, reply.body);
    const line = `${cmd.name}: ${progress?.message ?? 'working'} (${String((reply.body as Record<string, unknown>)?.[f.while.field])})`;
    if (line !== last) say(line);
    last = line;
    if (!stillRunning(f, reply.body)) return reply;
    await new Promise((resolve) => setTimeout(resolve, f.intervalMs));
    // A GET: retried on 429/503/504 like any read, without the first call's Idempotency-Key.
    reply = await send(buildRequest(read, followInput(f, input, first.body), null), { ...options, idempotencyKey: undefined });
    if (reply.status >= 300) return reply;
  }
}
