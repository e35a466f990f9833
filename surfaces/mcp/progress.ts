// The one way a tool call reports progress over MCP: when the call carries `_meta.progressToken`
// and its caller takes a stream, every `ctx.progress` of the operation (and of what it follows)
// becomes a `notifications/progress` on that call's stream. Anything else gets no listener at all.

import type { ProgressUpdate } from '../../src/catalogue/invoke-types.js';

type ProgressToken = string | number;

/** Sends one notification; the SDK's RequestHandlerExtra.sendNotification of the call. */
type Notify = (notification: {
  method: 'notifications/progress';
  params: { progressToken: ProgressToken; progress: number; total?: number; message?: string };
}) => Promise<void>;

/**
 * The progress listener of one call, or undefined when nobody listens. Progress only grows, as the
 * protocol asks: an update that does not move forward is dropped.
 */
export function progressListener(token: unknown, canStream: boolean, notify: Notify): ((update: ProgressUpdate) => void) | undefined {
  if ((typeof token !== 'string' && typeof token !== 'number') || !canStream) return undefined;
  let last = -Infinity;
  return (update) => {
    if (!(update.progress > last)) return;
    last = update.progress;
    const params: { progressToken: ProgressToken; progress: number; total?: number; message?: string } = { progressToken: token, progress: update.progress };
    if (update.total !== undefined) params.total = update.total;
    if (update.message !== undefined) params.message = update.message;
    notify({ method: 'notifications/progress', params }).catch(() => {});
  };
}
