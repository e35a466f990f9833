// An automation as the engine and the answers see it: the rule's fields, a run's objects and its
// public view. It acts through the account's batch operation (actions.ts), which records each change
// in activity as `Automation: <name>`.

import type { InsightsLevel } from '../platforms/port.js';
import type { MetricName, Operator } from './metrics.js';
import type { RuleWindow } from './windows.js';

export type AutomationAction = 'pause' | 'notify' | 'pause_and_notify';
export type Frequency = 'every_15_minutes' | 'hourly' | 'daily';
export type Mode = 'live' | 'shadow';

/** A credential named by id: an API key, or a person's OAuth grant. */
export interface SavedBy {
  kind: 'api_key' | 'user';
  apiKeyId: number | null;
  grantId: number | null;
}
export type AutomationStatus = 'ACTIVE' | 'PAUSED';

export type SkipReason =
  | 'cooldown'
  | 'daily_limit_reached'
  | 'insufficient_data'
  | 'already_paused'
  | 'shadow'
  | 'paused_by_person'
  | 'loop_detected'
  | 'tracker_unavailable'
  | 'publish_scope_missing';
export type Intent = 'pause' | 'resume' | 'notify';
export type Outcome = 'paused' | 'resumed' | 'notified' | 'none';

/** One object of one run: what was read, whether the rule matched, and what was done or why not. */
export interface RunObject {
  objectId: string;
  nodeId: string;
  level: InsightsLevel;
  name: string | null;
  metrics: Partial<Record<RuleWindow, Partial<Record<MetricName, number | null>>>>;
  conditions: boolean[];
  matched: boolean;
  intended: Intent | null;
  action: Outcome;
  skipReason: SkipReason | null;
  error: string | null;
}

export interface Condition {
  metric: MetricName;
  window: RuleWindow;
  operator: Operator;
  value: number;
}

export interface Guard {
  minImpressions: number | null;
  minSpend: number | null;
}

export interface Automation {
  id: number;
  organizationId: number;
  brandId: number;
  accountId: string;
  name: string;
  status: AutomationStatus;
  level: InsightsLevel;
  objectIds: string[] | null;
  conditions: Condition[];
  guard: Guard;
  action: AutomationAction;
  frequency: Frequency;
  dailyHour: number | null;
  cooldownMinutes: number;
  maxActionsPerDay: number;
  mode: Mode;
  resumeWhenClear: boolean;
  createdByUserId: number;
  /** The credential that last saved it (created, changed, armed or disarmed it): a scheduled run's cause; null when saved before this was recorded. */
  savedBy: SavedBy | null;
  lastRunAt: number | null;
  createdAt: number;
  updatedAt: number;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** The automation as answered (resource `automation`), with when its job runs it next. */
export function automationView(a: Automation, nextRunAt: number | null): Record<string, unknown> {
  return {
    automationId: a.id,
    automationName: a.name,
    accountId: a.accountId,
    level: a.level,
    objectIds: a.objectIds,
    conditions: a.conditions,
    guard: a.guard,
    action: a.action,
    actionLevel: a.level,
    frequency: a.frequency,
    dailyHour: a.dailyHour,
    cooldownMinutes: a.cooldownMinutes,
    maxActionsPerDay: a.maxActionsPerDay,
    mode: a.mode,
    resumeWhenClear: a.resumeWhenClear,
    status: a.status,
    nextRunAt: a.status === 'ACTIVE' ? iso(nextRunAt) : null,
    lastRunAt: iso(a.lastRunAt),
    createdAt: iso(a.createdAt),
    updatedAt: iso(a.updatedAt),
  };
}
