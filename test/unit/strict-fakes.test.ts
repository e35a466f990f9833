// The fake third-party servers are as strict as the APIs they stand for: a field the real API does
// not document is refused the way that API refuses it, so an adapter that sends the wrong shape fails
// its tests instead of passing against a lenient fake. One row per fake and mistake.

import { expect } from 'chai';
import { KeitaroServer } from '../fakes/keitaro-server.js';
import { FakeMetaServer } from '../fakes/meta-server.js';
import { FakeTikTokServer } from '../fakes/tiktok-server.js';
import { FakeOpenAIServer } from '../fakes/openai-server.js';
import { AgentModelServer } from '../fakes/agent-model-server.js';

interface Row {
  fake: string;
  mistake: string;
  call(): Promise<{ status: number; body: any }>;
  refused(answer: { status: number; body: any }): void;
}

const post = async (url: string, body: unknown, headers: Record<string, string> = {}) => {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
};

describe('strict fakes: each refuses what its real API does not document', function () {
  let keitaro: KeitaroServer;
  let meta: FakeMetaServer;
  let tiktok: FakeTikTokServer;
  let openai: FakeOpenAIServer;
  let agent: AgentModelServer;
  let metaToken: string;
  let tiktokToken: string;

  before(async () => {
    keitaro = await new KeitaroServer('kt_key_0001').start();
    keitaro.campaigns = [{ id: 5, name: 'Offer' }];
    meta = await FakeMetaServer.start();
    metaToken = meta.addAccount('act_100200300');
    tiktok = await FakeTikTokServer.start();
    tiktokToken = tiktok.addAdvertiser('7000000000000000001');
    openai = await new FakeOpenAIServer().start();
    agent = await new AgentModelServer().start();
  });
  after(async () => {
    await Promise.all([keitaro?.close(), meta?.close(), tiktok?.close(), openai?.close(), agent?.close()]);
  });

  const keitaroReport = (body: unknown) => post(`${keitaro.url}/admin_api/v1/report/build`, body, { 'Api-Key': 'kt_key_0001' });
  const range = { from: '2026-03-01', to: '2026-03-02', timezone: 'UTC' };
  const chat = { model: 'm', messages: [{ role: 'user', content: 'hi' }] };

  const rows: Row[] = [
    {
      fake: 'Keitaro',
      mistake: 'report with dimensions/measures',
      call: () => keitaroReport({ range, dimensions: ['campaign_id'], measures: ['clicks'] }),
      refused: (a) => expect(a).to.deep.equal({ status: 400, body: { error: 'Bad request: unknown field "dimensions"' } }),
    },
    {
      fake: 'Keitaro',
      mistake: 'a metric it does not have',
      call: () => keitaroReport({ range, metrics: ['clicks', 'spend'], grouping: ['campaign_id'] }),
      refused: (a) => expect(a.body.error).to.equal('Bad request: unknown metric "spend"'),
    },
    {
      fake: 'Keitaro',
      mistake: 'grouping by a column it does not have',
      call: () => keitaroReport({ range, metrics: ['clicks'], grouping: ['subid3'] }),
      refused: (a) => expect(a.body.error).to.equal('Bad request: unknown column "subid3"'),
    },
    {
      fake: 'Keitaro',
      mistake: 'a range field it does not document',
      call: () => keitaroReport({ range: { ...range, tz: 'UTC' }, metrics: ['clicks'] }),
      refused: (a) => expect(a.body.error).to.equal('Bad request: unknown field "range.tz"'),
    },
    {
      fake: 'Keitaro',
      mistake: 'update_costs with an undocumented field',
      call: () =>
        post(
          `${keitaro.url}/admin_api/v1/campaigns/5/update_costs`,
          { start_date: '2026-03-01 00:00:00', end_date: '2026-03-01 23:59:59', cost: '1.00', currency: 'USD', timezone: 'UTC', mode: 'add' },
          { 'Api-Key': 'kt_key_0001' },
        ),
      refused: (a) => expect(a).to.deep.equal({ status: 400, body: { error: 'Bad request: unknown field "mode"' } }),
    },
    {
      fake: 'Meta Graph API',
      mistake: 'a campaign create with an undocumented parameter',
      call: async () => {
        const form = new URLSearchParams({
          name: 'X',
          objective: 'OUTCOME_SALES',
          special_ad_categories: '[]',
          status: 'PAUSED',
          budget_daily: '500',
          access_token: metaToken,
        });
        const res = await fetch(`${meta.url}/act_100200300/campaigns`, { method: 'POST', body: form });
        return { status: res.status, body: await res.json() };
      },
      refused: (a) => {
        expect(a.status).to.equal(400);
        expect(a.body.error).to.deep.include({ code: 100, message: '(#100) Param budget_daily is not a valid parameter of this call' });
      },
    },
    {
      fake: 'TikTok Business API',
      mistake: 'a campaign create with an undocumented field',
      call: () =>
        post(
          `${tiktok.url}/campaign/create/`,
          { advertiser_id: '7000000000000000001', campaign_name: 'X', objective_type: 'TRAFFIC', budget_mode: 'BUDGET_MODE_INFINITE', daily_budget: 5 },
          { 'Access-Token': tiktokToken },
        ),
      refused: (a) => expect(a.body).to.deep.include({ code: 40002, message: 'daily_budget: Unknown field.' }),
    },
    {
      fake: 'TikTok Business API',
      mistake: 'an ad creative with an undocumented field',
      call: () =>
        post(
          `${tiktok.url}/ad/create/`,
          { advertiser_id: '7000000000000000001', adgroup_id: '1', creatives: [{ ad_name: 'X', headline: 'Y' }] },
          { 'Access-Token': tiktokToken },
        ),
      refused: (a) => expect(a.body).to.deep.include({ code: 40002, message: 'creatives.0.headline: Unknown field.' }),
    },
    {
      fake: 'OpenAI-compatible copy model',
      mistake: 'a body field the API does not document',
      call: () => post(`${openai.url}/chat/completions`, { ...chat, timeout: 8 }),
      refused: (a) =>
        expect(a).to.deep.equal({
          status: 400,
          body: { error: { message: 'Unrecognized request argument supplied: timeout', type: 'invalid_request_error', param: null, code: null } },
        }),
    },
    {
      fake: 'OpenAI-compatible agent model',
      mistake: 'a message field the API does not document',
      call: () => post(`${agent.url}/chat/completions`, { model: 'm', messages: [{ role: 'user', content: 'hi', tool_call_id: 'x' }] }),
      refused: (a) => expect(a.body.error.message).to.equal('Unrecognized request argument supplied: messages[0].tool_call_id'),
    },
  ];

  for (const row of rows) {
    it(`${row.fake} refuses ${row.mistake}`, async () => row.refused(await row.call()));
  }

  it('and takes the documented shapes', async () => {
    expect(
      (
        await keitaroReport({
          range,
          columns: [],
          metrics: ['clicks', 'revenue'],
          grouping: ['campaign_id', 'sub_id_3'],
          filters: [],
          sort: [{ name: 'clicks', order: 'DESC' }],
          limit: 10,
          offset: 0,
        })
      ).status,
    ).to.equal(200);
    openai.script({ kind: 'content', content: 'ok' });
    expect(
      (
        await post(`${openai.url}/chat/completions`, {
          ...chat,
          response_format: { type: 'json_schema', json_schema: { name: 'x', strict: true, schema: {} } },
        })
      ).status,
    ).to.equal(200);
    expect(
      (
        await post(`${agent.url}/chat/completions`, {
          ...chat,
          tools: [{ type: 'function', function: { name: 'f', description: 'd', parameters: {} } }],
          tool_choice: 'auto',
        })
      ).status,
    ).to.equal(200);
  });
});
