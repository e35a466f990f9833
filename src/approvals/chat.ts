// Approvals reach chat (paths.md "Approvals by a person": approval.requested and approval.decided go
// to webhooks and chat): an outbox subscriber turns each of the two events into a one-off
// `post-approval-chat` job (keyed by the event, in the transaction that advances its position, so
// once per event), whoever emitted it (a money path, a person's decision, the expire-approvals job),
// and that job posts the message to CHAT_WEBHOOK_URL outside any transaction. Without
// CHAT_WEBHOOK_URL the subscriber reads no event. A chat that fails is logged and not retried: the
// webhook events are the record.

import type { Knex } from 'knex';
import type { EventSubscriber, StoredEvent } from '../events/subscribers.js';
import type { JobContext, JobNext } from '../jobs/kind.js';
import type { ClaimedJob } from '../jobs/queue/job.js';
import { wakeJob } from '../jobs/queue/wake.js';
import { postChat } from '../outbound/chat.js';
import { operatorTarget } from '../outbound/address-policy.js';
import { formatMinor } from '../money/convert.js';
import { describeKind } from './gate.js';

type Amount = { accountId: string; currency: string; amountMinorUnits: number; countedUsdCents: number };

/** The chat message of an approval event. */
export function chatText(e: Pick<StoredEvent, 'type' | 'data'>): string {
  const d = e.data;
  const what = describeKind(String(d.kind ?? 'publish'));
  const of = d.launchId ? ` (launch ${String(d.launchId)}${d.nodeId ? `, node ${String(d.nodeId)}` : ''})` : '';
  if (e.type === 'approval.requested') {
    const amounts = (d.amounts as Amount[] | undefined) ?? [];
    const spends = amounts.length ? `, spending ${amounts.map((a) => `${formatMinor(a.amountMinorUnits, a.currency)} on ${a.accountId}`).join(', ')}` : '';
    return `${String(d.requestedBy)} asks to ${what}${of}${spends}. Approval ${String(d.approvalId)} waits for an owner or admin: ${String(d.consoleUrl)}`;
  }
  const outcome =
    d.status === 'stale'
      ? `found stale by ${String(d.decidedBy)} (what was approved changed since; nothing was done)`
      : d.status === 'expired'
        ? 'expired undecided (nothing was done)'
        : `${String(d.status)} by ${String(d.decidedBy)}`;
  return `Approval ${String(d.approvalId)} (${what}${of}) was ${outcome}.`;
}

/** The one-off job that posts one approval message to chat. */
const CHAT_JOB = 'post-approval-chat';

export const approvalChatSubscriber: EventSubscriber = {
  name: 'approval-chat',
  types: ['approval.requested', 'approval.decided'],
  // Without a chat address there is nothing to post: no event is read.
  async wants(ctx, _trx, heads) {
    return ctx.config.chatWebhookUrl ? heads : [];
  },
  async handle(ctx: JobContext, trx: Knex.Transaction, events: StoredEvent[]): Promise<void> {
    if (!ctx.config.chatWebhookUrl) return;
    for (const e of events) await wakeJob(trx, CHAT_JOB, e.publicId, ctx.now(), { text: chatText(e) });
  },
};

/** Posts the job's message to CHAT_WEBHOOK_URL (never throws: a failure is logged), then the job is done. */
export async function run(ctx: JobContext, job: ClaimedJob): Promise<JobNext> {
  const url = ctx.config.chatWebhookUrl;
  const text = (job.payload as { text?: unknown } | null)?.text;
  if (!url || typeof text !== 'string') return 'done';
  const sent = await postChat(ctx.outbound, operatorTarget(url), text, `approval-event-${job.key}`);
  if (sent.error !== null) ctx.log.warn({ eventId: job.key, error: sent.error }, 'approval chat message not sent');
  return 'done';
}

export const kind = CHAT_JOB;
