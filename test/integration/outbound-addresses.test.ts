// The outbound address rule end to end, for the three kinds of caller-given URL (a webhook endpoint's
// url, a tracker's baseUrl, a chat step's webhookUrl), without and with WEBHOOK_ALLOW_PRIVATE, one row
// per URL form of test/helpers/address-table.ts:
// - at save, through REST: 201/200, or 400 validation_failed naming the field;
// - at send: the stored URL is swapped for the row's (a row saved before the rule, or whose DNS
//   changed since) and the real send path runs: a refused row records its refusal (the webhook
//   attempt's error, the tracker's 422, the chat step's error) and nothing connects to the loopback
//   tripwire its URL points at; an allowed row on a loopback address connects to the tripwire; an
//   allowed row elsewhere is only vetted (the send's own check), because tests send only to loopback.
// Then DNS rebinding: a name public when saved and loopback when sent sends nothing.

import net from 'node:net';
import ipaddr from 'ipaddr.js';
import { expect } from 'chai';
import { callerTarget } from '../../src/outbound/address-policy.js';
import { dialects } from '../helpers/databases.js';
import { startWorld, type World } from '../helpers/world.js';
import { ADDRESS_TABLE, NAMES, urlOf, type AddressRow } from '../helpers/address-table.js';
import { fakeResolver } from '../helpers/outbound.js';
import { chatNode, nodeOf, workflowWorld } from '../helpers/workflows.js';

/** A TCP server on every loopback address that counts connections and closes them at once. */
async function tripwire(): Promise<{ port: number; connections: () => number; close: () => Promise<void> }> {
  let n = 0;
  const server = net.createServer((socket) => {
    n++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '::', resolve));
  return { port: (server.address() as net.AddressInfo).port, connections: () => n, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** True for 127.0.0.0/8, ::1 and IPv4-mapped loopback: addresses a test may really connect to. */
function loopback(address: string): boolean {
  const a = ipaddr.parse(address);
  if (a.kind() === 'ipv6' && (a as ipaddr.IPv6).isIPv4MappedAddress()) return (a as ipaddr.IPv6).toIPv4Address().range() === 'loopback';
  return a.range() === 'loopback';
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

for (const dialect of dialects()) {
  for (const mode of ['strict', 'dev'] as const) {
    describe(`outbound addresses at save and at send, ${mode === 'dev' ? 'with' : 'without'} WEBHOOK_ALLOW_PRIVATE (${dialect})`, function () {
      this.timeout(180_000);
      let w: World;
      let wire: Awaited<ReturnType<typeof tripwire>>;
      let ci: string;
      let brand: number;
      let endpointId: number;
      let workflowId: number;

      before(async () => {
        wire = await tripwire();
        w = await startWorld({
          dialect,
          bootstrap: workflowWorld,
          env: { JOBS: 'off', ...(mode === 'dev' ? { WEBHOOK_ALLOW_PRIVATE: 'true' } : {}) },
          resolveHost: fakeResolver(NAMES),
        });
        ci = w.key('acme', 'ci');
        brand = w.brandId('acme', 'shoes');
        // What the send checks start from: an endpoint, a tracker connection and a chat step saved with a public URL.
        const endpoint = await w.request('POST', '/v1/webhook-endpoints', { key: ci, body: { url: 'https://public.example/hooks', events: ['webhook.test'] } });
        expect(endpoint.status).to.equal(201);
        endpointId = endpoint.body.endpointId;
        const tracker = await w.request('PUT', `/v1/brands/${brand}/integrations/tracker`, {
          key: ci,
          body: { baseUrl: 'https://public.example', apiKey: 'kt_table_key_0001' },
        });
        expect(tracker.status).to.equal(200);
        const wf = await w.request('POST', `/v1/brands/${brand}/workflows`, {
          key: ci,
          body: { workflowName: 'Tell', trigger: { kind: 'manual' }, nodes: [chatNode('tell', 'https://public.example/chat')], edges: [] },
        });
        expect(wf.status, JSON.stringify(wf.body)).to.equal(201);
        workflowId = wf.body.workflowId;
      });
      after(async () => {
        await w?.close();
        await wire?.close();
      });

      const saveCases = [
        {
          kind: 'a webhook endpoint url',
          field: 'url',
          ok: 201,
          save: (url: string) => w.request('POST', '/v1/webhook-endpoints', { key: ci, body: { url, events: ['webhook.test'] } }),
        },
        {
          kind: 'a tracker baseUrl',
          field: 'baseUrl',
          ok: 200,
          save: (url: string) =>
            w.request('PUT', `/v1/brands/${w.brandId('acme', 'hats')}/integrations/tracker`, { key: ci, body: { baseUrl: url, apiKey: 'kt_table_key_0002' } }),
        },
        {
          kind: 'a chat step webhookUrl',
          field: 'nodes[tell].settings.webhookUrl',
          ok: 201,
          save: (url: string) =>
            w.request('POST', `/v1/brands/${brand}/workflows`, {
              key: ci,
              body: { workflowName: 'Tell', trigger: { kind: 'manual' }, nodes: [chatNode('tell', url)], edges: [] },
            }),
        },
      ];

      /** The three send paths, each with the stored URL swapped for `url`; answers what each recorded. */
      const sends: Array<{ kind: string; send: (url: string) => Promise<string | null> }> = [
        {
          kind: 'webhook test send',
          send: async (url) => {
            await w.service.knex('webhook_endpoints').where({ id: endpointId }).update({ url });
            const sent = await w.request('POST', `/v1/webhook-endpoints/${endpointId}/test`, { key: ci });
            expect(sent.status, JSON.stringify(sent.body)).to.equal(200);
            const deliveries = await w.request('GET', `/v1/webhook-endpoints/${endpointId}/deliveries?limit=1`, { key: ci });
            const attempt = deliveries.body.deliveries[0].attempts[0];
            expect(attempt.error, 'the attempt records what the send said').to.equal(sent.body.error ?? null);
            return sent.body.error ?? null;
          },
        },
        {
          kind: 'tracker call',
          send: async (url) => {
            await w.service.knex('tracker_connections').where({ brand_id: brand }).update({ base_url: url, base_url_origin: 'caller' });
            const got = await w.request('GET', `/v1/brands/${brand}/integrations/tracker/mappings`, { key: ci });
            expect(got.status).to.be.oneOf([422, 503]);
            return got.body.error.message;
          },
        },
        {
          kind: 'chat step',
          send: async (url) => {
            const row = await w.service.knex('workflows').where({ id: workflowId }).first('nodes');
            const nodes = JSON.parse(row.nodes);
            nodes[0].settings.webhookUrl = url;
            await w.service
              .knex('workflows')
              .where({ id: workflowId })
              .update({ nodes: JSON.stringify(nodes) });
            const run = await w.request('POST', `/v1/brands/${brand}/workflows/${workflowId}/runs`, { key: ci, body: {} });
            expect(run.status).to.equal(202);
            await w.service.jobs.drain();
            const exec = await w.request('GET', `/v1/brands/${brand}/workflows/${workflowId}/executions/${run.body.executionId}`, { key: ci });
            // A step that failed on the network waits for a retry; it must not connect during a later row.
            await w.service.knex('jobs').where({ kind: 'run-workflow-step' }).delete();
            return nodeOf(exec.body, 'tell').error?.message ?? null;
          },
        },
      ];

      for (const row of ADDRESS_TABLE as AddressRow[]) {
        const atSave = row[mode];
        const atSend = row.saveOnly ? 'refused' : row[mode];
        it(`${row.what} (${row.url}): ${atSave} at save and ${atSend} at send, for webhooks, the tracker and chat`, async () => {
          const url = urlOf(row, wire.port);
          for (const c of saveCases) {
            const res = await c.save(url);
            if (atSave === 'allowed') {
              expect(res.status, `${c.kind} at save: ${JSON.stringify(res.body)}`).to.equal(c.ok);
              // An organization holds at most 20 endpoints: the saved one goes again.
              if (res.body.endpointId) await w.request('DELETE', `/v1/webhook-endpoints/${res.body.endpointId}`, { key: ci });
            } else {
              expect(res.status, `${c.kind} at save`).to.equal(400);
              expect(res.body.error.code).to.equal('validation_failed');
              expect(
                res.body.error.details.map((d: { field: string }) => d.field),
                `${c.kind} at save`,
              ).to.include(c.field);
            }
          }
          if (atSend === 'refused') {
            for (const s of sends) {
              const before = wire.connections();
              const said = await s.send(url);
              await settle();
              expect(said, `${s.kind} records the refusal`).to.match(/refused: /);
              expect(wire.connections(), `${s.kind} connected nowhere`).to.equal(before);
            }
            return;
          }
          // The send's own check says where the connection would go.
          const address = await w.service.outbound.vet(callerTarget(url));
          if (!loopback(address)) return;
          for (const s of sends) {
            const before = wire.connections();
            const said = await s.send(url);
            await settle();
            expect(said ?? '', `${s.kind} was let through`).to.not.match(/refused: /);
            expect(wire.connections(), `${s.kind} connected to the checked loopback address`).to.be.greaterThan(before);
          }
        });
      }
    });
  }

  describe(`DNS rebinding (${dialect})`, function () {
    this.timeout(60_000);

    it('a name public at save and loopback at send: saved, then refused at send for webhooks, the tracker and chat; nothing is sent', async () => {
      const wire = await tripwire();
      // Each kind asks the resolver once at save and once at send.
      const resolver = fakeResolver({ 'rebind.example': [['93.184.216.34'], ['93.184.216.34'], ['93.184.216.34'], ['127.0.0.1']] });
      const w = await startWorld({ dialect, bootstrap: workflowWorld, env: { JOBS: 'off' }, resolveHost: resolver });
      try {
        const ci = w.key('acme', 'ci');
        const brand = w.brandId('acme', 'shoes');
        const url = `https://rebind.example:${wire.port}/in`;
        const endpoint = await w.request('POST', '/v1/webhook-endpoints', { key: ci, body: { url, events: ['webhook.test'] } });
        expect(endpoint.status).to.equal(201);
        const tracker = await w.request('PUT', `/v1/brands/${brand}/integrations/tracker`, {
          key: ci,
          body: { baseUrl: `https://rebind.example:${wire.port}`, apiKey: 'kt_rebind_key_0001' },
        });
        expect(tracker.status).to.equal(200);
        const wf = await w.request('POST', `/v1/brands/${brand}/workflows`, {
          key: ci,
          body: { workflowName: 'Tell', trigger: { kind: 'manual' }, nodes: [chatNode('tell', url)], edges: [] },
        });
        expect(wf.status).to.equal(201);
        expect(resolver.lookups).to.deep.equal(['rebind.example', 'rebind.example', 'rebind.example']);

        const sent = await w.request('POST', `/v1/webhook-endpoints/${endpoint.body.endpointId}/test`, { key: ci });
        expect(sent.body).to.deep.include({ delivered: false, statusCode: null });
        expect(sent.body.error).to.match(/^refused: rebind\.example resolves to 127\.0\.0\.1, which is a loopback address.*nothing was sent$/);
        const mappings = await w.request('GET', `/v1/brands/${brand}/integrations/tracker/mappings`, { key: ci });
        expect(mappings.status).to.equal(422);
        expect(mappings.body.error.message).to.match(/refused: rebind\.example resolves to 127\.0\.0\.1/);
        const run = await w.request('POST', `/v1/brands/${brand}/workflows/${wf.body.workflowId}/runs`, { key: ci, body: {} });
        await w.service.jobs.drain();
        const exec = await w.request('GET', `/v1/brands/${brand}/workflows/${wf.body.workflowId}/executions/${run.body.executionId}`, { key: ci });
        expect(exec.body.status).to.equal('failed');
        expect(nodeOf(exec.body, 'tell').error.message).to.match(/refused: rebind\.example resolves to 127\.0\.0\.1/);
        await settle();
        expect(wire.connections()).to.equal(0);
      } finally {
        await w.close();
        await wire.close();
      }
    });
  });
}
