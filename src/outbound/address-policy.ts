// The outbound address rule for URLs a caller gave through the API (webhook endpoints, a tracker
// baseUrl, a chat step's webhookUrl): what the URL's text may say and which resolved addresses a
// connection may reach. Pure functions; the resolver and the connection live in resolver.ts/client.ts.
// Range tables come from ipaddr.js (the IANA special-purpose registries); only the IPv6 forms that
// carry an IPv4 address inside are unpacked here, so the address inside is judged as well.

import ipaddr from 'ipaddr.js';

/** Who gave an address: an operator (environment, bootstrap file) is trusted as given; a caller (API) is checked. */
export type Origin = 'operator' | 'caller';

/** A URL the service will call, with where it came from; the origin stays with it for its whole life. */
export interface OutboundTarget {
  url: string;
  origin: Origin;
}

/** A URL the operator configured (environment variable, bootstrap file): called as given. */
export const operatorTarget = (url: string): OutboundTarget => ({ url, origin: 'operator' });

/** A URL a caller gave through the API: the address rule applies at save and at every send. */
export const callerTarget = (url: string): OutboundTarget => ({ url, origin: 'caller' });

/** WEBHOOK_ALLOW_PRIVATE: with it, http:// and loopback, private and unique-local addresses are admitted. */
export interface AddressRule {
  allowPrivate: boolean;
}

/**
 * What an address is to the rule: `public` (always admitted), `private` (loopback, RFC 1918 private,
 * IPv6 unique-local: admitted only with allowPrivate) or `refused` (link-local, shared, unspecified,
 * multicast, reserved, documentation and every other special-purpose range: never admitted).
 */
export type Verdict = 'public' | 'private' | 'refused';

export interface Classification {
  verdict: Verdict;
  /** Words for a message, e.g. "a loopback address" or "an IPv4-mapped IPv6 address of 127.0.0.1 (a loopback address)". */
  why: string;
}

const RANGE_WORDS: Record<string, string> = {
  unicast: 'a public address',
  unspecified: 'an unspecified address',
  broadcast: 'the broadcast address',
  multicast: 'a multicast address',
  linkLocal: 'a link-local address',
  loopback: 'a loopback address',
  carrierGradeNat: 'a shared (carrier-grade NAT) address',
  private: 'a private address',
  reserved: 'a reserved or documentation address',
  as112: 'an AS112 DNS address',
  amt: 'an AMT relay address',
  uniqueLocal: 'a unique-local address',
  deprecatedSiteLocal: 'a site-local address',
  discard: 'a discard-only address',
  benchmarking: 'a benchmarking address',
  as112v6: 'an AS112 DNS address',
  deprecatedOrchid: 'an ORCHID address',
  orchid2: 'an ORCHID address',
  droneRemoteIdProtocolEntityTags: 'a DRIP entity address',
  segmentRouting: 'a segment-routing address',
  rfc6052: 'a local-use NAT64 address',
};

const PRIVATE_RANGES = new Set(['loopback', 'private', 'uniqueLocal']);
const RANK: Record<Verdict, number> = { public: 0, private: 1, refused: 2 };
const GLOBAL_UNICAST = ipaddr.IPv6.parseCIDR('2000::/3');
const NAT64_WELL_KNOWN = ipaddr.IPv6.parseCIDR('64:ff9b::/96');

const words = (range: string) => RANGE_WORDS[range] ?? `a special-purpose address (${range})`;

function v4FromParts(high: number, low: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

function classifyV4(a: ipaddr.IPv4): Classification {
  const range = a.range();
  if (range === 'unicast') return { verdict: 'public', why: words(range) };
  return { verdict: PRIVATE_RANGES.has(range) ? 'private' : 'refused', why: words(range) };
}

/** The IPv4 addresses an IPv6 transition form carries (mapped, translated, compatible, NAT64, 6to4, Teredo), or null. */
function embeddedV4(a: ipaddr.IPv6, range: string): { form: string; inside: ipaddr.IPv4[] } | null {
  const p = a.parts;
  if (range === 'ipv4Mapped') return { form: 'an IPv4-mapped IPv6 address', inside: [v4FromParts(p[6], p[7])] };
  if (range === 'rfc6145') return { form: 'an IPv4-translated IPv6 address', inside: [v4FromParts(p[6], p[7])] };
  if (range === 'rfc6052' && a.match(NAT64_WELL_KNOWN)) return { form: 'a NAT64 IPv6 address', inside: [v4FromParts(p[6], p[7])] };
  if (range === '6to4') return { form: 'a 6to4 IPv6 address', inside: [v4FromParts(p[1], p[2])] };
  // Teredo: the server's IPv4 in bits 32-63, the client's (bits inverted) in the last 32.
  if (range === 'teredo') return { form: 'a Teredo IPv6 address', inside: [v4FromParts(p[2], p[3]), v4FromParts(~p[6] & 0xffff, ~p[7] & 0xffff)] };
  // IPv4-compatible ::/96 (deprecated); :: and ::1 are the unspecified and loopback addresses themselves.
  if (range === 'unicast' && p.slice(0, 6).every((x) => x === 0)) return { form: 'an IPv4-compatible IPv6 address', inside: [v4FromParts(p[6], p[7])] };
  return null;
}

function classifyV6(a: ipaddr.IPv6): Classification {
  const range = a.range();
  const embedded = embeddedV4(a, range);
  if (embedded) {
    // The address inside decides; the worst of them when there are two (Teredo).
    const inner = embedded.inside.map((v4) => ({ v4, c: classifyV4(v4) })).sort((x, y) => RANK[y.c.verdict] - RANK[x.c.verdict])[0];
    return { verdict: inner.c.verdict, why: `${embedded.form} of ${inner.v4.toString()} (${inner.c.why})` };
  }
  if (range === 'unicast') {
    // Outside 2000::/3 IANA has assigned nothing global: reserved.
    return a.match(GLOBAL_UNICAST) ? { verdict: 'public', why: words(range) } : { verdict: 'refused', why: 'a reserved IPv6 address' };
  }
  return { verdict: PRIVATE_RANGES.has(range) ? 'private' : 'refused', why: words(range) };
}

/** True when `text` is an IP address literal (IPv4 dotted decimal or IPv6, zone id allowed, no brackets). */
export function isIpLiteral(text: string): boolean {
  return ipaddr.IPv4.isValidFourPartDecimal(text) || ipaddr.IPv6.isValid(text);
}

/** What the rule makes of one address (dotted-decimal IPv4 or IPv6, an IPv6 zone id allowed). */
export function classifyAddress(address: string): Classification {
  const text = address.replace(/^\[|\]$/g, '');
  if (ipaddr.IPv4.isValidFourPartDecimal(text)) return classifyV4(ipaddr.IPv4.parse(text));
  if (ipaddr.IPv6.isValid(text)) return classifyV6(ipaddr.IPv6.parse(text));
  return { verdict: 'refused', why: 'not an IP address' };
}

/** True when the rule admits a connection to an address of this verdict. */
export function admitted(verdict: Verdict, rule: AddressRule): boolean {
  return verdict === 'public' || (verdict === 'private' && rule.allowPrivate);
}

/** A host as compared: lowercased, brackets and trailing dots dropped (the URL parser already normalised IPv4 forms). */
export function normalizeHost(hostname: string): string {
  return hostname
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.+$/, '');
}

/** `localhost` and every name under `.localhost` mean this machine, whatever a resolver says. */
export function isLocalhostName(host: string): boolean {
  return host === 'localhost' || host.endsWith('.localhost');
}

/** The addresses a localhost name stands for. */
export const LOOPBACK_ADDRESSES = ['127.0.0.1', '::1'];

const ALLOW_PRIVATE_HINT = 'WEBHOOK_ALLOW_PRIVATE=true allows loopback and private addresses in development';

/** Why `addresses` (all of what `host` resolved to) may not be reached under `rule`, or null when every one may. */
export function addressesProblem(host: string, addresses: string[], rule: AddressRule): string | null {
  if (!addresses.length) return `${host} has no address`;
  for (const address of addresses) {
    const c = classifyAddress(address);
    if (admitted(c.verdict, rule)) continue;
    const named = address === host ? address : `${host} resolves to ${address}, which`;
    const allowed = rule.allowPrivate ? 'only public, loopback and private addresses may be called' : 'only public addresses may be called';
    const hint = c.verdict === 'private' ? ` (${ALLOW_PRIVATE_HINT})` : '';
    return `${named} is ${c.why}; ${allowed}${hint}`;
  }
  return null;
}

/** A caller URL read by the WHATWG parser, its host normalised, or the reason it cannot be one. */
export type ParsedTarget = { ok: true; url: URL; host: string } | { ok: false; problem: string };

/**
 * True when a caller URL may name this port (the URL parser's text: empty for the scheme's default):
 * 443, 80, or 1024-65535, whatever the scheme and mode, so delivery logs cannot probe a host's
 * other well-known services (SSH, SMTP, databases on their usual ports).
 */
export function portAdmitted(port: string): boolean {
  if (port === '') return true;
  const n = Number(port);
  return n === 443 || n === 80 || (n >= 1024 && n <= 65535);
}

/**
 * Checks the text of a caller-given URL: an absolute http(s) URL (https only without allowPrivate),
 * no user name or password, a port the rule admits, and a host that is not, on its face, an address
 * the rule refuses (IPv4 literals in every form the URL parser accepts are normalised by it first).
 */
export function parseCallerUrl(raw: string, rule: AddressRule): ParsedTarget {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, problem: 'must be an absolute URL such as https://example.com/webhooks' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return { ok: false, problem: 'must use https' };
  const host = normalizeHost(url.hostname);
  if (!host) return { ok: false, problem: 'must name a host' };
  const literal = isIpLiteral(host) ? addressesProblem(host, [host], rule) : isLocalhostName(host) ? addressesProblem(host, LOOPBACK_ADDRESSES, rule) : null;
  if (literal) return { ok: false, problem: `points at a disallowed address: ${literal}` };
  if (url.protocol === 'http:' && !rule.allowPrivate) return { ok: false, problem: `must use https (${ALLOW_PRIVATE_HINT})` };
  if (!portAdmitted(url.port)) return { ok: false, problem: `must use port 443, 80 or one from 1024 to 65535, not ${url.port}` };
  // Checked after the host, so "https://good.example@127.0.0.1/" is refused for what it points at.
  if (url.username || url.password) return { ok: false, problem: 'must not carry a user name or password' };
  return { ok: true, url, host };
}
