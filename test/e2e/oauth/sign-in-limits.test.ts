// Signing in over a real server, on each dialect: the limit is counted before the password is
// checked, so wrong passwords sent at once are held to 5 per account (20 per address) like
// sequential ones; an email is one identity (NFKC and lower-case folding, compared byte for byte),
// so accented and dotted-I look-alikes are other addresses that share the account's limit.

import { expect } from 'chai';
import { dialects } from '../../helpers/databases.js';
import type { World } from '../../helpers/world.js';
import { signIn, startOAuthWorld } from '../../helpers/oauth.js';

const olive = { email: 'olive@acme.test', password: 'correct horse 1' };
const mia = { email: 'mia@acme.test', password: 'correct horse 2' };

for (const dialect of dialects()) {
  describe(`Sign-in limits (${dialect})`, function () {
    this.timeout(120_000);
    let w: World;
    // Each test starts a world of its own: the address limit counts every attempt from loopback.
    beforeEach(async () => {
      w = await startOAuthWorld(dialect);
    });
    afterEach(async () => w?.close());

    it('30 wrong passwords sent at once for one email: at most 5 are checked (401), the rest answer 429; the right password afterwards does not sign in', async () => {
      const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => signIn(w.url, olive.email, `wrong ${i}`)));
      const statuses = answers.map((a) => a.status);
      expect(statuses.filter((s) => s === 401).length, statuses.join(' ')).to.be.at.most(5);
      expect(statuses.filter((s) => s === 429).length, statuses.join(' ')).to.be.at.least(25);
      expect(statuses.filter((s) => s !== 401 && s !== 429)).to.deep.equal([]);
      for (const a of answers.filter((x) => x.status === 429)) expect(Number(a.headers.get('retry-after'))).to.be.within(1, 900);
      expect(answers.every((a) => a.cookie === null)).to.equal(true);
      const right = await signIn(w.url, olive.email, olive.password);
      expect(right.status).to.equal(429);
      expect(right.cookie).to.equal(null);
      expect(right.location).to.equal(null);
    });

    it('the account limit holds by itself: 8 wrong at once for olive leave olive refused and mia (same address) signing in', async () => {
      const statuses = (await Promise.all(Array.from({ length: 8 }, (_, i) => signIn(w.url, olive.email, `wrong ${i}`)))).map((a) => a.status);
      expect(statuses.filter((s) => s === 401).length, statuses.join(' ')).to.be.at.most(5);
      expect(statuses.filter((s) => s === 429).length, statuses.join(' ')).to.be.at.least(3);
      expect((await signIn(w.url, olive.email, olive.password)).status).to.equal(429);
      const other = await signIn(w.url, mia.email, mia.password);
      expect(other.status).to.equal(302);
      expect(other.cookie).to.match(/^svc_session=/);
    });

    it('a right password is not counted against the limit, and the address limit is 20', async () => {
      for (let i = 0; i < 8; i++) expect((await signIn(w.url, olive.email, olive.password)).status, `right ${i + 1}`).to.equal(302);
      // Wrong passwords for four accounts (5 each is within each account's limit): the address allows 20.
      const emails = ['nobody1@acme.test', 'nobody2@acme.test', 'nobody3@acme.test', 'nobody4@acme.test'];
      for (const email of emails) for (let i = 0; i < 5; i++) expect((await signIn(w.url, email, 'wrong')).status, `${email} ${i + 1}`).to.equal(401);
      const twentyFirst = await signIn(w.url, mia.email, mia.password);
      expect(twentyFirst.status).to.equal(429);
      expect(twentyFirst.cookie).to.equal(null);
    });

    it('accented and dotted-I look-alikes of olive@acme.test are other addresses: the right password signs nothing in, and they share olive’s limit', async () => {
      const lookalikes = ['olivé@acme.test', 'olive@acmé.test', 'ol\u0130ve@acme.test'];
      for (const email of lookalikes) {
        const r = await signIn(w.url, email, olive.password);
        expect(r.status, email).to.equal(401);
        expect(r.cookie, email).to.equal(null);
      }
      // Case and compatibility forms fold to the same identity (NFKC, lower case).
      for (const email of ['OLIVE@ACME.TEST', '\uff4f\uff4c\uff49\uff56\uff45@acme.test']) {
        const r = await signIn(w.url, email, olive.password);
        expect(r.status, email).to.equal(302);
        expect(r.cookie, email).to.match(/^svc_session=/);
      }
      // Three look-alike tries and two wrong passwords are olive's five.
      for (let i = 0; i < 2; i++) expect((await signIn(w.url, olive.email, 'wrong')).status).to.equal(401);
      const sixth = await signIn(w.url, olive.email, olive.password);
      expect(sixth.status).to.equal(429);
      expect(sixth.cookie).to.equal(null);
    });
  });
}
