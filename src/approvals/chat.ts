// Approvals reach chat (paths.md "Approvals by a person": approval.requested and approval.decided go
// to webhooks and chat): an outbox subscriber that posts each of the two events to CHAT_WEBHOOK_URL
// as a message, once per event (the subscriber's position advances with it), whoever emitted it (a
// money path, a person's decision, the expire-approvals job). Without CHAT_WEBHOOK_URL it reads no
// event. A chat that fails is logged and not retried: the webhook events are the record.

import type { Knex } from 'knex';
import type { EventSubscriber, StoredEvent } from '../events/subscribers.js';
import type { JobContext } from '../jobs/kind.js';
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

export const approvalChatSubscriber: EventSubscriber = {
  name: 'approval-chat',
  types: ['approval.requested', 'approval.decided'],
  // Without a chat address there is nothing to post: no event is read.
  async wants(ctx, _trx, heads) {
    return ctx.config.chatWebhookUrl ? heads : [];
  },
  async handle(ctx: JobContext, _trx: Knex.Transaction, events: StoredEvent[]): Promise<void> {
    const url = ctx.config.chatWebhookUrl;
    if (!url) return;
    for (const e of events) {
      const sent = await postChat(ctx.outbound, operatorTarget(url), chatText(e), `approval-event-${e.publicId}`);
      if (sent.error !== null) ctx.log.warn({ eventId: e.publicId, error: sent.error }, 'approval chat message not sent');
    }
  },
};
