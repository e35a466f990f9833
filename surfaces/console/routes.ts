// The console's routes under /console: pages for people, rendered on the server from the catalogue's
// operations as the signed-in person (request.ts), with the account pages' sign-in, session cookie
// and CSRF tokens. Every answer carries the console's headers (a strict Content-Security-Policy, no
// framing, no caching of pages); every POST needs the session's CSRF token (403 otherwise, nothing
// changed) and answers with a redirect to a page, or the page again with what went wrong.

import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import type Koa from 'koa';
import type { RouterMiddleware } from '@koa/router';
import type { RouteRegistrar } from '../rest/routing.js';
import type { Service } from '../../src/service.js';
import { ServiceError, httpStatusOf } from '../../src/errors.js';
import { classifyFault } from '../../src/pipeline/faults.js';
import { SESSION_COOKIE, csrfMatches, signOut } from '../../src/oauth/sessions.js';
import { PersonSessions } from '../../src/access/person.js';
import { creativeFileOf } from '../../src/creatives/file.js';
import { limitedForm } from '../oauth/forms.js';
import { CONSOLE_CSP } from '../page-headers.js';
import { signInFormToken } from '../oauth/sign-in.js';
import { STYLESHEET_PATH, esc, hidden, layout } from './layout.js';
import { CONSOLE_CSS } from './style.js';
import { ConsoleRequest, type BrandScope } from './request.js';
import { one, type Download, type Page } from './pages/page.js';
import { homePage } from './pages/home.js';
import { brandPage } from './pages/brand.js';
import { launchPage, launchesPage } from './pages/launches.js';
import { changeLive } from './pages/live.js';
import { decideReview, reviewsPage } from './pages/reviews.js';
import { runPage } from './pages/run.js';
import { approvalNotice, approvalPage, decideApprovalForm } from './pages/approvals.js';
import { boardNotice, boardPage, moveCard } from './pages/board.js';
import { reportsPage } from './pages/reports.js';
import { automationsPage, setAutomationStatus } from './pages/automations.js';
import { activityPage } from './pages/activity.js';

type State = { requestId: string };
type Ctx = Koa.ParameterizedContext<State>;
type Answer = Page | Download | { redirect: string };

function secure(ctx: Ctx): void {
  ctx.set('Content-Security-Policy', CONSOLE_CSP);
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('Referrer-Policy', 'same-origin');
  ctx.set('Cross-Origin-Opener-Policy', 'same-origin');
}

const CSS_ETAG = `"${crypto.createHash('sha256').update(CONSOLE_CSS).digest('base64url').slice(0, 20)}"`;
const ID = /^[1-9]\d{0,15}$/;

const TITLES: Partial<Record<string, string>> = {
  not_found: 'Not found',
  forbidden: 'Not allowed',
  brand_not_allowed: 'Not found',
  conflict: 'That cannot be done now',
  stale_read: 'Changed meanwhile',
  validation_failed: 'Check what was sent',
  rate_limited: 'Too many requests',
  unavailable: 'Not available right now',
  timeout: 'That took too long',
};

/** The sign-in form; `token` is the form's (oauth/sign-in.ts), bound to a short-lived cookie. */
function signInBody(returnTo: string, token: string, message?: string): string {
  return `<div class="sign-in"><h1>Sign in</h1><p class="lead">Sign in with your account to open the console.</p>${message ? `<div class="error" role="alert">${esc(message)}</div>` : ''}
<form method="post" action="/oauth/login">${hidden({ return_to: returnTo, signin_token: token })}
<div class="field"><label for="email">Email</label><input id="email" type="email" name="email" autocomplete="username" required></div>
<div class="field"><label for="password">Password</label><input id="password" type="password" name="password" autocomplete="current-password" required></div>
<button type="submit">Sign in</button></form></div>`;
}

/** A console path to come back to after signing in: only a path under /console. */
function returnPath(raw: string): string {
  return /^\/console(\/[^\\\s]*)?(\?[^\s\\]*)?$/.test(raw) && !raw.startsWith('//') ? raw : '/console';
}

/** Adds the console's routes. */
export function consoleRoutes(router: RouteRegistrar<State>, service: Service): void {
  const { knex } = service;
  const cookieSecure = service.oauth.issuer.startsWith('https:');
  // Who a session cookie signs in, kept like verified keys (KEY_CACHE_MS): a page's several calls need one lookup.
  const people = new PersonSessions(knex, service.config.keyCacheMs);

  const html = (ctx: Ctx, status: number, body: string) => {
    secure(ctx);
    ctx.status = status;
    ctx.set('Content-Type', 'text/html; charset=utf-8');
    ctx.set('Cache-Control', 'no-store');
    ctx.body = body;
  };
  const seeOther = (ctx: Ctx, url: string) => {
    secure(ctx);
    ctx.set('Cache-Control', 'no-store');
    ctx.redirect(url);
    ctx.status = 303;
  };

  // The forms' bodies (oauth/forms.ts: 64 KB, UTF-8, no encoding); a refusal is a page.
  const forms = limitedForm({ json: false }, (ctx, status, message) =>
    html(
      ctx as Ctx,
      status,
      layout({ title: 'Request refused', viewer: null, body: `<h1>Request refused</h1><div class="error" role="alert">${esc(message)}</div>` }),
    ),
  );

  const problem = (ctx: Ctx, req: ConsoleRequest | null, err: unknown) => {
    const fault = classifyFault(err);
    if (!(fault instanceof ServiceError)) {
      service.log.error({ err, requestId: ctx.state.requestId }, 'console page failed');
      return html(
        ctx,
        500,
        layout({
          title: 'Something went wrong',
          viewer: req?.viewer ?? null,
          body: `<h1>Something went wrong</h1><div class="error" role="alert">The page could not be drawn. Try again in a moment; if it keeps failing, give the operator this request id: <code>${esc(ctx.state.requestId)}</code>.</div>`,
        }),
      );
    }
    // Another brand's page (or one outside the person's brands) answers exactly like a missing one.
    const code = fault.code === 'brand_not_allowed' ? 'not_found' : fault.code;
    const message = fault.code === 'brand_not_allowed' ? 'There is no such brand among yours.' : fault.message;
    const title = TITLES[code] ?? 'That did not work';
    if (fault.retryAfter !== null) ctx.set('Retry-After', String(fault.retryAfter));
    html(
      ctx,
      httpStatusOf[code as keyof typeof httpStatusOf] ?? 400,
      layout({
        title,
        viewer: req?.viewer ?? null,
        body: `<h1>${esc(title)}</h1><div class="error" role="alert"><p>${esc(message)}</p><p class="muted">Error code <code id="error-code">${esc(code)}</code></p></div><p><a href="/console">Back to your brands</a></p>`,
      }),
    );
  };

  /** A console page: the signed-in person (or the way to sign in), the CSRF check of a POST, the brand of the path, and the page's answer. */
  const handle =
    (draw: (req: ConsoleRequest, ctx: Ctx, brand: BrandScope | null) => Promise<Answer>, opts: { brand: boolean; post?: boolean }): RouterMiddleware<State> =>
    async (ctx) => {
      let req: ConsoleRequest | null = null;
      try {
        const person = await people.of(ctx.cookies.get(SESSION_COOKIE));
        if (!person) {
          if (opts.post) {
            return html(
              ctx,
              401,
              layout({
                title: 'Sign in',
                viewer: null,
                body: signInBody('/console', signInFormToken(ctx, service.oauth), 'Your session ended, so nothing was changed. Sign in and try again.'),
              }),
            );
          }
          return seeOther(ctx, `/console/sign-in?${new URLSearchParams({ return_to: ctx.originalUrl })}`);
        }
        req = ConsoleRequest.of(service, person)!;
        if (opts.post && !csrfMatches(person.session, (ctx.request.body as Record<string, unknown> | undefined)?.csrf_token)) {
          return html(
            ctx,
            403,
            layout({
              title: 'Not allowed',
              viewer: req!.viewer,
              body: '<h1>Not allowed</h1><div class="error" role="alert">This form was not sent from a console page (the CSRF check failed), so nothing was changed. Open the page again and use its form.</div>',
            }),
          );
        }
        let brand: BrandScope | null = null;
        if (opts.brand) {
          const raw = String(ctx.params.brandId ?? '');
          if (!ID.test(raw)) throw new ServiceError('not_found', 'There is no such brand among yours.', null);
          brand = await req!.brand(Number(raw));
        }
        const answer = await draw(req!, ctx, brand);
        if ('redirect' in answer) return seeOther(ctx, answer.redirect);
        if ('download' in answer) {
          secure(ctx);
          ctx.status = 200;
          ctx.set('Content-Type', answer.download.contentType);
          ctx.set('Content-Disposition', `attachment; filename="${answer.download.fileName.replace(/[^A-Za-z0-9._-]/g, '_')}"`);
          ctx.set('Cache-Control', 'no-store');
          ctx.body = answer.download.body;
          return;
        }
        const title = brand ? `${answer.title} · ${brand.name}` : answer.title;
        const current = brand ? currentPage(ctx.path, brand.id) : '';
        html(
          ctx,
          answer.status ?? 200,
          layout({
            title,
            viewer: req!.viewer,
            brand: brand ? { id: brand.id, name: brand.name, current } : undefined,
            body: answer.body,
            notice: answer.notice,
            error: answer.error,
          }),
        );
      } catch (err) {
        problem(ctx, req, err);
      }
    };

  router.get(STYLESHEET_PATH, (ctx) => {
    secure(ctx);
    ctx.set('Content-Type', 'text/css; charset=utf-8');
    ctx.set('Cache-Control', 'public, max-age=3600');
    ctx.set('ETag', CSS_ETAG);
    if (ctx.get('if-none-match') === CSS_ETAG) {
      ctx.status = 304;
      return;
    }
    ctx.body = CONSOLE_CSS;
  });

  router.get('/console/sign-in', async (ctx) => {
    const returnTo = returnPath(one(ctx.query.return_to));
    if (await people.of(ctx.cookies.get(SESSION_COOKIE))) return seeOther(ctx, returnTo);
    html(ctx, 200, layout({ title: 'Sign in', viewer: null, body: signInBody(returnTo, signInFormToken(ctx, service.oauth)) }));
  });

  router.post(
    '/console/sign-out',
    forms,
    handle(
      async (_req, ctx) => {
        people.forget(ctx.cookies.get(SESSION_COOKIE));
        await signOut(knex, ctx.cookies.get(SESSION_COOKIE));
        if (cookieSecure) ctx.cookies.secure = true;
        ctx.cookies.set(SESSION_COOKIE, null, { path: '/', httpOnly: true, sameSite: 'lax', secure: cookieSecure });
        return { redirect: '/console/sign-in' };
      },
      { brand: false, post: true },
    ),
  );

  router.get(
    '/console',
    handle((req) => homePage(req), { brand: false }),
  );
  const b = '/console/brands/:brandId';
  router.get(
    b,
    handle((req, _ctx, brand) => brandPage(req, brand!), { brand: true }),
  );
  router.get(
    `${b}/launches`,
    handle((req, ctx, brand) => launchesPage(req, brand!, ctx.query), { brand: true }),
  );
  router.get(
    `${b}/launches/:launchId`,
    handle((req, ctx, brand) => launchPage(req, brand!, String(ctx.params.launchId), one(ctx.query.notice)), { brand: true }),
  );
  router.post(
    `${b}/launches/:launchId/live`,
    forms,
    handle((req, ctx, brand) => changeLive(req, brand!, String(ctx.params.launchId), ctx.request.body as Record<string, unknown>), { brand: true, post: true }),
  );
  router.get(
    `${b}/reviews`,
    handle((req, _ctx, brand) => reviewsPage(req, brand!), { brand: true }),
  );
  router.get(
    `${b}/approvals/:approvalId`,
    handle((req, ctx, brand) => approvalPage(req, brand!, String(ctx.params.approvalId), { notice: approvalNotice(one(ctx.query.notice)) }), { brand: true }),
  );
  router.post(
    `${b}/approvals/:approvalId`,
    forms,
    handle((req, ctx, brand) => decideApprovalForm(req, brand!, String(ctx.params.approvalId), ctx.request.body as Record<string, unknown>), {
      brand: true,
      post: true,
    }),
  );
  router.post(
    `${b}/reviews/:executionId`,
    forms,
    handle((req, ctx, brand) => decideReview(req, brand!, String(ctx.params.executionId), ctx.request.body as Record<string, unknown>), {
      brand: true,
      post: true,
    }),
  );
  router.get(
    `${b}/workflows/:workflowId/runs/:executionId`,
    handle((req, ctx, brand) => runPage(req, brand!, String(ctx.params.workflowId), String(ctx.params.executionId), one(ctx.query.notice)), { brand: true }),
  );
  router.get(
    `${b}/board`,
    handle((req, ctx, brand) => boardPage(req, brand!, { notice: boardNotice(one(ctx.query.notice)) }), { brand: true }),
  );
  router.post(
    `${b}/board/cards/:cardId`,
    forms,
    handle((req, ctx, brand) => moveCard(req, brand!, String(ctx.params.cardId), ctx.request.body as Record<string, unknown>), { brand: true, post: true }),
  );
  router.get(
    `${b}/reports`,
    handle((req, ctx, brand) => reportsPage(req, brand!, ctx.query), { brand: true }),
  );
  router.get(
    `${b}/automations`,
    handle((req, ctx, brand) => automationsPage(req, brand!, ctx.query), { brand: true }),
  );
  router.post(
    `${b}/automations/:automationId/status`,
    forms,
    handle((req, ctx, brand) => setAutomationStatus(req, brand!, String(ctx.params.automationId), ctx.request.body as Record<string, unknown>), {
      brand: true,
      post: true,
    }),
  );
  router.get(
    `${b}/activity`,
    handle((req, ctx, brand) => activityPage(req, brand!, ctx.query), { brand: true }),
  );

  // A creative's image, for the launch tree's thumbnails: shown only after get-creative answered the person.
  router.get(`${b}/creatives/:creativeId`, async (ctx) => {
    let req: ConsoleRequest | null = null;
    try {
      req = ConsoleRequest.of(service, await people.of(ctx.cookies.get(SESSION_COOKIE)));
      if (!req) throw new ServiceError('not_found', 'Sign in to see creatives.', null);
      const raw = String(ctx.params.brandId);
      const creativeId = String(ctx.params.creativeId);
      if (!ID.test(raw) || !ID.test(creativeId)) throw new ServiceError('not_found', 'No such creative.', null);
      const brand = await req.brand(Number(raw));
      const creative = await req.call<{ type: string }>(brand.principal, 'get-creative', { brandId: brand.id, creativeId: Number(creativeId) });
      const file = creative.type === 'image' ? await creativeFileOf(knex, service.config.creativesDir, brand.id, Number(creativeId)) : undefined;
      if (!file) throw new ServiceError('not_found', 'This creative has no image to show.', null);
      secure(ctx);
      ctx.set('Content-Type', file.mime);
      ctx.set('Cache-Control', 'private, max-age=3600');
      ctx.set('ETag', `"${file.sha256}"`);
      ctx.body = await fs.readFile(file.path);
    } catch (err) {
      problem(ctx, req, err);
    }
  });
}

/** The brand page a path is (a path under the brand, as the navigation names them). */
function currentPage(path: string, brandId: number): string {
  const rest = path.slice(`/console/brands/${brandId}`.length);
  const first = /^\/[a-z]+/.exec(rest)?.[0] ?? '';
  return first === '/workflows' ? '/reviews' : first;
}
