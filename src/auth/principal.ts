// Who is calling, as the core sees it: never headers, only the organization, scopes and limits.

export type Scope = 'read' | 'write' | 'publish';
export const SCOPES: readonly Scope[] = ['read', 'write', 'publish'];

export type Surface = 'api' | 'mcp';
export type Role = 'owner' | 'admin' | 'member';

export interface Principal {
  kind: 'api_key' | 'user';
  organizationId: number;
  /** Stable id of the credential, used to scope idempotency keys: `key:<id>` or `user:<id>`. */
  credentialId: string;
  apiKeyId: number | null;
  /** The OAuth grant (a person's approval of an app) behind an access token. */
  grantId: number | null;
  /** The user recorded in activity: the person, or the key's creator (0 when unknown). */
  userId: number;
  /** How the actor appears in activity and audit trails, e.g. `API key: CI key`. */
  actorLabel: string;
  scopes: ReadonlySet<Scope>;
  /** Brands the credential may reach; null means every brand of the organization, present and future. */
  brandIds: ReadonlySet<number> | null;
  role: Role | null;
  publishCeilingCents: number | null;
  /** A person in the console: the membership whose ceiling their live budget changes count against. */
  membershipId?: number;
  /** Set when a person approved what this credential asked for (an approval carried out): it moves money without asking again. */
  approvedBy?: string;
  /** With approvedBy: the planFingerprint the person approved; the money path it carries out must still be that plan (else 409 stale_read). */
  approvedPlan?: string;
}

/** REST needs the agency plan with an active subscription; MCP any paid plan with an active one. */
export function planAdmits(surface: Surface, plan: string, status: string): boolean {
  if (status !== 'active') return false;
  return surface === 'api' ? plan === 'agency' : plan === 'starter' || plan === 'pro' || plan === 'agency';
}
