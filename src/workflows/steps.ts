// What each kind of step does when it runs. Acting steps call an operation through `invoke` as the
// run's credential, with an Idempotency-Key derived from (execution, node), so a step resumed after
// a crash replays its first answer instead of acting twice. Refusals become the node's error.

import type { Knex } from 'knex';
import type { Principal } from '../auth/principal.js';
import type { Catalogue } from '../catalogue/define.js';
import type { Config } from '../config.js';
import { ServiceError } from '../errors.js';
import type { InvokeOptions, InvokeResult } from '../pipeline/invoke.js';
import type { SchemaRegistry } from '../schemas/registry.js';
import { callerTarget, operatorTarget } from '../outbound/address-policy.js';
import type { OutboundClient } from '../outbound/client.js';
import { runAgent, type AgentState } from './agent.js';
import { postChat, type ChatOutcome } from './chat.js';
import type { WorkflowNode } from './definition.js';
import { stepIssues } from './references.js';

export type StepOutcome =
  | { status: 'succeeded'; result: Record<string, unknown> }
  | { status: 'failed'; error: { code: string; message: string; details?: unknown }; result?: Record<string, unknown> }
  | { status: 'waiting_review'; deadline: number | null }
  /** Not finished, try again later (a transient failure). */
  | { status: 'retry'; reason: string };

export interface StepEnv {
  config: Config;
  /** Where the step's references are looked up again before it acts. */
  db: Knex;
  principal: Principal;
  invoke(name: string, principal: Principal, input: Record<string, unknown>, options: InvokeOptions): Promise<InvokeResult>;
  catalogue?: Catalogue;
  schemas: SchemaRegistry;
  executionId: number;
  brandId: number;
  workflowName: string;
  triggerData: Record<string, any>;
  /** Results of the nodes that finished, by node id. */
  results: Map<string, { status: string; result: Record<string, any> | null }>;
  /** The plan fingerprint a review gate (or the run's start) approved for this step: it publishes that plan only (else 409 stale_read). */
  approvedPlan?: string;
  /** What this node saved before a crash (the agent's transcript), if anything. */
  saved: Record<string, any> | null;
  saveProgress(result: Record<string, unknown>): Promise<void>;
  /** Failed attempts of this step so far (transient failures are retried a few times). */
  attempts: number;
  now: () => number;
  /** The one client that calls outside services (chat posts, the agent's model). */
  outbound: OutboundClient;
}

const MAX_TRANSIENT_ATTEMPTS = 3;
const TRANSIENT = new Set(['rate_limited', 'unavailable', 'timeout', 'internal_error', 'idempotency_conflict']);

export const stepKey = (executionId: number, nodeId: string) => `wf-${executionId}-${nodeId}`;

/** True when a step that failed `attempts` times before this one may be tried again after a transient failure. */
export const retriesLeft = (attempts: number) => attempts + 1 < MAX_TRANSIENT_ATTEMPTS;

/**
 * What a refusal of the operation a step called means for the step: tried again (same
 * Idempotency-Key, so safely) while the service was busy or a dependency did not answer and tries
 * are left, the node's error otherwise.
 */
export function refusalOutcome(err: ServiceError, attempts: number): StepOutcome {
  if (TRANSIENT.has(err.code) && retriesLeft(attempts)) return { status: 'retry', reason: `${err.code}: ${err.message}` };
  return { status: 'failed', error: { code: err.code, message: err.message, details: err.details ?? undefined } };
}

/** What a chat webhook's answer means for the step: a 2xx succeeds; no answer, 5xx or 429 is tried again while tries are left; the rest fails. */
export function chatOutcome(sent: ChatOutcome, text: string, attempts: number): StepOutcome {
  if (sent.statusCode !== null && sent.statusCode >= 200 && sent.statusCode < 300)
    return { status: 'succeeded', result: { statusCode: sent.statusCode, text, durationMs: sent.durationMs } };
  const transient = sent.statusCode === null || sent.statusCode >= 500 || sent.statusCode === 429;
  if (transient && !sent.refused && retriesLeft(attempts)) return { status: 'retry', reason: sent.error ?? `chat webhook answered ${sent.statusCode}` };
  return {
    status: 'failed',
    error: { code: 'unavailable', message: `The chat webhook did not take the message: ${sent.error ?? `HTTP ${sent.statusCode}`}.` },
    result: { statusCode: sent.statusCode },
  };
}

function launchIdOf(env: StepEnv, raw: string | number): string {
  if (typeof raw === 'number') return String(raw);
  // "$nodes.<nodeId>.launchId": the launch an earlier step made (an applied structure template).
  const earlier = /^\$nodes\.([A-Za-z0-9_-]+)\.launchId$/.exec(raw);
  if (earlier) {
    const id = (env.results.get(earlier[1])?.result?.answer as Record<string, unknown> | undefined)?.launchId;
    if (typeof id !== 'string' && typeof id !== 'number') {
      throw new ServiceError('validation_failed', `This step uses "${raw}", but step ${earlier[1]} made no launch before it.`, null);
    }
    return String(id);
  }
  if (raw !== '$trigger.launchId') return raw;
  const id = env.triggerData.launchId;
  if (typeof id !== 'string' && typeof id !== 'number') {
    throw new ServiceError(
      'validation_failed',
      'This step uses "$trigger.launchId", but the run was not started with a launch (run-workflow launchId, or a pipeline card).',
      null,
    );
  }
  return String(id);
}

/**
 * The step's references, checked again as it is about to act (they were checked when the workflow
 * was saved, but a template, launch or node may have gone since): a failed outcome naming each one
 * that went away, or null. A brand outside the runner's limit is left to the operation, which
 * refuses it with brand_not_allowed.
 */
async function referencesGone(env: StepEnv, node: WorkflowNode, brandId: number, launchId: string | null): Promise<StepOutcome | null> {
  if (env.principal.brandIds !== null && !env.principal.brandIds.has(brandId)) return null;
  const issues = await stepIssues({ db: env.db, principal: env.principal }, node, brandId, launchId === null ? null : Number(launchId));
  if (!issues.length) return null;
  const what = issues.map((i) => `${i.field} ${i.message}`).join('; ');
  return {
    status: 'failed',
    error: { code: 'not_found', message: `Step ${node.nodeId} did not act: a reference went away since the workflow was saved: ${what}.`, details: issues },
  };
}

/** Who approved the run at a review gate before this step (the last approval), as the gate recorded them. */
function approver(env: StepEnv): string | null {
  let name: string | null = null;
  for (const r of env.results.values())
    if (r.status === 'succeeded' && r.result?.decision === 'approve' && typeof r.result.reviewer === 'string') name = r.result.reviewer;
  return name;
}

async function act(env: StepEnv, node: WorkflowNode, operation: string, input: Record<string, unknown>): Promise<StepOutcome> {
  // What a person approved at a gate is published in the run's key's name and theirs: the activity log says both.
  const by = approver(env);
  const principal = by ? { ...env.principal, actorLabel: `${env.principal.actorLabel}, approved by ${by}`.slice(0, 255) } : env.principal;
  const result = await env.invoke(operation, principal, input, {
    requestId: `wfx_${env.executionId}_${node.nodeId}`,
    idempotencyKey: stepKey(env.executionId, node.nodeId),
  });
  return { status: 'succeeded', result: { operation, status: result.status, replayed: result.replayed, answer: result.body as Record<string, unknown> } };
}

function fill(template: string, env: StepEnv, status: string): string {
  const values: Record<string, string> = {
    workflowName: env.workflowName,
    executionId: String(env.executionId),
    launchId: String(env.triggerData.launchId ?? ''),
    status,
  };
  return template.replace(/\{\{\s*(\w+)\s*\}\}/g, (m, k: string) => values[k] ?? m);
}

function valueAt(obj: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((o, k) => (o && typeof o === 'object' ? (o as Record<string, unknown>)[k] : undefined), obj);
}

/** A review gate starting at `now`: it waits for a decision until `timeoutHours` from now (none: for ever). */
export function reviewOutcome(settings: Record<string, any>, now: number): StepOutcome {
  return { status: 'waiting_review', deadline: typeof settings.timeoutHours === 'number' ? now + Math.round(settings.timeoutHours * 3_600_000) : null };
}

/** A condition: whether the value at `path` of step `source`'s result equals `equals` (the edge with that `when` is followed). */
export function conditionOutcome(settings: Record<string, any>, results: StepEnv['results']): StepOutcome {
  const value = valueAt(results.get(settings.source)?.result ?? null, settings.path);
  return { status: 'succeeded', result: { value: value === settings.equals, tested: value ?? null } };
}

/** Runs one step; ServiceErrors of the operations it calls become a failed outcome. */
export async function runStep(env: StepEnv, node: WorkflowNode): Promise<StepOutcome> {
  const s = node.settings;
  const brandId = (s.brandId as number | undefined) ?? env.brandId;
  try {
    switch (node.kind) {
      case 'apply_template':
        return (await referencesGone(env, node, brandId, null)) ?? (await act(env, node, 'apply-structure-template', { brandId, templateId: s.templateId }));
      case 'launch': {
        const launchId = launchIdOf(env, s.launchId);
        const plan = env.approvedPlan === undefined ? {} : { planFingerprint: env.approvedPlan };
        return (await referencesGone(env, node, brandId, launchId)) ?? (await act(env, node, 'launch-campaign', { brandId, launchId, confirm: true, ...plan }));
      }
      case 'pause': {
        const launchId = launchIdOf(env, s.launchId);
        return (
          (await referencesGone(env, node, brandId, launchId)) ??
          (await act(env, node, 'update-node', { brandId, launchId, nodeId: s.nodeId, properties: { status: 'PAUSED' } }))
        );
      }
      case 'budget': {
        const launchId = launchIdOf(env, s.launchId);
        const plan = env.approvedPlan === undefined ? {} : { planFingerprint: env.approvedPlan };
        const input = { brandId, launchId, nodeId: s.nodeId, level: s.level ?? 'CAMPAIGN', budgetType: s.budgetType ?? 'daily', amount: s.amount, ...plan };
        return (await referencesGone(env, node, brandId, launchId)) ?? (await act(env, node, 'edit-live-campaign', input));
      }
      case 'review':
        return reviewOutcome(s, env.now());
      case 'condition':
        return conditionOutcome(s, env.results);
      case 'chat': {
        // The step's own URL came from a caller (checked again as it connects); CHAT_WEBHOOK_URL from the operator.
        const target = s.webhookUrl ? callerTarget(s.webhookUrl as string) : env.config.chatWebhookUrl ? operatorTarget(env.config.chatWebhookUrl) : null;
        if (!target) return { status: 'failed', error: { code: 'unprocessable', message: "No chat webhook: set the step's webhookUrl or CHAT_WEBHOOK_URL." } };
        const text = fill(s.message, env, 'running');
        return chatOutcome(await postChat(env.outbound, target, text, stepKey(env.executionId, node.nodeId)), text, env.attempts);
      }
      case 'agent': {
        if (!env.config.agentModelUrl || !env.catalogue)
          return { status: 'failed', error: { code: 'unavailable', message: 'No agent model is configured (AGENT_MODEL_URL).' } };
        const allowed: number[] = (s.brandIds as number[] | undefined) ?? [env.brandId];
        const own = env.principal.brandIds;
        const brands = own === null ? allowed : allowed.filter((b) => own.has(b));
        // The agent works only on the step's brands, within the credential's own limit.
        const principal: Principal = { ...env.principal, brandIds: new Set(brands) };
        try {
          const outcome = await runAgent(
            {
              config: env.config,
              catalogue: env.catalogue,
              schemas: env.schemas,
              principal,
              invoke: env.invoke,
              keyPrefix: stepKey(env.executionId, node.nodeId),
              requestId: `wfx_${env.executionId}_${node.nodeId}`,
              save: (state) => env.saveProgress({ agent: state }),
              outbound: env.outbound,
            },
            s.instruction,
            brands,
            (s.maxSteps as number | undefined) ?? env.config.agentMaxSteps,
            (env.saved?.agent as AgentState | undefined) ?? null,
          );
          const result = { answer: outcome.answer, turns: outcome.state.turns, toolCalls: outcome.state.toolCalls, transcript: outcome.state.transcript };
          return outcome.ok ? { status: 'succeeded', result } : { status: 'failed', error: outcome.error!, result };
        } catch (err) {
          if (err instanceof ServiceError) throw err;
          if (retriesLeft(env.attempts)) return { status: 'retry', reason: `agent model: ${(err as Error).message}` };
          return { status: 'failed', error: { code: 'unavailable', message: `The agent model did not answer: ${(err as Error).message}`.slice(0, 1000) } };
        }
      }
      default:
        return { status: 'failed', error: { code: 'validation_failed', message: `Unknown step kind ${String(node.kind)}.` } };
    }
  } catch (err) {
    if (!(err instanceof ServiceError)) throw err;
    return refusalOutcome(err, env.attempts);
  }
}
