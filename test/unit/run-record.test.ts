// A run's compact record (src/automations/run-record.ts): every object reads back exactly as it was
// decided (each field, each enumeration value, key order included, so the answers' JSON is unchanged),
// runs stored before as a whole-object list read as they are, and the record is far smaller.

import { expect } from 'chai';
import { decodeRunObjects, encodeRunObjects } from '../../src/automations/run-record.js';
import type { RunObject } from '../../src/automations/rule.js';

const base: RunObject = {
  objectId: '120200000001234567',
  nodeId: 'node_9f8e7d',
  level: 'campaign',
  name: 'Campaign 12 - no results',
  metrics: { today: { spend: 12_345, results: 0 } },
  conditions: [true, true],
  matched: true,
  intended: 'pause',
  action: 'paused',
  skipReason: null,
  error: null,
};

/** Objects covering every level, intent, outcome and skip reason, and the metric shapes decide.ts writes. */
const variety: RunObject[] = [
  base,
  { ...base, objectId: 'a2', level: 'adset', name: null, intended: 'resume', action: 'resumed', conditions: [false] },
  { ...base, objectId: 'a3', level: 'ad', intended: 'notify', action: 'notified', metrics: { today: { ctr: 0.25 }, last_3d: { cpc: null } } },
  { ...base, objectId: 'a4', intended: null, action: 'none', matched: false, conditions: [true, false] },
  // The guard failed: the impressions and spend it judged, no condition judged.
  {
    ...base,
    objectId: 'a5',
    matched: false,
    intended: null,
    action: 'none',
    conditions: [],
    skipReason: 'insufficient_data',
    metrics: { today: { spend: 3, impressions: 10, results: 0 } },
  },
  // No delivery in a window: the window is there, empty.
  { ...base, objectId: 'a6', matched: false, intended: null, action: 'none', conditions: [false, false], metrics: { today: {}, lifetime: {} } },
  { ...base, objectId: 'a7', metrics: {}, conditions: [], matched: false, intended: null, action: 'none', skipReason: 'tracker_unavailable' },
  ...(['cooldown', 'daily_limit_reached', 'already_paused', 'shadow', 'paused_by_person', 'loop_detected'] as const).map((skipReason, i) => ({
    ...base,
    objectId: `s${i}`,
    action: 'none' as const,
    skipReason,
  })),
  { ...base, objectId: 'e1', action: 'none', error: 'unavailable: the platform did not answer (gave up after 4 attempts)' },
  { ...base, objectId: 'e2', intended: 'pause', action: 'none', error: 'An earlier action on this object is waiting for a retry.' },
];

describe('run records', () => {
  it('reads every object back as it was decided, key order included', () => {
    const decoded = decodeRunObjects(encodeRunObjects(variety));
    expect(decoded).to.deep.equal(variety);
    expect(JSON.stringify(decoded)).to.equal(JSON.stringify(variety));
  });

  it('keeps an empty run, and writes each metric shape of a run once', () => {
    expect(decodeRunObjects(encodeRunObjects([]))).to.deep.equal([]);
    const many = Array.from({ length: 50 }, (_, i) => ({ ...base, objectId: `o${i}`, metrics: { today: { spend: i, results: i % 2 } } }));
    const record = JSON.parse(encodeRunObjects(many));
    expect(record.v).to.equal(1);
    expect(record.shapes).to.deep.equal([[['today', ['spend', 'results']]]]);
    expect(record.objects).to.have.length(50);
  });

  it('reads a run stored before as a list of whole objects as it is', () => {
    expect(decodeRunObjects(JSON.stringify(variety))).to.deep.equal(variety);
  });

  it('stores a typical run in under half the bytes of the whole-object list', () => {
    const run = Array.from({ length: 500 }, (_, i) => ({
      ...base,
      objectId: `1202000000${String(i).padStart(8, '0')}`,
      nodeId: `node_${i.toString(16).padStart(6, '0')}`,
      name: `Campaign ${i}`,
      metrics: { today: { spend: 10_000 + i, results: i % 3 } },
      conditions: [true, i % 3 === 0],
      matched: i % 3 === 0,
      intended: i % 3 === 0 ? ('pause' as const) : null,
      action: 'none' as const,
      skipReason: i % 3 === 0 ? ('shadow' as const) : null,
    }));
    const compact = encodeRunObjects(run).length;
    const whole = JSON.stringify(run).length;
    expect(compact, `${compact} bytes against ${whole}`).to.be.below(whole / 2);
  });
});
