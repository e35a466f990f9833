// The console's sign-in lookups kept per process (src/access/person.ts PersonSessions): a cookie is
// resolved to its person and organizations once per KEY_CACHE_MS, a sign-out here forgets it at once,
// and a change elsewhere (the session ended, the person's role) shows once the time has passed.

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

    it('looks a cookie up once within its time; a session ended elsewhere shows once the time has passed', async () => {
      let now = 1_000_000;
      const sessions = new PersonSessions(db.knex, 2_000, () => now);
      const first = await sessions.of(cookie);
      expect(first?.session.email).to.equal('olive@acme.test');
      expect(first?.organizations.map((o) => o.role)).to.deep.equal(['owner']);
      await signOut(db.knex, cookie);
      now += 1_999;
      expect(await sessions.of(cookie), 'kept within KEY_CACHE_MS').to.equal(first);
      now += 1;
      expect(await sessions.of(cookie), 'looked up again after it').to.equal(null);
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
