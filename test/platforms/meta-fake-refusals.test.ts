// The fake Graph API refuses each class of bad request the way Graph does ({error: {message, type,
// code, fbtrace_id}}, code 100 naming the field in blame_field_specs; 104, 2635 and throttles with
// their own codes): one row per case, from the generated spec data and the cited reference rules.

import { expect } from 'chai';
import { FakeMetaServer, GRAPH_VERSION, MAX_PAGE_SIZE } from '../fakes/meta-server.js';

interface Row {
  refuses: string;
  method?: 'GET' | 'POST';
  path: string | (() => string);
  params: Record<string, unknown> | (() => Record<string, unknown>);
  token?: false;
  version?: string;
  code: number;
  /** The field named in error_data.blame_field_specs (code 100). */
  field?: string;
  /** Meta's error_subcode, where Meta gives one. */
  subcode?: number;
  message: string;
}

const ACT = 'act_2002';
const LINK = 'https://shop.example.com/spring';

describe('the fake Graph API refuses each class of bad request in Graph error format', function () {
  let fake: FakeMetaServer;
  let token: string;
  const ids = { budgeted: '', unbudgeted: '', adset: '', leads: '', leadSet: '', tight: '', own: '' };
  const AUTO = { targeting_automation: { advantage_audience: 0 } };

  const call = async (method: string, path: string, params: Record<string, unknown>, options: { token?: false; version?: string } = {}) => {
    const form = new URLSearchParams();
    for (const [k, v] of Object.entries(params)) form.set(k, typeof v === 'string' ? v : JSON.stringify(v));
    if (options.token !== false) form.set('access_token', token);
    const base = options.version ? fake.url.replace(GRAPH_VERSION, options.version) : fake.url;
    const res =
      method === 'GET'
        ? await fetch(`${base}${path}?${form}`)
        : await fetch(`${base}${path}`, { method, headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form.toString() });
    return { status: res.status, headers: res.headers, body: (await res.json()) as any };
  };

  before(async () => {
    fake = await FakeMetaServer.start();
    token = fake.addAccount(ACT);
    ids.budgeted = fake.seedCampaign(ACT, { name: 'Budgeted', dailyBudget: 5000 });
    ids.unbudgeted = fake.seedCampaign(ACT, { name: 'Unbudgeted' });
    ids.leads = fake.seedCampaign(ACT, { name: 'Leads', objective: 'OUTCOME_LEADS', dailyBudget: 5000 });
    ids.tight = fake.seedCampaign(ACT, { name: 'Tight', dailyBudget: 300 });
    const adset = await call('POST', `/${ACT}/adsets`, {
      name: 'Set',
      campaign_id: ids.budgeted,
      billing_event: 'IMPRESSIONS',
      optimization_goal: 'LINK_CLICKS',
      targeting: { geo_locations: { countries: ['US'] }, ...AUTO },
    });
    expect(adset.status, JSON.stringify(adset.body)).to.equal(200);
    ids.adset = adset.body.id;
    const leadSet = await call('POST', `/${ACT}/adsets`, {
      name: 'Lead set',
      campaign_id: ids.leads,
      billing_event: 'IMPRESSIONS',
      optimization_goal: 'LEAD_GENERATION',
      destination_type: 'ON_AD',
      promoted_object: { page_id: '100200300400' },
      targeting: { geo_locations: { countries: ['US'] }, ...AUTO },
    });
    expect(leadSet.status, JSON.stringify(leadSet.body)).to.equal(200);
    ids.leadSet = leadSet.body.id;
    const own = await call('POST', `/${ACT}/adsets`, {
      name: 'Own budget',
      campaign_id: ids.unbudgeted,
      billing_event: 'IMPRESSIONS',
      optimization_goal: 'LINK_CLICKS',
      daily_budget: '1000',
      targeting: { geo_locations: { countries: ['US'] }, ...AUTO },
    });
    expect(own.status, JSON.stringify(own.body)).to.equal(200);
    ids.own = own.body.id;
  });
  after(async () => fake?.close());

  const campaign = (extra: Record<string, unknown> = {}) => ({
    name: 'C',
    objective: 'OUTCOME_TRAFFIC',
    special_ad_categories: [],
    daily_budget: '5000',
    ...extra,
  });
  const adset = (extra: Record<string, unknown> = {}) => ({
    name: 'S',
    campaign_id: ids.budgeted,
    billing_event: 'IMPRESSIONS',
    optimization_goal: 'LINK_CLICKS',
    targeting: { geo_locations: { countries: ['US'] }, ...AUTO },
    ...extra,
  });
  const targeting = (extra: Record<string, unknown>) => ({ geo_locations: { countries: ['US'] }, ...AUTO, ...extra });
  const ad = (story: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
    name: 'A',
    adset_id: ids.adset,
    creative: { object_story_spec: story },
    ...extra,
  });
  const linkStory = (extra: Record<string, unknown> = {}) => ({ page_id: '100200300400', link_data: { link: LINK, ...extra } });

  const rows: Row[] = [
    {
      refuses: 'an unknown parameter',
      path: `/${ACT}/campaigns`,
      params: () => campaign({ budget: '5000' }),
      code: 100,
      field: 'budget',
      message: 'not a valid parameter',
    },
    {
      refuses: 'a wrongly typed parameter (money is whole minor units)',
      path: `/${ACT}/campaigns`,
      params: () => campaign({ daily_budget: '50.00' }),
      code: 100,
      field: 'daily_budget',
      message: 'non-negative integer',
    },
    {
      refuses: 'a missing required parameter',
      path: `/${ACT}/campaigns`,
      params: { name: 'C', objective: 'OUTCOME_TRAFFIC', daily_budget: '5000' },
      code: 100,
      field: 'special_ad_categories',
      message: 'is required',
    },
    {
      refuses: 'a value outside its enum',
      path: `/${ACT}/campaigns`,
      params: () => campaign({ objective: 'SALES' }),
      code: 100,
      field: 'objective',
      message: 'OUTCOME_TRAFFIC',
    },
    {
      refuses: 'an unknown field inside a typed parameter (Targeting)',
      path: `/${ACT}/adsets`,
      params: () => adset({ targeting: { geo_location: { countries: ['US'] } } }),
      code: 100,
      field: 'targeting.geo_location',
      message: 'not a valid field of Targeting',
    },
    {
      refuses: 'a nested value outside its enum (call_to_action.type)',
      path: `/${ACT}/ads`,
      params: () => ad(linkStory({ call_to_action: { type: 'BUY_IT_NOW_PLEASE' } })),
      code: 100,
      field: 'creative.object_story_spec.link_data.call_to_action.type',
      message: 'must be one of',
    },
    {
      refuses: 'a page size over the cap',
      method: 'GET',
      path: `/${ACT}/campaigns`,
      params: { fields: 'id,name', limit: String(MAX_PAGE_SIZE + 1) },
      code: 100,
      field: 'limit',
      message: `at most ${MAX_PAGE_SIZE}`,
    },
    {
      refuses: 'a request without a token',
      method: 'GET',
      path: `/${ACT}/campaigns`,
      params: {},
      token: false,
      code: 104,
      message: 'access token is required',
    },
    {
      refuses: 'a creative without page_id',
      path: `/${ACT}/ads`,
      params: () => ad({ link_data: { link: LINK } }),
      code: 100,
      field: 'creative.object_story_spec.page_id',
      message: 'page_id is required',
    },
    {
      refuses: 'an image_hash not uploaded to the account',
      path: `/${ACT}/ads`,
      params: () => ad(linkStory({ image_hash: 'feedfacefeedfacefeedfacefeedface' })),
      code: 100,
      field: 'creative.object_story_spec.link_data.image_hash',
      message: "not in this ad account's image library",
    },
    {
      refuses: 'video_data naming a video the account does not have',
      path: `/${ACT}/ads`,
      params: () => ad({ page_id: '100200300400', video_data: { video_id: '999', image_url: 'https://x.example/t.jpg' } }),
      code: 100,
      field: 'creative.object_story_spec.video_data.video_id',
      message: 'video of this ad account',
    },
    {
      refuses: 'an ad set budget under a campaign budget',
      path: `/${ACT}/adsets`,
      params: () => adset({ daily_budget: '2000' }),
      code: 100,
      field: 'daily_budget',
      message: 'campaign budget',
    },
    {
      refuses: 'an ad set without a budget under a campaign without one',
      path: `/${ACT}/adsets`,
      params: () => adset({ campaign_id: ids.unbudgeted }),
      code: 100,
      field: 'daily_budget',
      message: 'needs daily_budget or lifetime_budget',
    },
    {
      refuses: 'a campaign without a budget that does not say is_adset_budget_sharing_enabled (v24+)',
      path: `/${ACT}/campaigns`,
      params: { name: 'C', objective: 'OUTCOME_TRAFFIC', special_ad_categories: [] },
      code: 100,
      field: 'is_adset_budget_sharing_enabled',
      message: 'is_adset_budget_sharing_enabled',
    },
    {
      refuses: 'an ad set without geo_locations',
      path: `/${ACT}/adsets`,
      params: () => adset({ targeting: { age_min: 18 } }),
      code: 100,
      field: 'targeting.geo_locations',
      message: 'geo_locations is required',
    },
    {
      refuses: 'an ad set without billing_event',
      path: `/${ACT}/adsets`,
      params: () => {
        const { billing_event: _dropped, ...rest } = adset();
        return rest;
      },
      code: 100,
      field: 'billing_event',
      message: 'billing_event is required',
    },
    {
      refuses: 'an optimization goal the objective does not take',
      path: `/${ACT}/adsets`,
      params: () => adset({ optimization_goal: 'THRUPLAY' }),
      code: 100,
      field: 'optimization_goal',
      message: 'not valid for objective OUTCOME_TRAFFIC',
    },
    {
      refuses: 'a billing event the optimization goal does not take',
      path: `/${ACT}/adsets`,
      params: () => adset({ optimization_goal: 'LANDING_PAGE_VIEWS', billing_event: 'LINK_CLICKS' }),
      code: 100,
      field: 'billing_event',
      message: 'not valid with optimization_goal LANDING_PAGE_VIEWS',
    },
    {
      refuses: 'an ad label named by neither id nor name',
      path: `/${ACT}/campaigns`,
      params: () => campaign({ adlabels: [{ label: 'x' }] }),
      code: 100,
      field: 'adlabels.0',
      message: 'by id or name',
    },
    {
      refuses: 'an image upload that is not base64',
      path: `/${ACT}/adimages`,
      params: { bytes: 'not base64!' },
      code: 100,
      field: 'bytes',
      message: 'base64',
    },
    {
      refuses: 'a batch of more than 50 requests',
      path: '/',
      params: { batch: Array.from({ length: 51 }, () => ({ method: 'GET', relative_url: `${ACT}/campaigns` })) },
      code: 100,
      message: 'Maximum batch size is 50',
    },
    // The rules the specification leaves out (meta-left-out.ts, each with its source).
    {
      refuses: 'an ad set without targeting_automation.advantage_audience (v23.0+)',
      path: `/${ACT}/adsets`,
      params: () => adset({ targeting: { geo_locations: { countries: ['US'] }, age_min: 25 } }),
      code: 100,
      field: 'targeting.targeting_automation.advantage_audience',
      message: 'advantage_audience must be set to 0 or 1',
    },
    {
      refuses: 'an ad set targeting an EU country without dsa_beneficiary',
      path: `/${ACT}/adsets`,
      params: () => adset({ targeting: { geo_locations: { countries: ['US', 'DE'] }, ...AUTO } }),
      code: 100,
      field: 'dsa_beneficiary',
      subcode: 3858079,
      message: 'beneficiary',
    },
    {
      refuses: 'an ad set targeting an EU country without dsa_payor',
      path: `/${ACT}/adsets`,
      params: () => adset({ dsa_beneficiary: 'Shoes Co GmbH', targeting: { geo_locations: { countries: ['FR'] }, ...AUTO } }),
      code: 100,
      field: 'dsa_payor',
      subcode: 3858081,
      message: 'payer',
    },
    {
      refuses: 'custom audiences that are not a list of {id}',
      path: `/${ACT}/adsets`,
      params: () => adset({ targeting: targeting({ custom_audiences: ['23850000000000001'] }) }),
      code: 100,
      field: 'targeting.custom_audiences',
      message: 'list of {id}',
    },
    {
      refuses: 'excluded audiences that are not a list of {id}',
      path: `/${ACT}/adsets`,
      params: () => adset({ targeting: targeting({ excluded_custom_audiences: [{ name: 'Buyers' }] }) }),
      code: 100,
      field: 'targeting.excluded_custom_audiences',
      message: 'list of {id}',
    },
    {
      refuses: 'positions of a publisher platform the ad set does not list',
      path: `/${ACT}/adsets`,
      params: () => adset({ targeting: targeting({ publisher_platforms: ['facebook'], instagram_positions: ['story'] }) }),
      code: 100,
      field: 'targeting.instagram_positions',
      message: 'needs instagram in targeting.publisher_platforms',
    },
    {
      refuses: "a position that is not one of the platform's",
      path: `/${ACT}/adsets`,
      params: () => adset({ targeting: targeting({ publisher_platforms: ['facebook'], facebook_positions: ['reels'] }) }),
      code: 100,
      field: 'targeting.facebook_positions',
      message: 'reels is not a position of facebook',
    },
    {
      refuses: 'an instant-form ad set without destination_type ON_AD',
      path: `/${ACT}/adsets`,
      params: () => adset({ campaign_id: ids.leads, optimization_goal: 'LEAD_GENERATION' }),
      code: 100,
      field: 'destination_type',
      message: 'destination_type ON_AD',
    },
    {
      refuses: 'an instant-form ad set without promoted_object.page_id',
      path: `/${ACT}/adsets`,
      params: () => adset({ campaign_id: ids.leads, optimization_goal: 'LEAD_GENERATION', destination_type: 'ON_AD' }),
      code: 100,
      field: 'promoted_object.page_id',
      message: 'promoted_object.page_id',
    },
    {
      refuses: 'an ad of an instant-form ad set without its lead form ("Missing Lead Form")',
      path: `/${ACT}/ads`,
      params: () => ad(linkStory({ call_to_action: { type: 'SIGN_UP', value: { link: LINK } } }), { adset_id: ids.leadSet }),
      code: 100,
      field: 'creative.object_story_spec.link_data.call_to_action.value.lead_gen_form_id',
      subcode: 3390001,
      message: 'lead_gen_form_id',
    },
    {
      refuses: 'special ad category CREDIT (replaced by FINANCIAL_PRODUCTS_SERVICES)',
      path: `/${ACT}/campaigns`,
      params: () => campaign({ special_ad_categories: ['CREDIT'], special_ad_category_country: ['US'] }),
      code: 100,
      field: 'special_ad_categories',
      message: 'FINANCIAL_PRODUCTS_SERVICES',
    },
    {
      refuses: 'special ad categories without special_ad_category_country',
      path: `/${ACT}/campaigns`,
      params: () => campaign({ special_ad_categories: ['HOUSING'] }),
      code: 100,
      field: 'special_ad_category_country',
      message: 'special_ad_category_country',
    },
    {
      refuses: 'an ad set daily budget under the minimum for its goal ("Budget Is Too Low")',
      path: `/${ACT}/adsets`,
      params: () => adset({ campaign_id: ids.unbudgeted, daily_budget: '300' }),
      code: 100,
      field: 'daily_budget',
      subcode: 1885272,
      message: 'at least 5.00 USD for optimization goal LINK_CLICKS',
    },
    {
      refuses: "a campaign budget under the sum of its ad sets' minimums",
      path: `/${ACT}/adsets`,
      params: () => adset({ campaign_id: ids.tight }),
      code: 100,
      field: 'daily_budget',
      subcode: 1885272,
      message: 'at least 5.00 USD for its ad sets',
    },
    {
      refuses: "an ad set's daily budget changed to below the minimum for its goal",
      path: () => `/${ids.own}`,
      params: { daily_budget: '300' },
      code: 100,
      field: 'daily_budget',
      subcode: 1885272,
      message: 'at least 5.00 USD',
    },
    {
      refuses: 'a Graph version past its end',
      method: 'GET',
      path: `/${ACT}/campaigns`,
      params: {},
      version: 'v21.0',
      code: 2635,
      message: `latest version: ${GRAPH_VERSION}`,
    },
  ];

  for (const row of rows) {
    it(`refuses ${row.refuses}`, async () => {
      const path = typeof row.path === 'function' ? row.path() : row.path;
      const params = typeof row.params === 'function' ? row.params() : row.params;
      const answer = await call(row.method ?? 'POST', path, params, { token: row.token, version: row.version });
      expect(answer.status).to.equal(400);
      const error = answer.body.error;
      expect(error).to.include({ type: 'OAuthException', code: row.code });
      expect(error.fbtrace_id).to.match(/^[0-9a-f]{16}$/);
      expect(error.message).to.contain(row.message);
      if (row.field) expect(error.error_data.blame_field_specs).to.deep.equal([row.field.split('.')]);
      if (row.subcode) expect(error.error_subcode).to.equal(row.subcode);
    });
  }

  it('takes what the rules ask for: the flag, DSA fields, {id} audiences, placements, a lead form, a category country, budgets at the minimum', async () => {
    const accepted = [
      await call('POST', `/${ACT}/adsets`, adset({ campaign_id: ids.unbudgeted, daily_budget: '500' })),
      await call(
        'POST',
        `/${ACT}/adsets`,
        adset({
          dsa_beneficiary: 'Shoes Co GmbH',
          dsa_payor: 'Shoes Co GmbH',
          targeting: targeting({
            geo_locations: { countries: ['DE'] },
            custom_audiences: [{ id: '23850000000000001' }],
            excluded_custom_audiences: [{ id: '23850000000000002' }],
            publisher_platforms: ['facebook', 'instagram'],
            facebook_positions: ['feed'],
            instagram_positions: ['story', 'reels'],
          }),
        }),
      ),
      await call('POST', `/${ACT}/ads`, ad(linkStory({ call_to_action: { type: 'SIGN_UP', value: { lead_gen_form_id: '555' } } }), { adset_id: ids.leadSet })),
      await call('POST', `/${ACT}/campaigns`, campaign({ special_ad_categories: ['FINANCIAL_PRODUCTS_SERVICES'], special_ad_category_country: ['US'] })),
    ];
    for (const a of accepted) expect(a.status, JSON.stringify(a.body)).to.equal(200);
    for (const a of accepted) fake.objects.delete(a.body.id);
  });

  it("answers the account's minimum budgets and DSA defaults", async () => {
    const minimums = await call('GET', `/${ACT}/minimum_budgets`, {});
    expect(minimums.body.data[0]).to.deep.include({ currency: 'USD', min_daily_budget_high_freq: 500, min_daily_budget_imp: 100 });
    expect((await call('GET', `/${ACT}`, { fields: 'default_dsa_beneficiary,default_dsa_payor' })).body).to.deep.equal({ id: ACT });
    fake.setDsaDefaults(ACT, { beneficiary: 'Shoes Co GmbH', payor: 'Shoes Co Holding' });
    expect((await call('GET', `/${ACT}`, { fields: 'default_dsa_beneficiary,default_dsa_payor' })).body).to.deep.equal({
      id: ACT,
      default_dsa_beneficiary: 'Shoes Co GmbH',
      default_dsa_payor: 'Shoes Co Holding',
    });
    fake.setDsaDefaults(ACT, {});
  });

  it('creates nothing for any refused request', () => {
    expect(fake.objectsOf(ACT).map((o) => o.name)).to.deep.equal(['Budgeted', 'Unbudgeted', 'Leads', 'Tight', 'Set', 'Lead set', 'Own budget']);
    expect(fake.labelsOf(ACT)).to.deep.equal([]);
  });

  it('answers a throttle with its code and the wait in X-Business-Use-Case-Usage and X-Ad-Account-Usage', async () => {
    fake.throttleNext(1, { code: 80004, minutes: 3 });
    const buc = await call('GET', `/${ACT}/campaigns`, {});
    expect([buc.status, buc.body.error.code]).to.deep.equal([400, 80004]);
    expect(JSON.parse(buc.headers.get('x-business-use-case-usage')!)['2002'][0].estimated_time_to_regain_access).to.equal(3);
    fake.throttleNext(1, { code: 17, seconds: 20 });
    const account = await call('GET', `/${ACT}/campaigns`, {});
    expect(account.body.error.code).to.equal(17);
    expect(JSON.parse(account.headers.get('x-ad-account-usage')!).reset_time_duration).to.equal(20);
  });
});
