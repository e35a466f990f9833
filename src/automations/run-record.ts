// A run's objects as stored: one compact record per run (automation_runs.objects). What every
// object of a run shares is written once: the shapes of the metrics it read (the windows and metric
// names, in order), and the enumerations as one-character codes. Each object is then one array:
// [objectId, nodeId, name, shape, values, conditions, code] and its error when it has one. The
// record reads back as the same RunObject list (list-automation-runs answers it unchanged); runs
// stored before it as a JSON array of whole objects read as they are. A cycle of 50,000 objects
// writes about 100 bytes per object instead of 255.

import type { InsightsLevel } from '../platforms/port.js';
import type { MetricName } from './metrics.js';
import type { Intent, Outcome, RunObject, SkipReason } from './rule.js';
import type { RuleWindow } from './windows.js';

// The codes are positions in these lists: append only, never reorder (stored records name them).
const LEVELS: InsightsLevel[] = ['campaign', 'adset', 'ad'];
const INTENTS: Array<Intent | null> = [null, 'pause', 'resume', 'notify'];
const OUTCOMES: Outcome[] = ['none', 'paused', 'resumed', 'notified'];
const SKIPS: Array<SkipReason | null> = [
  null,
  'cooldown',
  'daily_limit_reached',
  'insufficient_data',
  'already_paused',
  'shadow',
  'paused_by_person',
  'loop_detected',
  'tracker_unavailable',
  'publish_scope_missing',
];

/** The windows an object read, in order, each with its metric names in order. */
type Shape = Array<[RuleWindow, MetricName[]]>;

/** One object: [objectId, nodeId, name, shape index, values, conditions ("1"/"0" each), code (level, matched, intended, action, skip)], then its error if any. */
type Row =
  | [string, string, string | null, number, Array<number | null>, string, string]
  | [string, string, string | null, number, Array<number | null>, string, string, string];

interface RunRecord {
  /** Version of the record's form. */
  v: 1;
  shapes: Shape[];
  objects: Row[];
}

const codeOf = (list: readonly unknown[], value: unknown): string => {
  const i = list.indexOf(value);
  if (i < 0) throw new Error(`no code for ${JSON.stringify(value)} in a run record`);
  return String.fromCharCode(48 + i);
};

/** The stored text of a run's objects. */
export function encodeRunObjects(objects: RunObject[]): string {
  const shapes: Shape[] = [];
  const shapeIndex = new Map<string, number>();
  const rows: Row[] = [];
  for (const o of objects) {
    const shape: Shape = [];
    const values: Array<number | null> = [];
    let key = '';
    for (const [window, metrics] of Object.entries(o.metrics) as Array<[RuleWindow, Partial<Record<MetricName, number | null>>]>) {
      const names = Object.keys(metrics) as MetricName[];
      shape.push([window, names]);
      key += `${window}:${names.join(',')};`;
      for (const name of names) values.push(metrics[name] ?? null);
    }
    let index = shapeIndex.get(key);
    if (index === undefined) {
      index = shapes.push(shape) - 1;
      shapeIndex.set(key, index);
    }
    const code = codeOf(LEVELS, o.level) + (o.matched ? '1' : '0') + codeOf(INTENTS, o.intended) + codeOf(OUTCOMES, o.action) + codeOf(SKIPS, o.skipReason);
    const conditions = o.conditions.map((c) => (c ? '1' : '0')).join('');
    rows.push(
      o.error === null
        ? [o.objectId, o.nodeId, o.name, index, values, conditions, code]
        : [o.objectId, o.nodeId, o.name, index, values, conditions, code, o.error],
    );
  }
  return JSON.stringify({ v: 1, shapes, objects: rows } satisfies RunRecord);
}

/** A run's objects from their stored text (a record, or the whole-object list runs were stored as before). */
export function decodeRunObjects(text: string): RunObject[] {
  const stored = JSON.parse(text) as RunRecord | RunObject[];
  if (Array.isArray(stored)) return stored;
  const at = (list: readonly unknown[], code: string, i: number) => list[code.charCodeAt(i) - 48];
  return stored.objects.map((row) => {
    const [objectId, nodeId, name, shapeIndex, values, conditions, code, error] = row;
    const metrics: RunObject['metrics'] = {};
    let k = 0;
    for (const [window, names] of stored.shapes[shapeIndex]) {
      const read: Partial<Record<MetricName, number | null>> = {};
      for (const metric of names) read[metric] = values[k++];
      metrics[window] = read;
    }
    return {
      objectId,
      nodeId,
      level: at(LEVELS, code, 0) as InsightsLevel,
      name,
      metrics,
      conditions: [...conditions].map((c) => c === '1'),
      matched: code[1] === '1',
      intended: at(INTENTS, code, 2) as Intent | null,
      action: at(OUTCOMES, code, 3) as Outcome,
      skipReason: at(SKIPS, code, 4) as SkipReason | null,
      error: error ?? null,
    };
  });
}
