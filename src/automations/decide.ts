// The engine's decisions, as pure functions of what a cycle read (live objects, delivery per level
// and window, the ledger) and of the clock: per automation and object, the metrics over each
// condition window, the guard (insufficient_data), whether the conditions hold, what the rule wants
// (pause, resume, notify), and why it does not (a pending retry, loop_detected, already_paused,
// paused_by_person: a resume only ever turns on what this automation paused, cooldown,
// daily_limit_reached, shadow; tracker_unavailable when its tracker metrics could not be read). Nothing here reads the database or the clock.

import type { InsightsLevel, ObjectInsights } from '../platforms/port.js';
import { localDate, localHourStart } from '../time/zones.js';
import { METRICS, holds } from './metrics.js';
import type { Automation, RunObject } from './rule.js';
import type { HoldRow, LedgerAction } from './store.js';

/** A live object of the account as the engine sees it. */
export interface LiveObject {
  nodeId: string;
  launchId: number;
  level: InsightsLevel;
  objectId: string;
  name: string | null;
  status: 'ACTIVE' | 'PAUSED';
  /** The node's updated_at: a hold whose recorded value differs was changed since by someone else. */
  updatedAt: number;
  createdAt: number;
}

/** What the account's automations did lately, as the decisions look it up. */
export interface Ledger {
  /** Actions since ledgerSince(), oldest first. */
  actions: LedgerAction[];
  /** The same actions by object id, oldest first (the decisions look at one object's at a time). */
  byObject: Map<string, LedgerAction[]>;
  /** `<automationId>:<nodeId>` → the hold of a node an automation paused. */
  holds: Map<string, { nodeUpdatedAt: number; pausedAt: number }>;
  /** Automations holding each node paused. */
  holders: Map<string, Set<number>>;
  /** `<automationId>:<nodeId>` of actions waiting for a retry. */
  pending: Set<string>;
}

/** Another automation acting the other way on an object within this long is a loop. */
export const LOOP_WINDOW_MS = 24 * 60 * 60 * 1000;

const opposite: Record<'paused' | 'resumed', 'paused' | 'resumed'> = { paused: 'resumed', resumed: 'paused' };

const NONE: LedgerAction[] = [];

export const holdKey = (automationId: number, nodeId: string) => `${automationId}:${nodeId}`;

/** The ledger of the stored rows, and the `<automationId>:<nodeId>` pairs with an action waiting for a retry. */
export function ledgerFrom(rows: { actions: LedgerAction[]; holds: HoldRow[] }, pending: Set<string> = new Set()): Ledger {
  const holders = new Map<string, Set<number>>();
  for (const h of rows.holds) holders.set(h.nodeId, (holders.get(h.nodeId) ?? new Set<number>()).add(h.automationId));
  const byObject = new Map<string, LedgerAction[]>();
  for (const x of rows.actions) {
    const list = byObject.get(x.objectId);
    if (list) list.push(x);
    else byObject.set(x.objectId, [x]);
  }
  return {
    holders,
    actions: rows.actions,
    byObject,
    holds: new Map(rows.holds.map((h) => [holdKey(h.automationId, h.nodeId), { nodeUpdatedAt: h.nodeUpdatedAt, pausedAt: h.pausedAt }])),
    pending,
  };
}

/** How far back the ledger is read at `now`: the loop window (with two hours to spare) or the longest cooldown. */
export function ledgerSince(automations: Automation[], now: number): number {
  const longestCooldown = Math.max(0, ...automations.map((a) => a.cooldownMinutes)) * 60_000;
  return now - Math.max(LOOP_WINDOW_MS + 2 * 3_600_000, longestCooldown);
}

/** Start of the account's local day containing `now` (the daily limit counts from it). */
export function localDayStart(now: number, timeZone: string): number {
  return localHourStart(localDate(now, timeZone), 0, timeZone);
}

/** The objects an automation watches among the account's live objects of its level. */
export function targetsOf(a: Automation, live: LiveObject[]): LiveObject[] {
  if (!a.objectIds) return live;
  const wanted = new Set(a.objectIds);
  return live.filter((o) => wanted.has(o.objectId));
}

export interface Decision {
  automation: Automation;
  object: LiveObject;
  entry: RunObject;
}

export interface DecideInput {
  /** The account's automations, in the order they are decided (by id). */
  automations: Automation[];
  /** Automation id → the objects it watches. */
  targets: Map<number, LiveObject[]>;
  /** `<level>|<window>` → objectId → the object's delivery over the window. */
  delivery: Map<string, Map<string, ObjectInsights>>;
  ledger: Ledger;
  /** The cycle's clock. */
  now: number;
  /** Start of the account's local day containing `now` (the daily limit counts from it). */
  dayStart: number;
  /** Automations judged on tracker metrics whose tracker did not answer in this cycle: their objects are skipped, nothing changed. */
  trackerUnavailable?: ReadonlySet<number>;
  /** Automations whose run's cause does not hold publish: resuming is money, so they pause but resume nothing (skipReason publish_scope_missing). */
  resumeRefused?: ReadonlySet<number>;
}

/**
 * Reads an object's metrics over every condition window into `entry` (`windows[i]`: the delivery
 * over the window of condition i); false when the guard fails in any of them.
 */
function readMetrics(a: Automation, o: LiveObject, windows: Array<Map<string, ObjectInsights> | undefined>, entry: RunObject): boolean {
  let enough = true;
  for (let i = 0; i < a.conditions.length; i++) {
    const c = a.conditions[i];
    const d = windows[i]?.get(o.objectId);
    const values = (entry.metrics[c.window] ??= {});
    if (!d) continue;
    values[c.metric] = METRICS[c.metric].read(d);
    if ((a.guard.minImpressions !== null && d.impressions < a.guard.minImpressions) || (a.guard.minSpend !== null && d.spendMinorUnits < a.guard.minSpend)) {
      enough = false;
      values.impressions = d.impressions;
      values.spend = d.spendMinorUnits;
    }
  }
  return enough;
}

/**
 * What a resume of `o` by `a` may do: go ahead only on a node this automation holds paused and
 * nobody touched since; otherwise nothing (another automation paused it and this one never did),
 * loop_detected (another automation paused it again since) or paused_by_person.
 */
function resumeVerdict(a: Automation, o: LiveObject, ledger: Ledger): 'go' | 'nothing' | 'loop_detected' | 'paused_by_person' {
  const hold = ledger.holds.get(holdKey(a.id, o.nodeId));
  if (hold && hold.nodeUpdatedAt === o.updatedAt) return 'go';
  const holders = ledger.holders.get(o.nodeId);
  const byAutomation =
    (holders !== undefined && (holders.size > 1 || !holders.has(a.id))) ||
    (ledger.byObject.get(o.objectId) ?? NONE).some((x) => x.automationId !== a.id && x.action === 'paused' && x.at >= (hold?.pausedAt ?? 0));
  if (!hold && byAutomation) return 'nothing';
  return byAutomation ? 'loop_detected' : 'paused_by_person';
}

/**
 * Decides every (automation, object) pair of one account's cycle, in order: a direction decided
 * for an object in this cycle makes a later automation going the other way a loop, and the daily
 * limit counts the actions decided so far.
 */
export function decide(input: DecideInput): Decision[] {
  const { ledger, now } = input;
  /** Directions decided in this cycle, per object: a later automation going the other way is a loop. */
  const cycle = new Map<string, { automationId: number; action: 'paused' | 'resumed' }>();
  const decisions: Decision[] = [];
  const today = new Map<number, number>();
  for (const x of ledger.actions) if (x.at >= input.dayStart) today.set(x.automationId, (today.get(x.automationId) ?? 0) + 1);
  for (const a of input.automations) {
    let actionsToday = today.get(a.id) ?? 0;
    // The delivery over each condition's window, looked up once per automation.
    const windows = a.conditions.map((c) => input.delivery.get(`${a.level}|${c.window}`));
    for (const o of input.targets.get(a.id) ?? []) {
      const entry: RunObject = {
        objectId: o.objectId,
        nodeId: o.nodeId,
        level: o.level,
        name: o.name,
        metrics: {},
        conditions: [],
        matched: false,
        intended: null,
        action: 'none',
        skipReason: null,
        error: null,
      };
      decisions.push({ automation: a, object: o, entry });
      if (input.trackerUnavailable?.has(a.id)) {
        entry.skipReason = 'tracker_unavailable';
        continue;
      }
      // Read every window the rule names; the guard must hold in each before any condition is judged.
      if (!readMetrics(a, o, windows, entry)) {
        entry.skipReason = 'insufficient_data';
        continue;
      }
      entry.conditions = a.conditions.map((c) => holds(entry.metrics[c.window]?.[c.metric] ?? null, c.operator, c.value));
      entry.matched = entry.conditions.every(Boolean);

      if (entry.matched) entry.intended = a.action === 'notify' ? 'notify' : 'pause';
      else if (a.resumeWhenClear && o.status === 'PAUSED') entry.intended = 'resume';
      if (!entry.intended) continue;

      if (ledger.pending.has(holdKey(a.id, o.nodeId))) {
        entry.error = 'An earlier action on this object is waiting for a retry.';
        continue;
      }
      const direction = entry.intended === 'pause' ? 'paused' : entry.intended === 'resume' ? 'resumed' : null;
      // Another automation going the other way on this object (in this cycle or the last day) is a loop.
      const past = ledger.byObject.get(o.objectId) ?? NONE;
      if (direction) {
        const other = cycle.get(o.objectId);
        const recent = past.some((x) => x.automationId !== a.id && x.action === opposite[direction] && x.at >= now - LOOP_WINDOW_MS);
        if ((other && other.automationId !== a.id && other.action !== direction) || recent) {
          entry.skipReason = 'loop_detected';
          continue;
        }
      }
      if (entry.intended === 'pause' && o.status === 'PAUSED') {
        entry.skipReason = 'already_paused';
        continue;
      }
      if (entry.intended === 'resume') {
        // Only what this automation paused, untouched since, is ever turned back on.
        const verdict = resumeVerdict(a, o, ledger);
        if (verdict === 'nothing') {
          entry.intended = null;
          continue;
        }
        if (verdict !== 'go') {
          entry.skipReason = verdict;
          continue;
        }
        if (input.resumeRefused?.has(a.id)) {
          entry.skipReason = 'publish_scope_missing';
          continue;
        }
      }
      let last: LedgerAction | undefined;
      for (let i = past.length - 1; i >= 0 && !last; i--) if (past[i].automationId === a.id) last = past[i];
      if (last && a.cooldownMinutes > 0 && last.at > now - a.cooldownMinutes * 60_000) {
        entry.skipReason = 'cooldown';
        continue;
      }
      if (actionsToday >= a.maxActionsPerDay) {
        entry.skipReason = 'daily_limit_reached';
        continue;
      }
      if (direction) cycle.set(o.objectId, { automationId: a.id, action: direction });
      if (a.mode === 'shadow') {
        entry.skipReason = 'shadow';
        continue;
      }
      actionsToday++;
    }
  }
  return decisions;
}
