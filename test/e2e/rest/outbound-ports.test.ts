// The port part of the outbound address rule over REST, against a real listening server: a webhook
// endpoint's url, the tracker's baseUrl and a chat step's webhookUrl may name port 443, 80 or one
// from 1024 to 65535 (whatever the scheme), and any other is 400 validation_failed on that field,
// nothing saved. The send-time half of the rule is in test/unit/outbound-policy.test.ts.

import { expect } from 'chai';
import { dialects } from '../../helpers/databases.js';
import { startWorld, type World } from '../../helpers/world.js';
import { definition } from '../../helpers/workflows.js';

const REFUSED_PORTS = [22, 25, 873, 1023];
const ADMITTED_PORTS = [443, 80, 1024, 8443, 65535];

for (const dialect of dialects()) {
  describe(`caller URLs name only admitted ports (${dialect})`, function () {
    this.timeout(60_000);
    let w: World;
    let shoes: number;
    let ci: string;

    before(async () => {
      w = await startWorld({ dialect, env: { JOBS: 'off' } });
      shoes = w.brandId('acme', 'shoes');
      ci = w.key('acme', 'ci');
    });
    after(async () => {
      await w?.close();
    });

    const places = [
      {
        what: 'a webhook endpoint url',
        field: 'url',
        save: (url: string) => w.request('POST', '/v1/webhook-endpoints', { key: ci, body: { url, events: ['launch.published'] } }),
        saved: async () => (await w.request('GET', '/v1/webhook-endpoints', { key: ci })).body.webhookEndpoints.length,
      },
      {
        what: 'the tracker baseUrl',
        field: 'baseUrl',
        save: (baseUrl: string) => w.request('PUT', `/v1/brands/${shoes}/integrations/tracker`, { key: ci, body: { baseUrl, apiKey: 'kt_key_0001' } }),
        saved: async () => ((await w.request('GET', `/v1/brands/${shoes}/integrations/tracker`, { key: ci })).body.connected ? 1 : 0),
      },
      {
        what: "a chat step's webhookUrl",
        field: 'nodes[tell].settings.webhookUrl',
        save: (webhookUrl: string) =>
          w.request('POST', `/v1/brands/${shoes}/workflows`, {
            key: ci,
            body: definition({ nodes: [{ nodeId: 'tell', kind: 'chat', name: 'Tell', settings: { message: 'hi', webhookUrl } }] }),
          }),
        saved: async () => (await w.request('GET', `/v1/brands/${shoes}/workflows`, { key: ci })).body.workflows.length,
      },
    ];

    for (const place of places) {
      it(`${place.what}: ports ${REFUSED_PORTS.join(', ')} are refused on https and http, nothing saved; ${ADMITTED_PORTS.join(', ')} are taken`, async () => {
        const before = await place.saved();
        for (const port of REFUSED_PORTS) {
          for (const scheme of ['https', 'http']) {
            const r = await place.save(`${scheme}://hooks.example.com:${port}/in`);
            expect(r.status, `${scheme} ${port}: ${JSON.stringify(r.body)}`).to.equal(400);
            expect(r.body.error.code).to.equal('validation_failed');
            const detail = r.body.error.details.find((d: any) => d.field === place.field);
            expect(detail, JSON.stringify(r.body.error.details)).to.not.equal(undefined);
            // Over https the port is the reason; over http the scheme is refused first (no WEBHOOK_ALLOW_PRIVATE).
            if (scheme === 'https') expect(detail.message).to.contain(`must use port 443, 80 or one from 1024 to 65535, not ${port}`);
          }
        }
        expect(await place.saved()).to.equal(before);
        for (const port of ADMITTED_PORTS) {
          const r = await place.save(`https://hooks.example.com:${port}/in`);
          expect(r.status, `${port}: ${JSON.stringify(r.body)}`).to.be.oneOf([200, 201]);
        }
      });
    }
  });
}
