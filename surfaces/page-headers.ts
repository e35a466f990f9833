// The headers every answer under the people's pages carries (/oauth/*, /account/*, /console/*),
// error pages, 404s and unrouted methods included: a Content-Security-Policy that forbids framing
// (`frame-ancestors 'none'`, and `X-Frame-Options: DENY` for older browsers), so no other site can
// lay one of these pages under its own and have a person click through it. Set by the REST app's
// outermost middleware (app.ts), whichever route or error answered.

/** The console's policy: scripts, styles and images only from this origin (there are no scripts), forms only to it. */
export const CONSOLE_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'";

/**
 * The OAuth and account pages' policy: no scripts, their inline stylesheet, no framing. No
 * `form-action`: the consent form's answer redirects to the app's own address.
 */
export const PAGES_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'";

const under = (path: string, prefix: string) => path === prefix || path.startsWith(`${prefix}/`);

/** The policy of the answers to `path`, or null for a path outside the people's pages. */
export function pagePolicy(path: string): string | null {
  if (under(path, '/console')) return CONSOLE_CSP;
  if (under(path, '/oauth') || under(path, '/account')) return PAGES_CSP;
  return null;
}

/** Sets the framing and content headers of a page answer under `path` (nothing outside the people's pages). */
export function setPageHeaders(path: string, set: (name: string, value: string) => void): void {
  const policy = pagePolicy(path);
  if (!policy) return;
  set('Content-Security-Policy', policy);
  set('X-Frame-Options', 'DENY');
  set('X-Content-Type-Options', 'nosniff');
}
