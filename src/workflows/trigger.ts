// A workflow's trigger: checked as a whole when a definition is saved (the fields its kind needs
// and no others, a known time zone, a five-field cron), and when a schedule fires next.

import { validationFailed, type FieldIssue } from '../errors.js';
import { nextCronTime } from '../jobs/worker.js';
import { isKnownTimeZone } from '../time/zones.js';
import type { DefinitionDraft, Trigger } from './definition.js';

type TriggerDraft = DefinitionDraft['trigger'];

const FIELDS: Record<Trigger['kind'], ReadonlyArray<keyof TriggerDraft>> = {
  manual: [],
  video_review: [],
  schedule: ['cron', 'timezone'],
  pipeline_stage: ['columnId'],
  monitor: ['automationId'],
};

/** The trigger as stored; throws 400 validation_failed naming each `trigger.<field>` that is wrong. */
export function checkTrigger(t: TriggerDraft, now: number): Trigger {
  const issues: FieldIssue[] = [];
  for (const f of ['cron', 'timezone', 'columnId', 'automationId'] as const) {
    const wanted = FIELDS[t.kind].includes(f);
    if (wanted && t[f] === undefined) issues.push({ field: `trigger.${f}`, code: 'invalid_type', message: `is required for a ${t.kind} trigger` });
    if (!wanted && t[f] !== undefined)
      issues.push({ field: `trigger.${f}`, code: 'unrecognized_key', message: `is not part of a ${t.kind} trigger; remove it` });
  }
  if (t.kind === 'schedule' && typeof t.timezone === 'string' && !isKnownTimeZone(t.timezone)) {
    issues.push({ field: 'trigger.timezone', code: 'invalid_value', message: `"${t.timezone}" is not an IANA time zone such as Europe/Paris` });
  }
  if (t.kind === 'schedule' && typeof t.cron === 'string') {
    if (t.cron.trim().split(/\s+/).length !== 5)
      issues.push({ field: 'trigger.cron', code: 'invalid_value', message: 'must have five fields: minute hour day-of-month month day-of-week' });
    else {
      try {
        nextCronTime(t.cron, now, 'UTC');
      } catch (err) {
        issues.push({ field: 'trigger.cron', code: 'invalid_value', message: `is not a valid cron expression (${(err as Error).message})` });
      }
    }
  }
  if (!issues.length) {
    if (t.kind === 'schedule' && t.cron !== undefined && t.timezone !== undefined) return { kind: t.kind, cron: t.cron, timezone: t.timezone };
    if (t.kind === 'pipeline_stage' && t.columnId !== undefined) return { kind: t.kind, columnId: t.columnId };
    if (t.kind === 'monitor' && t.automationId !== undefined) return { kind: t.kind, automationId: t.automationId };
    if (t.kind === 'manual' || t.kind === 'video_review') return { kind: t.kind };
  }
  throw validationFailed(issues);
}

/** When an active schedule trigger fires next after `after`; null for any other trigger, or while inactive. */
export function nextRunOf(trigger: Trigger, status: 'active' | 'inactive', after: number): number | null {
  return status === 'active' && trigger.kind === 'schedule' ? nextCronTime(trigger.cron, after, trigger.timezone) : null;
}
