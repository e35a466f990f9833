// TikTok Business API failures as the port's PlatformError kinds. Answers carry `code` (0 is
// success): 40100 is throttling, 40001/40102/40104/40105 are token or permission failures, other
// 400xx codes refuse the request (naming the field when the message does), 5xxxx are transient.

import { PlatformError } from '../port.js';

const THROTTLE_CODES = new Set([40100]);
const AUTH_CODES = new Set([40001, 40102, 40104, 40105]);

function fieldOf(message: string): string | undefined {
  return /^\s*([A-Za-z_][\w.[\]]*)\s*:/.exec(message)?.[1] ?? /\b(?:field|param(?:eter)?)\s+['"`]?([A-Za-z_][\w.]*)/i.exec(message)?.[1];
}

/** The PlatformError for an answer whose `code` is not 0. */
export function tiktokError(code: number, message: string, throttleWaitMs: number): PlatformError {
  const text = message || `The ad platform refused the request (code ${code}).`;
  const extra = { platformCode: code };
  if (THROTTLE_CODES.has(code)) return new PlatformError('throttled', text, { ...extra, retryAfterMs: throttleWaitMs });
  if (AUTH_CODES.has(code)) return new PlatformError('authentication', text, extra);
  if (code >= 50000) return new PlatformError('transient', text, extra);
  if (/\b(does not exist|not exist|not found)\b/i.test(text)) return new PlatformError('not_found', text, extra);
  const field = fieldOf(text);
  return new PlatformError('invalid_request', text, { ...extra, ...(field ? { field } : {}) });
}

/** The PlatformError for an HTTP failure without a usable Business API answer. */
export function httpError(status: number, retryAfter: string | null, throttleWaitMs: number): PlatformError {
  if (status === 429) {
    const seconds = Number(retryAfter);
    return new PlatformError('throttled', 'The ad platform is rate limiting this app.', {
      retryAfterMs: Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : throttleWaitMs,
    });
  }
  if (status === 401 || status === 403) return new PlatformError('authentication', `The ad platform refused the access token (HTTP ${status}).`);
  if (status >= 500 || status < 400) return new PlatformError('transient', `The ad platform answered HTTP ${status}.`);
  return new PlatformError('invalid_request', `The ad platform refused the request (HTTP ${status}).`);
}
