// Bootstrap files: the example of docs/bootstrap.md applies twice (refs are not identities), a
// person listed again keeps the password they already have, and ad accounts name who their ads
// speak as (a page on Meta, an identity on TikTok), each platform refusing the other's fields.

import fs from 'node:fs';
import { expect } from 'chai';
import type { Knex } from 'knex';
import { applyBootstrap } from '../../src/bootstrap.js';
import { fullAdAccountsOf } from '../../src/brands/store.js';
import { verifyPassword } from '../../src/auth/secrets.js';
import { projectPath } from '../../src/paths.js';
import { SchemaRegistry } from '../../src/schemas/registry.js';
import { dialects, migratedDatabase, type MigratedDatabase } from '../helpers/databases.js';
import { rejectionOf } from '../helpers/assert.js';

/** A one-brand tenant whose brand has `accounts`. */
const tenant = (accounts: unknown[]) => ({
  organizations: [{ ref: 'speak', name: 'Speak Co', plan: 'agency', subscriptionStatus: 'active', brands: [{ ref: 'b', name: 'B', adAccounts: accounts }] }],
});

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

    it('stores a Meta account page and Instagram account and a TikTok identity; unset ones stay null', async () => {
      const result = await applyBootstrap(
        knex,
        schemas,
        tenant([
          {
            platform: 'meta',
            accountId: 'act_88001',
            pageId: '100200300400',
            instagramUserId: '17841400000000001',
            dsaBeneficiary: 'Speak GmbH',
            dsaPayor: 'Speak Holding',
          },
          { platform: 'tiktok', accountId: 'biz_88002', identityId: '7000000000000000001', identityType: 'TT_USER' },
          { platform: 'meta', accountId: 'act_88003' },
        ]),
      );
      const rows = await knex('ad_accounts')
        .where({ brand_id: result.organizations.speak.brands.b.id })
        .orderBy('id')
        .select('account_id', 'page_id', 'instagram_user_id', 'identity_id', 'identity_type', 'dsa_beneficiary', 'dsa_payor');
      const none = { dsa_beneficiary: null, dsa_payor: null };
      expect(rows.map((r) => ({ ...r }))).to.deep.equal([
        {
          account_id: 'act_88001',
          page_id: '100200300400',
          instagram_user_id: '17841400000000001',
          identity_id: null,
          identity_type: null,
          dsa_beneficiary: 'Speak GmbH',
          dsa_payor: 'Speak Holding',
        },
        { account_id: 'biz_88002', page_id: null, instagram_user_id: null, identity_id: '7000000000000000001', identity_type: 'TT_USER', ...none },
        { account_id: 'act_88003', page_id: null, instagram_user_id: null, identity_id: null, identity_type: null, ...none },
      ]);
    });

    it("stores a Meta account's regional identities and a TikTok account's Smart+ permission; an old file's declaredCountries loads and is ignored", async () => {
      const ids = { SG: { beneficiary: '900000000000001', payer: '900000000000002' }, TW: { beneficiary: '900000000000003', payer: '900000000000004' } };
      const result = await applyBootstrap(
        knex,
        schemas,
        tenant([
          { platform: 'meta', accountId: 'act_88201', regionalIdentities: ids, declaredCountries: ['SG', 'KR'] },
          { platform: 'tiktok', accountId: 'biz_88202', smartPlusAllowed: true },
          { platform: 'meta', accountId: 'act_88203' },
        ]),
      );
      const rows = await fullAdAccountsOf(knex, result.organizations.speak.brands.b.id);
      expect(rows.map((r) => [r.accountId, r.regionalIdentities, r.smartPlusAllowed, r.declaredCountries])).to.deep.equal([
        ['act_88201', ids, false, []],
        ['biz_88202', null, true, []],
        ['act_88203', null, false, []],
      ]);
    });

    const refused = [
      {
        what: 'an identity on a Meta account',
        account: { platform: 'meta', accountId: 'act_88101', identityId: '1', identityType: 'TT_USER' },
        fields: ['identityId', 'identityType'],
        says: /TikTok field.*Facebook Page/,
      },
      {
        what: 'a page on a TikTok account',
        account: { platform: 'tiktok', accountId: 'biz_88102', pageId: '1' },
        fields: ['pageId'],
        says: /Meta field.*identity/,
      },
      {
        what: 'DSA names on a TikTok account (a Meta rule)',
        account: { platform: 'tiktok', accountId: 'biz_88106', identityId: '1', identityType: 'TT_USER', dsaBeneficiary: 'x' },
        fields: ['dsaBeneficiary'],
        says: /Meta field/,
      },
      {
        what: 'regional identities on a TikTok account, and Smart+ on a Meta one',
        account: { platform: 'tiktok', accountId: 'biz_88107', regionalIdentities: { SG: { beneficiary: '1', payer: '2' } } },
        fields: ['regionalIdentities'],
        says: /Meta field/,
      },
      {
        what: 'a regional identity that is not a verified id',
        account: { platform: 'meta', accountId: 'act_88108', regionalIdentities: { SG: { beneficiary: 'Shoes Co', payer: '2' } } },
        fields: ['beneficiary'],
        says: /./,
      },
      {
        what: 'an identityId without identityType',
        account: { platform: 'tiktok', accountId: 'biz_88103', identityId: '1' },
        fields: ['identityType'],
        says: /both or neither/,
      },
      {
        what: 'an identityType outside the four',
        account: { platform: 'tiktok', accountId: 'biz_88104', identityId: '1', identityType: 'PAGE' },
        fields: ['identityType'],
        says: /./,
      },
      {
        what: 'an unknown field beside them',
        account: { platform: 'meta', accountId: 'act_88105', pageId: '1', pageName: 'x' },
        fields: ['pageName'],
        says: /./,
      },
    ];
    for (const c of refused) {
      it(`refuses ${c.what}, naming the field; nothing is written`, async () => {
        const before = await knex('ad_accounts').count({ n: '*' }).first();
        const err = (await rejectionOf(applyBootstrap(knex, schemas, tenant([c.account])))) as unknown as {
          code: string;
          details: Array<{ field: string; message: string }>;
        };
        expect(err.code).to.equal('validation_failed');
        const fields = err.details.map((d) => d.field.split('.').pop());
        expect(fields.sort(), JSON.stringify(err.details)).to.deep.equal([...c.fields].sort());
        for (const d of err.details) expect(d.field).to.match(/adAccounts\[0\]/);
        expect(err.details.map((d) => d.message).join(' ')).to.match(c.says);
        expect(await knex('ad_accounts').count({ n: '*' }).first()).to.deep.equal(before);
      });
    }

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
