// POST /v1/brands/{brandId}/approvals/{approvalId}/decision (paths.md "Approvals by a person"): a
// person decides an approval "from a signed-in person's session", never with a bearer credential.
// An API key or an OAuth token (agents prepare, people decide) is answered 403 forbidden naming the
// console page where an owner or admin decides it. Without an Authorization header the caller must
// be a person signed in to the console: the session cookie (HttpOnly, SameSite=Lax, so another site's
// request does not carry it), the session's CSRF token in X-CSRF-Token (the token the console's forms
// carry, readable only by the console's own pages), and, when the browser sends one, an Origin that
// is this site's (as the sign-in form checks it). The decision then runs as that person, exactly like the console's form.

import type Koa from 'koa';
import type { Principal } from '../../src/auth/principal.js';
import type { Service } from '../../src/service.js';
import { ServiceError } from '../../src/errors.js';
import { PersonSessions } from '../../src/access/person.js';
import { SESSION_COOKIE, csrfMatches } from '../../src/oauth/sessions.js';
import { sameSiteOrigin } from '../../src/oauth/sign-in-form.js';
import { approvalPath } from '../../src/approvals/view.js';
import { organizationOfBrand } from '../../src/brands/store.js';

/** The route's path, as koa-router writes it. */
export const DECISION_PATH = '/v1/brands/:brandId/approvals/:approvalId/decision';

/**
 * A middleware that sets `ctx.state.principal` to the signed-in person deciding (in the organization
 * that holds the brand), or refuses: 403 to a bearer credential, 401 without a session, 403 without
 * the session's CSRF token or from another origin.
 */
export function decisionCaller(service: Service): Koa.Middleware<{ principal?: Principal }> {
  const people = new PersonSessions(service.knex, service.config.keyCacheMs);
  return async (ctx, next) => {
    const params = (ctx as unknown as { params: Record<string, string> }).params;
    const consoleUrl = `${service.config.baseUrl}${approvalPath(Number(params.brandId) || 0, Number(params.approvalId) || 0)}`;
    const authorization = ctx.get('authorization');
    if (authorization) {
      // A bad credential is 401 as everywhere; a good one still decides nothing.
      await service.authenticate(authorization, 'api');
      throw new ServiceError(
        'forbidden',
        `An approval is decided by an organization owner or admin signed in to the console, never with an API key or an OAuth token (agents prepare, people decide). Open ${consoleUrl} and approve or reject it there.`,
        { consoleUrl },
      );
    }
    const person = await people.of(ctx.cookies.get(SESSION_COOKIE));
    if (!person)
      throw new ServiceError(
        'unauthenticated',
        `Sign in to the console first: this route takes a signed-in person's session (its cookie and X-CSRF-Token), or decide at ${consoleUrl}.`,
        null,
      );
    const origin = ctx.get('origin') || undefined;
    if (!sameSiteOrigin(origin, service.oauth.issuer, `${ctx.protocol}://${ctx.host}`))
      throw new ServiceError('forbidden', `This request came from ${origin}, not from the service's own pages: nothing was decided.`, { consoleUrl });
    if (!csrfMatches(person.session, ctx.get('x-csrf-token')))
      throw new ServiceError(
        'forbidden',
        "Send the console session's CSRF token in the X-CSRF-Token header (the csrf_token of the console's forms): nothing was decided.",
        { consoleUrl },
      );
    const principal = await organizationOf(service, person.organizations, Number(params.brandId));
    ctx.state.principal = principal;
    return next();
  };
}

/** The person's principal in the organization that holds `brandId` (404 when none of theirs does, like a missing brand). */
async function organizationOf(service: Service, organizations: Array<{ principal: Principal | null }>, brandId: number): Promise<Principal> {
  const organizationId = Number.isSafeInteger(brandId) && brandId > 0 ? await organizationOfBrand(service.knex, brandId) : undefined;
  const principal = organizations.find((o) => o.principal !== null && o.principal.organizationId === organizationId)?.principal;
  if (!principal) throw new ServiceError('not_found', `There is no brand ${brandId} among yours.`, null);
  return principal;
}
