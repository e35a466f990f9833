// Where webhooks may be sent: public addresses over https only, unless WEBHOOK_ALLOW_PRIVATE lets
// development point them at loopback and private networks. Checked on the URL when an endpoint is
// saved and on every resolved address before a delivery connects, so DNS cannot smuggle one in.

import dns from 'node:dns/promises';
import net from 'node:net';

const blocked = new net.BlockList();
for (const [net4, bits] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) blocked.addSubnet(net4, bits, 'ipv4');
for (const [net6, bits] of [['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8], ['64:ff9b::', 96]] as const) blocked.addSubnet(net6, bits, 'ipv6');

/** Resolves a host name to its addresses (a port, so tests can resolve names without a DNS server). */
export type HostResolver = (host: string) => Promise<string[]>;

export const systemResolver: HostResolver = async (host) => (await dns.lookup(host, { all: true, verbatim: true })).map((a) => a.address);

/** True for loopback, private, link-local, shared, multicast and reserved addresses (IPv4-mapped IPv6 too). */
export function isPrivateAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return blocked.check(mapped[1], 'ipv4');
  const family = net.isIP(address);
  if (family === 4) return blocked.check(address, 'ipv4');
  if (family === 6) return blocked.check(address, 'ipv6');
  return false;
}

const hostOf = (u: URL) => u.hostname.replace(/^\[|\]$/g, '');

/** Names that always mean this machine. */
const isLocalName = (host: string) => host === 'localhost' || host.endsWith('.localhost');

/** Why `raw` may not be a webhook URL, or null when it may. */
export function urlProblem(raw: string, allowPrivate: boolean): string | null {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return 'must be an absolute URL such as https://example.com/webhooks';
  }
  if (u.username || u.password) return 'must not carry a user name or password';
  if (u.hash) return 'must not carry a #fragment';
  const host = hostOf(u).toLowerCase();
  const local = isLocalName(host) || isPrivateAddress(host);
  if (allowPrivate && local) return u.protocol === 'https:' || u.protocol === 'http:' ? null : 'must use http or https';
  if (u.protocol !== 'https:') return 'must use https';
  if (local) return 'points at a loopback or private address; webhooks go to public https URLs (WEBHOOK_ALLOW_PRIVATE=true allows private ones in development)';
  return null;
}

/**
 * The address a delivery to `url` connects to: the host resolved once and every address checked,
 * so the connection goes exactly where the check looked. Throws a refusal before any connection.
 */
export async function vettedAddress(url: URL, allowPrivate: boolean, resolve: HostResolver): Promise<string> {
  const host = hostOf(url);
  const addresses = net.isIP(host) ? [host] : await resolve(host);
  if (!addresses.length) throw new Error(`${host} has no address`);
  if (!allowPrivate) {
    const bad = addresses.find(isPrivateAddress);
    if (bad) throw new Error(`refused: ${host} resolves to ${bad}, a loopback or private address; nothing was sent`);
  }
  return addresses[0];
}
