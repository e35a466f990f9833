// Access tokens `svc_at_<JWT>`: ES256, typ at+jwt, one audience (the REST API or the MCP server),
// at most one hour. Verification pins the algorithm, issuer and type; the audience is checked by
// the caller so that a token for the other resource gets its own answer.

import crypto from 'node:crypto';
import type { JWTPayload } from 'jose';
import { ALG, type SigningKeys } from './keys.js';

export const ACCESS_TOKEN_PREFIX = 'svc_at_';
export const ACCESS_TOKEN_TTL_S = 3600;

export interface AccessClaims extends JWTPayload {
  sub: string;
  aud: string;
  scope: string;
  client_id: string;
  /** The grant (approval) behind the token. */
  gid: number;
  /** The organization the person approved the app for. */
  org: number;
  /** The refresh-token family it was issued with (absent on tokens from before families were named). */
  fam?: string;
  jti: string;
}

export interface IssueInput {
  issuer: string;
  audience: string;
  userId: number;
  scopes: string[];
  clientId: string;
  grantId: number;
  organizationId: number;
  /** The refresh-token family issued with it: reuse of a spent refresh token revokes the family's access tokens too. */
  familyId?: string;
  now?: number;
}

export async function issueAccessToken(keys: SigningKeys, input: IssueInput): Promise<{ token: string; expiresIn: number; jti: string }> {
  const { kid, privateKey } = await keys.active();
  const iat = Math.floor((input.now ?? Date.now()) / 1000);
  const jti = crypto.randomUUID();
  // jose is loaded on the first token, not at start-up.
  const { SignJWT } = await import('jose');
  const jwt = await new SignJWT({
    scope: input.scopes.join(' '),
    client_id: input.clientId,
    gid: input.grantId,
    org: input.organizationId,
    ...(input.familyId ? { fam: input.familyId } : {}),
  })
    .setProtectedHeader({ alg: ALG, typ: 'at+jwt', kid })
    .setIssuer(input.issuer)
    .setSubject(String(input.userId))
    .setAudience(input.audience)
    .setIssuedAt(iat)
    .setNotBefore(iat)
    .setExpirationTime(iat + ACCESS_TOKEN_TTL_S)
    .setJti(jti)
    .sign(privateKey);
  return { token: ACCESS_TOKEN_PREFIX + jwt, expiresIn: ACCESS_TOKEN_TTL_S, jti };
}

/** The claims of a genuine, unexpired token of this issuer; throws otherwise (never says why to callers). */
export async function verifyAccessToken(keys: SigningKeys, token: string, issuer: string, now?: number): Promise<AccessClaims> {
  if (!token.startsWith(ACCESS_TOKEN_PREFIX)) throw new Error('not an access token');
  const { jwtVerify } = await import('jose');
  const { payload } = await jwtVerify(
    token.slice(ACCESS_TOKEN_PREFIX.length),
    async (header) => {
      const key = header.kid ? await keys.publicKey(header.kid) : null;
      if (!key) throw new Error('unknown key');
      return key;
    },
    {
      algorithms: [ALG],
      issuer,
      typ: 'at+jwt',
      requiredClaims: ['sub', 'aud', 'exp', 'iat', 'jti'],
      currentDate: now ? new Date(now) : undefined,
      clockTolerance: 5,
    },
  );
  const aud = Array.isArray(payload.aud) ? (payload.aud.length === 1 ? payload.aud[0] : null) : payload.aud;
  if (typeof aud !== 'string' || typeof payload.gid !== 'number' || typeof payload.org !== 'number' || typeof payload.scope !== 'string') {
    throw new Error('malformed claims');
  }
  return { ...(payload as AccessClaims), aud };
}
