// A new operation places itself from its example file (schemas/examples/<operation>.json): the REST
// examples replay in an order its `after` names, and an MCP tool without a written example gets one
// made from the REST example, its ids taken from the fixture and from what earlier tools answered.

import { expect } from 'chai';
import type { OperationExample } from '../../src/schemas/examples.js';
import { replayOrder } from '../helpers/api-examples.js';
import { derivedExample, type Answers, type ToolFixture } from '../helpers/tool-examples.js';

const example = (after?: string, request: OperationExample['request'] = {}): OperationExample => ({ after, request, response: { status: 200, body: {} } });

describe('examples placed and made from their files', () => {
  it('replays the listed examples first, each other right after the one its `after` names, the rest last in name order', () => {
    const examples = new Map<string, OperationExample>([
      ['create-thing', example()],
      ['list-things', example()],
      ['delete-thing', example()],
      ['zeta-read', example()],
      ['get-thing-part', example('get-thing')],
      ['get-thing', example('list-things')],
      ['alpha-read', example()],
      ['also-after-list', example('list-things')],
      ['after-nothing', example('no-such-operation')],
    ]);
    expect(replayOrder(['create-thing', 'list-things', 'not-an-example', 'delete-thing'], examples)).to.deep.equal([
      'create-thing',
      'list-things',
      'also-after-list',
      'get-thing',
      'get-thing-part',
      'delete-thing',
      'after-nothing',
      'alpha-read',
      'zeta-read',
    ]);
  });

  it("makes a tool example from a REST example: the fixture's brand, the latest answered id of each name, a fresh idempotency key", () => {
    const fx = { brandId: 42, accountId: 'act_9', creativeId: 5, receiverUrl: 'http://127.0.0.1:1/hook' } as ToolFixture;
    const answers: Answers = new Map<string, unknown>([
      ['create_thing', { thingId: 7, brandId: 42 }],
      ['test_thing', { deliveryId: 9 }],
      ['list_deliveries', { deliveries: [{ deliveryId: 11 }, { deliveryId: 10 }] }],
    ]);
    const made = derivedExample(
      'redo_delivery',
      example(undefined, {
        path: { brandId: 1, thingId: 1, deliveryId: 1 },
        query: { limit: 5, missingId: 3 },
        body: { url: 'https://hooks.example.com/svc', note: 'kept' },
        headers: { 'Idempotency-Key': 'example-key' },
      }),
    );
    const args = made.args(fx, answers);
    expect(made.tool).to.equal('redo_delivery');
    expect(args).to.deep.include({ brandId: 42, thingId: 7, deliveryId: 11, limit: 5, missingId: 3, url: fx.receiverUrl, note: 'kept' });
    expect(args.idempotencyKey)
      .to.be.a('string')
      .and.match(/^redo_delivery-/);
  });
});
