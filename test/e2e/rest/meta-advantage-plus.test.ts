// Meta Advantage+ campaigns over REST (live-platforms.md, "Automated campaigns"), in both modes: the
// preview (launch-campaign without confirm) says of each Meta campaign whether it will be an Advantage+
// campaign, with each lever (campaign budget, Advantage+ audience on every ad set, automatic placements)
// on or off and why (the same through the SDK's real MCP Client); the sandbox and the strict fake Graph
// API agree on it. Published, the campaign read
// from the ad account (list-campaigns) carries Meta's advantage_state_info, which says what the preview
// said. No request the service sends carries the legacy smart_promotion_type, and every parameter sent is
// the Meta ledger's.

import crypto from 'node:crypto';
import { expect } from 'chai';
import { dialects } from '../../helpers/databases.js';
import { startWorld, type World } from '../../helpers/world.js';
import { addNode, adProps, adsetProps, brandApi, buildLaunch, idem, type Api, type BuiltLaunch } from '../../helpers/launch-builders.js';
import { RecordingProxy } from '../../helpers/recording-proxy.js';
import { mcpClient, type ToolResult } from '../../helpers/mcp.js';
import { FakeMetaServer, GRAPH_VERSION } from '../../fakes/meta-server.js';
import { ledgerProblems, paramPaths } from '../../../src/platforms/ledger.js';
import { META_LEDGER, META_NEVER_SENT } from '../../../src/platforms/meta/ledger.js';

const PAGE = '100200300400';
const ACCOUNT = { accountId: 'act_1001', currency: 'USD', name: 'Shoes US' };

const world = (token?: string) => ({
  organizations: [
    {
      ref: 'acme',
      name: 'Acme Advantage',
      plan: 'agency',
      subscriptionStatus: 'active',
      users: [{ ref: 'olive', email: 'olive@advantage.test', name: 'Olive Owner', password: 'correct horse 1', role: 'owner' }],
      brands: [
        {
          ref: 'shoes',
          name: 'Shoes',
          adAccounts: [{ platform: 'meta', timezone: 'America/New_York', pageId: PAGE, ...ACCOUNT, ...(token ? { accessToken: token } : {}) }],
        },
      ],
      apiKeys: [
        {
          ref: 'ci',
          name: 'CI key',
          createdBy: 'olive',
          scopes: ['read', 'write', 'publish'],
          surfaces: { api: true, mcp: true },
          publishCeilingDollars: 5000,
        },
      ],
    },
  ],
});

interface Lever {
  on: boolean;
  why: string;
}
interface AdvantagePlus {
  on: boolean;
  state: string;
  levers: { budget: Lever; audience: Lever; placements: Lever };
  why: string;
}

/** The preview's plan (launch-campaign without confirm), 200 required. */
async function preview(api: Api, launchId: string) {
  const reply = await api('POST', `/launches/${launchId}/publish`, {}, idem('advantage-preview'));
  expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
  return reply.body.plan as { campaigns: Array<{ nodeId: string; advantagePlus: AdvantagePlus | null }>; adSets: Array<Record<string, unknown>> };
}

const leverStates = (a: AdvantagePlus) => ({ budget: a.levers.budget.on, audience: a.levers.audience.on, placements: a.levers.placements.on });

for (const [dialect, mode] of dialects().flatMap((d) => (['sandbox', 'live'] as const).map((m) => [d, m] as const))) {
  describe(`Meta Advantage+ campaigns: preview and live read (${mode}, ${dialect})`, function () {
    this.timeout(120_000);
    let w: World;
    let api: Api;
    let meta: FakeMetaServer | undefined;
    let proxy: RecordingProxy | undefined;
    let savedKey: string | undefined;
    /** The launches built below, by what they show. */
    const built: Record<'advantage' | 'narrowed', BuiltLaunch | null> = { advantage: null, narrowed: null };

    before(async () => {
      savedKey = process.env.TOKEN_ENCRYPTION_KEY;
      if (!savedKey) process.env.TOKEN_ENCRYPTION_KEY = crypto.randomBytes(32).toString('base64');
      let token: string | undefined;
      let env: Record<string, string> = {};
      if (mode === 'live') {
        meta = await FakeMetaServer.start();
        token = meta.addAccount(ACCOUNT.accountId, { currency: ACCOUNT.currency });
        proxy = await RecordingProxy.start(meta.url, /^\/v\d+\.\d+/);
        env = { PLATFORM_MODE: 'live', META_GRAPH_URL: proxy.url, TOKEN_ENCRYPTION_KEY: process.env.TOKEN_ENCRYPTION_KEY! };
      }
      w = await startWorld({ dialect, bootstrap: world(token), env });
      api = brandApi(w, w.key('acme', 'ci'), w.brandId('acme', 'shoes'));
    });
    after(async () => {
      await w?.close();
      await proxy?.close();
      await meta?.close();
      if (savedKey === undefined) delete process.env.TOKEN_ENCRYPTION_KEY;
    });

    it('a sales campaign with a campaign budget, Advantage+ audience on every ad set and automatic placements previews as an Advantage+ campaign (ADVANTAGE_PLUS_SALES), every lever on', async () => {
      const b = await buildLaunch(api, {
        title: 'Advantage+ sales',
        campaign: { objective: 'OUTCOME_SALES' },
        adset: { name: 'Broad', advantageAudience: true },
      });
      // A second ad set saying automatic placements outright, Advantage+ audience left to its default (on: nothing narrowed).
      const second = await addNode(api, b.launchId, 'adset', { ...adsetProps, name: 'Automatic', placements: { automatic: true } }, b.campaignId);
      await addNode(api, b.launchId, 'ad', { ...adProps, name: 'Automatic ad' }, second);
      built.advantage = b;
      const plan = await preview(api, b.launchId);
      const [campaign] = plan.campaigns;
      expect(campaign.nodeId).to.equal(b.campaignId);
      const a = campaign.advantagePlus!;
      expect({ on: a.on, state: a.state, levers: leverStates(a) }).to.deep.equal({
        on: true,
        state: 'ADVANTAGE_PLUS_SALES',
        levers: { budget: true, audience: true, placements: true },
      });
      expect(a.why).to.match(/an Advantage\+ campaign \(ADVANTAGE_PLUS_SALES\)/);
      expect(a.levers.budget.why).to.match(/the campaign holds the budget \(daily\)/);
      expect(a.levers.audience.why).to.match(/every ad set has Advantage\+ audience/);
      expect(a.levers.placements.why).to.match(/every ad set uses automatic placements/);
      // Only campaigns carry it.
      for (const s of plan.adSets) expect(s).to.not.have.property('advantagePlus');
    });

    it('narrowed placements on one ad set: the placements lever is off naming that ad set and saying what turns it on; budget and audience stay on; not Advantage+', async () => {
      const b = await buildLaunch(api, {
        title: 'Narrowed placements',
        campaign: { objective: 'OUTCOME_SALES' },
        adset: { name: 'Feeds only', advantageAudience: true, placements: { automatic: false, positions: ['facebook:feed', 'instagram:stream'] } },
      });
      built.narrowed = b;
      const a = (await preview(api, b.launchId)).campaigns[0].advantagePlus!;
      expect({ on: a.on, state: a.state, levers: leverStates(a) }).to.deep.equal({
        on: false,
        state: 'DISABLED',
        levers: { budget: true, audience: true, placements: false },
      });
      expect(a.levers.placements.why).to.equal(
        `ad set ${b.adsetId} (Feeds only) names its placements: set placements.automatic true (or leave placements out) for Advantage+ placements`,
      );
      expect(a.why).to.equal('not an Advantage+ campaign: placements is off (see levers)');
    });

    it('budget on the ad sets and an ad set without Advantage+ audience: the budget and audience levers are off, each saying what to change; placements on', async () => {
      const b = await buildLaunch(api, {
        title: 'Ad set budgets',
        campaign: { objective: 'OUTCOME_LEADS', budget: undefined },
        adset: { name: 'Own budget', optimizationGoal: 'LEAD_GENERATION', promotedObject: { leadFormId: '900100' }, budget: { dailyAmount: 5000 } },
        ad: { callToAction: 'SIGN_UP' },
      });
      const narrow = await addNode(
        api,
        b.launchId,
        'adset',
        {
          ...adsetProps,
          name: 'Narrow',
          optimizationGoal: 'LEAD_GENERATION',
          promotedObject: { leadFormId: '900100' },
          budget: { dailyAmount: 5000 },
          targeting: { countries: ['US'], ageMin: 30, ageMax: 50 },
        },
        b.campaignId,
      );
      await addNode(api, b.launchId, 'ad', { ...adProps, name: 'Narrow ad', callToAction: 'SIGN_UP' }, narrow);
      const a = (await preview(api, b.launchId)).campaigns[0].advantagePlus!;
      expect({ on: a.on, state: a.state, levers: leverStates(a) }).to.deep.equal({
        on: false,
        state: 'DISABLED',
        levers: { budget: false, audience: false, placements: true },
      });
      expect(a.levers.budget.why).to.match(/the budget is on the ad sets, not the campaign: move it to the campaign's budget/);
      expect(a.levers.audience.why).to.match(new RegExp(`^ad set ${narrow} \\(Narrow\\) runs without Advantage\\+ audience .*set advantageAudience true`));
      expect(a.levers.audience.why).to.not.contain(b.adsetId);
      expect(a.why).to.equal('not an Advantage+ campaign: budget and audience are off (see levers)');
    });

    it("the MCP tool launch_campaign (the SDK's real Client) previews the same advantagePlus as REST", async () => {
      const b = built.narrowed!;
      const rest = (await preview(api, b.launchId)).campaigns[0].advantagePlus;
      const mcp = await mcpClient(w.url, w.key('acme', 'ci'));
      try {
        const result = (await mcp.callTool({
          name: 'launch_campaign',
          arguments: { brandId: w.brandId('acme', 'shoes'), launchId: b.launchId, idempotencyKey: `advantage-mcp-${mode}-${dialect}` },
        })) as ToolResult;
        expect(result.isError, JSON.stringify(result)).to.not.equal(true);
        expect((result.structuredContent as any).plan.campaigns[0].advantagePlus).to.deep.equal(rest);
      } finally {
        await mcp.close();
      }
    });

    it("a traffic campaign with every lever on is not an Advantage+ campaign: Meta's Advantage+ campaigns are sales, app promotion and leads", async () => {
      const b = await buildLaunch(api, { title: 'Traffic' });
      const a = (await preview(api, b.launchId)).campaigns[0].advantagePlus!;
      expect({ on: a.on, state: a.state, levers: leverStates(a) }).to.deep.equal({
        on: false,
        state: 'DISABLED',
        levers: { budget: true, audience: true, placements: true },
      });
      expect(a.why).to.match(/sales, app promotion and leads campaigns .* this one is OUTCOME_TRAFFIC/);
    });

    it("published, the campaigns read from the ad account (list-campaigns) carry Meta's advantage_state_info, saying what their previews said", async () => {
      const platformIdOf = async (b: BuiltLaunch) => {
        const published = await api('POST', `/launches/${b.launchId}/publish`, { confirm: true }, idem('advantage-publish'));
        expect(published.status, JSON.stringify(published.body)).to.equal(200);
        // The published plan keeps saying what the preview said.
        expect(published.body.plan.campaigns[0].advantagePlus.state).to.be.a('string');
        return published.body.plan.campaigns[0].platformId as string;
      };
      const advantageId = await platformIdOf(built.advantage!);
      const narrowedId = await platformIdOf(built.narrowed!);
      const list = await api('GET', '/ad-accounts/act_1001/campaigns?limit=100');
      expect(list.status, JSON.stringify(list.body)).to.equal(200);
      const byId = new Map(list.body.campaigns.map((c: { id: string }) => [c.id, c]));
      expect((byId.get(advantageId) as Record<string, unknown>).advantage_state_info).to.deep.equal({
        advantage_state: 'ADVANTAGE_PLUS_SALES',
        advantage_budget_state: 'ENABLED',
        advantage_audience_state: 'ENABLED',
        advantage_placement_state: 'ENABLED',
      });
      expect((byId.get(narrowedId) as Record<string, unknown>).advantage_state_info).to.deep.equal({
        advantage_state: 'DISABLED',
        advantage_budget_state: 'ENABLED',
        advantage_audience_state: 'ENABLED',
        advantage_placement_state: 'DISABLED',
      });
      if (mode === 'live') {
        // Asked of Meta with the campaign fields (Campaign advantage_state_info, v22.0 on).
        const reads = proxy!.to(/^\/act_1001\/campaigns$/, 'GET');
        expect(reads.length).to.be.greaterThan(0);
        expect(String(reads[reads.length - 1].params.fields).split(',')).to.include('advantage_state_info');
      }
    });

    if (mode === 'live') {
      it(`no request the service sent carries smart_promotion_type, and every parameter sent is the Meta ledger's for ${GRAPH_VERSION}`, () => {
        const history = proxy!.history;
        expect(history.length).to.be.greaterThan(10);
        const never = new Set(META_NEVER_SENT.map((e) => e.field));
        const carrying = history.filter((r) => paramPaths(r.params).some((p) => never.has(p.split('.')[0].replace(/\[\]$/, ''))));
        expect(carrying.map((r) => `${r.method} ${r.path}`)).to.deep.equal([]);
        // The ledger lists none of what is never sent, so its test refuses it too.
        for (const field of never) expect(META_LEDGER.map((e) => e.field)).to.not.include(field);
        const problems = ledgerProblems(META_LEDGER, history, GRAPH_VERSION);
        expect(problems, problems.join('\n')).to.deep.equal([]);
      });
    }
  });
}
