// Webhook endpoints over REST against real listening servers and a real receiver that verifies
// every delivery with the `standardwebhooks` package: signing (across a rotation), events of real
// operations, brand filters, the delivery log, redelivery, 410, the endpoint limit, access rules.

import { expect } from 'chai';
import { dialects } from '../../helpers/databases.js';
import { startWorld, type World } from '../../helpers/world.js';
import { WebhookReceiver } from '../../helpers/webhook-receiver.js';
import { brandApi, buildLaunch, idem, publish, uploadCreative } from '../../helpers/launch-builders.js';
import { waitUntil } from '../../helpers/launches.js';
import { fakeResolver } from '../../helpers/outbound.js';

const PRIVATE_OK = { WEBHOOK_ALLOW_PRIVATE: 'true' };

for (const dialect of dialects()) {
  describe(`webhook endpoints over REST (${dialect})`, function () {
    this.timeout(60_000);
    let w: World;
    let ci: string;
    const receivers: WebhookReceiver[] = [];
    const receiver = async (options = {}) => {
      const r = await new WebhookReceiver(options).start();
      receivers.push(r);
      return r;
    };
    const create = (body: Record<string, unknown>, key = ci) => w.request('POST', '/v1/webhook-endpoints', { key, body });

    before(async () => {
      w = await startWorld({ dialect, env: PRIVATE_OK });
      ci = w.key('acme', 'ci');
    });
    after(async () => {
      for (const r of receivers) await r.close();
      await w?.close();
    });

    it('creates an endpoint, shows its whsec_ secret once, and never again', async () => {
      const r = await receiver();
      const created = await create({ url: r.url, events: ['launch.published'], description: 'ops' });
      expect(created.status).to.equal(201);
      expect(created.body.secret).to.match(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(created.body).to.deep.include({
        url: r.url,
        description: 'ops',
        events: ['launch.published'],
        brandIds: null,
        enabled: true,
        disabledReason: null,
      });
      const got = await w.request('GET', `/v1/webhook-endpoints/${created.body.endpointId}`, { key: ci });
      expect(got.status).to.equal(200);
      expect(got.body).to.not.have.property('secret');
      const listed = await w.request('GET', '/v1/webhook-endpoints', { key: ci });
      expect(listed.body.webhookEndpoints.map((e: any) => e.endpointId)).to.include(created.body.endpointId);
      expect(JSON.stringify(listed.body)).to.not.contain('whsec_');
      await w.request('DELETE', `/v1/webhook-endpoints/${created.body.endpointId}`, { key: ci });
    });

    it('delivers launch.published of a real publish, signed so standardwebhooks verifies it, to the endpoints of that brand only', async () => {
      const shoes = w.brandId('acme', 'shoes');
      const mine = await receiver();
      const other = await receiver();
      const a = await create({ url: mine.url, events: ['launch.published', 'budget.changed'], brandIds: [shoes] });
      const b = await create({ url: other.url, events: ['launch.published'], brandIds: [w.brandId('acme', 'hats')] });
      mine.secrets = [a.body.secret];
      other.secrets = [b.body.secret];
      const api = brandApi(w, ci, shoes);
      const built = await buildLaunch(api, { creativeId: await uploadCreative(w, ci, shoes) });
      await publish(api, built.launchId);
      await mine.waitFor(1);
      const got = mine.received[0];
      expect(got.verifiedWith).to.deep.equal([0]);
      expect(got.id).to.match(/^evt_[A-Za-z0-9_-]{22}$/);
      expect(got.body.type).to.equal('launch.published');
      expect(got.body.data).to.deep.include({ brandId: shoes, launchId: built.launchId, committedMinorUnits: 5000, actor: 'API key: CI key' });
      expect(got.body.data.counts).to.deep.equal({ campaigns: 1, adSets: 1, ads: 1 });
      expect(Math.abs(Number(got.timestamp) * 1000 - Date.now())).to.be.below(60_000);

      // The live budget edit reports budget.changed to the same endpoint, after launch.published.
      const edit = await api(
        'POST',
        `/launches/${built.launchId}/nodes/${built.campaignId}/live-budget`,
        { level: 'CAMPAIGN', budgetType: 'daily', amount: 7000 },
        idem('edit'),
      );
      expect(edit.status).to.equal(200);
      await mine.waitFor(2);
      expect(mine.received[1].body).to.deep.include({ type: 'budget.changed' });
      expect(mine.received[1].body.data).to.deep.include({ nodeId: built.campaignId, level: 'campaign', budget: { period: 'daily', amountMinorUnits: 7000 } });
      expect(other.received).to.have.length(0);

      const log = await w.request('GET', `/v1/webhook-endpoints/${a.body.endpointId}/deliveries`, { key: ci });
      expect(log.status).to.equal(200);
      expect(log.body.deliveries.map((d: any) => d.eventType)).to.deep.equal(['budget.changed', 'launch.published']);
      const first = log.body.deliveries[1];
      expect(first).to.deep.include({ eventId: got.id, status: 'succeeded', nextAttemptAt: null, redeliveryOf: null });
      expect(first.attempts).to.have.length(1);
      expect(first.attempts[0]).to.deep.include({ statusCode: 200, error: null, responseExcerpt: 'ok' });
      expect(first.attempts[0].durationMs).to.be.a('number');
    });

    it('signs with every secret replaced within a day, so a receiver can switch without losing a message', async () => {
      const r = await receiver();
      const created = await create({ url: r.url, events: ['webhook.test'] });
      const id = created.body.endpointId;
      const rotated = await w.request('POST', `/v1/webhook-endpoints/${id}/rotate-secret`, { key: ci });
      expect(rotated.status).to.equal(200);
      expect(rotated.body.secret)
        .to.match(/^whsec_/)
        .and.not.equal(created.body.secret);
      expect(Date.parse(rotated.body.previousSecretExpiresAt) - Date.now()).to.be.within(23.9 * 3600_000, 24 * 3600_000);
      r.secrets = [created.body.secret, rotated.body.secret];
      const sent = await w.request('POST', `/v1/webhook-endpoints/${id}/test`, { key: ci });
      expect(sent.status).to.equal(200);
      expect(sent.body).to.deep.include({ delivered: true, statusCode: 200, error: null });
      expect(r.received[0].verifiedWith).to.deep.equal([0, 1]);
      expect(r.received[0].signature.split(' ')).to.have.length(2);
      expect(r.received[0].body).to.deep.include({ type: 'webhook.test' });
      expect(r.received[0].body.data).to.deep.equal({ endpointId: id, message: 'This is a test send from svc.' });
      // A rotation retried after a lost answer: the first secret still verifies, beside both new ones.
      const again = await w.request('POST', `/v1/webhook-endpoints/${id}/rotate-secret`, { key: ci });
      r.secrets = [created.body.secret, rotated.body.secret, again.body.secret];
      await w.request('POST', `/v1/webhook-endpoints/${id}/test`, { key: ci });
      expect(r.received[1].verifiedWith).to.deep.equal([0, 1, 2]);
      // The secret never sits in plain text in the database.
      const row = await w.service.knex('webhook_endpoints').where({ id }).first();
      expect(JSON.stringify(row)).to.not.contain(again.body.secret.slice(6, 30));
    });

    it('redelivers an event with the same webhook-id and logs the new delivery', async () => {
      const r = await receiver();
      const created = await create({ url: r.url, events: ['webhook.test'] });
      r.secrets = [created.body.secret];
      const id = created.body.endpointId;
      const sent = await w.request('POST', `/v1/webhook-endpoints/${id}/test`, { key: ci });
      const again = await w.request('POST', `/v1/webhook-endpoints/${id}/deliveries/${sent.body.deliveryId}/redeliver`, { key: ci });
      expect(again.status).to.equal(202);
      expect(again.body).to.deep.include({ eventId: sent.body.eventId, eventType: 'webhook.test', status: 'pending', redeliveryOf: sent.body.deliveryId });
      await r.waitFor(2);
      expect(r.received.map((x) => x.id)).to.deep.equal([sent.body.eventId, sent.body.eventId]);
      expect(r.received[1].verifiedWith).to.deep.equal([0]);
      await waitUntil(
        async () => (await w.request('GET', `/v1/webhook-endpoints/${id}/deliveries?status=succeeded`, { key: ci })).body.deliveries.length === 2,
        'the redelivery logged as succeeded',
      );
      const missing = await w.request('POST', `/v1/webhook-endpoints/${id}/deliveries/999999/redeliver`, { key: ci });
      expect(missing.status).to.equal(404);
      expect(missing.body.error.code).to.equal('not_found');
    });

    it('disables an endpoint whose receiver answers 410 Gone, and then refuses a test send with 409 conflict', async () => {
      const r = await receiver({ status: () => 410 });
      const created = await create({ url: r.url, events: ['webhook.test'] });
      const id = created.body.endpointId;
      const sent = await w.request('POST', `/v1/webhook-endpoints/${id}/test`, { key: ci });
      expect(sent.body).to.deep.include({ delivered: false, statusCode: 410 });
      const got = await w.request('GET', `/v1/webhook-endpoints/${id}`, { key: ci });
      expect(got.body).to.deep.include({ enabled: false, disabledReason: 'gone' });
      const refused = await w.request('POST', `/v1/webhook-endpoints/${id}/test`, { key: ci });
      expect(refused.status).to.equal(409);
      expect(refused.body.error.code).to.equal('conflict');
      expect(refused.body.error.message).to.match(/disabled \(gone\).*enabled: true/);
      // A person turning it back on clears the reason.
      const on = await w.request('PATCH', `/v1/webhook-endpoints/${id}`, { key: ci, body: { enabled: true } });
      expect(on.body).to.deep.include({ enabled: true, disabledReason: null });
      const off = await w.request('PATCH', `/v1/webhook-endpoints/${id}`, { key: ci, body: { enabled: false } });
      expect(off.body).to.deep.include({ enabled: false, disabledReason: 'manual' });
    });

    it('changes only the fields sent, and refuses an empty change, an unknown event type and an unknown field', async () => {
      const r = await receiver();
      const created = await create({ url: r.url, events: ['webhook.test'], description: 'keep me' });
      const id = created.body.endpointId;
      const changed = await w.request('PATCH', `/v1/webhook-endpoints/${id}`, { key: ci, body: { events: ['launch.published', 'launch.publish_failed'] } });
      expect(changed.status).to.equal(200);
      expect(changed.body).to.deep.include({ url: r.url, description: 'keep me', events: ['launch.published', 'launch.publish_failed'] });
      const table: Array<[string, unknown, string, string]> = [
        ['empty change', {}, 'url', 'invalid_type'],
        ['unknown event type', { events: ['launch.exploded'] }, 'events[0]', 'invalid_value'],
        ['unknown field', { colour: 'red' }, 'colour', 'unrecognized_key'],
        ['brand of another organization', { brandIds: [w.brandId('other', 'rival')] }, 'brandIds[0]', 'invalid_value'],
        ['an ftp URL', { url: 'ftp://example.com/hook' }, 'url', 'invalid_value'],
        ['a link-local address (never admitted)', { url: 'http://169.254.169.254/latest' }, 'url', 'invalid_value'],
      ];
      for (const [what, body, field, code] of table) {
        const res = await w.request('PATCH', `/v1/webhook-endpoints/${id}`, { key: ci, body });
        expect(res.status, what).to.equal(400);
        expect(res.body.error.code, what).to.equal('validation_failed');
        expect(
          res.body.error.details.map((d: any) => [d.field, d.code]),
          what,
        ).to.deep.include([field, code]);
      }
      const after = await w.request('GET', `/v1/webhook-endpoints/${id}`, { key: ci });
      expect(after.body.events).to.deep.equal(['launch.published', 'launch.publish_failed']);
    });

    it('answers 404 for an endpoint of another organization, exactly like a missing one', async () => {
      const r = await receiver();
      const created = await create({ url: r.url, events: ['webhook.test'] });
      const other = await w.request('GET', `/v1/webhook-endpoints/${created.body.endpointId}`, { key: w.key('other', 'otherKey') });
      expect(other.status).to.equal(404);
      expect(other.body.error.code).to.equal('not_found');
    });

    it('lets a brand-limited key manage only endpoints filtered to its own brands (403 brand_not_allowed otherwise)', async () => {
      const r = await receiver();
      const limited = w.key('acme', 'limited');
      const shoes = w.brandId('acme', 'shoes');
      const everyBrand = await create({ url: r.url, events: ['webhook.test'] }, limited);
      expect(everyBrand.status).to.equal(403);
      expect(everyBrand.body.error).to.deep.include({ code: 'brand_not_allowed' });
      expect(everyBrand.body.error.details.reason).to.equal('brand_not_allowed');
      const hats = await create({ url: r.url, events: ['webhook.test'], brandIds: [shoes, w.brandId('acme', 'hats')] }, limited);
      expect(hats.status).to.equal(403);
      const own = await create({ url: r.url, events: ['webhook.test'], brandIds: [shoes] }, limited);
      expect(own.status).to.equal(201);
      const widen = await w.request('PATCH', `/v1/webhook-endpoints/${own.body.endpointId}`, { key: limited, body: { brandIds: null } });
      expect(widen.status).to.equal(403);
      expect(widen.body.error.code).to.equal('brand_not_allowed');
      const orgWide = await create({ url: r.url, events: ['webhook.test'] });
      const touch = await w.request('PATCH', `/v1/webhook-endpoints/${orgWide.body.endpointId}`, { key: limited, body: { description: 'mine now' } });
      expect(touch.status).to.equal(403);
      expect(touch.body.error.code).to.equal('brand_not_allowed');
      const listed = await w.request('GET', '/v1/webhook-endpoints', { key: limited });
      const ids = listed.body.webhookEndpoints.map((e: any) => e.endpointId);
      expect(ids).to.include(own.body.endpointId);
      expect(ids).to.not.include(orgWide.body.endpointId);
    });
  });

  describe(`webhook endpoint limits and switches (${dialect})`, function () {
    this.timeout(60_000);

    it('allows 20 endpoints per organization; the 21st answers 422 unprocessable, also when created in parallel', async () => {
      const w = await startWorld({ dialect, env: { ...PRIVATE_OK, JOBS: 'off', RATE_LIMIT_CONCURRENCY: '100' } });
      try {
        const ci = w.key('acme', 'ci');
        const replies = await Promise.all(
          Array.from({ length: 24 }, (_, i) =>
            w.request('POST', '/v1/webhook-endpoints', { key: ci, body: { url: `http://127.0.0.1:9999/hook${i}`, events: ['webhook.test'] } }),
          ),
        );
        const statuses = replies.map((r) => r.status);
        expect(statuses.filter((s) => s === 201)).to.have.length(20);
        const refused = replies.filter((r) => r.status === 422);
        expect(refused).to.have.length(4);
        expect(refused[0].body.error.code).to.equal('unprocessable');
        expect(refused[0].body.error.message).to.match(/20 webhook endpoints.*Delete one first/);
        const count = await w.service.knex('webhook_endpoints').count({ n: '*' }).first();
        expect(Number(count!.n)).to.equal(20);
        // Another organization has its own 20.
        const other = await w.request('POST', '/v1/webhook-endpoints', {
          key: w.key('other', 'otherKey'),
          body: { url: 'http://127.0.0.1:9999/x', events: ['webhook.test'] },
        });
        expect(other.status).to.equal(403); // a read-only key: insufficient_scope, not the limit
        expect(other.body.error.code).to.equal('insufficient_scope');
      } finally {
        await w.close();
      }
    });

    it('answers 503 webhooks_unavailable on every webhook operation with WEBHOOKS_ENABLED=false', async () => {
      const w = await startWorld({ dialect, env: { WEBHOOKS_ENABLED: 'false' } });
      try {
        const ci = w.key('acme', 'ci');
        const calls: Array<[string, string, unknown?]> = [
          ['POST', '/v1/webhook-endpoints', { url: 'https://example.com/h', events: ['webhook.test'] }],
          ['GET', '/v1/webhook-endpoints'],
          ['GET', '/v1/webhook-endpoints/1'],
          ['PATCH', '/v1/webhook-endpoints/1', { enabled: false }],
          ['DELETE', '/v1/webhook-endpoints/1'],
          ['POST', '/v1/webhook-endpoints/1/test'],
          ['GET', '/v1/webhook-endpoints/1/deliveries'],
          ['POST', '/v1/webhook-endpoints/1/deliveries/1/redeliver'],
          ['POST', '/v1/webhook-endpoints/1/rotate-secret'],
        ];
        for (const [method, path, body] of calls) {
          const res = await w.request(method, path, { key: ci, body });
          expect(res.status, `${method} ${path}`).to.equal(503);
          expect(res.body.error.code, `${method} ${path}`).to.equal('webhooks_unavailable');
        }
      } finally {
        await w.close();
      }
    });

    it('refuses loopback, private and non-https URLs without WEBHOOK_ALLOW_PRIVATE, before any connection', async () => {
      // Deliveries are off: nothing here could send anything even if a check were missing.
      const w = await startWorld({ dialect, env: { JOBS: 'off' } });
      try {
        const ci = w.key('acme', 'ci');
        const table: Array<[string, RegExp]> = [
          ['http://example.com/hook', /must use https/],
          ['https://127.0.0.1/hook', /127\.0\.0\.1 is a loopback address/],
          ['https://10.1.2.3/hook', /is a private address/],
          ['https://192.168.0.10/hook', /is a private address/],
          ['https://172.20.0.1/hook', /is a private address/],
          ['https://169.254.169.254/latest', /is a link-local address/],
          ['https://[::1]/hook', /is a loopback address/],
          ['https://[::ffff:10.0.0.1]/hook', /IPv4-mapped IPv6 address of 10\.0\.0\.1 \(a private address\)/],
          ['https://[fd00::1]/hook', /is a unique-local address/],
          ['https://localhost/hook', /is a loopback address/],
          ['https://user:pw@example.com/hook', /user name or password/],
          ['ftp://example.com/hook', /must use https/],
          ['not a url', /absolute URL/],
        ];
        for (const [url, message] of table) {
          const res = await w.request('POST', '/v1/webhook-endpoints', { key: ci, body: { url, events: ['webhook.test'] } });
          expect(res.status, url).to.equal(400);
          expect(res.body.error.details[0], url).to.deep.include({ field: 'url', code: 'invalid_value' });
          expect(res.body.error.details[0].message, url).to.match(message);
        }
        const ok = await w.request('POST', '/v1/webhook-endpoints', { key: ci, body: { url: 'https://hooks.example.com/in', events: ['webhook.test'] } });
        expect(ok.status).to.equal(201);
      } finally {
        await w.close();
      }
    });

    it('JOBS=off serves the request but delivers nothing; the work waits in the database for a process that runs jobs', async () => {
      const w = await startWorld({ dialect, env: { ...PRIVATE_OK, JOBS: 'off' } });
      const r = await new WebhookReceiver().start();
      try {
        const ci = w.key('acme', 'ci');
        const created = await w.request('POST', '/v1/webhook-endpoints', { key: ci, body: { url: r.url, events: ['webhook.test'] } });
        const id = created.body.endpointId;
        const sent = await w.request('POST', `/v1/webhook-endpoints/${id}/test`, { key: ci });
        expect(sent.body.delivered).to.equal(true);
        const again = await w.request('POST', `/v1/webhook-endpoints/${id}/deliveries/${sent.body.deliveryId}/redeliver`, { key: ci });
        expect(again.status).to.equal(202);
        // Longer than the one-second claim interval of a process that runs jobs.
        await new Promise((d) => setTimeout(d, 1500));
        expect(r.received).to.have.length(1);
        const job = await w.service
          .knex('jobs')
          .where({ kind: 'deliver-webhook', job_key: String(again.body.deliveryId) })
          .first();
        expect(job).to.deep.include({ locked_by: null });
        expect(Number(job.run_at)).to.be.at.most(Date.now());
        await w.service.jobs.drain();
        expect(r.received.map((x) => x.id)).to.deep.equal([sent.body.eventId, sent.body.eventId]);
      } finally {
        await r.close();
        await w.close();
      }
    });

    it('refuses a delivery whose host resolves to a private address at send time (public when saved); nothing is sent', async () => {
      // DNS says the name is public when the endpoint is saved, and points into a private network at send time.
      const resolver = fakeResolver({ 'hooks.example.net': [['93.184.216.34'], ['10.20.30.40']] });
      const asked = resolver.lookups;
      const w = await startWorld({ dialect, env: { JOBS: 'off' }, resolveHost: resolver });
      try {
        const ci = w.key('acme', 'ci');
        const created = await w.request('POST', '/v1/webhook-endpoints', { key: ci, body: { url: 'https://hooks.example.net/in', events: ['webhook.test'] } });
        expect(created.status).to.equal(201);
        const sent = await w.request('POST', `/v1/webhook-endpoints/${created.body.endpointId}/test`, { key: ci });
        expect(sent.status).to.equal(200);
        expect(sent.body).to.deep.include({ delivered: false, statusCode: null });
        expect(sent.body.error).to.match(/refused: hooks\.example\.net resolves to 10\.20\.30\.40.*nothing was sent/);
        expect(asked).to.deep.equal(['hooks.example.net', 'hooks.example.net']);
        const log = await w.request('GET', `/v1/webhook-endpoints/${created.body.endpointId}/deliveries`, { key: ci });
        expect(log.body.deliveries[0]).to.deep.include({ status: 'failed' });
        expect(log.body.deliveries[0].attempts[0]).to.deep.include({ statusCode: null });
      } finally {
        await w.close();
      }
    });
  });
}
