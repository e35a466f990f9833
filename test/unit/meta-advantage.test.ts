// Meta Advantage+ campaigns as pure functions (src/platforms/meta/advantage.ts): each lever from the
// launch (a campaign budget, Advantage+ audience on every ad set, automatic placements), the state Meta
// will report for each objective, the sentences naming the ad sets that hold a lever back, Meta's
// advantage_state_info as read, and the campaign fields asked for by Graph version (the e2e test
// meta-advantage-plus.test.ts runs them over REST in both modes).

import { expect } from 'chai';
import { advantagePlusOf, advantageStateInfoOf } from '../../src/platforms/meta/advantage.js';
import { campaignFields, toCampaign } from '../../src/platforms/meta/mapping.js';

const set = (id: string, properties: Record<string, unknown> = {}, name: string | null = null) => ({ id, name, properties });
const daily = { period: 'daily' };

describe('Meta Advantage+ campaigns: the levers, the state and what Meta answers', () => {
  it('each Advantage+ objective names its own state with every lever on; a lifetime campaign budget counts too', () => {
    for (const [objective, state] of [
      ['OUTCOME_SALES', 'ADVANTAGE_PLUS_SALES'],
      ['OUTCOME_APP_PROMOTION', 'ADVANTAGE_PLUS_APP'],
      ['OUTCOME_LEADS', 'ADVANTAGE_PLUS_LEADS'],
    ]) {
      const view = advantagePlusOf(objective, { period: 'lifetime' }, [
        set('nd_a'),
        set('nd_b', { placements: { automatic: true, positions: ['facebook:feed'] } }),
      ]);
      expect([view.on, view.state], objective).to.deep.equal([true, state]);
    }
    for (const objective of ['OUTCOME_TRAFFIC', 'OUTCOME_AWARENESS', 'OUTCOME_ENGAGEMENT', undefined]) {
      const view = advantagePlusOf(objective, daily, [set('nd_a')]);
      expect([view.on, view.state], String(objective)).to.deep.equal([false, 'DISABLED']);
      expect(view.why).to.match(/sales, app promotion and leads campaigns/);
    }
  });

  it('audience: an ad set with advantageAudience false, or narrowed targeting left to the default, holds it back; interests with advantageAudience true do not', () => {
    const on = advantagePlusOf('OUTCOME_SALES', daily, [
      set('nd_a', { advantageAudience: true, targeting: { countries: ['US'], interests: ['6003107902433'] } }),
    ]);
    expect(on.levers.audience.on).to.equal(true);
    const off = advantagePlusOf('OUTCOME_SALES', daily, [
      set('nd_a', { advantageAudience: false }, 'Off'),
      set('nd_b', { targeting: { countries: ['US'], genders: ['female'] } }),
      set('nd_c'),
    ]);
    expect(off.levers.audience).to.deep.equal({
      on: false,
      why: 'ad sets nd_a (Off), nd_b run without Advantage+ audience (advantageAudience false, or targeting that narrows ages, genders, interests or custom audiences): set advantageAudience true on them where their targeting allows',
    });
  });

  it('a campaign without ad sets has neither audience nor placements on; many ad sets are named five at a time, long names cut', () => {
    const empty = advantagePlusOf('OUTCOME_SALES', daily, []);
    expect([empty.levers.audience.on, empty.levers.placements.on, empty.on]).to.deep.equal([false, false, false]);
    const narrowed = { placements: { positions: ['instagram:stream'] } };
    const many = advantagePlusOf('OUTCOME_SALES', daily, [set('nd_1', narrowed, 'x'.repeat(200)), ...[2, 3, 4, 5, 6, 7].map((n) => set(`nd_${n}`, narrowed))]);
    expect(many.levers.placements.why).to.equal(
      `ad sets nd_1 (${'x'.repeat(59)}…), nd_2, nd_3, nd_4, nd_5 and 2 more name their placements: set placements.automatic true (or leave placements out) for Advantage+ placements`,
    );
    expect(many.why).to.equal('not an Advantage+ campaign: placements is off (see levers)');
  });

  it("reads Meta's advantage_state_info as given, null when absent or partial; asks for it from v22.0 on", () => {
    const info = {
      advantage_state: 'ADVANTAGE_PLUS_APP',
      advantage_budget_state: 'ENABLED',
      advantage_audience_state: 'ENABLED',
      advantage_placement_state: 'ENABLED',
    };
    expect(toCampaign({ id: '1', name: 'C', advantage_state_info: info }).advantageStateInfo).to.deep.equal(info);
    expect(toCampaign({ id: '1', name: 'C' }).advantageStateInfo).to.equal(null);
    expect(advantageStateInfoOf({ advantage_state: 'DISABLED' })).to.equal(null);
    expect(campaignFields(26).split(',')).to.include('advantage_state_info');
    expect(campaignFields(22).split(',')).to.include('advantage_state_info');
    expect(campaignFields(21).split(',')).to.not.include('advantage_state_info');
  });
});
