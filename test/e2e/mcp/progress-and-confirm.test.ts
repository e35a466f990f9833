// Long tools report progress, and a person confirms before money moves, through the SDK's real
// Client over Streamable HTTP and over the stdio bridge: notifications/progress during a publish
// (and a template apply, an automation run) when the call carries a progressToken; with the
// elicitation capability, launch_campaign and edit_live_campaign ask first and act only on accept.

import { expect } from 'chai';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ElicitRequestSchema, type ElicitRequest, type ElicitResult, type Progress } from '@modelcontextprotocol/sdk/types.js';
import { mcpClient, stdioMcpClient, type ToolResult } from '../../helpers/mcp.js';
import { brandApi, buildLaunch, planFingerprintOf, publish, uploadCreative } from '../../helpers/launch-builders.js';
import { templateBody, templatesWorld } from '../../helpers/structure-templates.js';
import { startWorld, type World } from '../../helpers/world.js';

let seq = 0;
const key = (what: string) => `${what}-${process.pid}-${seq++}`;

interface Transport {
  name: string;
  connect(w: World, apiKey: string, elicitation: boolean): Promise<Client>;
}

const transports: Transport[] = [
  { name: 'Streamable HTTP', connect: (w, apiKey, elicitation) => mcpClient(w.url, apiKey, { capabilities: elicitation ? { elicitation: {} } : {} }) },
  {
    name: 'stdio bridge (svc mcp)',
    connect: (w, apiKey, elicitation) => stdioMcpClient(w.url, apiKey, ['--toolsets', 'all'], elicitation ? { elicitation: {} } : {}),
  },
];

/** Progress must only grow, end at its total, and say what it did. */
function expectOrderly(updates: Progress[], last: string): void {
  expect(updates.length, JSON.stringify(updates)).to.be.at.least(2);
  for (let i = 1; i < updates.length; i++) expect(updates[i].progress, JSON.stringify(updates)).to.be.greaterThan(updates[i - 1].progress);
  const end = updates[updates.length - 1];
  expect(end.progress).to.equal(end.total);
  expect(end.message).to.equal(last);
  expect(updates.every((u) => typeof u.message === 'string' && u.message.length > 0)).to.equal(true);
}

describe('MCP progress and human confirmation', function () {
  this.timeout(60_000);
  let w: World;
  let shoes: number;
  let creativeId: number;
  before(async () => {
    // A ceiling that many publishes fit under.
    const world = templatesWorld();
    world.organizations[0].apiKeys.find((k: { ref: string }) => k.ref === 'ci').publishCeilingDollars = 5000;
    w = await startWorld({ dialect: 'sqlite', bootstrap: world });
    shoes = w.brandId('acme', 'shoes');
    creativeId = await uploadCreative(w, w.key('acme', 'ci'), shoes);
  });
  after(async () => w?.close());

  const api = () => brandApi(w, w.key('acme', 'ci'), shoes);
  const committed = async () => (await w.service.knex('api_keys').where({ id: w.seed.organizations.acme.apiKeys.ci.id }).first()).committed_cents as number;
  const launchStatus = async (launchId: string) => (await api()('GET', `/launches/${launchId}`)).body.status as string;

  for (const transport of transports) {
    describe(transport.name, () => {
      it('sends notifications/progress during a publish that carries a progressToken, then the published answer', async () => {
        const built = await buildLaunch(api(), { creativeId, ads: 3 });
        const client = await transport.connect(w, w.key('acme', 'ci'), false);
        const updates: Progress[] = [];
        try {
          // A client that cannot ask its user confirms with the plan it showed.
          const planFingerprint = await planFingerprintOf(api(), built.launchId);
          const result = (await client.callTool(
            {
              name: 'launch_campaign',
              arguments: { brandId: shoes, launchId: built.launchId, confirm: true, planFingerprint, idempotencyKey: key('progress') },
            },
            undefined,
            { onprogress: (p) => updates.push(p) },
          )) as ToolResult;
          expect(result.isError, JSON.stringify(result)).to.not.equal(true);
          expect(result.structuredContent).to.include({ confirmed: true, status: 'published' });
        } finally {
          await client.close();
        }
        // One campaign, one ad set, three ads, then activation and bookkeeping. The SDK's stdio client drops
        // the notifications that reach it in the same read as the answer (it handles them a tick later, when
        // the call is over), so over stdio only the first, sent before any platform call, is sure to arrive.
        if (transport.name === 'Streamable HTTP') expectOrderly(updates, 'Activating the campaigns and recording the publish');
        for (let i = 1; i < updates.length; i++) expect(updates[i].progress).to.be.greaterThan(updates[i - 1].progress);
        expect(updates.every((u) => u.total === 6)).to.equal(true);
        expect(updates[0]).to.deep.include({ progress: 0, message: 'Creating 5 objects on the ad platform' });
      });

      it('asks the person before publishing and publishes on accept; the question names each account, its amount and the ceiling left', async () => {
        const built = await buildLaunch(api(), { creativeId });
        const before = await committed();
        const client = await transport.connect(w, w.key('acme', 'ci'), true);
        const asked: ElicitRequest['params'][] = [];
        client.setRequestHandler(ElicitRequestSchema, async (request): Promise<ElicitResult> => {
          asked.push(request.params);
          // Nothing is published while the person decides.
          expect(await launchStatus(built.launchId)).to.equal('draft');
          return { action: 'accept', content: { publish: true } };
        });
        try {
          const result = (await client.callTool({
            name: 'launch_campaign',
            arguments: { brandId: shoes, launchId: built.launchId, confirm: true, idempotencyKey: key('accept') },
          })) as ToolResult;
          expect(result.isError, JSON.stringify(result)).to.not.equal(true);
          expect(result.structuredContent).to.include({ confirmed: true, status: 'published' });
        } finally {
          await client.close();
        }
        expect(asked).to.have.length(1);
        const message = (asked[0] as { message: string }).message;
        // campaignProps' daily budget is 5000 cents on act_1001 (USD).
        expect(message).to.contain(`Publish launch ${built.launchId}`);
        expect(message).to.match(/act_1001: 5000 minor units|act_1001: 50\.00 USD/);
        expect(message).to.match(/Publish ceiling left: [\d,]+\.\d\d USD \(of 5,000\.00 USD\)/);
        expect((asked[0] as { requestedSchema: any }).requestedSchema.properties.publish.type).to.equal('boolean');
        expect(await launchStatus(built.launchId)).to.equal('published');
        expect(await committed()).to.equal(before + 5000);
      });

      for (const answer of [
        { action: 'decline' } as ElicitResult,
        { action: 'cancel' } as ElicitResult,
        { action: 'accept', content: { publish: false } } as ElicitResult,
      ]) {
        it(`publishes nothing when the person answers ${JSON.stringify(answer)}, and says so in a normal result`, async () => {
          const built = await buildLaunch(api(), { creativeId });
          const before = await committed();
          const client = await transport.connect(w, w.key('acme', 'ci'), true);
          client.setRequestHandler(ElicitRequestSchema, async () => answer);
          let result: ToolResult;
          try {
            result = (await client.callTool({
              name: 'launch_campaign',
              arguments: { brandId: shoes, launchId: built.launchId, confirm: true, idempotencyKey: key('decline') },
            })) as ToolResult;
          } finally {
            await client.close();
          }
          expect(result.isError).to.not.equal(true);
          expect(result.structuredContent).to.include({ confirmed: false, status: 'draft' });
          expect(result.structuredContent.warnings.at(-1)).to.deep.include({ field: 'confirm' });
          expect(result.structuredContent.warnings.at(-1).message).to.match(
            /^Nothing was published: the person (declined|dismissed the question|did not tick the box to go ahead)\.$/,
          );
          expect(JSON.parse(result.content[0].text!)).to.deep.equal(result.structuredContent);
          expect(result.content[1].text).to.match(/^Nothing was published/);
          expect(await launchStatus(built.launchId)).to.equal('draft');
          expect(await committed()).to.equal(before);
        });
      }

      it('asks before a live budget change with the current and new budget, and changes nothing on decline', async () => {
        const built = await buildLaunch(api(), { creativeId });
        await publish(api(), built.launchId);
        const before = await committed();
        const client = await transport.connect(w, w.key('acme', 'ci'), true);
        const asked: string[] = [];
        let answer: ElicitResult = { action: 'decline' };
        client.setRequestHandler(ElicitRequestSchema, async (request) => {
          asked.push((request.params as { message: string }).message);
          return answer;
        });
        const edit = (amount: number) =>
          client.callTool({
            name: 'edit_live_campaign',
            arguments: {
              brandId: shoes,
              launchId: built.launchId,
              nodeId: built.campaignId,
              level: 'CAMPAIGN',
              budgetType: 'daily',
              amount,
              idempotencyKey: key('edit'),
            },
          }) as Promise<ToolResult>;
        try {
          const declined = await edit(7000);
          expect(declined.isError).to.not.equal(true);
          expect(declined.structuredContent).to.deep.include({
            nodeId: built.campaignId,
            level: 'CAMPAIGN',
            budget: { period: 'daily', amountMinorUnits: 5000 },
          });
          expect(declined.content[1].text).to.equal('Nothing was changed: the person declined.');
          expect(await committed()).to.equal(before);
          answer = { action: 'accept', content: { publish: true } };
          const accepted = await edit(8000);
          expect(accepted.isError, JSON.stringify(accepted)).to.not.equal(true);
          expect(accepted.structuredContent.budget).to.deep.equal({ period: 'daily', amountMinorUnits: 8000 });
        } finally {
          await client.close();
        }
        expect(asked).to.have.length(2);
        expect(asked[0]).to.match(/Now: (5000 minor units|50\.00 USD) daily\. New: (7000 minor units|70\.00 USD) daily/);
        expect(asked[0]).to.match(/Publish ceiling left: [\d,]+\.\d\d USD/);
        expect(await committed()).to.equal(before + 8000);
      });
    });
  }

  it('a client that cannot be asked publishes only with the plan it showed: confirm without it answers the preview and its planFingerprint, then publishes with it', async () => {
    const built = await buildLaunch(api(), { creativeId });
    const before = await committed();
    const client = await mcpClient(w.url, w.key('acme', 'ci'));
    const unnamed = (await client.callTool({
      name: 'launch_campaign',
      arguments: { brandId: shoes, launchId: built.launchId, confirm: true, idempotencyKey: key('go') },
    })) as ToolResult;
    expect(unnamed.isError).to.not.equal(true);
    expect(unnamed.structuredContent).to.include({ confirmed: false, status: 'draft' });
    const planFingerprint = unnamed.structuredContent.planFingerprint;
    expect(planFingerprint).to.be.a('string');
    const said = unnamed.content.map((c) => c.text).join('\n');
    expect(said)
      .to.contain('cannot ask its user')
      .and.to.contain(`planFingerprint: "${planFingerprint}"`)
      .and.to.match(/act_1001: \d+\.\d\d USD/);
    expect(await launchStatus(built.launchId)).to.equal('draft');
    expect(await committed()).to.equal(before);
    const done = (await client.callTool({
      name: 'launch_campaign',
      arguments: { brandId: shoes, launchId: built.launchId, confirm: true, planFingerprint, idempotencyKey: key('go2') },
    })) as ToolResult;
    expect(done.structuredContent).to.include({ confirmed: true, status: 'published', planFingerprint });
    await client.close();
  });

  it('reports progress of a structure template apply and of an automation run', async () => {
    const agency = w.brandId('acme', 'agency');
    const agencyCreative = await uploadCreative(w, w.key('acme', 'ci'), agency);
    const template = await w.request('POST', `/v1/brands/${agency}/structure-templates`, {
      key: w.key('acme', 'ci'),
      body: templateBody(agencyCreative),
      headers: { 'Idempotency-Key': key('tpl') },
    });
    expect(template.status, JSON.stringify(template.body)).to.equal(201);
    const client = await mcpClient(w.url, w.key('acme', 'ci'));
    const applied: Progress[] = [];
    const result = (await client.callTool(
      { name: 'apply_structure_template', arguments: { brandId: agency, templateId: template.body.templateId } },
      undefined,
      { onprogress: (p) => applied.push(p) },
    )) as ToolResult;
    expect(result.isError, JSON.stringify(result)).to.not.equal(true);
    expectOrderly(applied, 'Storing the draft launch');

    const built = await buildLaunch(api(), { creativeId });
    await publish(api(), built.launchId);
    const rule = await w.request('POST', `/v1/brands/${shoes}/automations`, {
      key: w.key('acme', 'ci'),
      body: {
        automationName: 'Watch',
        accountId: 'act_1001',
        level: 'campaign',
        conditions: [{ metric: 'spend', window: 'today', operator: 'gt', value: 0 }],
        action: 'notify',
        mode: 'live',
      },
    });
    expect(rule.status, JSON.stringify(rule.body)).to.equal(201);
    const run: Progress[] = [];
    const ran = (await client.callTool({ name: 'run_automation', arguments: { brandId: shoes, automationId: rule.body.automationId } }, undefined, {
      onprogress: (p) => run.push(p),
    })) as ToolResult;
    expect(ran.isError, JSON.stringify(ran)).to.not.equal(true);
    expectOrderly(run, 'Recording the run');
    expect(run.map((u) => u.message)).to.include('Read campaign metrics over today');
    await client.close();
  });

  describe('over raw HTTP', () => {
    const post = (body: unknown, headers: Record<string, string> = {}) =>
      fetch(`${w.url}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${w.key('acme', 'ci')}`,
          'x-mcp-toolsets': 'all',
          ...headers,
        },
        body: JSON.stringify(body),
      });

    it('answers a call with a progressToken as an event stream of progress then the result, and one without as plain JSON', async () => {
      const built = await buildLaunch(api(), { creativeId });
      const streamed = await post({
        jsonrpc: '2.0',
        id: 'p1',
        method: 'tools/call',
        params: {
          name: 'launch_campaign',
          arguments: {
            brandId: shoes,
            launchId: built.launchId,
            confirm: true,
            planFingerprint: await planFingerprintOf(api(), built.launchId),
            idempotencyKey: key('raw'),
          },
          _meta: { progressToken: 'tok-1' },
        },
      });
      expect(streamed.headers.get('content-type')).to.match(/^text\/event-stream/);
      const events = (await streamed.text())
        .split('\n\n')
        .filter((e) => e.startsWith('event: message'))
        .map((e) => JSON.parse(e.split('\ndata: ')[1]));
      expect(events.slice(0, -1).every((e) => e.method === 'notifications/progress' && e.params.progressToken === 'tok-1')).to.equal(true);
      expect(events.length).to.be.at.least(3);
      expect(events.at(-1)).to.deep.include({ jsonrpc: '2.0', id: 'p1' });
      expect(events.at(-1).result.structuredContent.status).to.equal('published');

      const plain = await post({ jsonrpc: '2.0', id: 'p2', method: 'tools/call', params: { name: 'list_brands', arguments: {} } });
      expect(plain.headers.get('content-type')).to.match(/^application\/json/);
      expect((await plain.json()).id).to.equal('p2');
    });

    it('hands out a session id at initialize that remembers the elicitation capability, and refuses an answer to a question nobody asked', async () => {
      const init = (capabilities: object) =>
        post({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-06-18', capabilities, clientInfo: { name: 'raw', version: '1' } },
        });
      const able = await init({ elicitation: {} });
      const unable = await init({});
      expect(able.headers.get('mcp-session-id')).to.match(/^[A-Za-z0-9_-]{22}\.e\.[A-Za-z0-9_-]{22}$/);
      expect(unable.headers.get('mcp-session-id')).to.match(/^[A-Za-z0-9_-]{22}\.-\.[A-Za-z0-9_-]{22}$/);
      expect((await able.json()).result.instructions).to.contain('three steps');
      const stray = await post({ jsonrpc: '2.0', id: 'q_guessed', result: { action: 'accept', content: { publish: true } } });
      expect(stray.status).to.equal(404);
      expect((await stray.json()).error.message).to.match(/No question q_guessed is waiting here/);
    });
  });
});
