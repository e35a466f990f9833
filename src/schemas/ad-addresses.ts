// The one rule for every address a person's ads carry: an ad's linkUrl and display link, an ad
// set's app store page (the landing page of an app ad), a template's ads and ad sets, a creative's
// source URL; and every address a person gives that can end up in an ad or a page: the brand
// profile's website (copy generation writes it into ad text) and an OAuth client's redirect URIs
// (src/oauth/flows.ts). An absolute http or https URL with a host, no user name or password, no
// backslash anywhere (parsers disagree on it: `https://a.example\@b.example/` is a.example to a
// browser and b.example to others), at most 2,000 characters, parsed by the WHATWG URL parser:
// never javascript:, data:, file: or a relative address. Checked at save (the `adUrl` keyword of the fields' schemas,
// registry.ts) and at preview (launch validation, for drafts saved before the rule).

/** The longest address an ad may carry. */
export const AD_URL_MAX = 2000;

/** The fields of an ad's properties that are addresses. */
const AD_URL_FIELDS = ['linkUrl', 'displayUrl'] as const;

// The scheme, two slashes and a first character of a host, as written (the WHATWG parser would
// make a host of `https:///x` or `https:\\x`).
const ABSOLUTE = /^https?:\/\/[^/?#\\\s@]/i;

/** Why `url` may not be an ad's address, or null when it may. */
export function adUrlProblem(url: string): string | null {
  if (url.length > AD_URL_MAX) return `must be at most ${AD_URL_MAX} characters`;
  if (url.includes('\\')) return 'must not hold a backslash (\\): write the address with forward slashes, as a browser shows it';
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(url)?.[1].toLowerCase();
  if (scheme && scheme !== 'http' && scheme !== 'https') return `must be an http or https URL; ${scheme}: is not an address an ad may carry`;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'must be an absolute http or https URL with a host, e.g. https://shop.example.com/spring';
  }
  if (!ABSOLUTE.test(url) || !parsed.hostname || /\s/.test(url))
    return 'must be an absolute http or https URL with a host, e.g. https://shop.example.com/spring';
  if (parsed.username || parsed.password) return 'must not carry a user name or password';
  return null;
}

/** The address fields of an ad's `properties` that break the rule, with why: `[field, message]`. */
export function adAddressIssues(properties: Record<string, unknown>): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const field of AD_URL_FIELDS) {
    const value = properties[field];
    const problem = typeof value === 'string' ? adUrlProblem(value) : null;
    if (problem) out.push([field, problem]);
  }
  return out;
}

/**
 * The address fields of an ad set's `properties` that break the rule, with why: `[field, message]`.
 * Its promoted app's store page is where its ads send a person, as an ad's linkUrl is.
 */
export function adSetAddressIssues(properties: Record<string, unknown>): Array<[string, string]> {
  const store = (properties.promotedObject as Record<string, unknown> | undefined)?.objectStoreUrl;
  const problem = typeof store === 'string' ? adUrlProblem(store) : null;
  return problem ? [['promotedObject.objectStoreUrl', problem]] : [];
}
