// An approval asked for over MCP, on a client that declares URL-mode elicitation (MCP 2025-11-25
// `mode: "url"`; paths.md "Approvals by a person"): the server sends the person to the approval's
// console page (elicitation/create with mode url, message, url and elicitationId) and the agent's
// call waits, bounded by MCP_CONFIRM_TIMEOUT_S, for an owner's or admin's decision, reading the
// approval until it is no longer waiting. It answers the decision: approved, what carrying it out
// answered; rejected, stale or expired, the approval and why nothing was done; no decision in time,
// the approval still waiting (the agent reads it later with get_approval). The person decides only
// in the console: this code reads, it never decides.

import type { ElicitResult } from '@modelcontextprotocol/sdk/types.js';

/** How often the approval is read while the call waits. */
const POLL_MS = 500;

/** An approval as get-approval answers it (what this module reads of it). */
export interface ApprovalAnswer extends Record<string, unknown> {
  approvalId: number;
  status: string;
  consoleUrl: string;
  kind: string;
  decidedBy?: string;
  result?: Record<string, unknown>;
}

/** What the wait came to: the body to answer, and a sentence for the agent. */
export interface Decided {
  status: string;
  body: Record<string, unknown>;
  said: string;
}

export interface UrlAsking {
  /** Sends elicitation/create in URL mode to the client (its answer says whether the person opened the page). */
  askUrl(params: { mode: 'url'; message: string; url: string; elicitationId: string }): Promise<ElicitResult>;
  /** Reads the approval again (get-approval as the asking credential). */
  read(): Promise<ApprovalAnswer>;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Called as the wait goes on (progress for the client). */
  onWait?: (waits: number) => void;
  now?: () => number;
}

/** The question's words: what waits, and that the page is where it is decided. */
function messageOf(a: ApprovalAnswer, what: string): string {
  return `This organization wants a person to decide: ${what} waits as approval ${a.approvalId}. An organization owner or admin (not the person behind this agent's key) approves or rejects it on this console page.`;
}

/** Asks the person to open approval `a`'s page and waits for the decision (see the header). */
export async function waitForDecision(a: ApprovalAnswer, what: string, o: UrlAsking): Promise<Decided> {
  const now = o.now ?? Date.now;
  const deadline = now() + o.timeoutMs;
  let waits = 0;
  o.onWait?.(++waits);
  let opened: ElicitResult | null = null;
  try {
    opened = await o.askUrl({ mode: 'url', message: messageOf(a, what), url: a.consoleUrl, elicitationId: `approval-${a.approvalId}` });
  } catch {
    // A client that fails the question (or times it out) still has the approval: the wait below reads it.
  }
  let current = a;
  if (opened && opened.action !== 'accept') return answered(await o.read(), 'declined');
  while (current.status === 'waiting' && now() < deadline && !o.signal?.aborted) {
    await new Promise((resolve) => setTimeout(resolve, Math.min(POLL_MS, Math.max(0, deadline - now()))));
    current = await o.read();
    o.onWait?.(++waits);
  }
  return answered(current, 'waited');
}

/** The answer for the approval as it stands after the wait. */
function answered(a: ApprovalAnswer, how: 'declined' | 'waited'): Decided {
  const by = a.decidedBy ?? 'a person';
  switch (a.status) {
    case 'approved':
      return {
        status: a.status,
        body: a.result ?? a,
        said: `${by} approved approval ${a.approvalId} in the console, and it was carried out as planned: this is its answer.`,
      };
    case 'rejected':
      return { status: a.status, body: a, said: `Nothing was done: ${by} rejected approval ${a.approvalId} in the console.` };
    case 'stale':
      return {
        status: a.status,
        body: a,
        said: `Nothing was done: what approval ${a.approvalId} named changed before it was carried out (it is stale). Prepare it again and show the person the new plan.`,
      };
    case 'expired':
      return { status: a.status, body: a, said: `Nothing was done: approval ${a.approvalId} expired undecided.` };
    default:
      return {
        status: a.status,
        body: a,
        said:
          how === 'declined'
            ? `Nothing was done yet: the person did not open the console page. Approval ${a.approvalId} still waits for an owner or admin at ${a.consoleUrl}; read it with get_approval.`
            : `Nothing was done yet: no decision came in time. Approval ${a.approvalId} still waits for an owner or admin at ${a.consoleUrl}; read it later with get_approval (status waiting, approved, rejected, expired or stale).`,
      };
  }
}
