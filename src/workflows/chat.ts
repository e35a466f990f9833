// Posts a message to a Slack-compatible incoming webhook ({"text": ...}) through the outbound client:
// a step's own webhookUrl is a caller's address (checked at save and again when it connects);
// CHAT_WEBHOOK_URL is the operator's and is called as given. Used by chat steps and automation notices.

import { validationFailed, type FieldIssue } from '../errors.js';
import type { OutboundClient } from '../outbound/client.js';
import type { WorkflowNode } from './definition.js';

export { postChat, type ChatOutcome } from '../outbound/chat.js';

/** Refuses (400 validation_failed naming `nodes[<nodeId>].settings.webhookUrl`) a chat step whose own webhookUrl breaks the address rule. */
export async function checkChatUrls(outbound: OutboundClient, nodes: WorkflowNode[]): Promise<void> {
  const issues: FieldIssue[] = [];
  for (const node of nodes) {
    const url = node.kind === 'chat' ? (node.settings?.webhookUrl as string | undefined) : undefined;
    if (!url) continue;
    const problem = await outbound.urlProblem(url);
    if (problem) issues.push({ field: `nodes[${node.nodeId}].settings.webhookUrl`, code: 'invalid_value', message: problem });
  }
  if (issues.length) throw validationFailed(issues);
}
