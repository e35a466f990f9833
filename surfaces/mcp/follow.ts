// A tool call of an operation that declares `follow` (a run that goes on after the answer) reads
// the run again until it ends or 25 s have passed, then answers the run as it stands. The progress
// goes through the call's own progress hook (InvokeOptions.onProgress), as any long operation's does.

import type { Principal } from '../../src/auth/principal.js';
import { followInput, progressOf, stillRunning } from '../../src/catalogue/follow.js';
import type { OperationDefinition } from '../../src/catalogue/define.js';
import type { InvokeOptions, InvokeResult } from '../../src/pipeline/invoke-types.js';
import type { Service } from '../../src/service.js';

/** How long a tool call follows a run before answering it as it stands. */
export const MCP_FOLLOW_MS = 25_000;

/** Invokes `op`, then, when it declares `follow`, follows what it started for at most MCP_FOLLOW_MS. */
export async function invokeFollowing(
  service: Service,
  op: OperationDefinition,
  principal: Principal,
  input: Record<string, unknown>,
  options: InvokeOptions,
  limitMs = MCP_FOLLOW_MS,
): Promise<InvokeResult> {
  const first = await service.invoke(op.name, principal, input, options);
  const f = op.follow;
  if (!f) return first;
  const until = Date.now() + limitMs;
  let body = first.body;
  // Progress only ever grows (MCP asks it of every notification): a repeated value is not passed on.
  let last = -1;
  const onProgress: InvokeOptions['onProgress'] = (update) => {
    if (update.progress <= last) return;
    last = update.progress;
    options.onProgress?.(update);
  };
  const progress = progressOf(f, body);
  if (progress) onProgress(progress);
  while (stillRunning(f, body) && Date.now() + f.intervalMs < until) {
    await new Promise((resolve) => setTimeout(resolve, f.intervalMs));
    // The read reports the run's progress itself (ctx.progress), through the same hook.
    body = (
      await service.invoke(f.operation, principal, followInput(f, input, first.body), { requestId: options.requestId, onProgress, surface: options.surface })
    ).body;
  }
  return { ...first, body };
}
