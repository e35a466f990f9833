// The contract's request budget (30 s, REQUEST_TIMEOUT_MS): past it the caller gets 504 `timeout`
// while the operation goes on; a retry with the same idempotency key later gets its result.

import type { Logger } from 'pino';
import { ServiceError } from '../errors.js';

/**
 * Resolves like `running`, or rejects with `timeout` after `ms` (`goesOn`, asked then, says what
 * goes on); a late failure is logged, never unhandled.
 */
export function withinBudget<T>(
  running: Promise<T>,
  ms: number,
  log: Logger,
  requestId: string,
  goesOn?: () => { message: string; details: Record<string, unknown> } | undefined,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      const seconds = Math.round(ms / 1000);
      const going = goesOn?.();
      reject(
        going
          ? new ServiceError('timeout', `The request did not finish within ${seconds} seconds. ${going.message}`, going.details)
          : new ServiceError(
              'timeout',
              `The request did not finish within ${seconds} seconds; it may still complete. Retry with the same idempotency key to get its result.`,
            ),
      );
    }, ms);
    running.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (err) => {
        clearTimeout(timer);
        if (timedOut) log.warn({ err, requestId }, 'operation failed after its request timed out');
        else reject(err);
      },
    );
  });
}
