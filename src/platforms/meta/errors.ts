// Graph API failures as the port's closed set of PlatformError kinds. Throttling (codes 4, 17, 32,
// 613, 80000-80014) carries the wait from X-Business-Use-Case-Usage or X-Ad-Account-Usage; 1 and 2
// are transient; 104, 190 and permission codes are authentication; 2635 (a Graph version past its
// end) is a refusal the registry reports as the operator's to fix; 100 names the refused parameter.

import { PlatformError } from '../port.js';

const THROTTLE_CODES = new Set([4, 17, 32, 613, ...Array.from({ length: 15 }, (_v, i) => 80000 + i)]);
const TRANSIENT_CODES = new Set([1, 2]);
const AUTH_CODES = new Set([102, 104, 190, 10]);
/** "You are calling a deprecated version of the Ads API" (https://developers.facebook.com/docs/marketing-api/error-reference). */
export const DEPRECATED_VERSION_CODE = 2635;
/**
 * "Object with ID does not exist, cannot be loaded due to missing permissions, or does not support this
 * operation" (100 with subcode 33): not found as far as the call goes, yet no proof that the object is
 * gone (a token without the permission gets it too); and "some of the aliases do not exist" (803).
 */
export const NOT_FOUND_OR_FORBIDDEN = 33;
const NOT_FOUND_SUBCODE = NOT_FOUND_OR_FORBIDDEN;
const NOT_FOUND_CODES = new Set([803]);

/**
 * Refusals no launch can fix, only whoever runs the Meta app or the Page (error 100 with these subcodes):
 * the app is in development mode (1885183), the Page has not accepted the lead ads terms (1815089).
 * Sources: Meta error reference and integrations' reports of both subcodes (third-party, quoted in
 * docs/platforms.md).
 */
export const APP_IN_DEVELOPMENT = 1885183;
export const LEAD_TERMS_NOT_ACCEPTED = 1815089;
/** Meta's page where a Page admin accepts the lead ads terms. */
export const LEAD_TERMS_URL = 'https://www.facebook.com/ads/leadgen/tos';

/** Whether a refusal is one only the app's or the Page's owner can fix (never a launch's field). */
export const needsOwnerFix = (err: PlatformError): boolean =>
  err.extra.platformCode === 100 && (err.extra.platformSubcode === APP_IN_DEVELOPMENT || err.extra.platformSubcode === LEAD_TERMS_NOT_ACCEPTED);

/** Wait used when a throttled answer carries no estimate. */
export const DEFAULT_THROTTLE_WAIT_MS = 60_000;

interface GraphErrorBody {
  message?: string;
  type?: string;
  code?: number;
  error_subcode?: number;
  is_transient?: boolean;
  error_user_msg?: string;
  error_data?: unknown;
}

/** The longest estimated_time_to_regain_access (minutes) in an X-Business-Use-Case-Usage value, in ms. */
export function regainAccessMs(header: string | null | undefined): number | undefined {
  if (!header) return undefined;
  let usage: unknown;
  try {
    usage = JSON.parse(header);
  } catch {
    return undefined;
  }
  let minutes = 0;
  for (const entries of Object.values((usage ?? {}) as Record<string, unknown>)) {
    for (const entry of Array.isArray(entries) ? entries : [entries]) {
      const value = Number((entry as { estimated_time_to_regain_access?: unknown })?.estimated_time_to_regain_access);
      if (Number.isFinite(value) && value > minutes) minutes = value;
    }
  }
  return minutes > 0 ? minutes * 60_000 : undefined;
}

/** X-Ad-Account-Usage's reset_time_duration (seconds) in ms, when the ad account is over its limit. */
export function resetDurationMs(header: string | null | undefined): number | undefined {
  if (!header) return undefined;
  try {
    const seconds = Number((JSON.parse(header) as { reset_time_duration?: unknown })?.reset_time_duration);
    return Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : undefined;
  } catch {
    return undefined;
  }
}

function blamedField(error: GraphErrorBody): string | undefined {
  let data = error.error_data;
  if (typeof data === 'string') {
    try {
      data = JSON.parse(data);
    } catch {
      data = undefined;
    }
  }
  const specs = (data as { blame_field_specs?: unknown })?.blame_field_specs;
  if (Array.isArray(specs) && specs.length) {
    const first = Array.isArray(specs[0]) ? specs[0].join('.') : String(specs[0]);
    if (first) return first;
  }
  const text = error.message ?? '';
  return /\bParam (\w[\w.[\]]*)/.exec(text)?.[1] ?? /\bparameter (\w[\w.[\]]*)/i.exec(text)?.[1];
}

/** The PlatformError for a failed Graph answer (HTTP status, parsed body, response headers). */
export function graphError(status: number, body: unknown, header: (name: string) => string | null | undefined): PlatformError {
  const error = ((body as { error?: GraphErrorBody })?.error ?? {}) as GraphErrorBody;
  const code = typeof error.code === 'number' ? error.code : undefined;
  const message = error.error_user_msg || error.message || `The ad platform answered HTTP ${status}.`;
  const extra = {
    ...(code !== undefined ? { platformCode: code } : {}),
    ...(typeof error.error_subcode === 'number' ? { platformSubcode: error.error_subcode } : {}),
  };
  if (code !== undefined && THROTTLE_CODES.has(code)) {
    const retryAfterMs =
      regainAccessMs(header('x-business-use-case-usage')) ??
      regainAccessMs(header('x-ad-account-usage')) ??
      resetDurationMs(header('x-ad-account-usage')) ??
      DEFAULT_THROTTLE_WAIT_MS;
    return new PlatformError('throttled', message, { ...extra, retryAfterMs });
  }
  if (code === DEPRECATED_VERSION_CODE) return new PlatformError('invalid_request', message, extra);
  if (code !== undefined && AUTH_CODES.has(code)) return new PlatformError('authentication', message, extra);
  if (code !== undefined && code >= 200 && code <= 299) return new PlatformError('authentication', message, extra);
  if ((code !== undefined && TRANSIENT_CODES.has(code)) || error.is_transient === true) return new PlatformError('transient', message, extra);
  if ((code === 100 && error.error_subcode === NOT_FOUND_SUBCODE) || (code !== undefined && NOT_FOUND_CODES.has(code)) || status === 404) {
    return new PlatformError('not_found', message, extra);
  }
  if (status >= 500) return new PlatformError('transient', message, extra);
  if (code === undefined) {
    // No Graph error body: judge by the HTTP status alone (a proxy or load balancer answered).
    if (status === 429) return new PlatformError('throttled', message, { retryAfterMs: DEFAULT_THROTTLE_WAIT_MS });
    if (status === 401 || status === 403) return new PlatformError('authentication', message);
    return new PlatformError(status >= 400 ? 'invalid_request' : 'transient', message);
  }
  const field = blamedField(error);
  return new PlatformError('invalid_request', message, { ...extra, ...(field ? { field } : {}) });
}
