// Money across currencies over a real listening server, on every dialect: yen, euro and dinar ad
// accounts count against one key's dollar ceiling at the FX_RATES rate, per ad account, rounded up
// to the next cent (the preview shows each account's part); a live budget edit counts its new
// amount the same way; refusals name dollars; a currency without a rate answers 503 and changes
// nothing; and confirms racing in two currencies never pass the ceiling together.

import { expect } from 'chai';
import { dialects } from '../../helpers/databases.js';
import { startWorld, type World } from '../../helpers/world.js';
import { brandApi, buildLaunch, idem, uploadCreative, type Api } from '../../helpers/launch-builders.js';
import { seedLiveLaunch } from '../../../src/launches/live-launch.js';

const RATES = 'EUR=1.08,JPY=0.0066,KWD=3.2567';
const publishing = { scopes: ['read', 'write', 'publish'], surfaces: { api: true, mcp: true }, brands: null };

const moneyWorld = {
  organizations: [
    {
      ref: 'acme',
      name: 'Acme Agency',
      plan: 'agency',
      subscriptionStatus: 'active',
      users: [{ ref: 'olive', email: 'olive@acme.test', name: 'Olive Owner', password: 'correct horse 1', role: 'owner' }],
      brands: [
        {
          ref: 'jp',
          name: 'Tea Japan',
          adAccounts: [{ platform: 'meta', accountId: 'act_5001', pageId: 'pg_5001', name: 'Tea JP', timezone: 'Asia/Tokyo', currency: 'JPY' }],
        },
        {
          ref: 'eu',
          name: 'Tea Europe',
          adAccounts: [{ platform: 'meta', accountId: 'act_5002', pageId: 'pg_5002', name: 'Tea EU', timezone: 'Europe/Paris', currency: 'EUR' }],
        },
        {
          ref: 'kw',
          name: 'Tea Kuwait',
          adAccounts: [{ platform: 'meta', accountId: 'act_5003', pageId: 'pg_5003', name: 'Tea KW', timezone: 'Asia/Kuwait', currency: 'KWD' }],
        },
        {
          ref: 'gb',
          name: 'Tea Britain',
          adAccounts: [{ platform: 'meta', accountId: 'act_5004', pageId: 'pg_5004', name: 'Tea GB', timezone: 'Europe/London', currency: 'GBP' }],
        },
      ],
      apiKeys: [
        { ref: 'ci', name: 'CI key', createdBy: 'olive', ...publishing, publishCeilingDollars: 500 },
        { ref: 'tight', name: 'Tight key', createdBy: 'olive', ...publishing, publishCeilingDollars: 100 },
        { ref: 'race', name: 'Race key', createdBy: 'olive', ...publishing, publishCeilingDollars: 300 },
      ],
    },
  ],
};

for (const dialect of dialects()) {
  describe(`money across currencies (${dialect})`, function () {
    this.timeout(120_000);
    let w: World;
    const brand = (ref: string) => w.brandId('acme', ref);
    const key = (ref: string) => w.key('acme', ref);
    const keyId = (ref: string) => w.seed.organizations.acme.apiKeys[ref].id;
    const committed = async (ref: string) =>
      Number(
        (
          await w.service
            .knex('api_keys')
            .where({ id: keyId(ref) })
            .first('committed_cents')
        ).committed_cents,
      );
    const creatives = new Map<string, number>();

    /** A launch on brand `ref` whose campaign's daily budget is `amount` in the account's minor units. */
    async function launchOf(ref: string, amount: number, api: Api = brandApi(w, key('ci'), brand(ref))) {
      if (!creatives.has(ref)) creatives.set(ref, await uploadCreative(w, key('ci'), brand(ref)));
      return buildLaunch(api, { title: `${ref} ${amount}`, campaign: { budget: { dailyAmount: amount } }, creativeId: creatives.get(ref) });
    }
    const publish = (api: Api, launchId: string, confirm = true) =>
      api('POST', `/launches/${launchId}/publish`, confirm ? { confirm: true } : {}, idem('money'));

    before(async () => {
      w = await startWorld({ dialect, bootstrap: moneyWorld, env: { FX_RATES: RATES, RATE_LIMIT_CONCURRENCY: '100' } });
    });
    after(async () => {
      await w?.close();
    });

    it('previews each ad account: the amount in its own currency and the US cents it counts, rounded up', async () => {
      const api = brandApi(w, key('ci'), brand('jp'));
      const launch = await launchOf('jp', 14_001);
      const preview = await publish(api, launch.launchId, false);
      expect(preview.status, JSON.stringify(preview.body)).to.equal(200);
      // 14,001 yen at $0.0066 = $92.4066: 9,241 cents, rounded up.
      expect(preview.body.budget).to.deep.equal({
        countedMinorUnits: 9_241,
        countedUsdCents: 9_241,
        accounts: [{ accountId: 'act_5001', currency: 'JPY', amountMinorUnits: 14_001, countedUsdCents: 9_241 }],
        ceiling: { limitMinorUnits: 50_000, committedMinorUnits: 0, remainingMinorUnits: 50_000 },
      });
      expect(await committed('ci'), 'a preview counts nothing').to.equal(0);
    });

    it('counts yen, euro and dinar publishes against one dollar ceiling with exact cents', async () => {
      const cases: Array<[string, number, string, number]> = [
        // brand, amount in minor units, currency, US cents counted
        ['jp', 14_001, 'JPY', 9_241], // 14,001 yen x 0.0066 = 92.4066 dollars
        ['eu', 5_001, 'EUR', 5_402], // 50.01 EUR x 1.08 = 54.0108 dollars
        ['kw', 1_500, 'KWD', 489], // 1.500 KWD x 3.2567 = 4.88505 dollars
      ];
      let total = 0;
      for (const [ref, amount, currency, cents] of cases) {
        const api = brandApi(w, key('ci'), brand(ref));
        const launch = await launchOf(ref, amount);
        const published = await publish(api, launch.launchId);
        expect(published.status, JSON.stringify(published.body)).to.equal(200);
        total += cents;
        expect(published.body.budget.accounts).to.deep.equal([
          { accountId: `act_500${['jp', 'eu', 'kw'].indexOf(ref) + 1}`, currency, amountMinorUnits: amount, countedUsdCents: cents },
        ]);
        expect(published.body.budget.ceiling).to.deep.equal({ limitMinorUnits: 50_000, committedMinorUnits: total, remainingMinorUnits: 50_000 - total });
        expect(await committed('ci')).to.equal(total);

        const activity = await api('GET', `/activity?entityId=${launch.launchId}`);
        expect(activity.body.activities.find((a: any) => a.action === 'launch.published')).to.include({
          accountId: published.body.budget.accounts[0].accountId,
          currency,
          amountMinorUnits: amount,
          countedUsdCents: cents,
        });
        const campaign = await api('GET', `/activity?entityId=${launch.campaignId}`);
        expect(campaign.body.activities.find((a: any) => a.action === 'campaign.published')).to.include({ currency, amountMinorUnits: amount });
        const event = await w.service
          .knex('events')
          .where({ type: 'launch.published', brand_id: brand(ref) })
          .orderBy('id', 'desc')
          .first();
        expect(JSON.parse(event.data)).to.deep.include({
          committedMinorUnits: cents,
          accounts: [{ accountId: published.body.budget.accounts[0].accountId, currency, amountMinorUnits: amount, countedUsdCents: cents }],
        });
        const rows = await w.service
          .knex('spend_commitments')
          .where({ launch_id: Number(launch.launchId) })
          .select('amount_cents', 'currency', 'amount_minor_units', 'state');
        expect(rows.map((r) => [Number(r.amount_cents), r.currency, Number(r.amount_minor_units), r.state])).to.deep.equal([
          [cents, currency, amount, 'committed'],
        ]);
      }
      expect(total).to.equal(15_132);
    });

    it('counts a live budget edit in the account currency: the new amount in US cents, rounded up; the minimum is in minor units', async () => {
      const api = brandApi(w, key('ci'), brand('jp'));
      const launch = await launchOf('jp', 10_000);
      expect((await publish(api, launch.launchId)).status).to.equal(200);
      const before = await committed('ci');
      const edit = (amount: number) =>
        api(
          'POST',
          `/launches/${launch.launchId}/nodes/${launch.campaignId}/live-budget`,
          { level: 'CAMPAIGN', budgetType: 'daily', amount },
          idem('money-edit'),
        );
      const low = await edit(99);
      expect(low.status).to.equal(400);
      expect(low.body.error.details[0]).to.include({ field: 'amount', code: 'too_small' });
      // Meta's minimum for the campaign's one link-click ad set is in yen too (the sandbox's JPY table: ¥700).
      const belowMeta = await edit(100);
      expect(belowMeta.status).to.equal(400);
      expect(belowMeta.body.error.details[0].message).to.match(/is ¥100 a day; Meta's minimum .* is ¥700/);
      // 700 yen is the least a budget may be here (700 minor units, not 700 cents): $4.62, 462 cents.
      const least = await edit(700);
      expect(least.status, JSON.stringify(least.body)).to.equal(200);
      expect(least.body).to.deep.include({ currency: 'JPY', amountMinorUnits: 700, countedUsdCents: 462 });
      const edited = await edit(20_001);
      expect(edited.status, JSON.stringify(edited.body)).to.equal(200);
      // 20,001 yen = $132.0066: 13,201 cents.
      expect(edited.body).to.deep.include({
        accountId: 'act_5001',
        currency: 'JPY',
        amountMinorUnits: 20_001,
        countedUsdCents: 13_201,
        budget: { period: 'daily', amountMinorUnits: 20_001 },
      });
      expect(edited.body.ceiling).to.deep.equal({
        limitMinorUnits: 50_000,
        committedMinorUnits: before + 462 + 13_201,
        remainingMinorUnits: 50_000 - before - 462 - 13_201,
      });
      expect(await committed('ci')).to.equal(before + 462 + 13_201);
      const event = await w.service.knex('events').where({ type: 'budget.changed' }).orderBy('id', 'desc').first();
      expect(JSON.parse(event.data)).to.deep.include({
        budget: { period: 'daily', amountMinorUnits: 20_001 },
        accountId: 'act_5001',
        currency: 'JPY',
        countedUsdCents: 13_201,
      });
      const activity = await api('GET', `/activity?entityId=${launch.campaignId}`);
      expect(activity.body.activities.find((a: any) => a.action === 'budget.updated')).to.include({
        currency: 'JPY',
        amountMinorUnits: 20_001,
        countedUsdCents: 13_201,
      });
    });

    it('refuses a publish past the ceiling with the amounts in US dollars; nothing is published or counted', async () => {
      const api = brandApi(w, key('tight'), brand('jp'));
      // 15,200 yen = $100.32, over the tight key's $100.00.
      const launch = await launchOf('jp', 15_200, api);
      const refused = await publish(api, launch.launchId);
      expect(refused.status).to.equal(403);
      expect(refused.body.error.code).to.equal('spend_ceiling_exceeded');
      expect(refused.body.error.message).to.equal(
        "This call would commit $100.32, but the key's publish ceiling is $100.00 and $0.00 is already committed. Nothing was published.",
      );
      expect(refused.body.error.details).to.deep.equal({
        ceilingMinorUnits: 10_000,
        committedMinorUnits: 0,
        amountMinorUnits: 10_032,
        accounts: [{ accountId: 'act_5001', currency: 'JPY', amountMinorUnits: 15_200, countedUsdCents: 10_032 }],
      });
      expect((await api('GET', `/launches/${launch.launchId}`)).body.status).not.to.equal('published');
      expect(await committed('tight')).to.equal(0);
      const event = await w.service.knex('events').where({ type: 'spend_ceiling.exceeded' }).orderBy('id', 'desc').first();
      expect(JSON.parse(event.data)).to.deep.include({ amountMinorUnits: 10_032, accounts: refused.body.error.details.accounts });
    });

    it('answers 503 unavailable for a currency without a rate: nothing published, nothing counted, the live budget unchanged', async () => {
      const api = brandApi(w, key('ci'), brand('gb'));
      const before = await committed('ci');
      const launch = await launchOf('gb', 5_000);
      for (const confirm of [false, true]) {
        const refused = await publish(api, launch.launchId, confirm);
        expect(refused.status, JSON.stringify(refused.body)).to.equal(503);
        expect(refused.body.error.code).to.equal('unavailable');
        expect(refused.body.error.message).to.match(/^The ceiling cannot be checked: no exchange rate for GBP\./);
        expect(refused.body.error.details).to.deep.equal({ reason: 'no_exchange_rate', currency: 'GBP' });
      }
      expect((await api('GET', `/launches/${launch.launchId}`)).body.status).to.equal('draft');
      expect(
        await w.service
          .knex('spend_commitments')
          .where({ launch_id: Number(launch.launchId) })
          .first(),
      ).to.equal(undefined);

      const seeded = await seedLiveLaunch(w.service.knex, {
        organizationId: w.seed.organizations.acme.id,
        brandId: brand('gb'),
        accountId: 'act_5004',
        platform: 'meta',
        title: 'Live in pounds',
        at: Date.now() - 86_400_000,
        campaigns: [{ name: 'Pounds', dailyBudget: 4_000 }],
      });
      const campaign = seeded.objects.find((o) => o.level === 'campaign')!;
      const edit = await api(
        'POST',
        `/launches/${seeded.launchId}/nodes/${campaign.nodeId}/live-budget`,
        { level: 'CAMPAIGN', budgetType: 'daily', amount: 6_000 },
        idem('money-gbp'),
      );
      expect(edit.status, JSON.stringify(edit.body)).to.equal(503);
      expect(edit.body.error.message).to.match(/no exchange rate for GBP/);
      const platform = await w.service.knex('sandbox_objects').where({ object_id: campaign.objectId }).first('budget_cents');
      expect(Number(platform.budget_cents)).to.equal(4_000);
      expect(await committed('ci')).to.equal(before);
    });

    it('concurrent confirms in two currencies never pass the ceiling together', async () => {
      const jp = brandApi(w, key('race'), brand('jp'));
      const eu = brandApi(w, key('race'), brand('eu'));
      // 14,000 yen counts 9,240 cents; 50.00 EUR counts 5,400 cents; the race key may commit 30,000.
      const launches = [
        ...(await Promise.all(Array.from({ length: 5 }, () => launchOf('jp', 14_000, jp)))).map((l) => ({ api: jp, launch: l, cents: 9_240 })),
        ...(await Promise.all(Array.from({ length: 5 }, () => launchOf('eu', 5_000, eu)))).map((l) => ({ api: eu, launch: l, cents: 5_400 })),
      ];
      const replies = await Promise.all(launches.map((x) => publish(x.api, x.launch.launchId)));
      const won = launches.filter((_, i) => replies[i].status === 200);
      const lost = launches.filter((_, i) => replies[i].status !== 200);
      for (const r of replies) expect([200, 403], JSON.stringify(r.body)).to.include(r.status);
      for (const r of replies.filter((x) => x.status === 403)) expect(r.body.error.code).to.equal('spend_ceiling_exceeded');
      const total = await committed('race');
      expect(total).to.be.at.most(30_000);
      expect(total).to.equal(won.reduce((s, x) => s + x.cents, 0));
      expect(won.length).to.be.at.least(3);
      // Committed totals only grew: every refusal still would not fit, so none was refused wrongly.
      for (const x of lost) expect(total + x.cents).to.be.above(30_000);
      for (const x of lost) expect((await x.api('GET', `/launches/${x.launch.launchId}`)).body.status).not.to.equal('published');
      const rows = await w.service
        .knex('spend_commitments')
        .where({ api_key_id: keyId('race'), state: 'committed' })
        .select('amount_cents');
      expect(rows.reduce((s, r) => s + Number(r.amount_cents), 0)).to.equal(total);
    });
  });
}
