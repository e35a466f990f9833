// The people's pages against framing and login CSRF, over real servers on each dialect: the sign-in
// form carries a token bound to a short-lived cookie and a sign-in from another site's Origin is
// refused; every page of /oauth, /account and /console (errors, 404s and unrouted methods included)
// forbids framing; a sign-out in one server process ends the console in another at once.

import { expect } from 'chai';
import { dialects, createMigratedTestDatabase, type TestDatabase } from '../../helpers/databases.js';
import type { World } from '../../helpers/world.js';
import { get, hiddenFields, postForm, signIn, signInForm, startOAuthWorld } from '../../helpers/oauth.js';
import { runSvcServer, startSvcServer, type ServerProcess } from '../../helpers/processes.js';
import { standardWorld } from '../../helpers/fixture.js';

const olive = { email: 'olive@acme.test', password: 'correct horse 1' };

function expectNoFraming(headers: Headers, what: string): void {
  expect(headers.get('content-security-policy'), `${what}: CSP`).to.match(/frame-ancestors 'none'/);
  expect(headers.get('x-frame-options'), `${what}: X-Frame-Options`).to.equal('DENY');
}

for (const dialect of dialects()) {
  describe(`Sign-in forms and framing (${dialect})`, function () {
    this.timeout(60_000);
    let w: World;
    before(async () => {
      w = await startOAuthWorld(dialect);
    });
    after(async () => w?.close());

    it('every sign-in page carries frame-ancestors none, a form token and its HttpOnly SameSite=Strict cookie', async () => {
      for (const path of ['/oauth/login', '/account', '/console/sign-in', '/oauth/authorize?client_id=x']) {
        const r = await get(`${w.url}${path}`);
        expectNoFraming(r.headers, path);
        if (path.startsWith('/oauth/authorize')) continue; // an unknown client: the error page, framed by no one
        expect(r.status, path).to.equal(200);
        expect(hiddenFields(r.text).signin_token, path).to.match(/^[\w-]{20,}$/);
        const cookie = r.headers.getSetCookie().find((c) => c.startsWith('svc_signin='));
        expect(cookie, path)
          .to.match(/httponly/i)
          .and.match(/samesite=strict/i);
      }
    });

    it('a sign-in without the form token, with another form’s token, without its cookie, or from another Origin signs nothing in (400)', async () => {
      const form = await signInForm(w.url);
      const other = await signInForm(w.url);
      const fields = { email: olive.email, password: olive.password, return_to: '/account' };
      const tries: Array<[string, Record<string, string>, Record<string, string>]> = [
        ['no token', fields, { cookie: form.cookie }],
        ['another form’s token', { ...fields, signin_token: other.token }, { cookie: form.cookie }],
        ['no cookie', { ...fields, signin_token: form.token }, {}],
        ['a forged cookie', { ...fields, signin_token: form.token }, { cookie: form.cookie.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A')) }],
        ['another site’s Origin', { ...fields, signin_token: form.token }, { cookie: form.cookie, origin: 'https://evil.test' }],
        ['an opaque Origin', { ...fields, signin_token: form.token }, { cookie: form.cookie, origin: 'null' }],
      ];
      for (const [what, body, headers] of tries) {
        const r = await postForm(`${w.url}/oauth/login`, body, headers);
        expect(r.status, what).to.equal(400);
        expect(
          r.headers.getSetCookie().some((c) => c.startsWith('svc_session=')),
          what,
        ).to.equal(false);
        expect(r.headers.get('location'), what).to.equal(null);
        expect(r.text, what).to.contain('nothing was signed in');
        expectNoFraming(r.headers, what);
      }
      // The same form, from this site's Origin: signed in.
      const ok = await postForm(`${w.url}/oauth/login`, { ...fields, signin_token: form.token }, { cookie: form.cookie, origin: w.url });
      expect(ok.status).to.equal(302);
      expect(ok.headers.getSetCookie().some((c) => c.startsWith('svc_session='))).to.equal(true);
    });

    it('error pages, 404s and unrouted methods under /oauth, /account and /console forbid framing; the console’s carry its own policy', async () => {
      const session = await signIn(w.url, olive.email, olive.password);
      const answers: Array<[string, Response]> = [
        ['GET /console/nope', await fetch(`${w.url}/console/nope`, { redirect: 'manual' })],
        ['GET /console/nope signed in', await fetch(`${w.url}/console/nope`, { redirect: 'manual', headers: { cookie: session.cookie! } })],
        ['DELETE /console', await fetch(`${w.url}/console`, { method: 'DELETE', redirect: 'manual' })],
        ['PUT /console/sign-in', await fetch(`${w.url}/console/sign-in`, { method: 'PUT', redirect: 'manual' })],
        ['GET /oauth/nope', await fetch(`${w.url}/oauth/nope`, { redirect: 'manual' })],
        ['DELETE /oauth/login', await fetch(`${w.url}/oauth/login`, { method: 'DELETE', redirect: 'manual' })],
        ['GET /account/nope', await fetch(`${w.url}/account/nope`, { redirect: 'manual' })],
        ['PATCH /account', await fetch(`${w.url}/account`, { method: 'PATCH', redirect: 'manual' })],
        ['a decision without a session', await fetch(`${w.url}/oauth/authorize/decision`, { method: 'POST', redirect: 'manual' })],
      ];
      for (const [what, res] of answers) {
        expect(res.status, what).to.be.at.least(400);
        expectNoFraming(res.headers, what);
        if (what.includes('/console')) expect(res.headers.get('content-security-policy'), what).to.match(/default-src 'self'/);
      }
    });
  });

  describe(`Sign-out across server processes (${dialect})`, function () {
    this.timeout(90_000);
    let db: TestDatabase;
    const servers: ServerProcess[] = [];
    before(async () => {
      db = await createMigratedTestDatabase(dialect);
      const env = { DATABASE_URL: db.url };
      const boot = await runSvcServer(['bootstrap', '-'], { env, input: JSON.stringify(standardWorld), timeoutMs: 30_000 });
      if (boot.code !== 0) throw new Error(`bootstrap failed (${boot.code}):\n${boot.stderr}`);
      // A long KEY_CACHE_MS: the console's per-process cache must not outlive a sign-out however long it keeps people.
      for (let i = 0; i < 2; i++) servers.push(await startSvcServer(['serve'], { env: { ...env, KEY_CACHE_MS: '60000', JOBS: 'off' } }));
    });
    after(async () => {
      for (const s of servers) await s.stop();
      await db?.drop();
    });

    it('after sign-out in one process, the next console request in another answers the sign-in page', async () => {
      const [a, b] = servers;
      const session = await signIn(a.url, olive.email, olive.password, '/console');
      expect(session.status).to.equal(302);
      const cookie = session.cookie!;
      // Both processes know the session (the second keeps the person it found).
      for (const s of servers) expect((await get(`${s.url}/console`, { cookie })).status, s.url).to.equal(200);
      const account = await get(`${a.url}/account`, { cookie });
      const csrf = /name="csrf_token" value="([^"]+)"/.exec(account.text)![1];
      const out = await postForm(`${a.url}/account/signout`, { csrf_token: csrf }, { cookie });
      expect(out.status).to.equal(303);
      const next = await get(`${b.url}/console`, { cookie });
      expect(next.status).to.equal(303);
      expect(next.headers.get('location')).to.match(/^\/console\/sign-in/);
      const page = await get(`${b.url}${next.headers.get('location')}`, { cookie });
      expect(page.text).to.contain('<h1>Sign in</h1>');
    });
  });
}
