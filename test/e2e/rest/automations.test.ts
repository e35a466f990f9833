// Monitoring automations on both surfaces: the contract's list (summary fields, status filter,
// pagination) and status operations on REST and MCP, a rule created in shadow mode, previewed,
// armed and run, and a bad rule answering validation_failed naming each wrong field; a shadow run's
// record read alike on REST and MCP, and its one automation.triggered per action delivered to a
// webhook endpoint listing the objects.

import { expect } from 'chai';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { dialects } from '../../helpers/databases.js';
import { mcpClient } from '../../helpers/mcp.js';
import { startWorld, type World } from '../../helpers/world.js';
import { seedLiveLaunch, type SeededObject } from '../../../src/launches/live-launch.js';
import { WebhookReceiver } from '../../helpers/webhook-receiver.js';

type ToolResult = { isError?: boolean; structuredContent?: any; content: Array<{ type: string; text?: string }> };

// Yesterday: whole days of delivery whatever the hour the tests run at.
const NO_RESULTS = [
  { metric: 'spend', window: 'yesterday', operator: 'gt', value: 100 },
  { metric: 'results', window: 'yesterday', operator: 'lt', value: 1 },
];

for (const dialect of dialects()) {
  describe(`automations on REST and MCP (${dialect})`, function () {
    this.timeout(60_000);
    let w: World;
    let ci: string;
    let mcp: Client;
    let brandId: number;
    let objects: SeededObject[];

    before(async () => {
      w = await startWorld({ dialect, env: { JOBS: 'off' } });
      ci = w.key('acme', 'ci');
      brandId = w.brandId('acme', 'shoes');
      mcp = await mcpClient(w.url, ci);
      const launch = await seedLiveLaunch(w.service.knex, {
        organizationId: w.seed.organizations.acme.id,
        brandId,
        accountId: 'act_1001',
        platform: 'meta',
        title: 'Live',
        at: Date.now() - 2 * 86_400_000,
        campaigns: [
          { name: 'Retargeting - no results', dailyBudget: 20_000 },
          { name: 'Prospecting', dailyBudget: 20_000 },
        ],
      });
      objects = launch.objects;
    });
    after(async () => {
      await mcp?.close();
      await w?.close();
    });

    const api = (method: string, path: string, body?: unknown) => w.request(method, `/v1/brands/${brandId}${path}`, { key: ci, body });
    const tool = async (name: string, args: Record<string, unknown>) => (await mcp.callTool({ name, arguments: { brandId, ...args } })) as ToolResult;

    it('creates a rule in shadow mode, previews it, arms it and reads its runs', async () => {
      const created = await api('POST', '/automations', {
        automationName: 'No results',
        accountId: 'act_1001',
        level: 'campaign',
        conditions: NO_RESULTS,
        action: 'pause',
        frequency: 'every_15_minutes',
        mode: 'shadow',
      });
      expect(created.status).to.equal(201);
      expect(created.body).to.include({
        automationName: 'No results',
        status: 'ACTIVE',
        mode: 'shadow',
        action: 'pause',
        actionLevel: 'campaign',
        frequency: 'every_15_minutes',
        objectIds: null,
      });
      expect(created.body.automationId).to.be.a('number');
      const id = created.body.automationId;
      const burner = objects[0];
      const preview = await api('POST', `/automations/${id}/preview`);
      expect(preview.status).to.equal(200);
      expect(preview.body.matched).to.be.at.least(1);
      expect(preview.body.objects.find((o: any) => o.objectId === burner.objectId)).to.include({
        matched: true,
        intended: 'pause',
        action: 'none',
        skipReason: 'shadow',
      });
      const shadowRun = await api('POST', `/automations/${id}/runs`);
      expect(shadowRun.status).to.equal(201);
      expect(shadowRun.body.objects.find((o: any) => o.objectId === burner.objectId).skipReason).to.equal('shadow');
      const armed = await api('PATCH', `/automations/${id}`, { mode: 'live' });
      expect(armed.body.mode).to.equal('live');
      const liveRun = await api('POST', `/automations/${id}/runs`);
      expect(liveRun.body.objects.find((o: any) => o.objectId === burner.objectId)).to.include({ action: 'paused', skipReason: null });
      const runs = await api('GET', `/automations/${id}/runs?limit=1`);
      expect(runs.body.runs.map((r: any) => r.runId)).to.deep.equal([liveRun.body.runId]);
      expect(runs.body.nextCursor).to.be.a('string');
      const older = await api('GET', `/automations/${id}/runs?limit=1&cursor=${encodeURIComponent(runs.body.nextCursor)}`);
      expect(older.body.runs.map((r: any) => r.runId)).to.deep.equal([shadowRun.body.runId]);
      const viaMcp = await tool('list_automation_runs', { automationId: String(id) });
      expect(viaMcp.structuredContent.runs.map((r: any) => r.runId)).to.deep.equal([liveRun.body.runId, shadowRun.body.runId]);
    });

    it('resuming is money: a read+write key saving or running an automation that can resume answers 403 requiredScope publish; nothing is saved or run', async () => {
      const rw = w.key('acme', 'limited');
      const as = (method: string, path: string, body?: unknown) => w.request(method, `/v1/brands/${brandId}${path}`, { key: rw, body });
      const rule = { automationName: 'Resumer', accountId: 'act_1001', level: 'campaign', conditions: NO_RESULTS, action: 'pause', frequency: 'hourly' };
      const before = (await api('GET', '/automations?limit=100')).body.automations.length;
      const refused = await as('POST', '/automations', { ...rule, resumeWhenClear: true });
      expect(refused.status, JSON.stringify(refused.body)).to.equal(403);
      expect(refused.body.error.code).to.equal('insufficient_scope');
      expect(refused.body.error.details).to.deep.equal({ requiredScope: 'publish' });
      expect(refused.body.error.message).to.match(/resumeWhenClear/);
      expect((await api('GET', '/automations?limit=100')).body.automations, 'nothing saved').to.have.length(before);
      // Without resumeWhenClear the same key saves it (write); turning resuming on is refused.
      const plain = await as('POST', '/automations', { ...rule, status: 'PAUSED' });
      expect(plain.status, JSON.stringify(plain.body)).to.equal(201);
      const turnOn = await as('PATCH', `/automations/${plain.body.automationId}`, { resumeWhenClear: true });
      expect(turnOn.status, JSON.stringify(turnOn.body)).to.equal(403);
      expect(turnOn.body.error.details).to.deep.equal({ requiredScope: 'publish' });
      expect((await api('GET', `/automations/${plain.body.automationId}`)).body.resumeWhenClear).to.equal(false);
      // One saved by a publish key: the read+write key may neither change nor run it.
      const resumer = await api('POST', '/automations', { ...rule, resumeWhenClear: true, status: 'PAUSED' });
      expect(resumer.status, JSON.stringify(resumer.body)).to.equal(201);
      const renamed = await as('PATCH', `/automations/${resumer.body.automationId}`, { automationName: 'Renamed' });
      expect(renamed.status, JSON.stringify(renamed.body)).to.equal(403);
      const ran = await as('POST', `/automations/${resumer.body.automationId}/runs`, {});
      expect(ran.status, JSON.stringify(ran.body)).to.equal(403);
      expect(ran.body.error.details).to.deep.equal({ requiredScope: 'publish' });
      expect((await api('GET', `/automations/${resumer.body.automationId}/runs`)).body.runs, 'no run').to.deep.equal([]);
      // The publish key runs it.
      expect((await api('POST', `/automations/${resumer.body.automationId}/runs`, {})).status).to.equal(201);
    });

    it('lists automations newest first with the summary fields, filtered by status, on REST and MCP', async () => {
      const make = (name: string, status: string) =>
        api('POST', '/automations', {
          automationName: name,
          accountId: 'act_1001',
          level: 'adset',
          conditions: NO_RESULTS,
          action: 'notify',
          frequency: 'daily',
          dailyHour: 6,
          status,
        });
      const paused = (await make('Paused one', 'PAUSED')).body;
      const active = (await make('Active one', 'ACTIVE')).body;
      const list = await api('GET', '/automations?status=PAUSED');
      expect(list.status).to.equal(200);
      expect(list.body.automations[0]).to.include({
        automationId: paused.automationId,
        automationName: 'Paused one',
        status: 'PAUSED',
        action: 'notify',
        actionLevel: 'adset',
        frequency: 'daily',
      });
      expect(list.body.automations.every((a: any) => a.status === 'PAUSED')).to.equal(true);
      const all = await api('GET', '/automations');
      expect(all.body.automations[0].automationId).to.equal(active.automationId);
      const viaMcp = await tool('list_automations', { status: 'ACTIVE' });
      expect(viaMcp.isError).to.not.equal(true);
      expect(viaMcp.structuredContent.automations.map((a: any) => a.automationId)).to.include(active.automationId);
      expect(viaMcp.structuredContent.automations.every((a: any) => a.status === 'ACTIVE')).to.equal(true);
      for (const field of ['automationId', 'automationName', 'status', 'action', 'actionLevel', 'frequency'])
        expect(viaMcp.structuredContent.automations[0]).to.have.property(field);
    });

    it('arms and disarms with PATCH .../status on REST and set_automation_status on MCP', async () => {
      const made = (
        await api('POST', '/automations', { automationName: 'Toggle', accountId: 'act_1001', level: 'ad', conditions: NO_RESULTS, action: 'pause' })
      ).body;
      const off = await api('PATCH', `/automations/${made.automationId}/status`, { status: 'PAUSED' });
      expect(off.status).to.equal(200);
      expect(off.body).to.include({ status: 'PAUSED', nextRunAt: null });
      const on = await tool('set_automation_status', { automationId: String(made.automationId), status: 'ACTIVE' });
      expect(on.structuredContent).to.include({ automationId: made.automationId, status: 'ACTIVE' });
      expect((await api('GET', `/automations/${made.automationId}`)).body.status).to.equal('ACTIVE');
      const bad = await api('PATCH', `/automations/${made.automationId}/status`, { status: 'OFF' });
      expect(bad.status).to.equal(400);
      expect(bad.body.error.details.map((d: any) => d.field)).to.deep.equal(['status']);
      expect((await api('PATCH', '/automations/999999/status', { status: 'PAUSED' })).status).to.equal(404);
      expect((await api('DELETE', `/automations/${made.automationId}`)).body).to.deep.equal({ automationId: made.automationId, deleted: true });
      expect((await api('GET', `/automations/${made.automationId}`)).status).to.equal(404);
    });

    it('answers a bad rule with validation_failed naming each wrong field, on REST and MCP', async () => {
      const body = {
        automationName: 'Bad',
        accountId: 'act_1001',
        level: 'campaign',
        action: 'pause',
        conditions: [
          { metric: 'margin', window: 'today', operator: 'gt', value: 1 },
          { metric: 'spend', window: 'last_2d', operator: 'gt', value: 1 },
        ],
      };
      const rest = await api('POST', '/automations', body);
      expect(rest.status).to.equal(400);
      expect(rest.body.error.code).to.equal('validation_failed');
      const fields = rest.body.error.details.map((d: any) => d.field);
      expect(fields).to.include.members(['conditions[0].metric', 'conditions[1].window']);
      const rules = await api('POST', '/automations', { ...body, conditions: NO_RESULTS, accountId: 'act_9999', frequency: 'daily', objectIds: ['123'] });
      expect(rules.status).to.equal(400);
      expect(rules.body.error.details.map((d: any) => d.field)).to.deep.equal(['accountId', 'dailyHour', 'objectIds[0]']);
      const result = await tool('create_automation', { ...body, conditions: NO_RESULTS, frequency: 'hourly', dailyHour: 5, actionLevel: 'ad' });
      expect(result.isError).to.equal(true);
      const error = JSON.parse(result.content[0].text!).error;
      expect(error.code).to.equal('validation_failed');
      expect(error.details.map((d: any) => d.field)).to.deep.equal(['actionLevel', 'dailyHour']);
    });
  });
}

for (const dialect of dialects()) {
  describe(`a shadow run on REST, MCP and webhooks (${dialect})`, function () {
    this.timeout(60_000);
    let w: World;
    let ci: string;
    let mcp: Client;
    let brandId: number;
    let objects: SeededObject[];
    let receiver: WebhookReceiver;

    before(async () => {
      // Jobs on: the worker fans the event out and delivers it to the loopback receiver.
      w = await startWorld({ dialect, env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
      ci = w.key('acme', 'ci');
      brandId = w.brandId('acme', 'shoes');
      mcp = await mcpClient(w.url, ci);
      receiver = await new WebhookReceiver().start('/hooks');
      objects = (
        await seedLiveLaunch(w.service.knex, {
          organizationId: w.seed.organizations.acme.id,
          brandId,
          accountId: 'act_1001',
          platform: 'meta',
          title: 'Live',
          at: Date.now() - 2 * 86_400_000,
          campaigns: [
            { name: 'Retargeting - no results', dailyBudget: 20_000 },
            { name: 'Lookalike - no results', dailyBudget: 30_000 },
            { name: 'Prospecting', dailyBudget: 20_000 },
          ],
        })
      ).objects;
    });
    after(async () => {
      await mcp?.close();
      await w?.close();
      await receiver?.close();
    });

    const api = (method: string, path: string, body?: unknown) => w.request(method, `/v1/brands/${brandId}${path}`, { key: ci, body });

    it('reads its record alike on REST and MCP, and delivers one automation.triggered per action listing its objects to a webhook endpoint', async () => {
      const endpoint = await w.request('POST', '/v1/webhook-endpoints', {
        key: ci,
        body: { url: receiver.url, events: ['automation.triggered'], brandIds: [brandId] },
      });
      expect(endpoint.status, JSON.stringify(endpoint.body)).to.equal(201);
      receiver.secrets = [endpoint.body.secret];
      const created = await api('POST', '/automations', {
        automationName: 'Watch burners',
        accountId: 'act_1001',
        level: 'campaign',
        conditions: NO_RESULTS,
        action: 'pause_and_notify',
        frequency: 'daily',
        dailyHour: 6,
        mode: 'shadow',
        status: 'PAUSED',
      });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      const id = created.body.automationId;
      const run = await api('POST', `/automations/${id}/runs`);
      expect(run.status).to.equal(201);
      expect(run.body.objects.map((o: any) => o.objectId).sort()).to.deep.equal(objects.map((o) => o.objectId).sort());
      const judged = run.body.objects.filter((o: any) => o.skipReason === 'shadow').map((o: any) => o.objectId);
      expect(judged.sort()).to.deep.equal([objects[0].objectId, objects[1].objectId].sort());

      // The stored record reads back as the run answered it, on both surfaces.
      const listed = await api('GET', `/automations/${id}/runs`);
      expect(listed.body.runs).to.have.length(1);
      expect(listed.body.runs[0]).to.deep.equal(run.body);
      const viaMcp = (await mcp.callTool({ name: 'list_automation_runs', arguments: { brandId, automationId: String(id) } })) as ToolResult;
      expect(viaMcp.isError).to.not.equal(true);
      expect(viaMcp.structuredContent.runs).to.deep.equal(listed.body.runs);

      // One event for the run's one action, naming every object it would have paused.
      await receiver.waitFor(1, 20_000);
      const mine = receiver.received.filter((m) => m.body.data.runId === run.body.runId);
      expect(mine).to.have.length(1);
      const [message] = mine;
      expect(message.verifiedWith).to.deep.equal([0]);
      expect(message.body.type).to.equal('automation.triggered');
      const order = run.body.objects.filter((o: any) => o.skipReason === 'shadow').map((o: any) => o.objectId);
      expect(message.body.data).to.deep.equal({
        brandId,
        automationId: id,
        automationName: 'Watch burners',
        accountId: 'act_1001',
        runId: run.body.runId,
        level: 'campaign',
        action: 'paused',
        mode: 'shadow',
        objects: order,
        objectCount: 2,
      });
    });
  });
}
