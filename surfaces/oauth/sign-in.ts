// The sign-in form's checks on the pages that show it (OAuth, account, console) and on
// POST /oauth/login: the form token bound to its short-lived cookie (src/oauth/sign-in-form.ts)
// and the request's Origin.

import type Koa from 'koa';
import type { OAuthSettings } from '../../src/oauth/flows.js';
import { SIGN_IN_COOKIE, SIGN_IN_FORM_TTL_MS, sameSiteOrigin, signInForm, signInFormHolds } from '../../src/oauth/sign-in-form.js';

/** The token a sign-in form shown on this answer carries; sets (or keeps) its cookie. */
export function signInFormToken(ctx: Koa.Context, settings: OAuthSettings): string {
  const form = signInForm(settings.formKey, ctx.cookies.get(SIGN_IN_COOKIE));
  if (form.cookie) {
    const secure = settings.issuer.startsWith('https:');
    // An https BASE_URL means TLS ends in front of this process (see the session cookie in routes.ts).
    if (secure) ctx.cookies.secure = true;
    ctx.cookies.set(SIGN_IN_COOKIE, form.cookie, { httpOnly: true, sameSite: 'strict', secure, path: '/', maxAge: SIGN_IN_FORM_TTL_MS, overwrite: true });
  }
  return form.token;
}

/** Why a posted sign-in form is refused (another site's Origin, a missing or stale token), or null when it may be checked. */
export function signInFormRefusal(ctx: Koa.Context, settings: OAuthSettings, submitted: unknown): string | null {
  if (!sameSiteOrigin(ctx.get('origin') || undefined, settings.issuer, `${ctx.protocol}://${ctx.host}`))
    return 'This sign-in was sent from another site, so nothing was signed in. Open the sign-in page of this service and sign in there.';
  if (!signInFormHolds(settings.formKey, ctx.cookies.get(SIGN_IN_COOKIE), submitted))
    return 'This sign-in form has expired or was not sent from this service’s sign-in page, so nothing was signed in. Sign in again on this page.';
  return null;
}
