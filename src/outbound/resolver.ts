// Name resolution for outbound calls, behind a port so tests answer with a fake resolver (a name
// that resolves to 10.0.0.1, one that answers public then private) and never touch the real DNS.

import dns from 'node:dns/promises';
import { LOOPBACK_ADDRESSES, addressesProblem, isIpLiteral, isLocalhostName, parseCallerUrl, type AddressRule } from './address-policy.js';

/** Resolves a host name to every address it has (IPv4 and IPv6). */
export type Resolver = (host: string) => Promise<string[]>;

/** The operating system's resolver (getaddrinfo: hosts file, then DNS). */
export const systemResolver: Resolver = async (host) => (await dns.lookup(host, { all: true, verbatim: true })).map((a) => a.address);

/** Why an outbound call was refused before any connection (the reason is recorded where the send is). */
export class AddressRefused extends Error {
  constructor(
    message: string,
    /** `unresolved`: the host did not resolve; `address`: it resolved to an address the rule refuses. */
    readonly reason: 'address' | 'unresolved' = 'address',
  ) {
    super(message);
    this.name = 'AddressRefused';
  }
}

const RESOLVE_TIMEOUT_MS = 5_000;

/** The addresses of `host` (a normalised name or IP literal): the literal itself, loopback for localhost names, else the resolver's answer. */
export async function addressesOf(host: string, resolve: Resolver, timeoutMs = RESOLVE_TIMEOUT_MS): Promise<string[]> {
  if (isIpLiteral(host)) return [host];
  if (isLocalhostName(host)) return LOOPBACK_ADDRESSES;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`resolving ${host} took longer than ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    return await Promise.race([resolve(host), late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Resolves `host` once and checks every address it has; answers the address to connect to (the
 * first one, so the connection goes exactly where the check looked). Throws AddressRefused.
 */
export async function checkedAddress(host: string, rule: AddressRule, resolve: Resolver): Promise<string> {
  let addresses: string[];
  try {
    addresses = await addressesOf(host, resolve);
  } catch (err) {
    throw new AddressRefused(
      `refused: ${host} could not be resolved (${(err as { code?: string }).code ?? (err as Error).message}); nothing was sent`,
      'unresolved',
    );
  }
  const problem = addressesProblem(host, addresses, rule);
  if (problem) throw new AddressRefused(`refused: ${problem}; nothing was sent`);
  return addresses[0];
}

const SAVE_RESOLVE_TIMEOUT_MS = 2_000;

/**
 * Why a caller-given URL may not be saved, or null: its text (parseCallerUrl), then every address
 * its host resolves to now. A name that does not resolve yet is accepted: the send checks again.
 */
export async function callerUrlProblem(raw: string, rule: AddressRule, resolve: Resolver): Promise<string | null> {
  const parsed = parseCallerUrl(raw, rule);
  if (!parsed.ok) return parsed.problem;
  if (isIpLiteral(parsed.host) || isLocalhostName(parsed.host)) return null;
  let addresses: string[];
  try {
    addresses = await addressesOf(parsed.host, resolve, SAVE_RESOLVE_TIMEOUT_MS);
  } catch {
    return null;
  }
  if (!addresses.length) return null;
  const problem = addressesProblem(parsed.host, addresses, rule);
  return problem ? `points at a disallowed address: ${problem}` : null;
}
