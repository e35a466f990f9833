// The automation engine's decisions with a fixed clock, no database and no platform: the metrics
// over each condition window and the guard, the intent, a pending retry, loop detection (in the
// last day and within one cycle), already_paused, resuming only what the automation itself paused,
// cooldown, the daily action limit in the account's local day, shadow mode, and the retry timing
// of a failed action.

import { expect } from 'chai';
import { LOOP_WINDOW_MS, decide, holdKey, ledgerFrom, ledgerSince, localDayStart, targetsOf, type LiveObject } from '../../src/automations/decide.js';
import { MAX_ACTION_ATTEMPTS, actionRetryDelay } from '../../src/automations/engine.js';
import type { Automation, Condition } from '../../src/automations/rule.js';
import type { HoldRow, LedgerAction } from '../../src/automations/store.js';
import type { ObjectInsights } from '../../src/platforms/port.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
/** Saturday 2030-03-09 10:00 in New York (EST). */
const NOW = Date.UTC(2030, 2, 9, 15, 0);
/** Midnight of that Saturday in New York. */
const DAY_START = Date.UTC(2030, 2, 9, 5, 0);

const NO_RESULTS: Condition[] = [
  { metric: 'spend', window: 'today', operator: 'gt', value: 100 },
  { metric: 'results', window: 'today', operator: 'lt', value: 1 },
];

function automation(id: number, fields: Partial<Automation> = {}): Automation {
  return {
    id,
    organizationId: 1,
    brandId: 1,
    accountId: 'act_1',
    name: `Rule ${id}`,
    status: 'ACTIVE',
    level: 'campaign',
    objectIds: null,
    conditions: NO_RESULTS,
    guard: { minImpressions: null, minSpend: null },
    action: 'pause',
    frequency: 'every_15_minutes',
    dailyHour: null,
    cooldownMinutes: 60,
    maxActionsPerDay: 20,
    mode: 'live',
    resumeWhenClear: false,
    createdByUserId: 1,
    savedBy: null,
    lastRunAt: null,
    createdAt: NOW - 10 * HOUR,
    updatedAt: NOW - 10 * HOUR,
    ...fields,
  };
}

function object(n: number, fields: Partial<LiveObject> = {}): LiveObject {
  return {
    nodeId: `nd_${n}`,
    launchId: 1,
    level: 'campaign',
    objectId: `obj_${n}`,
    name: `Campaign ${n}`,
    status: 'ACTIVE',
    updatedAt: NOW - 5 * HOUR,
    createdAt: NOW - 48 * HOUR,
    ...fields,
  };
}

/** A burner: spends, no results. */
const BURNING = { spendMinorUnits: 5_000, impressions: 4_000, clicks: 40, results: 0, revenueMinorUnits: 0, reach: 2_000 };
/** A winner: spends and converts. */
const CONVERTING = { spendMinorUnits: 5_000, impressions: 4_000, clicks: 40, results: 3, revenueMinorUnits: 20_000, reach: 2_000 };

interface World {
  automations: Automation[];
  objects: LiveObject[];
  /** `<window>` → objectId → delivery (level campaign). */
  delivery?: Record<string, Record<string, Omit<ObjectInsights, 'objectId'>>>;
  actions?: LedgerAction[];
  holds?: HoldRow[];
  pending?: Array<{ automationId: number; nodeId: string }>;
  now?: number;
}

/** Decides a world; every object burns today unless `delivery` says otherwise. */
function decideWorld(w: World) {
  const today = w.delivery?.today ?? Object.fromEntries(w.objects.map((o) => [o.objectId, BURNING]));
  const windows = { ...w.delivery, today };
  const delivery = new Map(
    Object.entries(windows).map(([window, byObject]) => [
      `campaign|${window}`,
      new Map(Object.entries(byObject).map(([objectId, d]) => [objectId, { objectId, ...d }])),
    ]),
  );
  const decisions = decide({
    automations: w.automations,
    targets: new Map(w.automations.map((a) => [a.id, targetsOf(a, w.objects)])),
    delivery,
    ledger: ledgerFrom({ actions: w.actions ?? [], holds: w.holds ?? [] }, new Set((w.pending ?? []).map((p) => holdKey(p.automationId, p.nodeId)))),
    now: w.now ?? NOW,
    dayStart: DAY_START,
  });
  return {
    entries: decisions.map((d) => d.entry),
    of: (a: Automation, o: LiveObject) => decisions.find((d) => d.automation.id === a.id && d.object.objectId === o.objectId)!.entry,
  };
}

const paused = (automationId: number, o: LiveObject, at: number): LedgerAction => ({ automationId, objectId: o.objectId, action: 'paused', at });
const resumed = (automationId: number, o: LiveObject, at: number): LedgerAction => ({ automationId, objectId: o.objectId, action: 'resumed', at });

describe('automation engine decisions (fixed clock)', () => {
  describe('windows, metrics and conditions', () => {
    it('reads each condition metric over its own window and matches when every condition holds', () => {
      const a = automation(1, {
        conditions: [
          { metric: 'spend', window: 'today', operator: 'gt', value: 100 },
          { metric: 'ctr', window: 'last_7d', operator: 'lt', value: 2 },
        ],
      });
      const o = object(1);
      const { of } = decideWorld({
        automations: [a],
        objects: [o],
        delivery: { last_7d: { [o.objectId]: { ...BURNING, impressions: 10_000, clicks: 100 } } },
      });
      const e = of(a, o);
      expect(e.metrics).to.deep.equal({ today: { spend: 5_000 }, last_7d: { ctr: 1 } });
      expect(e.conditions).to.deep.equal([true, true]);
      expect(e).to.include({ matched: true, intended: 'pause', skipReason: null, error: null });
    });

    it('does not match when one condition fails, and intends nothing', () => {
      const a = automation(1);
      const o = object(1);
      const e = decideWorld({ automations: [a], objects: [o], delivery: { today: { [o.objectId]: CONVERTING } } }).of(a, o);
      expect(e.conditions).to.deep.equal([true, false]);
      expect(e).to.include({ matched: false, intended: null, skipReason: null });
    });

    it('never holds a condition on an undefined metric (a ratio over zero) or on an object with no delivery', () => {
      const a = automation(1, { conditions: [{ metric: 'costPerResult', window: 'today', operator: 'gt', value: 0 }] });
      const [o1, o2] = [object(1), object(2)];
      const { of } = decideWorld({ automations: [a], objects: [o1, o2], delivery: { today: { [o1.objectId]: BURNING } } });
      expect(of(a, o1).metrics).to.deep.equal({ today: { costPerResult: null } });
      expect(of(a, o1).conditions).to.deep.equal([false]);
      expect(of(a, o2).metrics).to.deep.equal({ today: {} });
      expect(of(a, o2)).to.include({ matched: false, intended: null });
    });

    it('watches only the objects named in objectIds, or every live object of the level', () => {
      const objects = [object(1), object(2), object(3)];
      expect(targetsOf(automation(1, { objectIds: ['obj_3', 'obj_1'] }), objects).map((o) => o.objectId)).to.deep.equal(['obj_1', 'obj_3']);
      expect(targetsOf(automation(1), objects)).to.have.length(3);
    });
  });

  describe('the guard', () => {
    it('skips an object below minImpressions in any window with insufficient_data, without judging the conditions', () => {
      const a = automation(1, {
        guard: { minImpressions: 1_000, minSpend: null },
        conditions: [...NO_RESULTS, { metric: 'clicks', window: 'yesterday', operator: 'gt', value: 0 }],
      });
      const o = object(1);
      const e = decideWorld({
        automations: [a],
        objects: [o],
        delivery: { yesterday: { [o.objectId]: { ...BURNING, impressions: 999, spendMinorUnits: 80 } } },
      }).of(a, o);
      expect(e).to.include({ skipReason: 'insufficient_data', matched: false, intended: null });
      expect(e.conditions).to.deep.equal([]);
      expect(e.metrics.yesterday).to.deep.equal({ clicks: 40, impressions: 999, spend: 80 });
    });

    it('skips an object below minSpend, and judges one at the minimum', () => {
      const a = automation(1, { guard: { minImpressions: null, minSpend: 5_000 } });
      const [o1, o2] = [object(1), object(2)];
      const { of } = decideWorld({
        automations: [a],
        objects: [o1, o2],
        delivery: { today: { [o1.objectId]: { ...BURNING, spendMinorUnits: 4_999 }, [o2.objectId]: BURNING } },
      });
      expect(of(a, o1).skipReason).to.equal('insufficient_data');
      expect(of(a, o2)).to.include({ skipReason: null, intended: 'pause' });
    });
  });

  describe('intents', () => {
    it('pause and pause_and_notify intend a pause, notify a notice', () => {
      const o = object(1);
      for (const [action, intended] of [
        ['pause', 'pause'],
        ['pause_and_notify', 'pause'],
        ['notify', 'notify'],
      ] as const) {
        const a = automation(1, { action });
        expect(decideWorld({ automations: [a], objects: [o] }).of(a, o).intended).to.equal(intended);
      }
    });

    it('notifies on an object that is already paused (only a pause is skipped as already_paused)', () => {
      const o = object(1, { status: 'PAUSED' });
      const pause = automation(1);
      const notify = automation(2, { action: 'notify' });
      const { of } = decideWorld({ automations: [pause, notify], objects: [o] });
      expect(of(pause, o)).to.include({ intended: 'pause', skipReason: 'already_paused' });
      expect(of(notify, o)).to.include({ intended: 'notify', skipReason: null });
    });

    it('does nothing while an earlier action of the automation on the object waits for a retry', () => {
      const a = automation(1);
      const o = object(1);
      const e = decideWorld({ automations: [a], objects: [o], pending: [{ automationId: 1, nodeId: o.nodeId }] }).of(a, o);
      expect(e).to.include({ intended: 'pause', skipReason: null, error: 'An earlier action on this object is waiting for a retry.' });
    });
  });

  describe('resuming only what the automation paused (resumeWhenClear)', () => {
    const clear = { today: { obj_1: CONVERTING } };

    it('resumes an object it paused itself and nobody changed since', () => {
      const a = automation(1, { resumeWhenClear: true });
      const o = object(1, { status: 'PAUSED', updatedAt: NOW - 3 * HOUR });
      const e = decideWorld({
        automations: [a],
        objects: [o],
        delivery: clear,
        holds: [{ automationId: 1, nodeId: o.nodeId, nodeUpdatedAt: NOW - 3 * HOUR, pausedAt: NOW - 3 * HOUR }],
        actions: [paused(1, o, NOW - 3 * HOUR)],
      }).of(a, o);
      expect(e).to.include({ matched: false, intended: 'resume', skipReason: null });
    });

    it('leaves alone with paused_by_person an object a person paused (no hold)', () => {
      const a = automation(1, { resumeWhenClear: true });
      const o = object(1, { status: 'PAUSED' });
      expect(decideWorld({ automations: [a], objects: [o], delivery: clear }).of(a, o)).to.include({ intended: 'resume', skipReason: 'paused_by_person' });
    });

    it('leaves alone with paused_by_person an object changed since the automation paused it', () => {
      const a = automation(1, { resumeWhenClear: true });
      const o = object(1, { status: 'PAUSED', updatedAt: NOW - 2 * HOUR });
      const e = decideWorld({
        automations: [a],
        objects: [o],
        delivery: clear,
        holds: [{ automationId: 1, nodeId: o.nodeId, nodeUpdatedAt: NOW - 3 * HOUR, pausedAt: NOW - 3 * HOUR }],
        actions: [paused(1, o, NOW - 3 * HOUR)],
      }).of(a, o);
      expect(e.skipReason).to.equal('paused_by_person');
    });

    it('intends nothing on an object another automation holds paused and this one never paused', () => {
      const a = automation(1, { resumeWhenClear: true });
      const o = object(1, { status: 'PAUSED' });
      const e = decideWorld({
        automations: [a],
        objects: [o],
        delivery: clear,
        holds: [{ automationId: 2, nodeId: o.nodeId, nodeUpdatedAt: o.updatedAt, pausedAt: NOW - 30 * HOUR }],
      }).of(a, o);
      expect(e).to.include({ intended: null, skipReason: null });
    });

    it('calls it a loop when another automation paused the object again after this one did', () => {
      const a = automation(1, { resumeWhenClear: true });
      const o = object(1, { status: 'PAUSED', updatedAt: NOW - 26 * HOUR });
      const e = decideWorld({
        automations: [a],
        objects: [o],
        delivery: clear,
        holds: [{ automationId: 1, nodeId: o.nodeId, nodeUpdatedAt: NOW - 28 * HOUR, pausedAt: NOW - 28 * HOUR }],
        actions: [paused(1, o, NOW - 28 * HOUR), paused(2, o, NOW - 26 * HOUR)],
      }).of(a, o);
      expect(e.skipReason).to.equal('loop_detected');
    });

    it('never resumes without resumeWhenClear', () => {
      const a = automation(1);
      const o = object(1, { status: 'PAUSED' });
      expect(decideWorld({ automations: [a], objects: [o], delivery: clear }).of(a, o)).to.include({ intended: null, skipReason: null });
    });
  });

  describe('loop detection', () => {
    it('skips a pause when another automation resumed the object within the last day', () => {
      const a = automation(1);
      const o = object(1);
      const e = decideWorld({ automations: [a], objects: [o], actions: [resumed(2, o, NOW - LOOP_WINDOW_MS)] }).of(a, o);
      expect(e.skipReason).to.equal('loop_detected');
    });

    it('pauses when the other automation resumed it more than a day ago, or when it was this automation', () => {
      const a = automation(1);
      const o = object(1);
      expect(decideWorld({ automations: [a], objects: [o], actions: [resumed(2, o, NOW - LOOP_WINDOW_MS - 1)] }).of(a, o).skipReason).to.equal(null);
      expect(decideWorld({ automations: [a], objects: [o], actions: [resumed(1, o, NOW - 2 * HOUR)] }).of(a, o).skipReason).to.equal(null);
    });

    it('within one cycle: an automation that would pause what an earlier one resumes skips with loop_detected', () => {
      const resumer = automation(1, { conditions: [{ metric: 'spend', window: 'today', operator: 'lt', value: 1 }], resumeWhenClear: true });
      const pauser = automation(2);
      const o = object(1, { status: 'PAUSED', updatedAt: NOW - 3 * HOUR });
      const { of } = decideWorld({
        automations: [resumer, pauser],
        objects: [o],
        holds: [{ automationId: 1, nodeId: o.nodeId, nodeUpdatedAt: NOW - 3 * HOUR, pausedAt: NOW - 3 * HOUR }],
        actions: [paused(1, o, NOW - 3 * HOUR)],
      });
      expect(of(resumer, o)).to.include({ intended: 'resume', skipReason: null });
      expect(of(pauser, o)).to.include({ intended: 'pause', skipReason: 'loop_detected' });
    });

    it('within one cycle: two automations going the same way on an object is no loop', () => {
      const [first, second] = [automation(1), automation(2, { action: 'pause_and_notify' })];
      const o = object(1);
      const { of } = decideWorld({ automations: [first, second], objects: [o] });
      expect(of(first, o)).to.include({ intended: 'pause', skipReason: null });
      expect(of(second, o)).to.include({ intended: 'pause', skipReason: null });
    });
  });

  describe('cooldown', () => {
    it('leaves an object alone for cooldownMinutes after the automation acted on it', () => {
      const a = automation(1, { cooldownMinutes: 60 });
      const o = object(1);
      expect(decideWorld({ automations: [a], objects: [o], actions: [resumed(1, o, NOW - 59 * MINUTE)] }).of(a, o).skipReason).to.equal('cooldown');
      expect(decideWorld({ automations: [a], objects: [o], actions: [resumed(1, o, NOW - 60 * MINUTE)] }).of(a, o).skipReason).to.equal(null);
    });

    it('has no cooldown at 0 minutes, and counts only its own actions', () => {
      const o = object(1);
      const none = automation(1, { cooldownMinutes: 0 });
      expect(decideWorld({ automations: [none], objects: [o], actions: [resumed(1, o, NOW - MINUTE)] }).of(none, o).skipReason).to.equal(null);
      const a = automation(1);
      const other = { automationId: 2, objectId: o.objectId, action: 'notified', at: NOW - MINUTE };
      expect(decideWorld({ automations: [a], objects: [o], actions: [other] }).of(a, o).skipReason).to.equal(null);
    });

    it('reads the ledger back far enough for the loop window and the longest cooldown', () => {
      expect(ledgerSince([automation(1, { cooldownMinutes: 60 })], NOW)).to.equal(NOW - LOOP_WINDOW_MS - 2 * HOUR);
      expect(ledgerSince([automation(1), automation(2, { cooldownMinutes: 3 * 24 * 60 })], NOW)).to.equal(NOW - 3 * 24 * HOUR);
    });
  });

  describe('the daily action limit', () => {
    it("counts the automation's actions since the start of the account's local day", () => {
      const a = automation(1, { maxActionsPerDay: 2, cooldownMinutes: 0 });
      const [o1, o2] = [object(1), object(2)];
      const today = [paused(1, o2, DAY_START), paused(1, o2, DAY_START + HOUR)];
      expect(decideWorld({ automations: [a], objects: [o1], actions: today }).of(a, o1).skipReason).to.equal('daily_limit_reached');
      const yesterday = [paused(1, o2, DAY_START - 1), paused(1, o2, DAY_START - HOUR), paused(2, o2, DAY_START + HOUR)];
      expect(decideWorld({ automations: [a], objects: [o1], actions: yesterday }).of(a, o1).skipReason).to.equal(null);
    });

    it('counts the actions decided in the cycle: the object past the limit is skipped', () => {
      const a = automation(1, { maxActionsPerDay: 2 });
      const objects = [object(1), object(2), object(3)];
      const { entries } = decideWorld({ automations: [a], objects });
      expect(entries.map((e) => e.skipReason)).to.deep.equal([null, null, 'daily_limit_reached']);
    });

    it("starts the day at local midnight of the account's time zone, also on a DST day", () => {
      expect(localDayStart(NOW, 'America/New_York')).to.equal(DAY_START);
      expect(localDayStart(NOW, 'Asia/Tokyo')).to.equal(Date.UTC(2030, 2, 9, 15, 0));
      // Sunday 2030-03-10, clocks go forward at 02:00: midnight is still EST (UTC-5).
      expect(localDayStart(Date.UTC(2030, 2, 10, 20, 0), 'America/New_York')).to.equal(Date.UTC(2030, 2, 10, 5, 0));
      expect(localDayStart(Date.UTC(2030, 2, 11, 20, 0), 'America/New_York')).to.equal(Date.UTC(2030, 2, 11, 4, 0));
    });
  });

  describe('shadow mode', () => {
    it('keeps the intent, skips with shadow, and does not count against the daily limit', () => {
      const a = automation(1, { mode: 'shadow', maxActionsPerDay: 1 });
      const objects = [object(1), object(2)];
      const { entries } = decideWorld({ automations: [a], objects });
      expect(entries.map((e) => [e.intended, e.skipReason, e.action])).to.deep.equal([
        ['pause', 'shadow', 'none'],
        ['pause', 'shadow', 'none'],
      ]);
    });

    it('applies every other rule first (a shadow rule in cooldown says cooldown)', () => {
      const a = automation(1, { mode: 'shadow' });
      const o = object(1);
      expect(decideWorld({ automations: [a], objects: [o], actions: [resumed(1, o, NOW - MINUTE)] }).of(a, o).skipReason).to.equal('cooldown');
    });
  });

  describe('retry timing of a failed action', () => {
    it("waits 30 s, 2 min, 8 min, or the platform's longer wait, and gives up after MAX_ACTION_ATTEMPTS attempts", () => {
      expect([1, 2, 3].map((n) => actionRetryDelay(n, null))).to.deep.equal([30_000, 120_000, 480_000]);
      expect(actionRetryDelay(1, 600)).to.equal(600_000);
      expect(actionRetryDelay(3, 60)).to.equal(480_000);
      expect(MAX_ACTION_ATTEMPTS).to.equal(4);
    });
  });
});
