// The webhook rows of the contract's error table on both surfaces: 409 conflict (test send to a
// disabled endpoint), 422 unprocessable (the 21st endpoint), 503 webhooks_unavailable, 403
// brand_not_allowed (a brand-limited key) and 403 forbidden (a person who is not owner or admin,
// with an OAuth token), through REST and the SDK's real MCP Client.

import { expect } from 'chai';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { dialects } from '../../helpers/databases.js';
import { mcpClient, toolError } from '../../helpers/mcp.js';
import { startWorld, type World } from '../../helpers/world.js';
import { startOAuthWorld, tokensFor } from '../../helpers/oauth.js';

/** The error of a failed tool call, read as an agent does. */
async function callError(client: Client, name: string, args: Record<string, unknown>): Promise<{ code: string; message: string; details: any }> {
  return toolError(await client.callTool({ name, arguments: args }));
}

const endpointBody = (i: number) => ({ url: `http://127.0.0.1:9999/hook-${i}`, events: ['webhook.test'] });

for (const dialect of dialects()) {
  describe(`webhook error rows on REST and MCP (${dialect})`, function () {
    this.timeout(60_000);
    let w: World;
    let ci: string;
    let mcp: Client;

    before(async () => {
      w = await startOAuthWorld(dialect, undefined, { WEBHOOK_ALLOW_PRIVATE: 'true', JOBS: 'off' });
      ci = w.key('acme', 'ci');
      mcp = await mcpClient(w.url, ci);
    });
    after(async () => {
      await mcp?.close();
      await w?.close();
    });

    it('409 conflict: a test send to a disabled endpoint', async () => {
      const created = await w.request('POST', '/v1/webhook-endpoints', { key: ci, body: { ...endpointBody(0), enabled: false } });
      expect(created.body).to.deep.include({ enabled: false, disabledReason: 'manual' });
      const rest = await w.request('POST', `/v1/webhook-endpoints/${created.body.endpointId}/test`, { key: ci });
      expect(rest.status).to.equal(409);
      expect(rest.body.error.code).to.equal('conflict');
      const tool = await callError(mcp, 'test_webhook_endpoint', { endpointId: created.body.endpointId });
      expect(tool.code).to.equal('conflict');
      // The same sentence, naming the operation as each surface calls it.
      expect(rest.body.error.message).to.contain('(update-webhook-endpoint with enabled: true)');
      expect(tool.message).to.equal(rest.body.error.message.replace('update-webhook-endpoint', 'update_webhook_endpoint'));
    });

    it('422 unprocessable: the 21st endpoint of an organization', async () => {
      const existing = Number((await w.service.knex('webhook_endpoints').count({ n: '*' }).first())!.n);
      for (let i = existing; i < 20; i++) {
        const made = await w.request('POST', '/v1/webhook-endpoints', { key: ci, body: endpointBody(i) });
        expect(made.status).to.equal(201);
      }
      const rest = await w.request('POST', '/v1/webhook-endpoints', { key: ci, body: endpointBody(21) });
      expect(rest.status).to.equal(422);
      expect(rest.body.error).to.deep.include({ code: 'unprocessable', details: { limit: 20 } });
      const tool = await callError(mcp, 'create_webhook_endpoint', endpointBody(22));
      expect(tool).to.deep.include({ code: 'unprocessable', details: { limit: 20 } });
      // Deleting one makes room again, on either surface.
      const list = await w.request('GET', '/v1/webhook-endpoints?limit=1', { key: ci });
      const removed = (await mcp.callTool({ name: 'delete_webhook_endpoint', arguments: { endpointId: list.body.webhookEndpoints[0].endpointId } })) as any;
      expect(removed.isError).to.not.equal(true);
      expect(removed.structuredContent).to.deep.equal({ endpointId: list.body.webhookEndpoints[0].endpointId, deleted: true });
      const again = (await mcp.callTool({ name: 'create_webhook_endpoint', arguments: endpointBody(23) })) as any;
      expect(again.isError).to.not.equal(true);
      expect(again.structuredContent.secret).to.match(/^whsec_/);
    });

    it('403 brand_not_allowed: a brand-limited key naming a brand beyond its limit', async () => {
      const limited = w.key('acme', 'limited');
      const body = { ...endpointBody(30), brandIds: [w.brandId('acme', 'hats')] };
      const rest = await w.request('POST', '/v1/webhook-endpoints', { key: limited, body });
      expect(rest.status).to.equal(403);
      expect(rest.body.error.code).to.equal('brand_not_allowed');
      const client = await mcpClient(w.url, limited);
      try {
        const tool = await callError(client, 'create_webhook_endpoint', body);
        expect(tool.code).to.equal('brand_not_allowed');
        expect(tool.details.reason).to.equal('brand_not_allowed');
      } finally {
        await client.close();
      }
    });

    it('403 forbidden: a member signed in through OAuth; an owner with the same kind of token may', async () => {
      const mia = { email: 'mia@acme.test', password: 'correct horse 2' };
      const olive = { email: 'olive@acme.test', password: 'correct horse 1' };
      const apiToken = (await tokensFor(w.url, mia, { resource: `${w.url}/v1`, scope: 'read write' })).access_token;
      const rest = await w.request('GET', '/v1/webhook-endpoints', { key: apiToken });
      expect(rest.status).to.equal(403);
      expect(rest.body.error.code).to.equal('forbidden');
      expect(rest.body.error.message).to.match(/owner or admin/);
      const mcpToken = (await tokensFor(w.url, mia, { resource: `${w.url}/mcp`, scope: 'read write' })).access_token;
      const client = await mcpClient(w.url, mcpToken);
      try {
        expect((await callError(client, 'list_webhook_endpoints', {})).code).to.equal('forbidden');
        expect((await callError(client, 'create_webhook_endpoint', endpointBody(40))).code).to.equal('forbidden');
      } finally {
        await client.close();
      }
      const ownerToken = (await tokensFor(w.url, olive, { resource: `${w.url}/v1`, scope: 'read write' })).access_token;
      const owner = await w.request('GET', '/v1/webhook-endpoints', { key: ownerToken });
      expect(owner.status).to.equal(200);
    });
  });

  describe(`webhooks switched off, on REST and MCP (${dialect})`, function () {
    this.timeout(30_000);
    it('503 webhooks_unavailable', async () => {
      const w = await startWorld({ dialect, env: { WEBHOOKS_ENABLED: 'false' } });
      const client = await mcpClient(w.url, w.key('acme', 'ci'));
      try {
        const rest = await w.request('POST', '/v1/webhook-endpoints', { key: w.key('acme', 'ci'), body: endpointBody(1) });
        expect(rest.status).to.equal(503);
        expect(rest.body.error.code).to.equal('webhooks_unavailable');
        for (const [name, args] of [
          ['create_webhook_endpoint', endpointBody(1)],
          ['list_webhook_endpoints', {}],
          ['rotate_webhook_secret', { endpointId: 1 }],
        ] as const) {
          expect((await callError(client, name, args)).code, name).to.equal('webhooks_unavailable');
        }
      } finally {
        await client.close();
        await w.close();
      }
    });
  });
}
