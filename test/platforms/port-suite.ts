// The contract of the ad-platform port, written once and run against every adapter: the sandbox
// simulator and the real Meta and TikTok adapters over their fake servers. A setup gives a fresh ad
// account and the means to put on the platform what it holds before the service touches it.

import crypto from 'node:crypto';
import { expect } from 'chai';
import {
  PlatformError,
  type AdAccount,
  type Budget,
  type CampaignPage,
  type CampaignQuery,
  type DateWindow,
  type Insights,
  type ObjectSpec,
  type OptionType,
  type PlatformAdapter,
  type PlatformCampaign,
  type ObjectRef,
} from '../../src/platforms/port.js';
import { rejectionOf } from '../helpers/assert.js';
import { addInsights } from '../../src/platforms/insights.js';
import { makePng } from '../helpers/png.js';

export interface SeedCampaign {
  name: string;
  status: 'ACTIVE' | 'PAUSED';
  objective: string;
  budget: Budget | null;
}

export type SeedAssetType = 'pixels' | 'pages' | 'profileAccounts' | 'audiences';

export interface PortFixture {
  adapter: PlatformAdapter;
  account: AdAccount;
  /** Campaigns the platform holds before the service touches the account, oldest first; their ids. */
  seedCampaigns(campaigns: SeedCampaign[]): Promise<string[]>;
  seedAssets(type: SeedAssetType, items: Array<{ id: string; name: string }>): Promise<void>;
  seedLeadForms(pageId: string, forms: Array<{ id: string; name: string }>): Promise<void>;
  /** Makes active campaigns with budgets deliver; the window (account dates) they delivered in. */
  deliver(campaignIds: string[]): Promise<DateWindow>;
  /** The objective the platform reports for a campaign created or seeded with `objective`. */
  objectiveOf(objective: string): string;
  capabilities: {
    /** The platform has pages (Meta) rather than only identities (TikTok). */
    pages: boolean;
    /** Lead forms belong to a page (Meta), not to the whole account (TikTok). */
    leadFormsPerPage: boolean;
    /** A campaign may hold a lifetime budget (TikTok's budget optimization takes a daily one only); default true. */
    lifetimeCampaignBudget?: boolean;
    /**
     * An id the platform will not show is not proof that it is gone (Meta answers error 100 subcode 33
     * for a missing object and for one the token may not see): changing one fails as a lookup that
     * did not answer (`transient`), never `not_found`; default false.
     */
    unknownIsUndecided?: boolean;
  };
  close(): Promise<void>;
}

/** An id no platform has handed out. */
const UNKNOWN_ID = '1799999999999999999';

const newMarker = () => `t${crypto.randomBytes(6).toString('hex')}`;

export function campaignSpec(name: string, overrides: Partial<ObjectSpec> = {}): ObjectSpec {
  return {
    level: 'campaign',
    marker: newMarker(),
    name,
    parentId: null,
    status: 'PAUSED',
    objective: 'OUTCOME_TRAFFIC',
    budget: { period: 'daily', amountMinorUnits: 5000 },
    settings: {},
    ...overrides,
  };
}

export function adsetSpec(parentId: string, name: string, overrides: Partial<ObjectSpec> = {}): ObjectSpec {
  return {
    level: 'adset',
    marker: newMarker(),
    name,
    parentId,
    status: 'PAUSED',
    budget: null,
    settings: {
      optimizationGoal: 'LINK_CLICKS',
      billingEvent: 'IMPRESSIONS',
      targeting: { countries: ['US'], ageMin: 18, ageMax: 65 },
      schedule: { startTime: '2030-01-01T00:00:00Z' },
    },
    ...overrides,
  };
}

export function adSpec(parentId: string, name: string, overrides: Partial<ObjectSpec> = {}): ObjectSpec {
  return {
    level: 'ad',
    marker: newMarker(),
    name,
    parentId,
    status: 'PAUSED',
    settings: {
      headline: 'Spring sale',
      primaryText: 'Up to 40% off',
      linkUrl: 'https://shop.example.com/spring',
      callToAction: 'SHOP_NOW',
      pageId: '100200300400',
      identityId: '7000000000000000001',
      identityType: 'CUSTOMIZED_USER',
    },
    ...overrides,
  };
}

async function everyPage(adapter: PlatformAdapter, account: AdAccount, query: Omit<CampaignQuery, 'after'>): Promise<CampaignPage[]> {
  const pages: CampaignPage[] = [];
  let after: string | null = null;
  do {
    const page = await adapter.listCampaigns(account, { ...query, after });
    pages.push(page);
    after = page.after;
  } while (after && pages.length < 50);
  return pages;
}

async function platformErrorOf(promise: Promise<unknown>): Promise<PlatformError> {
  const err = await rejectionOf(promise);
  expect(err, String(err)).to.be.instanceOf(PlatformError);
  return err as unknown as PlatformError;
}

/** Registers the port's contract tests for one adapter; `setup` runs before every test. */
export function describePortSuite(name: string, setup: () => Promise<PortFixture>): void {
  describe(`platform port: ${name}`, function () {
    let f: PortFixture;
    beforeEach(async () => {
      f = await setup();
    });
    afterEach(async () => f?.close());

    const campaigns = async (query: Omit<CampaignQuery, 'after'> = { limit: 100 }): Promise<PlatformCampaign[]> =>
      (await everyPage(f.adapter, f.account, query)).flatMap((p) => p.campaigns);
    /** An image put on the account once per test, for the ads (a TikTok ad needs its file). */
    let image: ObjectSpec['creative'] = null;
    beforeEach(() => {
      image = null;
    });
    const adWithImage = async (parentId: string, name: string, overrides: Partial<ObjectSpec> = {}): Promise<ObjectSpec> => {
      if (!image) {
        const bytes = makePng(600, 600);
        const md5 = crypto.createHash('md5').update(bytes).digest('hex');
        const file = { creativeId: 1, type: 'image' as const, name: 'hero.png', mime: 'image/png', bytes, width: 600, height: 600, md5 };
        image = { type: 'image', ...(await f.adapter.uploadCreative(f.account, file)) };
      }
      return adSpec(parentId, name, { creative: image, ...overrides });
    };
    /**
     * createObjects as a publish uses it: then finishPublish, where the adapter has it, gives each object
     * its spec's status (TikTok starts every campaign ENABLE whatever its create says).
     */
    const create = async (specs: ObjectSpec[]): Promise<ObjectRef[]> => {
      const refs = await f.adapter.createObjects(f.account, specs);
      await f.adapter.finishPublish?.(
        f.account,
        refs.map((ref, i) => ({ ref, status: specs[i].status })),
      );
      return refs;
    };
    const lifetime = () => f.capabilities.lifetimeCampaignBudget !== false;
    const findOne = async (level: 'campaign' | 'adset' | 'ad', marker: string): Promise<ObjectRef | null> =>
      (await f.adapter.findCreated(f.account, level, [marker])).get(marker) ?? null;

    describe('listCampaigns', () => {
      it('lists every campaign once across pages, following the platform position to the end', async () => {
        const ids = await f.seedCampaigns(
          Array.from({ length: 7 }, (_, i) => ({ name: `Campaign ${i}`, status: 'ACTIVE' as const, objective: 'OUTCOME_TRAFFIC', budget: null })),
        );
        const pages = await everyPage(f.adapter, f.account, { limit: 3 });
        expect(pages.map((p) => p.campaigns.length)).to.deep.equal([3, 3, 1]);
        expect(pages[pages.length - 1].after).to.equal(null);
        expect(pages.flatMap((p) => p.campaigns.map((c) => c.id)).sort()).to.deep.equal([...ids].sort());
        for (const page of pages) expect([page.totalInAccount, page.matched]).to.deep.equal([7, 7]);
      });

      it('counts the whole account in totalInAccount and the status matches in matched', async () => {
        await f.seedCampaigns([
          ...Array.from({ length: 3 }, (_, i) => ({ name: `Live ${i}`, status: 'ACTIVE' as const, objective: 'OUTCOME_TRAFFIC', budget: null })),
          ...Array.from({ length: 2 }, (_, i) => ({ name: `Held ${i}`, status: 'PAUSED' as const, objective: 'OUTCOME_TRAFFIC', budget: null })),
        ]);
        const paused = await f.adapter.listCampaigns(f.account, { statuses: ['PAUSED'], limit: 10 });
        expect([paused.totalInAccount, paused.matched]).to.deep.equal([5, 2]);
        expect(paused.campaigns.map((c) => c.status)).to.deep.equal(['PAUSED', 'PAUSED']);
        const active = await f.adapter.listCampaigns(f.account, { statuses: ['ACTIVE'], limit: 10 });
        expect([active.totalInAccount, active.matched]).to.deep.equal([5, 3]);
        expect(active.campaigns.map((c) => c.name).sort()).to.deep.equal(['Live 0', 'Live 1', 'Live 2']);
      });

      it('matches nameQuery as a case-insensitive substring, alone and with a status filter', async () => {
        await f.seedCampaigns([
          { name: 'Spring Sale US', status: 'ACTIVE', objective: 'OUTCOME_TRAFFIC', budget: null },
          { name: 'spring sale UK', status: 'PAUSED', objective: 'OUTCOME_TRAFFIC', budget: null },
          { name: 'Winter Promo', status: 'ACTIVE', objective: 'OUTCOME_TRAFFIC', budget: null },
        ]);
        const byName = await f.adapter.listCampaigns(f.account, { nameQuery: 'SPRING SALE', limit: 10 });
        expect(byName.campaigns.map((c) => c.name).sort()).to.deep.equal(['Spring Sale US', 'spring sale UK']);
        expect([byName.totalInAccount, byName.matched]).to.deep.equal([3, 2]);
        const both = await f.adapter.listCampaigns(f.account, { nameQuery: 'sale', statuses: ['ACTIVE'], limit: 10 });
        expect(both.campaigns.map((c) => c.name)).to.deep.equal(['Spring Sale US']);
        expect([both.totalInAccount, both.matched]).to.deep.equal([3, 1]);
      });

      it('reports budgets in integer minor units and whether the campaign or its ad sets carry them', async () => {
        const [daily, lifetime, none] = await f.seedCampaigns([
          { name: 'Daily', status: 'ACTIVE', objective: 'OUTCOME_TRAFFIC', budget: { period: 'daily', amountMinorUnits: 5010 } },
          { name: 'Lifetime', status: 'ACTIVE', objective: 'OUTCOME_TRAFFIC', budget: { period: 'lifetime', amountMinorUnits: 123456 } },
          { name: 'On ad sets', status: 'ACTIVE', objective: 'OUTCOME_TRAFFIC', budget: null },
        ]);
        const byId = new Map((await campaigns()).map((c) => [c.id, c]));
        expect(byId.get(daily)).to.deep.include({ budget: { period: 'daily', amountMinorUnits: 5010 }, budgetLevel: 'campaign' });
        expect(byId.get(lifetime)).to.deep.include({ budget: { period: 'lifetime', amountMinorUnits: 123456 }, budgetLevel: 'campaign' });
        expect(byId.get(none)).to.deep.include({ budget: null, budgetLevel: 'adset' });
      });

      it('reports status, effective status, objective and creation time of each campaign', async () => {
        const [active, paused] = await f.seedCampaigns([
          { name: 'On', status: 'ACTIVE', objective: 'OUTCOME_TRAFFIC', budget: null },
          { name: 'Off', status: 'PAUSED', objective: 'OUTCOME_SALES', budget: null },
        ]);
        const byId = new Map((await campaigns()).map((c) => [c.id, c]));
        expect(byId.get(active)).to.include({ name: 'On', status: 'ACTIVE', objective: f.objectiveOf('OUTCOME_TRAFFIC') });
        expect(byId.get(paused)).to.include({ name: 'Off', status: 'PAUSED', objective: f.objectiveOf('OUTCOME_SALES') });
        for (const c of byId.values()) {
          expect(c.effectiveStatus).to.be.a('string').and.not.empty;
          expect(new Date(c.createdAt).toISOString()).to.equal(c.createdAt);
        }
      });

      it('answers no campaigns but the account total when only deleted campaigns are asked for', async () => {
        await f.seedCampaigns([{ name: 'Kept', status: 'ACTIVE', objective: 'OUTCOME_TRAFFIC', budget: null }]);
        const page = await f.adapter.listCampaigns(f.account, { statuses: ['DELETED'], limit: 10 });
        expect(page).to.deep.equal({ campaigns: [], totalInAccount: 1, matched: 0, after: null });
      });

      it('refuses a paging position it did not hand out with invalid_request on after', async () => {
        await f.seedCampaigns([{ name: 'Only', status: 'ACTIVE', objective: 'OUTCOME_TRAFFIC', budget: null }]);
        const err = await platformErrorOf(f.adapter.listCampaigns(f.account, { after: 'not a position!', limit: 10 }));
        expect(err.kind).to.equal('invalid_request');
        expect(err.extra.field).to.equal('after');
      });
    });

    describe('createObjects and findCreated', () => {
      it('creates a campaign, its ad set and its ad, parents first, and finds each by its marker', async () => {
        const campaign = campaignSpec('Spring - US');
        const [c] = await f.adapter.createObjects(f.account, [campaign]);
        const adset = adsetSpec(c.id, 'US 18-65');
        const [s] = await f.adapter.createObjects(f.account, [adset]);
        const ad = await adWithImage(s.id, 'Hero 1');
        const [a] = await f.adapter.createObjects(f.account, [ad]);
        expect([c.level, s.level, a.level]).to.deep.equal(['campaign', 'adset', 'ad']);
        expect(new Set([c.id, s.id, a.id]).size).to.equal(3);
        expect(await findOne('campaign', campaign.marker)).to.deep.equal(c);
        expect(await findOne('adset', adset.marker)).to.deep.equal(s);
        expect(await findOne('ad', ad.marker)).to.deep.equal(a);
      });

      it('returns refs in the order of the specs when creating several objects of one level', async () => {
        const [c] = await f.adapter.createObjects(f.account, [campaignSpec('Parent')]);
        const [s] = await f.adapter.createObjects(f.account, [adsetSpec(c.id, 'Set')]);
        const specs = [await adWithImage(s.id, 'First'), await adWithImage(s.id, 'Second'), await adWithImage(s.id, 'Third')];
        const refs = await f.adapter.createObjects(f.account, specs);
        expect(refs.map((r) => r.level)).to.deep.equal(['ad', 'ad', 'ad']);
        expect(new Set(refs.map((r) => r.id)).size).to.equal(3);
        for (const [i, spec] of specs.entries()) expect(await findOne('ad', spec.marker)).to.deep.equal(refs[i]);
      });

      it('shows a created campaign in the list with its own name, status, objective and budget', async () => {
        const budget = { period: lifetime() ? ('lifetime' as const) : ('daily' as const), amountMinorUnits: 250050 };
        const [c] = await create([campaignSpec('Spring Sale US', { budget })]);
        const listed = (await campaigns()).find((x) => x.id === c.id);
        expect(listed).to.deep.include({
          name: 'Spring Sale US',
          status: 'PAUSED',
          objective: f.objectiveOf('OUTCOME_TRAFFIC'),
          budget,
          budgetLevel: 'campaign',
        });
      });

      it('finds nothing for a marker it never saw', async () => {
        await f.adapter.createObjects(f.account, [campaignSpec('Unrelated')]);
        expect(await findOne('campaign', newMarker())).to.equal(null);
      });
    });

    describe('updateObject', () => {
      it('renames an object, which stays findable by its marker', async () => {
        const spec = campaignSpec('Old name');
        const [c] = await f.adapter.createObjects(f.account, [spec]);
        await f.adapter.updateObject(f.account, c, { name: 'New name' });
        expect((await campaigns()).find((x) => x.id === c.id)?.name).to.equal('New name');
        expect(await findOne('campaign', spec.marker)).to.deep.equal(c);
      });

      it('answers not_found for an object the account does not have', async () => {
        const err = await platformErrorOf(f.adapter.updateObject(f.account, { level: 'campaign', id: UNKNOWN_ID }, { name: 'x' }));
        expect(err.kind).to.equal('not_found');
      });
    });

    describe('setStatus', () => {
      it('activates and pauses campaigns', async () => {
        const refs = await f.adapter.createObjects(f.account, [campaignSpec('One'), campaignSpec('Two')]);
        await f.adapter.setStatus(f.account, refs, 'ACTIVE');
        expect((await campaigns()).map((c) => c.status)).to.deep.equal(['ACTIVE', 'ACTIVE']);
        await f.adapter.setStatus(f.account, [refs[0]], 'PAUSED');
        const byId = new Map((await campaigns()).map((c) => [c.id, c.status]));
        expect([byId.get(refs[0].id), byId.get(refs[1].id)]).to.deep.equal(['PAUSED', 'ACTIVE']);
      });

      it('answers not_found when one object is unknown, and changes none of them', async () => {
        const [c] = await create([campaignSpec('Known')]);
        const err = await platformErrorOf(f.adapter.setStatus(f.account, [c, { level: 'campaign', id: UNKNOWN_ID }], 'ACTIVE'));
        expect(err.kind).to.equal('not_found');
        expect((await campaigns()).find((x) => x.id === c.id)?.status).to.equal('PAUSED');
      });

      it('accepts an empty list and changes nothing', async () => {
        const [c] = await create([campaignSpec('Untouched')]);
        await f.adapter.setStatus(f.account, [], 'ACTIVE');
        expect((await campaigns()).find((x) => x.id === c.id)?.status).to.equal('PAUSED');
      });
    });

    describe('setStatusEach', () => {
      it('changes each object on its own: an unknown one fails alone and the others change', async () => {
        const [a, b] = await f.adapter.createObjects(f.account, [campaignSpec('Each A'), campaignSpec('Each B')]);
        const outcomes = await f.adapter.setStatusEach(f.account, [a, { level: 'campaign', id: UNKNOWN_ID }, b], 'ACTIVE');
        expect(outcomes[0]).to.equal(null);
        expect(outcomes[1]).to.be.instanceOf(PlatformError);
        expect(outcomes[1]!.kind).to.equal(f.capabilities.unknownIsUndecided ? 'transient' : 'not_found');
        expect(outcomes[2]).to.equal(null);
        const byId = new Map((await campaigns()).map((c) => [c.id, c.status]));
        expect([byId.get(a.id), byId.get(b.id)]).to.deep.equal(['ACTIVE', 'ACTIVE']);
        expect(await f.adapter.setStatusEach(f.account, [b], 'PAUSED')).to.deep.equal([null]);
        expect((await campaigns()).find((x) => x.id === b.id)?.status).to.equal('PAUSED');
      });

      it('accepts an empty list', async () => {
        expect(await f.adapter.setStatusEach(f.account, [], 'ACTIVE')).to.deep.equal([]);
      });
    });

    describe('setBudget', () => {
      // The amount changes; the period stays as created (TikTok's campaign/update takes no budget_mode).
      it('changes a campaign budget, daily or lifetime, in minor units', async () => {
        const [c] = await f.adapter.createObjects(f.account, [campaignSpec('Budgeted')]);
        await f.adapter.setBudget(f.account, c, { period: 'daily', amountMinorUnits: 7099 });
        expect((await campaigns()).find((x) => x.id === c.id)?.budget).to.deep.equal({ period: 'daily', amountMinorUnits: 7099 });
        if (!lifetime()) return;
        const [l] = await f.adapter.createObjects(f.account, [campaignSpec('Lifetime', { budget: { period: 'lifetime', amountMinorUnits: 500000 } })]);
        await f.adapter.setBudget(f.account, l, { period: 'lifetime', amountMinorUnits: 1000001 });
        expect((await campaigns()).find((x) => x.id === l.id)?.budget).to.deep.equal({ period: 'lifetime', amountMinorUnits: 1000001 });
      });

      it('refuses a budget on an ad with capability_unsupported', async () => {
        const [c] = await f.adapter.createObjects(f.account, [campaignSpec('Parent')]);
        const [s] = await f.adapter.createObjects(f.account, [adsetSpec(c.id, 'Set')]);
        const [a] = await f.adapter.createObjects(f.account, [await adWithImage(s.id, 'Ad')]);
        const err = await platformErrorOf(f.adapter.setBudget(f.account, a, { period: 'daily', amountMinorUnits: 1000 }));
        expect(err.kind).to.equal('capability_unsupported');
      });

      it('answers not_found for a campaign the account does not have', async () => {
        const err = await platformErrorOf(f.adapter.setBudget(f.account, { level: 'campaign', id: UNKNOWN_ID }, { period: 'daily', amountMinorUnits: 1000 }));
        expect(err.kind).to.equal('not_found');
      });
    });

    describe('deleteObjects', () => {
      it('drops deleted campaigns from the list, its totals and findCreated (what a rollback deleted are never taken up again)', async () => {
        const specs = [campaignSpec('Stays'), campaignSpec('Goes')];
        const [stays, goes] = await f.adapter.createObjects(f.account, specs);
        await f.adapter.deleteObjects(f.account, [goes]);
        const page = await f.adapter.listCampaigns(f.account, { limit: 10 });
        expect(page.campaigns.map((c) => c.id)).to.deep.equal([stays.id]);
        expect([page.totalInAccount, page.matched]).to.deep.equal([1, 1]);
        expect(await findOne('campaign', specs[1].marker)).to.equal(null);
        expect(await findOne('campaign', specs[0].marker)).to.deep.equal(stays);
      });

      it('answers not_found for an object the account does not have', async () => {
        const err = await platformErrorOf(f.adapter.deleteObjects(f.account, [{ level: 'campaign', id: UNKNOWN_ID }]));
        expect(err.kind).to.equal('not_found');
      });
    });

    describe('listLeadForms', () => {
      it('pages through the lead forms with the platform position', async () => {
        const forms = Array.from({ length: 5 }, (_, i) => ({ id: `90000000000${i}`, name: `Form ${i}` }));
        await f.seedLeadForms('100200300400', forms);
        if (f.capabilities.leadFormsPerPage) await f.seedLeadForms('100200300999', [{ id: '900000000099', name: 'Other page' }]);
        const seen: Array<{ id: string; name: string | null }> = [];
        let after: string | null = null;
        let pages = 0;
        do {
          const page = await f.adapter.listLeadForms(f.account, '100200300400', after, 2);
          expect(page.leadForms.length).to.be.at.most(2);
          seen.push(...page.leadForms);
          after = page.after;
          pages++;
        } while (after && pages < 10);
        expect(pages).to.equal(3);
        expect(seen.map((x) => [x.id, x.name]).sort()).to.deep.equal(forms.map((x) => [x.id, x.name]).sort());
      });
    });

    describe('listOptions', () => {
      it('lists the account pixels, profile accounts and audiences, narrowed by a case-insensitive query', async () => {
        for (const type of ['pixels', 'profileAccounts', 'audiences'] as const) {
          const items = [
            { id: `81${crypto.randomInt(10 ** 9, 10 ** 10)}`, name: `Spring ${type}` },
            { id: `82${crypto.randomInt(10 ** 9, 10 ** 10)}`, name: `Winter ${type}` },
          ];
          await f.seedAssets(type, items);
          const all = await f.adapter.listOptions(f.account, type);
          expect(all.map((x) => [x.id, x.name]).sort(), type).to.deep.equal(items.map((x) => [x.id, x.name]).sort());
          const narrowed = await f.adapter.listOptions(f.account, type, 'SPRING');
          expect(
            narrowed.map((x) => x.id),
            type,
          ).to.deep.equal([items[0].id]);
        }
      });

      it('lists pages where the platform has them, and answers capability_unsupported where it has none', async () => {
        if (f.capabilities.pages) {
          await f.seedAssets('pages', [{ id: '100200300400', name: 'Shoes Co' }]);
          expect((await f.adapter.listOptions(f.account, 'pages')).map((p) => [p.id, p.name])).to.deep.equal([['100200300400', 'Shoes Co']]);
        } else {
          const err = await platformErrorOf(f.adapter.listOptions(f.account, 'pages'));
          expect(err.kind).to.equal('capability_unsupported');
        }
      });

      it('lists interests, locations and conversion events, each narrowed by a query on the name', async () => {
        for (const type of ['interests', 'locations', 'conversionEvents'] as OptionType[]) {
          const all = await f.adapter.listOptions(f.account, type);
          expect(all.length, type).to.be.greaterThan(0);
          for (const item of all) expect([typeof item.id, typeof item.name], type).to.deep.equal(['string', 'string']);
          const query = all[0].name.slice(0, 3).toUpperCase();
          const narrowed = await f.adapter.listOptions(f.account, type, query);
          expect(
            narrowed.map((x) => x.id),
            type,
          ).to.include(all[0].id);
          for (const item of narrowed) expect(item.name.toLowerCase(), type).to.include(query.toLowerCase());
        }
      });
    });

    describe('insights', () => {
      it('answers zeros for no campaigns', async () => {
        expect(await f.adapter.insights(f.account, [], { since: '2030-01-01', until: '2030-01-31' })).to.deep.equal({
          spendMinorUnits: 0,
          impressions: 0,
          clicks: 0,
          results: 0,
          revenueMinorUnits: 0,
        });
      });

      it('sums delivery over the campaigns asked for, in integer minor units', async () => {
        const refs = await f.adapter.createObjects(f.account, [
          campaignSpec('Delivers A', { status: 'ACTIVE', budget: { period: 'daily', amountMinorUnits: 5000 } }),
          campaignSpec('Delivers B', { status: 'ACTIVE', budget: { period: 'daily', amountMinorUnits: 8000 } }),
        ]);
        const window = await f.deliver(refs.map((r) => r.id));
        const [a, b, both] = [
          await f.adapter.insights(f.account, [refs[0].id], window),
          await f.adapter.insights(f.account, [refs[1].id], window),
          await f.adapter.insights(
            f.account,
            refs.map((r) => r.id),
            window,
          ),
        ];
        expect(a.spendMinorUnits).to.be.greaterThan(0);
        expect(b.spendMinorUnits).to.be.greaterThan(0);
        expect(both).to.deep.equal(addInsights(a, b));
        for (const value of Object.values(both)) expect(Number.isInteger(value)).to.equal(true);
      });

      it('answers zeros for a window in which nothing delivered', async () => {
        const refs = await f.adapter.createObjects(f.account, [campaignSpec('Delivers', { status: 'ACTIVE' })]);
        await f.deliver(refs.map((r) => r.id));
        expect(await f.adapter.insights(f.account, [refs[0].id], { since: '2001-01-01', until: '2001-01-02' })).to.deep.equal({
          spendMinorUnits: 0,
          impressions: 0,
          clicks: 0,
          results: 0,
          revenueMinorUnits: 0,
        });
      });
    });

    describe('insightsByObject', () => {
      const strip = ({ objectId: _id, reach: _reach, ...totals }: { objectId: string; reach: number } & Insights) => totals;

      it('answers an empty list for no ids', async () => {
        expect(await f.adapter.insightsByObject(f.account, 'campaign', [], { since: '2030-01-01', until: '2030-01-31' })).to.deep.equal([]);
      });

      it("answers one entry per distinct id in the order asked, each equal to that object's own insights, zeros where nothing delivered", async () => {
        const refs = await f.adapter.createObjects(f.account, [
          campaignSpec('Per object A', { status: 'ACTIVE', budget: { period: 'daily', amountMinorUnits: 5000 } }),
          campaignSpec('Per object B', { status: 'ACTIVE', budget: { period: 'daily', amountMinorUnits: 9000 } }),
          campaignSpec('Per object idle', { status: 'PAUSED' }),
        ]);
        const window = await f.deliver([refs[0].id, refs[1].id]);
        const asked = [refs[1].id, refs[2].id, refs[0].id, refs[1].id];
        const rows = await f.adapter.insightsByObject(f.account, 'campaign', asked, window);
        expect(rows.map((r) => r.objectId)).to.deep.equal([refs[1].id, refs[2].id, refs[0].id]);
        expect(strip(rows[0])).to.deep.equal(await f.adapter.insights(f.account, [refs[1].id], window));
        expect(strip(rows[2])).to.deep.equal(await f.adapter.insights(f.account, [refs[0].id], window));
        expect(rows[1]).to.deep.equal({ objectId: refs[2].id, spendMinorUnits: 0, impressions: 0, clicks: 0, results: 0, revenueMinorUnits: 0, reach: 0 });
        for (const row of [rows[0], rows[2]]) {
          expect(row.spendMinorUnits).to.be.greaterThan(0);
          expect(row.reach).to.be.greaterThan(0);
          expect(row.reach).to.be.at.most(row.impressions);
          for (const value of Object.values(strip(row))) expect(Number.isInteger(value)).to.equal(true);
        }
      });

      it('reads ad set and ad delivery by their own ids', async () => {
        const [c] = await f.adapter.createObjects(f.account, [
          campaignSpec('Levels', { status: 'ACTIVE', budget: { period: 'daily', amountMinorUnits: 6000 } }),
        ]);
        const [s] = await f.adapter.createObjects(f.account, [adsetSpec(c.id, 'Levels set', { status: 'ACTIVE' })]);
        const [a] = await f.adapter.createObjects(f.account, [await adWithImage(s.id, 'Levels ad', { status: 'ACTIVE' })]);
        const window = await f.deliver([s.id, a.id]);
        const [adset] = await f.adapter.insightsByObject(f.account, 'adset', [s.id], window);
        const [ad] = await f.adapter.insightsByObject(f.account, 'ad', [a.id], window);
        expect(adset.objectId).to.equal(s.id);
        expect(ad.objectId).to.equal(a.id);
        expect(adset.spendMinorUnits).to.be.greaterThan(0);
        expect(ad.spendMinorUnits).to.be.greaterThan(0);
        expect(ad.impressions).to.be.greaterThan(0);
      });
    });

    // What both platforms refuse at create, and so the sandbox too (docs/platforms.md).
    describe('refusals the platforms make at create', () => {
      it('refuses an ad that names no page (Meta) or no identity (TikTok) with invalid_request; nothing is created', async () => {
        const [c] = await f.adapter.createObjects(f.account, [campaignSpec('Speakerless')]);
        const [s] = await f.adapter.createObjects(f.account, [adsetSpec(c.id, 'Set')]);
        const ad = await adWithImage(s.id, 'Nobody', {});
        const { pageId: _p, identityId: _i, identityType: _t, ...settings } = ad.settings;
        // Neither on the ad nor on its account (adapters fall back to the account's).
        const account = { ...f.account, pageId: null, instagramUserId: null, identityId: null, identityType: null };
        const err = await platformErrorOf(f.adapter.createObjects(account, [{ ...ad, settings }]));
        expect(err.kind).to.equal('invalid_request');
        expect(await findOne('ad', ad.marker)).to.equal(null);
      });

      it('refuses an ad set budget under a campaign that has one (budget at one level) with invalid_request', async () => {
        const [c] = await f.adapter.createObjects(f.account, [campaignSpec('Budgeted')]);
        const adset = adsetSpec(c.id, 'Also budgeted', { budget: { period: 'daily', amountMinorUnits: 2000 } });
        const err = await platformErrorOf(f.adapter.createObjects(f.account, [adset]));
        expect(err.kind).to.equal('invalid_request');
        expect(await findOne('adset', adset.marker)).to.equal(null);
      });

      it('answers the codes that are no country as unknown, and none of the real ones asked', async () => {
        expect(await f.adapter.unknownCountries(f.account, ['US', 'XX', 'GB'])).to.deep.equal(['XX']);
      });

      it('finds many markers again in one call, each with its own object', async () => {
        const specs = Array.from({ length: 12 }, (_, i) => campaignSpec(`Many ${i}`));
        const refs = await f.adapter.createObjects(f.account, specs);
        const found = await f.adapter.findCreated(
          f.account,
          'campaign',
          specs.map((x) => x.marker),
        );
        expect(specs.map((x) => found.get(x.marker))).to.deep.equal(refs);
      });
    });
  });
}
