// Automation notices: after a live run of a `notify` or `pause_and_notify` automation that acted on
// something, one Slack-compatible message ({"text": ...}) to CHAT_WEBHOOK_URL (the operator's
// address) naming the automation, the objects and the metrics that matched. Shadow runs post nothing.

import type { Logger } from 'pino';
import { operatorTarget } from '../outbound/address-policy.js';
import type { OutboundClient } from '../outbound/client.js';
import { decimalCost } from '../trackers/port.js';
import { postChat } from '../workflows/chat.js';
import { METRICS } from './metrics.js';
import type { Automation, Condition } from './rule.js';

/** What a notice needs of one object of the run. */
export interface NoticeObject {
  objectId: string;
  name: string | null;
  level: string;
  metrics: Partial<Record<string, Partial<Record<string, number | null>>>>;
  conditions: boolean[];
  action: string;
}

const OPERATORS: Record<Condition['operator'], string> = { gt: '>', gte: '≥', lt: '<', lte: '≤' };

function shown(metric: Condition['metric'], value: number | null, currency: string): string {
  if (value === null) return 'n/a';
  if (METRICS[metric].unit === 'minor_units') return `${decimalCost(Math.round(value), currency)} ${currency}`;
  if (METRICS[metric].unit === 'percent') return `${value} %`;
  return String(value);
}

/** The message of one run: the automation, then one line per object acted on with the metrics its conditions read. */
export function noticeText(a: Automation, runId: number, objects: NoticeObject[], currency: string): string {
  const lines = [`Automation "${a.name}" (#${a.id}, ${a.accountId}) matched ${objects.length} ${objects.length === 1 ? 'object' : 'objects'} in run ${runId}:`];
  for (const o of objects) {
    const metrics = a.conditions
      .map(
        (c, i) =>
          `${c.metric} (${c.window}) ${shown(c.metric, o.metrics[c.window]?.[c.metric] ?? null, currency)} ${OPERATORS[c.operator]} ${shown(c.metric, c.value, currency)}${o.conditions[i] ? '' : ' (not met)'}`,
      )
      .join(', ');
    lines.push(`• ${o.level} ${o.name ? `"${o.name}" ` : ''}${o.objectId}: ${metrics}; ${o.action}`);
  }
  return lines.join('\n');
}

/** Posts the run's notice when the automation notifies, runs live, acted on something and CHAT_WEBHOOK_URL is set; never throws. */
export async function postNotice(
  deps: { outbound: OutboundClient; chatWebhookUrl: string | null; log: Logger },
  a: Automation,
  runId: number,
  objects: NoticeObject[],
  currency: string,
): Promise<void> {
  if (!deps.chatWebhookUrl || a.mode !== 'live' || a.action === 'pause') return;
  const acted = objects.filter((o) => o.action === 'notified' || o.action === 'paused');
  if (!acted.length) return;
  const sent = await postChat(deps.outbound, operatorTarget(deps.chatWebhookUrl), noticeText(a, runId, acted, currency), `automation-run-${runId}`);
  if (sent.statusCode === null || sent.statusCode >= 300)
    deps.log.warn({ automationId: a.id, runId, statusCode: sent.statusCode, err: sent.error }, 'automation notice not delivered');
}
