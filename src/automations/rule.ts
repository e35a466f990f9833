// An automation as stored and as answered: the rule's fields, its row, its public view and the
// principal it acts as (its own: `Automation: <name>` in activity, write scope, its brand only).

import type { Principal } from '../auth/principal.js';
import type { InsightsLevel } from '../platforms/port.js';
import type { MetricName, Operator } from './metrics.js';
import type { RuleWindow } from './windows.js';

export type AutomationAction = 'pause' | 'notify' | 'pause_and_notify';
export type Frequency = 'every_15_minutes' | 'hourly' | 'daily';
export type Mode = 'live' | 'shadow';
export type AutomationStatus = 'ACTIVE' | 'PAUSED';

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
  nextRunAt: number | null;
  lastRunAt: number | null;
  createdAt: number;
  updatedAt: number;
}

/** The stored JSON part of a rule. */
export type StoredRule = Pick<Automation, 'objectIds' | 'conditions' | 'guard' | 'dailyHour' | 'cooldownMinutes' | 'maxActionsPerDay' | 'resumeWhenClear'>;

export function automationOf(row: Record<string, any>): Automation {
  const rule = JSON.parse(row.rule) as StoredRule;
  return {
    id: Number(row.id),
    organizationId: Number(row.organization_id),
    brandId: Number(row.brand_id),
    accountId: row.account_id,
    name: row.name,
    status: row.status,
    level: row.level,
    action: row.action,
    frequency: row.frequency,
    mode: row.mode,
    ...rule,
    createdByUserId: Number(row.created_by_user_id),
    nextRunAt: row.next_run_at === null ? null : Number(row.next_run_at),
    lastRunAt: row.last_run_at === null ? null : Number(row.last_run_at),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

export function rowOf(a: Omit<Automation, 'id'>): Record<string, unknown> {
  const rule: StoredRule = {
    objectIds: a.objectIds,
    conditions: a.conditions,
    guard: a.guard,
    dailyHour: a.dailyHour,
    cooldownMinutes: a.cooldownMinutes,
    maxActionsPerDay: a.maxActionsPerDay,
    resumeWhenClear: a.resumeWhenClear,
  };
  return {
    organization_id: a.organizationId,
    brand_id: a.brandId,
    account_id: a.accountId,
    name: a.name,
    status: a.status,
    level: a.level,
    action: a.action,
    frequency: a.frequency,
    mode: a.mode,
    rule: JSON.stringify(rule),
    created_by_user_id: a.createdByUserId,
    next_run_at: a.nextRunAt,
    last_run_at: a.lastRunAt,
    created_at: a.createdAt,
    updated_at: a.updatedAt,
  };
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** The automation as answered (resource `automation`). */
export function automationView(a: Automation): Record<string, unknown> {
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
    nextRunAt: a.status === 'ACTIVE' ? iso(a.nextRunAt) : null,
    lastRunAt: iso(a.lastRunAt),
    createdAt: iso(a.createdAt),
    updatedAt: iso(a.updatedAt),
  };
}

/** The principal an automation acts as: its own name in activity, write scope, its own brand only. */
export function automationPrincipal(a: Pick<Automation, 'id' | 'organizationId' | 'brandId' | 'name' | 'createdByUserId'>): Principal {
  return {
    kind: 'api_key',
    organizationId: a.organizationId,
    credentialId: `automation:${a.id}`,
    apiKeyId: null,
    grantId: null,
    userId: a.createdByUserId,
    actorLabel: `Automation: ${a.name}`,
    scopes: new Set(['read', 'write']),
    brandIds: new Set([a.brandId]),
    role: null,
    publishCeilingCents: null,
  };
}
