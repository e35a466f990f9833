// The event catalogue matches its schemas and the enum webhook endpoints subscribe with; the
// outbox refuses what the catalogue does not know; signatures match the standardwebhooks
// library's; retries wait as documented (the address rule: outbound-policy.test.ts).

import fs from 'node:fs';
import { expect } from 'chai';
import { Webhook } from 'standardwebhooks';
import { EVENT_TYPES } from '../../src/events/catalogue.js';
import { EventOutbox } from '../../src/events/outbox.js';
import { SchemaRegistry } from '../../src/schemas/registry.js';
import { projectPath } from '../../src/paths.js';
import { newWebhookSecret, signatureHeader } from '../../src/webhooks/signing.js';
import { retryDelayMs } from '../../src/webhooks/deliver.js';

describe('event catalogue', () => {
  const schemas = new SchemaRegistry();

  it('has one schema file per event type, and the event-type enum lists exactly the catalogue', () => {
    const files = fs
      .readdirSync(projectPath('schemas', 'events'))
      .map((f) => f.replace(/\.json$/, ''))
      .sort();
    const types = EVENT_TYPES.map((e) => e.type).sort();
    expect(files).to.deep.equal(types);
    expect((schemas.get('event-type').enum as string[]).slice().sort()).to.deep.equal(types);
    for (const e of EVENT_TYPES) {
      expect(() => schemas.compile(e.schema), e.type).to.not.throw();
      expect(schemas.get(e.schema).additionalProperties, e.type).to.equal(false);
    }
  });

  it('includes every event type the monitoring half relies on', () => {
    expect(EVENT_TYPES.map((e) => e.type)).to.include.members([
      'launch.published',
      'launch.publish_failed',
      'budget.changed',
      'spend_ceiling.exceeded',
      'automation.triggered',
      'automation.action_failed',
      'workflow.execution.finished',
      'workflow.review.requested',
      'pipeline.card.moved',
      'tracker.push.failed',
      'tracker.push.disabled',
      'webhook.test',
    ]);
  });

  it("refuses an unknown type or data that breaks the type's schema before writing anything", async () => {
    const outbox = new EventOutbox(null as never, schemas, Date.now, true, () => {});
    const writes: string[] = [];
    const db = ((table: string) => ({ insert: async () => (writes.push(table), [1]) })) as any;
    let err = await outbox.emit(db, { organizationId: 1, brandId: 1, type: 'launch.exploded', data: {} }).catch((e) => e);
    expect(err.message).to.match(/"launch\.exploded" is not in the catalogue/);
    err = await outbox.emit(db, { organizationId: 1, brandId: 1, type: 'tracker.push.disabled', data: { brandId: 1, reason: 'tired' } }).catch((e) => e);
    expect(err.message).to.match(/tracker\.push\.disabled breaks its schema/);
    expect(writes).to.deep.equal([]);
  });
});

describe('webhook signatures', () => {
  it("equal the standardwebhooks library's, and verify with each secret during a rotation", () => {
    const [a, b] = [newWebhookSecret(), newWebhookSecret()];
    const id = 'evt_abc';
    const at = new Date(Math.floor(Date.now() / 1000) * 1000);
    const body = '{"type":"webhook.test","timestamp":"2030-01-01T00:00:00.000Z","data":{}}';
    expect(signatureHeader([a], id, at.getTime() / 1000, body)).to.equal(new Webhook(a).sign(id, at, body));
    const both = signatureHeader([b, a], id, at.getTime() / 1000, body);
    const headers = { 'webhook-id': id, 'webhook-timestamp': String(at.getTime() / 1000), 'webhook-signature': both };
    expect(new Webhook(a).verify(body, headers)).to.deep.equal(JSON.parse(body));
    expect(new Webhook(b).verify(body, headers)).to.deep.equal(JSON.parse(body));
    expect(() => new Webhook(newWebhookSecret()).verify(body, headers)).to.throw();
  });
});

describe('webhook retries', () => {
  it('waits 5 s, 5 min, 30 min, 2 h, 5 h and then 10 h between attempts', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 12].map(retryDelayMs)).to.deep.equal([5e3, 3e5, 18e5, 72e5, 18e6, 36e6, 36e6, 36e6]);
  });
});
