// Bootstrap files: the example of docs/bootstrap.md applies twice (refs are not identities), and a
// person listed again keeps the password they already have.

import fs from 'node:fs';
import { expect } from 'chai';
import type { Knex } from 'knex';
import { applyBootstrap } from '../../src/bootstrap.js';
import { verifyPassword } from '../../src/auth/secrets.js';
import { projectPath } from '../../src/paths.js';
import { SchemaRegistry } from '../../src/schemas/registry.js';
import { dialects, migratedDatabase, type MigratedDatabase } from '../helpers/databases.js';

/** The example document of docs/bootstrap.md: the here-document its walkthrough feeds to `svc-server bootstrap -`. */
function documentedExample(): unknown {
  const text = fs.readFileSync(projectPath('docs', 'bootstrap.md'), 'utf8');
  return JSON.parse(/svc-server bootstrap - [^\n]*<<'EOF'\n([\s\S]*?)\nEOF\n/.exec(text)![1]);
}

for (const dialect of dialects()) {
  describe(`bootstrap files (${dialect})`, () => {
    let database: MigratedDatabase;
    let knex: Knex;
    const schemas = new SchemaRegistry();
    before(async () => {
      database = await migratedDatabase(dialect);
      knex = database.knex;
    });
    after(async () => database?.close());

    it('applies the documented example twice, creating new organizations, brands and keys each time', async () => {
      const first = await applyBootstrap(knex, schemas, documentedExample());
      const second = await applyBootstrap(knex, schemas, documentedExample());
      expect(second.organizations.acme.id).to.not.equal(first.organizations.acme.id);
      expect(second.organizations.acme.brands.shoes.id).to.not.equal(first.organizations.acme.brands.shoes.id);
      expect(second.organizations.acme.apiKeys.ci.secret)
        .to.match(/^svc_sk_/)
        .and.not.equal(first.organizations.acme.apiKeys.ci.secret);
      // The same person (email) is one user with a membership in each organization.
      expect(second.organizations.acme.users.olive.id).to.equal(first.organizations.acme.users.olive.id);
      expect(await knex('memberships').where({ user_id: first.organizations.acme.users.olive.id }).count({ n: '*' }).first()).to.deep.include({ n: 2 });
      // The simulated platform still holds one campaign of that id, as a real platform would.
      expect((await knex('sandbox_objects').where({ object_id: '120210000005001' })).length).to.equal(1);
      expect((await knex('sandbox_assets').where({ kind: 'leadForms', asset_id: 'lf_5001' })).length).to.equal(1);
    });

    it('warns, in its result, when an ad account id is already attached to another organization or named by two of the file', async () => {
      const doc = documentedExample() as any;
      doc.organizations[0].name = 'Acme Agency (warnings)';
      const accountId = 'act_5999';
      doc.organizations[0].brands[0].adAccounts[0].accountId = accountId;
      doc.organizations[0].brands[0].sandbox.campaigns[0].accountId = accountId;
      doc.organizations[0].brands[0].sandbox.leadForms[0].accountId = accountId;
      const first = await applyBootstrap(knex, schemas, doc);
      expect(first.warnings, 'a fresh account id warns of nothing').to.equal(undefined);

      const again = await applyBootstrap(knex, schemas, doc);
      expect(again.warnings).to.deep.equal([
        {
          field: 'organizations[0].brands[0].adAccounts[0].accountId',
          message: `Ad account ${accountId} is already attached to organization ${first.organizations.acme.id} (Acme Agency (warnings)): both organizations' keys will list and change the same campaigns. Use the organization's own ad account unless that is meant.`,
        },
      ]);

      const twice = { organizations: [structuredClone(doc.organizations[0]), { ...structuredClone(doc.organizations[0]), ref: 'beta', name: 'Beta' }] };
      twice.organizations[0].brands[0].adAccounts[0].accountId = 'act_5998';
      twice.organizations[1].brands[0].adAccounts[0].accountId = 'act_5998';
      for (const o of twice.organizations) o.brands[0].sandbox = undefined;
      const both = await applyBootstrap(knex, schemas, twice);
      expect(both.warnings?.map((w) => [w.field, w.message.split(':')[0]])).to.deep.equal([
        ['organizations[0].brands[0].adAccounts[0].accountId', 'Ad account act_5998 is already attached to "beta" of this file'],
        ['organizations[1].brands[0].adAccounts[0].accountId', 'Ad account act_5998 is already attached to "acme" of this file'],
      ]);
    });

    it('never changes the password of a person who already exists', async () => {
      const doc = documentedExample() as { organizations: Array<{ users: Array<{ password: string }> }> };
      doc.organizations[0].users[0].password = 'another password 9';
      const result = await applyBootstrap(knex, schemas, doc);
      const user = await knex('users').where({ id: result.organizations.acme.users.olive.id }).first('password_hash');
      expect(await verifyPassword('correct horse 1', user.password_hash)).to.equal(true);
      expect(await verifyPassword('another password 9', user.password_hash)).to.equal(false);
    });
  });
}
