// Review gates as a person meets them: who may decide one (anyone but the run's author, with any
// credential of theirs) and list-workflow-reviews, every run of a brand waiting at a gate with the
// steps an approval lets go on, so a reviewer sees them all in one place (REST, MCP, the console).

import { defineOperation, type BrandContext } from '../catalogue/define.js';
import type { Principal } from '../auth/principal.js';
import { apiKeyCreator } from '../keys/store.js';
import { personOf } from './runs.js';
import { nodeResultsOf, reachable, waitingExecutionsOfBrand, type Execution, type NodeResult } from './store.js';
import type { RunDefinition } from './store.js';
import { executionViews } from './views.js';

/** The person who started a run: recorded at its start, or (for runs recorded before that) the creator of its key. */
async function authorOf(ctx: BrandContext, exec: Execution): Promise<number | null> {
  if (exec.runnerUserId !== null && exec.runnerUserId > 0) return exec.runnerUserId;
  if (exec.runnerKind !== 'api_key' || exec.runnerApiKeyId === null) return null;
  return apiKeyCreator(ctx.db, exec.runnerApiKeyId);
}

/**
 * Why `p` may not decide the run's review gates, as a sentence, or null when they may: separation of
 * duties is by person, so the run's author is refused with any credential of theirs (that key,
 * another key they created, their OAuth token, their console session).
 */
export async function reviewRefusal(ctx: BrandContext, p: Principal, exec: Execution): Promise<string | null> {
  const sameKey = p.apiKeyId !== null && exec.runnerKind === 'api_key' && exec.runnerApiKeyId === p.apiKeyId;
  const author = await authorOf(ctx, exec);
  const samePerson = author !== null && personOf(p) === author;
  if (!sameKey && !samePerson) return null;
  return `The run's author (${exec.runnerLabel}) may not review its own run, with this credential or any other of theirs; ask another member.`;
}

const STEP_KINDS_WITH_LAUNCH = new Set(['launch', 'pause', 'budget']);

/** The launch a step names, when it can be told before the step runs: a literal id, the trigger's launch, or one an earlier step made. */
function launchIdOf(raw: unknown, exec: Execution, results: Map<string, NodeResult>): string | null {
  if (typeof raw === 'number') return String(raw);
  if (typeof raw !== 'string') return null;
  if (/^\d+$/.test(raw)) return raw;
  if (raw === '$trigger.launchId') {
    const id = exec.triggerData.launchId;
    return typeof id === 'string' || typeof id === 'number' ? String(id) : null;
  }
  const earlier = /^\$nodes\.([A-Za-z0-9_-]+)\.launchId$/.exec(raw);
  const id = earlier ? (results.get(earlier[1])?.result?.answer as Record<string, unknown> | undefined)?.launchId : undefined;
  return typeof id === 'string' || typeof id === 'number' ? String(id) : null;
}

/** The steps reachable from `gate` along the run's edges, in definition order. */
function stepsAfter(def: RunDefinition, gate: string) {
  const seen = new Set<string>();
  const queue = [gate];
  while (queue.length) {
    const at = queue.shift()!;
    for (const e of def.edges) {
      if (e.from !== at || seen.has(e.to)) continue;
      seen.add(e.to);
      queue.push(e.to);
    }
  }
  return def.nodes.filter((n) => seen.has(n.nodeId) && n.nodeId !== gate);
}

export const listWorkflowReviews = defineOperation({
  name: 'list-workflow-reviews',
  method: 'GET',
  path: '/brands/{brandId}/workflow-reviews',
  scope: 'read',
  idempotency: 'none',
  input: 'list-workflow-reviews#/$defs/input',
  output: 'list-workflow-reviews#/$defs/output',
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  tag: 'workflows',
  toolset: 'workflows',
  summary:
    "List every run of the brand's workflows waiting at a review gate, newest first: who started it, the steps an approval lets go on, and whether you may decide.",
  description:
    'One entry per waiting gate, with the run (as get-workflow-execution answers it), the gate (nodeId, name, since when, its deadline), the ' +
    'steps reachable after it with the launch each launch, pause or budget step names (null when it is only known once the run gets there), ' +
    "and mayDecide: false with reason when the caller is the run's author (review-workflow-step would answer 403). Decide with " +
    'review-workflow-step. A brand-limited key sees only runs of workflows whose every brand is its own.',
  uses: ['page'],
  async handler(ctx, input) {
    const kept: Array<Awaited<ReturnType<typeof waitingExecutionsOfBrand>>[number]> = [];
    let before = ctx.page.beforeId() ?? null;
    let more = false;
    // Pages over what the credential may see: runs of workflows out of its reach are skipped, not counted.
    for (;;) {
      const batch = await waitingExecutionsOfBrand(ctx.db, ctx.principal.organizationId, ctx.brand.id, before, input.limit + 1);
      for (const row of batch) {
        if (!reachable(ctx.principal, row.workflow.reachBrandIds)) continue;
        if (kept.length === input.limit) {
          more = true;
          break;
        }
        kept.push(row);
      }
      const last = batch.at(-1);
      if (more || batch.length <= input.limit || !last) break;
      before = last.execution.id;
    }
    const executions = kept.map((k) => k.execution);
    const views = await executionViews(ctx.db, executions);
    const results = await nodeResultsOf(
      ctx.db,
      executions.map((e) => e.id),
    );
    const reviews = [];
    for (const [i, { execution: exec, workflow }] of kept.entries()) {
      const mine = new Map(results.filter((r) => r.executionId === exec.id).map((r) => [r.nodeId, r]));
      const refusal = await reviewRefusal(ctx, ctx.principal, exec);
      for (const node of exec.definition.nodes) {
        const gate = mine.get(node.nodeId);
        if (node.kind !== 'review' || gate?.status !== 'waiting_review') continue;
        reviews.push({
          workflowId: workflow.id,
          workflowName: exec.definition.workflowName,
          executionId: exec.id,
          nodeId: node.nodeId,
          nodeName: node.name ?? node.nodeId,
          waitingSince: gate.startedAt === null ? null : new Date(gate.startedAt).toISOString(),
          deadlineAt: gate.deadlineAt === null ? null : new Date(gate.deadlineAt).toISOString(),
          startedBy: exec.runnerLabel,
          nextSteps: stepsAfter(exec.definition, node.nodeId).map((n) => ({
            nodeId: n.nodeId,
            kind: n.kind,
            name: n.name ?? n.nodeId,
            launchId: STEP_KINDS_WITH_LAUNCH.has(n.kind) ? launchIdOf(n.settings.launchId, exec, mine) : null,
          })),
          mayDecide: refusal === null,
          reason: refusal,
          execution: views[i],
        });
      }
    }
    const last = kept.at(-1);
    return { reviews, nextCursor: more && last ? ctx.page.next([last.execution.id]) : null };
  },
});
