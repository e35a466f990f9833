// Exit codes of `svc` and the error that carries one: 0 success, 2 invalid request, 3 authentication
// or permission, 4 not found or conflict, 5 service unavailable or internal error.

export const EXIT = { ok: 0, invalid: 2, auth: 3, notFound: 4, unavailable: 5 } as const;

/** A failure found on the client side (bad flag, unreadable file, unreachable server). */
export class CliError extends Error {
  constructor(
    readonly exitCode: number,
    message: string,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

export const usageError = (message: string) => new CliError(EXIT.invalid, message);

/** The exit code of an HTTP answer; a 429 left after the retries counts as unavailable. */
export function exitCodeOf(status: number): number {
  if (status < 400) return EXIT.ok;
  if (status === 401 || status === 403) return EXIT.auth;
  if (status === 404 || status === 409) return EXIT.notFound;
  if (status === 429 || status >= 500) return EXIT.unavailable;
  return EXIT.invalid;
}
