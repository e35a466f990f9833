// Posts a message to a Slack-compatible incoming webhook ({"text": ...}) through the outbound client:
// a step's own webhookUrl is a caller's address (checked at save and again when it connects);
// CHAT_WEBHOOK_URL is the operator's and is called as given. Used by chat steps and automation notices.

import { validationFailed, type FieldIssue } from '../errors.js';
import type { OutboundTarget } from '../outbound/address-policy.js';
import { OutboundError, type OutboundClient } from '../outbound/client.js';
import type { WorkflowNode } from './definition.js';

export interface ChatOutcome {
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  /** True when the address rule refused the URL: nothing was sent and a retry would not help. */
  refused: boolean;
}

const TIMEOUT_MS = 10_000;

/** Sends `text` to `target`; never throws. `dedupeKey` goes out as Idempotency-Key so a resent message can be recognised. */
export async function postChat(outbound: OutboundClient, target: OutboundTarget, text: string, dedupeKey: string): Promise<ChatOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  try {
    const res = await outbound.request(target, {
      method: 'POST',
      timeoutMs: TIMEOUT_MS,
      maxResponseBytes: 64 * 1024,
      headers: { 'content-type': 'application/json', 'user-agent': 'svc-workflows/1.0', 'idempotency-key': dedupeKey },
      body: JSON.stringify({ text }),
    });
    return { statusCode: res.status, error: null, durationMs: elapsed(), refused: false };
  } catch (err) {
    const refused = err instanceof OutboundError && err.kind === 'refused';
    return { statusCode: null, error: (err as Error).message.slice(0, 500), durationMs: elapsed(), refused };
  }
}

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
