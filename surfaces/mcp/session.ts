// What the MCP server remembers of a client between requests, kept in the Mcp-Session-Id it hands
// out at initialize rather than in memory: whether the client can answer questions (elicitation),
// and the credential that opened it (a digest of the random part, the flags and the credential's
// id): the id is good only with that credential, so another one presenting it finds no session
// (404) and reaches nothing of it. Any process of the service can read it; only toolsets enabled
// in-band are remembered in memory, under the whole id.

import crypto from 'node:crypto';

export interface ClientSession {
  /** The client declared form elicitation: a tool may ask the person a question before it acts. */
  elicitation: boolean;
  /** The client declared URL-mode elicitation (MCP 2025-11-25): a tool may send the person to a page (an approval in the console). */
  urlElicitation: boolean;
}

const NONE: ClientSession = { elicitation: false, urlElicitation: false };
const ID = /^([A-Za-z0-9_-]{22})\.([a-z-]+)\.([A-Za-z0-9_-]{22})$/;

/** The part of a session id that binds it to the credential that opened it. */
function bindingOf(random: string, flags: string, credentialId: string): string {
  return crypto.createHash('sha256').update(`${random}.${flags}\n${credentialId}`).digest('base64url').slice(0, 22);
}

/** True when `capabilities` (the client's, from initialize) include form elicitation. */
function asksForms(capabilities: unknown): boolean {
  const elicitation = (capabilities as { elicitation?: unknown } | undefined)?.elicitation;
  if (!elicitation || typeof elicitation !== 'object') return false;
  // An empty object is the 2025-06-18 form; later versions name `form` (and `url`) explicitly.
  return Object.keys(elicitation).length === 0 || 'form' in elicitation;
}

/** True when `capabilities` include URL-mode elicitation (`elicitation.url`, MCP 2025-11-25). */
function opensUrls(capabilities: unknown): boolean {
  const elicitation = (capabilities as { elicitation?: unknown } | undefined)?.elicitation;
  return Boolean(elicitation && typeof elicitation === 'object' && 'url' in elicitation);
}

/** The session id answered to an initialize with these client capabilities by `credentialId`: random, what it can do, whose it is. */
export function sessionIdFor(capabilities: unknown, credentialId: string): string {
  const random = crypto.randomBytes(16).toString('base64url');
  const flags = `${asksForms(capabilities) ? 'e' : ''}${opensUrls(capabilities) ? 'u' : ''}` || '-';
  return `${random}.${flags}.${bindingOf(random, flags, credentialId)}`;
}

/** Whether session `id` was opened by `credentialId` (false for a malformed id, or one another credential opened). */
export function sessionBelongsTo(id: string, credentialId: string): boolean {
  const match = ID.exec(id);
  return match !== null && crypto.timingSafeEqual(Buffer.from(match[3]), Buffer.from(bindingOf(match[1], match[2], credentialId)));
}

/** What a session id says about its client; a missing or foreign id says the client can do nothing extra. */
export function sessionOf(id: string | string[] | undefined): ClientSession {
  const match = typeof id === 'string' ? ID.exec(id) : null;
  return match ? { elicitation: match[2].includes('e'), urlElicitation: match[2].includes('u') } : NONE;
}

/** Sessions whose toolsets this process remembers at most (the least recently changed are forgotten first). */
const MAX_DYNAMIC_SESSIONS = 10_000;
// Toolsets a session enabled in-band (enable_toolset). Unlike what the id carries, this lives in the
// process that answered: behind a load balancer, route a session's requests to one process (docs/mcp.md).
const enabled = new Map<string, Set<string>>();

/** The toolsets session `id` enabled in-band, none for a missing or unknown id. */
export function enabledToolsets(id: string | string[] | undefined): ReadonlySet<string> {
  return (typeof id === 'string' && enabled.get(id)) || new Set();
}

/** Remembers that session `id` enabled `toolset`; false when there is no session id to remember it by. */
export function enableToolset(id: string | string[] | undefined, toolset: string): boolean {
  if (typeof id !== 'string' || !ID.test(id)) return false;
  const set = enabled.get(id) ?? new Set<string>();
  enabled.delete(id);
  set.add(toolset);
  enabled.set(id, set);
  if (enabled.size > MAX_DYNAMIC_SESSIONS) enabled.delete(enabled.keys().next().value!);
  return true;
}
