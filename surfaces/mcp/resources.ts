// The whole of an answer cut to the budget (answer-budget.ts), offered as an MCP resource. A read
// tool's link names the call itself (`svc://brands/{brandId}/reads/{tool}/{arguments}`): reading it
// runs the tool again as the reader, with every check the tool makes, for as long as what it names
// exists. A write tool's answer cannot be asked for again, so this process keeps it for an hour
// (`svc://brands/{brandId}/answers/{token}`), readable by a credential of the same organization
// that reaches the brand and holds the tool's scope.

import crypto from 'node:crypto';
import type { Principal, Scope } from '../../src/auth/principal.js';

/** How long a write answer stays readable, and how many are kept at most (the oldest go first). */
const KEEP_MS = 60 * 60 * 1000;
const KEEP_MAX = 200;

interface Kept {
  organizationId: number;
  brandId: number | null;
  scope: Scope;
  text: string;
  until: number;
}

/** What a resource URI names. */
export type Named =
  { kind: 'read'; brandId: number | null; tool: string; args: Record<string, unknown> } | { kind: 'answer'; brandId: number | null; token: string };

const base = (brandId: number | null) => (brandId === null ? 'svc://organization' : `svc://brands/${brandId}`);

/** The link that re-runs a read tool's call. */
export function readUri(tool: string, args: Record<string, unknown>): string {
  const brandId = typeof args.brandId === 'number' ? args.brandId : null;
  return `${base(brandId)}/reads/${tool}/${Buffer.from(JSON.stringify(args)).toString('base64url')}`;
}

const URI = /^svc:\/\/(?:brands\/([1-9][0-9]{0,9})|organization)\/(reads\/([a-z_]+)\/([A-Za-z0-9_-]*)|answers\/([A-Za-z0-9_-]{22}))$/;

/** What `uri` names, or null when it is none of ours. */
export function parseUri(uri: string): Named | null {
  const m = URI.exec(uri);
  if (!m) return null;
  const brandId = m[1] ? Number(m[1]) : null;
  if (m[5]) return { kind: 'answer', brandId, token: m[5] };
  try {
    const args = JSON.parse(Buffer.from(m[4], 'base64url').toString('utf8')) as unknown;
    if (!args || typeof args !== 'object' || Array.isArray(args)) return null;
    // The brand in the address is the brand of the call: a link cannot be pointed at another brand.
    if ((brandId ?? undefined) !== (args as { brandId?: unknown }).brandId) return null;
    return { kind: 'read', brandId, tool: m[3], args: args as Record<string, unknown> };
  } catch {
    return null;
  }
}

/** Write answers kept for reading whole. */
export class KeptAnswers {
  private readonly kept = new Map<string, Kept>();

  /** Keeps `text`, the whole answer of a call of `principal` on `brandId` to a tool of `scope`; answers its URI. */
  keep(principal: Principal, brandId: number | null, scope: Scope, text: string, now = Date.now()): string {
    for (const [token, k] of this.kept) if (k.until <= now || this.kept.size >= KEEP_MAX) this.kept.delete(token);
    const token = crypto.randomBytes(16).toString('base64url');
    this.kept.set(token, { organizationId: principal.organizationId, brandId, scope, text, until: now + KEEP_MS });
    return `${base(brandId)}/answers/${token}`;
  }

  /** The kept text, when `principal` may read it (same organization, the brand within reach, the scope held); else null. */
  read(principal: Principal, named: Extract<Named, { kind: 'answer' }>, now = Date.now()): string | null {
    const k = this.kept.get(named.token);
    if (!k || k.until <= now || k.brandId !== named.brandId || k.organizationId !== principal.organizationId) return null;
    if (k.brandId !== null && principal.brandIds !== null && !principal.brandIds.has(k.brandId)) return null;
    return principal.scopes.has(k.scope) ? k.text : null;
  }
}
