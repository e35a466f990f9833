// The console's sign-in lookups kept per process (src/access/person.ts PersonSessions): a cookie is
// resolved to its person and organizations once per KEY_CACHE_MS, while its session row is read on every
// request: a sign-out in any process ends it at once, and ends every session of the person.

import { expect } from 'chai';
import { PersonSessions } from '../../src/access/person.js';
import { applyBootstrap } from '../../src/bootstrap.js';
import { SchemaRegistry, loadSchemaFiles } from '../../src/schemas/registry.js';
import { signIn, signOut } from '../../src/oauth/sessions.js';
import { dialects, migratedDatabase, type MigratedDatabase } from '../helpers/databases.js';
import { standardWorld } from '../helpers/fixture.js';

for (const dialect of dialects()) {
  describe(`console sessions kept per process (${dialect})`, () => {
    let db: MigratedDatabase;
    let cookie: string;
    before(async () => {
      db = await migratedDatabase(dialect);
      await applyBootstrap(db.knex, new SchemaRegistry(loadSchemaFiles()), standardWorld);
    });
    after(() => db?.close());
    beforeEach(async () => {
      const signedIn = await signIn(db.knex, 'olive@acme.test', 'correct horse 1', '127.0.0.1');
      if (!signedIn.ok) throw new Error(`sign-in failed: ${signedIn.reason}`);
      cookie = signedIn.cookie;
    });

    it('keeps the person within its time, and a session ended elsewhere answers null at once (no cache window)', async () => {
      let now = 1_000_000;
      const sessions = new PersonSessions(db.knex, 2_000, () => now);
      const first = await sessions.of(cookie);
      expect(first?.session.email).to.equal('olive@acme.test');
      expect(first?.organizations.map((o) => o.role)).to.deep.equal(['owner']);
      now += 1_000;
      expect(await sessions.of(cookie), 'kept within KEY_CACHE_MS').to.equal(first);
      // Another process's sign-out: this one's cache does not outlive it.
      await signOut(db.knex, cookie);
      expect(await sessions.of(cookie), 'ended at once').to.equal(null);
    });

    it('signing out ends every session of the person', async () => {
      const other = await signIn(db.knex, 'olive@acme.test', 'correct horse 1', '127.0.0.1');
      if (!other.ok) throw new Error('sign-in failed');
      const sessions = new PersonSessions(db.knex, 60_000);
      expect((await sessions.of(other.cookie))?.session.email).to.equal('olive@acme.test');
      await signOut(db.knex, cookie);
      expect(await sessions.of(other.cookie)).to.equal(null);
    });

    it('forgets a cookie signed out on this process at once, and keeps nothing with a time of 0', async () => {
      const sessions = new PersonSessions(db.knex, 60_000);
      expect((await sessions.of(cookie))?.session.email).to.equal('olive@acme.test');
      sessions.forget(cookie);
      await signOut(db.knex, cookie);
      expect(await sessions.of(cookie)).to.equal(null);
      const uncached = new PersonSessions(db.knex, 0);
      const again = await signIn(db.knex, 'olive@acme.test', 'correct horse 1', '127.0.0.1');
      if (!again.ok) throw new Error('sign-in failed');
      expect((await uncached.of(again.cookie))?.session.email).to.equal('olive@acme.test');
      await signOut(db.knex, again.cookie);
      expect(await uncached.of(again.cookie)).to.equal(null);
    });

    it('answers null for no cookie or one it does not know', async () => {
      const sessions = new PersonSessions(db.knex, 2_000);
      expect(await sessions.of(undefined)).to.equal(null);
      expect(await sessions.of('not-a-session')).to.equal(null);
    });
  });
}
